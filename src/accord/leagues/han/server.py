"""The competition server: people play agents in the browser, on ``accord.web.study``.

Each registered agent is a condition of a one-round study, so each participant meets one
agent once; the experimenter makes links (N per agent) and watches progress on the
study's admin page. A participant's game is a :class:`~accord.leagues.han.game.LiveGame`:
the rules of :mod:`accord.leagues.han.table` played by the web driver
(:class:`~accord.web.driver.RulesGame`), which alone calls the agent, outside every lock
(a slow agent holds up nobody, and a person's event taken while it thinks waits in the
person's outbox), and keeps every change in the game's own stream of the study's
SQLite file. The platform builds a *fresh* agent for every participant, in a fresh
process of its own unless ``shared_process`` (see :mod:`accord.leagues.han.isolation`).
The page listens to ``GET /api/han/live``, a server-sent event stream (see
:mod:`accord.web.live`) that sends its ``state`` whenever the game changed (the driver
wakes the game when something is due: agent events, the 5-second tick, the time
limit), at the 1-minute warning, or every 5 s, and ends with the result. ``GET
/api/han/state`` gives the same state once (after the agent answered what it is asked).
The page posts events to ``POST /api/han/event``; a malformed event gets the one error
body, its reason is recorded against the person, and the game goes on. After the game
comes the survey (``POST /api/han/survey``); then the game's CSV row (IAGO's columns and
the answers) goes into the study's SQLite file. ``GET /api/han/results`` and
``/api/han/games.csv`` give results per agent and the rows. A restarted server rebuilds
each game from its stream (the web driver's replay): a fresh agent hears again every
question it was asked, so it ends in the state it had; same board, history and
refusals. The game clock is the wall time since the game's start, so the time the
server was down counts (a game whose limit passed meanwhile ends on time-out).
A condition with params ``{"partner": "person"}`` (``han_design(..., pairs=True)``)
pairs its participants with each other instead: see :mod:`accord.leagues.han.pairs`.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import functools
import io
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from accord.core.errors import ConfigError
from accord.core.protocols.rules import IllegalAction
from accord.leagues.han.api import HanAgent
from accord.leagues.han.domain import GameSpec, Role, offer_in_words
from accord.leagues.han.events import EMOTIONS, PRESET_UTTERANCES, InvalidEvent, event_from_json
from accord.leagues.han.game import LiveGame
from accord.leagues.han.pairing import Pair, WaitingRoom
from accord.leagues.han.pairs import PAIRS, PairGames, is_pairs, outcome_for
from accord.leagues.han.play import AgentFactory, Fresh, MatchRecord
from accord.leagues.han.queues import SPACING
from accord.leagues.han.scoring import SURVEY, columns, csv_row
from accord.leagues.han.summary import interval_fields, pair_units
from accord.web.clock import Clock
from accord.web.errors import WebError
from accord.web.live import Live, NotYet
from accord.web.playroutes import play_routes
from accord.web.study import Condition, Consent, Study, StudyDesign

__all__ = ["PAIR_COLUMNS", "STATIC", "HanService", "han_design", "results_table"]

STATIC = Path(__file__).parent / "static"
CONSENT = (
    "You will negotiate with a computer agent over how to split some items, for up to ten "
    "minutes, and then answer a short survey.\n\nWe record your moves and answers, not your name. "
    "You may stop at any time."
)


CONSENT_PAIRS = (
    "You will negotiate over how to split some items, for up to ten minutes, with a computer "
    "agent or with another participant, and then answer a short survey. If you are to play "
    "another participant, you may wait a few minutes for one to arrive.\n\nWe record your "
    "moves and answers, not your name. You may stop at any time."
)


def han_design(
    agents: list[str],
    study_id: str = "han-2017",
    title: str = "Negotiation study",
    *,
    pairs: bool = False,
) -> StudyDesign:
    """One condition per agent, one round each: every participant meets one agent once.

    ``pairs`` adds the condition ``pairs`` (params ``{"partner": "person"}``) whose
    participants play each other, one game per pair (person-vs-person baselines).
    """
    if not agents and not pairs:
        raise ConfigError("a HAN study needs at least one registered agent, or pairs")
    twice = sorted({a for a in agents if agents.count(a) > 1})
    if twice:
        raise ConfigError(f"agent {twice[0]!r} is named twice; one condition per agent")
    bad = [a for a in agents if ":" in a]
    if bad:
        raise ConfigError(
            f"a study's agent is named pkg.module.Class (its condition's name); got {bad[0]!r}"
        )
    if "pairs" in agents:
        raise ConfigError("'pairs' is the person-vs-person condition; use --pairs (pairs=True)")
    conditions = [Condition(name=a, params={"agent": a}) for a in agents]
    if pairs:
        conditions.append(Condition(name="pairs", params=dict(PAIRS)))
    return StudyDesign(
        id=study_id,
        title=title,
        conditions=conditions,
        rounds=1,
        consent=Consent(text=CONSENT_PAIRS if pairs else CONSENT, version="1"),
        task_path="/han.html",
    )


class SurveyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answers: dict[str, int]
    age: int = Field(ge=18, le=120)
    gender: str = Field(max_length=40)
    english_first: bool
    attention: str = Field(max_length=40)


ATTENTION = ("Select 'agree' for this question.", "agree")
PAIR_COLUMNS = ("condition", "partnerType", "pairId", "role", "partner", "surveyAbout", "endedBy")
"""Columns after IAGO's in ``games.csv``: who the row's person played and how it ended.
``role`` is the side of the game they sat on (``person``, or ``agent`` for the second
person of a pair); ``surveyAbout`` is what "my negotiation partner" meant to them."""
DEMOGRAPHIC_COLUMNS = ("age", "gender", "english_first")
"""The demographic form's answers, last in ``games.csv`` (empty for a person who left)."""
HEARTBEAT = 5.0
"""The longest a live stream waits before it sends the state again (seconds)."""


