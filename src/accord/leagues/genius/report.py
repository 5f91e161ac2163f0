"""The HTML report of ``accord genius evaluate``: tables and plots in one self-contained file.

Per domain: the measures against the PDAs (and against people when the store has them)
with their 95 % intervals, a bar chart of the agent's mean utility and generosity per
opponent, the distribution of the turn of agreement, and the round-robin ranking when
it was computed.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from accord.plots import png_img

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from accord.leagues.genius.evaluate import Record

__all__ = [
    "render",
    "write_report",
]

_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
    "text-align:right}th:first-child,td:first-child{text-align:left}img{max-width:100%}"
)


def _e(x: object) -> str:
    return html.escape(str(x))


def _cell(iv: Mapping[str, Any] | None, key: str) -> str:
    if iv is None:
        return "<td>n/a</td>"
    m = iv[key]
    if m["mean"] is None:
        return "<td>n/a</td>"
    if m["low"] is None:
        return f"<td>{m['mean']:.3g}</td>"
    return f"<td>{m['mean']:.3g} [{m['low']:.3g}, {m['high']:.3g}]</td>"


def _per_opponent(records: Sequence[Record]) -> Figure:
    from matplotlib.figure import Figure

    opponents = sorted({r.opponent for r in records})
    util = [np.mean([r.utility for r in records if r.opponent == o]) for o in opponents]
    gen = [np.mean([r.generosity for r in records if r.opponent == o]) for o in opponents]
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(opponents))
    ax.bar(x - 0.2, util, 0.4, label="agent's utility")
    ax.bar(x + 0.2, gen, 0.4, label="opponent's utility (generosity)")
    ax.set_xticks(x, opponents, rotation=30, ha="right")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _turns(records: Sequence[Record], people: Sequence[Record]) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3))
    ax = fig.add_subplot(1, 1, 1)
    bins = [k - 0.5 for k in range(max([r.turn for r in records] + [14]) + 2)]
    ax.hist([r.turn for r in records if r.agreement], bins=bins, alpha=0.7, label="vs PDAs")
    if people:
        ax.hist([r.turn for r in people if r.agreement], bins=bins, alpha=0.7, label="vs people")
    ax.set_xlabel("period of the agreement")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def render(
    agent: str,
    records: Sequence[Record],
    summary: Mapping[str, Mapping[str, Any]],
    people: Mapping[str, Sequence[Record]] | None = None,
) -> str:
    """The report as an HTML string."""
    import matplotlib

    matplotlib.use("Agg")
    from accord.leagues.genius.evaluate import MEASURES

    parts = [f"<h1>Evaluation of {_e(agent)}</h1>"]
    parts.append(
        f"<p>{len(records)} sessions against peer-designed agents; intervals are 95 % "
        "Student-t intervals with each opponent (or person) as the unit.</p>"
    )
    for dname, entry in summary.items():
        recs = [r for r in records if r.domain == dname]
        prs = list((people or {}).get(dname, []))
        parts.append(f"<h2>{_e(dname)}</h2><table><tr><th>measure</th><th>vs PDAs</th>")
        has_people = entry.get("people") is not None
        if has_people:
            parts.append("<th>vs people</th>")
        parts.append("</tr>")
        for m in MEASURES:
            parts.append(f"<tr><td>{m}</td>{_cell(entry.get('pdas'), m)}")
            if has_people:
                parts.append(_cell(entry.get("people"), m))
            parts.append("</tr>")
        parts.append("</table>")
        if recs:
            parts.append(png_img(_per_opponent(recs)))
            parts.append(png_img(_turns(recs, prs)))
        ranking = entry.get("ranking")
        if isinstance(ranking, Mapping):
            parts.append(
                "<h3>Round robin: mean utility</h3><table><tr><th>agent</th><th>mean</th></tr>"
            )
            for name, v in sorted(ranking.items(), key=lambda kv: -kv[1]):
                parts.append(f"<tr><td>{_e(name)}</td><td>{v:.1f}</td></tr>")
            parts.append("</table>")
    body = "\n".join(parts)
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>GENIUS evaluation of {_e(agent)}</title><style>{_CSS}</style></head>"
        f"<body>{body}</body></html>"
    )


def write_report(
    path: str | Path,
    agent: str,
    records: Sequence[Record],
    summary: Mapping[str, Mapping[str, Any]],
    people: Mapping[str, Sequence[Record]] | None = None,
) -> Path:
    """Write the report; returns its path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(agent, records, summary, people), encoding="utf-8")
    return out
