"""The negotiator API and the example negotiators.

A negotiator's ``negotiate(rnd)`` is called at the start of every Spring and Fall round
and again at every tick of the round's clock until the deadline (``rnd.deadline``; a
virtual clock counts ticks, a real one seconds). Through ``rnd`` it reads the game, its
confirmed deals and the proposals addressed to it, and it proposes, accepts, rejects,
proposes a draw, or asks the tactical module about a plan with an extra deal.

Example:
    >>> class Quiet(Negotiator):
    ...     def negotiate(self, rnd: Round) -> None:
    ...         for p in rnd.proposals():
    ...             rnd.reject(p.id)
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .board import board
from .deals import SEASONS, Deal, DealError, Dmz, OrderCommitment, province
from .notary import Event, Notary, Proposal
from .tactics import Plan, Tactics

__all__ = [
    "NEGOTIATORS",
    "AllianceNegotiator",
    "Negotiator",
    "RandomNegotiator",
    "Round",
    "attack_deals",
]


@dataclass
class Round:
    """One power's handle on the current negotiation round."""

    power: str
    game: Any
    notary: Notary
    tactics: Tactics
    deadline: float
    clock: Callable[[], float]
    draws: set[str] = field(default_factory=set)
    limit: int = 20
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    cache: dict[tuple[object, ...], Plan] = field(default_factory=dict)
    real_time: bool = False

    @property
    def powers(self) -> tuple[str, ...]:
        """The powers of the game."""
        return self.notary.powers

    @property
    def when(self) -> tuple[int, str]:
        """``(year, "S" | "F")`` of this round."""
        y, s = self.notary.now
        return (y, SEASONS[s])

    def time_left(self) -> float:
        """Ticks (virtual clock) or seconds (real clock) left in the round."""
        return self.deadline - self.clock()

    def proposals(self) -> list[Proposal]:
        """Pending proposals that involve me."""
        return self.notary.proposals_for(self.power)

    def confirmed(self) -> list[Deal]:
        """My confirmed deals that are still valid."""
        return self.notary.confirmed_for(self.power)

    def messages(self) -> list[Event]:
        """Notary messages since the last call: propose, accept, reject, confirm."""
        return self.notary.inbox(self.power)

    def propose(self, deal: Deal) -> str | None:
        """Propose ``deal``; ``None`` when over this round's limit (recorded as flooding)."""
        self.sent += 1
        if self.sent > self.limit:
            if self.sent == self.limit + 1:
                self.errors.append(f"{self.power}: flooding, more than {self.limit} requests")
            return None
        return self.notary.propose(self.power, deal)

    def accept(self, pid: str) -> bool:
        """Accept proposal ``pid``; True if that confirmed it."""
        return self.notary.accept(self.power, pid)

    def reject(self, pid: str) -> None:
        """Reject ``pid`` (withdraws my acceptance before confirmation)."""
        self.notary.reject(self.power, pid)

    def withdraw(self, pid: str) -> None:
        """Withdraw my acceptance of ``pid`` before it is confirmed (as `reject`)."""
        self.notary.reject(self.power, pid)

    def propose_draw(self) -> None:
        """Vote for a draw this round (the game ends if every survivor votes)."""
        self.draws.add(self.power)

    def plan(
        self, extra: Iterable[Deal] = (), power: str | None = None, allies: Iterable[str] = ()
    ) -> Plan:
        """The tactical module's plan for ``power`` (me by default) with ``extra`` deals.

        Plans are cached for the round (the board does not change during it)."""
        who = power or self.power
        deals = [*self.notary.confirmed_for(who), *extra]
        key = (who, tuple(deals), frozenset(allies))
        plan = self.cache.get(key)
        if plan is None:
            plan = self.cache[key] = self.tactics.plan(self.game, who, deals, allies)
        return plan


class Negotiator:
    """Base class: override `negotiate`. ``allies`` are powers whose centres are spared."""

    name = "negotiator"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.allies: set[str] = set()
        self.errors: list[str] = []

    def negotiate(self, rnd: Round) -> None:
        """Called at the start of the round and at every tick until the deadline."""

    def close(self) -> None:
        """Called once when the game is over (a sandboxed negotiator ends its process)."""


