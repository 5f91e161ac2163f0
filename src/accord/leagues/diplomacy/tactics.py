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
from functools import lru_cache
from typing import Any

from .adjudicate import direct_only, resolve_moves
from .board import Board, board, distances_from, move_graph
from .deals import SEASONS, Deal, ParsedOrder, parse_order, province

__all__ = ["Plan", "Tactics", "allowed_orders", "best_orders", "later_needs", "obeys"]


@dataclass(frozen=True, slots=True)
class Plan:
    """Orders for one power, their value (expected SCs) and whether all deals are obeyed."""

    power: str
    orders: tuple[str, ...]
    value: float
    feasible: bool = True


@lru_cache(maxsize=65536)
def _parse(order: str) -> ParsedOrder:
    return parse_order(order)


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
                musts = committed.setdefault(province(_parse(c.order).location), [])
                if c.order.upper() not in musts:
                    musts.append(c.order.upper())
        for z in d.dmzs:
            if power in z.powers and z.when == now:
                banned |= z.provinces
    return committed, banned


def _breaks(order: str, musts: Sequence[str], banned: set[str]) -> int:
    """How many of the unit's commitments and DMZs ``order`` breaks."""
    p = _parse(order)
    n = sum(1 for m in musts if not _meets(order, p.kind, m))
    dest = province(p.target) if p.target else province(p.location)
    return n + (dest in banned)


def allowed_orders(
    possible: Sequence[str],
    location: str,
    committed: dict[str, list[str]],
    banned: set[str],
) -> list[str]:
    """The orders among ``possible`` for the unit at ``location`` that obey the deals."""
    musts = committed.get(province(location), [])
    return [o for o in possible if _breaks(o, musts, banned) == 0]


def best_orders(
    possible: Sequence[str],
    location: str,
    committed: dict[str, list[str]],
    banned: set[str],
) -> tuple[list[str], int]:
    """The orders breaking the fewest of the unit's commitments and DMZs, and how many.

    When every constraint can be met this is `allowed_orders` with 0; when one cannot
    (its unit is gone, its order no longer legal), only that one is dropped."""
    musts = committed.get(province(location), [])
    best: list[str] = []
    low = 1 << 30
    for o in possible:
        n = _breaks(o, musts, banned)
        if n < low:
            best, low = [o], n
        elif n == low:
            best.append(o)
    return best, (0 if not best else low)


def _meets(order: str, kind: str, must: str) -> bool:
    """True when ``order`` keeps the commitment ``must`` (a hold is also kept by a
    support from the same unit)."""
    order = order.upper()
    if order == must:
        return True
    return kind == "S" and must.endswith(" H") and order.startswith(must[:-1])


def obeys(power: str, orders: Iterable[str], deals: Iterable[Deal], now: tuple[int, int]) -> bool:
    """True when ``orders`` of ``power`` keep every commitment and DMZ for ``now``.

    A unit without an order holds.
    """
    committed, banned = _rules(power, deals, now)
    given = {province(_parse(o).location): o for o in orders}
    for prov, musts in committed.items():
        o = given.get(prov)
        for m in musts:
            if o is None:
                if not m.endswith(" H"):
                    return False
            elif not _meets(o, _parse(o).kind, m):
                return False
    for o in given.values():
        p = _parse(o)
        if (province(p.target) if p.target else province(p.location)) in banned:
            return False
    return True


def _phases_between(now: tuple[int, int], later: tuple[int, int]) -> int:
    """Movement phases strictly between ``now`` and ``later``."""
    return (later[0] * 2 + later[1]) - (now[0] * 2 + now[1]) - 1


def later_needs(
    power: str, deals: Iterable[Deal], now: tuple[int, int]
) -> list[tuple[str, str, int]]:
    """``(unit type, location, moves left)`` for each of ``power``'s commitments about a
    later phase: a unit of that type must be at that location then, and after this
    phase's move it has ``moves left`` movement phases to get there.

    >>> from accord.leagues.diplomacy.deals import OrderCommitment
    >>> d = Deal("FRANCE", (OrderCommitment(1902, "S", "FRANCE", "A PAR H"),))
    >>> later_needs("FRANCE", [d], (1901, 0))
    [('A', 'PAR', 1)]
    """
    best: dict[tuple[str, str], int] = {}
    for d in deals:
        for c in d.commitments:
            if c.power == power and c.when > now:
                p = _parse(c.order)
                left = _phases_between(now, c.when)
                key = (p.unit, p.location.upper())
                best[key] = min(left, best.get(key, left))
    out = [(u, loc, left) for (u, loc), left in best.items()]
    out.sort(key=lambda n: (n[2], n[0], n[1]))
    return out


