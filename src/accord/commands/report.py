"""``accord report RESULTS``: write the self-contained HTML report of a results file.

A results file that is missing or is not a SQLite file is refused in one line before
the report's heavy modules (pandas, matplotlib) are imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer()


@app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(help="tournament results file (.sqlite)")],
    out: Annotated[
        Path | None, typer.Option(help="HTML file (default: next to the results)")
    ] = None,
    trim: Annotated[float, typer.Option(help="score by a mean truncated by this much")] = 0.0,
) -> None:
    """Write a self-contained HTML report of a tournament results file."""
    from rich.console import Console
    from rich.markup import escape

    from accord.core.errors import AccordError
    from accord.tournament.resultsfile import check_results_file

    try:
        check_results_file(results)
        from accord.tournament.report import write_report

        target = write_report(results, out, trim=trim)
    except AccordError as exc:
        Console(stderr=True).print(
            f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(2) from None
    typer.echo(f"report written to {target}")
