"""HAN as a pure rule machine: the running game's rules pass the conformance check, and
the shared agent driver is the only code that calls a HAN agent."""

from __future__ import annotations

import importlib
import re
import traceback
from pathlib import Path

import pytest

import accord.leagues.han as han
from accord.core.protocols.base import Phase
from accord.core.protocols.result import EndReason
from accord.drivers import check_rules
from accord.leagues.han import engine
from accord.leagues.han.agents import FairSplitter
from accord.leagues.han.domain import EXAMPLE_1
from accord.leagues.han.events import Event, EventKind
from accord.leagues.han.participants import Cooperative
from accord.leagues.han.play import play
from accord.leagues.han.table import Move, TableRules


def test_the_running_game_passes_the_conformance_check() -> None:
    report = check_rules(TableRules(people=(1,)), seeds=(0,))
    assert report.ok, report.problems
    assert report.steps >= 10


def test_the_agent_driver_is_what_calls_every_agent() -> None:
    callers: list[tuple[str, bool]] = []

    class Watched(FairSplitter):
        def on_event(self, event: Event) -> list[Event]:
            stack = traceback.extract_stack()[:-1]
            by_driver = any(
                f.name == "step" and f.filename.endswith("core/protocols/driver.py") for f in stack
            )
            callers.append((stack[-1].name, by_driver))
            return super().on_event(event)

    rec = play(EXAMPLE_1, Watched, Cooperative)
    assert rec.result.outcome == "deal"
    # every call came from the seat (its ask; end for GAME_END) inside the driver's step
    assert callers[-1] == ("end", True) and set(callers[:-1]) == {("_ask", True)}


def test_an_agent_answers_at_the_time_it_was_asked_and_its_events_go_out_spaced() -> None:
    rules = TableRules(people=(1,))
    t = rules.initial(EXAMPLE_1, 0)
    t, _ = rules.tick(t, 3.0)  # the game starts: the agent must answer GAME_START at 0
    assert rules.to_act(t) == (0, 1) and rules.asked(t, 0).kind is EventKind.GAME_START  # type: ignore[union-attr]
    assert t.now == 0.0 and rules.due(t) == 0.0
    hi = Event(EventKind.SEND_EXPRESSION, emotion="happy")
    t, events = rules.apply(t, 0, Move((hi, hi, hi)), 3.0)
    assert [(e.kind, e.data["t"]) for e in events] == [("SEND_EXPRESSION", 0.0),
                                                       ("SEND_EXPRESSION", 1.1),
                                                       ("SEND_EXPRESSION", 2.2),
                                                       ("answered", 0.0)]  # fmt: skip
    assert not events[-1].visible_to(0) and not events[-1].visible_to(1)  # the organiser's
    # the person heard each at once; the agent is asked again only when free (at 3.3 s)
    assert rules.to_act(t) == (1,) and t.views["person"].heard[1:] == [hi.owned_by("agent")] * 3
    assert rules.due(t) == 5.0  # nothing waits: the next TIME event
    restored = rules.restore(rules.serialize(t))
    assert rules.serialize(restored) == rules.serialize(t)


@pytest.mark.parametrize("module", ["match", "runner", "dispatch", "sandboxed"])
def test_the_leagues_own_loop_is_gone(module: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"accord.leagues.han.{module}")


def test_han_has_no_phase_or_end_reason_of_its_own() -> None:
    assert not hasattr(engine, "GamePhase") and not hasattr(engine, "GameOutcome")
    rec = play(EXAMPLE_1, FairSplitter, Cooperative)
    assert rec.game.phase is Phase.ENDED
    assert (rec.result.reason, rec.result.outcome) == (EndReason.AGREEMENT, "deal")
    g = engine.Game(EXAMPLE_1)
    assert g.phase is Phase.RUNNING
    g.tick(EXAMPLE_1.total_time)
    assert (g.result.reason, g.result.outcome) == (EndReason.DEADLINE, "timeout")


def test_only_the_seat_calls_an_agent_and_nothing_reads_a_clock() -> None:
    """Outside the agents' own ``super()`` calls, ``on_event`` is called by the seat (and,
    inside an agent's sandbox, by its host); no module sleeps or reads the time, except
    ``play`` handing the real clock to the driver."""
    calls, clocks = set(), set()
    for path in Path(han.__file__).parent.glob("*.py"):
        text = path.read_text()
        if re.search(r"(?<!super\(\))\.on_event\(", text):
            calls.add(path.name)
        if re.search(r"time\.(sleep|monotonic|perf_counter|time)\b", text):
            clocks.add(path.name)
    assert calls == {"seats.py", "isolation.py"}
    assert clocks == {"play.py"}
