"""Coordinated attacks: a supported move agreed by deal takes a centre a lone move cannot."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.leagues.diplomacy.engine import new_game  # noqa: E402
from accord.leagues.diplomacy.negotiator import AllianceNegotiator, Round, attack_deals  # noqa: E402
from accord.leagues.diplomacy.notary import Notary  # noqa: E402
from accord.leagues.diplomacy.runner import board_check  # noqa: E402
from accord.leagues.diplomacy.tactics import Tactics, obeys  # noqa: E402

NOW = (1901, 0)


def board() -> Any:
    """France (A BUR) and Germany (A RUH) next to England's held Belgium.

    Burgundy's other neighbouring centres are France's own, so the only centre France can
    gain is Belgium, which a lone move cannot take from a holding army.
    """
    game = new_game()
    game.clear_units()
    game.clear_centers()
    game.set_units("FRANCE", ["A BUR"])
    game.set_units("GERMANY", ["A RUH"])
    game.set_units("ENGLAND", ["A BEL"])
    game.set_centers("FRANCE", ["PAR", "MAR", "MUN"])
    game.set_centers("GERMANY", ["BER", "KIE", "HOL"])
    game.set_centers("ENGLAND", ["LON", "BEL"])
    return game


def occupant(game: Any, prov: str) -> str | None:
    for power in game.powers:
        for unit in game.get_units(power):  # a dislodged unit is listed as "*A BEL"
            if not unit.startswith("*") and unit.split()[1].split("/")[0] == prov:
                return str(power)
    return None


def test_lone_tactical_module_cannot_take_a_held_centre() -> None:
    game = board()
    tactics = Tactics(candidates=4, seed=1)
    for power in ("FRANCE", "GERMANY"):
        game.set_orders(power, list(tactics.plan(game, power).orders))
    game.set_orders("ENGLAND", ["A BEL H"])
    game.process()
    assert occupant(game, "BEL") == "ENGLAND"


def test_a_supported_attack_agreed_by_deal_takes_it() -> None:
    game = board()
    tactics = Tactics(candidates=4, seed=1)
    notary = Notary(check=board_check(game))
    france, germany = AllianceNegotiator(1), AllianceNegotiator(2)
    rf = Round("FRANCE", game, notary, tactics, 3.0, lambda: 0.0)
    rg = Round("GERMANY", game, notary, tactics, 3.0, lambda: 0.0)
    rounds = {"FRANCE": rf, "GERMANY": rg}
    # alone (sparing the other, as allies do), neither can gain a centre
    lone = {p: r.plan(allies=set(rounds) - {p}).value for p, r in rounds.items()}
    assert lone == {"FRANCE": 3.0, "GERMANY": 3.0}
    # France and Germany offer each other non-aggression (Germany keeps out of Munich)
    # and confirm an offer; at its next call one of them, now allied, asks the other's
    # idle army to support its attack on Belgium, and the other accepts. Who asks first
    # depends on the engine's order of possible orders (a hash order): three ticks.
    for _ in range(3):
        france.negotiate(rf)
        germany.negotiate(rg)
    deals = notary.confirmed_for("FRANCE")
    attack = [d for d in deals if d.commitments]
    assert len(attack) == 1 and notary.confirmed_for("ENGLAND") == []
    orders = {c.power: c.order for c in attack[0].commitments}
    expected = [
        {"FRANCE": "A BUR - BEL", "GERMANY": "A RUH S A BUR - BEL"},
        {"GERMANY": "A RUH - BEL", "FRANCE": "A BUR S A RUH - BEL"},
    ]
    assert orders in expected
    attacker = "FRANCE" if orders == expected[0] else "GERMANY"
    # the tactical module values the deal at one more centre for the attacker
    assert rounds[attacker].plan().value == lone[attacker] + 1
    for power, neg in (("FRANCE", france), ("GERMANY", germany)):
        mine = notary.confirmed_for(power)
        plan = tactics.plan(game, power, mine, neg.allies)
        assert obeys(power, plan.orders, mine, NOW)
        game.set_orders(power, list(plan.orders))
    game.set_orders("ENGLAND", ["A BEL H"])
    game.process()
    assert occupant(game, "BEL") == attacker
    assert "*A BEL" in game.get_units("ENGLAND")  # England's army is dislodged


def test_attack_deals_only_target_third_powers_and_need_a_gain() -> None:
    game = board()
    rnd = Round("FRANCE", game, Notary(), Tactics(candidates=2, seed=3), 3.0, lambda: 0.0)
    assert attack_deals(rnd, []) == []
    (gain, deal), *rest = attack_deals(rnd, ["GERMANY"])
    assert gain == 1.0 and rest == [] and deal.involved == {"FRANCE", "GERMANY"}
    # with England as the partner, Belgium is a friendly centre and England's army can
    # only support moves into Picardy or the Ruhr, which are not supply centres
    assert attack_deals(rnd, ["ENGLAND"]) == []


def test_tactics_supports_its_own_attack_on_a_held_centre() -> None:
    game = new_game()
    game.clear_units()
    game.clear_centers()
    game.set_units("FRANCE", ["A BUR", "A PIC"])
    game.set_units("ENGLAND", ["A BEL"])
    game.set_centers("FRANCE", ["PAR", "MAR", "MUN", "BRE"])
    game.set_centers("ENGLAND", ["LON", "BEL"])
    plan = Tactics(candidates=1, seed=1).plan(game, "FRANCE")
    assert plan.value == 5.0  # PAR, MAR, MUN, BRE and Belgium
    moves = [o for o in plan.orders if " S " not in o]
    (move,) = moves
    assert move.endswith(" - BEL") and f"S {move}" in " ".join(plan.orders)
    game.set_orders("FRANCE", list(plan.orders))
    game.set_orders("ENGLAND", ["A BEL H"])
    game.process()
    assert occupant(game, "BEL") == "FRANCE"


def test_idle_units_approach_centres_but_defend_threatened_ones() -> None:
    game = new_game()
    game.clear_units()
    game.clear_centers()
    # Germany's army in Munich has no centre it lacks within one move (Kiel and Berlin
    # are its own): instead of holding it steps towards the nearest centre it lacks, two
    # moves away (Holland or Denmark through Kiel, Belgium through Burgundy or Ruhr,
    # Warsaw through Silesia, Vienna through Bohemia or Tyrolia, ...). Berlin is no
    # nearer to any of them, so it is not a step towards one.
    game.set_units("GERMANY", ["A MUN"])
    game.set_centers("GERMANY", ["MUN", "KIE", "BER"])
    towards = {f"A MUN - {p}" for p in ("BUR", "RUH", "KIE", "SIL", "BOH", "TYR")}
    (order,) = Tactics(candidates=1, seed=1).plan(game, "GERMANY").orders
    assert order in towards, order
    # the same army stays home when a foreign army stands next to Munich
    game.set_units("FRANCE", ["A BUR"])
    (order,) = Tactics(candidates=1, seed=1).plan(game, "GERMANY").orders
    assert order == "A MUN H"
    # unless that neighbour is an ally's
    (order,) = Tactics(candidates=1, seed=1).plan(game, "GERMANY", allies=["FRANCE"]).orders
    assert order in towards, order
