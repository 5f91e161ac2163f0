"""``accord scenarios``: list, show and convert negotiation scenarios.

Mounted by the main CLI as ``accord scenarios``; run standalone with
``python -m accord.formats.cli``.

    accord scenarios list                       # bundled scenarios
    accord scenarios list --dir ../shared/scenarios/genius
    accord scenarios show lunch
    accord scenarios show path/to/genius_folder
    accord scenarios convert path/to/genius_folder out.json --to native
    accord scenarios convert lunch out_folder --to genius
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from accord.core.cells import achievable_utilities
from accord.core.errors import AccordError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, RealIssue
from accord.core.scenario import Scenario
from accord.core.utilities import HyperRectangleUtility, UtilityFunction
from accord.formats.native import native_text
from accord.formats.registry import detect_format, load_scenario, save_scenario

app = typer.Typer(
    help="List, show and convert negotiation scenarios (GENIUS, GeniusWeb, native JSON).",
    no_args_is_help=True,
)
_out = Console()
_err = Console(stderr=True)
_ENUMERATE_LIMIT = 2_000_000


def _fail(e: Exception) -> typer.Exit:
    _err.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
    return typer.Exit(code=1)


def _outcomes(s: Scenario) -> str:
    n = s.space.cardinality
    return "continuous" if n == math.inf else f"{int(n):,}"


@app.command("list")
def list_command(
    directory: Annotated[
        Path | None,
        typer.Option("--dir", help="List the scenario folders under DIR instead."),
    ] = None,
) -> None:
    """List the bundled scenarios (or the scenario folders under --dir)."""
    from accord.scenarios import bundled_description, list_bundled

    table = Table("name", "parties", "issues", "outcomes", "about", title=None)
    if directory is None:
        for name in list_bundled():
            s = load_scenario(name)
            table.add_row(
                name, str(s.n_parties), str(len(s.space)), _outcomes(s), bundled_description(name)
            )
        _out.print(table)
        return
    if not directory.is_dir():
        raise _fail(FileNotFoundError(f"{directory}: not a folder"))
    failures = 0
    for sub in sorted(p for p in directory.iterdir() if p.is_dir() or p.suffix == ".json"):
        try:
            s = load_scenario(sub)
            kind = detect_format(sub)
        except AccordError as e:
            failures += 1
            table.add_row(str(sub.name), "-", "-", "-", f"[red]{escape(str(e))}[/]")
            continue
        table.add_row(str(sub.name), str(s.n_parties), str(len(s.space)), _outcomes(s), kind)
    _out.print(table)
    if failures:
        raise typer.Exit(code=1)


def _issue_text(issue: Issue) -> tuple[str, str]:
    if isinstance(issue, CategoricalIssue):
        shown = ", ".join(str(v) for v in issue.values()[:8])
        more = f", ... ({issue.cardinality})" if issue.cardinality > 8 else ""
        return "discrete", shown + more
    if isinstance(issue, IntegerIssue):
        return "integer", f"{issue.lower} .. {issue.upper}"
    if isinstance(issue, RealIssue):
        return "real", f"[{issue.lower}, {issue.upper}]"
    return type(issue).__name__, issue.allowed()


def _range_text(u: UtilityFunction) -> str:
    space = u.space
    if isinstance(u, HyperRectangleUtility):
        try:
            values = achievable_utilities([u]).values
        except AccordError:
            return "-"
        return f"{values.min():.3f} .. {values.max():.3f} (by cells)"
    if not space.is_discrete or space.cardinality > _ENUMERATE_LIMIT:
        return "-"
    values = u.all()
    return f"{values.min():.3f} .. {values.max():.3f}"


@app.command("show")
def show_command(
    source: Annotated[str, typer.Argument(help="A bundled name, a scenario folder or a file.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the scenario as native JSON.")
    ] = False,
) -> None:
    """Show a scenario's issues and profiles."""
    try:
        s = load_scenario(source)
    except AccordError as e:
        raise _fail(e) from None
    if as_json:
        typer.echo(native_text(s), nl=False)
        return
    _out.print(
        f"[bold]{s.name}[/]: {s.n_parties} parties, {len(s.space)} issues, {_outcomes(s)} outcomes",
        highlight=False,
    )
    issues = Table("issue", "type", "values")
    for issue in s.space.issues:
        issues.add_row(issue.name, *_issue_text(issue))
    _out.print(issues)
    profiles = Table("profile", "utility", "reservation", "discount", "utility range")
    for name, u in zip(s.profile_names, s.utilities, strict=True):
        disc = "none" if u.discount is None else f"{u.discount:g}"
        profiles.add_row(name, type(u).__name__, f"{u.reservation:g}", disc, _range_text(u))
    _out.print(profiles)
    for note in _notes(s):
        _out.print(f"note: {note}", highlight=False, soft_wrap=True)


def _notes(s: Scenario) -> list[str]:
    """What a user should know before negotiating on ``s``."""
    from accord.core.finder import huge_space_note
    from accord.formats.discretize import DEFAULT_LEVELS, discretize_space, needs_discretization

    notes = []
    gridded = needs_discretization(s.space) and discretize_space(s.space) is not s.space
    if gridded:
        notes.append(
            f"accord negotiate and accord tournament put real (and huge integer) issues on a "
            f"grid of {DEFAULT_LEVELS} values; --discretize N changes it"
        )
    big = None if gridded else huge_space_note(s.utilities)
    if big is not None:
        notes.append(big)
    if s.n_parties > 2:
        notes.append(
            f"{s.n_parties} profiles: negotiate with {s.n_parties} agents, or choose some "
            "with --profiles NAME,NAME"
        )
    return notes


@app.command("convert")
def convert_command(
    source: Annotated[str, typer.Argument(help="A bundled name, a scenario folder or a file.")],
    dest: Annotated[Path, typer.Argument(help="A .json file (native) or a folder (genius).")],
    to: Annotated[str, typer.Option("--to", help="Target format: native or genius.")] = "native",
    rescale: Annotated[
        bool,
        typer.Option(help="GENIUS only: write profiles even if GENIUS will rescale them."),
    ] = False,
) -> None:
    """Convert a scenario to native JSON or to a GENIUS XML folder."""
    if to not in ("native", "genius"):
        raise _fail(ValueError(f"--to must be native or genius, got {to!r}"))
    suffix = "" if dest.is_dir() else dest.suffix.lower()
    if to == "native" and suffix not in ("", ".json"):
        raise _fail(
            ValueError(f"a native scenario is a .json file (or a folder); got {str(dest)!r}")
        )
    if to == "genius" and suffix:
        raise _fail(
            ValueError(f"a GENIUS scenario is a folder, not a {suffix} file: {str(dest)!r}")
        )
    try:
        s = load_scenario(source)
        written = save_scenario(s, dest, "native" if to == "native" else "genius", rescale)
    except AccordError as e:
        raise _fail(e) from None
    _out.print(f"wrote {s.name} ({s.n_parties} profiles) to {written}", highlight=False)


if __name__ == "__main__":  # pragma: no cover
    app()
