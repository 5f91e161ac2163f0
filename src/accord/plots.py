"""Matplotlib figures shared by the CLI and the reports (no browser, no pyplot).

Figures are built as :class:`matplotlib.figure.Figure` objects: nothing here selects a
backend or touches pyplot's state, so inline plots in Jupyter keep working (a figure
displays itself there; :func:`save` writes it to a file).

- :func:`session_figure`: the offers in utility space with the outcomes, the Pareto
  frontier, the Nash and Kalai points and the agreement; one panel for two parties, one
  panel per pair of parties for three or more.
- :func:`timeline_figure`: offers over time, one panel per agent, each party's utility
  of that agent's offers against normalised time (as NegMAS and GENIUS show them).

Every axis says whether its utilities are discounted: offers are drawn undiscounted;
where a profile has a discount factor, the timeline adds its discounted utility dashed.

    >>> from accord.core import Deadline, Session
    >>> from accord.agents import Boulware, Conceder
    >>> from accord.formats import load_scenario
    >>> sc = load_scenario("holiday")
    >>> r = Session(sc.space, [Boulware(), Conceder(), Boulware()], sc.utilities,
    ...             Deadline(rounds=20)).run()
    >>> len(timeline_figure(SessionTrace.of(sc, r)).axes)
    3
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from accord.core.analysis import ScenarioAnalysis
    from accord.core.protocols import SessionResult
    from accord.core.scenario import Scenario

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


@dataclass(frozen=True)
class SessionTrace:
    """What the figures need of one session, in seat order (undiscounted utilities).

    ``utilities[i, p]`` is party ``p``'s undiscounted utility of event ``i``'s outcome
    (NaN when the event has none); ``agreement`` holds each party's undiscounted utility
    of the agreement, ``discounts`` each profile's discount factor (None: none).
    """

    names: tuple[str, ...]
    profiles: tuple[str, ...]
    times: npt.NDArray[np.float64]
    parties: npt.NDArray[np.int64]
    actions: tuple[str, ...]
    utilities: npt.NDArray[np.float64]
    agreement: tuple[float, ...] | None
    end_time: float
    discounts: tuple[float | None, ...]
    title: str = ""

    @classmethod
    def of(cls, scenario: Scenario, result: SessionResult) -> SessionTrace:
        """From a live session's result."""
        us = scenario.utilities
        rows = [
            [np.nan] * len(us) if e.outcome is None else [u(e.outcome) for u in us]
            for e in result.trace
        ]
        agreed = result.agreement
        return cls(
            names=tuple(result.names),
            profiles=tuple(scenario.profile_names),
            times=np.array([e.time for e in result.trace], dtype=np.float64),
            parties=np.array([e.party for e in result.trace], dtype=np.int64),
            actions=tuple(e.action.value for e in result.trace),
            utilities=np.array(rows, dtype=np.float64).reshape(len(rows), len(us)),
            agreement=None if agreed is None else tuple(float(u(agreed)) for u in us),
            end_time=float(result.time),
            discounts=tuple(u.discount for u in us),
            title=f"{scenario.name}: {result.reason.value} after {result.steps} steps",
        )

    @property
    def n(self) -> int:
        """Number of parties."""
        return len(self.names)

    def label(self, p: int) -> str:
        """``agent (profile)`` of seat ``p``."""
        return f"{self.names[p]} ({self.profiles[p]})"


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def session_figure(
    scenario: Scenario, result: SessionResult, analysis: ScenarioAnalysis, max_points: int = 20_000
) -> Figure:
    """Offers of a session in utility space (any number of parties)."""
    return utility_space_figure(SessionTrace.of(scenario, result), analysis, max_points)


