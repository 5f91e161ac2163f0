"""Person-vs-person games on the web: the waiting room, the shared game, leaving, rows.

A condition whose params say ``{"partner": "person"}`` pairs its participants with
each other (:mod:`accord.leagues.han.pairing`) instead of with an agent. The pair
plays one :class:`~accord.leagues.han.game.LiveGame` with both sides driven from their
pages: the one who waited longer takes the person's side, the other the agent's side,
each seeing only their own values and BATNA. The page is the same as against an
agent: this module turns the game around for the person on the agent's side (the
board's columns are always partner, undecided, me) and back for the offers they send.

Leaving: a waiter released after the timeout finishes the study (``released``); one
whose page stopped asking has withdrawn (``gone``); a player who presses Leave
withdraws and the game ends at once with both BATNAs (outcome ``left``): the partner
is told and answers the survey. Every step is in the study's log (``waiting``,
``paired``, ``released``, ``gone``, ``left``, each ``event``), and each person's
row of ``games.csv`` names the pair, their side and their partner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from accord.core.protocols.result import EndReason
from accord.leagues.han.domain import GameSpec, Role
from accord.leagues.han.events import Event, EventKind
from accord.leagues.han.game import LiveGame
from accord.leagues.han.pairing import Pair, WaitingRoom
from accord.web.errors import WebError
from accord.web.study import Study

__all__ = ["PAIRS", "PairGames", "is_pairs"]


class PairHost(Protocol):
    """What the pairs need of the study's service (:class:`~accord.leagues.han.server.HanService`)."""

    @property
    def specs(self) -> Sequence[GameSpec]: ...

    @property
    def study(self) -> Study: ...

    @property
    def lock(self) -> threading.RLock: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def heartbeat(self) -> float: ...

    def wake(self, *pids: str) -> None: ...

    def live_game(
        self, spec: GameSpec, agent: Any, stream: str, who: Sequence[str],
        game_index: int = 0, spacing: float | None = None,
    ) -> LiveGame: ...  # fmt: skip

    def submit(
        self, pid: str, m: LiveGame, side: Role, raw: Any, turn: Any = None, **tags: Any
    ) -> Any: ...

    def game_state(self, m: LiveGame, me: Role, pair: Pair | None = None) -> dict[str, Any]: ...

    def match_due(self, m: LiveGame) -> float: ...

    def record_row(
        self, pid: str, m: LiveGame, body: Any, *, me: Role = "person",
        pair: Pair | None = None, left: bool = False,
    ) -> Any: ...  # fmt: skip

    def _open_row(
        self, pid: str, m: LiveGame, me: Role = "person", pair: Pair | None = None
    ) -> None: ...


PAIRS = {"partner": "person"}
"""The params of a person-vs-person condition."""

_OTHER: dict[str, Role] = {"agent": "person", "person": "agent"}


def is_pairs(params: dict[str, Any]) -> bool:
    """Whether a condition's params make it person-vs-person (see :data:`PAIRS`)."""
    return params.get("partner") == "person"


