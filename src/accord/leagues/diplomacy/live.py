"""A person plays one power in the browser against six negotiating agents.

`LiveGame` runs one game on the real clock. In every Spring and Fall the notary opens a
round of ``round_seconds``: the agents negotiate (a tick at most every ``tick_seconds``,
driven by the page's requests), and the person, through the page, proposes deals to any
agents, accepts or rejects the proposals addressed to them, and picks an order for each
unit among those their confirmed deals allow. The round ends when its clock runs out or
the person presses "end round"; then every power's orders are adjudicated (the person's
as chosen, a unit without a choice takes the tactical module's order; the agents' from
the tactical module, which obeys their deals). Retreats and builds are the tactical
module's, the person's included. The page shows the map (the board now), the last phase's orders, the
phase clock, the person's own proposals and deals only (what the notary told them), and
whether each of their deals was kept.

`live_app` puts it on `accord.web` with a participant token: open the printed
``/join/<token>`` link once (it sets a cookie); every API call needs it.

Example (needs the engine)::

    game = LiveGame("FRANCE", seed=1)
    app, link = live_app(game)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from .board import board
from .deals import POWERS, SEASONS, Deal, DealError
from .engine import new_game, phase_parts
from .negotiator import AllianceNegotiator, Negotiator, RandomNegotiator, Round
from .notary import Notary
from .runner import board_check
from .scoring import LAST_YEAR, game_points, solo_winner
from .tactics import Tactics, best_orders, obeys

__all__ = ["LiveGame", "live_app"]

STATIC = Path(__file__).parent / "static"


class DealIn(BaseModel):
    """A deal as the page sends it (see `Deal.to_json`)."""

    model_config = ConfigDict(extra="forbid")
    commitments: list[tuple[int, str, str, str]] = Field(default_factory=list, max_length=12)
    dmzs: list[tuple[int, str, list[str], list[str]]] = Field(default_factory=list, max_length=12)


class OrdersIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    orders: list[str] = Field(max_length=34)


class LiveGame:
    """One game: the person's power, six agents, the notary and the phase clock."""

    def __init__(
        self,
        human: str,
        agents: Mapping[str, Negotiator | None] | None = None,
        *,
        seed: int = 0,
        round_seconds: float = 120.0,
        tick_seconds: float = 0.3,
        last_year: int = LAST_YEAR,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if human not in POWERS:
            raise DealError(f"human: expected one of {POWERS}, got {human!r}")
        self.human = human
        others = [p for p in POWERS if p != human]
        if agents is None:
            agents = {
                p: (AllianceNegotiator(seed + i) if i % 2 == 0 else RandomNegotiator(seed + i))
                for i, p in enumerate(others)
            }
        self.agents = {p: n for p, n in agents.items() if n is not None and p != human}
        self.round_seconds = round_seconds
        self.tick_seconds = tick_seconds
        self.last_year = last_year
        self.clock = clock
        self.game = new_game()
        self.tactics = Tactics(candidates=3, seed=seed)
        self.notary = Notary(POWERS)
        self.lock = threading.Lock()
        self.orders: dict[str, str] = {}
        self.last: dict[str, Any] = {}
        self.end: str | None = None
        self.errors: list[str] = []
        self._inbox: list[dict[str, Any]] = []
        self._last_tick = -1e9
        self._deadline = 0.0
        self._rounds: dict[str, Round] = {}
        self._draws: set[str] = set()
        self._start_phase()

    # -- the clock ----------------------------------------------------------------------
    def _start_phase(self) -> None:
        """Play non-movement phases through; open a negotiation round at a movement one."""
        while True:
            season, year, kind = phase_parts(self.game.get_current_phase())
            if year > self.last_year or (season == "W" and year == self.last_year):
                self._finish("cap")
                return
            if self.game.is_game_done:
                self._finish("solo")
                return
            if kind == "M":
                break
            for power in POWERS:
                plan = self.tactics.plan(self.game, power)
                self.game.set_orders(power, list(plan.orders))
            self.game.process()
        self.notary.advance(year, season, board_check(self.game))
        self.orders = {}
        self._draws = set()
        self._deadline = self.clock() + self.round_seconds
        cache: dict[tuple[object, ...], Any] = {}
        self._rounds = {
            p: Round(
                p,
                self.game,
                self.notary,
                self.tactics,
                self._deadline,
                self.clock,
                self._draws,
                20,
                cache=cache,
                real_time=True,
            )  # fmt: skip
            for p in self.agents
        }
        self._last_tick = -1e9

    def step(self) -> None:
        """Let the agents negotiate (a tick at most every ``tick_seconds``) and end the
        round when its clock has run out. Called on every request of the page."""
        with self.lock:
            if self.end is not None:
                return
            now = self.clock()
            if now >= self._deadline:
                self._end_round()
                return
            if now - self._last_tick < self.tick_seconds:
                return
            self._last_tick = now
            for power, neg in self.agents.items():
                if self.game.powers[power].is_eliminated():
                    continue
                try:
                    neg.negotiate(self._rounds[power])
                except Exception as exc:  # noqa: BLE001 - a failing agent never stops it
                    self.errors.append(f"{power}: {type(exc).__name__}: {exc}"[:300])
            self._inbox.extend(self._events(self.notary.inbox(self.human)))

    def end_round(self) -> None:
        """The person is done: adjudicate now."""
        with self.lock:
            if self.end is None:
                self._end_round()

    def _end_round(self) -> None:
        now = self.notary.now
        orders: dict[str, list[str]] = {}
        kept: dict[str, dict[str, bool]] = {}
        for power in POWERS:
            if self.game.powers[power].is_eliminated():
                continue
            deals = self.notary.confirmed_for(power)
            neg = self.agents.get(power)
            plan = self.tactics.plan(self.game, power, deals, neg.allies if neg else ())
            mine = list(plan.orders)
            if power == self.human:
                chosen = {o.split()[1]: o for o in self.orders.values()}
                mine = [chosen.get(o.split()[1], o) for o in mine]
            orders[power] = mine
            self.game.set_orders(power, mine)
        for p in self.notary.confirmed:
            if self.human in p.deal.involved and not p.deal.is_expired(now) and now in p.deal.times:
                kept[p.id] = {
                    w: obeys(w, orders.get(w, []), [p.deal], now) for w in p.deal.involved
                }
        self.last = {"phase": self.game.get_current_phase(), "orders": orders, "kept": kept}
        self.game.process()
        if solo_winner(self._centres()):
            self._finish("solo")
            return
        self._start_phase()

    def _finish(self, end: str) -> None:
        self.end = end

    def _centres(self) -> dict[str, int]:
        return {p: len(self.game.get_centers(p)) for p in POWERS}

    # -- the person's requests ------------------------------------------------------------
    def propose(self, deal: DealIn) -> str:
        """Propose a deal as the person's power (the notary checks it)."""
        d = Deal(
            self.human,
            tuple(_commitment(c) for c in deal.commitments),
            tuple(_dmz(z) for z in deal.dmzs),
        )
        with self.lock:
            self._open()
            return self.notary.propose(self.human, d)

    def answer(self, pid: str, accept: bool) -> bool:
        """Accept or reject a proposal addressed to the person."""
        with self.lock:
            self._open()
            if accept:
                return self.notary.accept(self.human, pid)
            self.notary.reject(self.human, pid)
            return False

    def set_orders(self, orders: list[str]) -> dict[str, str]:
        """Choose orders; each must be one the person's confirmed deals allow."""
        with self.lock:
            self._open()
            allowed = self._allowed()
            chosen: dict[str, str] = {}
            for o in orders:
                unit = " ".join(o.split()[:2])
                if o not in allowed.get(unit, ()):
                    raise DealError(
                        f"order {o!r}: expected one of the orders your deals allow for "
                        f"{unit}: {list(allowed.get(unit, ()))[:8]}..."
                    )
                chosen[unit] = o
            self.orders.update(chosen)
            return dict(self.orders)

    def _open(self) -> None:
        if self.end is not None:
            raise DealError(f"the game is over ({self.end})")

    def _allowed(self) -> dict[str, list[str]]:
        """Per unit (``"A PAR"``): the orders the person's confirmed deals allow."""
        from .tactics import _rules

        b = board(self.game)
        committed, banned = _rules(
            self.human, self.notary.confirmed_for(self.human), self.notary.now
        )
        out: dict[str, list[str]] = {}
        for loc in b.orderable.get(self.human, ()):
            unit = b.units.get(loc[:3])
            if unit is None:
                continue
            ok, _n = best_orders(b.possible.get(loc, ()), loc, committed, banned)
            out[unit[1]] = ok
        return out

    # -- what the page shows --------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The person's view (their own proposals and deals only)."""
        self.step()
        with self.lock:
            y, s = self.notary.now
            centres = self._centres()
            return {
                "power": self.human,
                "phase": self.game.get_current_phase(),
                "end": self.end,
                "points": game_points(centres) if self.end else None,
                "seconds_left": max(0.0, self._deadline - self.clock()) if not self.end else 0,
                "when": [y, SEASONS[s]],
                "centres": centres,
                "players": {
                    p: (self.agents[p].name if p in self.agents else "none") for p in POWERS
                }
                | {self.human: "you"},
                "units": {p: list(self.game.get_units(p)) for p in POWERS},
                "allowed": self._allowed() if not self.end else {},
                "orders": dict(self.orders),
                "proposals": [
                    {"id": p.id, "deal": p.deal.to_json(), "accepted": sorted(p.accepted)}
                    for p in self.notary.proposals_for(self.human)
                ],
                "confirmed": [
                    {"id": p.id, "deal": p.deal.to_json()}
                    for p in self.notary.confirmed
                    if self.human in p.deal.involved and not p.deal.is_expired(self.notary.now)
                ],
                "messages": self._inbox[-50:],
                "last": self.last,
            }

    @staticmethod
    def _events(events: list[Any]) -> list[dict[str, Any]]:
        return [
            {"kind": e.kind, "id": e.proposal, "from": e.sender, "to": list(e.to),
             "phase": f"{e.phase}{e.year}"}
            for e in events
        ]  # fmt: skip

    def svg(self) -> str:
        """The board as it stands (drawn by the engine)."""
        from diplomacy.engine.renderer import Renderer

        with self.lock:
            return str(Renderer(self.game).render(incl_orders=True, incl_abbrev=False))

    def router(self, who: Callable[..., str]) -> APIRouter:
        r = APIRouter()

        @r.get("/api/state")
        def get_state(_p: str = Depends(who)) -> dict[str, Any]:
            return self.state()

        @r.get("/api/map.svg")
        def get_map(_p: str = Depends(who)) -> Response:
            return Response(self.svg(), media_type="image/svg+xml")

        @r.post("/api/propose")
        def post_propose(deal: DealIn, _p: str = Depends(who)) -> dict[str, str]:
            return {"id": self.propose(deal)}

        @r.post("/api/proposals/{pid}/{answer}")
        def post_answer(pid: str, answer: str, _p: str = Depends(who)) -> dict[str, bool]:
            if answer not in ("accept", "reject"):
                raise DealError(f"answer: expected 'accept' or 'reject', got {answer!r}")
            return {"confirmed": self.answer(pid, answer == "accept")}

        @r.post("/api/orders")
        def post_orders(body: OrdersIn, _p: str = Depends(who)) -> dict[str, Any]:
            return {"orders": self.set_orders(body.orders)}

        @r.post("/api/end-round")
        def post_end(_p: str = Depends(who)) -> dict[str, str]:
            self.end_round()
            return {"phase": self.game.get_current_phase()}

        return r


def _commitment(c: tuple[int, str, str, str]) -> Any:
    from .deals import OrderCommitment

    return OrderCommitment(int(c[0]), str(c[1]), str(c[2]), str(c[3]))


def _dmz(z: tuple[int, str, list[str], list[str]]) -> Any:
    from .deals import Dmz

    return Dmz.of(int(z[0]), str(z[1]), z[2], z[3])


def live_app(game: LiveGame) -> tuple[Any, str]:
    """The app and the person's join path (``/join/<token>``)."""
    from accord.tournament.sqlite import SqliteFile
    from accord.web.app import create_app
    from accord.web.auth import PARTICIPANT_COOKIE, Auth

    auth = Auth(SqliteFile(":memory:"))
    token = auth.issue(game.human, "participant")
    join = APIRouter()

    @join.get("/join/{tok}")
    def join_game(tok: str) -> Response:
        if auth.subject(tok, "participant") is None:
            from accord.web.errors import WebError

            raise WebError(401, "unknown link: expected the link printed when the game started")
        resp = RedirectResponse("/play.html", status_code=303)
        auth.set_cookie(resp, PARTICIPANT_COOKIE, tok, 24 * 3600)
        return resp

    def who(request: Request) -> str:
        return auth.participant(request)

    app = create_app("Diplomacy: play a power", join, game.router(who), static={"/": STATIC})

    return app, f"/join/{token}"
