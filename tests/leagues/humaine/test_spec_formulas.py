"""Spec audit, pure parts: goods, recipes, Appendix A formulas and table, rule constants,
money in cents, the Appendix B dialogues on the rules engine (virtual clock) and the
defaults of the original platform. Every expected number below is copied from
humaine-technical-documentation.md or humaine-compat.md, never from our code."""

from __future__ import annotations

import numpy as np
import pytest

from accord.leagues.humaine import goods
from accord.leagues.humaine.optimizer import best_allocation
from accord.leagues.humaine.round import Durations
from accord.leagues.humaine.rules import Bid, RuleConfig, RulesEngine, Utterance, to_cents
from accord.leagues.humaine.scoring import Allocation, ProductAllocation, buyer_value
from accord.leagues.humaine.utility import BuyerUtility, ProductValue, SellerUtility, Trapezoid
from accord.leagues.humaine.utility_generator import (
    BUYER_RANGES,
    SELLER_COST_RANGES,
    generate_buyer_utility,
    generate_seller_utility,
)

# ---------------------------------------------------------------- section 3: goods
SPEC_UNITS = {  # section 3's list and the units of Appendix C's /setUtility example
    "egg": "each",
    "milk": "cup",
    "sugar": "cup",
    "flour": "cup",
    "chocolate": "ounce",
    "vanilla": "teaspoon",
    "blueberry": "packet",
}


def test_the_seven_goods_and_their_units() -> None:
    assert set(goods.GOODS) == set(SPEC_UNITS) and len(goods.GOODS) == 7
    assert goods.UNITS == SPEC_UNITS
    wire = SellerUtility({g: 0.3 for g in SPEC_UNITS}).to_wire()["utility"]
    assert {g: spec["unit"] for g, spec in wire.items()} == SPEC_UNITS
    assert all(spec["type"] == "unitcost" for spec in wire.values())


def test_recipes_of_one_cake_and_one_pancake_batch() -> None:
    """Section 3 / Appendix D: cake = 2 eggs, 2 cups flour, 1 cup milk, 1 cup sugar;
    pancakes = 1 egg, 2 cups flour, 2 cups milk."""
    cake = Allocation(cake=ProductAllocation(1)).required()
    pancake = Allocation(pancake=ProductAllocation(1)).required()
    assert {g: n for g, n in cake.items() if n} == {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}
    assert {g: n for g, n in pancake.items() if n} == {"egg": 1, "flour": 2, "milk": 2}
    assert set(goods.FLAVOURS["cake"]) == {"chocolate", "vanilla"}
    assert set(goods.FLAVOURS["pancake"]) == {"chocolate", "blueberry"}


# --------------------------------------------------------- Appendix A: seller utility
@pytest.mark.parametrize(
    ("bundle", "price", "expected_cents"),
    [
        ({"egg": 5}, 3.73, 373 - 5 * 32),  # Appendix C: Watson sells 5 eggs for 3.73
        ({"egg": 2, "flour": 2, "sugar": 1, "milk": 1}, 8.21, 821 - (64 + 170 + 71 + 35)),
        ({"blueberry": 1}, 0.69, 69 - 45),  # Appendix C /receiveRejection example
        ({}, 2.0, 200),  # n_g may be 0 for every good
        ({"chocolate": 3, "vanilla": 2}, 0.5, 50 - (60 + 54)),  # a loss is a utility too
    ],
)
def test_seller_utility_is_price_minus_unit_costs(
    bundle: dict[str, int], price: float, expected_cents: int
) -> None:
    """p - sum_g n_g c_g with Appendix C's unit costs (egg .32, flour .85, sugar .71,
    milk .35, chocolate .2, blueberry .45, vanilla .27)."""
    costs = {"egg": 0.32, "flour": 0.85, "sugar": 0.71, "milk": 0.35}
    costs |= {"chocolate": 0.2, "blueberry": 0.45, "vanilla": 0.27}
    s = SellerUtility(costs)
    assert round(s.value(bundle, price) * 100) == expected_cents


