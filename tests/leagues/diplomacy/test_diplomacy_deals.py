"""Deal model and notary: validation, consistency, withdrawal, privacy, void deals."""

from __future__ import annotations

import pytest

from accord.leagues.diplomacy.deals import Deal, DealError, Dmz, OrderCommitment, parse_order
from accord.leagues.diplomacy.notary import Notary, NotaryError


def oc(power: str, order: str, year: int = 1901, phase: str = "S") -> OrderCommitment:
    return OrderCommitment(year, phase, power, order)


def test_parse_orders() -> None:
    assert parse_order("A PAR - BUR").target == "BUR"
    assert parse_order("F NTH C A LON - NWY").kind == "C"
    assert parse_order("A MAR S A PAR").kind == "S"
    assert parse_order("a par h").stays


@pytest.mark.parametrize(
    "bad", ["", "PAR - BUR", "A PAR", "A PAR X BUR", "A PAR - ", "A NTH C A LON - NWY"]
)
def test_illegal_order_rejected(bad: str) -> None:
    with pytest.raises(DealError, match="illegal order"):
        oc("FRANCE", bad)


def test_validation_errors_name_the_problem() -> None:
    with pytest.raises(DealError, match="at least one province"):
        Dmz.of(1901, "S", ["FRANCE"], [])
    with pytest.raises(DealError, match="at least one power"):
        Dmz.of(1901, "S", [], ["BUR"])
    with pytest.raises(DealError, match="'PRUSSIA' is not in the game"):
        Deal.make("FRANCE", [oc("PRUSSIA", "A BER H")])
    with pytest.raises(DealError, match="besides the proposer"):
        Deal.make("FRANCE", [oc("FRANCE", "A PAR H")])
    with pytest.raises(DealError, match="at least one order commitment or DMZ"):
        Deal.make("FRANCE")
    with pytest.raises(DealError, match="year after 1900"):
        oc("FRANCE", "A PAR H", year=1900)
    with pytest.raises(DealError, match="phase 'S'"):
        oc("FRANCE", "A PAR H", phase="W")


def confirm(n: Notary, deal: Deal) -> tuple[str, bool]:
    pid = n.propose(deal.proposer, deal)
    done = False
    for p in sorted(deal.involved - {deal.proposer}):
        done = n.accept(p, pid)
    return pid, done


def test_two_commitments_for_one_unit_inconsistent() -> None:
    n = Notary()
    _, ok = confirm(n, Deal.make("FRANCE", [oc("GERMANY", "A MUN - BUR")]))
    assert ok
    _, ok2 = confirm(n, Deal.make("ENGLAND", [oc("GERMANY", "A MUN - RUH")]))
    assert not ok2
    assert n.log[-1].kind == "inconsistent" and n.log[-1].to == ()
    assert len(n.valid_confirmed()) == 1
    # a hold commitment is met by a support from the same unit: consistent
    _, ok3 = confirm(n, Deal.make("ITALY", [oc("AUSTRIA", "A VIE H")]))
    _, ok4 = confirm(n, Deal.make("RUSSIA", [oc("AUSTRIA", "A VIE S A BUD")]))
    assert ok3 and ok4
    # the same unit in another phase is a different commitment
    _, ok5 = confirm(n, Deal.make("ENGLAND", [oc("GERMANY", "A MUN - RUH", phase="F")]))
    assert ok5


def test_move_into_dmz_inconsistent() -> None:
    n = Notary()
    _, ok = confirm(
        n, Deal.make("FRANCE", dmzs=[Dmz.of(1901, "S", ["FRANCE", "GERMANY"], ["BUR"])])
    )
    assert ok
    _, bad = confirm(n, Deal.make("ITALY", [oc("GERMANY", "A MUN - BUR")]))
    assert not bad
    # staying in a DMZ is also forbidden; a power not named by the DMZ may enter
    _, ok_aus = confirm(n, Deal.make("ITALY", [oc("AUSTRIA", "A VIE - BOH")]))
    assert ok_aus
    with pytest.raises(DealError, match="demilitarised zone"):
        Deal.make(
            "FRANCE", [oc("GERMANY", "A MUN - BUR")], [Dmz.of(1901, "S", ["GERMANY"], ["BUR"])]
        )
    with pytest.raises(DealError, match="stays in"):
        Deal.make("FRANCE", [oc("GERMANY", "A MUN H")], [Dmz.of(1901, "S", ["GERMANY"], ["MUN"])])


