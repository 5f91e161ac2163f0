"""``accord genius``: play one session, evaluate an agent against the PDAs, list things.

accord genius play job_candidate --agents "kbagent conceder" --types "short-term long-term"
accord genius evaluate kbagent --reps 2 --report out/genius.html
accord genius evaluate kbagent --json
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from accord.core.errors import AccordError
from accord.sandbox.option import SANDBOX_HELP, sandbox_callback

app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)

_DOMAINS = ["job_candidate", "england_zimbabwe"]


def _split(items: list[str]) -> list[str]:
    return [a for item in items for a in item.split()]


@app.command("domains")
def domains() -> None:
    """List the bundled domains with their sides and types."""
    from accord.leagues.genius.loading import bundled_domains, load_domain

    console = Console()
    for name in bundled_domains():
        d = load_domain(name)
        sides = "; ".join(
            f"{s}: {', '.join(p.name for p in ps)}" for s, ps in zip(d.sides, d.types, strict=True)
        )
        console.print(f"{name}: {d.size} outcomes, {len(d.issues)} issues ({sides})")


@app.command("agents")
def agents() -> None:
    """List the agents: the KBAgent and the peer-designed agents."""
    from accord.leagues.genius.pdas import agent_names

    Console().print(" ".join(agent_names()))


@app.command("play")
def play(
    domain: Annotated[
        str, typer.Argument(help="bundled domain, native JSON file or GENIUS folder")
    ] = "job_candidate",
    agents: Annotated[
        list[str], typer.Option("--agents", "-a", help="two agents (names or module:Class)")
    ] = ["kbagent", "conceder"],  # noqa: B006 - typer needs a literal default
    types: Annotated[
        list[str], typer.Option("--types", "-t", help="the two sides' types (names or indices)")
    ] = ["0", "0"],  # noqa: B006
    turns: Annotated[int, typer.Option(help="number of turns (the deadline)")] = 14,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    rules: Annotated[str, typer.Option(help="'paper' (default) or 'code' deadline rule")] = "paper",
    trace: Annotated[bool, typer.Option(help="print every action")] = False,
    missing: Annotated[
        str,
        typer.Option(
            help="a GENIUS folder whose profiles lack status quo, opt-out or time effect: "
            "'refuse' (default) or 'zero' (read as 0, each reported)"
        ),
    ] = "refuse",
) -> None:
    """Run one session of two agents and print what happened."""
    from accord.leagues.genius.loading import load_domain
    from accord.leagues.genius.match import Match
    from accord.leagues.genius.pdas import make_agent
    from accord.leagues.genius.protocol import Rules

    console = Console()
    names, kinds = _split(agents), _split(types)
    try:
        if len(names) != 2:
            raise typer.BadParameter(
                f"expected 2 agents, got {len(names)}: {names}", param_hint="--agents"
            )
        if len(kinds) != 2:
            raise typer.BadParameter(
                f"expected 2 types, got {len(kinds)}: {kinds}", param_hint="--types"
            )
        with warnings.catch_warnings(record=True) as told:
            warnings.simplefilter("always")
            d = load_domain(domain, missing)  # type: ignore[arg-type]
        for w in told:
            console.print(f"[yellow]warning:[/yellow] {w.message}")
        ty = tuple(d.type_index(k, int(x) if x.isdigit() else x) for k, x in enumerate(kinds))
        r = Rules(turns=turns, turn_seconds=1.0, deadline_rule=rules)  # type: ignore[arg-type]
        match = Match(d, [make_agent(n) for n in names], (ty[0], ty[1]), r, seed=seed)
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    result = match.run()
    console.print(
        f"[bold]{d.name}[/bold]: {d.size} outcomes, {turns} turns; "
        f"{d.sides[0]} {names[0]} ({d.types[0][ty[0]].name}) vs "
        f"{d.sides[1]} {names[1]} ({d.types[1][ty[1]].name})"
    )
    events = match.session.events
    if trace:
        for e in events:
            what = (
                e.values if e.values is not None else (e.offer if e.offer is not None else e.index)
            )
            mark = "" if e.ok else f"  [red]invalid: {e.error}[/red]"
            console.print(
                f"  turn {e.turn:>2} {names[e.party]:>10} {e.kind:<8} {what if what is not None else ''}{mark}"
            )
    offers = sum(e.kind == "offer" and e.ok for e in events)
    console.print(
        f"ended by [bold]{result.reason.value}[/bold] at period {result.turn} "
        f"({len(events)} actions, {offers} offers, invalid {result.invalid[0]}/{result.invalid[1]})"
        + (f", opted out by {names[result.ended_by]}" if result.ended_by is not None else "")
    )
    table = Table(
        title="agreement"
        + (" (full)" if result.full else " (partial)" if result.agreed_issues else "")
    )
    table.add_column("issue")
    table.add_column("value")
    for issue, v in zip(d.issue_names, result.agreement, strict=True):
        table.add_row(issue, "(open)" if v is None else v)
    console.print(table)
    ut = Table(title="utilities")
    for c in ("side", "agent", "type", "utility", "status quo", "opt-out"):
        ut.add_column(c, justify="right" if c in ("utility", "status quo", "opt-out") else "left")
    for k in range(2):
        p = d.types[k][ty[k]]
        ut.add_row(
            d.sides[k],
            names[k],
            p.name,
            f"{result.utilities[k]:.1f}",
            f"{p.status_quo_at(turns):.1f}",
            f"{p.opt_out_at(result.turn):.1f}",
        )
    console.print(ut)


@app.command("evaluate")
def evaluate_cmd(
    agent: Annotated[str, typer.Argument(help="agent to evaluate (name or module:Class)")],
    domain: Annotated[
        list[str], typer.Option("--domain", "-d", help="domains (repeat); default both bundled")
    ] = _DOMAINS,  # noqa: B006
    pool: Annotated[
        list[str] | None, typer.Option("--pool", "-p", help="opponents (default: every PDA)")
    ] = None,
    reps: Annotated[int, typer.Option(help="seeded repetitions per type pair and side")] = 1,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    store: Annotated[
        Path | None,
        typer.Option(
            help="league store: compare with people's sessions in it; the KBAgent's database"
        ),
    ] = None,
    report: Annotated[Path | None, typer.Option(help="write an HTML report here")] = None,
    ranking: Annotated[
        bool, typer.Option(help="also rank the agent among the PDAs (round robin, slower)")
    ] = False,
    sandbox: Annotated[
        str,
        typer.Option(
            help=SANDBOX_HELP + " ('off' is an old spelling of none)",
            callback=sandbox_callback({"off": "none"}),
        ),
    ] = "os",
    as_json: Annotated[bool, typer.Option("--json", help="print the table as JSON")] = False,
) -> None:
    """Evaluate AGENT against the PDA pool (every type pair, both sides) and with people."""
    from accord.leagues.genius.evaluate import (
        Record,
        evaluate,
        people_records,
        round_robin,
        summarise,
    )
    from accord.leagues.genius.pdas import PDAS

    console = Console()
    opponents = _split(pool) if pool else list(PDAS)
    try:
        if store is not None:
            from accord.leagues.genius.store import GeniusStore

            with GeniusStore(store) as kb:
                records = evaluate(
                    agent, _split(domain), opponents, reps=reps, seed=seed, knowledge=kb,
                    sandbox=sandbox,
                )  # fmt: skip
        else:
            records = evaluate(
                agent, _split(domain), opponents, reps=reps, seed=seed, sandbox=sandbox
            )
    except AccordError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    out: dict[str, dict[str, object]] = {}
    people: dict[str, list[Record]] = {}
    for d in _split(domain):
        recs = [r for r in records if r.domain == d or r.domain == Path(d).name]
        entry: dict[str, object] = {"pdas": {k: v.to_dict() for k, v in summarise(recs).items()}}
        entry["per_opponent"] = {
            o: sum(r.utility for r in recs if r.opponent == o)
            / max(1, sum(r.opponent == o for r in recs))
            for o in opponents
        }
        if store is not None:
            from accord.leagues.genius.store import GeniusStore

            with GeniusStore(store) as st:
                prs = people_records(st, agent, recs[0].domain if recs else d)
            people[d] = list(prs)
            entry["people"] = (
                {k: v.to_dict() for k, v in summarise(prs, unit="opponent").items()}
                if prs
                else None
            )
        out[recs[0].domain if recs else d] = entry
    if ranking:
        rr = round_robin([agent, *opponents], _split(domain), reps=reps, seed=seed, sandbox=sandbox)
        for dname, table in rr.items():
            out.setdefault(dname, {})["ranking"] = table
    if as_json:
        typer.echo(json.dumps(out, indent=1))
    else:
        _print(console, agent, out)
        console.print(_sandbox_line(agent, sandbox), markup=False, highlight=False)
    if report is not None:
        from accord.leagues.genius.report import write_report

        path = write_report(report, agent, records, out, people)
        if not as_json:
            console.print(f"report written to {path}")


def _sandbox_line(agent: str, sandbox: str) -> str:
    """Where ``agent`` ran: its sandbox mode (``process`` says what it gives up)."""
    from accord.leagues.genius.sandboxed import genius_sandbox

    mode = genius_sandbox(agent, sandbox)
    if mode is None:
        return f"sandbox: none ({agent} ran in this process)"
    if mode == "process":
        from accord.sandbox import PROCESS_GIVES_UP

        return f"sandbox: process (a fresh child process per session); {PROCESS_GIVES_UP}"
    return "sandbox: os (a fresh bubblewrap sandbox per session)"


def _print(console: Console, agent: str, out: dict[str, dict[str, object]]) -> None:
    for dname, entry in out.items():
        table = Table(title=f"{agent} on {dname} (95 % CI over opponents)")
        table.add_column("measure")
        table.add_column("vs PDAs", justify="right")
        has_people = entry.get("people") is not None
        if has_people:
            table.add_column("vs people", justify="right")
        pdas = entry["pdas"]
        assert isinstance(pdas, dict)
        for m, iv in pdas.items():
            row = [m, _fmt(iv)]
            if has_people:
                people = entry["people"]
                assert isinstance(people, dict)
                row.append(_fmt(people[m]))
            table.add_row(*row)
        console.print(table)
        if "ranking" in entry:
            rk = entry["ranking"]
            assert isinstance(rk, dict)
            rt = Table(title=f"mean utility, round robin on {dname}")
            rt.add_column("agent")
            rt.add_column("mean utility", justify="right")
            for name, v in sorted(rk.items(), key=lambda kv: -kv[1]):
                rt.add_row(name, f"{v:.1f}")
            console.print(rt)


def _fmt(iv: dict[str, float | int | None]) -> str:
    mean, low, high = iv["mean"], iv["low"], iv["high"]
    if mean is None:
        return "n/a"
    if low is None or high is None:
        return f"{mean:.3g}"
    return f"{mean:.3g} [{low:.3g}, {high:.3g}]"


@app.command("serve")
def serve(
    folder: Annotated[
        Path, typer.Option(help="folder of the study's files (study.sqlite, genius.sqlite)")
    ] = Path("results/genius-study"),
    opponent: Annotated[
        list[str],
        typer.Option("--opponent", "-o", help="one condition per opponent: an agent or 'person'"),
    ] = ["kbagent"],  # noqa: B006 - typer needs a literal default
    domain: Annotated[str, typer.Option(help="bundled domain")] = "job_candidate",
    side: Annotated[int, typer.Option(help="the people's side against agents (0 or 1)")] = 0,
    turns: Annotated[int, typer.Option(help="turns per negotiation")] = 14,
    turn_seconds: Annotated[float, typer.Option(help="seconds per turn")] = 120.0,
    title: Annotated[str, typer.Option(help="the study's title")] = "Negotiation study",
    seed: Annotated[int, typer.Option(help="seeds the types drawn for each session")] = 0,
    host: Annotated[str, typer.Option(help="address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: a free one)")] = 8060,
    password: Annotated[
        str | None, typer.Option(help="experimenter password (default: kept, or a new one)")
    ] = None,
    leave_after: Annotated[
        float, typer.Option(help="seconds without sign of life before a participant has left")
    ] = 30.0,
) -> None:
    """Start the study server: the experimenter makes links, people negotiate in a browser."""
    from accord.leagues.genius.server import create_genius_app, genius_design
    from accord.leagues.genius.service import condition
    from accord.web.runner import bound_socket, serve

    console = Console()
    try:
        conds = [condition(o, domain, side, turns, turn_seconds) for o in _split(opponent)]
        design = genius_design(conds, title=title, seed=seed)
        app_, study = create_genius_app(folder, design, password=password, leave_after=leave_after)
        sock = bound_socket(host, port)  # a taken port is a clear error
    except (AccordError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    bound = sock.getsockname()[1]
    typer.echo(f"GENIUS study server on http://{host}:{bound}/ (files in {folder})")
    typer.echo(f"experimenter page: http://{host}:{bound}/study/admin.html (user experimenter)")
    if study.initial_password is not None:
        typer.echo(f"experimenter password: {study.initial_password}")
    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(f"warning: listening on {host}, not only on this machine")
    serve(app_, log_level="warning", sock=sock)