class HanService:
    """The league's routes over a :class:`Study` (see the module docstring)."""

    def __init__(
        self,
        study: Study,
        agents: Mapping[str, AgentFactory],
        spec: GameSpec | Sequence[GameSpec],
        clock: Callable[[], float] | None = None,
        room: WaitingRoom | None = None,
        spacing: float = SPACING,
    ) -> None:
        missing = [
            c.name
            for c in study.design.conditions
            if c.name not in agents and not is_pairs(c.params)
        ]
        if missing:
            raise ConfigError(
                f"the study has agents {missing} that are not registered here: {sorted(agents)}"
            )
        self.study = study
        self.agents = dict(agents)
        self.specs = [spec] if isinstance(spec, GameSpec) else list(spec)
        if not self.specs:
            raise ConfigError("a HAN study needs at least one game")
        self.spec = self.specs[0]
        self.clock = clock or study.clock.now
        self.agent_of: dict[str, HanAgent] = {}  # one agent instance per participant
        self.played: dict[str, int] = {}  # games finished (survey answered) per participant
        self.fresh = Fresh()
        self.matches: dict[str, LiveGame] = {}
        self.lock = threading.RLock()  # the maps below, pairing; never held over an agent call
        self.loop: asyncio.AbstractEventLoop | None = None  # set by open()
        self._game_locks: dict[str, threading.RLock] = {}
        self._last: dict[str, dict[str, Any]] = {}  # each page's last state (see state())
        self.live = Live(heartbeat=HEARTBEAT)  # topic: a participant's id
        self.heartbeat = HEARTBEAT
        self.spacing = spacing
        self.pairs = PairGames(self, room or WaitingRoom())
        # (participant, game index) with a row in the log: answered, or ended unanswered
        self._rowed: set[tuple[str, int]] = {
            (str(e.party), int(e.data.get("index", 0)))
            for e in study.events.read(kinds=("game_row", "game_row_open"))
        }

    def _is_pairs(self, pid: str) -> bool:
        return is_pairs(self.study.view(pid).params)

    # -- games ---------------------------------------------------------------------------
    async def open(self) -> None:
        """At start-up: games are woken on this loop when something is due."""
        self.loop = asyncio.get_running_loop()

    def live_game(
        self, spec: GameSpec, agent: HanAgent | None, stream: str, who: Sequence[str],
        game_index: int = 0, spacing: float | None = None,
    ) -> LiveGame:  # fmt: skip
        """A game in the study's log (stream ``stream``; resumed if it holds one) whose
        changes wake the live streams of ``who``."""
        return LiveGame(
            spec, agent, spacing=self.spacing if spacing is None else spacing,
            game_index=game_index, log=self.study.events, stream=stream,
            clock=self.study.clock, loop=self.loop, on_change=lambda: self.wake(*who),
        )  # fmt: skip

    def match(self, pid: str, *, wait: bool = True) -> LiveGame:
        """``pid``'s running game, moved to now (built or rebuilt on first use); with
        ``wait``, after its agent answered what it is asked.

        Only ``pid``'s own lock is held while its agent is built or rebuilt; its answers
        come outside every lock: a slow or hung agent delays its own participant (who
        waits for it), never the others.
        """
        with self.game_lock(pid):
            with self.lock:
                m = self.matches.get(pid)
            if m is None:
                view = self.study.view(pid)
                if view.status != "consented":
                    raise WebError(
                        409, f"participant {pid} is {view.status}; there is no game to play"
                    )
                m = self._resume(pid) if pid not in self.agent_of else None
                if m is None:
                    m = self._next_game(pid, str(view.params["agent"]))
                with self.lock:
                    self.matches[pid] = m
        m.advance(wait=wait)
        return m

    def game_lock(self, pid: str) -> threading.RLock:
        """The lock of ``pid``'s game: held while its agent is built, by no one else."""
        with self.lock:
            lock = self._game_locks.get(pid)
            if lock is None:
                lock = self._game_locks[pid] = threading.RLock()
            return lock

    def _stream(self, pid: str, k: int) -> str:
        return f"{self.study.design.id}/han/{pid}/{k}"

    def _next_game(self, pid: str, name: str) -> LiveGame:
        """Start ``pid``'s next game of the sequence against the same agent instance."""
        agent = self.agent_of.get(pid)
        if agent is None:
            agent = self.fresh(self.agents[name])
            with self.lock:
                self.agent_of[pid] = agent
        k = self.played.get(pid, 0)
        spec, stream = self.specs[k], self._stream(pid, k)
        self.study.record(
            pid, "game_start", {"agent": name, "game": spec.name, "index": k, "stream": stream}
        )
        return self.live_game(spec, agent, stream, [pid], k)

    def _resume(self, pid: str) -> LiveGame | None:
        """Rebuild ``pid``'s agent and games from the log; the running game if there is one.

        Each game is replayed from its stream into one fresh agent (the web driver's
        replay: the agent hears every question again), so it ends in the state it had.
        """
        log = self.study.events.read(self.study.design.id, party=pid)
        starts = [e for e in log if e.kind == "game_start"]
        if not starts:
            return None
        agent = self.fresh(self.agents[str(starts[0].data["agent"])])
        with self.lock:
            self.agent_of[pid] = agent
        rowed = {int(e.data.get("index", 0)) for e in log if e.kind == "game_row"}
        running: LiveGame | None = None
        for k, e in enumerate(starts):
            stream = str(e.data.get("stream") or self._stream(pid, k))
            m = self.live_game(self.specs[k], agent, stream, [pid], k)
            if k in rowed:
                self.played[pid] = k + 1
                running = None
            else:
                running = m
        return running

    def state(self, pid: str, *, wait: bool = True) -> dict[str, Any]:
        """What ``pid``'s page shows now. With ``wait`` false (the live stream), the
        agent is not waited for, and a game being built answers with the last state sent."""
        if self._is_pairs(pid):
            return self.pairs.state(pid)
        lock = self.game_lock(pid)
        if not lock.acquire(blocking=wait):
            with self.lock:
                last = self._last.get(pid)
            if last is None:
                raise NotYet(f"{pid}'s agent is being built: nothing to show yet")
            return last
        try:
            m = self.match(pid, wait=False)
        finally:
            lock.release()
        if wait:
            m.advance()
        out = self.game_state(m, "person")
        if "result" in out:
            self._open_row(pid, m)
        with self.lock:
            self._last[pid] = out
        return out

    def game_state(self, m: LiveGame, me: Role, pair: Pair | None = None) -> dict[str, Any]:
        """What the person on side ``me`` sees; the board's columns are always (other
        side, undecided, me), so the person on the agent's side sees it turned round."""
        with m.play.lock:  # the game does not change while it is read
            return self._game_state(m, me, pair)

    def _game_state(self, m: LiveGame, me: Role, pair: Pair | None) -> dict[str, Any]:
        now = self.clock()
        g = m.game
        other: Role = "agent" if me == "person" else "person"
        face, until = m.expression.get(other, ("neutral", 0.0))
        elapsed = min(m.elapsed(now), m.spec.total_time)
        st = g.state(me)
        if me == "agent" and g.last_offer is not None:
            st["offer"] = g.last_offer.mirrored().to_list()
        out = {
            **st,
            "accepted": sorted("me" if a == me else "partner" for a in g.accepted),
            "left": max(0.0, m.spec.total_time - elapsed),
            "game": m.game_index + 1,
            "games": 1 if pair else len(self.specs),
            "partner": "person" if pair else "agent",
            "agentFace": face if m.elapsed(now) < until else "neutral",
            "history": [
                {
                    "t": round(t, 1),
                    "who": "person" if e.owner == me else "agent" if e.owner == other else e.owner,
                    "kind": e.kind.value,
                    "text": _seen(e, me, m.spec.issues, m.spec.singular),
                }
                for t, e in m.feed
            ],
            "refused": [v.reason for v in g.violations if v.side == me],
            "presets": [t for t, _ in PRESET_UTTERANCES],
            "emotions": list(EMOTIONS),
        }
        if pair is not None:
            out["pair"] = pair.id
        if g.ended:
            out["result"] = {"outcome": outcome_for(m, me), "points": g.result.points[me]}
            out["survey"] = [{"key": k, "text": t} for k, t, _ in SURVEY]
            out["attention"] = ATTENTION[0]
        return out

    def act(self, pid: str, raw: Any) -> dict[str, Any]:
        """One event of the person's (the page's JSON, checked by ``event_from_json``)."""
        if self._is_pairs(pid):
            return self.pairs.event(pid, raw)
        m = self.match(pid, wait=False)  # taken at once, even while the agent thinks
        if m.game.ended:
            raise WebError(409, "the game is over; answer the survey")
        self.submit(pid, m, "person", raw)
        return self.state(pid)  # after the agent answered: the page sees what it did

    def submit(
        self, pid: str, m: LiveGame, side: Role, raw: Any, turn: Any = None, **tags: Any
    ) -> Any:
        """``pid``'s page event ``raw`` for side ``side`` of ``m`` (``turn``: how it is
        turned from the page's view to the game's): read, played, recorded in the
        study's log; a :class:`WebError` 422 with the reason if it is refused (a
        malformed event's reason is recorded against the side; the game goes on)."""
        try:
            ev = event_from_json(raw, side)
        except InvalidEvent as exc:
            reason = str(exc)[:300]
            m.refuse(side, reason)
            t = m.elapsed(self.clock())
            self.study.record(pid, "refused", {"error": reason, "t": t, "parse": True, **tags})
            raise WebError(422, reason) from None
        if turn is not None:
            ev = turn(ev)
        n = sum(v.side == side for v in m.game.violations)
        try:
            m.submit(side, ev)
        except IllegalAction as exc:  # the game ended meanwhile
            raise WebError(409, f"the game is over; answer the survey ({exc.reason})") from None
        t = m.elapsed(self.clock())
        m.advance()  # an agent asked meanwhile answers: the event goes out (or is refused)
        self.study.record(pid, "event", {"event": ev.to_json(), "t": t, **tags})
        mine = [v for v in m.game.violations if v.side == side]
        if len(mine) > n:
            self.study.record(pid, "refused", {"error": mine[-1].reason, "t": t, **tags})
            raise WebError(422, mine[-1].reason)
        return ev

    def survey(self, pid: str, body: SurveyIn) -> dict[str, Any]:
        pair: Pair | None = None
        me: Role = "person"
        if self._is_pairs(pid):
            pair, m, me = self.pairs.survey_target(pid)
            return self._survey(pid, body, pair, m, me)
        with self.game_lock(pid):
            return self._survey(pid, body, None, self.match(pid), me)

    def _survey(
        self, pid: str, body: SurveyIn, pair: Pair | None, m: LiveGame, me: Role
    ) -> dict[str, Any]:
        if not m.game.ended:
            raise WebError(409, "the survey comes after the game")
        keys = [k for k, _, _ in SURVEY]
        bad = [k for k in keys if not 1 <= body.answers.get(k, 0) <= 7]
        if bad or set(body.answers) != set(keys):
            raise WebError(422, f"the survey needs answers 1..7 to {keys}; got {body.answers}")
        rec, row = self.record_row(pid, m, body, me=me, pair=pair)
        if pair is not None:
            self.study.complete(pid, {"points": rec.result.points[me], "pair": pair.id})
            return {"done": True, "next": self.study.view(pid).next}
        k = rec.game_index
        with self.lock:
            self.matches.pop(pid, None)
            self.played[pid] = k + 1
        if k + 1 < len(self.specs):  # the next game, against the same agent instance
            return {"done": False, "next": self.study.design.task_path}
        self.study.complete(
            pid, {"points": rec.result.points["person"], "likeability": row["likeability"]}
        )
        with self.lock:
            _release(self.agent_of.pop(pid, None))
        return {"done": True, "next": self.study.view(pid).next}

    def record_row(
        self, pid: str, m: LiveGame, body: SurveyIn | None, *, me: Role = "person",
        pair: Pair | None = None, left: bool = False,
    ) -> tuple[MatchRecord, dict[str, Any]]:  # fmt: skip
        """Store ``pid``'s row of the game (with their survey, or none when they left)."""
        rec, row = self._row(pid, m, body, me=me, pair=pair)
        self._rowed.add((pid, rec.game_index))
        row["surveyAnswered"] = int(body is not None)
        self.study.record(
            pid,
            "game_row",
            {"row": row, "demographics": _demographics(body), "index": rec.game_index,
             "end": rec.result.end_time, "left": left},
        )  # fmt: skip
        return rec, row

    def _row(
        self, pid: str, m: LiveGame, body: SurveyIn | None, *, me: Role, pair: Pair | None
    ) -> tuple[MatchRecord, dict[str, Any]]:
        rec: MatchRecord = m.record()
        answers = body.answers if body is not None else None
        row = csv_row(rec, pid, self.study.design.id, answers, me=me)
        cond = str(self.study.view(pid).condition or "")
        if pair is None:
            name = str(self.study.view(pid).params["agent"])
            row["agent1"] = name
            marks = {"partnerType": "agent", "pairId": "", "partner": name, "surveyAbout": "agent"}
        else:
            partner = pair.partner_of(pid)
            row["agent0"], row["agent1"] = "person", "person"
            marks = {"partnerType": "person", "pairId": pair.id, "partner": partner,
                     "surveyAbout": "person"}  # fmt: skip
        row.update(marks, condition=cond, role=me, endedBy=outcome_for(m, me))
        row["attentionPassed"] = (
            int(body.attention.strip().lower() == ATTENTION[1]) if body is not None else 0
        )
        return rec, row

    def leave(self, pid: str) -> dict[str, Any]:
        """The participant presses Leave (pairs conditions)."""
        if not self._is_pairs(pid):
            raise WebError(409, "leaving a game against an agent is not offered; play it out")
        return self.pairs.leave(pid)

    # -- the live channel ----------------------------------------------------------------
    def follow(self, pid: str) -> AsyncIterator[str]:
        """``pid``'s game as server-sent ``state`` events, until the result (or an
        ``error`` event when there is no game to play): the web layer's
        :meth:`~accord.web.live.Live.follow`, woken by :meth:`wake`, read at the game's
        next change by itself (:meth:`_due`) and every :data:`HEARTBEAT` seconds."""
        return self.live.follow(
            pid,
            functools.partial(self.state, pid, wait=False),  # never waits on an agent
            clock=self.study.clock,
            due_in=lambda: self._due(pid) - self.clock(),
            done=lambda s: "result" in s or "released" in s,
        )

    def _due(self, pid: str) -> float:
        """When ``pid``'s game next changes by itself (on :attr:`clock`)."""
        if self._is_pairs(pid):
            return self.pairs.due(pid)
        with self.lock:
            m = self.matches.get(pid)
            if m is None:
                return self.clock() + HEARTBEAT
            return self.match_due(m)

    def match_due(self, m: LiveGame) -> float:
        """When ``m`` next changes by itself: its next event, tick or end, or the warning."""
        due = m.next_due()
        if not m.game.warned:
            due = min(due, m.t0 + m.spec.total_time - m.spec.warning_time)
        return due

    def wake(self, *pids: str) -> None:
        """Make the open live streams of ``pids`` send the state now."""
        self.live.wake(*pids)

    def close(self) -> None:
        """End the live streams and the agents' processes (at shut-down)."""
        self.live.close()
        with self.lock:
            for agent in self.agent_of.values():  # their processes, when isolated
                _release(agent)

    # -- results -------------------------------------------------------------------------
    def _open_row(
        self, pid: str, m: LiveGame, me: Role = "person", pair: Pair | None = None
    ) -> None:
        """Store the row of ``pid``'s ended game before any survey (``surveyAnswered`` 0),
        so a person who never answers still has the game's row; an answer replaces it.
        ``me`` and ``pair``: ``pid``'s side of a person-vs-person game."""
        key = (pid, m.game_index)
        if key in self._rowed or not m.game.ended:
            return
        if self.study.view(pid).status != "consented":
            return  # done or withdrawn: the row was written when that happened
        self._rowed.add(key)
        _, row = self._row(pid, m, None, me=me, pair=pair)
        row["surveyAnswered"] = 0
        self.study.record(pid, "game_row_open", {"row": row, "demographics": {}, "index": key[1]})

    def settle(self) -> None:
        """Bring every game up to now (a game that ended while its people were away gets
        their rows, person-vs-person games too), before the rows are read."""
        for p in self.study.store.all():
            if p.status.value != "consented":
                continue
            with contextlib.suppress(WebError):
                if self._is_pairs(p.pid):
                    self.pairs.settle(p.pid)
                else:
                    self.state(p.pid)

    def _row_events(self) -> list[Any]:
        """The rows' events: each game's answered row, or its open one when unanswered."""
        events = self.study.events.read(kinds=("game_row", "game_row_open"))
        answered = {(e.party, e.data.get("index")) for e in events if e.kind == "game_row"}
        return [
            e
            for e in events
            if e.kind == "game_row" or (e.party, e.data.get("index")) not in answered
        ]

    def rows(self) -> list[dict[str, Any]]:
        """Every game's row (its survey's answers, or empty ones: ``surveyAnswered`` 0)."""
        return [{"surveyAnswered": 1, **e.data["row"]} for e in self._row_events()]

    def export_rows(self) -> list[dict[str, Any]]:
        """:meth:`rows` with the demographic form's answers (``english_first`` as 0/1)."""
        out = []
        for e in self._row_events():
            demo = {k: e.data.get("demographics", {}).get(k, "") for k in DEMOGRAPHIC_COLUMNS}
            if isinstance(demo["english_first"], bool):
                demo["english_first"] = int(demo["english_first"])
            out.append({"surveyAnswered": 1, **e.data["row"], **demo})
        return out

    def results(self) -> list[dict[str, Any]]:
        """Per condition: see :func:`results_table`."""
        self.settle()
        return results_table(self.study.design.conditions, self.rows())

    def router(self) -> APIRouter:
        r = APIRouter(prefix="/api/han")
        participant = Depends(self.study.auth.participant)
        user = Depends(self.study.auth.user)

        # the shared play routes: GET state, GET live, POST event (the page's JSON, read
        # raw; the agent answers in a worker thread, never on the event loop, which
        # serves every other participant's requests and streams)
        play_routes(r, participant, self, body=None, act_path="/event")

        @r.post("/leave")
        def leave(pid: str = participant) -> dict[str, Any]:
            return self.leave(pid)

        @r.post("/survey")
        def survey(body: SurveyIn, pid: str = participant) -> dict[str, Any]:
            return self.survey(pid, body)

        @r.get("/results")
        def results(_: str = user) -> list[dict[str, Any]]:
            return self.results()

        @r.get("/games.csv")
        def games_csv(_: str = user) -> Response:
            buf = io.StringIO()
            self.settle()
            cols = [
                *columns(), "attentionPassed", "surveyAnswered", *PAIR_COLUMNS,
                *DEMOGRAPHIC_COLUMNS,
            ]  # fmt: skip
            w = csv.DictWriter(buf, cols, extrasaction="ignore", lineterminator="\n")
            w.writeheader()
            for row in self.export_rows():
                w.writerow(row)
            return Response(buf.getvalue(), media_type="text/csv")

        return r