def keepers(
    game_map: Any,
    needs: Sequence[tuple[str, str, int]],
    units: Sequence[str],
    options: Sequence[Sequence[str]],
) -> dict[int, int]:
    """The most later-phase needs that distinct units can keep: ``need index -> unit index``.

    Unit ``i`` (``"A PAR"``, or "" for none) can keep need ``(type, location, moves left)``
    when one of ``options[i]`` leaves it within ``moves left`` moves of the location. A
    maximum bipartite matching (augmenting paths), needs tried earliest first.

    >>> keepers(None, [], ["A PAR"], [["A PAR H"]])
    {}
    """
    can: list[list[int]] = []
    for utype, where, left in needs:
        dist = distances_from(game_map, utype, where)
        row = []
        for i, unit in enumerate(units):
            if not unit or unit[0] != utype:
                continue
            if any(dist.get(_end(o), 99) <= left for o in options[i]):
                row.append(i)
        row.sort(key=lambda i: dist.get(units[i].split()[1].upper(), 99))
        can.append(row)
    owner: dict[int, int] = {}  # unit -> need

    def augment(k: int, seen: set[int]) -> bool:
        for i in can[k]:
            if i in seen:
                continue
            seen.add(i)
            if i not in owner or augment(owner[i], seen):
                owner[i] = k
                return True
        return False

    for k in range(len(needs)):
        augment(k, set())
    return {k: i for i, k in owner.items()}


