"""The utility formula on hand-computed outcomes of both bundled domains.

U(agreement, t) = 100 * sum_i w_i eval_i + t * time_effect; open issues take the
"No agreement" evaluation (paper) or 0 (code); opt-out and status quo add t * time_effect.
"""

from __future__ import annotations

import pytest

from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.protocol import Action, GeniusSession, Rules, VirtualClock

JC_FULL = {
    "Salary": "20,000 NIS",
    "Job Description": "Team Manager",
    "Leased Car": "Without leased car",
    "Pension Fund": "20%",
    "Promotion Possibilities": "Slow promotion track",
    "Working Hours": "8 hours",
}
EZ_FULL = {
    "Size of Fund": "$50 Billion",
    "Impact on Other Aid": "Reduction equal to half of fund size",
    "Zimbabwe Trade Policy": "Zimbabwe will reduce tariffs on imports",
    "England Trade Policy": "England will increase imports",
    "Forum on Other Health Issues": "Creation of committee to discuss creation of fund",
}
JC_TYPES = (0, 1)  # employer short-term, candidate long-term
EZ_TYPES = (2, 0)  # England compromise, Zimbabwe short-term


def _session(name: str, types: tuple[int, int], rules: Rules | None = None):
    clock = VirtualClock()
    s = GeniusSession(load_domain(name), types, rules or Rules(turn_seconds=10), clock)
    s.start()
    return s, clock


def _agree(s: GeniusSession, values: dict[str, str]) -> None:
    e = s.submit(0, Action.make_offer(values))
    assert s.submit(1, Action.accept(e.offer)).ok


@pytest.mark.parametrize(
    ("name", "types", "values", "turn", "expected"),
    [
        # employer ST: 100*(.6+.8+.3+.3+.3+.9) - 6*5; candidate LT: 100*(2.7+1.5-.25+.3+.25+.5) - 8*5
        ("job_candidate", JC_TYPES, JC_FULL, 5, (290.0, 460.0)),
        # England C: 100*(1.2+.9+.25-.25+2.1) + 12*2; Zimbabwe ST: 100*(1+0-.3+.35+.3) - 16*2
        ("england_zimbabwe", EZ_TYPES, EZ_FULL, 2, (444.0, 103.0)),
    ],
)
def test_full_agreement_is_worth_the_weighted_sum_plus_time_effect(
    name: str,
    types: tuple[int, int],
    values: dict[str, str],
    turn: int,
    expected: tuple[float, float],
) -> None:
    s, clock = _session(name, types)
    clock.advance(10 * turn + 1)
    _agree(s, values)
    assert s.result is not None
    assert s.result.reason.value == "agreement" and s.result.turn == turn
    assert s.result.utilities == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("name", "types", "values", "paper", "code_open", "status_quo"),
    [
        # JC: open car/pension/promotion have "No agreement" = 0 for every type.
        # employer ST 100*(1.2+1.2+1.8) - 6*14 = 336; candidate LT 100*(1.8+.75+.4) - 8*14 = 183
        (
            "job_candidate",
            JC_TYPES,
            {"Salary": "12,000 NIS", "Job Description": "Programmer", "Working Hours": "9 hours"},
            (336.0, 183.0),
            (336.0, 183.0),
            (240.0 - 84, 135.0 - 112),
        ),
        # EZ: open aid/trade issues take their "No agreement" evaluations.
        # England C: 100*(.6+1.2-.6) + 12*14 = 288 (code: 180+168 = 348)
        # Zimbabwe ST: 100*(4.5+.9-1.5) - 16*14 = 166 (code: 540-224 = 316)
        (
            "england_zimbabwe",
            EZ_TYPES,
            {"Size of Fund": "$100 Billion", "Forum on Other Health Issues": "Creation of fund"},
            (288.0, 166.0),
            (348.0, 316.0),
            (-180.0 + 168, -610.0 - 224),
        ),
    ],
)
def test_partial_agreement_is_implemented_at_the_deadline(
    name: str,
    types: tuple[int, int],
    values: dict[str, str],
    paper: tuple[float, float],
    code_open: tuple[float, float],
    status_quo: tuple[float, float],
) -> None:
    for rules, expected in [
        (Rules(turn_seconds=10), paper),
        (Rules(turn_seconds=10, open_issues="code"), code_open),
        (Rules(turn_seconds=10, deadline_rule="code"), status_quo),
    ]:
        s, clock = _session(name, types, rules)
        _agree(s, values)
        clock.advance(10 * 14)
        result = s.tick()
        assert result is not None and result.reason.value == "deadline" and result.turn == 14
        assert result.utilities == pytest.approx(expected, abs=1e-9), rules


@pytest.mark.parametrize(
    ("name", "types", "turn", "expected"),
    [
        ("job_candidate", JC_TYPES, 3, (210.0 - 6 * 3, 75.0 - 8 * 3)),
        ("england_zimbabwe", EZ_TYPES, 4, (-75.0 + 12 * 4, -530.0 - 16 * 4)),
    ],
)
def test_opt_out_at_turn_t_gives_each_side_its_own_opt_out_value(
    name: str, types: tuple[int, int], turn: int, expected: tuple[float, float]
) -> None:
    s, clock = _session(name, types)
    clock.advance(10 * turn + 5)
    event = s.submit(1, Action.opt_out())
    assert event.result is not None and event.result.ended_by == 1
    assert event.result.utilities == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("name", "types", "expected"),
    [
        ("job_candidate", JC_TYPES, (240.0 - 6 * 14, 135.0 - 8 * 14)),
        ("england_zimbabwe", EZ_TYPES, (-180.0 + 12 * 14, -610.0 - 16 * 14)),
    ],
)
def test_nothing_agreed_at_the_deadline_gives_the_status_quo(
    name: str, types: tuple[int, int], expected: tuple[float, float]
) -> None:
    s, clock = _session(name, types)
    s.submit(
        0,
        Action.make_offer(
            {"Salary": "7,000 NIS"} if name == "job_candidate" else {"Size of Fund": "$10 billion"}
        ),
    )
    clock.advance(10 * 14)
    result = s.tick()
    assert result is not None and not any(v is not None for v in result.agreement)
    assert result.utilities == pytest.approx(expected, abs=1e-9)


def test_code_numbering_counts_periods_from_one() -> None:
    s, clock = _session("job_candidate", JC_TYPES, Rules(turn_seconds=10, first_turn=1))
    clock.advance(10 * 3 + 1)
    r = s.submit(0, Action.opt_out()).result
    assert r is not None and r.turn == 4
    assert r.utilities == pytest.approx((210.0 - 24, 75.0 - 32))


def test_bundled_domains_have_the_fact_sheet_sizes_and_extremes() -> None:
    jc, ez = load_domain("job_candidate"), load_domain("england_zimbabwe")
    assert (jc.size, ez.size) == (1296, 576)
    extremes = {
        (d.name, side, p.name): (float(p.scores(d.rows).max()), float(p.scores(d.rows).min()))
        for d in (jc, ez)
        for side, profiles in zip(d.sides, d.types, strict=True)
        for p in profiles
    }
    assert extremes[("job_candidate", "candidate", "long-term")] == pytest.approx((700, 5))
    assert extremes[("england_zimbabwe", "england", "short-term")] == pytest.approx((895, -575))
    assert extremes[("england_zimbabwe", "zimbabwe", "compromise")] == pytest.approx((600, -390))
