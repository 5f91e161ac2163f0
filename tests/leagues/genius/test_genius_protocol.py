"""The session state machine: checked actions, running agreement, ends, invalid actions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import ConfigError, InvalidScenario, ProtocolViolation
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.protocol import (
    Action,
    GeniusSession,
    Kind,
    Phase,
    Rules,
    VirtualClock,
)

JC = load_domain("job_candidate")


def _running(rules: Rules | None = None) -> tuple[GeniusSession, VirtualClock]:
    clock = VirtualClock()
    s = GeniusSession(JC, (0, 0), rules or Rules(turn_seconds=10), clock)
    s.start()
    return s, clock


def test_accepted_offers_join_the_running_agreement_and_replace_earlier_values() -> None:
    s, _ = _running()
    a = s.submit(0, Action.make_offer({"Salary": "7,000 NIS", "Working Hours": "10 hours"}))
    s.submit(1, Action.accept(a.offer))
    b = s.submit(1, Action.make_offer({"Salary": "20,000 NIS"}))
    s.submit(0, Action.accept(b.offer))
    assert s.agreement["Salary"] == "20,000 NIS"
    assert s.agreement["Working Hours"] == "10 hours"
    assert s.agreement["Leased Car"] is None and s.phase is Phase.RUNNING


def test_a_rejected_offer_changes_nothing_and_cannot_be_answered_again() -> None:
    s, _ = _running()
    a = s.submit(0, Action.make_offer({"Salary": "7,000 NIS"}))
    assert s.submit(1, Action.reject(a.offer)).ok
    again = s.submit(1, Action.accept(a.offer))
    assert not again.ok and "already answered (reject)" in (again.error or "")
    assert s.agreement["Salary"] is None and s.invalid == [0, 1]


def test_a_full_agreement_ends_the_session() -> None:
    s, clock = _running()
    clock.advance(25)
    best = {i.name: i.values[0] for i in JC.issues}
    e = s.submit(1, Action.make_offer(best))
    end = s.submit(0, Action.accept(e.offer))
    assert end.result is not None and end.result.full and end.result.turn == 2
    assert s.phase is Phase.ENDED


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action.make_offer({"Bonus": "yes"}), "unknown issue 'Bonus'"),
        (Action.make_offer({"Salary": "1 NIS"}), "issue 'Salary' has no value '1 NIS'"),
        (Action.make_offer({}), "an offer needs values for at least one issue"),
        (Action.accept(7), "no offer 7 to answer"),
        (Action.comment(5), "comment index must be 0..2, got 5"),
        (Action.threat(-1), "threat index must be 0..2, got -1"),
        ("accept everything", "expected an Action, got str"),
    ],
)
def test_an_invalid_action_is_recorded_against_its_sender_and_ends_nothing(
    action: object, message: str
) -> None:
    s, _ = _running()
    event = s.submit(1, action)
    assert not event.ok and message in (event.error or "")
    assert s.invalid == [0, 1] and s.phase is Phase.RUNNING
    assert (s.agreement_row < 0).all() and s.offers == []


def test_accepting_ones_own_offer_is_invalid() -> None:
    s, _ = _running()
    e = s.submit(0, Action.make_offer({"Salary": "7,000 NIS"}))
    bad = s.submit(0, Action.accept(e.offer))
    assert not bad.ok and "is your own" in (bad.error or "")


def test_an_action_after_the_end_is_refused_and_recorded() -> None:
    s, _ = _running()
    s.submit(0, Action.opt_out())
    result = s.result
    late = s.submit(1, Action.make_offer({"Salary": "7,000 NIS"}))
    assert not late.ok and "the session has ended" in (late.error or "")
    assert s.result is result and s.offers == []


def test_the_deadline_ends_the_session_on_the_next_tick_or_action() -> None:
    s, clock = _running(Rules(turns=3, turn_seconds=10))
    clock.advance(29.9)
    assert s.tick() is None and s.turn == 2
    clock.advance(0.1)
    late = s.submit(0, Action.comment(0))
    assert not late.ok and s.result is not None and s.result.reason.value == "deadline"


def test_from_json_names_what_was_expected() -> None:
    with pytest.raises(ProtocolViolation, match="an offer needs 'values'"):
        Action.from_json({"kind": "offer", "values": ["Salary"]})
    with pytest.raises(ProtocolViolation, match="accept needs 'offer'"):
        Action.from_json({"kind": "accept", "offer": "3"})
    with pytest.raises(ProtocolViolation, match="must be a JSON object"):
        Action.from_json([1])
    assert Action.from_json({"kind": "offer", "values": {"Salary": "7,000 NIS"}}).kind is Kind.OFFER


def test_bad_settings_are_refused_before_anything_starts() -> None:
    with pytest.raises(ConfigError, match="turns must be >= 1"):
        Rules(turns=0)
    with pytest.raises(ConfigError, match="deadline_rule must be 'paper' or 'code'"):
        Rules(deadline_rule="java")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="type 3 of side 'employer' does not exist"):
        GeniusSession(JC, (3, 0))


def test_a_qo_folder_without_status_quo_opt_out_or_time_effect_is_refused(
    qo_folder: Path,
) -> None:
    from accord.core.errors import FormatError

    with pytest.raises(FormatError, match=r"Side_ACompromise.xml: no <reservation>, <optout>"):
        load_domain(qo_folder)
    with pytest.warns(UserWarning, match="read as 0: Side_ACompromise.xml"):
        d = load_domain(qo_folder, missing="zero")
    assert d.types[0][0].status_quo == 0.0


def test_the_qo_genius_folder_loads_as_the_same_kind_of_domain(qo_folder: Path) -> None:
    with pytest.warns(UserWarning, match="read as 0"):
        d = load_domain(qo_folder, missing="zero")
    assert isinstance(d, Domain) and d.size == 1296 and d.sides == ("A", "B")
    assert [p.name for p in d.types[0]] == ["compromise", "long-term", "short-term"]
    assert [i.no_agreement for i in d.issues][2:5] == ["No agreement"] * 3
    # Side_BLongTerm.xml's weights sum to 1.9; they are used as written (not renormalised).
    long_term = d.types[1][1]
    assert sum(long_term.weights) == pytest.approx(1.9)
    assert float(long_term.scores(d.rows).max()) == pytest.approx(1770.0)
    s = GeniusSession(d, (2, 2), Rules(turn_seconds=1), VirtualClock())
    s.start()
    assert s.submit(0, Action.make_offer({"Salary": "7,000 NIS"})).ok


def test_a_malformed_native_domain_says_what_is_wrong(tmp_path: Path) -> None:
    bad = JC.to_dict()
    bad["types"]["employer"][0]["weights"] = [0.5]
    f = tmp_path / "bad.json"
    import json

    f.write_text(json.dumps(bad))
    with pytest.raises(InvalidScenario, match="expected 6 weights and 6 evaluation lists"):
        load_domain(f)
    with pytest.raises(InvalidScenario, match="not a bundled domain"):
        load_domain("atlantis")
    assert Domain.from_dict(JC.to_dict()).to_dict() == JC.to_dict()


# -- property test ------------------------------------------------------------------------

_ISSUES = [(i.name, list(i.values)) for i in JC.issues]


@st.composite
def _actions(draw: st.DrawFn) -> tuple[float, int, object]:
    wait = draw(st.sampled_from([0.0, 0.0, 0.0, 3.0, 10.0]))
    party = draw(st.integers(0, 1))
    kind = draw(st.sampled_from(["offer", "accept", "reject", "opt", "comment", "junk", "bad"]))
    if kind == "offer":
        chosen = draw(st.lists(st.sampled_from(range(len(_ISSUES))), min_size=1, unique=True))
        values = {_ISSUES[i][0]: draw(st.sampled_from(_ISSUES[i][1])) for i in chosen}
        return wait, party, Action.make_offer(values)
    if kind in ("accept", "reject"):
        n = draw(st.integers(-1, 12))
        return wait, party, Action.accept(n) if kind == "accept" else Action.reject(n)
    if kind == "opt":
        return wait, party, Action.opt_out() if draw(st.integers(0, 9)) == 0 else Action.comment(1)
    if kind == "comment":
        return wait, party, Action.threat(draw(st.integers(-1, 4)))
    if kind == "bad":
        return wait, party, Action.make_offer({"Salary": "0 NIS"})
    return wait, party, draw(st.sampled_from([None, 3, "accept", {"kind": "offer"}]))


@settings(max_examples=120, deadline=None)
@given(st.lists(_actions(), max_size=60))
def test_random_action_streams_never_corrupt_the_agreement_and_always_end(
    stream: list[tuple[float, int, object]],
) -> None:
    clock = VirtualClock()
    s = GeniusSession(JC, (1, 2), Rules(turns=6, turn_seconds=10), clock)
    s.start()
    expected = np.full(len(JC.issues), -1)
    answered: set[int] = set()
    for wait, party, action in stream:
        clock.advance(wait)
        before_end = s.result is None and s.turn < 6
        event = s.submit(party, action)
        if not before_end:
            assert not event.ok
        if event.ok and event.kind == "accept":
            assert event.offer is not None and event.offer not in answered
            row = s.offers[event.offer].row
            expected[row >= 0] = row[row >= 0]
        if event.ok and event.kind in ("accept", "reject"):
            answered.add(event.offer)  # type: ignore[arg-type]
        if s.result is None or event.result is not None:
            assert (s.agreement_row == expected).all()
    assert sum(not e.ok for e in s.events) == sum(s.invalid)
    clock.advance(60)
    result = s.tick()
    assert result is not None and s.phase is Phase.ENDED
    assert result.reason.value != "agreement" or result.full
    assert list(result.agreement) == list(JC.values_of(expected))


def test_the_domain_shown_in_the_guide_loads_and_plays(tmp_path: Path) -> None:
    import json
    import re

    guide = Path(__file__).resolve().parents[3] / "docs" / "genius.md"
    block = re.search(r"```json\n(.*?)```", guide.read_text(), re.S)
    assert block is not None
    f = tmp_path / "flat_rental.json"
    f.write_text(block.group(1))
    d = load_domain(f)
    assert d.size == 9 and d.sides == ("landlord", "tenant")
    assert json.loads(block.group(1))["format"] == "accord-genius-domain/1"
    s = GeniusSession(d, (0, 0), Rules(turn_seconds=1), VirtualClock())
    s.start()
    e = s.submit(0, Action.make_offer({"Rent": "1100", "Pets": "not allowed"}))
    r = s.submit(1, Action.accept(e.offer)).result
    # landlord: 100*(.6*9 + .4*8) = 860; tenant: 100*(.5*1 + .5*-5) = -200
    assert r is not None and r.utilities == pytest.approx((860.0, -200.0))
