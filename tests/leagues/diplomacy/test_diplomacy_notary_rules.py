"""The notary as a ``Rules``: who is told what, what is refused, how a phase ends."""

from __future__ import annotations

import json

import pytest

from accord.commands.play import rules_for
from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import IllegalAction, Visibility
from accord.leagues.diplomacy.notary_rules import NotaryRules, NotarySetup, NotaryState

R = NotaryRules()
ENGLAND, FRANCE, GERMANY = 1, 2, 3


def _act(s: NotaryState, party: int, kind: str, **args: str) -> list[tuple[str, int | None]]:
    s2, events = R.apply(s, party, R.action_from_json(s, party, {"kind": kind, "args": args}), 0.0)
    assert s2 is s
    return [(e.kind, e.party) for e in events]


def _dmz(s: NotaryState, party: int, other: str, where: str) -> list[tuple[str, int | None]]:
    return _act(s, party, "propose", **{"with": other, "province": where, "when": "1901S"})


def test_the_registry_finds_the_notary_rules_by_name() -> None:
    assert type(rules_for("diplomacy")) is NotaryRules


def test_a_deal_is_confirmed_to_the_powers_it_involves_only() -> None:
    s = R.initial(NotarySetup(), 0)
    assert _dmz(s, FRANCE, "GERMANY", "BUR") == [("propose", FRANCE), ("propose", GERMANY)]
    assert R.observe(s, ENGLAND)["proposals"] == []
    assert [p["id"] for p in R.observe(s, GERMANY)["proposals"]] == ["d1"]
    assert _act(s, GERMANY, "accept", proposal="d1") == [
        ("accept", FRANCE), ("accept", GERMANY), ("confirm", FRANCE), ("confirm", GERMANY),
    ]  # fmt: skip
    assert R.observe(s, ENGLAND)["confirmed"] == []
    assert R.observe(s, FRANCE)["confirmed"] == [
        {
            "proposer": "FRANCE",
            "commitments": [],
            "dmzs": [[1901, "S", ["FRANCE", "GERMANY"], ["BUR"]]],
        }
    ]
    with pytest.raises(IllegalAction, match="'accept' is not allowed now; allowed: propose, end"):
        R.action_from_json(s, GERMANY, {"kind": "accept", "args": {"proposal": "d1"}})


def test_a_deal_that_contradicts_a_confirmed_one_is_dropped_silently() -> None:
    s = R.initial(NotarySetup(), 0)
    _dmz(s, FRANCE, "GERMANY", "BUR")
    _act(s, GERMANY, "accept", proposal="d1")
    # Germany now promises Austria to hold BUR, inside the DMZ it agreed with France
    from accord.leagues.diplomacy.deals import Deal, OrderCommitment
    from accord.leagues.diplomacy.notary_rules import NotaryAction

    deal = Deal.make("GERMANY", [OrderCommitment(1901, "S", "GERMANY", "A BUR H"),
                                 OrderCommitment(1901, "S", "AUSTRIA", "A VIE H")])  # fmt: skip
    s, _ = R.apply(s, GERMANY, NotaryAction("propose", deal), 0.0)
    s, events = R.apply(
        s, 0, R.action_from_json(s, 0, {"kind": "accept", "args": {"proposal": "d2"}}), 0.0
    )
    kinds = [(e.kind, e.party, e.visibility) for e in events]
    assert kinds[-1] == ("inconsistent", 0, Visibility.OPERATOR)
    assert len(R.observe(s, None)["confirmed"]) == 1


def test_refusals_change_nothing_and_say_why() -> None:
    s = R.initial(NotarySetup(), 0)
    before = json.dumps(R.serialize(s))
    bad = {"kind": "propose", "args": {"with": "FRANCE", "province": "BUR", "when": "1901S"}}
    with pytest.raises(
        IllegalAction, match=r"with must be one of \['AUSTRIA', 'ENGLAND', 'GERMANY'"
    ):
        R.action_from_json(s, FRANCE, bad)
    past = {**bad, "args": {**bad["args"], "with": "GERMANY", "when": "1900F"}}
    with pytest.raises(IllegalAction, match="when must be one of"):
        R.action_from_json(s, FRANCE, past)
    assert json.dumps(R.serialize(s)) == before


def test_the_phase_ends_when_all_are_done_failed_or_out_of_time() -> None:
    s = R.initial(NotarySetup(("FRANCE", "GERMANY")), 0)
    _act(s, 0, "end")
    assert R.to_act(s) == (1,)
    s, events = R.fail(s, 1, Failure(1, "g", FailureKind.TIMEOUT, "slow"), 3.0)
    assert [e.kind for e in events] == ["failure", "over"]
    assert R.result(s) == {"reason": "done", "confirmed": [], "actions": 1}
    timed = R.initial(NotarySetup(seconds=60.0), 0)
    assert R.tick(timed, 59.9)[1] == ()
    assert R.result(R.tick(timed, 60.0)[0]) == {"reason": "deadline", "confirmed": [], "actions": 0}


def test_a_restored_phase_plays_on_the_same() -> None:
    s = R.initial(NotarySetup(), 0)
    _dmz(s, FRANCE, "GERMANY", "BUR")
    _dmz(s, ENGLAND, "FRANCE", "NTH")
    t = R.restore(json.loads(json.dumps(R.serialize(s))))
    assert R.serialize(t) == R.serialize(s)
    assert _act(t, GERMANY, "accept", proposal="d1") == _act(s, GERMANY, "accept", proposal="d1")
    assert t.notary.inbox("GERMANY") == s.notary.inbox("GERMANY")
