"""``accord trails``: play one Colored Trails game, run a tournament, serve games to people.

accord trails play --agents purb reliable --dependency mutual --seed 3
accord trails tournament --boards 10 --json
accord trails serve --opponent purb --opponent person
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

_ALL = ["purb", "reliable", "unreliable", "greedy", "random"]


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
    as_json: Annotated[bool, typer.Option("--json", help="print the game as JSON")] = False,
) -> None:
    """Play one game between two agents and print the turns and the scores."""
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import play
    from accord.leagues.trails.rules import chips_to_letters

    console = Console()
    names = _split(agents)
    try:
        if len(names) != 2:
            raise typer.BadParameter(
                f"expected 2 agents, got {len(names)}: {names}", param_hint="--agents"
            )
        setup = generate(dependency, board)
        r = play(setup, names, seed=seed)
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
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
            f"{chips_to_letters(h['give'])} / {chips_to_letters(h['take'])}"
            if h["give"] is not None
            else "-"
        )
        t.add_row(
            str(h["turn"]),
            names[h["proposer"]],
            prop,
            "yes" if h["accepted"] else "no",
            " | ".join(chips_to_letters(p) or "-" for p in h["promised"]),
            " | ".join(chips_to_letters(p) or "-" for p in h["sent"]),
            " | ".join(str(m) for m in h["moved"]),
        )
    console.print(t)
    console.print(
        f"ended by [bold]{r['end']}[/bold] after {r['turns']} turns; scores "
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
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Every ordered pair of agents on every board of the three dependency classes."""
    from accord.leagues.trails.tournament import run_tournament

    console = Console()
    names = _split(agents)
    try:
        r = run_tournament(
            names, boards=boards, seed=seed, out=out, executor=executor, workers=workers
        )
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if as_json:
        keys = ("table", "ci", "by_class", "by_class_ci", "by_class_pair", "reliability", "checks")
        typer.echo(json.dumps({k: r[k] for k in keys}))
        return
    t = Table(
        title=f"mean score (row) against partner (column) ± 95% interval, {len(r['games'])} games"
    )
    t.add_column("agent")
    for n in names:
        t.add_column(n, justify="right")
    for n in names:
        t.add_row(n, *(f"{r['table'][n][m]:.1f} ± {r['ci'][n][m]:.1f}" for m in names))
    console.print(t)
    c = Table(title="mean score by dependency class ± 95% interval")
    c.add_column("agent")
    classes = list(r["by_class"])
    for cls in classes:
        c.add_column(cls, justify="right")
    c.add_column("sent/promised", justify="right")
    for n in names:
        rel = r["reliability"][n]
        c.add_row(
            n,
            *(f"{r['by_class'][cls][n]:.1f} ± {r['by_class_ci'][cls][n]:.1f}" for cls in classes),
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
        typer.Option("--opponent", "-o", help="one condition per opponent: an agent or 'person'"),
    ] = ["purb"],  # noqa: B006
    dependency: Annotated[str, typer.Option(help="mutual, unilateral or independent")] = "mutual",
    title: Annotated[str, typer.Option(help="the study's title")] = "Colored Trails study",
    seed: Annotated[int, typer.Option(help="seed of the boards")] = 0,
    host: Annotated[str, typer.Option(help="address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: a free one)")] = 8070,
    password: Annotated[str | None, typer.Option(help="experimenter password")] = None,
) -> None:
    """Start the study server: the experimenter makes links, people play in a browser."""
    import uvicorn

    from accord.leagues.trails.server import create_trails_app, trails_design
    from accord.web.runner import bound_socket

    console = Console()
    try:
        design = trails_design(_split(opponent), dependency=dependency, title=title, seed=seed)
        app_, study = create_trails_app(folder, design, password=password)
        sock = bound_socket(host, port)  # a taken port is a clear error
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    bound = sock.getsockname()[1]
    typer.echo(f"Colored Trails study server on http://{host}:{bound}/ (files in {folder})")
    typer.echo(f"experimenter page: http://{host}:{bound}/study/admin.html (user experimenter)")
    if study.initial_password is not None:
        typer.echo(f"experimenter password: {study.initial_password}")
    uvicorn.Server(uvicorn.Config(app_, log_level="warning")).run(sockets=[sock])


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
        for c in ("agent", "games", "score", "goal rate", "kept", "reliability"):
            t_.add_column(c, justify="left" if c == "agent" else "right")
        for agent, v in by_agent.items():
            t_.add_row(
                agent, *(str(v[k]) for k in ("games", "score", "goal_rate", "kept", "reliability"))
            )
        console.print(t_)
