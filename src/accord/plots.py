"""Matplotlib figures shared by the CLI and the reports (no browser needed).

>>> import matplotlib
>>> matplotlib.use("Agg")
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from accord.core.analysis import ScenarioAnalysis
    from accord.core.protocols import SessionResult
    from accord.core.scenario import Scenario


def session_figure(
    scenario: Scenario, result: SessionResult, analysis: ScenarioAnalysis, max_points: int = 20_000
) -> Figure:
    """The offers of a bilateral session in utility space, with the outcomes, the Pareto
    frontier, the Nash and Kalai points and the agreement."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 6), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    u1, u2 = analysis.columns[0], analysis.columns[1]
    if u1.size > max_points:
        pick = np.random.default_rng(0).choice(u1.size, max_points, replace=False)
        u1, u2 = u1[pick], u2[pick]
    ax.scatter(u1, u2, s=4, c="#cccccc", label="outcomes", rasterized=True)
    f = analysis.frontier_utilities
    ax.plot(f[:, 0], f[:, 1], "-", color="#555555", lw=1.2, label="Pareto frontier")
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    utils = scenario.utilities
    for party, name in enumerate(result.names):
        offers = [
            e.outcome
            for e in result.trace
            if e.party == party and e.outcome is not None and e.action.value == "offer"
        ]
        if offers:
            xs = [utils[0](o) for o in offers]
            ys = [utils[1](o) for o in offers]
            ax.plot(
                xs,
                ys,
                ".-",
                ms=5,
                lw=0.7,
                color=colors[party % len(colors)],
                alpha=0.8,
                label=f"offers of {name}",
            )
    if analysis.nash is not None:
        ax.plot(*analysis.nash.utilities[:2], "k*", ms=14, label="Nash point")
    if analysis.kalai is not None:
        ax.plot(*analysis.kalai.utilities[:2], "kD", ms=8, mfc="none", label="Kalai point")
    if result.agreement is not None:
        a = result.agreement
        ax.plot(
            utils[0](a),
            utils[1](a),
            "o",
            ms=14,
            mfc="none",
            mec="#2ca02c",
            mew=2.5,
            label="agreement",
        )
    ax.set_xlabel(f"undiscounted utility of {result.names[0]} ({scenario.profile_names[0]})")
    ax.set_ylabel(f"undiscounted utility of {result.names[1]} ({scenario.profile_names[1]})")
    ax.set_title(f"{scenario.name}: {result.reason.value} after {result.steps} steps")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def save(fig: Figure, path: str | Path) -> Path:
    """Write a figure to ``path`` (format from the suffix) and return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, bbox_inches="tight")
    return p
