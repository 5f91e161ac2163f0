"""GENIUS semantics, value by value: normalisation, numbering, numeric issues, discount."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_data import shared_folder

from accord.core.outcomes import CategoricalIssue, IntegerIssue, RealIssue
from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator
from accord.formats import (
    GeniusAdditiveUtility,
    load_scenario,
    read_genius_folder,
    write_genius_folder,
)

DOMAIN = """<negotiation_template><utility_space><objective index="0" name="root">
<issue index="1" name="food" vtype="discrete">
  <item index="1" value="Hamburger"/><item index="2" value="Pizza"/><item index="3" value="Sushi"/>
</issue>
<issue index="2" name="guests" vtype="integer" lowerbound="2" upperbound="6"/>
</objective></utility_space></negotiation_template>"""


def profile(
    food: tuple[float, float, float] = (20, 50, 100),
    weights: tuple[float, float] = (0.6, 0.4),
    evaluator: str = '<evaluator ftype="linear" slope="0.25" offset="0.0"/>',
    tail: str = '<reservation value="0.4"/>',
) -> str:
    h, p, s = food
    return f"""<utility_space><objective index="0" name="root">
<issue index="1" name="food" vtype="discrete">
  <item value="Hamburger" evaluation="{h}"/><item value="Pizza" evaluation="{p}"/>
  <item value="Sushi" evaluation="{s}"/>
