"""The web driver's hooks for a study that holds many plays (Colored Trails): its own
records in the play's transaction, a time limit on an agent's call, one thread at a time
letting the agents act, and a closed play that takes no late answer. Colored Trails
against a baseline agent, on a virtual clock (no sleeps)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from accord.leagues.trails.baselines import BASELINES
from accord.leagues.trails.board import Board
from accord.leagues.trails.engine import Game, Setup
from accord.leagues.trails.rules import TrailsRules
from accord.leagues.trails.seats import TrailsSeat
from accord.tournament.sqlite import SqliteFile
from accord.web.clock import VirtualClock
from accord.web.driver import RulesGame
from accord.web.store import EventLog

SETUP = Setup(Board.parse(["AB", "BA"]), (0, 3), (3, 0), ((0, 2), (2, 0)))


class Thinker(BASELINES["reliable"]):  # type: ignore[misc, valid-type]
    """A reliable agent whose every answer first runs ``before`` (the test's hook)."""

    before: Any = None

    def respond(self, view: Any, proposal: Any) -> Any:
        if self.before is not None:
            self.before()
        return super().respond(view, proposal)


def _play(agent: Thinker, **kw: Any) -> tuple[RulesGame, EventLog]:
    log = EventLog(SqliteFile(":memory:"))

    def seats(state: Game) -> dict[int, TrailsSeat]:
        seat = TrailsSeat(agent, 1, np.random.default_rng(0))
        seat.start(state)
        return {1: seat}

    game = RulesGame(TrailsRules(), SETUP, [0], seats, log, names=["you", "agent"], **kw)
    return game, log


PROPOSE = {"kind": "propose", "args": {"give_0": 0, "give_1": 1, "take_0": 1, "take_1": 0}}


def test_a_slow_answer_is_the_agents_timeout_and_the_null_action_is_played() -> None:
    clock = VirtualClock()
    agent = Thinker()
    agent.before = lambda: clock.advance(31.0)  # the agent "thinks" 31 s of game time
    game, log = _play(agent, clock=clock, agent_seconds=30.0)
    game.act(0, PROPOSE)
    game.run_agents()
    (fail,) = log.read("play", kinds=("fail",))
    assert fail.data["failure"]["kind"] == "timeout"
    assert fail.data["failure"]["message"] == "took 31.0 s; the limit is 30 s"
    # recorded against the agent, and the null answer (reject) played for it
    assert [e["kind"] for e in fail.data["events"]][:2] == ["violation", "reject"]


def test_on_change_runs_in_the_records_transaction() -> None:
    seen: list[tuple[int, bool]] = []
    game: RulesGame | None = None

    def changed() -> None:
        assert game is not None
        seen.append((len(game.log.read("play")), game.log.file.conn.in_transaction))
        if len(seen) == 2:
            raise RuntimeError("the study could not keep its record")

    agent = Thinker()
    game, log = _play(agent, clock=VirtualClock(), on_change=changed)
    game.act(0, PROPOSE)
    with pytest.raises(RuntimeError, match="could not keep"):
        game.run_agents()
    assert seen == [(2, True), (3, True)]  # each change's record is there, uncommitted
    # the agent's answer was not stored: the log holds the start and the person's act
    assert [e.kind for e in log.read("play")] == ["start", "act"]
    assert not game._driving  # the next caller lets the agents act again


def test_one_thread_at_a_time_asks_the_agents() -> None:
    inside, most = [0], [0]
    gate = threading.Event()
    agent = Thinker()

    def think() -> None:
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        gate.wait(10)
        inside[0] -= 1

    agent.before = think
    game, log = _play(agent, clock=VirtualClock())
    game.act(0, PROPOSE)
    first = threading.Thread(target=game.run_agents)
    first.start()
    for _ in range(1000):  # until the agent is thinking (an event, not a sleep)
        if inside[0]:
            break
        threading.Event().wait(0.005)
    game.run_agents()  # another caller: returns at once, the first looks again
    gate.set()
    first.join(10)
    assert most == [1]
    assert [e.kind for e in log.read("play", kinds=("act",))] == ["act", "act"]


def test_a_closed_play_drops_the_answer_an_agent_was_thinking_about() -> None:
    agent = Thinker()
    game, log = _play(agent, clock=VirtualClock())
    agent.before = game.close  # the server shuts the play while the agent thinks
    game.act(0, PROPOSE)
    game.run_agents()
    assert [e.kind for e in log.read("play")] == ["start", "act"]
