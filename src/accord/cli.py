"""The ``accord`` command line."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Accord: automated negotiation research and competitions.", no_args_is_help=True
)


@app.callback()
def main() -> None:
    """Accord command line."""
