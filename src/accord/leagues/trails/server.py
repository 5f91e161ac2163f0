"""The Colored Trails study server: an :mod:`accord.web` study with the league's game page.

The study (links, consent, the experimenter's page at ``/study/admin.html``, progress,
the CSV of every event) is :mod:`accord.web.study`; this module adds the game routes
under ``/api/trails`` and the page ``/trails/play.html``. Each condition names an opponent
(an agent, or ``person``) and a dependency class. Against an agent, a participant's game
starts when the page first asks for its state (the person is player 0); against
``person``, participants of a condition are paired in arrival order. Every action of a
person is logged in the study (kind ``trails.action``); a refused one changes nothing and
is noted for the experimenter (``trails.refused``); a finished game completes the round
with the scores (``trails.end``).

Each game is a play of :class:`~accord.leagues.trails.rules.TrailsRules` on the web
driver (:class:`~accord.web.driver.RulesGame`, with the people's seats and an agent's):
the driver checks every action against the rules, lets the agent act (in its seat of the
agent driver, :class:`~accord.leagues.trails.seats.TrailsSeat`, thinking outside every
lock but its own game's, so a slow agent holds up only its own participant; a refused
answer, an error or a call slower than :data:`AGENT_SECONDS` is recorded against it and
the phase's null action played) and logs every change in the game's stream of the
study's SQLite file (:func:`stream_of`), in the same transaction as the study's records
of it. So a server killed and restarted on the same folder resumes each game at the same
state and a participant's link continues it. This module keeps only the study's part:
pairing, the page's view and its words for a refused action, the study's records.

The page's routes are the shared driver's (:func:`~accord.web.playroutes.play_routes`,
behind the study's participant cookie): ``GET /api/trails/state`` (starts or pairs the
game), ``POST /api/trails/act`` (an :class:`~accord.leagues.trails.personaction.ActIn`)
and ``GET /api/trails/live``, the page's view as server-sent ``state`` events
(:meth:`~accord.web.live.Live.follow`), sent again only once a change is committed to the
study's file (a refused action, or one whose records roll back, sends nothing).

    >>> import tempfile
    >>> from fastapi.testclient import TestClient
    >>> app, study = create_trails_app(tempfile.mkdtemp(), trails_design(["purb"]), password="pw-trails")
    >>> TestClient(app).get("/api/trails/state").json()["code"]
    'unauthorized'
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import RedirectResponse
from starlette.requests import Request as StarletteRequest
from starlette.routing import Route

from accord.core.errors import ConfigError
from accord.core.imports import is_import_path
from accord.core.protocols.rules import IllegalAction
from accord.leagues.trails.agent import Agent
from accord.leagues.trails.board import Settings
from accord.leagues.trails.engine import Game, Phase, Setup
from accord.leagues.trails.generator import CLASSES, BoardSpec, generate
from accord.leagues.trails.match import AGENTS, make_agent
from accord.leagues.trails.personaction import ActIn, person_action, refusal
from accord.leagues.trails.rules import TrailsRules
from accord.leagues.trails.sandboxed import agent_sandbox, sandboxed_agent
from accord.leagues.trails.seats import TrailsSeat
from accord.leagues.trails.store import GameRow, GameStore
from accord.web.driver import RulesGame
from accord.web.errors import WebError
from accord.web.live import Live, NotYet
from accord.web.playroutes import play_routes
from accord.web.store import EventLog
from accord.web.study import Condition, Consent, Study, StudyDesign, create_study_app

__all__ = [
    "AGENT_SECONDS",
    "STATIC",
    "TASK_PATH",
    "TrailsService",
    "create_trails_app",
    "stream_of",
    "trails_design",
]

log = logging.getLogger("accord.trails")

STATIC = Path(__file__).resolve().parent / "static"
TASK_PATH = "/trails/play.html"
CONSENT = Consent(
    text=(
        "You will play Colored Trails with another player, a person or a computer program: "
        "you trade coloured chips and move across a board to your goal. Every proposal, "
        "answer, transfer and move is recorded with its time.\n\nYou may stop at any time."
    ),
    version="1",
)


def trails_design(
    opponents: Sequence[str],
    *,
    dependency: str = "mutual",
    title: str = "Colored Trails study",
    seed: int = 0,
    study_id: str = "trails",
    visibility: str = "full",
    board: BoardSpec | None = None,
    rules: Settings | None = None,
    sandbox: str = "os",
) -> StudyDesign:
    """A one-round study, one condition per opponent (an agent name, ``pkg.module:Class``
    for a submitted agent, run in :mod:`accord.sandbox` in mode ``sandbox``, or ``person``);
    ``visibility`` ``"own"`` hides each player's chips from the other (people and agents);
    ``board`` sets the generator (size, colours, chips) and ``rules`` the turn protocol
    (``protocol``, ``rounds``; its visibility is overridden by ``visibility``)."""
    Settings(visibility=visibility)  # refuses an unknown visibility
    spec = board if board is not None else BoardSpec()
    proto = rules if rules is not None else Settings()
    if dependency not in CLASSES:
        raise ConfigError(f"dependency must be one of {CLASSES}; got {dependency!r}")
    if not opponents:
        raise ConfigError("a study needs at least one opponent: an agent name or 'person'")
    if seed < 0:
        raise ConfigError(f"the seed of the boards is 0 or more; got {seed}")
    twice = sorted({o for o in opponents if list(opponents).count(o) > 1})
    if twice:
        raise ConfigError(f"opponent {twice[0]!r} is named twice; one condition per opponent")
    conds = []
    agent_sandbox("person", sandbox)  # refuses an unknown mode
    for o in opponents:
        if o != "person" and o not in AGENTS and not is_import_path(o):
            raise ConfigError(
                f"unknown opponent {o!r}; expected 'person', one of {list(AGENTS)} "
                "or pkg.module:Class"
            )
        conds.append(
            Condition(
                name=f"{dependency}-vs-{o.replace(':', '.')}",
                params={
                    "opponent": o,
                    "dependency": dependency,
                    "visibility": visibility,
                    "protocol": proto.protocol,
                    "rounds": proto.rounds,
                    "board": spec.to_dict(),
                    **({"sandbox": sandbox} if is_import_path(o) else {}),
                },  # fmt: skip
            )
        )
    return StudyDesign(
        id=study_id,
        title=title,
        conditions=conds,
        rounds=1,
        seed=seed,
        consent=CONSENT,
        task_path=TASK_PATH,
    )


class _Match:
    """One game of the study: its participants (None: the agent's seat), its opponent
    and its play on the web driver (:attr:`play`, set when it opens)."""

    def __init__(self, gid: str, seats: list[str | None], opponent: str) -> None:
        self.id, self.seats, self.opponent = gid, seats, opponent
        self.play: RulesGame = None  # type: ignore[assignment]  # set by _open
        self.agents: list[TrailsSeat | None] = [None, None]
        self.closed = False

    @property
    def game(self) -> Game:
        """The game as it stands (the play's state)."""
        state: Game = self.play.state
        return state


AGENT_SECONDS = 30.0
"""Seconds an agent may think about one action; a slower answer is its failure (a timeout:
recorded against it, the phase's null action is played)."""


def stream_of(gid: str) -> str:
    """The stream of the study file's event log that holds game ``gid``'s play."""
    return f"trails.{gid}"


def _seat(opponent: str, k: int, seed: int, game: Game, sandbox: str = "os") -> TrailsSeat:
    """Player ``k``'s agent in its seat of the agent driver, started on ``game`` (one
    under way: it hears every finished turn again); an agent named ``pkg.module:Class``
    runs in :mod:`accord.sandbox` (mode ``sandbox``)."""
    mode = agent_sandbox(opponent, sandbox)
    agent = make_agent(opponent) if mode is None else sandboxed_agent(opponent, mode)
    seat = TrailsSeat(agent, k, np.random.default_rng(seed))
    try:
        seat.rejoin(game)
    except BaseException:
        _close(seat)
        raise
    return seat


def _close(seat: TrailsSeat | None) -> None:
    """Stop the seat's sandbox, if its agent runs in one."""
    close = getattr(seat.agent, "close", None) if seat is not None else None
    if callable(close):
        close()


class _Finished(Agent):
    """The name of a submitted agent whose game is over (nothing left to ask it)."""

    def __init__(self, name: str) -> None:
        self.name = name


def _rng(seat: TrailsSeat) -> np.random.Generator | None:
    """The agent's random generator, if it lives in this process (kept for a restore)."""
    rng = getattr(seat.agent, "rng", None)
    return rng if isinstance(rng, np.random.Generator) else None


class TrailsService:
    """The game routes of a Colored Trails study (``/api/trails/...``); games in progress
    are restored from the study's file when the service starts."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.store = GameStore(study.store)
        self.log = EventLog(study.store, study.clock)  # the games' plays (their own streams)
        self.lock = threading.RLock()
        self.matches: dict[str, _Match] = {}
        self.by_pid: dict[str, str] = {}
        self.waiting: dict[str, str] = {}  # condition -> pid waiting for a partner
        self.unreadable: dict[str, str] = {}  # game id -> why it could not be restored
        self.waiting_since: dict[str, float] = {}  # pid -> wall time it began to wait (filed)
        self.live = Live()  # the game pages' streams, one topic per participant
        self._restore()

    def _restore(self) -> None:
        """Resume the stored games from their plays (same board, chips, phase, turn,
        proposal, promises); the agent hears the same turns again (its traits) and gets
        back its random state. A game whose stored rows cannot be replayed is set aside
        (logged, in :attr:`unreadable`; its players are told) and every other game is
        restored."""
        for number, raw in enumerate(self.store.game_rows()):
            try:
                self._restore_one(GameRow(raw))
            except Exception as e:  # a bad row must never stop the study
                gid = str(raw.get("gid") or f"#{number}")
                reason = f"{type(e).__name__}: {e}"[:300]
                log.error("trails: game %s cannot be restored and is set aside (%s)", gid, reason)
                self.unreadable[gid] = reason
                self.matches.pop(gid, None)
                for seat in _seats(raw.get("seats")):
                    self.by_pid[seat] = gid
        self.waiting = self.store.waiting()
        self.waiting_since = self.store.waiting_since()

    def _restore_one(self, row: GameRow) -> None:
        stream = stream_of(row.gid)
        if not self.log.read(stream):  # stored as steps, before the web driver held games
            game = Game(row.setup, row.rules)
            for player, action in self.store.steps(row.gid):
                game.step(player, action)
            self.log.append(stream, "start", {"state": game.to_json(), "seed": 0})
        m = _Match(row.gid, row.seats, row.opponent)
        m.closed = row.closed
        self._open(m, row.rules, row.setup, self._seed(row.number), row.agent_rng)
        self.matches[row.gid] = m
        for seat in row.seats:
            if seat is not None:
                self.by_pid[seat] = row.gid

    def _open(
        self,
        m: _Match,
        rules: Settings,
        setup: Setup,
        seed: int,
        agent_rng: dict[str, Any] | None = None,
    ) -> None:
        """Game ``m``'s play on the web driver: new, or resumed from its stream."""
        label = m.opponent.rsplit(":", 1)[-1]

        def seats(state: Game) -> dict[int, TrailsSeat]:
            if m.opponent == "person":
                return {}
            k = m.seats.index(None)
            if m.closed and is_import_path(m.opponent):  # over: no sandbox to start
                m.agents[k] = TrailsSeat(_Finished(label), k, np.random.default_rng(0))
                return {}
            seat = m.agents[k] = _seat(m.opponent, k, seed, state, self._sandbox(m.opponent))
            rng = _rng(seat)
            if rng is not None and agent_rng is not None:
                rng.bit_generator.state = agent_rng
            return {k: seat}

        people = [k for k, pid in enumerate(m.seats) if pid is not None]
        names = ["person" if pid is not None else label for pid in m.seats]
        m.play = RulesGame(
            TrailsRules(rules), setup, people, seats, self.log, clock=self.study.clock,
            names=names, stream=stream_of(m.id), on_change=lambda: self._changed(m),
            agent_seconds=AGENT_SECONDS,
        )  # fmt: skip

    def close(self) -> None:
        """At shut-down: stop the sandboxes of the agents in games still running."""
        with self.lock:  # then each game's lock, never both (a request holds them the
            matches = list(self.matches.values())  # other way round)
        self.live.close()
        for m in matches:
            m.play.close()
            for a in m.agents:
                _close(a)

    # -- games ----------------------------------------------------------------------------
    def _sandbox(self, opponent: str) -> str:
        """The sandbox mode the design gives ``opponent`` (``os`` if it names none)."""
        for c in self.study.design.conditions:
            if c.params.get("opponent") == opponent:
                return str(c.params.get("sandbox", "os"))
        return "os"

    def _seed(self, number: int) -> int:
        return int(self.study.design.seed) * 100_003 + number

    def _start(self, pid: str) -> _Match | None:
        view = self.study.view(pid)
        opponent, dependency = str(view.params["opponent"]), str(view.params["dependency"])
        p = view.params
        rules = Settings(
            visibility=str(p.get("visibility", "full")),
            protocol=str(p.get("protocol", "alternating")),
            rounds=int(p.get("rounds", 2)),
        )
        spec = BoardSpec(**dict(p.get("board") or {}))
        gid = f"g{len(self.matches) + len(self.unreadable) + 1:04d}"
        if opponent == "person":
            cond = str(view.condition)
            other = self.waiting.get(cond)
            if other is None or other == pid:
                self.waiting[cond] = pid
                self.store.set_waiting(cond, pid)
                return None
            del self.waiting[cond]
            self.store.set_waiting(cond, None)
            self.waiting_since.pop(other, None)
            self.store.set_waiting_since(other, None)
            m = _Match(gid, [other, pid], opponent)
        else:
            m = _Match(gid, [pid, None], opponent)
        number = len(self.matches)
        setup = generate(dependency, self._seed(number), **spec.to_dict())
        self.store.add_game(gid, number, m.seats, opponent, setup, rules)
        self._open(m, rules, setup, self._seed(number))
        self.matches[gid] = m
        for k, seat in enumerate(m.seats):
            if seat is not None:
                self.by_pid[seat] = gid
                self.study.record(
                    seat, "trails.start", {"game": gid, "player": k, "setup": setup.to_dict()}
                )
        self._tell(m)
        return m

    @contextlib.contextmanager
    def _atomic(self, pid: str | None) -> Iterator[None]:
        """One transaction for what ``pid``'s request does; when it fails (and the file
        rolls back), the games in memory are put back to what the file holds, so memory
        and file never differ."""
        with self.lock:
            by_pid, waiting = dict(self.by_pid), dict(self.waiting)
            gid = self.by_pid.get(pid) if pid is not None else None
            m = self.matches.get(gid) if gid is not None else None
            version = m.play.version if m is not None else 0
            try:
                with self.store.file.transaction(immediate=True):
                    yield
            except BaseException:
                new = {g for g in self.by_pid.values() if g not in by_pid.values()}
                for g in new:
                    old = self.matches.pop(g, None)
                    if old is not None:
                        old.play.close()
                        for a in old.agents:
                            _close(a)
                self.by_pid, self.waiting = by_pid, waiting
                if m is not None and gid is not None and m.play.version != version:
                    self._reload(gid)
                raise

    def _reload(self, gid: str) -> None:
        """Game ``gid`` again from the file (after a rolled-back request)."""
        old = self.matches.pop(gid, None)
        if old is not None:
            old.play.close()  # an answer its agent is still thinking about is dropped
            for a in old.agents:
                _close(a)
        for raw in self.store.game_rows():
            if raw["gid"] == gid:
                try:
                    self._restore_one(GameRow(raw))
                except Exception as e:  # as at start-up: set aside, say why
                    log.error("trails: game %s cannot be reloaded (%s)", gid, e)
                    self.unreadable[gid] = f"{type(e).__name__}: {e}"[:300]

    def state(self, pid: str) -> dict[str, Any]:
        with self._atomic(pid):
            gid = self.by_pid.get(pid)
            if gid is None:
                m = self._start(pid)
                if m is None:
                    return self._wait(pid)
            else:
                m = self._match(gid)
        m.play.run_agents()  # the agent thinks outside every lock but its game's
        with m.play.lock:
            return self._view(m, m.seats.index(pid))

    def _wait(self, pid: str) -> dict[str, Any]:
        """``pid`` waits alone for a partner; after the design's ``wait_seconds`` it is
        released (done, with the completion code) instead of waiting on."""
        now = self.study.clock.wall()
        if pid not in self.waiting_since:  # kept in the file: a restart loses no wait
            self.waiting_since[pid] = now
            self.store.set_waiting_since(pid, now)
        since = self.waiting_since[pid]
        limit = float(self.study.design.wait_seconds)
        if now - since < limit:
            return {"waiting": True}
        for cond, who in list(self.waiting.items()):
            if who == pid:
                del self.waiting[cond]
                self.store.set_waiting(cond, None)
        reason = f"No other participant arrived within {limit / 60:.0f} minute(s)."
        self.study.release(pid, reason)
        self.waiting_since.pop(pid, None)
        self.store.set_waiting_since(pid, None)
        return {"waiting": False, "released": reason, "next": self.study.view(pid).next}

    def _match(self, gid: str) -> _Match:
        if gid in self.unreadable:
            raise WebError(
                409,
                "your game could not be restored after the server restarted; please contact "
                "the experimenter (your answers so far are kept)",
                code="game_unreadable",
            )
        return self.matches[gid]

    def act(self, pid: str, body: ActIn) -> dict[str, Any]:
        """Do one action of ``pid``'s; a refused one changes nothing in the game and is
        logged for the experimenter (``trails.refused``: who, what arrived, why)."""
        try:
            return self._act(pid, body)
        except WebError as e:
            with self.lock:
                gid = self.by_pid.get(pid)
                m = self.matches.get(gid) if gid is not None else None
                where: dict[str, Any] = {"game": gid}
                if m is not None:
                    seat = m.seats.index(pid) if pid in m.seats else None
                    where |= {"player": seat, "turn": m.game.turn, "phase": m.game.phase.value}
                self.study.note(
                    pid,
                    "trails.refused",
                    {**where, "action": body.model_dump(), "status": e.status, "code": e.code,
                     "reason": e.message},
                )  # fmt: skip
            raise

    def _act(self, pid: str, body: ActIn) -> dict[str, Any]:
        with self.lock:
            gid = self.by_pid.get(pid)
            if gid is None:
                raise WebError(409, "no game yet: open the game page first (GET /api/trails/state)")
            m = self._match(gid)
        # the game's lock, then one transaction: the step, the log entries and the end
        # are stored together (an agent's answer waits for it, and it for the answer)
        with m.play.lock, self._atomic(pid):
            standing = self.study.view(pid).status
            if standing != "consented":
                raise WebError(
                    409,
                    f"you are {standing} in this study; the game takes no more moves",
                    code="not_playing",
                )
            g = m.game
            me = m.seats.index(pid)
            if g.done:
                raise WebError(409, "this game has ended; nothing was changed", code="game_over")
            status, problem = refusal(body, g, me)
            if problem:  # refused: nothing is stored, the game is as it was
                raise WebError(status, problem, code="refused")
            action = person_action(body, g.board.n_colors)
            phase, turn = g.phase.value, g.turn
            self.study.record(
                pid,
                "trails.action",
                {"game": gid, "player": me, "turn": turn, "phase": phase,
                 "action": body.model_dump(), "ok": True, "error": ""},
            )  # fmt: skip
            try:
                m.play.act(me, m.play.rules.action_to_json(g, action))
            except IllegalAction as exc:  # what the page's checks let through: refused too
                raise WebError(422, exc.reason, code="refused") from None
        m.play.run_agents()
        with m.play.lock:
            return self._view(m, me)

    # -- what the play's changes mean for the study ---------------------------------------
    def _changed(self, m: _Match) -> None:
        """After each change of ``m``'s play (in its transaction): the pages are told once
        it commits, the agent's random state is kept, and a finished game completes the
        round."""
        g = m.game
        self._tell(m)
        for a in m.agents:
            rng = _rng(a) if a is not None else None
            if rng is not None:
                self.store.set_agent_rng(m.id, dict(rng.bit_generator.state))
        if g.done and not m.closed:
            m.closed = True
            self.store.close_game(m.id)
            for a in m.agents:
                _close(a)
            result = {
                "game": m.id,
                "scores": g.scores(),
                "end": g.end_reason.value if g.end_reason else None,
                "turns": len(g.history),
            }
            for k, seat in enumerate(m.seats):
                if seat is not None:
                    self.study.record(
                        seat,
                        "trails.end",
                        {**result, "player": k, "history": [r.to_dict() for r in g.history]},
                    )
                    self.study.complete(seat, {**result, "player": k})

    def _tell(self, m: _Match) -> None:
        """Each participant's live stream reads its view of the game again, once what the
        open transaction wrote is committed (never if it rolls back)."""
        pids = [pid for pid in m.seats if pid is not None]
        self.study.store.after_commit(lambda: self.live.wake(*pids))

    def _look(self, pid: str) -> dict[str, Any]:
        """``pid``'s view as it stands, for its live stream: it neither starts a game nor
        asks an agent (``{"waiting": true}`` while no game is there)."""
        with self.lock:
            gid = self.by_pid.get(pid)
            if gid is None:
                return {"waiting": True}
            m = self._match(gid)
        with m.play.lock:
            view = self._view(m, m.seats.index(pid))
        with self.lock:  # one lock at a time: a request takes the game's, then this one
            if self.matches.get(gid) is not m:  # put back from the file meanwhile
                raise NotYet("the game is being reloaded")
        return view

    def follow(self, pid: str) -> AsyncIterator[str]:
        """``pid``'s view as server-sent ``state`` events, read again after every
        committed change of its game (:meth:`_tell`) and every heartbeat, until it ends."""
        return self.live.follow(
            pid, lambda: self._look(pid), clock=self.study.clock, done=lambda s: bool(s.get("done"))
        )

    def _view(self, m: _Match, me: int) -> dict[str, Any]:
        """What player ``me``'s page shows; ``version`` counts the play's changes, so a
        page drops an answer older than the one it shows (answers may overtake)."""
        g = m.game
        b = g.board
        other = 1 - me
        see = g.rules.visibility == "full"
        last = g.history[-1].to_dict() if g.history else None
        out: dict[str, Any] = {
            "waiting": False,
            "version": m.play.version,
            "game": m.id,
            "me": me,
            "rows": b.rows,
            "cols": b.cols,
            "colors": list(b.colors),
            "nColors": b.n_colors,
            "positions": list(g.positions),
            "goals": list(g.goals),
            "chips": [g.chips[me].tolist(), g.chips[other].tolist() if see else None],
            "phase": g.phase.value,
            "actor": g.actor,
            "myTurn": g.actor == me and not g.done,
            "turn": g.turn,
            "dormant": list(g.dormant),
            "dormantLimit": g.rules.dormant_limit,
            "proposal": None,
            "promised": None,
            "score": g.scores()[me],
            "best": g.rules.best_score(b, g.positions[me], g.goals[me], g.chips[me]),
            "done": g.done,
            "end": g.end_reason.value if g.end_reason else None,
            "scores": g.scores() if g.done else None,
            "opponent": "person" if (a := m.agents[other]) is None else a.name,
            "last": last,
            "rules": {
                "protocol": g.rules.protocol,
                "rounds": g.rules.negotiation_rounds,
                "X": g.rules.goal_bonus,
                "Y": g.rules.chip_bonus,
                "Z": g.rules.distance_penalty,
            },
        }
        if g.proposal is not None and g.phase in (Phase.RESPOND, Phase.TRANSFER):
            p = g.proposal
            mine_give = p.give if g.proposer == me else p.take
            mine_get = p.take if g.proposer == me else p.give
            out["proposal"] = {"from": g.proposer, "give": list(mine_give), "get": list(mine_get)}
        if g.phase is Phase.TRANSFER:
            out["promised"] = {
                "mine": g.promised(me).tolist(),
                "theirs": g.promised(other).tolist(),
                "agreed": g.agreed,
            }
        return out

    # -- HTTP -----------------------------------------------------------------------------
    def router(self) -> APIRouter:
        """The shared driver's play routes (``state``, ``act``, ``live``) for the study's
        participants."""
        r = APIRouter(prefix="/api/trails", tags=["trails"])
        return play_routes(r, Depends(self.study.auth.participant), self, body=ActIn)


def _seats(raw: object) -> list[str]:
    """The participants of a damaged game row, as far as they can be read."""
    try:
        seats = json.loads(str(raw))
    except ValueError:
        return []
    return [s for s in seats if isinstance(s, str)] if isinstance(seats, list) else []


def create_trails_app(
    folder: str | Path, design: StudyDesign, password: str | None = None
) -> tuple[FastAPI, Study]:
    """The app and its study (``study.sqlite`` in ``folder``)."""
    root = Path(folder)
    if root.exists() and not root.is_dir():
        raise ConfigError(f"expected a folder for the study's files; {root} is a file")
    root.mkdir(parents=True, exist_ok=True)
    study = Study(root / "study.sqlite", design, password=password)
    service = TrailsService(study)
    app = create_study_app(study, service, pages={"/trails": str(STATIC)})
    app.state.trails = service
    # the address the command prints leads to the experimenter's page, not to a 404
    app.router.routes.insert(0, Route("/", _to_admin, include_in_schema=False))
    return app, study


def _to_admin(_: StarletteRequest) -> RedirectResponse:
    return RedirectResponse("/study/admin.html")