# ----------------------------------------------------------- Appendix A: the tables
SPEC_COST_TABLE = {
    "egg": (0.25, 0.50),
    "flour": (0.50, 1.00),
    "sugar": (0.50, 1.00),
    "milk": (0.20, 0.40),
    "chocolate": (0.20, 0.40),
    "vanilla": (0.20, 0.40),
    "blueberry": (0.25, 0.50),
}
# (product, flavour): (min quantity, max quantity, U_min range, U_max range); the table
# wins over the text's (2, 5) for chocolate (spec README).
SPEC_FLAVOUR_TABLE = {
    ("cake", "chocolate"): (3, 6, (2, 4), (4, 8)),
    ("cake", "vanilla"): (2, 4, (2, 4), (4, 8)),
    ("pancake", "chocolate"): (3, 6, (2, 4), (4, 8)),
    ("pancake", "blueberry"): (1, 3, (2, 4), (4, 8)),
}


def test_generator_ranges_equal_the_appendix_a_tables() -> None:
    assert SELLER_COST_RANGES == SPEC_COST_TABLE
    for prod in ("cake", "pancake"):
        assert BUYER_RANGES[prod]["value"] == (15, 30)  # C and P
    for (prod, flavour), (lo, hi, umin, umax) in SPEC_FLAVOUR_TABLE.items():
        r = BUYER_RANGES[prod][flavour]
        assert (r["quantity"], r["minValue"], r["maxValue"]) == ((lo, hi), umin, umax)
    assert {f for p in ("cake", "pancake") for f in BUYER_RANGES[p] if f != "value"} == {
        "chocolate",
        "vanilla",
        "blueberry",
    }


def test_all_eighteen_buyer_parameters_drawn_within_the_table() -> None:
    """8 fixed parameters take exactly their value; the 10 random ones stay inside their
    range, are rounded to cents and cover it (uniform: both ends are approached)."""
    rng = np.random.default_rng(2020)
    draws = [generate_buyer_utility(rng) for _ in range(400)]
    values: dict[str, tuple[list[float], tuple[float, float]]] = {
        "C": ([b.cake.unit_value for b in draws], (15, 30)),
        "P": ([b.pancake.unit_value for b in draws], (15, 30)),
    }
    for (prod, flavour), (lo, hi, umin, umax) in SPEC_FLAVOUR_TABLE.items():
        traps = [getattr(b, prod).supplements[flavour] for b in draws]
        assert {(t.min_quantity, t.max_quantity) for t in traps} == {(lo, hi)}
        values[f"{prod}.{flavour}.min"] = ([t.min_value for t in traps], umin)
        values[f"{prod}.{flavour}.max"] = ([t.max_value for t in traps], umax)
    assert len(values) == 10
    for name, (xs, (lo, hi)) in values.items():
        arr = np.array(xs)
        assert arr.min() >= lo and arr.max() <= hi, name
        assert arr.min() < lo + 0.1 * (hi - lo) and arr.max() > hi - 0.1 * (hi - lo), name
        assert np.allclose(arr * 100, np.round(arr * 100)), name  # whole cents
    sellers = [generate_seller_utility(rng) for _ in range(400)]
    for good, (lo, hi) in SPEC_COST_TABLE.items():
        arr = np.array([s.costs[good] for s in sellers])
        assert lo <= arr.min() and arr.max() <= hi, good


# -------------------------------------------------------- Appendix A: the trapezoid
@pytest.mark.parametrize(
    ("lo", "hi", "umin", "umax", "expected"),
    [
        # cc in (3, 6), Ucc 2.92 -> 6.22 (the captured round): slope 1.1 per ounce
        (3, 6, 2.92, 6.22, {0: 0, 1: 0, 2: 0, 3: 2.92, 4: 4.02, 5: 5.12, 6: 6.22, 7: 0, 12: 0}),
        # cv in (2, 4), 2.04 -> 7.03: slope 2.495 per teaspoon
        (2, 4, 2.04, 7.03, {1: 0, 2: 2.04, 3: 4.535, 4: 7.03, 5: 0}),
        # pb in (1, 3), 3.02 -> 7.57: slope 2.275 per packet
        (1, 3, 3.02, 7.57, {0: 0, 1: 3.02, 2: 5.295, 3: 7.57, 4: 0}),
        # a flat trapezoid: the same bonus for every allowed amount
        (3, 6, 4.0, 4.0, {2: 0, 3: 4.0, 5: 4.0, 6: 4.0, 7: 0}),
    ],
)
def test_flavour_bonus_by_linear_interpolation_and_zero_outside(
    lo: int, hi: int, umin: float, umax: float, expected: dict[int, float]
) -> None:
    """U(x) = U_min + (x - x_min)(U_max - U_min)/(x_max - x_min) on [x_min, x_max], 0
    below and 0 above (the original paid U_max above the maximum: not copied)."""
    t = Trapezoid(lo, hi, umin, umax)
    for x, want in expected.items():
        assert t(x) == pytest.approx(want, abs=1e-12), x