def utility_space_figure(
    trace: SessionTrace, analysis: ScenarioAnalysis, max_points: int = 20_000
) -> Figure:
    """Offers in utility space: one panel for two parties, one per pair for more.

    ``analysis`` must be of the scenario with its profiles in seat order.
    """
    pairs = list(combinations(range(trace.n), 2))
    cols = min(len(pairs), 3)
    rows = -(-len(pairs) // cols)
    fig = _new_figure(6.5 if cols == 1 else 4.6 * cols, 5.8 if rows == 1 else 4.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    columns = analysis.columns
    size = columns[0].size
    pick = (
        np.random.default_rng(0).choice(size, max_points, replace=False)
        if size > max_points
        else slice(None)
    )
    for ax, (a, b) in zip(axes, pairs, strict=False):
        _utility_panel(ax, trace, analysis, a, b, columns[a][pick], columns[b][pick])
    for ax in axes[len(pairs) :]:
        ax.set_visible(False)
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(trace.title + ("" if trace.n == 2 else " (each panel: one pair of parties)"))
    return fig


def _utility_panel(
    ax: Axes,
    trace: SessionTrace,
    analysis: ScenarioAnalysis,
    a: int,
    b: int,
    xs: npt.NDArray[np.float64],
    ys: npt.NDArray[np.float64],
) -> None:
    ax.scatter(xs, ys, s=4, c="#cccccc", label="outcomes", rasterized=True)
    f = analysis.frontier_utilities
    if trace.n == 2:
        order = np.argsort(f[:, 0])
        ax.plot(f[order, 0], f[order, 1], "-", color="#555555", lw=1.2, label="Pareto frontier")
    else:
        ax.scatter(f[:, a], f[:, b], s=10, c="#555555", label="Pareto-optimal outcomes")
    offers = np.array([x == "offer" for x in trace.actions], dtype=bool)
    for p in range(trace.n):
        mine = offers & (trace.parties == p)
        if mine.any():
            u = trace.utilities[mine]
            ax.plot(u[:, a], u[:, b], ".-", ms=5, lw=0.7, color=COLORS[p % len(COLORS)],
                    alpha=0.85, label=f"offers of {trace.label(p)}")  # fmt: skip
    if analysis.nash is not None:
        nash = analysis.nash.utilities
        ax.plot(nash[a], nash[b], "k*", ms=14, label="Nash point")
    if analysis.kalai is not None:
        kalai = analysis.kalai.utilities
        ax.plot(kalai[a], kalai[b], "kD", ms=8, mfc="none", label="Kalai point")
    if trace.agreement is not None:
        ax.plot(trace.agreement[a], trace.agreement[b], "o", ms=14, mfc="none", mec="#2ca02c",
                mew=2.5, label="agreement")  # fmt: skip
    ax.set_xlabel(f"undiscounted utility of {trace.label(a)}")
    ax.set_ylabel(f"undiscounted utility of {trace.label(b)}")
    ax.grid(alpha=0.3)


def timeline_figure(trace: SessionTrace) -> Figure:
    """Offers over time: per agent, every party's utility of that agent's offers."""
    n = trace.n
    fig = _new_figure(7.5, 2.6 * n + 0.8)
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    offers = np.array([x == "offer" for x in trace.actions], dtype=bool)
    accepts = np.array([x == "accept" for x in trace.actions], dtype=bool)
    for p, ax in enumerate(axes):
        mine = offers & (trace.parties == p)
        t = trace.times[mine]
        for q in range(n):
            u = trace.utilities[mine, q]
            own = q == p
            ax.plot(t, u, ".-" if own else "-", lw=1.6 if own else 0.9, ms=4,
                    color=COLORS[q % len(COLORS)], alpha=1.0 if own else 0.7,
                    label=f"{'own' if own else 'for ' + trace.label(q)} (undiscounted)")  # fmt: skip
            delta = trace.discounts[q]
            if own and delta is not None and len(t):
                ax.plot(t, u * np.power(delta, t), "--", lw=1.0, color=COLORS[q % len(COLORS)],
                        label=f"own, discounted (delta={delta:g})")  # fmt: skip
        acc = accepts & (trace.parties == p)
        if acc.any():
            ax.scatter(trace.times[acc], trace.utilities[acc, p], marker="s", s=40, c="k",
                       zorder=5, label="accepts (own utility, undiscounted)")  # fmt: skip
        ax.axvline(trace.end_time, color="#999999", lw=0.8, ls=":")
        ax.set_ylabel("utility (undiscounted unless marked)")
        ax.set_title(f"offers of {trace.label(p)}", fontsize=10, loc="left")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[-1].set_xlabel("normalised time t (dotted line: end of the session)")
    fig.suptitle(trace.title)
    return fig


def save(fig: Figure, path: str | Path) -> Path:
    """Write a figure to ``path`` (format from the suffix) and return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, bbox_inches="tight")
    return p


def png_img(fig: Figure, dpi: int = 90) -> str:
    """An ``<img>`` tag holding the figure as a PNG data URI (for self-contained pages).

    >>> png_img(_new_figure(1, 1)).startswith('<img alt="plot" src="data:image/png;base64,')
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="plot" src="data:image/png;base64,{data}">'


def stack(values: Sequence[Sequence[float]], width: int) -> npt.NDArray[np.float64]:
    """Rows of per-party utilities as a float array (``NaN`` for a missing row).

    >>> stack([[0.5, 1.0], []], 2).tolist()
    [[0.5, 1.0], [nan, nan]]
    """
    out = np.full((len(values), width), np.nan)
    for i, row in enumerate(values):
        if len(row):
            out[i, : len(row)] = row
    return out
