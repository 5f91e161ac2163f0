"""``accord diplomacy``: play a game, run a tournament.

accord diplomacy play --negotiators "alliance mine.negs:Peaceful" --fast --json
accord diplomacy tournament                 # the default: 2 alliance, 2 random-deals
accord diplomacy tournament alliance mine.negs:Peaceful --games 10 --out out/dip.sqlite
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import AccordError, ConfigError
from accord.sandbox.option import SANDBOX_HELP as SHARED_HELP
from accord.sandbox.option import sandbox_callback

if TYPE_CHECKING:
    from accord.sandbox import SandboxMode

app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)


def _need_engine() -> None:
    from accord.leagues.diplomacy.engine import INSTALL_HINT, has_engine

    if not has_engine():
        raise typer.BadParameter(INSTALL_HINT)


SANDBOX_HELP = SHARED_HELP.capitalize() + "."


def _deal_line(deal: dict[str, object]) -> str:
    parts: list[str] = []
    for y, s, power, order in deal.get("commitments", []):  # type: ignore[attr-defined]
        parts.append(f"{power} {order} ({s}{y})")
    for y, s, powers, provs in deal.get("dmzs", []):  # type: ignore[attr-defined]
        parts.append(f"DMZ {','.join(provs)} for {','.join(powers)} ({s}{y})")
    return f"{deal.get('proposer')}: " + "; ".join(parts)


def ended_when(phases: list[dict[str, object]]) -> str:
    """Where a game's record ends, for people: the engine calls the state after a solo
    ``COMPLETED``, so that one is named by the phase played last.

    >>> ended_when([{"phase": "F1910M"}, {"phase": "COMPLETED"}])
    'after F1910M'
    >>> ended_when([{"phase": "F1901M"}, {"phase": "W1901A"}])
    'at W1901A'
    """
    last = str(phases[-1]["phase"])
    if last == "COMPLETED" and len(phases) > 1:
        return f"after {phases[-2]['phase']}"
    return f"at {last}"


@app.command("play")
def play(
    negotiators: Annotated[
        str,
        typer.Option(
            help="Negotiators for the first powers, space separated: built-in names "
            "(none, random-deals, alliance) or entered ones as pkg.module:Class"
        ),
    ] = "alliance random-deals",
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    fast: Annotated[
        bool, typer.Option(help="Virtual clock (3 ticks a round) instead of real rounds.")
    ] = False,
    round_seconds: Annotated[
        float, typer.Option(help="Seconds per round on the real clock.")
    ] = 30.0,
    last_year: Annotated[int, typer.Option(help="The game ends at Winter of this year.")] = 1920,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP, callback=sandbox_callback())] = "os",
    call_seconds: Annotated[
        float, typer.Option(help="Seconds an entered negotiator may take per call (virtual clock).")
    ] = 5.0,
    out: Annotated[
        Path | None, typer.Option(help="Write the full game record (JSON) here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Play one game; powers get the given negotiators in order, the rest none. Prints
    the result and the deals each power made."""
    _need_engine()
    from accord.leagues.diplomacy.deals import POWERS
    from accord.leagues.diplomacy.runner import play_game
    from accord.leagues.diplomacy.sandboxed import check_entries, is_entry, negotiator_for
    from accord.sandbox import PROCESS_GIVES_UP

    names = negotiators.split()
    try:
        if len(names) > 7:
            raise ConfigError(f"expected up to 7 negotiators, got {len(names)}")
        check_entries(names)
        entered = any(is_entry(n) for n in names)
        mode = _sandbox_mode(sandbox) if entered else None
    except AccordError as exc:
        raise typer.BadParameter(str(exc), param_hint="--negotiators") from exc
    try:
        negs = {
            p: negotiator_for(n, seed + i, sandbox=sandbox, call_seconds=call_seconds)
            for i, (p, n) in enumerate(zip(POWERS, names, strict=False))
        }
        rec = play_game(
            negs,
            names={p: n for p, n in zip(POWERS, names, strict=False)},
            seed=seed,
            clock="virtual" if fast else "real",
            round_seconds=round_seconds,
            last_year=last_year,
        )
    except AccordError as exc:
        raise typer.BadParameter(str(exc)) from exc
    data = rec.to_json()
    if mode is not None and mode.weaker:
        data["sandbox"] = PROCESS_GIVES_UP
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data))
    if as_json:
        data.pop("phases")
        typer.echo(json.dumps(data))
        return
    table = Table(title=f"Game ended: {rec.end} {ended_when(rec.phases)}")
    for col in ("power", "player", "centres", "points", "deals"):
        table.add_column(col)
    deals = rec.deals_by_power()
    for p in POWERS:
        table.add_row(
            p, rec.players[p], str(rec.centres[p]), str(rec.points[p]), str(len(deals[p]))
        )
    console = Console()
    console.print(table)
    for p in POWERS:
        if deals[p]:
            console.print(f"[bold]{p}[/bold] made {len(deals[p])} deals:", markup=True)
            for d in deals[p]:
                console.print(f"  {d['phase']} {d['id']}: {_deal_line(d['deal'])}", markup=False)
    for e in rec.errors[:20]:
        console.print(f"error: {e}", markup=False)
    if entered:  # say where the entered negotiators ran
        console.print(_ran_line(sandbox), markup=False)
    if mode is not None and mode.weaker:
        console.print(PROCESS_GIVES_UP, markup=False)


def _sandbox_mode(text: str) -> SandboxMode | None:
    """The sandbox of entered negotiators (None: ``none``, in this process), refused
    before work where ``os`` cannot run."""
    from accord.sandbox import require_mode

    return None if text == "none" else require_mode(text)


