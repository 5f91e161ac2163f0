"""The trader and market agents share their daily routine (production and negotiation
requests, ``accord.leagues.scml.agents.routine``) without changing what they do.

``data/scml_agents_before_routine.json`` holds what seeded worlds of these agents gave
before the routine was factored out (recorded from main at commit b5cc223 with
``python tests/leagues/scml/test_scml_agents_routine.py``): every factory's score and a
digest of every contract (parties, terms, status). The same worlds must give exactly the
same figures now: the same agents, contracts (digest) and count exactly, and every score
within ``SCORE_TOLERANCE``. The scores are sums of floating-point products; the order
of summation and the platform's maths library (a fused multiply-add, a different numpy
build) may change their last bits, e.g. -0.9223920102420412 against ...413, while any
change of behaviour moves a contract and so the digest.
Issue 26 changed the market agent's defaults on purpose; the same
worlds are played here with its former settings (:class:`MarketBefore`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.scml.agents.market import MarketAgent
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.world import World


class MarketBefore(MarketAgent):
    """The market agent with its settings before issue 26."""

    def __init__(self) -> None:
        super().__init__(
            margin=0.05,
            demand_input_share=None,
            speculative_days=1.0,
            middle_short_sales=True,
            stock_days=(2.0, 4.0, 2.0),
            supply_margin=0.05,
            supply_at_cost=False,
            middle_lead=0,
            lead_short=0.0,
            expected_supply=0.0,
            end_stop=False,
            warmup=0.0,
            flow_weight=0.0,
            buy_at_catalog=0.0,
            stock_sales=False,
            expected_total=False,
            demand_paced=False,
            count_offers=False,
            urgent_price=0.0,
            salvage=0.0,
            fill_days=None,
            earliest=False,
        )


DATA = Path(__file__).with_name("data") / "scml_agents_before_routine.json"
MIXES = {
    "market": ("market",),
    "trader": ("trader",),
    "mixed": ("market", "trader", "random"),
}
SEEDS = (0, 1, 2)
#: Absolute tolerance on a factory's score: a few hundred ulps of numbers near 1; any
#: real change of what the agents do changes a contract, which the digest catches exactly.
SCORE_TOLERANCE = 1e-9


def figures(mix: str, seed: int) -> dict[str, Any]:
    """Scores and a contract digest of one seeded world of the ``mix`` agents."""
    cfg = generate_config(n_steps=20, seed=seed, max_factories_per_level=3)
    kinds = MIXES[mix]
    agents = [kinds[i % len(kinds)] for i in range(cfg.n_factories)]
    playing = [MarketBefore if a == "market" else a for a in agents]
    w = World(cfg, playing, seed=seed).run()
    w.check_invariants()
    book = w.book
    rows = [
        f"{c.seller}>{c.buyer}:{c.quantity}@{c.unit_price}d{c.delivery}"
        f"{'x' if c.exogenous else ''}={book.status[cid].name}"
        for cid, c in book.contracts.items()
    ]
    return {
        "agents": agents,
        "scores": w.scores(),
        "contracts": len(rows),
        "digest": hashlib.sha256("\n".join(rows).encode()).hexdigest(),
    }


def all_figures() -> dict[str, Any]:
    return {f"{mix}/{seed}": figures(mix, seed) for mix in MIXES for seed in SEEDS}


@pytest.mark.parametrize("mix", list(MIXES))
def test_same_worlds_same_results_as_before_the_shared_routine(mix: str) -> None:
    if not DATA.is_file():
        pytest.fail(f"{DATA} is missing: record it from main (see this module's docstring)")
    before = json.loads(DATA.read_text())
    for seed in SEEDS:
        now = figures(mix, seed)
        then = before[f"{mix}/{seed}"]
        where = f"{mix} world seed {seed} changed"
        assert now["agents"] == then["agents"], where
        assert now["contracts"] == then["contracts"], where
        assert now["digest"] == then["digest"], where
        assert sorted(now["scores"]) == sorted(then["scores"]), where
        for factory, score in then["scores"].items():
            assert now["scores"][factory] == pytest.approx(score, rel=0, abs=SCORE_TOLERANCE), (
                f"{where}: score of {factory}"
            )


if __name__ == "__main__":  # record the figures (run on the code before a refactor)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(all_figures(), indent=1, sort_keys=True) + "\n")
    sys.stdout.write(f"wrote {DATA}\n")
