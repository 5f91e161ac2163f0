"""Exact values of seller and buyer utilities, allocation checks and the optimiser."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.leagues.humaine.goods import InvalidBundle, validate_bundle
from accord.leagues.humaine.optimizer import best_allocation
from accord.leagues.humaine.scoring import (
    Allocation,
    InvalidAllocation,
    ProductAllocation,
    buyer_value,
    check_allocation,
)
from accord.leagues.humaine.testing import BUYER_UTILITY, seller_utility
from accord.leagues.humaine.utility import (
    BuyerUtility,
    InvalidUtility,
    ProductValue,
    SellerUtility,
    Trapezoid,
)

CAPTURED_BUYER = BUYER_UTILITY  # the buyer utility of the captured generation-2 round


def seller(costs: dict[str, float]) -> SellerUtility:
    return SellerUtility.from_wire(seller_utility(costs))


def test_seller_utility_captured_round_totals() -> None:
    """The captured round: Watson sold 2 egg 2 flour 1 milk 1 sugar for 8.21 (utility
    4.04), Celia 4 egg 4 flour for 5.06 (utility 0.26)."""
    watson = seller({"egg": 0.47, "flour": 0.96, "sugar": 0.96, "milk": 0.35})
    celia = seller({"egg": 0.49, "flour": 0.71, "sugar": 0.81, "milk": 0.3})
    w = watson.value({"egg": 2, "flour": 2, "milk": 1, "sugar": 1}, 8.21)
    c = celia.value({"egg": 4, "flour": 4}, 5.06)
    assert round(w, 2) == 4.04 and round(c, 2) == 0.26
    # by hand: 8.21 - (2*.47 + 2*.96 + .35 + .96) = 8.21 - 4.17
    assert Fraction(w).limit_denominator(100) == Fraction(404, 100)


def test_seller_utility_appendix_c_example() -> None:
    """Appendix C: Watson's costs; selling 5 eggs for 3.73 earns 3.73 - 5*0.32 = 2.13."""
    s = SellerUtility({"egg": 0.32, "flour": 0.85})
    assert round(s.value({"egg": 5}, 3.73), 10) == 2.13
    assert s.value({}, 1.0) == 1.0


def test_seller_wire_round_trip() -> None:
    s = seller({"egg": 0.5, "blueberry": 0.44})
    assert SellerUtility.from_wire(s.to_wire()) == s
    assert s.to_wire()["utility"]["blueberry"]["unit"] == "packet"


def test_seller_wire_errors_are_clear() -> None:
    with pytest.raises(InvalidUtility, match="unitcost"):
        SellerUtility.from_wire({"utility": {"egg": {"parameters": {}}}})
    with pytest.raises(InvalidUtility, match="unknown good 'bread'"):
        SellerUtility.from_wire({"utility": {"bread": {"parameters": {"unitcost": 1}}}})


def test_trapezoid_appendix_d_numbers() -> None:
    """Appendix D: a cake worth 21.43; 3 oz chocolate add 2.86, 6 oz add 6.35, 4-5 oz
    lie between; the spec: zero outside [min, max]."""
    t = Trapezoid(3, 6, 2.86, 6.35)
    assert 21.43 + t(3) == pytest.approx(24.29, abs=1e-12)
    assert 21.43 + t(6) == pytest.approx(27.78, abs=1e-12)
    assert t(4) == pytest.approx(2.86 + 3.49 / 3, abs=1e-12)
    assert t(5) == pytest.approx(2.86 + 2 * 3.49 / 3, abs=1e-12)
    assert 2.86 < t(4) < t(5) < 6.35
    assert t(2) == 0.0 and t(7) == 0.0 and t(0) == 0.0


def test_trapezoid_degenerate_and_invalid() -> None:
    assert Trapezoid(2, 2, 3.0, 5.0)(2) == 3.0
    with pytest.raises(InvalidUtility, match="minQuantity <= maxQuantity"):
        Trapezoid(4, 2, 1, 2)


def test_buyer_wire_round_trip() -> None:
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    assert u.cake.unit_value == 23.81 and u.pancake.supplements["blueberry"].max_value == 7.57
    assert BuyerUtility.from_wire(u.to_wire()) == u


