"""A self-contained HTML report of a tournament results file (plots inlined as PNG).

Sections: summary, leaderboards (with 95% bootstrap intervals and neighbour tests), score
distributions, an agent-vs-agent heat map, per-scenario means, the mean utility per
repetition (learning curves), failures, and sample sessions: offers in utility space with
the Pareto frontier, the Nash and Kalai points (every pair of parties for three or more),
and offers over time per agent. Scores are final utilities, discounted where a profile
has a discount factor; the sample plots show undiscounted utilities (and say so).
Figures are matplotlib ``Figure`` objects: the report never selects a backend.

    >>> import tempfile, pathlib
    >>> from accord.tournament.config import TournamentConfig
    >>> from accord.tournament.runner import run_tournament
    >>> cfg = TournamentConfig(["accord.agents.timebased:Boulware",
    ...                         "accord.agents.timebased:Conceder"], ["builtin:tiny"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_tournament(cfg, pathlib.Path(d) / "t.sqlite")
    ...     html = write_report(pathlib.Path(d) / "t.sqlite").read_text()
    ...     "data:image/png;base64" in html and "Leaderboard" in html
    True
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from accord.plots import SessionTrace, png_img, stack, timeline_figure, utility_space_figure
from accord.tournament.results import Results
from accord.tournament.scores import agent_vs_agent, by_scenario, leaderboards

_TITLES = {
    "utility": "Individual utility (final, discounted)",
    "welfare": "Social welfare (sum of final, discounted utilities)",
    "nash": "Nash product (product of final, discounted utilities)",
}
_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
img{max-width:100%}.note{color:#666;font-size:.85rem}
pre.tb{text-align:left;white-space:pre-wrap;font-size:.8rem;background:#f8f8f8;padding:.5rem}
"""


def write_report(
    results: str | Path, out: str | Path | None = None, samples: int = 4, trim: float = 0.0
) -> Path:
    """Write the HTML report of ``results`` (default: next to it, ``.html``); ``trim``
    scores by a truncated mean instead of the mean."""
    res = Results(results)
    try:
        page = render(res, samples, trim)
    finally:
        res.close()
    target = Path(out) if out is not None else Path(results).with_suffix(".html")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


def render(res: Results, samples: int = 4, trim: float = 0.0) -> str:
    """The report page as a string."""
    cfg = res.config
    parties = res.parties
    sessions = res.sessions
    parts = [f"<h1>Tournament report: {_e(cfg.get('name', 'tournament'))}</h1>"]
    parts.append(_summary(cfg, res.specs, sessions))
    if parties.empty:
        parts.append("<p>No session has finished yet.</p>")
        return _page(parts)
    boards = leaderboards(parties, seed=int(cfg.get("seed", 0)), trim=trim)
    parts.append("<h2>Leaderboards</h2>")
    parts.append(
        f"<p class=note>Score = {_statistic(trim)} over the agent's independent units (one "
        "per session setup it played: scenario x opponents x role; the repetitions of a "
        "setup are averaged, so identical copies count once; utilities are final: discounted "
        "to the end time where a profile has a discount factor); 95% percentile bootstrap "
        "interval resampling units (seeded); n_eff = units, n = seats in all sessions; "
        "p = two-sided Mann-Whitney U test on unit values against the next agent; "
        "* = differs at 5%.</p>"
    )
    for metric, board in boards.items():
        parts.append(f"<h3>{_TITLES[metric]}</h3>")
        parts.append(_board_table(board))
    parts.append("<h2>Score distributions</h2>")
    parts.append(png_img(_distributions(parties, boards)))
    parts.append("<h2>Agent against agent</h2>")
    parts.append(
        "<p class=note>Mean final utility (discounted where the profile has a discount "
        "factor) of the row agent in sessions with the column agent.</p>"
    )
    parts.append(png_img(_heatmap(agent_vs_agent(parties))))
    parts.append("<h2>Agreements below the agent's own reservation value</h2>")
    parts.append(_rationality(res))
    parts.append("<h2>Per scenario (mean final utility, discounted where the profile is)</h2>")
    parts.append(_frame_table(by_scenario(parties)))
    if parties["rep"].nunique() > 1:
        parts.append("<h2>Mean utility per repetition</h2>")
        parts.append(png_img(_learning_curves(parties)))
    parts.append("<h2>Failures</h2>")
    parts.append(_failures(sessions))
    parts.append("<h2>Sample sessions</h2>")
    parts.append(
        "<p class=note>Offers in utility space (undiscounted) with the Pareto frontier, the "
        "Nash and Kalai points and the agreement, then each agent's offers over time.</p>"
    )
    parts.extend(_samples(res, samples))
    return _page(parts)


def _statistic(trim: float) -> str:
    return "mean" if not trim else f"mean after cutting {trim:.0%} from each end"


