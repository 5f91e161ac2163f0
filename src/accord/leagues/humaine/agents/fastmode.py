"""Fast mode: a whole HUMAINE round in virtual time, in-process.

A :class:`VirtualLoop` holds a heap of timed callbacks; time jumps from one event to the
next, so a 300 s round runs in milliseconds. The server's :class:`~accord.leagues.humaine.
round.Round` (rules R0-R4, log, deals, scoring) runs on the virtual clock. Every party
talks through a :class:`_Context`: a relayed message reaches the round after a seeded
network ``latency``, a permitted message is broadcast to the agents (bid stripped, the
sender included) and to the buyer (bid included), a blocked one comes back to its sender
as a rejection with the rationale. Same seed, same transcript.

>>> from accord.leagues.humaine.agents.fastmode import run_fast_round
>>> from accord.leagues.humaine.agents.simple import RegexSeller
>>> from accord.leagues.humaine.agents.strong import StrongSeller
>>> from accord.leagues.humaine.agents.buyers import FairBuyer
>>> r = run_fast_round(StrongSeller(), RegexSeller(), FairBuyer(), seed=3)
>>> sorted(r["sellers"]) == ["Celia", "Watson"] and r["buyer"]["utility"] >= 0
True
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from accord.core.errors import ConfigError, StateError

from ..round import Durations, Round
from ..rules import HUMAN, Bid, RuleConfig, Utterance
from ..utility import BuyerUtility, SellerUtility
from ..utility_generator import generate_buyer_utility, generate_seller_utility
from .base import SellerAgent
from .buyers import SimulatedBuyer
from .intent import read_intent

EPOCH = datetime(2020, 7, 11, 9, 0, tzinfo=UTC)
"""Virtual time 0 as a wall-clock instant (for the wire timestamps)."""


class VirtualLoop:
    """Timed callbacks on a virtual clock; ties run in scheduling order.

    >>> loop, seen = VirtualLoop(), []
    >>> loop.call_later(2.0, lambda: seen.append(loop.now))
    >>> loop.call_later(1.0, lambda: seen.append(loop.now))
    >>> loop.run(); seen
    [1.0, 2.0]
    """

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self.events = 0

    def call_at(self, when: float, fn: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (max(when, self.now), next(self._seq), fn))

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        self.call_at(self.now + max(0.0, delay), fn)

    def run(self, until: float = float("inf"), max_events: int = 1_000_000) -> None:
        """Run events up to virtual time ``until``."""
        while self._heap and self._heap[0][0] <= until:
            when, _, fn = heapq.heappop(self._heap)
            self.now = when
            fn()
            self.events += 1
            if self.events >= max_events:
                raise StateError(f"fast round exceeded {max_events} events; an agent loops")
        self.now = max(self.now, until) if until != float("inf") else self.now


class _Context:
    """The agent-side view of the loop for one party."""

    def __init__(self, sim: FastRound, party: str, rng: np.random.Generator) -> None:
        self.sim = sim
        self.party = party
        self.rng = rng

    def now(self) -> float:
        return self.sim.loop.now

    def timestamp(self) -> str:
        instant = EPOCH + timedelta(seconds=self.sim.loop.now)
        return instant.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def send(self, message: dict[str, Any]) -> None:
        delay = self.sim.latency(self.rng)
        self.sim.loop.call_later(delay, lambda: self.sim.relay(self.party, message))

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        self.sim.loop.call_later(delay, fn)


def random_seller_utility(rng: np.random.Generator) -> SellerUtility:
    """Unit costs drawn uniformly from Appendix A's ranges, rounded to cents (the
    utility generator's draw)."""
    return generate_seller_utility(rng)


def random_buyer_utility(rng: np.random.Generator) -> BuyerUtility:
    """Buyer parameters drawn from Appendix A's table, rounded to cents (the utility
    generator's draw)."""
    return generate_buyer_utility(rng)


def _utterance(message: Mapping[str, Any], names: tuple[str, ...]) -> Utterance:
    bid = message.get("bid") or None
    parsed = None
    if isinstance(bid, Mapping) and bid.get("type"):
        price = bid.get("price")
        value = price.get("value") if isinstance(price, Mapping) else None
        parsed = Bid(str(bid["type"]), dict(bid.get("quantity") or {}), value)
    speaker, text = str(message.get("speaker", "")), str(message.get("text", ""))
    intent = read_intent(text, names) if speaker == HUMAN and parsed is None else None
    return Utterance(speaker, text, str(message.get("addressee") or ""), parsed, intent)