class Tactics:
    """Greedy one-step order search (see the module docstring)."""

    def __init__(self, candidates: int = 6, seed: int | None = None, supported: int = 2) -> None:
        self.candidates = max(1, candidates)
        self.supported = max(0, supported)
        self.rng = random.Random(seed)
        self._scratch: Any = None
        self.engine_calls = 0
        self.fast_calls = 0

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
    def options(
        self, game: Any, power: str, deals: Sequence[Deal], allies: Iterable[str] = ()
    ) -> tuple[list[str], list[list[str]], bool]:
        """``(locations, orders each unit may give, every constraint can be kept)``.

        Per unit: the legal orders breaking the fewest of this phase's commitments and
        DMZs (only an impossible one is dropped); then, where it leaves a choice, those
        that keep the power's commitments about later phases reachable (a unit of the
        committed type stays within reach of the committed location) and do not step
        into a province banned next phase with no way out; then, where it leaves a
        choice, those that do not move into an ally's supply centre."""
        now = _now(game)
        b = board(game)
        locs = list(b.orderable.get(power, ()))
        if now is None:
            return locs, [list(b.possible.get(loc, ())) for loc in locs], True
        committed, banned = _rules(power, deals, now)
        feasible = True
        options: list[list[str]] = []
        for loc in locs:
            ok, broken = best_orders(b.possible.get(loc, ()), loc, committed, banned)
            feasible = feasible and broken == 0
            options.append(ok)
        self._keep_later(game, b, power, deals, now, locs, options)
        ally_scs = {sc for a in allies if a != power for sc in b.centres.get(a, ())}
        if ally_scs:
            options = [[o for o in opts if not _into(o, ally_scs)] or opts for opts in options]
        return locs, options, feasible

    @staticmethod
    def _keep_later(
        game: Any,
        b: Board,
        power: str,
        deals: Sequence[Deal],
        now: tuple[int, int],
        locs: list[str],
        options: list[list[str]],
    ) -> None:
        needs = later_needs(power, deals, now)
        units = [b.units.get(province(loc)) for loc in locs]
        match = keepers(game.map, needs, [u[1] if u else "" for u in units], options)
        for k, i in match.items():
            utype, where, left = needs[k]
            dist = distances_from(game.map, utype, where)
            options[i] = [o for o in options[i] if dist.get(_end(o), 99) <= left]
        dmz_next = {
            prov
            for d in deals
            for z in d.dmzs
            if power in z.powers and _phases_between(now, z.when) == 0
            for prov in z.provinces
        }
        if dmz_next:
            for i, opts in enumerate(options):
                utype = opts[0].split()[0] if opts else "A"
                graph = move_graph(game.map, utype)
                keep = [
                    o
                    for o in opts
                    if province(_end(o)) not in dmz_next
                    or any(province(n) not in dmz_next for n in graph.get(_end(o), ()))
                ]
                if keep:
                    options[i] = keep

    def _moves(
        self, game: Any, power: str, deals: list[Deal], allies: set[str], now: tuple[int, int]
    ) -> Plan:
        b = board(game)
        locs, options, feasible = self.options(game, power, deals, allies)
        mine = set(b.centres.get(power, ()))
        if not options:
            return Plan(power, (), float(len(mine)), feasible)
        ally_scs = {sc for a in allies if a != power for sc in b.centres.get(a, ())}
        direct = [[o for o in opts if direct_only((o,))] or opts for opts in options]
        for opts in direct:  # a seeded order: ties between equal moves vary by phase
            self.rng.shuffle(opts)
        scs = set(b.scs)
        foreign = {prov: p for prov, (p, _u) in b.units.items() if p != power}
        greedy = self._greedy(direct, scs - mine)
        cands = [_approach(game, direct, greedy, scs - mine - ally_scs, mine, foreign, allies)]
        cands += self._supported(direct, cands[0], (scs - mine) & set(foreign))
        for _ in range(self.candidates - 1):
            cands.append([self._pick(opts, scs - mine) for opts in direct])
        theirs: list[str] = []
        for d in deals:
            for c in d.commitments:
                if c.power != power and c.when == now:
                    theirs.append(c.order)
        top = -1.0
        best: list[list[str]] = []
        seen: set[tuple[str, ...]] = set()
        for cand in cands:
            key = tuple(cand)
            if key in seen:
                continue
            seen.add(key)
            value = self._value(game, b, power, cand, theirs)
            if value > top:
                top, best = value, [cand]
            elif value == top:
                best.append(cand)
        return Plan(power, tuple(self.rng.choice(best)), top, feasible)

    @staticmethod
    def _greedy(options: list[list[str]], targets: set[str]) -> list[str]:
        taken: set[str] = set()
        out = []
        for opts in options:
            choice = None
            for o in opts:
                t = _parse(o).target
                if t and province(t) in targets and province(t) not in taken:
                    choice = o
                    taken.add(province(t))
                    break
            if choice is None:
                holds = [o for o in opts if _parse(o).kind == "H"]
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
                p = _parse(move)
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
        good = [o for o in opts if (t := _parse(o).target) and province(t) in targets]
        if good and self.rng.random() < 0.7:
            return self.rng.choice(good)
        return self.rng.choice(opts)

    def _value(
        self, game: Any, b: Board, power: str, orders: list[str], theirs: list[str]
    ) -> float:
        """Supply centres ``power`` holds or occupies after ``orders`` (the others hold
        or give the orders they are committed to)."""
        allo = [*orders, *theirs]
        mine = b.centres.get(power, frozenset())
        if direct_only(allo):
            self.fast_calls += 1
            final = resolve_moves(b.units, allo)
            occupant = {province(loc): b.units[prov][0] for prov, loc in final.items() if loc}
        else:
            self.engine_calls += 1
            occupant = self._engine_occupants(game, power, orders, theirs)
        value = 0
        for sc in b.scs:
            who = occupant.get(sc)
            if who == power or (who is None and sc in mine):
                value += 1
        return float(value)

    def _engine_occupants(
        self, game: Any, power: str, orders: list[str], theirs: list[str]
    ) -> dict[str, str]:
        """Adjudicate on a scratch copy of the game (for order sets with convoys)."""
        if self._scratch is None:
            self._scratch = type(game)(map_name=game.map.name)
        trial = self._scratch
        trial.set_state(copy.deepcopy(game.get_state()))
        trial.set_orders(power, orders)
        by_power: dict[str, list[str]] = {}
        units = board(game).units
        for o in theirs:
            owner = units.get(province(_parse(o).location))
            if owner is not None:
                by_power.setdefault(owner[0], []).append(o)
        for other, given in by_power.items():
            trial.set_orders(other, given)
        trial.process()
        occupant: dict[str, str] = {}
        for p, pw in trial.powers.items():
            for unit in pw.units:
                occupant[province(unit.split()[1])] = p
        return occupant

    # -- retreats and adjustments -------------------------------------------------------
    def _retreats(self, game: Any, power: str) -> Plan:
        b = board(game)
        orders = []
        used: set[str] = set()
        for loc in b.orderable.get(power, ()):
            opts = b.possible.get(loc, ())
            moves = [o for o in opts if " R " in o and province(o.split()[-1]) not in used]
            moves.sort(key=lambda o: province(o.split()[-1]) not in b.scs)
            if moves:
                used.add(province(moves[0].split()[-1]))
                orders.append(moves[0])
            elif opts:
                orders.append(opts[0])
        return Plan(power, tuple(orders), float(len(b.centres.get(power, ()))))

    def _adjust(self, game: Any, power: str) -> Plan:
        b = board(game)
        pw = game.powers[power]
        delta = len(pw.centers) - len(pw.units)
        orders: list[str] = []
        if delta > 0:
            for loc in b.orderable.get(power, ()):
                builds = [o for o in b.possible.get(loc, ()) if o.endswith(" B")]
                if builds and len(orders) < delta:
                    orders.append(self.rng.choice(builds))
        elif delta < 0:
            homes = set(pw.homes)
            units = sorted(pw.units, key=lambda u: (province(u.split()[1]) in homes, u))
            orders = [f"{u} D" for u in units[:-delta]]
        return Plan(power, tuple(orders), float(len(pw.centers)))


def _end(order: str) -> str:
    """Where the unit giving ``order`` stands after it, if it succeeds."""
    p = _parse(order)
    return (p.target or p.location).upper()


def _into(order: str, centres: set[str]) -> bool:
    t = _parse(order).target
    return bool(t) and province(t or "") in centres


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
    taken = {province(t) for o in base if (t := _parse(o).target)}
    stay = {province(_parse(o).location) for o in base if _parse(o).kind != "-"}
    abut = game.map.loc_abut
    dists: dict[str, dict[str, int]] = {}
    for i, order in enumerate(base):
        p = _parse(order)
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
            dist = dists[p.unit] = _distances(move_graph(game.map, p.unit), targets)
        best = (dist.get(p.location.upper(), 99), order)
        for o in options[i]:
            q = _parse(o)
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
            taken.add(province(_parse(best[1]).target or ""))
            stay.discard(here)
    return out
