"""The league's study service on :mod:`accord.web`: pairing, sessions, actions, leaving.

The study itself (links, consent, progress, the experimenter's page, the CSV) is an
:class:`accord.web.study.Study`; each of its conditions names a GENIUS setup in its
``params`` (see :func:`condition`). This service maps the negotiation page's requests onto
:class:`~accord.leagues.genius.live.LiveSession` objects (each a play of the rules on the
web driver, whose stream is in the study's file) kept in the league's
:class:`~accord.leagues.genius.store.GeniusStore`:

- against an agent, a participant's session starts when their negotiation page first asks
  for its state; against ``person``, participants of the same condition are paired in the
  order they arrive, and the session starts when the second one is there;
- each session draws one type per side from the study's seed and the pair's number;
- every action (the people's and the agents', valid or not) is appended to the study's
  event log (kind ``genius.action``, with the session, side, turn, seconds since the start,
  values, validity and error), so the study's CSV has all data with timestamps;
- the page's routes are the shared driver's (:func:`~accord.web.playroutes.play_routes`
  behind the study's participant cookie): ``GET /api/genius/state``, ``POST
  /api/genius/action`` (the action's JSON, checked by the rules) and ``GET
  /api/genius/live``, the page's state as server-sent ``state`` events
  (:meth:`~accord.web.live.Live.follow`), read again after every committed change (and
  every heartbeat); ``POST /api/genius/leave`` is the league's own;
- a session's end completes the round of its people (result: reason, turn, utility);
- a participant who presses "Leave", or whose page shows no sign of life for
  ``leave_after`` seconds, is recorded (event ``genius.left``) and withdrawn from the study
  (status ``withdrawn``); their session is ``abandoned`` and the other person's round is
  completed with ``outcome: abandoned``.

After a restart, every running session is resumed from the league's store.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
from fastapi import APIRouter, Depends

from accord.core.errors import AccordError, ProtocolViolation
from accord.core.imports import is_import_path
from accord.leagues.genius.live import AGENT_PREFIX, LiveSession, play_log
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.pdas import agent_names
from accord.leagues.genius.protocol import Clock, Event, Phase, Rules
from accord.leagues.genius.store import GeniusStore
from accord.sandbox import agent_code
from accord.web.errors import WebError
from accord.web.live import Live
from accord.web.playroutes import play_routes
from accord.web.study import Condition, Study

__all__ = ["GeniusStudy", "condition"]


def condition(
    opponent: str,
    domain: str = "job_candidate",
    side: int = 0,
    turns: int = 14,
    turn_seconds: float = 120.0,
    name: str | None = None,
) -> Condition:
    """A study condition for a GENIUS setup (checked now, with a clear error). An opponent
    named ``pkg.module:Class`` (a submitted agent) runs in :mod:`accord.sandbox`.

    >>> condition("kbagent").params["opponent"]
    'kbagent'
    """
    load_domain(domain)
    if side not in (0, 1):
        raise ProtocolViolation(f"side must be 0 or 1, got {side!r}")
    if opponent != "person" and opponent not in agent_names():
        if not is_import_path(opponent):
            raise ProtocolViolation(
                f"unknown opponent {opponent!r}; expected 'person', one of {agent_names()} "
                "or pkg.module:Class"
            )
        agent_code(opponent)  # its code must be found (a clear error now)
    Rules(turns=turns, turn_seconds=turn_seconds)
    params = {
        "domain": domain,
        "side": side,
        "opponent": opponent,
        "turns": turns,
        "turn_seconds": turn_seconds,
    }
    return Condition(name=name or f"{domain.replace('_', '-')}-vs-{opponent}", params=params)


class GeniusStudy:
    """The negotiation routes of a GENIUS study (``/api/genius/...``)."""

    def __init__(
        self,
        study: Study,
        store_path: str,
        clock: Clock = time.time,
        leave_after: float = 30.0,
        poll_seconds: float = 0.5,
    ) -> None:
        self.study = study
        self.store = GeniusStore(store_path)
        self.plays = play_log(study.store, clock)  # the sessions' plays, in the study's file
        self.clock = clock
        self.leave_after = leave_after
        self.poll_seconds = poll_seconds
        self.lock = threading.RLock()
        self._session_locks: dict[str, threading.RLock] = {}
        self._local = threading.local()
        self.live: dict[str, LiveSession] = {}
        self.seen: dict[str, float] = {}
        self.logged: dict[str, int] = {}
        self.waiting_since: dict[str, float] = {}  # pid -> wall time it began to wait
        self.live_pages = Live()  # the negotiation pages' streams, one topic per participant
        self.final: dict[str, dict[str, Any]] = {}  # pid -> its page's last state, once over
        self._task: asyncio.Task[None] | None = None
        for row in self.store.sessions(population="people"):
            if row["status"] == "running" and row["started"] is not None:
                self.live[row["id"]] = LiveSession.resume(
                    self.store, row["id"], clock=clock, log=self.plays
                )
                self.logged[row["id"]] = len(self.store.events(row["id"]))

    # -- lifecycle (run by accord.web's app) ------------------------------------------------
    async def open(self) -> None:
        """Start the poll loop (deadlines, agents' moves, silent participants), off the
        event loop: an agent's moves never hold up the server's other requests."""

        async def loop() -> None:
            while True:
                await asyncio.sleep(self.poll_seconds)
                await asyncio.to_thread(self.poll_all)

        self._task = asyncio.create_task(loop())

    async def close(self) -> None:
        """Stop the loop and the pages' streams, and close the store."""
        self.live_pages.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.store.close()

    def session_lock(self, sid: str) -> threading.RLock:
        """The lock of session ``sid``: held while its agents are asked, by no one else.
        :attr:`lock` (participants, pairing, the maps) is never held over an agent call."""
        with self.lock:
            lock = self._session_locks.get(sid)
            if lock is None:
                lock = self._session_locks[sid] = threading.RLock()
            return lock

    # -- what the routes do ---------------------------------------------------------------
    def state(self, pid: str) -> dict[str, Any]:
        """The participant's view of their negotiation (pairing or starting it if needed)."""
        with self.lock:
            self.seen[pid] = self.clock()
            p = self._participant(pid)
        self._create_pending()
        if p["session"] is None:
            with self.lock:
                return self._wait(pid)
        with self.session_lock(p["session"]):
            live = self._live(p["session"])
            self._after(live)
            state = live.state(int(p["side"]))
        if p["status"] == "left":
            state["status"] = "left"
        return state

    def act(self, pid: str, data: Any) -> dict[str, Any]:
        """One action of the participant; an invalid one is refused (422), changes nothing
        in the session and is logged to the study's events (``ok`` false, the reason)."""
        with self.lock:
            self.seen[pid] = self.clock()
            p = self._participant(pid)
        self._create_pending()
        if p["session"] is None:
            raise WebError(
                409, "the negotiation has not started: the other participant is not here yet"
            )
        if p["status"] != "playing":
            raise WebError(409, f"this participant has {p['status']}; no action accepted")
        with self.session_lock(p["session"]):
            live = self._live(p["session"])
            try:
                event = live.submit_json(int(p["side"]), data)
            except AccordError as exc:
                raise WebError(409, str(exc)) from exc
            self._after(live)
            if not event.ok:  # refused (nothing changed): logged for the study all the same
                self._log(live, event)
        if not event.ok:
            raise WebError(422, event.error or "invalid action", code="invalid_action")
        return event.to_dict()

    def leave(self, pid: str, why: str = "left the page") -> None:
        """The participant left: recorded; their session is abandoned."""
        with self.lock:
            rows = self.store.participants(token=pid)
            if not rows or rows[0]["status"] in ("left", "done"):
                return
            p = rows[0]
            self.store.update_participant(pid, status="left")
            self.study.events.append(self.study.design.id, "genius.left", {"why": why}, party=pid)
            with contextlib.suppress(AccordError):
                self.study.withdraw(pid, why)
        if p["session"] is not None:
            with self.session_lock(p["session"]):
                live = self._live(p["session"])
                if live.session.phase is Phase.RUNNING:
                    live.leave(int(p["side"]))
                self._after(live)

    def poll_all(self) -> None:
        """Deadlines, agents' moves, silent participants; pages told of every change.
        A session whose agents are being asked (by a participant's request) is skipped
        this time round."""
        with self.lock:
            now = self.clock()
            running = list(self.live.values())
        for live in running:
            lock = self.session_lock(live.sid)
            if not lock.acquire(blocking=False):
                continue
            try:
                turn = live.session.turn
                live.poll()
                self._after(live, force=live.session.turn != turn)
            finally:
                lock.release()
        with self.lock:
            silent = [pid for pid, last in self.seen.items() if now - last > self.leave_after]
            for pid in silent:
                self.seen.pop(pid, None)
        for pid in silent:
            rows = self.store.participants(token=pid)
            if rows and rows[0]["status"] in ("waiting", "playing"):
                self.leave(pid, f"no sign of life for {self.leave_after:g} s")

    # -- internals ---------------------------------------------------------------------------
    def _participant(self, pid: str) -> dict[str, Any]:
        """The participant's row, made (and paired if possible) on their first request."""
        rows = self.store.participants(token=pid)
        if rows:
            return rows[0]
        view = self.study.view(pid)
        if view.status != "consented" or view.condition is None:
            raise WebError(
                409, f"participant {pid} is {view.status}; the negotiation needs consent"
            )
        known = len(self.store.participants(study=view.condition))
        self.store.add_participant(pid, view.condition, known)
        self._start_if_ready(view.condition, dict(view.params))
        return self.store.participants(token=pid)[0]

    def _wait(self, pid: str) -> dict[str, Any]:
        """``pid`` waits alone for a partner; after the design's ``wait_seconds`` it is
        released (done, with the completion code) instead of waiting on."""
        now = self.study.clock.wall()
        since = self.waiting_since.setdefault(pid, now)
        limit = float(self.study.design.wait_seconds)
        rows = self.store.participants(token=pid)
        if now - since < limit or (rows and rows[0]["session"] is not None):
            return {"status": "waiting", "message": "waiting for the other participant"}
        reason = f"No other participant arrived within {limit / 60:.0f} minute(s)."
        self.store.update_participant(pid, status="done")
        self.study.release(pid, reason)
        self.waiting_since.pop(pid, None)
        return {"status": "released", "message": reason, "next": self.study.view(pid).next}

    def _start_if_ready(self, cond: str, params: dict[str, Any]) -> None:
        waiting = [p for p in self.store.participants(study=cond) if p["status"] == "waiting"]
        person = params["opponent"] == "person"
        if not waiting or (person and len(waiting) < 2):
            return
        group = waiting[:2] if person else waiting[:1]
        d = load_domain(params["domain"])
        rng = np.random.default_rng((self.study.design.seed, group[0]["idx"]))
        types = (int(rng.integers(len(d.types[0]))), int(rng.integers(len(d.types[1]))))
        if person:
            names, sides = (group[0]["token"], group[1]["token"]), [0, 1]
        else:
            agent = AGENT_PREFIX + params["opponent"]
            me = group[0]["token"]
            side = int(params["side"])
            names, sides = ((me, agent) if side == 0 else (agent, me)), [side]
        sid = f"{self.study.design.id}-{cond}-{group[0]['idx']}"
        rules = Rules(turns=int(params["turns"]), turn_seconds=float(params["turn_seconds"]))
        lock = self.session_lock(sid)
        lock.acquire()  # a new session: free; held until _create_pending has made it
        seed = self.study.design.seed * 1000 + group[0]["idx"]
        self._local.pending = (lock, sid, d, types, rules, names, seed)
        for p, side in zip(group, sides, strict=True):
            self.store.update_participant(p["token"], session=sid, side=side, status="playing")

    def _create_pending(self) -> None:
        """Make the session this thread just paired (its agents start and make their first
        moves here, under the session's lock only: never under :attr:`lock`)."""
        pending = getattr(self._local, "pending", None)
        if pending is None:
            return
        self._local.pending = None
        lock, sid, d, types, rules, names, seed = pending
        try:
            live = LiveSession.create(
                self.store, sid, d, types, rules, names, clock=self.clock, seed=seed,
                study=self.study.design.id, react=False, log=self.plays,
            )  # fmt: skip
            with self.lock:
                self.live[sid] = live
                self.logged[sid] = 0
            live.poll()  # the agents' first moves
            self._after(live, force=True)
        finally:
            lock.release()

    def _live(self, sid: str) -> LiveSession:
        with self.lock:
            live = self.live.get(sid)
            if live is not None:
                return live
        # its agents: not locked
        live = LiveSession.resume(self.store, sid, clock=self.clock, log=self.plays)
        with self.lock:
            live = self.live.setdefault(sid, live)
            self.logged.setdefault(sid, len(self.store.events(sid)))
        return live

    def _people(self, live: LiveSession) -> list[tuple[int, str]]:
        return [(k, n) for k, n in enumerate(live.names) if not n.startswith(AGENT_PREFIX)]

    def _after(self, live: LiveSession, force: bool = False) -> None:
        """Log new actions to the study, notify the pages, complete ended rounds."""
        events = live.session.events
        with self.lock:
            start = self.logged.get(live.sid, 0)
            self.logged[live.sid] = len(events)
        for e in events[start:]:
            self._log(live, e)
        changed = force or len(events) > start
        ended = live.session.phase is Phase.ENDED or live.status == "abandoned"
        people = self._people(live)
        if ended:
            for side, pid in people:
                self._complete(pid, live, side)
            with self.lock:
                for side, pid in people:
                    self.final[pid] = live.state(side)
                self.live.pop(live.sid, None)
            live.close()
        if changed or ended:  # the pages read it once it is in the file
            pids = [pid for _, pid in people]
            self.study.store.after_commit(lambda: self.live_pages.wake(*pids))

    def _log(self, live: LiveSession, e: Event) -> None:
        data = {
            "session": live.sid,
            "side": live.session.domain.sides[e.party],
            "by": live.names[e.party],
            **{k: v for k, v in e.to_dict().items() if k != "party"},
        }
        self.study.events.append(
            self.study.design.id, "genius.action", data, party=live.names[e.party]
        )

    def _complete(self, pid: str, live: LiveSession, side: int) -> None:
        rows = self.store.participants(token=pid)
        if not rows or rows[0]["status"] in ("done", "left"):
            return  # a participant who left was withdrawn from the study by leave()
        r = live.session.result
        if r is not None:
            result = {"outcome": r.reason.value, "turn": r.turn, "utility": r.utilities[side]}
        else:
            result = {"outcome": "abandoned", "reason": "the other participant left"}
        self.store.update_participant(pid, status="done")
        with contextlib.suppress(AccordError):
            self.study.complete(pid, result)

    def look(self, pid: str) -> dict[str, Any]:
        """``pid``'s state as it stands, for its live stream: it pairs no one, counts no
        sign of life and asks no agent (read under the play's lock only)."""
        with self.lock:
            rows = self.store.participants(token=pid)
            if not rows or rows[0]["session"] is None:
                return {"status": "waiting", "message": "waiting for the other participant"}
            p, live = rows[0], self.live.get(rows[0]["session"])
            state = self.final.get(pid)
        if state is not None:
            state = dict(state)
        else:
            if live is None:  # not loaded (a session that ended before a restart)
                live = self._live(p["session"])
            with live.game.lock:
                state = live.state(int(p["side"]))
        if p["status"] == "left":
            state["status"] = "left"
        return state

    def follow(self, pid: str) -> AsyncIterator[str]:
        """``pid``'s state as server-sent ``state`` events, read again after every
        committed change of its session and every heartbeat, until it is over."""
        over = ("ended", "abandoned", "left", "released")
        return self.live_pages.follow(
            pid, lambda: self.look(pid), clock=self.study.clock, done=lambda s: s["status"] in over
        )

    # -- HTTP -----------------------------------------------------------------------------
    def router(self) -> APIRouter:
        """The shared driver's play routes (``GET /api/genius/state``, ``POST
        /api/genius/action`` with the action's JSON, ``GET /api/genius/live``) and
        ``POST /api/genius/leave``."""
        r = APIRouter(prefix="/api/genius", tags=["genius"])
        participant = Depends(self.study.auth.participant)
        # the action's body is checked by the rules (Action.from_json), in the session's
        # words; its agents answer in a worker thread, never on the event loop
        play_routes(r, participant, self, body=None, act_path="/action")

        @r.post("/leave")
        def leave(pid: str = participant) -> dict[str, bool]:
            self.leave(pid, "pressed Leave")
            return {"ok": True}

        return r
