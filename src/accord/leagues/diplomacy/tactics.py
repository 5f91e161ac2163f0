"""The tactical module: orders that obey confirmed deals and spare allies' centres.

A greedy one-step player in the spirit of D-Brane: it builds a few candidate order sets
from the orders each unit may give under the deals (a commitment forces its order, a hold
commitment also allows a support, a DMZ forbids entering or staying), never moves into a
supply centre owned by a named ally, adjudicates each candidate on a copy of the game
(the other powers hold or give the orders the deals commit them to) and keeps the one
with the most supply centres held or occupied afterwards. The candidates: a greedy set
(each unit into a centre it does not own; a unit without one steps towards the nearest,
unless it guards a threatened centre of its own), that set with one of its attacks on a
held centre supported by another own unit, and random sets biased towards centres.
Retreats prefer supply centres; builds fill free home centres; disbands drop the units
farthest from home. It can be asked about any power.

Example (needs the engine):
    >>> from accord.leagues.diplomacy.engine import new_game
    >>> plan = Tactics(candidates=2, seed=1).plan(new_game(), "FRANCE")  # doctest: +SKIP
    >>> len(plan.orders)  # doctest: +SKIP
    3
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .deals import SEASONS, Deal, parse_order, province

__all__ = ["Plan", "Tactics", "allowed_orders", "obeys"]


@dataclass(frozen=True, slots=True)
class Plan:
    """Orders for one power, their value (expected SCs) and whether all deals are obeyed."""

    power: str
    orders: tuple[str, ...]
    value: float
    feasible: bool = True


def _now(game: Any) -> tuple[int, int] | None:
    phase = game.get_current_phase()
    if len(phase) != 6 or phase[5] != "M" or phase[0] not in SEASONS:
        return None
    return (int(phase[1:5]), SEASONS.index(phase[0]))


def _rules(
    power: str, deals: Iterable[Deal], now: tuple[int, int]
) -> tuple[dict[str, list[str]], set[str]]:
    """Commitments per province of ``power`` and provinces it must avoid, for ``now``."""
    committed: dict[str, list[str]] = {}
    banned: set[str] = set()
    for d in deals:
        for c in d.commitments:
            if c.power == power and c.when == now:
                committed.setdefault(province(c.parsed.location), []).append(c.order.upper())
        for z in d.dmzs:
            if power in z.powers and z.when == now:
                banned |= z.provinces
    return committed, banned


def allowed_orders(
    possible: Sequence[str],
    location: str,
    committed: dict[str, list[str]],
    banned: set[str],
) -> list[str]:
    """The orders among ``possible`` for the unit at ``location`` that obey the deals."""
    here = province(location)
    musts = committed.get(here, [])
    out = []
    for order in possible:
        p = parse_order(order)
        dest = province(p.target) if p.target else here
        if dest in banned:
            continue
        if musts and not all(_meets(order, p.kind, m) for m in musts):
            continue
        out.append(order)
    return out


def _meets(order: str, kind: str, must: str) -> bool:
    if order.upper() == must:
        return True
    return must.endswith(" H") and kind == "S"


def obeys(power: str, orders: Iterable[str], deals: Iterable[Deal], now: tuple[int, int]) -> bool:
    """True when ``orders`` of ``power`` keep every commitment and DMZ for ``now``.

    A unit without an order holds.
    """
    committed, banned = _rules(power, deals, now)
    given = {province(parse_order(o).location): o for o in orders}
    for prov, musts in committed.items():
        o = given.get(prov)
        for m in musts:
            if o is None:
                if not m.endswith(" H"):
                    return False
            elif not _meets(o, parse_order(o).kind, m):
                return False
    for o in given.values():
        p = parse_order(o)
        if (province(p.target) if p.target else province(p.location)) in banned:
            return False
    return True


class Tactics:
    """Greedy one-step order search on copies of the game (see the module docstring)."""

    def __init__(self, candidates: int = 6, seed: int | None = None, supported: int = 2) -> None:
        self.candidates = max(1, candidates)
        self.supported = max(0, supported)
        self.rng = random.Random(seed)
        self._scratch: Any = None

    def plan(
        self,
        game: Any,
        power: str,
        deals: Iterable[Deal] = (),
        allies: Iterable[str] = (),
    ) -> Plan:
        """The best plan found for ``power`` in the current phase of ``game``."""
        phase = game.get_current_phase()
        kind = phase[-1] if len(phase) == 6 else ""
        if kind == "R":
            return self._retreats(game, power)
        if kind == "A":
            return self._adjust(game, power)
        now = _now(game)
        if now is None:
            return Plan(power, (), 0.0)
        return self._moves(game, power, list(deals), set(allies), now)

    # -- movement -----------------------------------------------------------------------
    def _moves(
        self, game: Any, power: str, deals: list[Deal], allies: set[str], now: tuple[int, int]
    ) -> Plan:
        committed, banned = _rules(power, deals, now)
        possible = game.get_all_possible_orders()
        ally_scs = {sc for a in allies if a != power for sc in game.get_centers(a)}
        mine = set(game.get_centers(power))
        options: list[list[str]] = []
        feasible = True
        for loc in game.get_orderable_locations(power):
            legal = possible.get(loc, [])
            ok = allowed_orders(legal, loc, committed, banned)
            if not ok:
                feasible = False
                ok = list(legal)
            kind_ok = [o for o in ok if not _into(o, ally_scs)] or ok
            options.append(kind_ok)
        if not options:
            return Plan(power, (), float(len(mine)), feasible)
        scs = set(game.map.scs)
        foreign = {
            province(u.split()[1]): p
            for p, pw in game.powers.items()
            if p != power
            for u in pw.units
        }
        greedy = self._greedy(options, scs - mine)
        cands = [_approach(game, options, greedy, scs - mine - ally_scs, mine, foreign, allies)]
        cands += self._supported(options, cands[0], (scs - mine) & set(foreign))
        for _ in range(self.candidates - 1):
            cands.append([self._pick(opts, scs - mine) for opts in options])
        best: tuple[float, list[str]] = (-1.0, cands[0])
        state = game.get_state()
        theirs: dict[str, list[str]] = {}
        for d in deals:
            for c in d.commitments:
                if c.power != power and c.when == now:
                    theirs.setdefault(c.power, []).append(c.order)
        for cand in cands:
            value = self._value(game, power, cand, state, theirs)
            if value > best[0]:
                best = (value, cand)
        return Plan(power, tuple(best[1]), best[0], feasible)

    @staticmethod
    def _greedy(options: list[list[str]], targets: set[str]) -> list[str]:
        taken: set[str] = set()
        out = []
        for opts in options:
            choice = None
            for o in opts:
                t = parse_order(o).target
                if t and province(t) in targets and province(t) not in taken:
                    choice = o
                    taken.add(province(t))
                    break
            if choice is None:
                holds = [o for o in opts if parse_order(o).kind == "H"]
                choice = holds[0] if holds else opts[0]
            out.append(choice)
        return out

    def _supported(
        self, options: list[list[str]], base: list[str], targets: set[str]
    ) -> list[list[str]]:
        """Variants of ``base`` where one unit attacks a held centre in ``targets`` and
        another of my units supports the attack (a lone attack on a holding unit
        bounces); at most `supported` of them, for different targets."""
        found: dict[str, list[str]] = {}
        order = list(range(len(options)))
        self.rng.shuffle(order)
        for i in order:
            for move in options[i]:
                p = parse_order(move)
                dest = province(p.target) if p.target else ""
                if p.kind != "-" or dest not in targets or dest in found:
                    continue
                wanted = " S " + move.removesuffix(" VIA")
                for j in order:
                    if j == i:
                        continue
                    sup = next((o for o in options[j] if o.endswith(wanted)), None)
                    if sup is not None:
                        cand = list(base)
                        cand[i], cand[j] = move, sup
                        found[dest] = cand
                        break
                if len(found) >= self.supported:
                    return list(found.values())
        return list(found.values())

    def _pick(self, opts: list[str], targets: set[str]) -> str:
        good = [o for o in opts if (t := parse_order(o).target) and province(t) in targets]
        if good and self.rng.random() < 0.7:
            return self.rng.choice(good)
        return self.rng.choice(opts)

    def _value(
        self,
        game: Any,
        power: str,
        orders: list[str],
        state: dict[str, Any],
        theirs: dict[str, list[str]],
    ) -> float:
        if self._scratch is None:
            self._scratch = type(game)(map_name="standard")
        trial = self._scratch
        trial.set_state(copy.deepcopy(state))
        trial.set_orders(power, orders)
        for other, given in theirs.items():
            trial.set_orders(other, given)
        trial.process()
        occupant: dict[str, str] = {}
        for p, pw in trial.powers.items():
            for unit in pw.units:
                occupant[province(unit.split()[1])] = p
        value = 0
        for sc in trial.map.scs:
            who = occupant.get(sc)
            if who == power or (who is None and sc in game.get_centers(power)):
                value += 1
        return float(value)

    # -- retreats and adjustments -------------------------------------------------------
    def _retreats(self, game: Any, power: str) -> Plan:
        possible = game.get_all_possible_orders()
        scs = set(game.map.scs)
        orders = []
        used: set[str] = set()
        for loc in game.get_orderable_locations(power):
            opts = possible.get(loc, [])
            moves = [o for o in opts if " R " in o and province(o.split()[-1]) not in used]
            moves.sort(key=lambda o: province(o.split()[-1]) not in scs)
            if moves:
                used.add(province(moves[0].split()[-1]))
                orders.append(moves[0])
            elif opts:
                orders.append(opts[0])
        return Plan(power, tuple(orders), float(len(game.get_centers(power))))

    def _adjust(self, game: Any, power: str) -> Plan:
        pw = game.powers[power]
        delta = len(pw.centers) - len(pw.units)
        possible = game.get_all_possible_orders()
        orders: list[str] = []
        if delta > 0:
            for loc in game.get_orderable_locations(power):
                builds = [o for o in possible.get(loc, []) if o.endswith(" B")]
                if builds and len(orders) < delta:
                    orders.append(self.rng.choice(builds))
        elif delta < 0:
            homes = set(pw.homes)
            units = sorted(pw.units, key=lambda u: province(u.split()[1]) in homes)
            orders = [f"{u} D" for u in units[:-delta]]
        return Plan(power, tuple(orders), float(len(pw.centers)))


def _into(order: str, centres: set[str]) -> bool:
    t = parse_order(order).target
    return bool(t) and province(t or "") in centres


_GRAPHS: dict[tuple[str, str], dict[str, list[str]]] = {}


def _graph(game: Any, unit: str) -> dict[str, list[str]]:
    """Where a unit of type ``unit`` ("A" or "F") can move from each location (cached)."""
    key = (game.map.name, unit)
    graph = _GRAPHS.get(key)
    if graph is None:
        m = game.map
        graph = {
            loc.upper(): [d.upper() for d in m.loc_abut.get(loc, []) if m.abuts(unit, loc, "-", d)]
            for loc in m.locs
        }
        _GRAPHS[key] = graph
    return graph


def _distances(graph: dict[str, list[str]], targets: set[str]) -> dict[str, int]:
    """Moves from each location to the nearest location in a province of ``targets``."""
    frontier = [loc for loc in graph if province(loc) in targets]
    dist = dict.fromkeys(frontier, 0)
    while frontier:
        nxt = []
        for loc in frontier:
            for d in graph[loc]:
                if d not in dist:
                    dist[d] = dist[loc] + 1
                    nxt.append(d)
        frontier = nxt
    return dist


def _approach(
    game: Any,
    options: list[list[str]],
    base: list[str],
    targets: set[str],
    mine: set[str],
    foreign: dict[str, str],
    allies: set[str],
) -> list[str]:
    """``base`` with each holding unit sent one step towards the nearest centre in
    ``targets`` instead, unless it holds one of my centres next to a foreign unit that
    is not an ally's (the unit then stays to defend it). A unit that cannot get closer
    keeps its order."""
    if not targets:
        return base
    out = list(base)
    taken = {province(t) for o in base if (t := parse_order(o).target)}
    stay = {province(parse_order(o).location) for o in base if parse_order(o).kind != "-"}
    abut = game.map.loc_abut
    dists: dict[str, dict[str, int]] = {}
    for i, order in enumerate(base):
        p = parse_order(order)
        if p.kind != "H":
            continue
        here = province(p.location)
        if here in mine and any(
            foreign.get(province(d)) not in (None, *allies)
            for loc in (p.location, here)
            for d in abut.get(loc, ())
        ):
            continue
        dist = dists.get(p.unit)
        if dist is None:
            dist = dists[p.unit] = _distances(_graph(game, p.unit), targets)
        best = (dist.get(p.location.upper(), 99), order)
        for o in options[i]:
            q = parse_order(o)
            if q.kind != "-" or not q.target or o.endswith(" VIA"):
                continue
            dest = province(q.target)
            if dest in taken or dest in stay:
                continue
            d = dist.get(q.target.upper(), 99)
            if d < best[0]:
                best = (d, o)
        if best[1] != order:
            out[i] = best[1]
            taken.add(province(parse_order(best[1]).target or ""))
            stay.discard(here)
    return out