</issue>
<issue index="2" name="guests" vtype="integer" lowerbound="2" upperbound="6">{evaluator}</issue>
<weight index="1" value="{weights[0]}"/><weight index="2" value="{weights[1]}"/>
</objective>{tail}</utility_space>"""


def folder(tmp_path: Path, *profiles: str, domain: str = DOMAIN) -> Path:
    (tmp_path / "domain.xml").write_text(domain)
    for k, text in enumerate(profiles or (profile(), profile())):
        (tmp_path / f"p{k + 1}.xml").write_text(text)
    return tmp_path


def test_discrete_evaluations_are_divided_by_the_issue_maximum(tmp_path: Path) -> None:
    u = read_genius_folder(folder(tmp_path)).utilities[0]
    assert u(("Pizza", 6)) == pytest.approx(0.6 * 0.5 + 0.4 * 1.0, abs=1e-15)
    assert u(("Hamburger", 2)) == pytest.approx(0.6 * 0.2, abs=1e-15)
    assert u.reservation == 0.4


def test_weights_that_do_not_sum_to_one_are_renormalised(tmp_path: Path) -> None:
    p = profile(weights=(3.0, 1.0))
    u = read_genius_folder(folder(tmp_path, p, p)).utilities[0]
    assert isinstance(u, LinearAdditiveUtility)
    assert list(u.weights) == [0.75, 0.25]
    assert u(("Sushi", 4)) == pytest.approx(0.75 * 1.0 + 0.25 * 0.5, abs=1e-15)


def test_all_tiny_evaluations_evaluate_to_zero_like_genius(tmp_path: Path) -> None:
    p = profile(food=(0, 0, 0.000001))
    u = read_genius_folder(folder(tmp_path, p, p)).utilities[0]
    assert u(("Sushi", 6)) == pytest.approx(0.4, abs=1e-15)


def test_integer_slope_and_offset_count_from_the_lower_bound_and_clamp(tmp_path: Path) -> None:
    p = profile(evaluator='<evaluator ftype="linear" slope="0.3" offset="0.1"/>')
    u = read_genius_folder(folder(tmp_path, p, p)).utilities[0]
    # guests=2 -> 0.1, 3 -> 0.4, 4 -> 0.7, 5 -> 1.0, 6 -> 1.3 clamped to 1
    for guests, ev in [(2, 0.1), (3, 0.4), (4, 0.7), (5, 1.0), (6, 1.0)]:
        assert u(("Sushi", guests)) == pytest.approx(0.6 + 0.4 * ev, abs=1e-12)


def test_integer_evaluator_without_clamping_stays_a_linear_evaluator(tmp_path: Path) -> None:
    u = read_genius_folder(folder(tmp_path)).utilities[0]
    assert isinstance(u, LinearAdditiveUtility)
    ev = u.evaluators[1]
    assert isinstance(ev, LinearEvaluator)
    assert (ev.slope, ev.offset) == (0.25, -0.5)  # 0.25 * (x - 2)


def test_old_parameter0_parameter1_integer_evaluator(tmp_path: Path) -> None:
    p = profile(evaluator='<evaluator ftype="linear" parameter0="-0.2" parameter1="0.2"/>')
    u = read_genius_folder(folder(tmp_path, p, p)).utilities[0]
    assert u(("Hamburger", 3)) == pytest.approx(0.6 * 0.2 + 0.4 * 0.4, abs=1e-12)
    assert u(("Hamburger", 6)) == pytest.approx(0.6 * 0.2 + 0.4 * 1.0, abs=1e-12)


REAL_DOMAIN = """<negotiation_template><utility_space><objective index="1" name="Car">
<issue index="2" name="cd" vtype="discrete"><item value="good"/><item value="none"/></issue>
<issue index="3" name="price" vtype="real"><range lowerbound="100" upperbound="200"/></issue>
</objective></utility_space></negotiation_template>"""

REAL_BUYER = """<utility_space><objective index="1" name="Car">
<weight index="2" value="0.5"/><weight index="3" value="0.5"/>
<issue index="2" name="cd"><item value="good" evaluation="10"/><item value="none" evaluation="5"/>
</issue>
<issue index="3" name="price" type="real"><range lowerbound="120" upperbound="200"/>
<evaluator ftype="linear" parameter1="-0.0125" parameter0="2.5"/></issue>
</objective><reservation value="0.1"/></utility_space>"""

PRICE_SELLER = """<utility_space><objective index="1" name="Car">
<weight index="2" value="0.25"/><weight index="3" value="0.75"/>
<issue index="2" name="cd" type="discrete"><item value="good" evaluation="4" cost="30"/>
<item value="none" evaluation="8" cost="0"/></issue>
<issue index="3" name="price" type="price"><range lowerbound="100" upperbound="190"/>
<rationality_factor value="0.5"/></issue>
</objective></utility_space>"""


def test_real_issue_linear_evaluation_is_clamped_to_unit_interval(tmp_path: Path) -> None:
    s = read_genius_folder(folder(tmp_path, REAL_BUYER, PRICE_SELLER, domain=REAL_DOMAIN))
    assert isinstance(s.space.issues[1], RealIssue)
    buyer = s.utilities[0]
    assert isinstance(buyer, GeniusAdditiveUtility)
    # 2.5 - 0.0125 x: 1.25 at 100 (clamped to 1), 0.5 at 160, 0 at 200
    assert buyer(("good", 100.0)) == pytest.approx(1.0, abs=1e-12)
    assert buyer(("none", 160.0)) == pytest.approx(0.5 * 0.5 + 0.5 * 0.5, abs=1e-12)
    assert buyer(("good", 200.0)) == pytest.approx(0.5, abs=1e-12)


def test_price_evaluator_subtracts_the_costs_of_the_other_values(tmp_path: Path) -> None:
    s = read_genius_folder(folder(tmp_path, REAL_BUYER, PRICE_SELLER, domain=REAL_DOMAIN))
    seller = s.utilities[1]
    # (price - costs - 100) / (190 - 100 - 30), clamped
    assert seller(("good", 160.0)) == pytest.approx(0.25 * 0.5 + 0.75 * 0.5, abs=1e-12)
    assert seller(("none", 160.0)) == pytest.approx(0.25 * 1.0 + 0.75 * 1.0, abs=1e-12)
    assert seller(("good", 110.0)) == pytest.approx(0.25 * 0.5, abs=1e-12)
    back = read_genius_folder(write_genius_folder(s, tmp_path / "out"))
    for o in [("good", 160.0), ("none", 130.0), ("good", 200.0)]:
        assert back.utilities[1](o) == pytest.approx(seller(o), abs=1e-15)
        assert back.utilities[0](o) == pytest.approx(s.utilities[0](o), abs=1e-15)


def test_objective_numbered_one_with_issues_from_two(tmp_path: Path) -> None:
    s = read_genius_folder(folder(tmp_path, REAL_BUYER, PRICE_SELLER, domain=REAL_DOMAIN))
    assert s.space.names == ("cd", "price")


@pytest.mark.parametrize(
    ("written", "expected"),
    [("0.5", 0.5), ("0.0", None), ("1.0", None), ("1.5", None), ("-0.2", None), ("0.99", 0.99)],
)
def test_discount_outside_open_unit_interval_means_none(
    tmp_path: Path, written: str, expected: float | None
) -> None:
    p = profile(tail=f'<discount_factor value="{written}"/><reservation value="0.3"/>')
    u = read_genius_folder(folder(tmp_path, p, p)).utilities[0]
    assert u.discount == expected
    assert u.reservation == 0.3
    t = 0.5
    factor = 1.0 if expected is None else expected**t
    assert u.at(("Sushi", 6), t) == pytest.approx(u(("Sushi", 6)) * factor, abs=1e-15)
    assert u.reservation_at(t) == pytest.approx(0.3 * factor, abs=1e-15)


def test_anac_defensive_charms_exact_utility() -> None:
    s = read_genius_folder(shared_folder("genius", "anac2013_DefensiveCharms"))
    u = s.utilities[s.profile_names.index("DefensiveCharms_util1")]
    # weights .5/.3/.2; Salvio Hexia 5/10, Protego Duo 6/10, Colloportus 5/10
    assert u(("Salvio Hexia", "Protego Duo", "Colloportus")) == pytest.approx(0.53, abs=1e-15)
    assert u(("Impervius", "Protego", "Cave Inimicum")) == pytest.approx(1.0, abs=1e-15)
    assert u.reservation == 0.7 and u.discount is None


def test_fitness_objective_one_issues_from_two_exact_utility() -> None:
    s = read_genius_folder(shared_folder("genius", "y2012_FitnessA"))
    u = s.utilities[s.profile_names.index("Fitness-A-prof1")]
    assert s.space.names[0] == "kind of fitness"
    w = [
        0.15354168265071755,
        0.04506011216336407,
        0.2981224975326285,
        0.29905439297725833,
        0.20422131467603144,
    ]  # the objective's own <weight index="1" value="1.0"/> is not an issue weight
    total = sum(w)
    expected = (w[0] * 4 / 5 + w[1] + w[2] + w[3] + w[4] * 7 / 10) / total
    assert u(("yoga", "1hour", "~1km", "as training", "3")) == pytest.approx(expected, abs=1e-15)
    assert (u.reservation, u.discount) == (0.5, 0.75)


def test_laptop_weights_summing_above_one_are_renormalised() -> None:
    s = read_genius_folder(shared_folder("genius", "y2011_Laptop"))
    u = s.utilities[0]
    assert isinstance(u, LinearAdditiveUtility)
    assert float(u.weights.sum()) == pytest.approx(1.0, abs=1e-15)
    assert float(u.all().max()) == pytest.approx(1.0, abs=1e-15)


def test_anac_travel_raw_evaluations_are_scaled_into_unit_interval() -> None:
    s = read_genius_folder(shared_folder("genius", "anac2010_Travel"))
    u = s.utilities[s.profile_names.index("travel_chox")]
    values = u.all()
    assert values.min() > 0.0
    assert float(values.max()) == pytest.approx(1.0, abs=1e-15)
    best = s.space.outcome_at(int(values.argmax()))
    assert best[:4] == (
        "Hospitality",
        "Nightlife and entertainment",
        "Local cuisine",
        "Small boutiques",
    )


@pytest.mark.parametrize(
    ("name", "parties", "kind"),
    [
        ("anac2015_dinner_3party", 3, CategoricalIssue),
        ("anac2015_killer_robot_integer_5party", 5, IntegerIssue),
        ("anac2015_symposium_9party", 9, CategoricalIssue),
        ("y2015_group3-bank_robbery", 9, CategoricalIssue),
        ("anac2016_AgentHp2_energygrid_integer", 3, IntegerIssue),
        ("genius_IntegerDomain", 2, IntegerIssue),
        ("genius_2nd_hand_car_real", 2, RealIssue),
    ],
)
def test_multilateral_and_numeric_scenarios(name: str, parties: int, kind: type) -> None:
    s = load_scenario(shared_folder("genius", name))
    assert s.n_parties == parties
    assert any(isinstance(issue, kind) for issue in s.space.issues)


def test_integer_domain_clamps_above_one() -> None:
    s = read_genius_folder(shared_folder("genius", "genius_IntegerDomain"))
    u = s.utilities[s.profile_names.index("IntegerDomain-prof1")]
    # price: 0.3 + 0.08 * (x + 5), clamped at 1 for x >= 4; otherprice: 0.1 * (x + 5)
    assert u((5, 5)) == pytest.approx(0.75 * 1.0 + 0.25 * 1.0, abs=1e-12)
    assert u((0, 0)) == pytest.approx(0.75 * 0.7 + 0.25 * 0.5, abs=1e-12)
    assert u((-5, -5)) == pytest.approx(0.75 * 0.3, abs=1e-12)


def test_legacy_profile_batch_is_exact_and_vectorised_on_a_finely_discretised_space() -> None:
    # The second-hand car shape: a costed discrete issue, a clamped real issue and a price
    # issue, real issues on a fine grid (as --discretize 400 gives): 800,000 outcomes.
    from time import process_time

    import numpy as np

    from accord.core.outcomes import OutcomeSpace
    from accord.formats.legacy import ClampedLinearTerm, PriceTerm, TableTerm

    space = OutcomeSpace(
        [
            CategoricalIssue("cd", ["none", "good", "great", "best", "gold"]),
            RealIssue("km", 0.0, 200_000.0),
            RealIssue("price", 8_000.0, 12_000.0),
        ]
    ).discretize(400)
    u = GeniusAdditiveUtility(
        space,
        [0.2, 0.3, 0.5],
        [
            TableTerm({"none": 0.0, "good": 0.4, "great": 0.7, "best": 0.9, "gold": 1.0}),
            ClampedLinearTerm(-1.0 / 150_000.0, 1.2),
            PriceTerm(8_000.0, 12_000.0),
        ],
        costs=[
            {"none": 0.0, "good": 150.0, "great": 300.0, "best": 420.0, "gold": 900.0},
            None,
            None,
        ],
    )
    rows = space.enumerate_rows()
    start = process_time()  # CPU time: a loaded machine does not stretch it
    values = u.batch(rows)
    elapsed = process_time() - start
    picks = np.random.default_rng(3).integers(0, rows.shape[0], 3000)
    assert values.tolist()[:5] == [u(space.outcome_of_row(r)) for r in rows[:5]]
    assert [values[i] for i in picks] == [u(space.outcome_of_row(rows[i])) for i in picks]
    assert 0.0 <= values.min() < values.max() <= 1.0
    assert elapsed < 2.0, f"batch of {rows.shape[0]} outcomes took {elapsed:.1f} s of CPU"