def test_appendix_d_cake_with_chocolate() -> None:
    """A plain cake worth 21.43; +2.86 with 3 oz (24.29), +6.35 with 6 oz (27.78)."""
    u = BuyerUtility(
        ProductValue(21.43, {"chocolate": Trapezoid(3, 6, 2.86, 6.35)}), ProductValue(20)
    )

    def cake(oz: int) -> float:
        block = ({"chocolate": oz},) if oz else ()
        return buyer_value(u, Allocation(cake=ProductAllocation(1, block))).value

    assert round(cake(0), 2) == 21.43
    assert round(cake(3), 2) == 24.29 and round(cake(6), 2) == 27.78
    assert 24.29 < cake(4) < cake(5) < 27.78
    assert round(cake(7), 2) == 21.43  # too much chocolate earns nothing extra


def test_leftover_goods_and_money_are_worth_nothing() -> None:
    """Section 3: enough for 3 cakes and one egg left over: the egg is worth nothing;
    the buyer's utility is the baked goods' value whatever the budget left."""
    u = BuyerUtility(ProductValue(20.5), ProductValue(17.25))
    have = {"egg": 7, "flour": 6, "milk": 3, "sugar": 3}
    plan = best_allocation(u, have)
    assert plan.value == 3 * 20.5
    assert (plan.allocation.cake.quantity, plan.allocation.pancake.quantity) == (3, 0)
    # two more cups of flour and one of milk turn the leftover egg into a pancake batch
    plan = best_allocation(u, have | {"flour": 8, "milk": 5})
    assert plan.value == 3 * 20.5 + 17.25


# ------------------------------------------------------- Appendix B: rule constants
def test_rule_constants_are_the_specs() -> None:
    cfg = RuleConfig()
    assert (cfg.human_gap, cfg.addressee_window, cfg.max_words) == (5.0, 2.0, 100)
    assert cfg.r4_applies_to_human is False
    assert 0 < cfg.simultaneity <= 0.1  # "within milliseconds"


def test_round_durations_default_to_five_minutes_and_two_post_minutes() -> None:
    d = Durations()
    assert (d.round, d.post) == (300.0, 120.0)
    assert d.to_wire() == {"warmUp": d.warmup, "round": 300.0, "post": 120.0}


# ---------------------------------------------------------------- money in cents
def test_money_is_exact_in_cents() -> None:
    """0.10 + 0.20 of a 0.30 budget leaves exactly 0: a further cent is blocked (R1)."""
    t = [0.0]
    eng = RulesEngine(("A1", "A2"), 0.3, RuleConfig(human_gap=0), clock=lambda: t[0])
    for price in (0.1, 0.2):
        t[0] += 1
        eng.decide(Utterance("Human", "A1, I accept", "A1"))
        assert eng.decide(Utterance("A1", "ok", "Human", Bid("Accept", {"egg": 1}, price))).deal
    assert eng.budget_cents == 0
    t[0] += 1
    eng.decide(Utterance("Human", "A1, one more", "A1"))
    d = eng.decide(Utterance("A1", "ok", "Human", Bid("Accept", {"egg": 1}, 0.01)))
    assert (d.permitted, d.rule) == (False, "R1")


def test_amounts_of_money_must_be_finite_and_bounded() -> None:
    assert to_cents(1e9) == 100_000_000_000
    for bad in (float("inf"), float("nan"), 1e9 + 1, 1e300):
        with pytest.raises(ValueError, match="finite number of at most 1e\\+09 USD"):
            to_cents(bad)
    with pytest.raises(ValueError, match="at most 1e\\+09 USD"):
        RulesEngine(("A1",), budget=1e12)


