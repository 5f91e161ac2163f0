"""The ``accord`` command line: the core commands plus each layer's own sub-commands.

Every command but ``negotiate`` is loaded only when it runs (or when its own ``--help`` is
asked for): ``accord --help`` lists them from the names and help texts below without
importing their modules, so start-up costs typer and rich, not pandas, scipy, matplotlib
or the web stack. Importing this module changes nothing else: agents and protocols named
by import path (``accord agents check mine:MyAgent``) are found in the working directory
because :func:`accord.core.imports.import_object` puts it on ``sys.path`` when it
resolves such a path, as ``python -m`` does.

    >>> from typer.testing import CliRunner
    >>> CliRunner().invoke(app, ["--version"]).output.startswith("accord ")
    True
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from accord.commands.negotiate import negotiate

# (module, attribute, name, help) of the sub-command groups owned by other layers.
_GROUPS = [
    ("accord.formats.cli", "app", "scenarios", "List, show and convert scenarios."),
    ("accord.agents.cli", "app", "agents", "List the built-in negotiators and check yours."),
    ("accord.leagues.scml.cli", "app", "scml", "The SCML supply-chain world."),
    ("accord.leagues.genius.cli", "app", "genius", "People versus agents, GENIUS style."),
    ("accord.leagues.han.cli", "app", "han", "Human-agent negotiation, IAGO style (ANAC 2017)."),
    (
        "accord.leagues.trails.cli",
        "app",
        "trails",
        "Colored Trails: non-binding chip trades, PURB.",
    ),
    ("accord.leagues.diplomacy.cli", "app", "diplomacy", "The ANAC 2017 Diplomacy league."),
]

# Top-level commands that live in another layer: name -> (module, help).
_COMMANDS = {
    "tournament": (
        "accord.tournament.cli",
        "Run (or resume) a tournament, then print the leaderboards.",
    ),
    "report": ("accord.commands.report", "Write a self-contained HTML report of a results file."),
    "play": ("accord.commands.play", "Play a protocol in the browser against a built-in agent."),
}

_HUMAINE = ("accord.leagues.humaine.cli", "humaine", "The HUMAINE human-vs-two-sellers platform.")


def _present(module: str) -> bool:
    """True if ``module`` is part of this build (checked on disk: importing costs time)."""
    base = Path(__file__).parent.parent
    rel = Path(*module.split("."))
    return (base / rel).with_suffix(".py").is_file() or (base / rel / "__init__.py").is_file()


# A command object of typer's (typer vendors click; its classes are not public API).
Command = Any


def _member(wrapper: typer.Typer, name: str) -> Command:
    group = typer.main.get_command(wrapper)
    if not isinstance(group, TyperGroup):  # a module with one command (accord play)
        return group
    return group.commands[name]


def _as_group(sub: typer.Typer, name: str, text: str) -> Command:
    wrapper = typer.Typer()
    wrapper.add_typer(sub, name=name, help=text)
    return _member(wrapper, name)


def _load_command(module: str, name: str) -> Command:
    # no completion options of its own: a one-command wrapper would list them in its --help
    wrapper = typer.Typer(add_completion=False)
    wrapper.registered_commands.extend(importlib.import_module(module).app.registered_commands)
    return _member(wrapper, name)


def _load_group(module: str, attr: str, name: str, text: str) -> Command:
    return _as_group(getattr(importlib.import_module(module), attr), name, text)


def _load_humaine() -> Command:
    # The platform's own commands, the competition manager's beside them
    # (``accord humaine manager|ui|plan|set-password``) and the agents' tools as a group.
    humaine: typer.Typer = importlib.import_module(_HUMAINE[0]).app
    if _present("accord.leagues.humaine.manager.cli"):
        manager = importlib.import_module("accord.leagues.humaine.manager.cli").app
        humaine.registered_commands.extend(
            c for c in manager.registered_commands if c not in humaine.registered_commands
        )
    if _present("accord.leagues.humaine.agents.cli") and not any(
        g.name == "agents" for g in humaine.registered_groups
    ):
        agents = importlib.import_module("accord.leagues.humaine.agents.cli").app
        humaine.add_typer(agents, name="agents", help="HUMAINE sellers, buyers and fast rounds.")
    return _as_group(humaine, _HUMAINE[1], _HUMAINE[2])


def _lazy_table() -> dict[str, tuple[str, Callable[[], Command]]]:
    """name -> (help, loader) for every command of this build that is loaded on demand."""
    table: dict[str, tuple[str, Callable[[], Command]]] = {}
    for name, (module, text) in _COMMANDS.items():
        if _present(module):
            table[name] = (text, functools.partial(_load_command, module, name))
    for module, attr, name, text in _GROUPS:
        if _present(module):
            table[name] = (text, functools.partial(_load_group, module, attr, name, text))
    if _present(_HUMAINE[0]):
        table[_HUMAINE[1]] = (_HUMAINE[2], _load_humaine)
    return table


class LazyGroup(TyperGroup):
    """A typer group whose sub-commands are imported when they are resolved.

    Listing (``accord --help``) shows a stand-in built from the name and help text;
    running a command or asking for its own help loads the real one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = _lazy_table()

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        return names + [n for n in self.lazy if n not in names]

    def load(self, name: str) -> Command | None:
        """The real command ``name`` (imported now if it is lazy and not yet loaded)."""
        if name not in self.commands and name in self.lazy:
            self.commands[name] = self.lazy[name][1]()
        return self.commands.get(name)

    def get_command(self, ctx: Any, cmd_name: str) -> Command | None:
        if cmd_name in self.commands or cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        return TyperCommand(cmd_name, help=self.lazy[cmd_name][0])

    def resolve_command(
        self, ctx: Any, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] in self.lazy:
            self.load(args[0])
        return super().resolve_command(ctx, args)


app = typer.Typer(
    help="Accord: automated negotiation research and competitions.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    cls=LazyGroup,
    # Plain help: rich's help formatter imports a Markdown parser (about 30 ms).
    rich_markup_mode=None,
)
app.command()(negotiate)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("accord")
    except PackageNotFoundError:  # running from a source tree
        from accord import __version__

        return __version__


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"accord {_version()}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """Accord command line."""
