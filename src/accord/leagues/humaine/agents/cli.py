"""Command line for HUMAINE agents: serve them, parse sentences, run fast rounds and
tournaments. Mounted by the main CLI (e.g. ``accord humaine-agents ...``).

Examples::

    python -m accord.leagues.humaine.agents.cli parse "Celia, 2 eggs for $3"
    python -m accord.leagues.humaine.agents.cli fast-round --buyer shopper --seed 4
    python -m accord.leagues.humaine.agents.cli tournament --agents strong,regex --seeds 5
    python -m accord.leagues.humaine.agents.cli serve --kind strong --name Celia
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from .buyers import BUYERS, make_buyer
from .fastmode import run_fast_round
from .language import parse_utterance
from .service import DEFAULT_PORTS, create_buyer_app, serve_agent
from .tournament import leaderboard, run_tournament, seller_factory

app = typer.Typer(help="HUMAINE seller agents, simulated buyers and fast-mode tournaments.")
console = Console()


@app.command()
def parse(text: str, json_out: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Show how the language layer reads a sentence."""
    act = parse_utterance(text)
    data = {
        "kind": act.kind.value,
        "addressee": act.addressee,
        "goods": dict(act.goods),
        "price": act.price,
        "asks_price": act.asks_price,
    }
    if json_out:
        typer.echo(json.dumps(data))
    else:
        for key, value in data.items():
            console.print(f"[bold]{key}[/bold]: {value}")


@app.command()
def serve(
    kind: str = typer.Option("strong", help="regex, strong or module:Class"),
    name: str = typer.Option("Celia", help="Celia or Watson"),
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(0, help="0: 14007 for Celia, 14008 for Watson"),
    orchestrator: str = typer.Option("", help="orchestrator base URL"),
    settings: Annotated[Path | None, typer.Option(help="appSettings.json with serviceMap")] = None,
    token: str = typer.Option("", help="secret token sent as X-Accord-Token"),
    seed: int = typer.Option(0),
) -> None:
    """Run a seller agent as an HTTP service (Appendix C)."""
    try:
        cls = seller_factory(kind)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    console.print(f"{kind} seller {name} on http://{host}:{port or DEFAULT_PORTS.get(name)}")
    serve_agent(
        lambda: cls(name, seed=seed),
        host=host,
        port=port or None,
        orchestrator=orchestrator or None,
        settings=settings,
        token=token or None,
    )


@app.command("serve-buyer")
def serve_buyer(
    strategy: str = typer.Option("fair", help=", ".join(BUYERS)),
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(7041),
    orchestrator: str = typer.Option("http://127.0.0.1:14010"),
    seed: int = typer.Option(0),
) -> None:
    """Run a simulated buyer as a human-UI service (register it as a round's humanUI)."""
    from accord.web.runner import ServerError, bound_socket, serve

    try:
        buyer = make_buyer(strategy, seed)
        sock = bound_socket(host, port)
    except (ValueError, ServerError) as e:
        raise typer.BadParameter(str(e)) from None
    serve(create_buyer_app(buyer, orchestrator), sock=sock)


@app.command("fast-round")
def fast_round(
    seller_a: str = typer.Option("strong", help="Celia's agent"),
    seller_b: str = typer.Option("regex", help="Watson's agent"),
    buyer: str = typer.Option("fair", help=", ".join(BUYERS)),
    seed: int = typer.Option(0),
    duration: float = typer.Option(300.0, help="negotiation phase, virtual seconds"),
    transcript: bool = typer.Option(True, help="print the transcript"),
    json_out: bool = typer.Option(False, "--json", help="print the whole result as JSON"),
) -> None:
    """Play one round in virtual time and print the results."""
    from ..round import Durations

    if not duration > 0:
        raise typer.BadParameter(
            f"the negotiation phase must last > 0 virtual seconds, got {duration}",
            param_hint="--duration",
        )
    try:
        a = seller_factory(seller_a)("Celia", seed=seed)
        b = seller_factory(seller_b)("Watson", seed=seed + 1)
        simulated = make_buyer(buyer, seed)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    result = run_fast_round(a, b, simulated, seed, durations=Durations(1.0, duration, 0.0))
    if json_out:
        typer.echo(json.dumps(result))
        return
    if transcript:
        for line in result["transcript"]:
            console.print(
                f"[dim]{line['t']:7.2f}[/dim] [bold]{line['speaker']}[/bold]: {line['text']}"
            )
    table = Table("party", "agent", "utility", "revenue/cost")
    for name, s in result["sellers"].items():
        table.add_row(name, s["agent"], f"{s['utility']:.2f}", f"{s['revenue']:.2f}")
    b_res = result["buyer"]
    table.add_row("Human", b_res["strategy"], f"{b_res['utility']:.2f}", f"{b_res['cost']:.2f}")
    console.print(table)


@app.command()
def tournament(
    agents: str = typer.Option("strong,regex", help="comma-separated seller entries"),
    buyers: str = typer.Option(",".join(BUYERS), help="comma-separated buyer strategies"),
    seeds: int = typer.Option(10, help="seeds 0..n-1 per pairing and buyer"),
    workers: int = typer.Option(1, help="local processes"),
    executor: Annotated[
        str | None, typer.Option(help="serial, processes or ray (default: by --workers)")
    ] = None,
    address: Annotated[str | None, typer.Option(help="Ray cluster address")] = None,
    out: Annotated[
        Path | None, typer.Option(help="SQLite results file; running again resumes it")
    ] = None,
    csv: Annotated[Path | None, typer.Option(help="write the per-round rows here")] = None,
) -> None:
    """Run a fast-mode tournament on the tournament layer and print the leaderboard."""
    try:
        rounds = run_tournament(
            [a.strip() for a in agents.split(",") if a.strip()],
            [b.strip() for b in buyers.split(",") if b.strip()],
            range(seeds),
            workers=workers,
            executor=executor,
            address=address,
            out=out,
        )
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    if csv is not None:
        rounds.to_csv(csv, index=False)
    board = leaderboard(rounds)
    table = Table(*board.columns)
    for row in board.itertuples(index=False):
        table.add_row(*(str(v) for v in row))
    console.print(table)


if __name__ == "__main__":
    app()
