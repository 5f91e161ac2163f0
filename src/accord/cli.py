"""The ``accord`` command line: the core commands plus each layer's own sub-commands.

Sub-command groups are imported lazily where they pull in heavy dependencies, so
``accord --help`` stays fast.
"""

from __future__ import annotations

import importlib

import typer

from accord.commands.negotiate import negotiate

app = typer.Typer(
    help="Accord: automated negotiation research and competitions.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.command()(negotiate)

# (module, attribute, name, help) of the sub-command groups owned by other layers.
_GROUPS = [
    ("accord.formats.cli", "app", "scenarios", "List, show and convert scenarios."),
    ("accord.leagues.scml.cli", "app", "scml", "The SCML supply-chain world."),
    ("accord.leagues.humaine.cli", "app", "humaine", "The HUMAINE human-agent platform."),
]
for module, attr, name, text in _GROUPS:
    try:
        group = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:  # that layer is not part of this build
        if exc.name != module:
            raise
        continue
    app.add_typer(group, name=name, help=text)



@app.callback()
def main() -> None:
    """Accord command line."""
