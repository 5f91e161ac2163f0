"""``accord negotiate``: run one session on a scenario and show what happened.

accord negotiate lunch --agents boulware conceder --rounds 50 --plot lunch.png

Only typer is imported at module level: the core, the agents and matplotlib load when
the command runs, so ``accord --help`` stays fast.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from accord.core.analysis import ScenarioAnalysis
    from accord.core.protocols import SessionResult
    from accord.core.scenario import Scenario


def negotiate(
    scenario: Annotated[str, typer.Argument(help="bundled scenario name, scenario file or folder")],
    agents: Annotated[
        list[str],
        typer.Option(
            "--agents",
            "-a",
            help="one agent per party, by short name or package.module:Class "
            "(repeat the option or separate by spaces)",
        ),
    ],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="agent parameter key=value (YAML value), given to every agent that takes "
            "it; N:key=value gives it to party N only (from 1)",
        ),
    ] = None,
    rounds: Annotated[int, typer.Option(help="deadline in rounds")] = 100,
    seconds: Annotated[float | None, typer.Option(help="deadline in seconds")] = None,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    protocol: Annotated[
        str, typer.Option(help="protocol: aop (default), ultimatum, ... or pkg.mod:Class")
    ] = "aop",
    profiles: Annotated[
        str | None,
        typer.Option(help="the profiles that negotiate, comma-separated (e.g. Itex,Cypress)"),
    ] = None,
    discretize: Annotated[
        int | None,
        typer.Option(
            help="grid values per real (or huge integer) issue; default 10 when needed, "
            "0 keeps real issues"
        ),
    ] = None,
    plot: Annotated[
        Path | None, typer.Option(help="write the utility-space plot here (.png, .svg, .pdf)")
    ] = None,
    timeline: Annotated[
        Path | None, typer.Option(help="write the offers-over-time plot here")
    ] = None,
    trace: Annotated[
        bool, typer.Option(help="print every action with every party's utility")
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="print one JSON document with the result only")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="print only the agreement (or 'none')")
    ] = False,
) -> None:
    """Run one negotiation session and print its trace summary, agreement and quality."""
    from rich.console import Console
    from rich.markup import escape

    from accord.agents.registry import get_agent
    from accord.core import AccordError, ConfigError, Deadline, make_session
    from accord.core.analysis import analyze, session_metrics

    console = Console(quiet=quiet or json_out, highlight=False)
    names = [a for item in agents for a in item.split()]
    try:
        if rounds < 1:
            raise ConfigError(f"--rounds must be at least 1, got {rounds}")
        if seconds is not None and not seconds > 0:
            raise ConfigError(f"--seconds must be > 0, got {seconds}")
        for option, p in (("--plot", plot), ("--timeline", timeline)):
            if p is not None and p.suffix.lower() not in (".png", ".svg", ".pdf"):
                raise ConfigError(f"{option} must end in .png, .svg or .pdf; got {p.name!r}")
        sc, notes = load_for_session(scenario, profiles, discretize)
        if len(names) != sc.n_parties:
            more = (
                "; choose the profiles that negotiate with --profiles" if sc.n_parties > 2 else ""
            )
            raise ConfigError(
                f"--agents: scenario {sc.name!r} has {sc.n_parties} parties "
                f"({', '.join(sc.profile_names)}); got {len(names)} agents: {names}{more}"
            )
        per_agent = agent_params(names, param or [])
        negotiators = [get_agent(n, **kw) for n, kw in zip(names, per_agent, strict=True)]
        session = make_session(
            protocol,
            sc.space,
            negotiators,
            sc.utilities,
            Deadline(rounds=rounds, seconds=seconds),
            seed=seed,
        )
    except AccordError as exc:
        Console(stderr=True).print(
            f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(2) from exc
    for note in notes:
        console.print(f"note: {escape(note)}", soft_wrap=True)
    result = session.run()
    analysis = analyze(sc)
    if analysis.note is not None:
        notes.append(analysis.note)
        console.print(f"note: {escape(analysis.note)}", soft_wrap=True)
    metrics = session_metrics(result, sc, analysis)

    if json_out:
        typer.echo(json.dumps(result_document(sc, result, metrics, notes, trace), indent=1))
    elif quiet:
        agreed = result.agreement
        typer.echo("none" if agreed is None else json.dumps(sc.space.to_dict(agreed)))
    else:
        show(
            console,
            sc,
            result,
            metrics,
            f"{rounds} rounds"
            + (f" / {seconds} s" if seconds else "")
            + f", protocol {session.info.id}",
            trace,
        )
    draw(console, sc, result, analysis, plot, timeline)


def agent_params(names: list[str], items: list[str]) -> list[dict[str, Any]]:
    """The constructor parameters of each agent from ``-p`` items.

    ``key=value`` goes to every agent whose constructor takes ``key`` (an error if none
    does); ``N:key=value`` to party ``N`` (from 1) only.

        >>> agent_params(["boulware", "conceder"], ["2:exponent=3"])
        [{}, {'exponent': 3}]
        >>> agent_params(["boulware", "lunchbox"], [])
        [{}, {}]
    """
    import inspect
    import re

    from accord.agents.cli import parse_params
    from accord.agents.registry import resolve_agent
    from accord.core.errors import ConfigError

    out: list[dict[str, Any]] = [{} for _ in names]
    for item in items:
        m = re.match(r"^\s*(\d+):(.*)$", item)
        body = m.group(2) if m else item
        ((key, value),) = parse_params([body]).items()
        if m:
            k = int(m.group(1))
            if not 1 <= k <= len(names):
                raise ConfigError(f"-p {item!r}: party {k} does not exist (1..{len(names)})")
            out[k - 1][key] = value
            continue
        takers = [j for j, n in enumerate(names) if _takes(inspect, resolve_agent(n), key)]
        if not takers:
            raise ConfigError(
                f"-p {item!r}: no agent takes a parameter {key!r} ({', '.join(names)}); "
                "give it to one party as N:key=value only if that agent takes it"
            )
        for j in takers:
            out[j][key] = value
    return out


def _takes(inspect: Any, factory: Any, key: str) -> bool:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return key in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def load_for_session(
    source: str, profiles: str | None, discretize: int | None
) -> tuple[Scenario, list[str]]:
    """The scenario with the chosen profiles, discretised if it cannot be enumerated."""
    from accord.core.errors import ConfigError
    from accord.core.finder import huge_space_note
    from accord.formats import load_scenario
    from accord.formats.discretize import (
        DEFAULT_LEVELS,
        discretization_note,
        discretize_scenario,
        needs_discretization,
    )

    chosen = None if profiles is None else [p for p in profiles.split(",") if p.strip()]
    sc = load_scenario(source, profiles=chosen)
    levels = DEFAULT_LEVELS if discretize is None else discretize
    if levels == 1 or levels < 0:
        raise ConfigError(f"--discretize must be 0 (keep real issues) or >= 2, got {levels}")
    notes: list[str] = []
    if levels and needs_discretization(sc.space):
        done = discretize_scenario(sc, levels)
        note = discretization_note(sc, done)
        if note is not None:
            notes.append(f"{note} (change with --discretize N)")
        sc = done
    big = huge_space_note(sc.utilities)
    return sc, notes + ([] if big is None else [big])


def result_document(
    sc: Scenario, result: SessionResult, metrics: Any, notes: list[str], trace: bool
) -> dict[str, Any]:
    """What ``--json`` prints."""
    agreed = result.agreement
    discounted = any(u.discount is not None for u in sc.utilities)
    undiscounted = metrics.outcome_utilities  # the agreement's (or reservations) at t = 0
    names = list(result.names)
    doc: dict[str, Any] = {
        "scenario": sc.name,
        "agents": names,
        "profiles": list(sc.profile_names),
        "reason": result.reason.value,
        "agreement": None if agreed is None else sc.space.to_dict(agreed),
        "discounted": discounted,
        "discounts": [u.discount for u in sc.utilities],
        "utilities_discounted": dict(zip(names, map(float, result.utilities), strict=True)),
        "utilities_undiscounted": dict(zip(names, map(float, undiscounted), strict=True)),
        "reservations_undiscounted": [float(u.reservation) for u in sc.utilities],
        "steps": result.steps,
        "rounds": result.rounds,
        "time": result.time,
        "failure": None
        if result.failure is None
        else {
            "agent": result.failure.name,
            "kind": result.failure.kind.value,
            "message": result.failure.message,
        },
        "welfare_discounted": metrics.welfare,
        "welfare_undiscounted": float(math.fsum(undiscounted)),
        "nash_product_discounted": metrics.nash_product,
        "nash_product_undiscounted": float(math.prod(undiscounted)),
        "pareto_distance_undiscounted": metrics.pareto_distance,
        "nash_distance_undiscounted": metrics.nash_distance,
        "pareto_optimal_undiscounted": bool(metrics.pareto_optimal),
        "below_reservation": below_reservation(sc, result),
        "notes": notes,
    }
    if trace:
        doc["trace"] = [
            {
                "step": e.step,
                "time": e.time,
                "agent": result.names[e.party],
                "action": e.action.value,
                "offer": None if e.outcome is None else sc.space.to_dict(e.outcome),
                "utilities_undiscounted": None
                if e.outcome is None
                else [float(u(e.outcome)) for u in sc.utilities],
            }
            for e in result.trace
        ]
    return doc


def show(
    console: Console,
    sc: Scenario,
    result: SessionResult,
    metrics: Any,
    deadline: str,
    trace: bool,
) -> None:
    """The human-readable report of one session."""
    from rich.markup import escape
    from rich.table import Table

    console.print(
        f"[bold]{escape(sc.name)}[/bold]: {sc.space.cardinality} outcomes, "
        f"{sc.n_parties} parties, deadline {deadline}"
    )
    if trace:
        console.print(
            "  utilities are undiscounted, in party order: "
            + ", ".join(f"{n} ({p})" for n, p in zip(result.names, sc.profile_names, strict=True))
        )
        for e in result.trace:
            shown = ""
            if e.outcome is not None:
                us = " ".join(f"{u(e.outcome):.3f}" for u in sc.utilities)
                shown = escape(f"u=[{us}] {sc.space.to_dict(e.outcome)}")
            console.print(
                f"  step {e.step:>4} t={e.time:.3f} {result.names[e.party]:>14} "
                f"{e.action.value:<6} {shown}",
                soft_wrap=True,
            )
    offers = sum(1 for e in result.trace if e.action.value == "offer")
    console.print(
        f"ended by [bold]{result.reason.value}[/bold] after {result.steps} steps "
        f"({result.rounds} rounds, t={result.time:.3f}, {offers} offers, "
        f"{result.elapsed * 1000:.1f} ms)"
    )
    if result.failure is not None:
        f = result.failure
        console.print(
            f"[red]failure of {escape(f.name)}[/red] ({f.kind.value}): {escape(f.message)}",
            soft_wrap=True,
        )
    if result.agreement is not None:
        console.print(
            f"agreement: {escape(str(sc.space.to_dict(result.agreement)))}", soft_wrap=True
        )
    else:
        console.print("no agreement: every party gets its reservation value")

    discounted = any(u.discount is not None for u in sc.utilities)
    table = Table(
        title="utilities"
        + (f" (discounted to t={result.time:.3f})" if discounted else " (no discount)")
        + "; reservation values undiscounted"
    )
    table.add_column("party")
    table.add_column("profile")
    table.add_column(
        "utility (discounted)" if discounted else "utility (undiscounted)", justify="right"
    )
    if discounted:
        table.add_column("undiscounted", justify="right")
    table.add_column("reservation", justify="right")
    for k, name in enumerate(result.names):
        u = sc.utilities[k]
        row = [name, sc.profile_names[k], f"{result.utilities[k]:.4f}"]
        if discounted:
            agreed = result.agreement
            row.append("-" if agreed is None else f"{u(agreed):.4f}")
        row.append(f"{u.reservation:.4f}")
        table.add_row(*row)
    console.print(table)
    und = metrics.outcome_utilities
    figures = (
        f"social welfare {math.fsum(und):.4f} | Nash product {math.prod(und):.4f} | "
        f"distance to Pareto {metrics.pareto_distance:.4f} | distance to Nash "
        + ("n/a" if metrics.nash_distance is None else f"{metrics.nash_distance:.4f}")
        + (" | Pareto-optimal" if metrics.pareto_optimal else "")
    )
    console.print(f"undiscounted: {figures}")
    if discounted:
        console.print(
            f"discounted to t={result.time:.3f}: social welfare {metrics.welfare:.4f} | "
            f"Nash product {metrics.nash_product:.4f}"
        )
    below = below_reservation(sc, result)
    if below:
        console.print(
            "[yellow]agreed below its own reservation value:[/yellow] "
            + escape(", ".join(below))
            + " (it would have done better without an agreement)",
            soft_wrap=True,
        )


def below_reservation(sc: Scenario, result: SessionResult) -> list[str]:
    """The parties whose (discounted) utility of the agreement is below their own
    (equally discounted) reservation value: agreeing was irrational for them."""
    if result.agreement is None:
        return []
    return [
        name
        for name, u, got in zip(result.names, sc.utilities, result.utilities, strict=True)
        if got < u.reservation_at(result.time) - 1e-12
    ]


def draw(
    console: Console,
    sc: Scenario,
    result: SessionResult,
    analysis: ScenarioAnalysis,
    plot: Path | None,
    timeline: Path | None,
) -> None:
    """Write the requested figures (any number of parties)."""
    if plot is None and timeline is None:
        return
    from accord.plots import SessionTrace, save, session_figure, timeline_figure

    if plot is not None:
        path = save(session_figure(sc, result, analysis), plot)
        console.print(f"plot written to {path}", soft_wrap=True)
    if timeline is not None:
        path = save(timeline_figure(SessionTrace.of(sc, result)), timeline)
        console.print(f"offers-over-time plot written to {path}", soft_wrap=True)