def test_an_accept_at_price_zero_is_still_a_deal() -> None:
    """A seller may give goods away: the human gets them, the budget is unchanged."""
    eng = RulesEngine(("A1", "A2"), 10.0, clock=lambda: 1.0)
    eng.decide(Utterance("Human", "A1, free eggs?", "A1"))
    d = eng.decide(Utterance("A1", "Sure", "Human", Bid("Accept", {"egg": 2}, 0.0)))
    assert d.permitted and d.deal and d.amount_cents == 0 and eng.budget == 10.0


def test_a_huge_accepted_price_is_blocked_by_r1_not_a_crash() -> None:
    eng = RulesEngine(("A1", "A2"), 10.0, clock=lambda: 1.0)
    eng.decide(Utterance("Human", "A1?", "A1"))
    d = eng.decide(Utterance("A1", "ok", "Human", Bid("Accept", {"egg": 2}, 1e307)))
    assert (d.permitted, d.rule) == (False, "R1") and "Unusable price" in d.rationale
    assert eng.budget == 10.0


def test_r1_applies_to_a_human_acceptance_too() -> None:
    """R1: a message from *any* party that would make the budget negative is blocked."""
    t = [1.0]
    eng = RulesEngine(("A1", "A2"), 5.0, clock=lambda: t[0])
    eng.decide(Utterance("Human", "A1, 2 eggs?", "A1"))
    t[0] = 1.5
    assert eng.decide(Utterance("A1", "6", "Human", Bid("SellOffer", {"egg": 2}, 6.0))).permitted
    t[0] = 7.0
    d = eng.decide(Utterance("Human", "A1, I accept 6", "A1", Bid("Accept", {"egg": 2}, 6.0)))
    assert (d.permitted, d.rule) == (False, "R1") and "Insufficient budget" in d.rationale
    assert eng.last_human_at == 1.0  # a blocked utterance is no utterance
    eng.decide(Utterance("Human", "A1, cheaper?", "A1"))
    t[0] = 7.5
    assert eng.decide(Utterance("A1", "5", "Human", Bid("SellOffer", {"egg": 2}, 5.0))).permitted
    t[0] = 13.0
    d = eng.decide(Utterance("Human", "A1, I accept 5", "A1", Bid("Accept", {"egg": 2}, 5.0)))
    assert d.permitted and d.deal and eng.budget == 0.0


# ------------------------------------------- Appendix B's dialogues on a virtual clock
class Dialogue:
    """A1 and A2 answering a human on a virtual clock (seconds after the utterance)."""

    def __init__(self, track_delivery: bool = False) -> None:
        self.t = 0.0
        self.eng = RulesEngine(
            ("A1", "A2"), 50.0, clock=lambda: self.t, track_delivery=track_delivery
        )
        self.h = 0.0

    def human(self, text: str, to: str = "") -> None:
        self.t = self.h = self.h + 10.0
        assert self.eng.decide(Utterance("Human", text, to)).permitted

    def agent(self, at: float, name: str, text: str) -> tuple[bool, str | None]:
        self.t = self.h + at
        d = self.eng.decide(Utterance(name, text, "Human"))
        return d.permitted, d.rule


OK = (True, None)


def test_example_1() -> None:
    d = Dialogue()
    d.human("A1, I would like to buy 2 eggs.", "A1")
    assert d.agent(0.5, "A1", "I can give you 2 eggs for 5 dollars.") == OK
    assert d.agent(0.9, "A2", "I can give you 2 eggs for 4.5 dollars.") == OK
    d.human("A2, I also would like to buy milk.", "A2")
    assert d.agent(0.5, "A2", "I can give you 2 eggs for 3 dollars.") == OK
    assert d.agent(0.9, "A1", "I can give you a cup of milk for 2 dollars.") == OK


def test_example_2() -> None:
    d = Dialogue()
    d.human("A1, I would like to buy 2 eggs.", "A1")
    assert d.agent(0.5, "A1", "2 eggs for 5 dollars.") == OK
    assert d.agent(0.5, "A2", "2 eggs for 5.50 dollars.") == (False, "R3")  # simultaneous
    d.human("A2, I would also like to buy milk.", "A2")
    assert d.agent(0.4, "A1", "a cup of milk for 2 dollars.") == (False, "R2")  # premature
    assert d.agent(0.5, "A2", "2 eggs for 3 dollars.") == OK
    assert d.agent(0.9, "A1", "a cup of milk for 2 dollars.") == OK  # legal to try again


