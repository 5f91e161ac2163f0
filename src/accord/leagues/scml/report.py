"""What happened in one world: a summary of the market and plots over time.

``summary(world)`` is a dict of the market's figures (contracts signed, exogenous or
negotiated, negotiations requested, agreed and failed, exogenous demand met, profit per
agent type). ``write_report(world, out_dir)`` writes ``scml_report.png`` (one figure, all
panels) and ``scml_report.html`` (self-contained: the summary, the per-agent and per-type
tables, the agents' exceptions with their tracebacks, and the panels as inline PNGs).

Example:
    >>> import tempfile, pathlib
    >>> from accord.leagues.scml.generate import generate_config
    >>> from accord.leagues.scml.world import World
    >>> w = World(generate_config(n_steps=5, factories_per_level=[2, 2], seed=0), ["trader"] * 4).run()
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = write_report(w, d)
    ...     sorted(p.name for p in paths)
    ['scml_report.html', 'scml_report.png']
"""

from __future__ import annotations

import base64
import html
import io
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from accord.core.errors import ConfigError
from accord.leagues.scml.contracts import SIMULATOR_NAME, ContractStatus

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from accord.leagues.scml.world import World

__all__ = ["PANELS", "summary", "write_report"]

PANELS = (
    "balances",
    "inventories",
    "trading prices",
    "contracts",
    "negotiations",
    "breaches",
)


def _short(type_name: str) -> str:
    return type_name.rsplit(":", 1)[-1].rsplit(".", 1)[-1]


def summary(w: World) -> dict[str, Any]:
    """The market's figures so far (counts over all days; shares in [0, 1]).

    ``signed`` counts contracts signed (not agreements or revealed offers);
    ``demand_met`` is the share of the exogenous demand (final-product units the
    simulator offered to buy) that was signed, ``supply_met`` the same for raw supply;
    ``agreements_signed`` the share of negotiated agreements that were signed.
    """
    h, book = w.history, w.book
    neg = {c: int(h.negotiation_column(c).sum()) for c in h.NEG_COLUMNS}
    signed = int(h.signed.sum())
    exo = int(h.signed_exogenous.sum())
    offered = {True: 0, False: 0}
    taken = {True: 0, False: 0}
    for cid, c in book.contracts.items():
        if c.exogenous and c.replaces is None:
            sell = c.buyer == SIMULATOR_NAME
            offered[sell] += c.quantity
            if cid in book.signed_on:
                taken[sell] += c.quantity
    counts = Counter(book.status.values())
    days = max(1, w.day)
    return {
        "days": w.day,
        "signed": signed,
        "signed_exogenous": exo,
        "signed_negotiated": signed - exo,
        "signed_per_day": signed / days,
        "negotiated_per_day": (signed - exo) / days,
        "cancelled": int(h.cancelled.sum()),
        "executed": counts[ContractStatus.EXECUTED],
        "nullified": counts[ContractStatus.NULLIFIED],
        **neg,
        "agreements_signed": (signed - exo) / neg["agreed"] if neg["agreed"] else float("nan"),
        "demand_met": taken[True] / offered[True] if offered[True] else float("nan"),
        "supply_met": taken[False] / offered[False] if offered[False] else float("nan"),
        "breaches": len(w.bb.breaches),
        "bankruptcies": len(h.bankruptcies),
        "exceptions": len(h.exceptions),
        "profit": {_short(t): v for t, v in w.type_scores().items()},
    }


def _days(w: World) -> np.ndarray:
    return np.arange(w.day)


def _plot(w: World, name: str, ax: Axes) -> None:
    d = _days(w)
    n = w.day
    if name == "balances":
        for i, nm in enumerate(w.names):
            ax.plot(d, w.history.balance[:n, i], label=nm)
        ax.set_ylabel("balance")
    elif name == "inventories":
        for i, nm in enumerate(w.names):
            ax.plot(d, w.history.inventory[:n, i].sum(axis=1), label=nm)
        ax.set_ylabel("units held")
    elif name == "trading prices":
        for p in range(w.n_products):
            ax.plot(d, w.history.prices[:n, p], label=f"product {p}")
        ax.set_ylabel("trading price")
    elif name == "contracts":
        h = w.history
        exo = h.signed_exogenous[:n]
        ax.bar(d, exo, label="exogenous signed")
        ax.bar(d, h.signed[:n] - exo, bottom=exo, label="negotiated signed")
        ax.plot(d, h.cancelled[:n], color="tab:red", label="cancelled")
        ax.set_ylabel("contracts per day")
        ax.legend(fontsize=6)
    elif name == "negotiations":
        h = w.history
        for col in h.NEG_COLUMNS:
            ax.plot(d, h.negotiation_column(col)[:n], label=col)
        ax.plot(d, h.signed[:n] - h.signed_exogenous[:n], "k--", label="signed")
        ax.set_ylabel("negotiations per day")
        ax.legend(fontsize=6)
    elif name == "breaches":
        per_day = np.bincount([b.day for b in w.bb.breaches], minlength=n)[:n]
        ax.bar(d, per_day, color="tab:red", label="breaches")
        for ev in w.history.bankruptcies:
            ax.axvline(ev["day"], color="k", ls="--", lw=0.8)
        ax.set_ylabel("breaches (-- bankruptcy)")
    else:
        raise ConfigError(f"unknown panel {name!r}; panels: {PANELS}")
    ax.set_title(name)
    ax.set_xlabel("day")
    if name in ("balances", "inventories", "trading prices") and len(ax.lines) <= 12:
        ax.legend(fontsize=6, ncol=2)


