"""Plots of one world over time: balances, inventories, trading prices, contracts, breaches.

``write_report(world, out_dir)`` writes ``scml_report.png`` (one figure, five panels) and
``scml_report.html`` (self-contained: the panels as inline PNGs plus a score table).

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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from accord.core.errors import ConfigError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from accord.leagues.scml.world import World

__all__ = ["write_report", "PANELS"]

PANELS = ("balances", "inventories", "trading prices", "contracts", "breaches")


def _days(w: World) -> np.ndarray:
    return np.arange(w.day)


def _plot(w: World, name: str, ax: Axes) -> None:
    d = _days(w)
    n = w.day
    if name == "balances":
        for i, nm in enumerate(w.names):
            ax.plot(d, w.history_balance[:n, i], label=nm)
        ax.set_ylabel("balance")
    elif name == "inventories":
        for i, nm in enumerate(w.names):
            ax.plot(d, w.history_inventory[:n, i].sum(axis=1), label=nm)
        ax.set_ylabel("units held")
    elif name == "trading prices":
        for p in range(w.n_products):
            ax.plot(d, w.history_prices[:n, p], label=f"product {p}")
        ax.set_ylabel("trading price")
    elif name == "contracts":
        ax.bar(d, w.history_signed[:n], label="signed")
        ax.plot(d, w.history_negotiations[:n, 1], color="k", label="agreements")
        ax.set_ylabel("per day")
    elif name == "breaches":
        per_day = np.bincount([b.day for b in w.bb.breaches], minlength=n)[:n]
        ax.bar(d, per_day, color="tab:red", label="breaches")
        for ev in w.bankruptcies:
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
    scores = world.scores()
    rows = "".join(
        f"<tr><td>{html.escape(nm)}</td><td>{html.escape(world.types[i].split(':')[-1])}</td>"
        f"<td>{int(world.level[i])}</td><td>{int(world.current_balances()[i])}</td>"
        f"<td>{scores[nm]:+.4f}</td><td>{'yes' if world.bankrupt[i] else ''}</td></tr>"
        for i, nm in enumerate(world.names)
    )
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SCML world report</title>
<style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}
figure{{display:inline-block;margin:4px}}</style></head><body>
<h1>SCML world: {world.day} of {world.n_steps} days, {world.n_agents} factories</h1>
<p>Contracts: {len(world.contracts)} ({int(world.history_signed.sum())} signed),
breaches: {len(world.bb.breaches)}, bankruptcies: {len(world.bankruptcies)}.</p>
<table><tr><th>agent</th><th>type</th><th>level</th><th>balance</th><th>profit (eq. 3)</th>
<th>bankrupt</th></tr>{rows}</table>
{imgs}
</body></html>
"""
    page_path = out / "scml_report.html"
    page_path.write_text(page, encoding="utf-8")
    return [png, page_path]