def _demographics(body: SurveyIn | None) -> dict[str, Any]:
    if body is None:
        return {}
    return {"age": body.age, "gender": body.gender, "english_first": body.english_first}


def results_table(
    conditions: Sequence[Condition], rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per condition: mean points and likeability, each with its 95 % t interval and n.

    An agent's unit is one game; a pair's unit is the pair (its two people played one
    game together, so they are not independent): ``points`` is the pair's mean per
    person, ``joint_points`` its total, ``likeability`` the mean of its counted members'
    answers. Rows of people who failed the attention check, or left without a survey,
    are not counted in the intervals; ``played`` counts every finished game of the
    condition and ``unsurveyed`` those whose person gave no survey.
    """
    out: list[dict[str, Any]] = []
    for c in conditions:
        mine = [r for r in rows if r.get("condition", r["agent1"]) == c.name]
        counts = {
            "played": len(mine),
            "unsurveyed": sum(1 for r in mine if not r.get("surveyAnswered", 1)),
        }
        rs = [
            r
            for r in rows
            if r.get("condition", r["agent1"]) == c.name
            and r.get("attentionPassed", 1)
            and r["likeability"] != ""
        ]
        if not is_pairs(c.params):
            out.append({
                "agent": c.name, "games": len(rs), **counts,
                **interval_fields("points", [float(r["vhPoints"]) for r in rs]),
                **interval_fields("likeability", [float(r["likeability"]) for r in rs]),
            })  # fmt: skip
            continue
        joint = pair_units(rs, lambda p: float(p[0]["userPoints"]) + float(p[0]["vhPoints"]))
        like = pair_units(rs, lambda p: sum(float(r["likeability"]) for r in p) / len(p))
        out.append({
            "agent": c.name, "games": len(rs), "pairs": len(joint), **counts,
            **interval_fields("points", [j / 2 for j in joint]),
            **interval_fields("joint_points", joint),
            **interval_fields("likeability", like),
        })  # fmt: skip
    return out


def create_han_app(
    db: str | Path,
    agents: list[str],
    *,
    game: str | Sequence[str] = "example-1",
    time_limit: float | None = None,
    warning_time: float | None = None,
    password: str | None = None,
    study_id: str = "han-2017",
    clock: Clock | None = None,
    pairs: bool = False,
    wait: float = 300.0,
    shared_process: bool = False,
    sandbox: str = "os",
    agent_timeout: float | None = None,
) -> tuple[Any, Study, HanService]:
    """The app of a HAN study in SQLite file ``db`` with the named agents (resumable).

    ``game`` is one game or a sequence: each participant plays them in order against
    the same agent instance, with the survey after each game. ``pairs`` adds the
    person-vs-person condition ``pairs`` (its pairs play the first game); a participant
    waits at most ``wait`` seconds for a partner.

    Each participant's agent runs in a fresh process of its own (see
    :mod:`accord.leagues.han.isolation`), so nothing an earlier participant's game left
    in a class or a module reaches the next; ``shared_process`` runs every agent in
    this server's process instead (trusted agents only: a fresh instance each, but
    class attributes and module globals carry over, and a crash or hang stops the server).
    ``agent_timeout`` is the seconds one call of an agent may take (default
    :data:`~accord.leagues.han.isolation.TIMEOUT`); a late agent's process is killed and
    its game ends with both BATNAs. Only that participant ever waits on its agent: the
    web driver asks it outside every lock, so the others' requests go on (and the
    participant's own events are taken meanwhile), and the agent's events reach the
    page one per 1.1 s at most, as in ``play`` (flood protection).
    ``sandbox`` (``os``, the default, ``process`` or ``none``, see :mod:`accord.sandbox`)
    is how each participant's agent process is isolated.
    """
    from accord.leagues.han.domain import domain
    from accord.leagues.han.isolation import TIMEOUT, isolated_factory
    from accord.leagues.han.naming import agent_class
    from accord.sandbox import require_mode
    from accord.web.study import create_study_app

    timeout = TIMEOUT if agent_timeout is None else agent_timeout
    if not timeout > 0:
        raise ConfigError(f"agent_timeout is a number of seconds above 0; got {agent_timeout}")
    shared_process = shared_process or sandbox == "none"
    if not shared_process and agents:
        require_mode(sandbox)  # refused with one line where the OS sandbox cannot run
    factories: dict[str, AgentFactory] = {
        a: agent_class(a) if shared_process else isolated_factory(a, timeout, mode=sandbox)
        for a in agents
    }
    names = [game] if isinstance(game, str) else list(game)
    if not names:
        raise ConfigError("a HAN study needs at least one game")
    specs = [domain(g) for g in names]
    if time_limit is not None:
        specs = [s.with_time(time_limit, warning_time) for s in specs]
    study = Study(db, han_design(agents, study_id, pairs=pairs), password=password, clock=clock)
    service = HanService(study, factories, specs, room=WaitingRoom(timeout=wait))
    app = create_study_app(study, service, pages={"/": str(STATIC)})
    return app, study, service


def _release(agent: HanAgent | None) -> None:
    """Stop ``agent``'s process, if it has one."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def _seen(e: Any, me: Role, issues: tuple[str, ...], singular: tuple[str, ...] = ()) -> str:
    """``e`` as the person on side ``me`` reads it (offers turned for the agent's side)."""
    if e.kind.value == "SEND_OFFER" and e.offer is not None:
        return f"offer: {offer_in_words(e.offer, issues, me, singular)}"  # words, never lists
    return str(e.describe(issues))