def _figure_png(w: World, names: tuple[str, ...], cols: int, dpi: int = 90) -> bytes:
    from matplotlib.figure import Figure  # no pyplot: the caller's backend stays as it is

    rows = -(-len(names) // cols)
    fig = Figure(figsize=(6 * cols, 3.4 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k < len(names):
            _plot(w, names[k], ax)
        else:
            ax.axis("off")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{x:.1%}"


def write_report(world: World, out_dir: str | Path) -> list[Path]:
    """Write the PNG and the self-contained HTML report; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "scml_report.png"
    png.write_bytes(_figure_png(world, PANELS, cols=2))
    imgs = "".join(
        f'<figure><img alt="{html.escape(p)}" src="data:image/png;base64,'
        f'{base64.b64encode(_figure_png(world, (p,), cols=1)).decode()}"></figure>'
        for p in PANELS
    )
    esc = html.escape
    s = summary(world)
    scores = world.scores()
    bal = world.current_balances()
    rows = "".join(
        f"<tr><td>{esc(nm)}</td><td>{esc(_short(world.types[i]))}</td>"
        f"<td>{int(world.level[i])}</td><td>{int(bal[i])}</td>"
        f"<td>{scores[nm]:+.4f}</td><td>{'yes' if world.ledger.bankrupt[i] else ''}</td></tr>"
        for i, nm in enumerate(world.names)
    )
    types = "".join(f"<tr><td>{esc(t)}</td><td>{v:+.4f}</td></tr>" for t, v in s["profit"].items())
    figures = [
        ("contracts signed", f"{s['signed']} ({s['signed_exogenous']} exogenous, "
         f"{s['signed_negotiated']} negotiated; {s['negotiated_per_day']:.2f} negotiated a day)"),
        ("contracts cancelled / executed / nullified",
         f"{s['cancelled']} / {s['executed']} / {s['nullified']}"),
        ("negotiations requested / started / agreed / failed",
         f"{s['requested']} / {s['started']} / {s['agreed']} / {s['failed']}"),
        ("agreements signed", _pct(s["agreements_signed"])),
        ("exogenous demand met (signed)", _pct(s["demand_met"])),
        ("exogenous supply bought (signed)", _pct(s["supply_met"])),
        ("breaches / bankruptcies / agent exceptions",
         f"{s['breaches']} / {s['bankruptcies']} / {s['exceptions']}"),
    ]  # fmt: skip
    facts = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in figures)
    excs = "".join(
        f"<details><summary>day {e.day}, {esc(e.agent)}, {esc(e.method)}: "
        f"{esc(e.message)}</summary><pre>{esc(e.traceback)}</pre></details>"
        for e in world.history.exceptions[:100]
    )
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SCML world report</title>
<style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse;margin:.5em 0}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}th{{text-align:left}}
figure{{display:inline-block;margin:4px}}pre{{background:#f6f6f6;padding:.5em}}</style>
</head><body>
<h1>SCML world: {world.day} of {world.n_steps} days, {world.n_agents} factories</h1>
<h2>Market</h2><table id="summary">{facts}</table>
<h2>Profit per agent type (eq. 3, consolidated)</h2>
<table id="types"><tr><th>type</th><th>profit</th></tr>{types}</table>
<h2>Factories</h2>
<table id="factories"><tr><th>agent</th><th>type</th><th>level</th><th>balance</th>
<th>profit (eq. 3)</th><th>bankrupt</th></tr>{rows}</table>
<h2>Agent exceptions ({s["exceptions"]})</h2>{excs or "<p>none</p>"}
{imgs}
</body></html>
"""
    page_path = out / "scml_report.html"
    page_path.write_text(page, encoding="utf-8")
    return [png, page_path]
