"""``accord han``: play one game, run agents against simulated participants, serve studies.

accord han play fair cooperative --game example-1
accord han play tough fair --vs-agent            # agent against agent (free text allowed)
accord han tournament fair tough ledger liar --n 2 --json
accord han serve --agents fair,tough --participants 25 --db han.sqlite
accord han serve --agents none --pairs --participants 20   # person-vs-person baselines

Each participant's agent runs in a fresh sandbox (``play``: an agent named
pkg.module:Class); ``--sandbox none`` (``--shared-process`` is its deprecated spelling in
tournament and serve) runs them in this process instead (trusted agents only).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import AccordError
from accord.sandbox.option import sandbox_callback

SHARED = (
    "deprecated: use --sandbox none. Run the agents in this process (trusted agents only, faster): each still gets a fresh "
    "instance, but class attributes and module globals carry over between games and a "
    "crashing or hanging agent takes this process with it; by default each participant's "
    "agent runs in a fresh process"
)
PLAY_NONE_GIVES_UP = (
    "runs in this process (--sandbox none): it can read the game file, both sides' "
    "values in memory and the organiser's files; trusted code only"
)
SandboxOption = Annotated[
    str,
    typer.Option(
        help="how each game's agent process is isolated: os (bubblewrap: only its own "
        "code visible, hard limits), process (a plain child process: weaker) or none "
        "(trusted agents only)",
        callback=sandbox_callback(),
    ),
]

app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)


def _not_sqlite(path: Path | None, exc: Exception) -> AccordError:
    from accord.core.errors import ConfigError

    return ConfigError(f"expected an Accord SQLite file or a new path; {path}: {exc}")


def _fail(exc: AccordError) -> typer.Exit:
    Console(stderr=True).print(f"[red]error:[/red] {exc}")
    return typer.Exit(2)


@app.command("play")
def play_cmd(
    agent: Annotated[str, typer.Argument(help="fair, tough, ledger, liar or pkg.module:Class")],
    person: Annotated[
        str,
        typer.Argument(
            help="a simulated participant (cooperative, greedy, emotional, impatient) or, with --vs-agent, an agent"
        ),
    ],
    game: Annotated[
        str, typer.Option(help="example-1, example-2 or a game file (*.json)")
    ] = "example-1",
    vs_agent: Annotated[
        bool, typer.Option("--vs-agent", help="the other side is an agent too")
    ] = False,
    seed: int = 0,
    time_limit: Annotated[
        float | None, typer.Option("--time", help="seconds (default 600)")
    ] = None,
    real_clock: Annotated[bool, typer.Option("--real-clock", help="run in real time")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    sandbox: SandboxOption = "os",
) -> None:
    """Play one game and print its history and result. An agent named pkg.module:Class
    runs in a fresh OS sandbox (it cannot read the game file or this process) unless
    --sandbox process or none; the built-in agents run in this process."""
    from accord.leagues.han.domain import domain
    from accord.leagues.han.naming import agent_class
    from accord.leagues.han.participants import PARTICIPANTS
    from accord.leagues.han.play import play
    from accord.leagues.han.scoring import csv_row, likeability_proxy

    try:
        spec = domain(game)
        if time_limit is not None:
            spec = spec.with_time(time_limit)
        _weaker_note(sandbox, False)
        a = _played(agent, sandbox)
        p = _played(person, sandbox) if vs_agent else agent_class(person, PARTICIPANTS)
        rec = play(
            spec,
            a,
            p,
            seed=seed,
            clock="real" if real_clock else "virtual",
            person_menu_only=not vs_agent,
        )
    except AccordError as exc:
        raise _fail(exc) from None
    r = rec.result
    if as_json:
        typer.echo(json.dumps({
            "outcome": r.outcome, "points": r.points, "end_time": r.end_time,
            "likeability_proxy": likeability_proxy(rec), "row": csv_row(rec, "play"),
            "violations": [v.reason for v in r.violations],
        }))  # fmt: skip
        return
    c = Console()
    if any(_isolated(x, sandbox) for x in (agent, person if vs_agent else "")):
        c.print(_sandbox_note(sandbox).replace("each game's agent", "the agent"), markup=False)
    for t, e in rec.game.history:
        c.print(f"{t:7.1f}s  {e.owner:6}  {e.describe(spec.issues)}", markup=False)
    c.print(
        f"[bold]{r.outcome}[/bold] at {r.end_time:.1f}s: agent {r.points['agent']}, person {r.points['person']}"
    )
    for v in r.violations:  # refused actions: never shown to the other side, said here
        c.print(f"violation: {v.reason}", markup=False, highlight=False)


@app.command("tournament")
def tournament_cmd(
    agents: Annotated[list[str], typer.Argument(help="agents to evaluate")],
    participants: Annotated[
        str, typer.Option(help="comma-separated simulated participants")
    ] = "cooperative,greedy,emotional,impatient",
    n: Annotated[int, typer.Option(help="games per agent, participant type and game")] = 1,
    games: Annotated[
        str, typer.Option(help="comma-separated games: example-1, example-2 or game files (*.json)")
    ] = "example-1,example-2",
    out: Annotated[Path | None, typer.Option(help="SQLite file (resumable)")] = None,
    executor: Annotated[str, typer.Option(help="serial, processes or ray")] = "serial",
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
    shared_process: Annotated[bool, typer.Option("--shared-process", help=SHARED)] = False,
    sandbox: SandboxOption = "os",
) -> None:
    """Each agent against the pool of simulated participants: points and likeability proxy.
    Each game's agent runs in a fresh OS sandbox (no state carried over, the organiser's
    game values hidden) unless --sandbox process or none."""
    from accord.leagues.han.tournament import run_tournament

    _weaker_note(sandbox, shared_process)
    try:
        res = run_tournament(
            agents, participants.split(","), n=n, games=games.split(","), out=out,
            executor=executor, shared_process=shared_process, sandbox=sandbox,
        )  # fmt: skip
    except AccordError as exc:
        raise _fail(exc) from None
    except sqlite3.DatabaseError as exc:
        raise _fail(_not_sqlite(out, exc)) from None
    mode = "none" if shared_process or sandbox == "none" else sandbox
    if as_json:
        typer.echo(json.dumps({"agents": res["agents"], "sandbox": mode}))
        return
    from accord.leagues.han.summary import shown

    t = Table("agent", "games", "points", "person points", "deals", "likeability (proxy)", "lies")
    for r in res["agents"]:
        t.add_row(
            r["agent"], str(r["games"]), shown(r, "points"), shown(r, "person_points"),
            str(r["deals"]), shown(r, "likeability"), str(r["lies"]),
        )  # fmt: skip
    Console().print(t)
    Console().print("± is the 95 % t interval over distinct games (n: identical runs count once)")
    Console().print(_sandbox_note(mode), markup=False, highlight=False)


def _isolated(name: str, sandbox: str) -> bool:
    """Whether ``han play`` runs ``name`` in a sandbox: a submitted agent (by path) unless
    ``--sandbox none``; the built-in agents are ours and run in this process."""
    from accord.core.imports import is_import_path

    return sandbox != "none" and is_import_path(name)


def _played(name: str, sandbox: str) -> Any:
    """The factory ``han play`` uses for an agent: sandboxed when :func:`_isolated`; a
    submitted agent under ``--sandbox none`` is run here, with one line saying what that
    gives up."""
    from accord.core.imports import is_import_path
    from accord.leagues.han.isolation import isolated_factory
    from accord.leagues.han.naming import agent_class

    if sandbox == "none" and is_import_path(name):
        typer.echo(f"note: {name} {PLAY_NONE_GIVES_UP}", err=True)
    if _isolated(name, sandbox):
        from accord.sandbox import require_mode

        require_mode(sandbox)  # no OS sandbox here: one line saying why
        return isolated_factory(name, mode=sandbox)
    return agent_class(name)


def _sandbox_note(mode: str) -> str:
    """The line that says where the agents ran (and, for ``process``, what it gives up)."""
    if mode == "os":
        return "sandbox: os (each game's agent in a fresh bubblewrap sandbox)"
    if mode == "process":
        from accord.sandbox import PROCESS_GIVES_UP

        return f"sandbox: process (each game's agent in a plain child process); {PROCESS_GIVES_UP}"
    return "sandbox: none (agents ran in the tournament's own processes: trusted code only)"


@app.command("serve")
def serve_cmd(
    agents: Annotated[
        str, typer.Option(help="comma-separated agents to register ('none' for pairs only)")
    ] = "fair,tough,ledger,liar",
    pairs: Annotated[
        bool,
        typer.Option(
            "--pairs", help="add the condition 'pairs': participants play each other (baselines)"
        ),
    ] = False,
    wait: Annotated[
        float, typer.Option(help="seconds a participant of 'pairs' waits for a partner")
    ] = 300.0,
    db: Annotated[Path, typer.Option(help="the study's SQLite file (resumable)")] = Path(
        "han-study.sqlite"
    ),
    participants: Annotated[
        int, typer.Option(help="links to make per condition (per agent; people for 'pairs')")
    ] = 25,
    game: Annotated[
        str, typer.Option(help="a game, or comma-separated games played in a row")
    ] = "example-1",
    time_limit: Annotated[
        float | None, typer.Option("--time", help="seconds (default 600)")
    ] = None,
    host: str = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: a free one)")] = 8040,
    shared_process: Annotated[bool, typer.Option("--shared-process", help=SHARED)] = False,
    sandbox: SandboxOption = "os",
) -> None:
    """Serve a study: each agent meets --participants fresh people (and, with --pairs,
    --participants people play each other in pairs); prints their links."""
    from accord.core.errors import ConfigError
    from accord.leagues.han.server import create_han_app
    from accord.web.runner import bound_socket, serve

    _weaker_note(sandbox, shared_process)

    try:
        if participants < 1:
            raise ConfigError(f"--participants must be at least 1; got {participants}")
        names = [a for a in agents.split(",") if a and a != "none"]
        games = [g for g in game.split(",") if g]
        sock = bound_socket(host, port)  # a taken port is refused before the study is made
        try:
            app_, study, _ = create_han_app(
                db, names, game=games, time_limit=time_limit, pairs=pairs, wait=wait,
                shared_process=shared_process, sandbox=sandbox,
            )  # fmt: skip
        except BaseException:
            sock.close()
            raise
    except AccordError as exc:
        raise _fail(exc) from None
    except sqlite3.DatabaseError as exc:
        raise _fail(_not_sqlite(db, exc)) from None
    port = int(sock.getsockname()[1])
    c = Console()
    if study.initial_password:
        c.print(f"experimenter password: {study.initial_password}")
    have = study.progress()["byStatus"]
    if sum(have.values()) == 0:
        for inv in study.invite(participants * (len(names) + pairs), label="han"):
            c.print(f"http://{host}:{port}{inv.path}")
    c.print(f"admin page: http://{host}:{port}/study/admin.html")
    serve(app_, log_level="info", sock=sock)


def _weaker_note(sandbox: str, shared_process: bool) -> None:
    """Say that ``--shared-process`` is a deprecated ``--sandbox none``, and what a
    weaker mode gives up (the stored settings record the mode too)."""
    from accord.sandbox import PROCESS_GIVES_UP
    from accord.sandbox.option import deprecated

    if shared_process:
        typer.echo(deprecated("--shared-process", "--sandbox none"), err=True)

    if sandbox == "process" and not shared_process:
        typer.echo(f"note: {PROCESS_GIVES_UP}", err=True)