def _ran_line(sandbox: str) -> str:
    if sandbox == "none":
        return "sandbox: none for entered negotiators (they ran in this process: trusted code only)"
    return f"sandbox: {sandbox} for entered negotiators"


DEFAULT_PLAYERS = ["alliance", "alliance", "random-deals", "random-deals"]
"""`tournament` without players: 2 alliance, 2 random-deals and 3 non-negotiators."""


@app.command("tournament")
def tournament(
    players: Annotated[
        list[str] | None,
        typer.Argument(
            help="Negotiators: built-in names or pkg.module:Class (groups of 7, filled "
            "with none). Default: alliance alliance random-deals random-deals."
        ),
    ] = None,
    games: Annotated[int, typer.Option(help="Games per group (and in the final).")] = 7,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    last_year: Annotated[int, typer.Option(help="Games end at Winter of this year.")] = 1920,
    real_time: Annotated[
        bool, typer.Option(help="Real-time rounds (--round-seconds) instead of the fast clock.")
    ] = False,
    round_seconds: Annotated[
        float, typer.Option(help="Seconds per round with --real-time (ANAC 2017: 30).")
    ] = 30.0,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP, callback=sandbox_callback())] = "os",
    call_seconds: Annotated[
        float, typer.Option(help="Seconds an entered negotiator may take per call (fast clock).")
    ] = 5.0,
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
    """Run (or resume) an ANAC 2017 tournament: groups of 7, the best of each to a final."""
    if not 0.0 < alpha < 1.0:
        raise typer.BadParameter(f"expected a level in (0, 1), got {alpha}", param_hint="--alpha")
    _need_engine()
    from accord.leagues.diplomacy.sandboxed import check_entries, is_entry
    from accord.leagues.diplomacy.significance import neighbour_tests
    from accord.leagues.diplomacy.tournament import all_jobs, per_game, run_tournament, summary
    from accord.sandbox import PROCESS_GIVES_UP

    names = list(players) if players else list(DEFAULT_PLAYERS)
    options: dict[str, object] = {"last_year": last_year}
    if real_time:
        options.update(clock="real", round_seconds=round_seconds)
    weaker = False
    ran_in: str | None = None  # the sandbox mode of entered negotiators (None: no entrant)
    try:
        check_entries(names)
        if any(is_entry(n) for n in names):
            mode = _sandbox_mode(sandbox)
            weaker, ran_in = mode is not None and mode.weaker, sandbox
            options.update(sandbox=sandbox, call_seconds=call_seconds)
        recs = run_tournament(
            names, games, seed=seed, out=out, executor=executor, workers=workers, **options
        )
        jobs = all_jobs(names, games, recs, seed, **options)
    except AccordError as exc:
        raise typer.BadParameter(str(exc)) from exc
    stages: dict[str, list[tuple[str, dict[str, object]]]] = {}
    for jid, spec in jobs:
        stages.setdefault(jid.split("-")[0], []).append((jid, spec))
    order = (["final"] if "final" in stages else []) + sorted(
        (s for s in stages if s != "final"), key=lambda s: int(s[1:])
    )
    out_rows: list[dict[str, object]] = []
    console = Console()
    for stage in order:
        sjobs = stages[stage]
        srecs = {j: recs[j] for j, _ in sjobs if j in recs}
        rows = summary(srecs, sjobs)
        tests = neighbour_tests(rows, per_game(srecs, sjobs), alpha=alpha)
        label = "final" if stage == "final" else f"group {stage[1:]}"
        if as_json:
            for i, r in enumerate(rows):
                out_rows.append(
                    {
                        "stage": label,
                        "rank": i + 1,
                        "player": r.player,
                        "games": r.games,
                        "points": r.points,
                        "centres": r.centres,
                        "mean_centres": r.mean_centres,
                        "solos": r.solos,
                        "vs_next": tests[i].to_json() if i < len(tests) else None,
                    }
                )
            continue
        table = Table(title=f"ANAC 2017 Diplomacy, {label}: {len(srecs)} games")
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
        console.print(table)
    if as_json:
        typer.echo(json.dumps(out_rows))
        return
    console.print(
        "Ranked by points, ties broken on total supply centres. vs next: two-sided "
        "permutation test over games (paired when both played the same games) on what "
        f"ordered the pair (points, or centres when points are equal); * = significant at "
        f"{alpha}, ns = not."
    )
    if ran_in is not None:  # say where the entered negotiators ran
        console.print(_ran_line(ran_in), markup=False)
    if weaker:
        console.print(PROCESS_GIVES_UP, markup=False)


@app.command("live")
def live(
    power: Annotated[str, typer.Option(help="The power you play.")] = "FRANCE",
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    round_seconds: Annotated[
        float, typer.Option(help="Seconds per negotiation round (you may end one early).")
    ] = 120.0,
    last_year: Annotated[int, typer.Option(help="The game ends at Winter of this year.")] = 1920,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 8000,
) -> None:
    """Play one power in the browser against six negotiating agents."""
    _need_engine()
    from accord.leagues.diplomacy.live import LiveGame, live_app
    from accord.web.runner import serve

    try:
        game = LiveGame(power.upper(), seed=seed, round_seconds=round_seconds, last_year=last_year)
    except AccordError as exc:
        raise typer.BadParameter(str(exc), param_hint="--power") from exc
    app_, link = live_app(game)
    typer.echo(f"Open http://127.0.0.1:{port}{link} (your link: keep it to yourself)")
    serve(app_, "127.0.0.1", port)


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
