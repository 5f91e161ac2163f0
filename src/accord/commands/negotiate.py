"""``accord negotiate``: run one session on a scenario and show what happened.

accord negotiate lunch --agents boulware conceder --rounds 50 --plot lunch.png
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from accord.core import AccordError, Deadline, make_session


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
    rounds: Annotated[int, typer.Option(help="deadline in rounds")] = 100,
    seconds: Annotated[float | None, typer.Option(help="deadline in seconds")] = None,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    protocol: Annotated[
        str, typer.Option(help="protocol: aop (default), ultimatum, ... or pkg.mod:Class")
    ] = "aop",
    plot: Annotated[Path | None, typer.Option(help="write the utility-space plot here")] = None,
    trace: Annotated[bool, typer.Option(help="print every action")] = False,
) -> None:
    """Run one negotiation session and print its trace summary, agreement and quality."""
    from accord.agents.registry import get_agent
    from accord.core.analysis import analyze, session_metrics
    from accord.formats import load_scenario

    console = Console()
    names = [a for item in agents for a in item.split()]
    try:
        sc = load_scenario(scenario)
        if len(names) != sc.n_parties:
            raise typer.BadParameter(
                f"scenario {sc.name!r} has {sc.n_parties} parties "
                f"({', '.join(sc.profile_names)}); got {len(names)} agents: {names}",
                param_hint="--agents",
            )
        negotiators = [get_agent(n) for n in names]
        session = make_session(
            protocol,
            sc.space,
            negotiators,
            sc.utilities,
            Deadline(rounds=rounds, seconds=seconds),
            seed=seed,
        )
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    result = session.run()
    analysis = analyze(sc)
    metrics = session_metrics(result, sc, analysis)

    console.print(
        f"[bold]{sc.name}[/bold]: {sc.space.cardinality} outcomes, "
        f"{sc.n_parties} parties, deadline {rounds} rounds"
        + (f" / {seconds} s" if seconds else "")
        + f", protocol {session.info.id}"
    )
    if trace:
        for e in result.trace:
            shown = "" if e.outcome is None else str(sc.space.to_dict(e.outcome))
            console.print(
                f"  step {e.step:>4} t={e.time:.3f} {result.names[e.party]:>14} "
                f"{e.action.value:<6} {shown}"
            )
    offers = sum(1 for e in result.trace if e.action.value == "offer")
    console.print(
        f"ended by [bold]{result.reason.value}[/bold] after {result.steps} steps "
        f"({result.rounds} rounds, t={result.time:.3f}, {offers} offers, "
        f"{result.elapsed * 1000:.1f} ms)"
    )
    if result.failure is not None:
        f = result.failure
        console.print(f"[red]failure of {f.name}[/red] ({f.kind.value}): {f.message}")
    if result.agreement is not None:
        console.print(f"agreement: {sc.space.to_dict(result.agreement)}")
    else:
        console.print("no agreement: every party gets its reservation value")

    table = Table(title="utilities")
    table.add_column("party")
    table.add_column("profile")
    table.add_column("utility", justify="right")
    table.add_column("reservation", justify="right")
    for k, name in enumerate(result.names):
        table.add_row(
            name,
            sc.profile_names[k],
            f"{result.utilities[k]:.4f}",
            f"{sc.utilities[k].reservation:.4f}",
        )
    console.print(table)
    console.print(
        f"social welfare {metrics.welfare:.4f} | Nash product {metrics.nash_product:.4f} | "
        f"distance to Pareto {metrics.pareto_distance:.4f} | distance to Nash "
        + ("n/a" if metrics.nash_distance is None else f"{metrics.nash_distance:.4f}")
        + (" | Pareto-optimal" if metrics.pareto_optimal else "")
    )
    if plot is not None:
        if sc.n_parties != 2:
            console.print("[yellow]--plot draws bilateral sessions only; skipped[/yellow]")
        else:
            from accord.plots import save, session_figure

            path = save(session_figure(sc, result, analysis), plot)
            console.print(f"plot written to {path}")