def test_example_3() -> None:
    d = Dialogue()
    d.human("A1, I would like to buy 2 eggs.", "A1")
    assert d.agent(0.5, "A1", "2 eggs for 5 dollars.") == OK
    assert d.agent(0.9, "A2", "2 eggs for 4.5 dollars.") == OK
    assert d.agent(1.3, "A1", "2 eggs for 4 dollars.") == (False, "R3")


def test_example_4() -> None:
    d = Dialogue()
    d.human("A1, I would like to buy 2 eggs.", "A1")
    assert d.agent(2.0, "A2", "2 eggs for 4.5 dollars.") == OK  # "after 2 seconds"
    assert d.agent(2.1, "A1", "2 eggs for 4 dollars.") == (False, "R2")


def test_example_5() -> None:
    d = Dialogue()
    d.human("I would like to buy 2 eggs.")
    assert d.agent(0.500, "A2", "2 eggs for 4.5 dollars.") == OK
    assert d.agent(0.501, "A1", "2 eggs for 5 dollars.") == (False, "R3")
    assert d.agent(0.8, "A1", "2 eggs for 4 dollars.") == OK


def test_example_6() -> None:
    d = Dialogue()
    d.human("I would like to buy 2 eggs.")
    assert d.agent(0.5, "A1", " ".join(["verse"] * 101)) == (False, "R4")
    assert d.agent(0.6, "A1", " ".join(["verse"] * 100)) == OK


def test_r2_unaddressed_agent_waits_for_its_copy_of_the_addressees_reply() -> None:
    """R2 to the letter: the unaddressed agent is free once it *receives a copy* of the
    addressed agent's message, or once the 2 s are over; earlier it is premature."""
    d = Dialogue(track_delivery=True)
    d.human("A1, I would like to buy 2 eggs.", "A1")
    assert d.agent(0.3, "A1", "2 eggs for 5 dollars.") == OK
    permitted, rule = d.agent(0.8, "A2", "2 eggs for 4.5 dollars.")
    assert (permitted, rule) == (False, "R2")
    d.eng.mark_seen("A2", d.h + 0.3)  # A2 has now been sent A1's reply
    assert d.agent(0.9, "A2", "2 eggs for 4.5 dollars.") == OK
    # without the copy, the end of the window frees it all the same
    d.human("A1, and milk?", "A1")
    assert d.agent(0.3, "A1", "milk for 1 dollar.") == OK
    assert d.agent(1.9, "A2", "milk for 0.9.") == (False, "R2")
    assert d.agent(2.0, "A2", "milk for 0.9.") == OK


# ----------------------------------------------------- defaults of the original
def test_default_ports_of_the_original() -> None:
    """humaine-compat.md: orchestrator 14010, utility generator 7021, human UI 7040,
    competition manager 14020, agents 14007 and 14008."""
    from accord.leagues.humaine import cli, orchestrator, utility_generator
    from accord.leagues.humaine.agents.service import DEFAULT_PORTS as AGENT_PORTS

    assert orchestrator.DEFAULT_PORT == 14010
    assert utility_generator.DEFAULT_PORT == 7021
    assert cli.DEFAULT_PORTS == {
        "orchestrator": 14010,
        "utility": 7021,
        "ui": 7040,
        "manager": 14020,
        "Celia": 14007,
        "Watson": 14008,
    }
    assert sorted(AGENT_PORTS.values()) == [14007, 14008]
    assert set(AGENT_PORTS) == {"Celia", "Watson"}


def test_an_utterance_naming_no_seller_addresses_nobody() -> None:
    """Only a registered seller can be addressed (R2); any other addressee leaves both
    sellers free to answer at once, first come first served (R3)."""
    d = Dialogue()
    d.human("Bob, I would like to buy 2 eggs.", "Bob")
    assert d.eng.addressee is None
    assert d.agent(0.1, "A2", "2 eggs for 4.5 dollars.") == OK
    assert d.agent(0.3, "A1", "2 eggs for 4 dollars.") == OK