def test_buyer_wire_rejects_wrong_flavour() -> None:
    bad = {"utility": {"cake": {"parameters": {"unitvalue": 1, "supplement": {
        "blueberry": {"parameters": {"minQuantity": 1, "maxQuantity": 2, "minValue": 1,
                                     "maxValue": 2}}}}},
        "pancake": {"parameters": {"unitvalue": 1}}}}  # fmt: skip
    with pytest.raises(InvalidUtility, match="'blueberry' cannot flavour a cake"):
        BuyerUtility.from_wire(bad)


def test_buyer_value_captured_round() -> None:
    """Captured totals: one plain cake, value 23.81."""
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    score = buyer_value(u, Allocation(cake=ProductAllocation(1)))
    assert score.value == 23.81
    assert score.breakdown == {"cake": {"quantity": 1, "utility": 23.81, "supplement": []}}


def test_buyer_value_by_hand() -> None:
    """2 cakes (one with 4 oz chocolate, one with 2 tsp vanilla) + 3 pancakes (one with
    3 packets blueberry, one with 7 oz chocolate = above max, worth 0, one plain)."""
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    a = Allocation.from_wire(
        {
            "cake": {
                "unit": "each",
                "quantity": 2,
                "supplement": [
                    {"chocolate": {"unit": "ounce", "quantity": 4}},
                    {"vanilla": {"unit": "teaspoon", "quantity": 2}},
                ],
            },
            "pancake": {
                "quantity": 3,
                "supplement": [{"blueberry": {"quantity": 3}}, {"chocolate": {"quantity": 7}}],
            },
        }
    )
    expected = 2 * 23.81 + (2.92 + (6.22 - 2.92) / 3) + 2.04 + 3 * 27.43 + 7.57 + 0.0
    assert buyer_value(u, a).value == pytest.approx(expected, abs=1e-9)
    assert a.required() == {
        "egg": 7,
        "flour": 10,
        "sugar": 2,
        "milk": 8,
        "chocolate": 11,
        "vanilla": 2,
        "blueberry": 3,
    }


def test_block_with_two_flavours_counts_the_best() -> None:
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    a = Allocation(cake=ProductAllocation(1, ({"chocolate": 3, "vanilla": 4},)))
    assert buyer_value(u, a).value == pytest.approx(23.81 + 7.03)
    assert a.required()["chocolate"] == 3  # both are consumed


def test_check_allocation_need_have() -> None:
    a = Allocation(cake=ProductAllocation(2), pancake=ProductAllocation(1))
    chk = check_allocation({"egg": 4, "flour": 6, "milk": 4, "sugar": 1}, a)
    assert not chk.sufficient
    assert chk.rationale["egg"] == {"need": 5, "have": 4}
    assert chk.deficits() == {"egg": 1, "sugar": 1}
    ok = check_allocation({"egg": 5, "flour": 6, "milk": 4, "sugar": 2}, a)
    assert ok.sufficient and ok.deficits() == {}


def test_allocation_errors() -> None:
    with pytest.raises(InvalidAllocation, match="unknown product 'bread'"):
        Allocation.from_wire({"bread": {"quantity": 1}})
    with pytest.raises(InvalidAllocation, match="'vanilla' cannot flavour a pancake"):
        Allocation.from_wire({"pancake": {"quantity": 1, "supplement": [{"vanilla": 2}]}})
    with pytest.raises(InvalidAllocation, match="2 supplement blocks for 1 items"):
        Allocation.from_wire({"cake": {"quantity": 1, "supplement": [{}, {}]}})
    with pytest.raises(InvalidAllocation, match=">= 0"):
        Allocation.from_wire({"cake": {"quantity": -1}})
    with pytest.raises(InvalidAllocation, match="must be >= 0"):
        Allocation.from_wire({"cake": {"quantity": 1, "supplement": [{"chocolate": -3}]}})


def test_validate_bundle_errors() -> None:
    with pytest.raises(InvalidBundle, match="quantity of egg must be >= 0, got -2"):
        validate_bundle({"egg": -2})
    with pytest.raises(InvalidBundle, match="whole number"):
        validate_bundle({"egg": 1.5})
    with pytest.raises(InvalidBundle, match="whole number"):
        validate_bundle({"egg": "two"})
    assert validate_bundle({"EGGS": 2.0}) == {"egg": 2}


