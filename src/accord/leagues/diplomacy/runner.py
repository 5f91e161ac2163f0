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

from .board import Board, board, distances_from
from .deals import POWERS, SEASONS, Deal, OrderCommitment, parse_order, province
from .engine import new_game, phase_parts
from .negotiator import Negotiator, Round
from .notary import Notary
from .scoring import LAST_YEAR, check_last_year, game_points, solo_winner
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

    def deals_by_power(self) -> dict[str, list[dict[str, Any]]]:
        """The confirmed deals of each power: ``{power: [{id, phase, deal}]}``."""
        out: dict[str, list[dict[str, Any]]] = {p: [] for p in POWERS}
        for row in self.phases:
            for e in row.get("events", []):
                if e["kind"] != "confirm":
                    continue
                deal = row["deals"].get(e["id"], {})
                for power in e["to"]:
                    out.setdefault(power, []).append(
                        {"id": e["id"], "phase": row["phase"], "deal": deal}
                    )
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "players": self.players,
            "deals": self.deals_by_power(),
            "centres": self.centres,
            "survivors": self.survivors,
            "end": self.end,
            "points": self.points,
            "violations": self.violations,
            "errors": self.errors,
            "phases": self.phases,
        }


def map_error(game_map: Any, order: str) -> str | None:
    """Why ``order`` could never be given on ``game_map`` (wrong unit for the place, a
    move or support to a place it does not reach), or ``None``."""
    p = parse_order(order)
    words = order.upper().split()
    unit = f"{p.unit} {p.location}"
    if not game_map.is_valid_unit(unit):
        return f"{order!r}: no {'army' if p.unit == 'A' else 'fleet'} can be in {p.location}"
    if p.kind == "-":
        dest = p.target or ""
        direct = words[-1] != "VIA" and game_map.abuts(p.unit, p.location, "-", dest)
        if not direct and not _convoyable(game_map, p.unit, p.location, dest):
            return f"{order!r}: {unit} cannot reach {dest}"
        return None
    if p.kind in ("S", "C"):
        other = f"{words[3]} {words[4]}"
        if not game_map.is_valid_unit(other):
            return f"{order!r}: no such unit {other!r} can exist"
        into = words[6] if len(words) == 7 else words[4]
        if len(words) == 7 and not (
            game_map.abuts(words[3], words[4], "-", into)
            or _convoyable(game_map, words[3], words[4], into)
        ):
            return f"{order!r}: {other} cannot reach {into}"
        if p.kind == "S" and not game_map.abuts(p.unit, p.location, "S", into):
            return f"{order!r}: {unit} cannot support into {into}"
        if p.kind == "C" and game_map.area_type(p.location) != "WATER":
            return f"{order!r}: only a fleet at sea convoys"
    return None


def _convoyable(game_map: Any, unit: str, here: str, dest: str) -> bool:
    return (
        unit == "A"
        and game_map.area_type(here) == "COAST"
        and game_map.area_type(dest) in ("COAST", "PORT")
    )


def _unreachable(game: Any, b: Board, c: OrderCommitment, now: tuple[int, int]) -> str | None:
    """Why no unit of ``c.power`` could be where ``c`` needs one in time, or ``None``."""
    p = c.parsed
    moves = (c.year * 2 + SEASONS.index(c.phase)) - (now[0] * 2 + now[1])
    dist = distances_from(game.map, p.unit, p.location)
    for power, unit in b.units.values():
        if power == c.power and unit[0] == p.unit and dist.get(unit.split()[1], 99) <= moves:
            return None
    if c.year > now[0] and province(p.location) in game.powers[c.power].homes:
        return None  # a unit built there in a winter between
    return f"{c.order!r}: no unit of {c.power} can be in {p.location} by then"


def board_check(game: Any) -> Any:
    """A notary check: current-phase orders are legal and every unit can obey the deals;
    later phases' orders could be given on the map by a unit the power could have there."""
    y, season = phase_parts(game.get_current_phase())[1], game.get_current_phase()[0]
    now = (y, SEASONS.index(season))
    b = board(game)

    def check(deals: Sequence[Deal]) -> str | None:
        for d in deals:
            for c in d.commitments:
                if c.when < now:
                    continue
                if c.when > now:
                    why = map_error(game.map, c.order) or _unreachable(game, b, c, now)
                    if why:
                        return f"{c.power} in {c.year}{c.phase}: {why}"
                    continue
                legal = b.possible.get(c.parsed.location, ())
                if c.order.upper() not in legal or c.parsed.location not in b.orderable.get(
                    c.power, ()
                ):
                    return f"illegal order {c.order!r} for {c.power} in {y}{season}"
        involved = sorted({p for d in deals for p in d.involved})
        for power in involved:
            committed, banned = _rules(power, deals, now)
            for loc in b.orderable.get(power, ()):
                if not allowed_orders(b.possible.get(loc, ()), loc, committed, banned):
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
    check_last_year(last_year)
    if not round_seconds > 0:
        raise ConfigError(f"round seconds: expected > 0, got {round_seconds}")
    if ticks < 1:
        raise ConfigError(f"ticks: expected at least 1 a round, got {ticks}")
    try:
        return _play(
            negotiators,
            names=names,
            seed=seed,
            clock=clock,
            round_seconds=round_seconds,
            ticks=ticks,
            last_year=last_year,
            candidates=candidates,
            request_limit=request_limit,
        )
    finally:
        for neg in negotiators.values():
            if neg is not None:
                neg.close()


def _play(
    negotiators: Mapping[str, Negotiator | None],
    *,
    names: Mapping[str, str] | None,
    seed: int | None,
    clock: str,
    round_seconds: float,
    ticks: int,
    last_year: int,
    candidates: int,
    request_limit: int,
) -> GameRecord:
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
            row["deals"] = {e.proposal: _deal_json(notary, e.proposal) for e in notary.log[start:]}
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
    for power, neg in active.items():
        record.errors.extend(e if e.startswith(power) else f"{power}: {e}" for e in neg.errors)
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
    prop = notary.find(pid)
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
        p: Round(
            p,
            game,
            notary,
            tactics,
            deadline,
            now,
            draws,
            limit,
            cache=cache,
            real_time=clock == "real",
        )
        for p in alive
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
