"""``accord agents``: list the built-in negotiators and check any negotiator's conformance.

Mounted by the main CLI as ``accord agents``; run standalone with
``python -m accord.agents.cli``.

    accord agents list
    accord agents list --package negmas_genius_agents
    accord agents check frequency
    accord agents check mypackage.mymodule:MyAgent --param exponent=0.3 --rounds 50
    accord agents check boulware --scenario lunch
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from accord.agents.checker import check_negotiator
from accord.agents.registry import agents_in_package, get_agent, known_agents, resolve_agent
from accord.core.errors import AccordError, ConfigError
from accord.core.negotiator import Negotiator

app = typer.Typer(
    help="Built-in negotiators and the conformance check for your own.", no_args_is_help=True
)
_out = Console()
_err = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    _err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=1)


def parse_params(items: list[str]) -> dict[str, Any]:
    """``["exponent=0.3", "name=B"]`` -> ``{"exponent": 0.3, "name": "B"}`` (YAML values).

    >>> parse_params(["exponent=0.3", "name=B", "flag=true"])
    {'exponent': 0.3, 'name': 'B', 'flag': True}
    >>> parse_params(["exponent=[1"])
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: parameter 'exponent': expected a YAML value (a number, true/false, a word, [a, list]), got '[1': expected ',' or ']', but got '<stream end>'
    """
    params: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"a parameter must look like key=value, got {item!r}")
        try:
            params[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as exc:
            why = str(getattr(exc, "problem", None) or exc).splitlines()[0]
            raise ConfigError(
                f"parameter {key.strip()!r}: expected a YAML value (a number, true/false, a "
                f"word, [a, list]), got {raw!r}: {why}"
            ) from None
    return params


@app.command("list")
def list_command(
    package: Annotated[
        str | None,
        typer.Option(
            help="List the negotiator classes a package exports instead (NegMAS agent "
            "packages such as negmas_genius_agents need the extra: pip install '.[negmas]')."
        ),
    ] = None,
) -> None:
    """List the short names the registry knows (use them wherever an agent is asked for)."""
    if package is not None:
        try:
            found = agents_in_package(package)
        except AccordError as exc:
            raise _fail(str(exc)) from None
        # One plain line per class (the path to copy, then its summary): never wrapped
        # or cut, whatever the terminal's width, and easy to grep.
        width = max(len(f"{package}:{name}") for name in found) if found else 0
        for name, factory in found.items():
            doc = (factory.__doc__ or "").strip().splitlines()
            typer.echo(f"{package}:{name}".ljust(width) + (f"  {doc[0]}" if doc else ""))
        typer.echo(f"{len(found)} negotiator classes in {package}")
        return
    table = Table("name", "class", "description")
    for name, description in known_agents().items():
        factory = resolve_agent(name)
        table.add_row(name, f"{factory.__module__}:{factory.__qualname__}", description)
    _out.print(table)


@app.command("check")
def check_command(
    agent: Annotated[str, typer.Argument(help="A short name or an import path module:Class.")],
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Constructor parameter key=value.")
    ] = None,
    scenario: Annotated[
        str | None,
        typer.Option(help="A scenario folder, file or bundled name (default: a built-in one)."),
    ] = None,
    rounds: Annotated[int, typer.Option(help="Deadline of every session.")] = 30,
    time_limit: Annotated[float, typer.Option(help="Seconds allowed per answer.")] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of every session.")] = 0,
    protocol: Annotated[
        str, typer.Option(help="The protocol to play: aop (default), ultimatum, ...")
    ] = "aop",
) -> None:
    """Play AGENT against the built-in opponents and report any protocol violation."""
    try:
        params = parse_params(param or [])
        get_agent(agent, **params)  # fail early with the registry's message

        def factory() -> Negotiator:
            return get_agent(agent, **params)

        s = None
        if scenario is not None:
            from accord.formats import load_scenario

            s = load_scenario(scenario)
        report = check_negotiator(
            factory, s, rounds=rounds, time_limit=time_limit, seed=seed, protocol=protocol
        )
    except (AccordError, ValueError) as exc:
        raise _fail(str(exc)) from None
    table = Table("session", "result", "steps", "utilities")
    for label, result in report.results:
        outcome = "agreement" if result.agreement is not None else result.reason.value
        utilities = ", ".join(f"{u:.3f}" for u in result.utilities)
        table.add_row(label, outcome, str(result.steps), utilities)
    _out.print(table)
    _out.print(
        f"[bold green]passed:[/] {report.sessions} sessions, {report.agreements} agreements, "
        "no protocol violation"
    )


if __name__ == "__main__":  # pragma: no cover
    app()