# ------------------------------------------------------------------ optimiser


def brute_force(u: BuyerUtility, have: dict[str, int]) -> float:
    """Every number of cakes and pancakes and every multiset of per-item flavourings."""

    def options(prod: str) -> list[tuple[str | None, int]]:
        out: list[tuple[str | None, int]] = [(None, 0)]
        for f, t in u.product(prod).supplements.items():
            out += [(f, q) for q in range(t.min_quantity, t.max_quantity + 1)]
        return out

    best = 0.0
    for nc in range(0, 6):
        for npan in range(0, 6):
            base = {"egg": 2 * nc + npan, "flour": 2 * nc + 2 * npan, "milk": nc + 2 * npan}
            base["sugar"] = nc
            if any(base[g] > have.get(g, 0) for g in base):
                continue
            for cs in itertools.combinations_with_replacement(options("cake"), nc):
                for ps in itertools.combinations_with_replacement(options("pancake"), npan):
                    used: dict[str, int] = {}
                    for f, q in (*cs, *ps):
                        if f:
                            used[f] = used.get(f, 0) + q
                    if any(q > have.get(f, 0) for f, q in used.items()):
                        continue
                    a = Allocation(
                        ProductAllocation(nc, tuple({f: q} for f, q in cs if f)),
                        ProductAllocation(npan, tuple({f: q} for f, q in ps if f)),
                    )
                    best = max(best, buyer_value(u, a).value)
    return best


def test_optimiser_exact_small_case_by_hand() -> None:
    """4 oz chocolate, 3 tsp vanilla, enough for 1 cake + 1 pancake batch: chocolate
    goes to the pancakes only if its bonus beats the cake's vanilla+chocolate split."""
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    have = {"egg": 3, "flour": 4, "milk": 3, "sugar": 1, "chocolate": 4, "vanilla": 3}
    plan = best_allocation(u, have)
    # cake + vanilla 3 tsp (2.04 + 4.99/2 = 4.535) and pancakes + chocolate 4 oz
    # (3.29 + 2.2/3 = 4.0233) beat cake + chocolate 4 oz (4.02) + pancakes plain.
    expected = 23.81 + 27.43 + (2.04 + (7.03 - 2.04) / 2) + (3.29 + (5.49 - 3.29) / 3)
    assert plan.value == pytest.approx(expected, abs=1e-9)
    assert buyer_value(u, plan.allocation).value == pytest.approx(plan.value, abs=1e-9)
    assert check_allocation(have, plan.allocation).sufficient


def test_optimiser_no_goods() -> None:
    u = BuyerUtility.from_wire(CAPTURED_BUYER)
    plan = best_allocation(u, {})
    assert plan.value == 0.0 and plan.allocation.cake.quantity == 0


small = st.integers(min_value=0, max_value=6)


@settings(max_examples=40, deadline=None)
@given(
    egg=st.integers(0, 5),
    flour=st.integers(0, 8),
    milk=st.integers(0, 6),
    sugar=st.integers(0, 3),
    choc=st.integers(0, 9),
    van=small,
    blue=small,
    vals=st.lists(st.integers(0, 900), min_size=10, max_size=10),
)
def test_optimiser_matches_brute_force(
    egg: int, flour: int, milk: int, sugar: int, choc: int, van: int, blue: int, vals: list[int]
) -> None:
    v = [x / 100 for x in vals]
    u = BuyerUtility(
        ProductValue(
            15 + v[0],
            {"chocolate": Trapezoid(3, 6, v[1], v[2]), "vanilla": Trapezoid(2, 4, v[3], v[4])},
        ),
        ProductValue(
            15 + v[5],
            {"chocolate": Trapezoid(3, 6, v[6], v[7]), "blueberry": Trapezoid(1, 3, v[8], v[9])},
        ),
    )
    have = {"egg": egg, "flour": flour, "milk": milk, "sugar": sugar}
    have |= {"chocolate": choc, "vanilla": van, "blueberry": blue}
    plan = best_allocation(u, have)
    assert check_allocation(have, plan.allocation).sufficient
    assert buyer_value(u, plan.allocation).value == pytest.approx(plan.value, abs=1e-9)
    assert plan.value == pytest.approx(brute_force(u, have), abs=1e-9)