# -- pieces ----------------------------------------------------------------------------------
def _summary(cfg: dict[str, Any], specs: pd.DataFrame, sessions: pd.DataFrame) -> str:
    agents = ", ".join(a["name"] for a in cfg.get("agents", []))
    scen = ", ".join(str(s) for s in cfg.get("scenarios", []))
    agreed = float(sessions["agreed"].mean()) if len(sessions) else float("nan")
    failed = int(sessions["failure_kind"].notna().sum()) if len(sessions) else 0
    rows = [
        ("Agents", agents),
        ("Scenarios", scen),
        ("Repetitions", cfg.get("reps")),
        ("Sessions", f"{len(sessions)} finished of {len(specs)} scheduled"),
        ("Agreement rate", f"{agreed:.1%}"),
        ("Sessions with a failure", failed),
        ("Seed", cfg.get("seed")),
        ("Learning across sessions", cfg.get("learning")),
        ("Isolated agents", cfg.get("isolated")),
        ("Sandbox", cfg.get("sandbox", "none")),
        ("Sessions per sandbox", cfg.get("sessions_per_sandbox", "not recorded")),
    ]
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _board_table(board: pd.DataFrame) -> str:
    head = (
        "<tr><th>rank</th><th>agent</th><th>score</th><th>95% CI</th><th>n_eff</th>"
        "<th>n</th><th>p vs next</th></tr>"
    )
    rows = []
    for rank, agent, score, lo, hi, n_eff, n, p_next, differs in board[
        ["rank", "agent", "score", "ci_low", "ci_high", "n_eff", "n", "p_next", "differs_next"]
    ].itertuples(index=False, name=None):
        p = "" if np.isnan(p_next) else f"{p_next:.3g}{' *' if differs else ''}"
        rows.append(
            f"<tr><td>{rank}</td><td>{_e(agent)}</td><td>{score:.4f}</td>"
            f"<td>[{lo:.4f}, {hi:.4f}]</td><td>{n_eff}</td><td>{n}</td><td>{p}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _frame_table(df: pd.DataFrame) -> str:
    cols = "".join(f"<th>{_e(c)}</th>" for c in df.columns)
    rows = []
    for idx, r in df.iterrows():
        cells = "".join(f"<td>{'' if pd.isna(v) else f'{float(v):.4f}'}</td>" for v in r)
        rows.append(f"<tr><td>{_e(idx)}</td>{cells}</tr>")
    return f"<table><tr><th></th>{cols}</tr>{''.join(rows)}</table>"


def _rationality(res: Results) -> str:
    from accord.tournament.rationality import below_reservation

    table = below_reservation(res.parties, res.sessions, res.scenarios)
    note = (
        "<p class=note>Sessions in which the agent agreed to less than its own reservation "
        "value (both discounted to the end time where the profile has a discount factor): "
        "it would have done better without the agreement. agreements = the sessions it "
        "agreed in.</p>"
    )
    if table.empty or int(table["below"].sum()) == 0:
        return note + "<p>None.</p>"
    table = table.sort_values(["below", "agent"], ascending=[False, True])
    cells = zip(
        table["agent"], table["below"].astype(int), table["agreements"].astype(int), strict=True
    )
    rows = "".join(
        f"<tr><td>{_e(agent)}</td><td>{below}</td><td>{agreed}</td>"
        f"<td>{below / agreed:.1%}</td></tr>"
        for agent, below, agreed in cells
    )
    head = "<tr><th>agent</th><th>below</th><th>agreements</th><th>share</th></tr>"
    return note + f"<table>{head}{rows}</table>"


def _failures(sessions: pd.DataFrame) -> str:
    from accord.tournament.failures import failure_summary

    summary = failure_summary(sessions)
    if not summary.failed:
        return "<p>None.</p>"
    rows = []
    for r in summary.reasons:
        tb = (
            f"<details><summary>traceback</summary><pre class=tb>{_e(r.traceback)}</pre></details>"
            if r.traceback
            else ""
        )
        rows.append(
            f"<tr><td>{_e(r.agent)}</td><td>{_e(r.kind)}</td><td>{r.count}</td>"
            f"<td style='text-align:left'>{_e(r.message)}{tb}</td></tr>"
        )
    return (
        f"<p>{summary.failed} of {summary.total} sessions failed. By agent: "
        + _e(", ".join(f"{a} {n}" for a, n in summary.by_agent.items()))
        + ".</p>"
        "<table><tr><th>agent</th><th>kind</th><th>sessions</th><th>reason</th></tr>"
        f"{''.join(rows)}</table>"
    )


def _distributions(parties: pd.DataFrame, boards: dict[str, pd.DataFrame]) -> Figure:
    fig = Figure(figsize=(5 * len(boards), 4.2), layout="constrained")
    axes = fig.subplots(1, len(boards), squeeze=False)
    for ax, (metric, board) in zip(axes[0], boards.items(), strict=True):
        order = board["agent"].tolist()
        data = [parties.loc[parties["agent"] == a, metric].to_numpy() for a in order]
        ax.boxplot(data, showfliers=False, widths=0.5)
        ax.set_xticks(range(1, len(order) + 1), order, rotation=30, ha="right")
        x = np.arange(1, len(order) + 1)
        err = np.vstack([board["score"] - board["ci_low"], board["ci_high"] - board["score"]])
        ax.errorbar(
            x, board["score"], yerr=err, fmt="o", color="C3", capsize=4, label="mean, 95% CI"
        )
        ax.set_title(_TITLES[metric], fontsize=10)
        ax.legend(fontsize=8)
    return fig


def _heatmap(table: pd.DataFrame) -> Figure:
    n = max(len(table.index), len(table.columns), 1)
    fig = Figure(figsize=(1.3 * n + 3, 1.1 * n + 2), layout="constrained")
    ax = fig.subplots()
    values = table.to_numpy(dtype=float)
    im = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=max(1.0, float(np.nanmax(values))))
    ax.set_xticks(range(len(table.columns)), table.columns, rotation=30, ha="right", fontsize=10)
    ax.set_yticks(range(len(table.index)), table.index, fontsize=10)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    top = max(1.0, float(np.nanmax(values)))
    for (i, j), v in np.ndenumerate(values):
        if not np.isnan(v):
            # dark text on the light (yellow-green) end of viridis, white on the dark end
            color = "black" if v / top > 0.6 else "white"
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", color=color, fontsize=10)
    fig.colorbar(
        im, ax=ax, label="mean final utility of the row agent (discounted where the profile says)"
    )
    return fig


