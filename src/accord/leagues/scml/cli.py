"""``accord scml``: run one world or a tournament from the command line.

accord scml run --days 50 --seed 3 --agents trader,random --report out/
accord scml tournament --track collusion --competitors trader,random --configs 2
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from accord.core.errors import ConfigError
from accord.core.imports import is_import_path
from accord.sandbox.option import SANDBOX_HELP, deprecated, sandbox_option

if TYPE_CHECKING:
    from accord.leagues.scml.world import World

app = typer.Typer(
    help="The Supply Chain Management League (SCML 2021 std/collusion).", no_args_is_help=True
)
console = Console()


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


@app.command()
def run(
    days: Annotated[int, typer.Option("--days", "-d", help="Number of simulated days.")] = 50,
    seed: Annotated[int, typer.Option(help="Seed of the world (same seed, same world).")] = 0,
    agents: Annotated[
        str, typer.Option(help="Agent types, comma separated, cycled over the factories.")
    ] = "market",
    levels: Annotated[
        str | None, typer.Option(help="Factories per process, e.g. '3,2' (default: drawn).")
    ] = None,
    report: Annotated[
        Path | None, typer.Option(help="Directory for the HTML and PNG report.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON.")] = False,
    isolation: Annotated[
        str | None,
        typer.Option(
            help="Deprecated (use --sandbox): none, or all to isolate built-in agents too."
        ),
    ] = None,
    call_timeout: Annotated[
        float, typer.Option(help="Isolated mode: seconds one call into an agent may take.")
    ] = 60.0,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP + ".")] = "os",
) -> None:
    """Simulate one world and print each factory's profit (eq. 3)."""
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.isolation import IsolatedAgent, Limits
    from accord.leagues.scml.world import AgentSpec, World

    which, sandbox = _choose(sandbox, isolation, ("none", "all"), "entrants")
    _weaker_note(sandbox, which)
    _at_least_one(days, "--days")
    _positive(call_timeout, "--call-timeout")
    _known_types(_split(agents), "--agents")
    try:
        counts = [int(x) for x in _split(levels)] if levels else None
        cfg = generate_config(n_steps=days, factories_per_level=counts, seed=seed)
        kinds = _split(agents) or ["market"]
        specs = [kinds[i % len(kinds)] for i in range(cfg.n_factories)]
        limits = Limits(call_timeout=call_timeout)
        chosen: list[AgentSpec] = [
            IsolatedAgent(k, limits, sandbox)
            if which == "all" or (which == "entrants" and is_import_path(k))
            else k
            for k in specs
        ]
        world = World(cfg, chosen, seed=seed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    with _progress() as bar:
        task = bar.add_task("days", total=days)
        world.run(callback=lambda w: bar.update(task, completed=w.day))
    scores = world.scores()
    if as_json:
        from accord.leagues.scml.report import summary

        out = {"scores": scores, "types": world.type_scores(), "summary": summary(world)}
        typer.echo(json.dumps(out, indent=2))
    else:
        table = Table(title=f"SCML world, seed {seed}, {days} days")
        for col in ("agent", "level", "balance", "profit", "bankrupt"):
            table.add_column(col, justify="right")
        bal = world.current_balances()
        for i, nm in enumerate(world.names):
            table.add_row(
                nm,
                str(int(world.level[i])),
                str(int(bal[i])),
                f"{scores[nm]:+.4f}",
                "yes" if world.ledger.bankrupt[i] else "",
            )
        console.print(table)
        _print_summary(world)
    if report is not None:
        from accord.leagues.scml.report import write_report

        for p in write_report(world, report):
            console.print(f"wrote {p}")


def _print_summary(world: World) -> None:
    """Contracts (signed ones counted as such), market figures and agent exceptions."""
    from accord.leagues.scml.report import summary

    s = summary(world)
    console.print(
        f"contracts signed {s['signed']} ({s['signed_exogenous']} exogenous, "
        f"{s['signed_negotiated']} negotiated), cancelled {s['cancelled']}, "
        f"executed {s['executed']}; negotiations requested {s['requested']}, "
        f"agreed {s['agreed']}, failed {s['failed']}"
    )
    console.print(
        f"exogenous demand met {s['demand_met']:.1%}, supply bought {s['supply_met']:.1%}; "
        f"breaches {s['breaches']}, bankruptcies {s['bankruptcies']}, "
        f"agent exceptions {s['exceptions']}"
    )
    _print_exceptions(
        [
            {"day": e.day, "agent": e.agent, "method": e.method, "message": e.message,
             "traceback": e.traceback}
            for e in world.history.exceptions
        ]
    )  # fmt: skip


def _print_exceptions(rows: list[dict[str, Any]], limit: int = 3) -> None:
    """The first exception of each (agent, message) with its traceback, up to ``limit``."""
    if not rows:
        return
    seen: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (str(r["agent"]), str(r["message"]))
        seen[key] = seen.get(key, 0) + 1
    table = Table(title="agent exceptions (first of each kind)")
    for col in ("agent", "day", "method", "message", "times"):
        table.add_column(col)
    shown: set[tuple[str, str]] = set()
    traces: list[tuple[str, str]] = []
    for r in rows:
        key = (str(r["agent"]), str(r["message"]))
        if key in shown:
            continue
        shown.add(key)
        table.add_row(key[0], str(r["day"]), str(r["method"]), key[1], str(seen[key]))
        if r.get("traceback") and len(traces) < limit:
            traces.append((key[0], str(r["traceback"])))
    console.print(table)
    for agent, trace in traces:
        console.print(f"[bold]traceback of {agent}:[/bold]")
        console.print(trace.rstrip(), markup=False, highlight=False)


@app.command()
def tournament(
    track: Annotated[str, typer.Option(help="std or collusion.")] = "std",
    competitors: Annotated[str, typer.Option(help="Competing agent types, comma separated.")] = (
        "trader,random,donothing"
    ),
    non_competitors: Annotated[
        str, typer.Option(help="Default agents filling the other factories.")
    ] = "market",
    configs: Annotated[int, typer.Option(help="Basic configurations.")] = 2,
    reps: Annotated[int, typer.Option(help="K: repetitions of each assigned configuration.")] = 1,
    per_world: Annotated[int | None, typer.Option(help="M: competitor types per world.")] = None,
    days: Annotated[int, typer.Option(help="Days per world.")] = 50,
    trim_top: Annotated[
        float, typer.Option(help="Drop this many (>=1) or this fraction (<1) of top scores.")
    ] = 0,
    trim_bottom: Annotated[float, typer.Option(help="Same for the bottom scores.")] = 0,
    executor: Annotated[str, typer.Option(help="serial, processes or ray.")] = "processes",
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    address: Annotated[str | None, typer.Option(help="Ray cluster address.")] = None,
    out: Annotated[Path, typer.Option(help="SQLite file (resumes if it exists).")] = Path(
        "results/scml_tournament.sqlite"
    ),
    seed: Annotated[int, typer.Option(help="Tournament seed.")] = 0,
    isolation: Annotated[
        str | None,
        typer.Option(
            help="Deprecated (use --sandbox): which agents run isolated: all (what "
            "--sandbox os and process do: built-ins too), competitors or none."
        ),
    ] = None,
    call_timeout: Annotated[
        float, typer.Option(help="Isolated mode: seconds one call into an agent may take.")
    ] = 60.0,
    cpu_seconds: Annotated[
        float, typer.Option(help="Isolated mode: CPU seconds per agent per world.")
    ] = 600.0,
    memory_mb: Annotated[
        int, typer.Option(help="Isolated mode: megabytes an agent may allocate.")
    ] = 2048,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP + ".")] = "os",
) -> None:
    """Run (or resume) a tournament and print the scores per competitor."""
    from accord.leagues.scml.isolation import Limits
    from accord.leagues.scml.runner import run_tournament
    from accord.leagues.scml.tournament import TournamentSpec

    for value, option in ((days, "--days"), (configs, "--configs"), (reps, "--reps")):
        _at_least_one(value, option)
    if workers is not None:
        _at_least_one(workers, "--workers")
    isolation, sandbox = _choose(sandbox, isolation, ("all", "competitors", "none"), "all")
    _weaker_note(sandbox, isolation)
    for amount, option in (
        (call_timeout, "--call-timeout"),
        (cpu_seconds, "--cpu-seconds"),
        (memory_mb, "--memory-mb"),
    ):
        _positive(amount, option)

    def trim(v: float) -> float | int:
        return int(v) if v >= 1 else v

    non = _split(non_competitors)
    comps = _split(competitors)
    _known_types([*comps, *non], "--competitors/--non-competitors")
    if track == "collusion" and non == ["market"] and "market" in comps:
        non = ["trader"] if "trader" not in comps else ["donothing"]
    try:
        spec = TournamentSpec(
            comps,
            track=track,  # type: ignore[arg-type]  # TournamentSpec checks it
            n_configs=configs,
            n_repetitions=reps,
            n_per_world=per_world,
            n_steps=days,
            non_competitors=non,
            trim_top=trim(trim_top),
            trim_bottom=trim(trim_bottom),
            seed=seed,
            isolation=isolation,  # type: ignore[arg-type]  # TournamentSpec checks it
            limits=Limits(cpu_seconds=cpu_seconds, memory_mb=memory_mb, call_timeout=call_timeout),
            sandbox=sandbox,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    with _progress() as bar:
        task = bar.add_task(f"{track} worlds", total=None)
        res = run_tournament(
            spec,
            out,
            executor=executor,
            workers=workers,
            address=address,
            progress=lambda d, t: bar.update(task, completed=d, total=t),
        )
    isolated = sum(1 for w in res.worlds if w["run"].kind == "isolated")
    ran = f"{len(res.worlds)} worlds run" + (
        f" ({len(res.worlds) - isolated} with the competitors, {isolated} isolated)"
        if isolated
        else ""
    )
    table = Table(title=f"SCML {track} tournament: {ran}", caption=_score_caption(track, spec))
    cols = ["rank", "agent type", "score", "mean profit", "worlds played"]
    if track == "collusion":
        cols += ["isolated mean"]
    for col in cols:
        table.add_column(col, justify="right")
    ranked = sorted(res.scores.items(), key=lambda kv: -kv[1]["score"])
    for rank, (t, row) in enumerate(ranked, start=1):
        cells = [str(rank), t, f"{row['score']:+.4f}", f"{row['mean']:+.4f}", str(int(row["n"]))]
        if track == "collusion":
            cells.append(f"{row['isolated_mean']:+.4f}")
        table.add_row(*cells)
    console.print(table)
    failures = [e for w in res.worlds for e in w.get("agent_exceptions", [])]
    n_exc = sum(int(w.get("exceptions", 0)) for w in res.worlds)
    if n_exc:
        console.print(f"agent exceptions: {n_exc} in {len(res.worlds)} worlds")
        _print_exceptions([{**e, "agent": f"{e['type']} ({e['agent']})"} for e in failures])


def _score_caption(track: str, spec: Any) -> str:
    """What the SCML tournament table's score is, in words."""
    trim = ""
    if spec.trim_top or spec.trim_bottom:
        trim = f", after dropping the top {spec.trim_top} and bottom {spec.trim_bottom}"
    if track == "collusion":
        return (
            "Ranked by score: the mean, over the worlds it played"
            f"{trim}, of (its profit with its copies - its mean profit in the isolated "
            "worlds of the same configuration). mean profit: plain mean; worlds played: "
            "worlds in which this type ran factories."
        )
    return (
        f"Ranked by score: the mean profit (eq. 3) of this type's factories over the worlds "
        f"it played{trim}. worlds played: worlds in which this type ran a factory."
    )


def _known_types(names: list[str], option: str) -> None:
    """One line and exit 2 on an agent type that does not load, before any work (no
    world is run and no results file is created)."""
    from rich.markup import escape

    from accord.core.errors import ConfigError
    from accord.leagues.scml.registry import load_agent_type

    for name in names:
        try:
            load_agent_type(name)
        except ConfigError as exc:
            Console(stderr=True).print(
                f"[red]error:[/red] {option}: {escape(str(exc))}", soft_wrap=True, highlight=False
            )
            raise typer.Exit(2) from None


def _at_least_one(value: int, option: str) -> None:
    if value < 1:
        raise typer.BadParameter(f"must be at least 1, got {value}", param_hint=option)


def _positive(value: float, option: str) -> None:
    if not value > 0:
        raise typer.BadParameter(f"must be more than 0, got {value}", param_hint=option)


def _one_of(value: str, allowed: tuple[str, ...], option: str) -> None:
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise typer.BadParameter(f"must be one of {choices}, got {value!r}", param_hint=option)


def _choose(
    sandbox: str, isolation: str | None, allowed: tuple[str, ...], default: str
) -> tuple[str, str]:
    """``(which agents run isolated, how)`` from ``--sandbox os|process|none`` and the
    deprecated ``--isolation`` (one line; it still says which agents); ``none`` runs
    every agent in this process."""
    try:
        mode = sandbox_option(sandbox)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--sandbox") from None
    which = default
    if isolation is not None:
        typer.echo(deprecated("--isolation", "--sandbox os, process or none"), err=True)
        _one_of(isolation, allowed, "--isolation")
        which = isolation
    if mode == "none":
        return "none", "os"
    return which, mode


def _weaker_note(sandbox: str, isolation: str) -> None:
    """Say what ``--sandbox process`` gives up (the stored spec records the mode too)."""
    if sandbox == "process" and isolation != "none":
        from accord.sandbox import PROCESS_GIVES_UP

        typer.echo(f"note: {PROCESS_GIVES_UP}", err=True)
