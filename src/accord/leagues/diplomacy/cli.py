"""``accord diplomacy``: play a game, run a tournament.

accord diplomacy play --negotiators "alliance random-deals" --fast --json
accord diplomacy tournament alliance --games 10 --out out/dip.sqlite
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import AccordError

app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)


def _need_engine() -> None:
    from accord.leagues.diplomacy.engine import INSTALL_HINT, has_engine

    if not has_engine():
        raise typer.BadParameter(INSTALL_HINT)


@app.command("play")
def play(
    negotiators: Annotated[
        str,
        typer.Option(
            help="Negotiator names for the first powers, "
            "space separated (none, random-deals, alliance)"
        ),
    ] = "alliance random-deals",
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    fast: Annotated[
        bool, typer.Option(help="Virtual clock (3 ticks a round) instead of 30 s real rounds.")
    ] = False,
    last_year: Annotated[int, typer.Option(help="The game ends at Winter of this year.")] = 1920,
    out: Annotated[
        Path | None, typer.Option(help="Write the full game record (JSON) here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Play one game; powers get the given negotiators in order, the rest none."""
    _need_engine()
    from accord.leagues.diplomacy.deals import POWERS
    from accord.leagues.diplomacy.negotiator import NEGOTIATORS
    from accord.leagues.diplomacy.runner import play_game

    names = negotiators.split()
    bad = [n for n in names if n not in NEGOTIATORS]
    if bad or len(names) > 7:
        raise typer.BadParameter(
            f"expected up to 7 of {sorted(NEGOTIATORS)}, got {names}", param_hint="--negotiators"
        )
    negs = {
        p: NEGOTIATORS[n](seed + i) for i, (p, n) in enumerate(zip(POWERS, names, strict=False))
    }
    try:
        rec = play_game(negs, seed=seed, clock="virtual" if fast else "real", last_year=last_year)
    except AccordError as exc:
        raise typer.BadParameter(str(exc)) from exc
    data = rec.to_json()
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data))
    if as_json:
        data.pop("phases")
        typer.echo(json.dumps(data))
        return
    table = Table(title=f"Game ended: {rec.end} at {rec.phases[-1]['phase']}")
    for col in ("power", "player", "centres", "points"):
        table.add_column(col)
    for p in POWERS:
        table.add_row(p, rec.players[p], str(rec.centres[p]), str(rec.points[p]))
    Console().print(table)


@app.command("tournament")
def tournament(
    players: Annotated[
        list[str], typer.Argument(help="Negotiator names (groups of 7, filled with none).")
    ],
    games: Annotated[int, typer.Option(help="Games per group.")] = 7,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    last_year: Annotated[int, typer.Option(help="Games end at Winter of this year.")] = 1920,
    out: Annotated[
        Path | None, typer.Option(help="SQLite task store; the same command resumes.")
    ] = None,
    executor: Annotated[str, typer.Option(help="serial, processes or ray.")] = "serial",
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    alpha: Annotated[
        float, typer.Option(help="Significance level of the tests between neighbours.")
    ] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
) -> None:
    """Run (or resume) an ANAC 2017 tournament on the virtual clock."""
    if not 0.0 < alpha < 1.0:
        raise typer.BadParameter(f"expected a level in (0, 1), got {alpha}", param_hint="--alpha")
    _need_engine()
    from accord.leagues.diplomacy.significance import neighbour_tests
    from accord.leagues.diplomacy.tournament import make_jobs, per_game, run_tournament, summary

    try:
        jobs = make_jobs(players, games, seed, last_year=last_year)
        recs = run_tournament(
            players,
            games,
            seed=seed,
            out=out,
            executor=executor,
            workers=workers,
            last_year=last_year,
        )
    except AccordError as exc:
        raise typer.BadParameter(str(exc)) from exc
    rows = summary(recs, jobs)
    tests = neighbour_tests(rows, per_game(recs, jobs), alpha=alpha)
    if as_json:
        out_rows: list[dict[str, object]] = []
        for i, r in enumerate(rows):
            out_rows.append(
                {
                    "player": r.player,
                    "games": r.games,
                    "points": r.points,
                    "centres": r.centres,
                    "mean_centres": r.mean_centres,
                    "solos": r.solos,
                    "vs_next": tests[i].to_json() if i < len(tests) else None,
                }
            )
        typer.echo(json.dumps(out_rows))
        return
    table = Table(title=f"ANAC 2017 Diplomacy: {len(recs)} games")
    for col in ("rank", "player", "games", "points", "centres", "mean SCs", "solos", "vs next"):
        table.add_column(col)
    for i, r in enumerate(rows, 1):
        t = tests[i - 1] if i <= len(tests) else None
        table.add_row(
            str(i),
            r.player,
            str(r.games),
            str(r.points),
            str(r.centres),
            f"{r.mean_centres:.2f}",
            str(r.solos),
            "" if t is None else f"{'*' if t.significant else 'ns'} p={t.p:.3g} ({t.by})",
        )
    Console().print(table)
    Console().print(
        "vs next: two-sided permutation test over games (paired when both played the same "
        "games) on what ordered the pair (points, or centres when points are equal); "
        f"* = significant at {alpha}, ns = not."
    )


@app.command("view")
def view(
    game: Annotated[Path, typer.Argument(help="A game record written by 'play --out'.")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8000,
) -> None:
    """Step through a stored game in the browser (god view or one power's view)."""
    _need_engine()
    from accord.leagues.diplomacy.viewer import viewer_app
    from accord.web.runner import ServerError, bound_socket, serve

    try:
        record = json.loads(game.read_text())
        app_ = viewer_app(record)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"expected a game record (JSON) from 'play --out': {exc}") from exc
    try:
        sock = bound_socket("127.0.0.1", port)  # a taken port: one clear line, no link
    except ServerError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(f"Viewer on http://127.0.0.1:{sock.getsockname()[1]}/")
    serve(app_, sock=sock)
