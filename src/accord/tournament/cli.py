"""Command line: ``accord tournament [CONFIG.yaml | flags]``.

``app`` holds the command (``accord report RESULTS`` is :mod:`accord.commands.report`,
the one report command); ``tournament_command`` is the plain function, for registering
under another name.

With no configuration and no ``--agents``/``--scenarios``, ``accord tournament`` runs the
default tournament (:mod:`accord.tournament.default`). Running the same command again
resumes an interrupted run from its results file.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from accord.core.errors import AccordError, ConfigError
from accord.sandbox.option import SANDBOX_HELP, deprecated, sandbox_option, warn_stderr
from accord.tournament.config import SESSIONS_PER_SANDBOX, TournamentConfig
from accord.tournament.default import DEFAULT_OUT, default_config
from accord.tournament.runner import TournamentRun, run_tournament, sessions_per_sandbox

app = typer.Typer(help="Tournaments: run and resume.", no_args_is_help=False)


@app.callback()
def _group() -> None:
    """Tournaments: run and resume (``app`` stays a group: ``app tournament ...``)."""


#: Leaderboard titles: the scores are final utilities, discounted to the end time where the
#: profile has a discount factor (the output says so once, under the boards).
_TITLES = {
    "utility": "Individual utility (final, discounted)",
    "welfare": "Social welfare (final, discounted)",
    "nash": "Nash product (final, discounted)",
}


def _split(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def build_config(
    config: Path | None,
    agents: str | None = None,
    scenarios: str | None = None,
    **overrides: Any,
) -> TournamentConfig:
    """The configuration from a YAML file and/or flags (flags win); default if neither."""
    changes = {k: v for k, v in overrides.items() if v is not None}
    if agents:
        changes["agents"] = tuple(_split(agents))
    if scenarios:
        changes["scenarios"] = tuple(_split(scenarios))
    if config is not None:
        return TournamentConfig.from_yaml(config).with_(**changes)
    if "agents" in changes or "scenarios" in changes:
        base = default_config()
        if "agents" not in changes or "scenarios" not in changes:
            missing = "--scenarios" if "agents" in changes else "--agents"
            typer.echo(f"note: no {missing} given; using the default tournament's", err=True)
        changes.setdefault("name", "tournament")
        changes.setdefault("learning", False)
        return base.with_(**changes)
    return default_config().with_(**changes)


def default_out(config: TournamentConfig, source: Path | None) -> Path:
    """Where results go when ``--out`` is not given (stable, so re-running resumes)."""
    if source is not None:
        return Path("results") / f"{source.stem}.sqlite"
    if config.name == "default":
        return DEFAULT_OUT
    return Path("results") / f"{config.name}-{config.fingerprint()}.sqlite"


@app.command("tournament")
def tournament_command(
    config: Annotated[Path | None, typer.Argument(help="YAML configuration file")] = None,
    agents: Annotated[
        str | None, typer.Option(help="comma-separated: pkg.module:Class or Name=pkg.module:Class")
    ] = None,
    scenarios: Annotated[
        str | None, typer.Option(help="comma-separated scenario names or paths")
    ] = None,
    profiles: Annotated[
        str | None,
        typer.Option(
            help="profiles that negotiate in each scenario: comma-separated names "
            "(e.g. Itex,Cypress) or 'pairs' for every pair"
        ),
    ] = None,
    discretize: Annotated[
        int | None,
        typer.Option(
            help="grid values per real (or huge integer) issue; default 10 when needed, "
            "0 keeps real issues"
        ),
    ] = None,
    reps: Annotated[int | None, typer.Option(help="repetitions")] = None,
    executor: Annotated[str, typer.Option(help="serial, processes or ray")] = "processes",
    workers: Annotated[
        int | None, typer.Option(help="worker processes (default: all cores)")
    ] = None,
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address HOST:PORT (--executor ray)")
    ] = None,
    ray_token_file: Annotated[
        Path | None,
        typer.Option(
            help="file holding the Ray cluster's token (token authentication; "
            "default: RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH if set)"
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="results file (.sqlite)")] = None,
    seed: Annotated[int | None, typer.Option(help="tournament seed")] = None,
    rounds: Annotated[int | None, typer.Option(help="deadline in rounds")] = None,
    protocol: Annotated[
        str | None, typer.Option(help="protocol: aop (default), ultimatum, ... or pkg.mod:Class")
    ] = None,
    time_limit: Annotated[float | None, typer.Option(help="seconds per agent call")] = None,
    sandbox: Annotated[
        str | None,
        typer.Option(
            help=SANDBOX_HELP + "; built-ins run in-process under os, in child "
            "processes under process ('auto' is an old spelling of os)"
        ),
    ] = None,
    isolated: Annotated[
        bool | None,
        typer.Option("--isolated/--in-process", help="deprecated spellings of --sandbox os / none"),
    ] = None,
    learning: Annotated[
        bool | None, typer.Option("--learning/--no-learning", help="agents read earlier sessions")
    ] = None,
    failure_score: Annotated[
        str | None,
        typer.Option(
            help="what an agent scores in a session it failed: zero (default; a failure "
            "never pays) or reservation (its reservation value, as NegMAS does)"
        ),
    ] = None,
    sessions_per_sandbox: Annotated[
        str | None,
        typer.Option(
            help="many (default: a sandbox plays many of its agent's sessions at once and "
            "holds the others meanwhile) or one (one at a time: none reachable; slower)"
        ),
    ] = None,
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="write the HTML report")
    ] = True,
    export: Annotated[str | None, typer.Option(help="also export tables: csv or parquet")] = None,
    trim: Annotated[float, typer.Option(help="score by a mean truncated by this much")] = 0.0,
    json_out: Annotated[
        bool, typer.Option("--json", help="print one JSON document (leaderboards, paths) only")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="no progress or tables; print the paths only")
    ] = False,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="delete the results file and start over")
    ] = False,
) -> None:
    """Run (or resume) a tournament, then print the leaderboards."""
    console = Console(quiet=quiet or json_out)
    try:
        check_sessions_per_sandbox(sessions_per_sandbox)
        cfg = build_config(
            config,
            agents,
            scenarios,
            reps=reps,
            seed=seed,
            rounds=rounds,
            protocol=protocol,
            time_limit=time_limit,
            sandbox=_sandbox_choice(sandbox, isolated, config),
            learning=learning,
            discretize=discretize,
            failure_score=failure_score,
            sessions_per_sandbox=sessions_per_sandbox,
        )
        if profiles:
            spec: Any = "pairs" if profiles.strip() == "pairs" else _split(profiles)
            cfg = cfg.with_(
                scenarios=tuple({"scenario": s, "profiles": spec} for s in cfg.scenarios)
            )
        notes = check_before_running(cfg, executor, workers, export, trim)
        check_ray_options(executor, address, ray_token_file)
        for note in notes:
            console.print(f"note: {note}", soft_wrap=True, highlight=False)
        path = out or default_out(cfg, config)
        run = run_with_progress(cfg, path, executor, workers, address, console, fresh)
        report_path = show_results(path, console, report=report, export=export, run=run, trim=trim)
    except AccordError as exc:
        Console(stderr=True).print(
            f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        Console(stderr=True).print(
            "interrupted: every finished session is stored; run the same command to resume",
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    if json_out:
        typer.echo(json.dumps(summary(path, run, report_path, notes, trim), indent=1))
    elif quiet:
        typer.echo(str(path))
        if report_path is not None:
            typer.echo(str(report_path))


def check_before_running(
    cfg: TournamentConfig, executor: str, workers: int | None, export: str | None, trim: float
) -> list[str]:
    """Every check that can fail before a session runs; returns notes for the user."""
    from accord.tournament.agents import check_agents
    from accord.tournament.executors import EXECUTORS
    from accord.tournament.scenarios import resolve_scenarios

    if executor not in EXECUTORS:
        raise ConfigError(f"--executor must be one of {', '.join(EXECUTORS)}; got {executor!r}")
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    if not 0.0 <= trim < 0.5:
        raise ConfigError(
            f"--trim is the share cut from each end of the scores: it must be in [0, 0.5), "
            f"got {trim}"
        )
    if export is not None:
        if export not in ("csv", "parquet"):
            raise ConfigError(f"--export must be 'csv' or 'parquet', got {export!r}")
        if export == "parquet" and importlib.util.find_spec("pyarrow") is None:
            raise ConfigError(
                "--export parquet needs pyarrow: pip install '.[parquet]' in the Accord clone, or use csv"
            )
    from accord.tournament.isolation import describe_plan, plan

    sandboxed = plan({a.name: a for a in cfg.agents}, cfg.sandbox_choice)  # refuses early
    check_agents([a for a in cfg.agents if a.name not in sandboxed])  # never import others
    notes: list[str] = describe_plan(sandboxed)
    notes.extend(sessions_note(cfg, executor, bool(sandboxed)))
    resolve_scenarios(cfg.scenarios, cfg.discretize, notes)
    return notes


def check_sessions_per_sandbox(value: str | None) -> None:
    """``--sessions-per-sandbox`` is ``many`` or ``one`` (one line otherwise)."""
    if value is not None and value not in SESSIONS_PER_SANDBOX:
        raise ConfigError(f"--sessions-per-sandbox must be 'many' or 'one'; got {value!r}")


def sessions_note(cfg: TournamentConfig, executor: str, sandboxed: bool) -> list[str]:
    """The line saying how many sessions a sandbox plays at once, and what that gives
    up (many) or costs (one); nothing when no agent is sandboxed and none was asked."""
    mode = sessions_per_sandbox(cfg, executor)
    if not sandboxed:
        if cfg.sessions_per_sandbox == "one":
            return ["--sessions-per-sandbox one has no effect here: no agent runs in a sandbox"]
        return []
    if mode == "many":
        return [
            "sessions per sandbox: many at once (the default; fewer round trips): while a "
            "sandbox plays one session it holds its agent's other live sessions on the same "
            "side only (one sandbox per side an agent plays: none is ever given a profile "
            "its opponents play); --sessions-per-sandbox one plays them one at a time"
        ]
    why = (
        "--sessions-per-sandbox one"
        if cfg.sessions_per_sandbox == "one"
        else "a deadline in seconds"
        if cfg.seconds is not None
        else f"--executor {executor}"
    )
    return [
        f"sessions per sandbox: one at a time ({why}): a sandbox holds no other live "
        "session, but plays every side in turn (it may remember a profile its opponent "
        "plays now); it costs one round trip per call (about 3x the wall time of many at once "
        "on the bundled holiday tournament, see docs/sandbox.md)"
    ]


def _sandbox_choice(sandbox: str | None, isolated: bool | None, config: Path | None) -> str | None:
    """``--sandbox`` wins; then ``--isolated``/``--in-process`` (deprecated: one line);
    then the file's setting; else ``auto``. The command line's ``os`` is the
    configuration's ``auto``: agents named by path in the OS sandbox, built-ins
    in-process, as in every league (the configuration's ``os`` sandboxes built-ins too)."""
    if sandbox is not None:
        choice = sandbox_option(sandbox, aliases={"auto": "os"})
        return "auto" if choice == "os" else choice
    if isolated is not None:
        new = "--sandbox os" if isolated else "--sandbox none"
        warn_stderr(deprecated("--isolated" if isolated else "--in-process", new))
        return "auto" if isolated else "none"
    if config is not None and config.is_file():
        text = config.read_text(encoding="utf-8", errors="replace")
        if re.search(r"^(sandbox|isolated)\s*:", text, re.MULTILINE):
            return None  # the file says
    return "auto"


def check_ray_options(executor: str, address: str | None, token_file: Path | None) -> None:
    """``--address`` and ``--ray-token-file`` belong to ``--executor ray``; a token file
    must hold a token (it is then what Accord sends to the cluster)."""
    from accord.tournament.raycluster import is_explicit, split_address, use_token_file

    for flag, value in (("--address", address), ("--ray-token-file", token_file)):
        if value is not None and executor != "ray":
            raise ConfigError(f"{flag} only applies to --executor ray; got --executor {executor}")
    if address is not None and is_explicit(address):
        split_address(address)
    if token_file is not None:
        use_token_file(token_file)


def summary(
    path: Path, run: TournamentRun, report: Path | None, notes: list[str], trim: float
) -> dict[str, Any]:
    """The JSON document ``--json`` prints: counts, paths, notes and the leaderboards."""
    from accord.tournament.results import Results
    from accord.tournament.scores import leaderboards

    res = Results(path)
    try:
        boards = leaderboards(res.parties, seed=int(res.config.get("seed", 0)), trim=trim)
    finally:
        res.close()
    return {
        "results": str(path),
        "report": None if report is None else str(report),
        "sessions": run.total,
        "ran_now": run.ran,
        "seconds": round(run.seconds, 3),
        "notes": notes,
        "leaderboards": {
            metric: json.loads(board.to_json(orient="records")) for metric, board in boards.items()
        },
    }


def run_with_progress(
    cfg: TournamentConfig,
    path: Path,
    executor: str,
    workers: int | None,
    address: str | None,
    console: Console,
    fresh: bool = False,
) -> TournamentRun:
    """Run with a rich progress bar and ETA (``fresh``: delete the results first)."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False, disable=console.quiet) as bar:
        # shown from the first count on: an entrant refused before any session leaves no bar
        task = bar.add_task(f"{cfg.name} ({executor})", total=None, visible=False)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, visible=True)

        return run_tournament(cfg, path, executor, workers, address, progress=update, fresh=fresh)


def show_results(
    path: Path,
    console: Console,
    report: bool = True,
    export: str | None = None,
    run: TournamentRun | None = None,
    trim: float = 0.0,
) -> Path | None:
    """Print the leaderboards and where the results (and report) are; return the report."""
    from accord.tournament.failures import failure_summary
    from accord.tournament.report import write_report
    from accord.tournament.results import Results
    from accord.tournament.scores import leaderboards

    res = Results(path)
    try:
        boards = leaderboards(res.parties, seed=int(res.config.get("seed", 0)), trim=trim)
        for metric, board in boards.items():
            console.print(leaderboard_table(board, _TITLES[metric]))
        console.print(
            "scores: final utilities, discounted to the session's end time where the profile "
            "has a discount factor (as is where it has none)",
            soft_wrap=True,
            markup=False,
        )
        console.print(failure_summary(res.sessions).text(), soft_wrap=True, markup=False)
        from accord.tournament.rationality import below_reservation, summary_line

        table = below_reservation(res.parties, res.sessions, res.scenarios)
        console.print(summary_line(table), soft_wrap=True, markup=False)
        if export:
            for p in res.export(path.with_suffix("").with_name(path.stem + "-" + export), export):
                console.print(f"exported {p}", soft_wrap=True)
    finally:
        res.close()
    if run is not None:
        console.print(
            f"{run.total} sessions ({run.ran} run now) in {run.seconds:.1f} s; results in {path}",
            soft_wrap=True,
        )
    if not report:
        return None
    target = write_report(path, trim=trim)
    console.print(f"report: {target}", soft_wrap=True)
    return target


def leaderboard_table(board: Any, title: str) -> Table:
    """A rich table of one leaderboard (``n_eff``: independent units behind the interval;
    ``n``: the agent's seats in all sessions)."""
    t = Table(title=title)
    for col in ("rank", "agent", "score", "95% CI", "n_eff", "n", "p vs next"):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for r in board.itertuples():
        p = "" if r.p_next != r.p_next else f"{r.p_next:.3g}{' *' if r.differs_next else ''}"
        t.add_row(
            str(r.rank),
            str(r.agent),
            f"{r.score:.4f}",
            f"[{r.ci_low:.4f}, {r.ci_high:.4f}]",
            str(r.n_eff),
            str(r.n),
            p,
        )
    return t


def default_tournament(
    out: Path = DEFAULT_OUT,
    executor: str = "processes",
    workers: int | None = None,
    config: TournamentConfig | None = None,
) -> TournamentRun:
    """Run the default tournament (or ``config``, a variant of it), print its
    leaderboards and where the report is."""
    console = Console()
    cfg = default_config() if config is None else config
    run = run_with_progress(cfg, out, executor, workers, None, console)
    show_results(out, console, report=True, run=run)
    return run
