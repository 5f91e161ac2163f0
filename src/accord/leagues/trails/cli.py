"""``accord trails``: play one Colored Trails game, run a tournament, serve games to people.

accord trails play --agents "purb reliable" --dependency mutual --board 3
accord trails tournament --boards 10 --json
accord trails serve --opponent purb --opponent person
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import AccordError, ConfigError
from accord.sandbox.option import SANDBOX_HELP, sandbox_callback

if TYPE_CHECKING:
    from accord.leagues.trails.board import Settings
    from accord.leagues.trails.generator import BoardSpec

app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)

_ALL = ["purb", "reliable", "unreliable", "greedy", "random"]

# the game's parameters, shared by play, tournament and serve
Rows = Annotated[int, typer.Option(help="board rows (2..12)")]
Cols = Annotated[int, typer.Option(help="board columns (2..12)")]
Colors = Annotated[int, typer.Option(help="number of colours (1..10)")]
ChipsOpt = Annotated[int, typer.Option("--chips", help="chips per player (1..16)")]
MinDistance = Annotated[int, typer.Option(help="least squares from a start to its goal")]
Visibility = Annotated[str, typer.Option(help="full or own (the other's chips hidden)")]
Protocol = Annotated[
    str,
    typer.Option(
        help="alternating (one proposal a turn, proposer alternating) or counter "
        "(alternating offers inside the phase, --rounds slots)"
    ),
]
Rounds = Annotated[
    int | None, typer.Option(help="proposal slots per phase under --protocol counter (2)")
]
SandboxOpt = Annotated[
    str,
    typer.Option(
        "--sandbox",
        help=SANDBOX_HELP + " ('off' is an old spelling of none)",
        callback=sandbox_callback({"off": "none"}),
    ),
]


def _pm(mean: float, half: float | None, n: int) -> str:
    """``mean ± half (n=N)``; ``± -`` when there is no interval (fewer than two units)."""
    return f"{mean:.1f} ± {'-' if half is None else f'{half:.1f}'} (n={n})"


def _game_params(
    rows: int,
    cols: int,
    colors: int,
    chips: int,
    min_distance: int,
    visibility: str,
    protocol: str,
    rounds: int | None,
    **scoring: Any,
) -> tuple[BoardSpec, Settings]:
    """The board spec and rules from the options; a clear error before any work."""
    from accord.leagues.trails.board import Settings
    from accord.leagues.trails.generator import BoardSpec

    if rounds is not None and protocol != "counter":
        raise ConfigError(
            f"--rounds applies to --protocol counter; got --protocol {protocol} --rounds {rounds}"
        )
    spec = BoardSpec(rows, cols, colors, chips, min_distance)
    rules = Settings(
        max_turns=50, visibility=visibility, protocol=protocol,
        rounds=2 if rounds is None else rounds, **scoring,
    )  # fmt: skip
    return spec, rules


def _split(items: list[str]) -> list[str]:
    return [a for item in items for a in item.replace(",", " ").split()]


@app.command("play")
def play_cmd(
    agents: Annotated[
        list[str],
        typer.Option("--agents", "-a", help="two agents: purb reliable unreliable greedy random"),
    ] = ["purb", "reliable"],  # noqa: B006 - typer needs a literal default
    dependency: Annotated[str, typer.Option(help="mutual, unilateral or independent")] = "mutual",
    board: Annotated[int, typer.Option(help="board seed")] = 0,
    seed: Annotated[int, typer.Option(help="agents' seed")] = 0,
    rows: Rows = 5,
    cols: Cols = 5,
    colors: Colors = 4,
    chips: ChipsOpt = 6,
    min_distance: MinDistance = 3,
    visibility: Visibility = "full",
    protocol: Protocol = "alternating",
    rounds: Rounds = None,
    goal_bonus: Annotated[int, typer.Option(help="X: points for reaching the goal")] = 100,
    chip_bonus: Annotated[int, typer.Option(help="Y: points per chip left")] = 5,
    distance_penalty: Annotated[int, typer.Option(help="Z: points per square short")] = 10,
    dormant_limit: Annotated[int, typer.Option(help="turns without a move that end it")] = 3,
    sandbox: SandboxOpt = "os",
    as_json: Annotated[bool, typer.Option("--json", help="print the game as JSON")] = False,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="also write a replay page (open in a browser)")
    ] = None,
) -> None:
    """Play one game between two agents and print the turns and the scores."""
    from accord.leagues.trails.board import chips_to_letters
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import play

    console = Console()
    names = _split(agents)
    try:
        if len(names) != 2:
            raise typer.BadParameter(
                f"expected 2 agents, got {len(names)}: {names}", param_hint="--agents"
            )
        spec, rules = _game_params(
            rows, cols, colors, chips, min_distance, visibility, protocol, rounds,
            goal_bonus=goal_bonus, chip_bonus=chip_bonus, distance_penalty=distance_penalty,
            dormant_limit=dormant_limit,
        )  # fmt: skip
        setup = generate(dependency, board, **spec.to_dict())
        _say_sandbox(names, sandbox)
        r = play(setup, names, seed=seed, rules=rules, sandbox=sandbox)
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if html_out is not None:
        from accord.leagues.trails.replay import replay_html

        html_out.write_text(replay_html(r))
    if as_json:
        typer.echo(json.dumps(r))
        return
    console.print(f"[bold]{dependency}[/bold] board {board}: " + " / ".join(setup.board.letters()))
    for k in (0, 1):
        console.print(
            f"  player {k} {names[k]}: start {setup.starts[k]}, goal {setup.goals[k]}, "
            f"chips {chips_to_letters(setup.chips[k])}"
        )
    t = Table(title="turns")
    for c in ("turn", "proposer", "proposal (gives / asks)", "agreed", "promised", "sent", "moved"):
        t.add_column(c)
    for h in r["history"]:
        prop = (
            "; ".join(
                f"{names[o['from']]}: {chips_to_letters(o['give'])} / {chips_to_letters(o['take'])}"
                for o in h["offers"]
            )
            if rules.protocol == "counter"
            else f"{chips_to_letters(h['give'])} / {chips_to_letters(h['take'])}"
            if h["give"] is not None
            else "-"
        ) or "-"
        t.add_row(
            str(h["turn"] + 1),  # turns are counted from 1, as in the docs and on the page
            names[h["proposer"]],
            prop,
            "yes" if h["accepted"] else "no",
            " | ".join(chips_to_letters(p) or "-" for p in h["promised"]),
            " | ".join(chips_to_letters(p) or "-" for p in h["sent"]),
            " | ".join(str(m) for m in h["moved"]),
        )
    console.print(t)
    console.print(
        f"ended by [bold]{r['end']}[/bold] after {r['turns']} turn"
        + ("" if r["turns"] == 1 else "s")
        + "; scores "
        + ", ".join(f"{n} {s}" for n, s in zip(names, r["scores"], strict=True))
    )


@app.command("tournament")
def tournament_cmd(
    agents: Annotated[
        list[str], typer.Option("--agents", "-a", help="agents to pit against each other")
    ] = _ALL,  # noqa: B006
    boards: Annotated[int, typer.Option(help="boards per dependency class")] = 10,
    seed: Annotated[int, typer.Option(help="seed of the boards")] = 0,
    out: Annotated[Path | None, typer.Option(help="SQLite results file (resumable)")] = None,
    executor: Annotated[str, typer.Option(help="serial, processes or ray")] = "serial",
    workers: Annotated[int | None, typer.Option(help="worker processes")] = None,
    rows: Rows = 5,
    cols: Cols = 5,
    colors: Colors = 4,
    chips: ChipsOpt = 6,
    min_distance: MinDistance = 3,
    visibility: Visibility = "full",
    protocol: Protocol = "alternating",
    rounds: Rounds = None,
    sandbox: SandboxOpt = "os",
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
    longer: Annotated[
        bool,
        typer.Option(
            "--longer",
            help="longer games: 6x6 boards, 4 colours, 8 chips, goals >= 5 away; play on until "
            "both are home, 5 dormant turns, 40 turns (overrides the board options)",
        ),
    ] = False,
) -> None:
    """Every ordered pair of agents on every board of the three dependency classes."""
    from dataclasses import replace

    from accord.leagues.trails.generator import LONGER_BOARD, LONGER_RULES
    from accord.leagues.trails.tournament import run_tournament

    console = Console()
    names = _split(agents)
    try:
        spec, rules = _game_params(
            rows, cols, colors, chips, min_distance, visibility, protocol, rounds
        )
        if longer:
            spec = LONGER_BOARD
            rules = replace(
                rules, until=LONGER_RULES.until, dormant_limit=LONGER_RULES.dormant_limit,
                max_turns=LONGER_RULES.max_turns,
            )  # fmt: skip
        _say_sandbox(names, sandbox)
        r = run_tournament(
            names, boards=boards, seed=seed, out=out, executor=executor, workers=workers,
            board=spec, rules=rules, sandbox=sandbox,
        )  # fmt: skip
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    except sqlite3.DatabaseError as exc:
        console.print(
            f"[red]error:[/red] expected an Accord SQLite file or a new path; {out}: {exc}"
        )
        raise typer.Exit(2) from None
    if as_json:
        keys = ("table", "ci", "n", "by_class", "by_class_ci", "by_class_n", "by_class_pair")
        payload = {k: r[k] for k in (*keys, "reliability", "checks")}
        typer.echo(json.dumps({"games": len(r["games"]), **payload}))
        return
    t = Table(
        title=f"mean score (row) against partner (column) ± 95% t interval (n boards: a "
        f"board's games are one unit), {len(r['games'])} games"
    )
    t.add_column("agent")
    for n in names:
        t.add_column(n, justify="right")
    for n in names:
        t.add_row(n, *(_pm(r["table"][n][m], r["ci"][n][m], r["n"][n][m]) for m in names))
    console.print(t)
    c = Table(title="mean score by dependency class ± 95% t interval (n boards)")
    c.add_column("agent")
    classes = list(r["by_class"])
    for cls in classes:
        c.add_column(cls, justify="right")
    c.add_column("sent/promised", justify="right")
    for n in names:
        rel = r["reliability"][n]
        c.add_row(
            n,
            *(
                _pm(r["by_class"][cls][n], r["by_class_ci"][cls][n], r["by_class_n"][cls][n])
                for cls in classes
            ),
            "-" if rel is None else f"{rel:.2f}",
        )
    console.print(c)
    for key, value in r["checks"].items():
        console.print(f"{key}: {value}")


@app.command("serve")
def serve_cmd(
    folder: Annotated[Path, typer.Option(help="folder of the study's files")] = Path(
        "results/trails-study"
    ),
    opponent: Annotated[
        list[str],
        typer.Option(
            "--opponent",
            "-o",
            help="one condition per opponent: an agent, pkg.module:Class or 'person'",
        ),
    ] = ["purb"],  # noqa: B006
    dependency: Annotated[str, typer.Option(help="mutual, unilateral or independent")] = "mutual",
    title: Annotated[str, typer.Option(help="the study's title")] = "Colored Trails study",
    seed: Annotated[int, typer.Option(help="seed of the boards")] = 0,
    rows: Rows = 5,
    cols: Cols = 5,
    colors: Colors = 4,
    chips: ChipsOpt = 6,
    min_distance: MinDistance = 3,
    visibility: Visibility = "full",
    protocol: Protocol = "alternating",
    rounds: Rounds = None,
    host: Annotated[str, typer.Option(help="address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: a free one)")] = 8070,
    password: Annotated[str | None, typer.Option(help="experimenter password")] = None,
    sandbox: SandboxOpt = "os",
) -> None:
    """Start the study server: the experimenter makes links, people play in a browser."""
    from accord.leagues.trails.server import create_trails_app, trails_design
    from accord.web.runner import bound_socket, serve

    console = Console()
    try:
        spec, rules = _game_params(
            rows, cols, colors, chips, min_distance, visibility, protocol, rounds
        )
        design = trails_design(
            _split(opponent), dependency=dependency, title=title, seed=seed,
            visibility=visibility, board=spec, rules=rules, sandbox=sandbox,
        )  # fmt: skip
        _say_sandbox(_split(opponent), sandbox)
        sock = bound_socket(host, port)  # a taken port is refused before the study is made
        try:
            app_, study = create_trails_app(folder, design, password=password)
        except BaseException:
            sock.close()
            raise
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    except sqlite3.DatabaseError as exc:
        console.print(
            f"[red]error:[/red] expected a study folder; {folder / 'study.sqlite'}: {exc}"
        )
        raise typer.Exit(2) from None
    bound = sock.getsockname()[1]
    typer.echo(f"Colored Trails study server on http://{host}:{bound}/ (files in {folder})")
    typer.echo(f"experimenter page: http://{host}:{bound}/study/admin.html (user experimenter)")
    if study.initial_password is not None:
        typer.echo(f"experimenter password: {study.initial_password}")
    serve(app_, log_level="warning", sock=sock)


@app.command("replay")
def replay_cmd(
    source: Annotated[
        Path, typer.Argument(help="a game record (play --json) or a tournament's SQLite file")
    ],
    html_out: Annotated[Path, typer.Option("--html", help="the replay page to write")],
    game: Annotated[
        str | None, typer.Option(help="the game's id in a tournament file (mutual-0-purb-reliable)")
    ] = None,
) -> None:
    """Write a page that replays a stored agent-vs-agent game turn by turn."""
    from accord.leagues.trails.replay import load_record, replay_html

    console = Console()
    try:
        record = load_record(source, game)
        html_out.write_text(replay_html(record))
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    typer.echo(f"replay of {' vs '.join(record['agents'])} written to {html_out}")


@app.command("report")
def report_cmd(
    agents: Annotated[
        list[str], typer.Option("--agents", "-a", help="agents to compare (names)")
    ] = ["purb"],  # noqa: B006 - typer needs a literal default
    population: Annotated[
        list[str],
        typer.Option("--population", "-p", help="the PDA population (baselines as PDAs)"),
    ] = ["reliable unreliable greedy random"],  # noqa: B006
    simulated: Annotated[
        list[str],
        typer.Option("--simulated", "-s", help="the simulated people ('' for none)"),
    ] = ["sim-cooperative sim-reciprocal sim-opportunist sim-forgetful"],  # noqa: B006
    study: Annotated[
        Path | None, typer.Option(help="a study's events.csv: adds the logged people")
    ] = None,
    boards: Annotated[int, typer.Option(help="boards per dependency class")] = 5,
    seed: Annotated[int, typer.Option(help="seed of the boards")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Compare agents against populations: PDAs, simulated people and logged people."""
    from accord.leagues.trails.analysis import population_report

    console = Console()
    try:
        result = population_report(
            _split(agents),
            _split(population),
            _split(simulated),
            study=study,
            boards=boards,
            seed=seed,
        )
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(result))
        return
    for group, by_agent in result.items():
        t_ = Table(title=f"{group}")
        for c in ("agent", "games", "score ± 95% t (n)", "goal rate", "kept", "reliability"):
            t_.add_column(c, justify="left" if c == "agent" else "right")
        for agent, v in by_agent.items():
            t_.add_row(
                agent,
                str(v["games"]),
                _pm(v["score"], v["score_ci95"], v["n"]),
                *("-" if v[k] is None else str(v[k]) for k in ("goal_rate", "kept", "reliability")),
            )
        console.print(t_)


def _say_sandbox(names: list[str], sandbox: str) -> None:
    """Say (on stderr, before any game; ``--json`` stays clean) where agents named by path
    run, and what ``--sandbox process`` gives up."""
    from accord.leagues.trails.sandboxed import agent_sandbox

    entered = [n for n in names if agent_sandbox(n, sandbox)]
    if not entered:
        return  # built-ins (and --sandbox none) run in this process, as documented
    err = Console(stderr=True)
    err.print(f"sandbox: {sandbox} for {', '.join(entered)}", markup=False, highlight=False)
    if sandbox == "process":
        from accord.sandbox import PROCESS_GIVES_UP

        err.print(f"[yellow]warning:[/yellow] {PROCESS_GIVES_UP}")