def test_withdrawal_before_and_after_confirmation() -> None:
    n = Notary()
    deal = Deal.make("FRANCE", [oc("GERMANY", "A MUN H"), oc("ITALY", "A VEN H")])
    pid = n.propose("FRANCE", deal)
    assert not n.accept("GERMANY", pid)
    n.reject("GERMANY", pid)  # withdraws before confirmation
    assert not n.accept("ITALY", pid)
    assert n.valid_confirmed() == []
    assert n.accept("GERMANY", pid)  # now all have accepted
    assert n.valid_confirmed() == [deal]
    n.reject("ITALY", pid)  # after confirmation: ignored
    assert n.valid_confirmed() == [deal]
    assert [e.kind for e in n.log].count("confirm") == 1


def test_privacy() -> None:
    n = Notary()
    deal = Deal.make("FRANCE", [oc("GERMANY", "A MUN H")])
    pid = n.propose("FRANCE", deal)
    assert n.proposals_for("ENGLAND") == []
    assert [p.id for p in n.proposals_for("GERMANY")] == [pid]
    assert n.inbox("ENGLAND") == []
    with pytest.raises(NotaryError, match="addressed to ENGLAND"):
        n.accept("ENGLAND", pid)
    n.accept("GERMANY", pid)
    assert n.confirmed_for("ENGLAND") == []
    assert n.confirmed_for("GERMANY") == [deal] == n.confirmed_for("FRANCE")
    assert n.inbox("ENGLAND") == []
    assert [e.kind for e in n.inbox("FRANCE")] == ["accept", "confirm"]
    assert [e.kind for e in n.inbox("GERMANY")] == ["propose", "confirm"]
    for ev in n.log:
        assert "ENGLAND" not in ev.to


def test_deals_about_the_past_are_void() -> None:
    n = Notary(year=1902, phase="F")
    with pytest.raises(DealError, match="past phase"):
        n.propose("FRANCE", Deal.make("FRANCE", [oc("GERMANY", "A MUN H", 1902, "S")]))
    n = Notary(year=1901, phase="S")
    pid = n.propose("FRANCE", Deal.make("FRANCE", [oc("GERMANY", "A MUN H", 1901, "S")]))
    n.advance(1901, "F")
    assert n.proposals_for("GERMANY") == []
    assert n.log[-1].kind == "void"
    with pytest.raises(NotaryError):
        n.accept("GERMANY", pid)
    # a confirmed deal expires: it no longer blocks a new one about a later phase
    _, ok = confirm(n, Deal.make("FRANCE", [oc("GERMANY", "A MUN - BUR", 1901, "F")]))
    assert ok
    n.advance(1902, "S")
    assert n.valid_confirmed() == []


def test_illegal_current_order_rejected_by_check() -> None:
    def check(deals: object) -> str | None:
        orders = [c.order for d in deals for c in d.commitments]  # type: ignore[attr-defined]
        bad = [o for o in orders if o != "A MUN H"]
        return f"illegal order {bad[0]!r}: not possible now" if bad else None

    n = Notary(check=check)
    with pytest.raises(DealError, match="illegal order 'A MUN - SIL'"):
        n.propose("FRANCE", Deal.make("FRANCE", [oc("GERMANY", "A MUN - SIL")]))


def test_deal_json_roundtrip() -> None:
    d = Deal.make(
        "FRANCE", [oc("GERMANY", "A MUN H")], [Dmz.of(1902, "F", ["ITALY"], ["PIE", "TYR"])]
    )
    assert Deal.from_json(d.to_json()) == d