class FastRound:
    """One round of a simulated buyer and two in-process sellers on a virtual clock."""

    def __init__(
        self,
        seller_a: SellerAgent,
        seller_b: SellerAgent,
        buyer: SimulatedBuyer,
        seed: int = 0,
        *,
        names: tuple[str, str] = ("Celia", "Watson"),
        budget: float = 50.0,
        durations: Durations | None = None,
        latency: tuple[float, float] = (0.05, 0.25),
        delivery: float = 0.01,
        config: RuleConfig | None = None,
        seller_utilities: Mapping[str, SellerUtility] | None = None,
        buyer_utility: BuyerUtility | None = None,
    ) -> None:
        if seller_a is seller_b:
            raise ConfigError("seller_a and seller_b must be two different agent objects")
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.loop = VirtualLoop()
        self.names = names
        self.sellers = {names[0]: seller_a, names[1]: seller_b}
        self.buyer = buyer
        self.latency_range = latency
        self.delivery = delivery
        self.durations = durations or Durations(warmup=1.0, round=300.0, post=0.0)
        self.seller_utilities = dict(
            seller_utilities or {n: random_seller_utility(self.rng) for n in names}
        )
        self.buyer_utility = buyer_utility or random_buyer_utility(self.rng)
        self.round = Round(
            f"fast-{seed}",
            agents=names,
            budget=budget,
            durations=self.durations,
            seller_utilities=self.seller_utilities,
            buyer_utility=self.buyer_utility,
            config=config or RuleConfig(),
            clock=lambda: self.loop.now,
        )
        self.budget = budget
        self._contexts = {
            name: _Context(self, name, np.random.default_rng([seed, i]))
            for i, name in enumerate((*names, HUMAN))
        }

    def latency(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(*self.latency_range))

    # ----------------------------------------------------------------- relay
    def relay(self, party: str, message: dict[str, Any]) -> None:
        """A message reaches the orchestrator from ``party``."""
        if message.get("speaker") != party:
            message = {**message, "speaker": party}  # no impersonation in-process
        decision = self.round.submit(_utterance(message, self.round.agents), wire=message)
        if decision.permitted:
            self.loop.call_later(self.delivery, lambda: self._broadcast(message))
        else:
            rejected = {**message, "rationale": decision.rationale}
            target = self.sellers.get(party)
            fn: Callable[[dict[str, Any]], Any] = (
                target.receive_rejection if target is not None else self.buyer.receive_rejection
            )
            self.loop.call_later(self.delivery, lambda: fn(rejected))

    def _broadcast(self, message: dict[str, Any]) -> None:
        stripped = {k: v for k, v in message.items() if k != "bid"}
        for agent in self.sellers.values():
            agent.receive_message(stripped)
        if message.get("speaker") != HUMAN:
            self.buyer.receive_message(message)

    # ------------------------------------------------------------------- run
    def run(self) -> dict[str, Any]:
        """Play the round to its end and return the results dict."""
        for name, agent in self.sellers.items():
            agent.bind(self._contexts[name])
            agent.set_utility(
                {
                    **self.seller_utilities[name].to_wire(),
                    "name": name,
                    "roundId": self.round.round_id,
                }
            )
        self.buyer.bind(self._contexts[HUMAN])
        self.buyer.names = self.names
        self.buyer.set_utility(
            {**self.buyer_utility.to_wire(), "roundId": self.round.round_id}, budget=self.budget
        )
        self.round.start(0.0)
        start = self.round.warmup_end or 0.0
        end = self.round.active_end or start
        body = {"roundId": self.round.round_id, "roundDuration": self.durations.round}
        self.loop.call_at(start, lambda: self._each("start_round", body))
        self.loop.call_at(end, lambda: self._each("end_round", {"roundId": self.round.round_id}))
        self.loop.run(until=end)
        allocation = (
            self.buyer.valuer.best(self.round.human_quantity()) if self.buyer.valuer else None
        )
        if allocation is not None:
            self.round.set_allocation(allocation, now=end)
        self.round.end(now=end)
        return self._results()

    def _each(self, method: str, body: dict[str, Any]) -> None:
        for agent in self.sellers.values():
            getattr(agent, method)(dict(body))
        getattr(self.buyer, method)(dict(body))

    def _results(self) -> dict[str, Any]:
        res = self.round.results()
        return {
            "seed": self.seed,
            "round_id": self.round.round_id,
            "budget": self.budget,
            "sellers": {
                name: {
                    "agent": self.sellers[name].kind,
                    "utility": round(s.utility or 0.0, 2),
                    "revenue": s.revenue,
                    "quantity": s.quantity,
                }
                for name, s in res.sellers.items()
            },
            "buyer": {
                "strategy": self.buyer.strategy,
                "utility": round(res.human_utility, 2),
                "cost": res.human_cost,
                "quantity": res.human_quantity,
                "breakdown": res.human_breakdown,
            },
            "deals": [
                {"seller": p.seller, "quantity": p.quantity, "price": p.price_cents / 100, "t": p.t}
                for p in self.round.deals()
            ],
            "transcript": [
                {"t": round(e.t, 3), "speaker": e.speaker, "text": e.text}
                for e in self.round.transcript
            ],
            "decisions": [
                {
                    "t": round(e.t, 3),
                    "speaker": e.speaker,
                    "permitted": e.permitted,
                    "rule": e.rule,
                    "rationale": e.rationale,
                }
                for e in self.round.log
            ],
            "events": self.loop.events,
        }


def run_fast_round(
    seller_a: SellerAgent,
    seller_b: SellerAgent,
    buyer: SimulatedBuyer,
    seed: int = 0,
    **options: Any,
) -> dict[str, Any]:
    """Run one virtual-time round; ``seller_a`` is Celia, ``seller_b`` Watson.

    Returns ``{seed, round_id, budget, sellers: {name: {agent, utility, revenue, quantity}},
    buyer: {strategy, utility, cost, quantity, breakdown}, deals, transcript, decisions,
    events}``. ``options`` go to :class:`FastRound` (budget, durations, latency, ...).
    """
    return FastRound(seller_a, seller_b, buyer, seed, **options).run()