def _unit_orders(rnd: Round, power: str) -> list[str]:
    return board(rnd.game).orders_of(power)


def random_deal(rnd: Round, rng: random.Random) -> Deal | None:
    """A random deal about this round: a commitment by, or a DMZ with, another power."""
    y, s = rnd.when
    others = [
        p for p in rnd.game.powers if p != rnd.power and not rnd.game.powers[p].is_eliminated()
    ]
    if not others:
        return None
    other = rng.choice(others)
    if rng.random() < 0.5:
        orders = _unit_orders(rnd, other)
        if not orders:
            return None
        return Deal(rnd.power, (OrderCommitment(y, s, other, rng.choice(orders)),))
    provs = [province(u.split()[1]) for u in rnd.game.get_units(other)]
    if not provs:
        return None
    return Deal(rnd.power, (), (Dmz.of(y, s, [rnd.power, other], [rng.choice(provs)]),))


class RandomNegotiator(Negotiator):
    """The ANAC example: propose the random deal that most improves my plan; accept
    proposals that do not lower my plan's value."""

    name = "random-deals"

    def __init__(self, seed: int | None = None, tries: int = 2) -> None:
        super().__init__(seed)
        self.tries = tries

    def negotiate(self, rnd: Round) -> None:
        base = rnd.plan()
        for p in rnd.proposals():
            if p.deal.proposer == rnd.power or rnd.power in p.accepted:
                continue
            if rnd.plan([p.deal]).value >= base.value:
                rnd.accept(p.id)
            else:
                rnd.reject(p.id)
        best: tuple[float, Deal | None] = (base.value, None)
        for _ in range(self.tries):
            deal = random_deal(rnd, self.rng)
            if deal is None:
                continue
            value = rnd.plan([deal]).value
            if value > best[0]:
                best = (value, deal)
        if best[1] is not None:
            rnd.propose(best[1])


class AllianceNegotiator(Negotiator):
    """Offers every power a mutual non-aggression deal (each keeps out of the other's
    supply centres this phase); powers that confirm become allies for two rounds, whose
    centres the tactical module then spares. With allies it proposes coordinated attacks
    (`attack_deals`: my unit moves into a third power's centre, an ally's unit supports
    the move), the ones the tactical module says gain me centres. Accepts a proposal only
    when the tactical module says it does not lower my plan's value (an ally's idle unit
    supporting my attack costs it nothing); votes for a draw when three or fewer powers
    remain."""

    name = "alliance"

    def __init__(self, seed: int | None = None, attacks: int = 3, tries: int = 12) -> None:
        super().__init__(seed)
        self.attacks = attacks
        self.tries = tries
        self._last: dict[str, tuple[int, str]] = {}
        self._asked: tuple[int, str] | None = None
        self._attacked: tuple[int, str] | None = None

    def negotiate(self, rnd: Round) -> None:
        game = rnd.game
        y, s = rnd.when
        turn = y * 2 + SEASONS.index(s)
        for d in rnd.confirmed():
            for partner in d.involved - {rnd.power}:
                self._last[partner] = (y, s)
        alive = {p for p in game.powers if not game.powers[p].is_eliminated()}
        self.allies = {
            p
            for p, (py, ps) in self._last.items()
            if p in alive and turn - (py * 2 + SEASONS.index(ps)) <= 1
        }
        base = rnd.plan(allies=self.allies)
        for p in rnd.proposals():
            if p.deal.proposer == rnd.power or rnd.power in p.accepted:
                continue
            if rnd.plan([p.deal], allies=self.allies).value >= base.value:
                rnd.accept(p.id)
            else:
                rnd.reject(p.id)
        partners = sorted(self.allies & alive)
        if partners and self._attacked != (y, s):
            self._attacked = (y, s)
            for _gain, deal in attack_deals(rnd, partners, self.attacks, self.tries, self.rng):
                with contextlib.suppress(DealError):  # one the board cannot obey
                    rnd.propose(deal)
        if self._asked == (y, s):
            return
        self._asked = (y, s)
        mine = set(game.get_centers(rnd.power))
        for other in sorted(alive - {rnd.power}):
            theirs = set(game.get_centers(other))
            zones = []
            if theirs:
                zones.append(Dmz.of(y, s, [rnd.power], theirs))
            if mine:
                zones.append(Dmz.of(y, s, [other], mine))
            if zones and not _blocked(game, rnd.power, other, mine, theirs):
                with contextlib.suppress(DealError):  # one the board cannot obey
                    rnd.propose(Deal(rnd.power, (), tuple(zones)))
        if len(alive) <= 3 and s == "F":
            rnd.propose_draw()


