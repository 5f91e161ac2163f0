"""The ``accord`` command line: the core commands plus each layer's own sub-commands.

Sub-command groups are imported lazily where they pull in heavy dependencies, so
``accord --help`` stays fast. Importing this module changes nothing else: agents and
protocols named by import path (``accord agents check mine:MyAgent``) are found in the
working directory because :func:`accord.core.imports.import_object` puts it on
``sys.path`` when it resolves such a path, as ``python -m`` does.
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
    ("accord.agents.cli", "app", "agents", "List the built-in negotiators and check yours."),
    ("accord.leagues.scml.cli", "app", "scml", "The SCML supply-chain world."),
]


def _load(module: str, attr: str = "app") -> typer.Typer | None:
    """``module.attr``, or None when that layer is not part of this build."""
    try:
        group: typer.Typer = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return None
    return group


# ``accord tournament`` and ``accord report`` sit at the top level.
_tournament = _load("accord.tournament.cli")
if _tournament is not None:
    app.registered_commands.extend(_tournament.registered_commands)

for module, attr, name, text in _GROUPS:
    group = _load(module, attr)
    if group is not None:
        app.add_typer(group, name=name, help=text)

# HUMAINE: the platform's own commands, the competition manager's commands beside them
# (``accord humaine manager|ui|plan|set-password``) and the agents' tools as a group.
_humaine = _load("accord.leagues.humaine.cli")
if _humaine is not None:
    _manager = _load("accord.leagues.humaine.manager.cli")
    if _manager is not None:
        _humaine.registered_commands.extend(_manager.registered_commands)
    _agents = _load("accord.leagues.humaine.agents.cli")
    if _agents is not None:
        _humaine.add_typer(_agents, name="agents", help="HUMAINE sellers, buyers and fast rounds.")
    app.add_typer(_humaine, name="humaine", help="The HUMAINE human-vs-two-sellers platform.")


@app.callback()
def main() -> None:
    """Accord command line."""
