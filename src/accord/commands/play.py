"""``accord play``: play an offer protocol in the browser against a built-in agent.

    accord play aop --scenario lunch --against boulware --rounds 10

serves the web driver (:mod:`accord.web.driver`) on loopback and prints your link. The
protocol is any one of the registry with offer rules (``aop``, ``aop-simultaneous``,
``ultimatum``, or another protocol whose rules are
:class:`~accord.core.protocols.offers.OfferRules`); nothing is written for it beyond
its rules.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated, Any

import typer

from accord.agents.registry import get_agent
from accord.core.errors import ConfigError
from accord.core.imports import import_object
from accord.core.protocols.offers import (
    NegotiationSetup,
    NegotiatorSeat,
    OfferRules,
    negotiation_views,
)
from accord.core.protocols.registry import resolve_protocol, table_entry
from accord.core.protocols.rules import Rules
from accord.core.time import Deadline
from accord.scenarios import load_bundled
from accord.tournament.sqlite import SqliteFile
from accord.web.app import create_app
from accord.web.driver import PLAY_PAGE, RulesGame
from accord.web.store import EventLog

__all__ = ["app", "build_game", "rules_for"]

app = typer.Typer()


def rules_for(protocol: str) -> Rules[Any, Any, Any]:
    """The rules of ``protocol`` (short name, id or table row); ConfigError if it has none."""
    pid = resolve_protocol(protocol).info.id
    entry = table_entry(pid)
    if entry is None or entry.rules is None:
        raise ConfigError(f"protocol {pid!r} has no Rules yet, so it cannot be played here")
    obj = import_object(entry.rules, "rules")
    return obj() if isinstance(obj, type) else obj  # type: ignore[no-any-return]


def build_game(
    protocol: str,
    scenario: str,
    against: str,
    rounds: int,
    you: int = 0,
    seed: int = 0,
    log_path: str | Path = ":memory:",
    **kwargs: Any,
) -> RulesGame:
    """A :class:`RulesGame` of ``protocol`` on a bundled ``scenario``: you (party ``you``)
    against the built-in agent ``against``."""
    rules = rules_for(protocol)
    if not isinstance(rules, OfferRules):
        raise ConfigError(f"accord play serves offer protocols; {rules.info.id!r} is not one")
    sc = load_bundled(scenario)
    if len(sc.utilities) != 2:
        raise ConfigError(f"scenario {scenario!r} has {len(sc.utilities)} parties; play takes 2")
    if you not in (0, 1):
        raise ConfigError(f"--as must be 0 or 1; got {you}")
    agent = get_agent(against)
    names = ["you", agent.name] if you == 0 else [agent.name, "you"]
    setup = NegotiationSetup(sc.space, tuple(sc.utilities), Deadline(rounds=rounds), tuple(names))
    other = 1 - you

    def seats(state: Any) -> dict[int, NegotiatorSeat]:
        views = negotiation_views(state)
        return {other: NegotiatorSeat(agent, views[other], rules, sc.space, None)}

    try:
        log = EventLog(SqliteFile(str(log_path)))
    except sqlite3.DatabaseError as exc:  # a file that is not one of SQLite
        raise ConfigError(f"--log {str(log_path)!r} is not a SQLite file ({exc})") from None
    game = RulesGame(rules, setup, [you], seats, log, seed=seed, names=names, **kwargs)
    game.seats[other].start(game.state)  # the agent's start-up (untimed)
    return game


@app.command()
def play(
    protocol: Annotated[str, typer.Argument(help="aop, aop-simultaneous, ultimatum, ...")] = "aop",
    scenario: Annotated[str, typer.Option(help="a bundled scenario")] = "lunch",
    against: Annotated[str, typer.Option(help="a built-in agent")] = "boulware",
    rounds: Annotated[int, typer.Option(help="deadline in rounds")] = 10,
    you: Annotated[int, typer.Option("--as", help="your party: 0 (first) or 1")] = 0,
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: a free one)")] = 8000,
    log: Annotated[
        str, typer.Option(help="SQLite file of the play (resumes if it holds one)")
    ] = ":memory:",
) -> None:
    """Play a protocol in the browser against a built-in agent."""
    from accord.core.errors import AccordError
    from accord.web.runner import BackgroundServer, bound_socket

    try:
        game = build_game(protocol, scenario, against, rounds, you, log_path=log)
        sock = bound_socket("127.0.0.1", port)  # a taken or impossible port: one line
    except AccordError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    web = create_app(f"accord play {protocol}", game, static={"/": PLAY_PAGE})
    host, real_port = sock.getsockname()[:2]
    server = BackgroundServer(web, sock=sock).start()
    typer.echo(f"open http://{host}:{real_port}/?party={you}&token={game.tokens[you]}")
    typer.echo("(Ctrl-C stops the server)")
    try:
        while server.thread.is_alive():
            server.thread.join(0.5)
    except KeyboardInterrupt:
        server.stop()