def _learning_curves(parties: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    curves = parties.groupby(["agent", "rep"])["utility"].mean().unstack("agent")
    for agent in curves.columns:
        ax.plot(curves.index, curves[agent], marker="o", label=str(agent))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("repetition")
    ax.set_ylabel("mean final utility (discounted where the profile says)")
    ax.legend(fontsize=8)
    return fig


def _samples(res: Results, k: int) -> list[str]:
    scenarios = res.scenarios
    sessions = res.sessions
    out: list[str] = []
    specs = res.specs.set_index("id")
    mixed = sessions[[len(set(json.loads(a))) > 1 for a in specs.loc[sessions["id"], "agents"]]]
    pool = mixed if len(mixed) else sessions
    picked = pool.groupby("scenario", sort=False).head(1).head(k)
    for sid, scenario, reason in zip(
        picked["id"], picked["scenario"], picked["reason"], strict=True
    ):
        scen = scenarios.get(str(scenario))
        if scen is None or not scen.space.is_discrete:
            continue
        profiles = json.loads(str(specs.at[sid, "profiles"]))
        agents = json.loads(str(specs.at[sid, "agents"]))
        seated = scen.with_utilities([scen.utilities[p] for p in profiles])
        trace = _stored_trace(res, str(sid), seated, profiles, agents, str(reason))
        analysis = _analysis(seated)
        out.append(f"<h3>{_e(scenario)}: {_e(' vs '.join(agents))} ({_e(reason)})</h3>")
        if analysis.note is not None:
            out.append(f"<p>Note: {_e(analysis.note)}.</p>")
        out.append(png_img(utility_space_figure(trace, analysis)))
        out.append(png_img(timeline_figure(trace)))
    return out or ["<p>No sample session could be drawn.</p>"]


def _analysis(scenario: Any) -> Any:
    from accord.core.analysis import analyze

    return analyze(scenario)


def _stored_trace(
    res: Results, sid: str, seated: Any, profiles: list[int], agents: list[str], reason: str
) -> SessionTrace:
    """A :class:`SessionTrace` from a results file (utilities stored undiscounted)."""
    ev = res.trace(sid)
    n = len(agents)
    agreement = res.sessions.set_index("id").loc[sid, "agreement"]
    agreed = None
    if isinstance(agreement, str):
        o = tuple(json.loads(agreement))
        agreed = tuple(float(u(o)) for u in seated.utilities)
    times = ev["time"].to_numpy(dtype=float)
    return SessionTrace(
        names=tuple(agents),
        profiles=tuple(seated.profile_names[p] for p in profiles),
        times=times,
        parties=ev["party"].to_numpy(dtype=np.int64),
        actions=tuple(str(a) for a in ev["action"]),
        utilities=stack([list(u) if u is not None else [] for u in ev["utilities"]], n),
        agreement=agreed,
        end_time=float(times.max()) if len(times) else 0.0,
        discounts=tuple(u.discount for u in seated.utilities),
        title=f"{seated.name}: {reason} after {len(times)} steps",
    )


# -- html helpers ---------------------------------------------------------------------------
def _e(x: object) -> str:
    return html.escape(str(x))


def _page(parts: list[str]) -> str:
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>Accord tournament report</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>"
    )