def attack_deals(
    rnd: Round,
    partners: Iterable[str],
    attacks: int = 2,
    tries: int = 6,
    rng: random.Random | None = None,
) -> list[tuple[float, Deal]]:
    """Coordinated attacks: my unit moves into a centre of a third power (or a neutral
    one) and a partner's unit supports the move, both committed in one deal.

    Candidates are ranked (occupied targets first: those a lone move cannot take), the
    first ``tries`` are valued with the tactical module and those that raise my plan's
    value are returned, best first, at most one per unit of mine, partner unit and target.

    >>> attack_deals.__name__
    'attack_deals'
    """
    game = rnd.game
    me = rnd.power
    partners = [p for p in partners if p != me]
    if not partners or attacks < 1:
        return []
    y, s = rnd.when
    b = board(game)
    possible = b.possible
    scs = set(game.map.scs)
    friendly = set(game.get_centers(me))
    for p in partners:
        friendly |= set(game.get_centers(p))
    occupied: dict[str, str] = {}
    for p in game.powers:
        for u in game.get_units(p):
            occupied[province(u.split()[1])] = p
    my_moves: dict[str, str] = {}  # "A PAR - BUR" -> its location key
    for loc in b.orderable.get(me, ()):
        for o in possible.get(loc, ()):
            if " - " in o and not o.endswith(" VIA"):
                my_moves[o] = loc
    cands: list[tuple[int, str, str, str, str]] = []
    for partner in partners:
        for loc in b.orderable.get(partner, ()):
            for o in possible.get(loc, ()):
                words = o.split()
                if len(words) != 7 or words[2] != "S" or words[5] != "-":
                    continue
                move = " ".join(words[3:])
                target = province(words[6])
                if move not in my_moves or target not in scs or target in friendly:
                    continue
                enemy = occupied.get(target)
                if enemy in (me, *partners):
                    continue
                cands.append((0 if enemy else 1, move, o, partner, target))
    (rng or random.Random(0)).shuffle(cands)
    cands.sort(key=lambda c: c[0])
    base = rnd.plan(allies=partners).value
    scored: list[tuple[float, Deal]] = []
    for _occ, move, support, partner, _target in cands[:tries]:
        deal = Deal(me, (OrderCommitment(y, s, me, move), OrderCommitment(y, s, partner, support)))
        gain = rnd.plan([deal], allies=partners).value - base
        if gain > 0:
            scored.append((gain, deal))
    scored.sort(key=lambda g: -g[0])
    out: list[tuple[float, Deal]] = []
    used: set[str] = set()
    for gain, deal in scored:
        keys = {province(c.parsed.location) for c in deal.commitments}
        keys.add("->" + province(deal.commitments[0].parsed.target or ""))
        if keys & used:
            continue
        used |= keys
        out.append((gain, deal))
    return out[:attacks]


def _blocked(game: Any, me: str, ally: str, mine: set[str], theirs: set[str]) -> bool:
    """True when a unit of either side sits in a centre the deal would forbid to it."""
    for power, banned in ((me, theirs), (ally, mine)):
        for u in game.get_units(power):
            if province(u.split()[1]) in banned:
                return True
    return False


NEGOTIATORS: dict[str, Callable[[int | None], Negotiator | None]] = {
    "none": lambda seed: None,
    "random-deals": lambda seed: RandomNegotiator(seed),
    "alliance": lambda seed: AllianceNegotiator(seed),
}
"""Built-in negotiators by name; ``none`` is a non-negotiator (tactical module only)."""
