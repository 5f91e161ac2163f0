"""Play one game: negotiation rounds, the tactical module's orders, the end rules.

A game ends at a solo (18 supply centres), an agreed draw (every surviving power votes
for a draw in the same round) or when it reaches Winter of ``last_year`` (1920; the
league enforces it, the engine does not). Phases the engine skips (retreats, winters
with nothing to do) need no handling beyond reading the phase after each step.

The clock is real by default (30 s rounds, as in ANAC 2017); ``clock="virtual"`` counts
``ticks`` calls per round instead, for fast games.

Example (needs the engine):
    >>> rec = play_game({}, seed=1, clock="virtual", last_year=1901)  # doctest: +SKIP
    >>> rec.end  # doctest: +SKIP
    'cap'
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import AccordError, ConfigError

from .deals import POWERS, SEASONS, Deal, province
from .engine import new_game, phase_parts
from .negotiator import Negotiator, Round
from .notary import Notary
from .scoring import LAST_YEAR, game_points, solo_winner
from .tactics import Tactics, _rules, allowed_orders, obeys

__all__ = ["GameRecord", "play_game"]


@dataclass
class GameRecord:
    """Everything about a finished game (JSON-ready via `to_json`)."""

    players: dict[str, str]
    centres: dict[str, int]
    survivors: list[str]
    end: str  # solo, draw, cap
    points: dict[str, int]
    phases: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    violations: int = 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "players": self.players,
            "centres": self.centres,
            "survivors": self.survivors,
            "end": self.end,
            "points": self.points,
            "violations": self.violations,
            "errors": self.errors,
            "phases": self.phases,
        }


def board_check(game: Any) -> Any:
    """A notary check: current-phase orders are legal and every unit can obey the deals."""
    y, season = phase_parts(game.get_current_phase())[1], game.get_current_phase()[0]
    now = (y, SEASONS.index(season))
    possible = game.get_all_possible_orders()

    def check(deals: Sequence[Deal]) -> str | None:
        for d in deals:
            for c in d.commitments:
                if c.when != now:
                    continue
                legal = possible.get(c.parsed.location, [])
                if (
                    c.order.upper() not in legal
                    or c.parsed.location not in game.get_orderable_locations(c.power)
                ):
                    return f"illegal order {c.order!r} for {c.power} in {y}{season}"
        involved = {p for d in deals for p in d.involved}
        for power in involved:
            committed, banned = _rules(power, deals, now)
            for loc in game.get_orderable_locations(power):
                if not allowed_orders(possible.get(loc, []), loc, committed, banned):
                    return f"{power}'s unit in {province(loc)} could obey no order under the deals"
        return None

    return check


def play_game(
    negotiators: Mapping[str, Negotiator | None],
    *,
    names: Mapping[str, str] | None = None,
    seed: int | None = None,
    clock: str = "real",
    round_seconds: float = 30.0,
    ticks: int = 3,
    last_year: int = LAST_YEAR,
    candidates: int = 4,
    request_limit: int = 20,
) -> GameRecord:
    """Play a game; powers missing from ``negotiators`` (or mapped to None) do not negotiate."""
    if clock not in ("real", "virtual"):
        raise ConfigError(f"clock: expected 'real' or 'virtual', got {clock!r}")
    unknown = set(negotiators) - set(POWERS)
    if unknown:
        raise ConfigError(f"negotiators: {sorted(unknown)} are not powers; expected {POWERS}")
    game = new_game()
    rng = random.Random(seed)
    tactics = Tactics(candidates=candidates, seed=rng.randrange(2**31))
    notary = Notary(POWERS)
    active = {p: n for p, n in negotiators.items() if n is not None}
    label = {p: (names or {}).get(p, active[p].name if p in active else "none") for p in POWERS}
    record = GameRecord(label, {}, [], "cap", {})
    end = "cap"
    while True:
        phase = game.get_current_phase()
        season, year, kind = phase_parts(phase)
        if year > last_year or (season == "W" and year == last_year) or game.is_game_done:
            break
        row: dict[str, Any] = {"phase": phase, "centres": _centres(game)}
        units = {p: list(game.get_units(p)) for p in POWERS}
        row["units"] = units
        row["centers_list"] = {p: list(game.get_centers(p)) for p in POWERS}
        draws: set[str] = set()
        if kind == "M":
            notary.advance(year, season, board_check(game))
            start = len(notary.log)
            draws = _negotiate(
                game,
                notary,
                tactics,
                active,
                rng,
                clock,
                round_seconds,
                ticks,
                request_limit,
                record.errors,
            )
            row["events"] = [
                {"kind": e.kind, "id": e.proposal, "from": e.sender, "to": list(e.to)}
                for e in notary.log[start:]
            ]
            row["deals"] = {
                e.proposal: _deal_json(notary, e.proposal)
                for e in notary.log[start:]
                if e.kind == "propose"
            }
        alive = [p for p in POWERS if not game.powers[p].is_eliminated()]
        if draws and set(alive) <= draws:
            end = "draw"
            record.phases.append(row)
            break
        orders: dict[str, list[str]] = {}
        for power in alive:
            deals = notary.confirmed_for(power) if kind == "M" else []
            allies = active[power].allies if power in active else set()
            plan = tactics.plan(game, power, deals, allies)
            orders[power] = list(plan.orders)
            if kind == "M" and not obeys(power, plan.orders, deals, notary.now):
                record.violations += 1
            game.set_orders(power, orders[power])
        row["orders"] = orders
        record.phases.append(row)
        game.process()
        if solo_winner(_centres(game)):
            end = "solo"
            break
    centres = _centres(game)
    record.centres = centres
    record.survivors = [p for p in POWERS if not game.powers[p].is_eliminated()]
    record.end = end
    record.points = game_points(centres, record.survivors)
    record.phases.append(
        {
            "phase": game.get_current_phase(),
            "centres": centres,
            "units": {p: list(game.get_units(p)) for p in POWERS},
            "centers_list": {p: list(game.get_centers(p)) for p in POWERS},
        }
    )
    return record


def _deal_json(notary: Notary, pid: str) -> dict[str, object]:
    for p in notary.confirmed:
        if p.id == pid:
            return p.deal.to_json()
    prop = notary.proposals.get(pid)
    return prop.deal.to_json() if prop else {}


def _centres(game: Any) -> dict[str, int]:
    return {p: len(game.get_centers(p)) for p in POWERS}


def _negotiate(
    game: Any,
    notary: Notary,
    tactics: Tactics,
    active: Mapping[str, Negotiator],
    rng: random.Random,
    clock: str,
    round_seconds: float,
    ticks: int,
    limit: int,
    errors: list[str],
) -> set[str]:
    """Run one round; return the powers that voted for a draw."""
    alive = [p for p in active if not game.powers[p].is_eliminated()]
    if not alive:
        return set()
    draws: set[str] = set()
    tick = [0.0]

    def virtual() -> float:
        return tick[0]

    now: Callable[[], float] = time.monotonic
    if clock == "virtual":
        now = virtual
        deadline = float(ticks)
    else:
        deadline = time.monotonic() + round_seconds
    cache: dict[tuple[object, ...], Any] = {}
    rounds = {
        p: Round(p, game, notary, tactics, deadline, now, draws, limit, cache=cache) for p in alive
    }
    while now() < deadline:
        order = list(alive)
        rng.shuffle(order)
        for p in order:
            rnd = rounds[p]
            try:
                active[p].negotiate(rnd)
            except AccordError as exc:
                errors.append(f"{game.get_current_phase()} {p}: {exc}")
            except Exception as exc:  # a failing agent never stops the game
                errors.append(f"{game.get_current_phase()} {p}: {type(exc).__name__}: {exc}")
        if clock == "virtual":
            tick[0] += 1
        else:
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
    for rnd in rounds.values():
        errors.extend(rnd.errors)
    return draws
