"""Pool and championship scheduling for a HUMAINE competition (pure functions).

The rules come from section 1 and Appendix E of the HUMAINE documentation:

- agents are split into pools of equal size; when the count does not divide, dummy agents
  fill up the short pools (with two pools: one dummy for an odd number of agents);
- within a pool every pair of agents meets exactly twice: if A1 used seller utility u1 and
  A2 used u2 the first time, A1 uses u2 and A2 uses u1 the second time (the avatar names
  Celia and Watson are swapped with them);
- rounds are ordered at random, so an agent cannot tell whom it faces, and packed into time
  slots: the rounds of one slot share no agent and no human and can run at the same time;
- every human meets the buyer utilities of one common set, each human in its own random
  order (exactly the same set when the number of rounds divides by the number of humans);
- the best ``advance`` real (non-dummy) agents of each pool go on to knockout matches of
  ``rounds_per_match`` rounds, again with every seller utility pair played both ways.

Utilities are referred to by index (0 .. n-1 within a stage plan); whoever runs the plan
draws that many utilities and maps the indices to them.

Example:
    >>> import numpy as np
    >>> plan = plan_pool_play(["a", "b", "c"], ["h1"], n_pools=1, rng=np.random.default_rng(1))
    >>> len(plan.rounds), plan.n_seller_utilities
    (6, 6)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from accord.core.errors import AccordError

DUMMY_PREFIX = "dummy-"
POOL_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class ScheduleError(AccordError, ValueError):
    """The contestants or settings cannot be scheduled; the message says why."""


def is_dummy(name: str) -> bool:
    """True for the names this module gives to dummy agents.

    >>> is_dummy("dummy-1"), is_dummy("celia-bot")
    (True, False)
    """
    return name.startswith(DUMMY_PREFIX)


@dataclass(frozen=True)
class PlannedRound:
    """One round of a plan: two seller agents and one human, with their utilities."""

    number: int
    stage: str
    group: str
    slot: int
    meeting: int
    celia: str
    watson: str
    celia_utility: int
    watson_utility: int
    human: str
    buyer_utility: int

    @property
    def agents(self) -> tuple[str, str]:
        """The agent playing Celia and the agent playing Watson."""
        return (self.celia, self.watson)

    def utility_of(self, agent: str) -> int:
        """Index of the seller utility ``agent`` uses in this round."""
        if agent == self.celia:
            return self.celia_utility
        if agent == self.watson:
            return self.watson_utility
        raise KeyError(f"agent {agent!r} does not play round {self.number}")


@dataclass(frozen=True)
class StagePlan:
    """The rounds of one stage (pool play, semifinal, final, ...)."""

    stage: str
    groups: dict[str, tuple[str, ...]]
    rounds: tuple[PlannedRound, ...]
    n_seller_utilities: int
    n_buyer_utilities: int
    buyer_orders: dict[str, tuple[int, ...]]
    byes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class _Meeting:
    group: str
    meeting: int
    celia: str
    watson: str
    celia_utility: int
    watson_utility: int


def _check_names(names: Sequence[str], what: str) -> None:
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if list(names).count(n) > 1})
        raise ScheduleError(f"{what} names must be unique; repeated: {dupes}")
    for name in names:
        if not name or not name.strip():
            raise ScheduleError(f"{what} names must be non-empty; got {name!r}")


def make_pools(
    agents: Sequence[str], n_pools: int, rng: np.random.Generator
) -> dict[str, tuple[str, ...]]:
    """Split ``agents`` at random into ``n_pools`` pools of equal size, adding dummies.

    Dummies are named ``dummy-1``, ``dummy-2``, ... and go one per pool into the last pools.

    >>> pools = make_pools(["a", "b", "c"], 2, np.random.default_rng(0))
    >>> sorted(len(p) for p in pools.values()), sum(is_dummy(x) for p in pools.values() for x in p)
    ([2, 2], 1)
    """
    _check_names(agents, "agent")
    if any(is_dummy(a) for a in agents):
        raise ScheduleError(f"agent names may not start with {DUMMY_PREFIX!r}: {list(agents)}")
    if not 1 <= n_pools <= len(POOL_NAMES):
        raise ScheduleError(f"n_pools must be between 1 and {len(POOL_NAMES)}; got {n_pools}")
    n_dummies = (-len(agents)) % n_pools
    size = (len(agents) + n_dummies) // n_pools
    if size < 2:
        raise ScheduleError(
            f"{n_pools} pool(s) need at least {2 * n_pools} agents (2 per pool); "
            f"got {len(agents)}: register more agents or use fewer pools"
        )
    order = [agents[i] for i in rng.permutation(len(agents))]
    pools: dict[str, tuple[str, ...]] = {}
    start = 0
    for p in range(n_pools):
        gets_dummy = p >= n_pools - n_dummies
        n_real = size - 1 if gets_dummy else size
        members = order[start : start + n_real]
        start += n_real
        if gets_dummy:
            members.append(f"{DUMMY_PREFIX}{p - (n_pools - n_dummies) + 1}")
        pools[POOL_NAMES[p]] = tuple(members)
    return pools


def _pair_meetings(
    group: str, a: str, b: str, n_rounds: int, first_utility: int, rng: np.random.Generator
) -> list[_Meeting]:
    """``n_rounds`` (even) meetings of a and b, each utility pair played both ways."""
    if rng.random() < 0.5:
        a, b = b, a
    out = []
    for k in range(n_rounds // 2):
        u1, u2 = first_utility + 2 * k, first_utility + 2 * k + 1
        out.append(_Meeting(group, 2 * k + 1, a, b, u1, u2))
        out.append(_Meeting(group, 2 * k + 2, b, a, u1, u2))
    return out


def _pack(
    stage: str,
    meetings: list[_Meeting],
    humans: Sequence[str],
    rng: np.random.Generator,
    first_number: int,
) -> tuple[tuple[PlannedRound, ...], int, dict[str, tuple[int, ...]]]:
    """Order meetings at random, pack them into slots and give each round a human."""
    _check_names(humans, "human")
    if not humans:
        raise ScheduleError("at least one human participant is needed to schedule rounds")
    remaining = [meetings[i] for i in rng.permutation(len(meetings))]
    count: dict[str, int] = dict.fromkeys(humans, 0)
    seen: dict[str, set[frozenset[str]]] = defaultdict(set)
    placed: list[tuple[int, _Meeting, str]] = []
    slot = 0
    while remaining:
        busy: set[str] = set()
        chosen: list[_Meeting] = []
        for m in remaining:
            if len(chosen) == len(humans):
                break
            if m.celia not in busy and m.watson not in busy:
                chosen.append(m)
                busy.update((m.celia, m.watson))
        taken = {id(m) for m in chosen}
        remaining = [m for m in remaining if id(m) not in taken]
        free = list(humans)
        for m in chosen:
            pair = frozenset((m.celia, m.watson))
            tiebreak = rng.random(len(free))
            best = min(
                range(len(free)),
                key=lambda i: (count[free[i]], pair in seen[free[i]], tiebreak[i]),
            )
            human = free.pop(best)
            count[human] += 1
            seen[human].add(pair)
            placed.append((slot, m, human))
        slot += 1
    n_buyer = max(count.values()) if placed else 0
    orders = {h: tuple(int(x) for x in rng.permutation(n_buyer)) for h in humans}
    kth: dict[str, int] = dict.fromkeys(humans, 0)
    rounds = []
    for i, (s, m, human) in enumerate(placed):
        buyer = orders[human][kth[human]]
        kth[human] += 1
        rounds.append(
            PlannedRound(
                number=first_number + i,
                stage=stage,
                group=m.group,
                slot=s,
                meeting=m.meeting,
                celia=m.celia,
                watson=m.watson,
                celia_utility=m.celia_utility,
                watson_utility=m.watson_utility,
                human=human,
                buyer_utility=buyer,
            )
        )
    return tuple(rounds), n_buyer, orders


def plan_pool_play(
    agents: Sequence[str],
    humans: Sequence[str],
    n_pools: int,
    rng: np.random.Generator,
    first_number: int = 1,
) -> StagePlan:
    """Pools plus every pool round: each pair twice, seller utilities swapped.

    >>> plan = plan_pool_play(["a", "b"], ["h"], 1, np.random.default_rng(3))
    >>> sorted(r.utility_of("a") for r in plan.rounds), sorted(r.utility_of("b") for r in plan.rounds)
    ([0, 1], [0, 1])
    """
    pools = make_pools(agents, n_pools, rng)
    meetings: list[_Meeting] = []
    next_utility = 0
    for group, members in pools.items():
        for a, b in combinations(members, 2):
            meetings += _pair_meetings(group, a, b, 2, next_utility, rng)
            next_utility += 2
    rounds, n_buyer, orders = _pack("pool", meetings, humans, rng, first_number)
    return StagePlan("pool", pools, rounds, next_utility, n_buyer, orders)


def qualifiers(pool_standings: Mapping[str, Sequence[str]], advance: int) -> list[str]:
    """Seeded championship entrants: every pool's winner first, then the runners-up, ...

    Dummy agents never qualify.

    >>> qualifiers({"A": ["a1", "a2", "a3"], "B": ["b1", "dummy-1", "b2"]}, 2)
    ['a1', 'b1', 'a2', 'b2']
    """
    if advance not in (1, 2):
        raise ScheduleError(f"advance must be 1 or 2 agents per pool; got {advance}")
    real = {g: [a for a in ranked if not is_dummy(a)] for g, ranked in pool_standings.items()}
    seeded = [ranked[k] for k in range(advance) for ranked in real.values() if k < len(ranked)]
    if len(seeded) < 2:
        raise ScheduleError(
            f"a championship needs at least 2 qualifiers; got {seeded}: "
            "let 2 agents per pool qualify or play in more pools"
        )
    return seeded


def knockout_stage_name(n_players: int) -> str:
    """``final`` for 2 players, ``semifinal`` for 3-4, ``quarterfinal`` for 5-8, ...

    >>> [knockout_stage_name(n) for n in (2, 3, 4, 8, 9)]
    ['final', 'semifinal', 'semifinal', 'quarterfinal', 'round-of-16']
    """
    if n_players < 2:
        raise ScheduleError(f"a knockout stage needs at least 2 players; got {n_players}")
    size = 1 << (n_players - 1).bit_length()
    return {2: "final", 4: "semifinal", 8: "quarterfinal"}.get(size, f"round-of-{size}")


def plan_knockout(
    players: Sequence[str],
    humans: Sequence[str],
    rng: np.random.Generator,
    rounds_per_match: int = 2,
    first_number: int = 1,
) -> StagePlan:
    """One knockout stage for seeded ``players``: seed i meets seed n-1-i.

    With an odd number of players the top seed has a bye. Each match has
    ``rounds_per_match`` (even) rounds; its seller utility pairs are each played both ways.

    >>> plan = plan_knockout(["a", "b", "c"], ["h"], np.random.default_rng(0))
    >>> plan.stage, plan.byes, plan.groups
    ('semifinal', ('a',), {'M1': ('b', 'c')})
    """
    _check_names(players, "player")
    if rounds_per_match < 2 or rounds_per_match % 2:
        raise ScheduleError(f"rounds_per_match must be even and >= 2; got {rounds_per_match}")
    stage = knockout_stage_name(len(players))
    byes: tuple[str, ...] = (players[0],) if len(players) % 2 else ()
    rest = list(players[len(byes) :])
    groups: dict[str, tuple[str, ...]] = {}
    meetings: list[_Meeting] = []
    next_utility = 0
    for k in range(len(rest) // 2):
        name = "F" if stage == "final" else f"M{k + 1}"
        a, b = rest[k], rest[len(rest) - 1 - k]
        groups[name] = (a, b)
        meetings += _pair_meetings(name, a, b, rounds_per_match, next_utility, rng)
        next_utility += rounds_per_match
    rounds, n_buyer, orders = _pack(stage, meetings, humans, rng, first_number)
    return StagePlan(stage, groups, rounds, next_utility, n_buyer, orders, byes)


def match_winners(plan: StagePlan, utilities: Mapping[int, Mapping[str, float]]) -> list[str]:
    """Players going on from a knockout stage: byes first, then each match's winner.

    ``utilities`` maps round number to each agent's utility in that round. A match is won
    by the higher total over its rounds; a tie goes to the better seed (listed first).
    Every round of the stage must have a result.

    >>> plan = plan_knockout(["a", "b"], ["h"], np.random.default_rng(0))
    >>> res = {r.number: {"a": 1.0, "b": 2.0} for r in plan.rounds}
    >>> match_winners(plan, res)
    ['b']
    """
    missing = [r.number for r in plan.rounds if r.number not in utilities]
    if missing:
        raise ScheduleError(f"{plan.stage} is not finished: rounds {missing} have no result yet")
    winners = list(plan.byes)
    for name, (a, b) in plan.groups.items():
        total = {a: 0.0, b: 0.0}
        for r in plan.rounds:
            if r.group == name:
                for agent in (a, b):
                    total[agent] += float(utilities[r.number].get(agent, 0.0))
        winners.append(b if total[b] > total[a] else a)
    return winners