class PairGames:
    """The person-vs-person side of a :class:`~accord.leagues.han.server.HanService`."""

    def __init__(self, service: PairHost, room: WaitingRoom) -> None:
        self.s = service
        self.room = room
        self.matches: dict[str, LiveGame] = {}  # by pair id
        self._restored: set[str] = set()

    @property
    def spec(self) -> GameSpec:
        return self.s.specs[0]

    # -- the room -----------------------------------------------------------------------
    def enter(self, pid: str) -> Pair | None:
        """``pid``'s page asks: join (or stay in) the room; their pair once there is one."""
        study = self.s.study
        with self.s.lock:
            self._restore(pid)
            status = self.room.status(pid)
            if status in ("released", "gone", "left"):
                return None
            if status == "new" and study.view(pid).status != "consented":
                raise WebError(409, f"participant {pid} is {study.view(pid).status}; no game")
            now = self.s.clock()
            if status == "new":
                study.record(pid, "waiting", {"timeout": self.room.timeout})
            others = set(self.room.waiting) - {pid}
            pair = self.room.join(pid, now)
            gone = others - set(self.room.waiting) - set(self.room.pairs)
            for who in sorted(gone):
                self._exit(who)
            if pid not in self.room.waiting and pair is None:
                self._exit(pid)
                return None
            if pair is not None and pair.id not in self.matches:
                stream = self._stream(pair.id)
                for role, who in pair.sides.items():
                    study.record(
                        who,
                        "paired",
                        {
                            "pair": pair.id, "role": role, "partner": pair.partner_of(who),
                            "game": self.spec.name, "stream": stream,
                        },
                    )  # fmt: skip
                self.matches[pair.id] = self._game(stream, pair.sides.values())
                self.s.wake(pair.partner_of(pid))
            return pair

    def _exit(self, pid: str) -> None:
        """Tell the study how ``pid`` left the room without a partner."""
        why = self.room.exits[pid]
        study = self.s.study
        if study.view(pid).status != "consented":
            return
        if why == "released":
            waited = self.room.timeout
            study.record(pid, "released", {"waited": waited})
            study.complete(pid, {"paired": False, "released": f"no partner within {waited:g} s"})
        else:
            study.withdraw(pid, "closed the page while waiting" if why == "gone" else "left")
        self.s.wake(pid)

    def _stream(self, pair_id: str) -> str:
        return f"{self.s.study.design.id}/han-pair/{pair_id}"

    def _game(self, stream: str, who: Any) -> LiveGame:
        """The pair's game in the study's log (resumed if its stream holds it)."""
        return self.s.live_game(self.spec, None, stream, list(who), spacing=0.0)

    def leave(self, pid: str) -> dict[str, Any]:
        """``pid`` presses Leave: out of the room, or out of the game (which ends with
        both BATNAs; the partner answers the survey)."""
        study = self.s.study
        with self.s.lock:
            self._restore(pid)
            pair = self.room.pairs.get(pid)
            if pair is None:
                if study.view(pid).status == "consented":
                    self.room.leave(pid)
                    self.room.exits[pid] = "left"
                    study.record(pid, "left", {"while": "waiting"})
                    study.withdraw(pid, "left while waiting")
                return {"done": True, "next": study.view(pid).next}
            m = self.matches[pair.id]
            role = pair.role_of(pid)
            running = not m.game.ended
            if running:
                m.leave(role)
            study.record(pid, "left", {"while": "playing" if running else "survey",
                                       "t": m.elapsed(self.s.clock()), "pair": pair.id})  # fmt: skip
            self.s.record_row(pid, m, None, me=role, pair=pair, left=True)
            study.withdraw(pid, "left the game" if running else "left before the survey")
        self.s.wake(pair.partner_of(pid))
        return {"done": True, "next": study.view(pid).next}

    # -- the game -----------------------------------------------------------------------
    def game(self, pid: str) -> tuple[Pair, LiveGame] | None:
        pair = self.enter(pid)
        if pair is None:
            return None
        m = self.matches[pair.id]
        m.advance()
        return pair, m

    def state(self, pid: str) -> dict[str, Any]:
        got = self.game(pid)
        study = self.s.study
        if got is None:
            why = self.room.status(pid)
            if why == "waiting":
                now = self.s.clock()
                deadline = self.room.deadline(pid) or now
                return {"waiting": True, "partner": "person", "timeout": self.room.timeout,
                        "left": max(0.0, deadline - now)}  # fmt: skip
            text = {
                "released": f"No other participant arrived within {self.room.timeout / 60:g} "
                "minutes, so there is no game for you. Thank you for waiting: you are done.",
                "gone": "You left the waiting room.",
                "left": "You left the study.",
            }.get(why, "There is no game for you.")
            return {"released": text, "how": why, "next": study.view(pid).next}
        pair, m = got
        out = self.s.game_state(m, pair.role_of(pid), pair)
        if m.game.ended:
            self._open_rows(pair, m)
        return out

    def _open_rows(self, pair: Pair, m: LiveGame) -> None:
        """Both people's rows of an ended game, before any survey (``surveyAnswered`` 0):
        a person who skips the survey still has their row; an answer replaces it."""
        with self.s.lock:
            for role, who in pair.sides.items():
                self.s._open_row(who, m, role, pair)

    def settle(self, pid: str) -> None:
        """Bring ``pid``'s game (if paired) up to now; an ended game gets its rows. Puts
        nobody in the waiting room."""
        with self.s.lock:
            self._restore(pid)
            pair = self.room.pairs.get(pid)
            m = self.matches.get(pair.id) if pair is not None else None
            if pair is None or m is None:
                return
            m.advance()
            if m.game.ended:
                self._open_rows(pair, m)

    def event(self, pid: str, raw: Any) -> dict[str, Any]:
        got = self.game(pid)
        if got is None:
            raise WebError(409, "you have no partner yet; wait for the game to start")
        pair, m = got
        role = pair.role_of(pid)
        if m.game.ended:
            raise WebError(409, "the game is over; answer the survey")
        try:
            turn = (
                _turned if role == "agent" else None
            )  # the page's columns: partner, undecided, me
            self.s.submit(pid, m, role, raw, turn, pair=pair.id, role=role)
        finally:
            self.s.wake(*pair.sides.values())
        return self.state(pid)

    def survey_target(self, pid: str) -> tuple[Pair, LiveGame, Role]:
        got = self.game(pid)
        if got is None:
            raise WebError(409, "there was no game to answer a survey about")
        pair, m = got
        return pair, m, pair.role_of(pid)

    def due(self, pid: str) -> float:
        """When ``pid``'s page should next hear from the server (on the service clock)."""
        now = self.s.clock()
        with self.s.lock:
            deadline = self.room.deadline(pid)
            if deadline is not None:
                return min(deadline, now + self.s.heartbeat)
            pair = self.room.pairs.get(pid)
            m = self.matches.get(pair.id) if pair else None
        if m is None:
            return now + self.s.heartbeat
        return self.s.match_due(m)

    # -- after a restart ------------------------------------------------------------------
    def _restore(self, pid: str) -> None:
        """Rebuild ``pid``'s pair and game from the study's log (once per participant)."""
        if pid in self._restored:
            return
        self._restored.add(pid)
        log = self.s.study.events.read(self.s.study.design.id, party=pid)
        paired = [e for e in log if e.kind == "paired"]
        exits = {"released": "released", "withdrawn": "left"}
        for e in log:
            if e.kind in exits and pid not in self.room.pairs:
                self.room.exits[pid] = exits[e.kind]  # type: ignore[assignment]
        if not paired or pid in self.room.pairs:
            return
        d = paired[-1].data
        role: Role = d["role"]
        sides: dict[Role, str] = {role: pid, _OTHER[role]: str(d["partner"])}
        stream = str(d.get("stream") or self._stream(str(d["pair"])))
        m = self._game(stream, sides.values())
        pair = Pair(str(d["pair"]), sides, m.t0)
        self.room.restore(pair)
        self.matches[pair.id] = m
        self._restored.update(sides.values())


def _turned(ev: Event) -> Event:
    """An event of the person on the agent's side, from their page's view to the game's."""
    if ev.kind is EventKind.SEND_OFFER and ev.offer is not None:
        return replace(ev, offer=ev.offer.mirrored())
    return ev


def outcome_for(m: LiveGame, role: Role) -> str:
    """How the game ended, for ``role`` (``partner_left`` when the other side left)."""
    r = m.game.result
    if r.reason is EndReason.LEFT:
        return "left" if r.left_by == role else "partner_left"
    return r.outcome
