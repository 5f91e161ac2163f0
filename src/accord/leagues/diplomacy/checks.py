"""An order-by-order audit of a played game: were the confirmed deals kept?

`audit` replays a game record on the engine and, at every movement phase and for every
power, checks each confirmed commitment and demilitarised zone about that phase against
the orders the power gave. A broken one counts as *broken* when another legal order of
that unit would have kept it, and as *impossible* otherwise (its unit is gone, its order
no longer legal). For each commitment about a later phase it also checks whether the
power's own orders put the committed location out of reach of every unit of the right
type while an order that obeys this phase's deals would have kept one within reach
(*made impossible*). `DealTester` is a negotiator that makes that audit demanding: it
proposes random deals (one to three elements, commitments of both sides and DMZs), half
of them about the next phase, and accepts every proposal it gets.

Example (needs the engine):
    >>> rec = play_game({p: DealTester(i) for i, p in enumerate(POWERS)},
    ...                 seed=1, clock="virtual", last_year=1902)  # doctest: +SKIP
    >>> audit(rec.to_json()).broken  # doctest: +SKIP
    0
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import StateError

from .board import board
from .deals import POWERS, SEASONS, Deal, DealError, Dmz, OrderCommitment, parse_order, province
from .engine import new_game, phase_parts
from .negotiator import Negotiator, Round
from .tactics import _meets, _rules, best_orders, keepers, later_needs

__all__ = ["Audit", "DealTester", "audit"]


@dataclass
class Audit:
    """Counts over a game (or several, with `add`)."""

    games: int = 0
    checked: int = 0
    kept: int = 0
    broken: int = 0
    impossible: int = 0
    later_checked: int = 0
    made_impossible: int = 0
    later_deals: int = 0
    deals: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Audit) -> None:
        """Add another audit's counts to this one."""
        for name in (
            "games",
            "checked",
            "kept",
            "broken",
            "impossible",
            "later_checked",
            "made_impossible",
            "later_deals",
            "deals",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.examples.extend(other.examples[: max(0, 10 - len(self.examples))])


class DealTester(Negotiator):
    """Random deals, half about the next phase; accepts everything addressed to it."""

    name = "deal-tester"

    def negotiate(self, rnd: Round) -> None:
        for p in rnd.proposals():
            if rnd.power not in p.accepted:
                rnd.accept(p.id)
        if rnd.time_left() < 1:
            return
        deal = self._deal(rnd)
        if deal is not None:
            with contextlib.suppress(DealError):  # the notary refused it
                rnd.propose(deal)

    def _deal(self, rnd: Round) -> Deal | None:
        game = rnd.game
        b = board(game)
        y, s = rnd.when
        later = self.rng.random() < 0.5
        when = ((y, "F") if s == "S" else (y + 1, "S")) if later else (y, s)
        others = [p for p in POWERS if p != rnd.power and b.orderable.get(p)]
        if not others:
            return None
        other = self.rng.choice(others)
        parts_c: list[OrderCommitment] = []
        parts_z: list[Dmz] = []
        for _ in range(self.rng.randint(1, 3)):
            who = self.rng.choice([rnd.power, other])
            if self.rng.random() < 0.6 and b.orderable.get(who):
                loc = self.rng.choice(b.orderable[who])
                orders = [o for o in b.possible.get(loc, ()) if " C " not in o]
                if later:  # an order the unit could give again from where it is now
                    orders = [o for o in orders if not o.endswith(" VIA")]
                if orders:
                    parts_c.append(OrderCommitment(when[0], when[1], who, self.rng.choice(orders)))
            else:
                provs = sorted({province(u[1].split()[1]) for u in b.units.values()})
                parts_z.append(Dmz.of(when[0], when[1], [who], [self.rng.choice(provs)]))
        if not parts_c and not parts_z:
            return None
        deal = Deal(rnd.power, tuple(parts_c), tuple(parts_z))
        try:
            deal.validate()
        except DealError:
            return None
        return deal if deal.involved != {rnd.power} else None


def audit(record: Mapping[str, Any]) -> Audit:
    """Replay ``record`` (``GameRecord.to_json()`` with phases) and audit every order."""
    game = new_game()
    out = Audit(games=1)
    confirmed: dict[str, Deal] = {}
    for row in record["phases"]:
        if "orders" not in row:
            break
        phase = row["phase"]
        if game.get_current_phase() != phase:
            raise StateError(f"replay reached {game.get_current_phase()}, record says {phase}")
        season, year, kind = phase_parts(phase)
        if kind == "M":
            now = (year, SEASONS.index(season))
            for ev in row.get("events", []):
                if ev["kind"] == "confirm":
                    deal = Deal.from_json(row["deals"][ev["id"]])
                    confirmed[ev["id"]] = deal
                    out.deals += 1
                    out.later_deals += any(t > now for t in deal.times)
            _audit_phase(game, row, confirmed, now, out)
        for power, orders in row["orders"].items():
            game.set_orders(power, orders)
        game.process()
    return out


def _audit_phase(
    game: Any, row: Mapping[str, Any], confirmed: Mapping[str, Deal], now: Any, out: Audit
) -> None:
    b = board(game)
    for power, orders in row["orders"].items():
        deals = [d for d in confirmed.values() if power in d.involved and not d.is_expired(now)]
        committed, banned = _rules(power, deals, now)
        given = {province(parse_order(o).location): o for o in orders}
        for prov, musts in committed.items():
            for must in musts:
                out.checked += 1
                o = given.get(prov)
                met = must.endswith(" H") if o is None else _meets(o, parse_order(o).kind, must)
                if met:
                    out.kept += 1
                    continue
                loc = parse_order(must).location
                legal = b.possible.get(loc, ()) if loc in b.orderable.get(power, ()) else ()
                if any(_meets(x, parse_order(x).kind, must) for x in legal):
                    out.broken += 1
                    out.examples.append(f"{row['phase']} {power}: {must!r} broken by {o!r}")
                else:
                    out.impossible += 1
        for loc in b.orderable.get(power, ()):
            o = given.get(province(loc))
            if o is None:
                continue
            p = parse_order(o)
            dest = province(p.target) if p.target else province(p.location)
            if dest not in banned:
                continue
            out.checked += 1
            _ok, fewest = best_orders(b.possible.get(loc, ()), loc, committed, banned)
            if fewest == 0:
                out.broken += 1
                out.examples.append(f"{row['phase']} {power}: {o!r} enters or stays in a DMZ")
            else:
                out.impossible += 1
        _audit_later(game, b, power, deals, orders, committed, banned, now, out, row["phase"])


def _audit_later(
    game: Any,
    b: Any,
    power: str,
    deals: list[Deal],
    orders: list[str],
    committed: dict[str, list[str]],
    banned: set[str],
    now: tuple[int, int],
    out: Audit,
    phase: str,
) -> None:
    """Later-phase commitments kept within reach by the orders given, against the most
    that orders obeying this phase's deals could have kept (a maximum matching of
    commitments to distinct units)."""
    needs = later_needs(power, deals, now)
    if not needs:
        return
    out.later_checked += len(needs)
    given = {province(parse_order(o).location): o for o in orders}
    locs = list(b.orderable.get(power, ()))
    units = [b.units[province(loc)][1] if province(loc) in b.units else "" for loc in locs]
    actual = []
    could = []
    for loc, unit in zip(locs, units, strict=True):
        o = given.get(province(loc))
        actual.append([o] if o else [f"{unit} H"] if unit else [])
        ok, _n = best_orders(b.possible.get(loc, ()), loc, committed, banned)
        could.append(ok)
    kept = len(keepers(game.map, needs, units, actual))
    best = len(keepers(game.map, needs, units, could))
    if best > kept:
        out.made_impossible += best - kept
        out.examples.append(f"{phase} {power}: kept {kept} of {best} later needs {needs}")


def random_deal_games(games: int, last_year: int = 1903, seed: int = 0) -> Audit:
    """Play ``games`` games of 7 `DealTester` negotiators and audit them all."""
    from .runner import play_game

    rng = random.Random(seed)
    total = Audit()
    for _ in range(games):
        s = rng.randrange(2**31)
        negs: dict[str, Negotiator | None] = {p: DealTester(s + i) for i, p in enumerate(POWERS)}
        rec = play_game(negs, seed=s, clock="virtual", last_year=last_year, candidates=3)
        total.add(audit(rec.to_json()))
    return total
