"""The state of one HUMAINE round, pure and clock-driven (no HTTP, no threads).

Phases follow from the clock: ``created`` until :meth:`Round.start`, then ``warmup``
for ``durations.warmup`` seconds, ``active`` for ``durations.round``, ``post`` for
``durations.post``, then ``ended``. The admin may cut the active or post phase short.
Every message goes through :meth:`Round.submit`, which asks the rules engine, logs the
decision, and books a deal when an acceptance is permitted.

Example with a virtual clock:

>>> from accord.leagues.humaine.rules import Bid, Utterance
>>> from accord.leagues.humaine.utility import SellerUtility
>>> t = [0.0]
>>> r = Round("r1", agents=("Celia", "Watson"), budget=50.0,
...           durations=Durations(warmup=1, round=60, post=10), clock=lambda: t[0],
...           seller_utilities={"Watson": SellerUtility({"egg": 0.5})})
>>> r.start(); r.phase().value
'warmup'
>>> t[0] = 2.0
>>> ask = Bid("BuyOffer", {"egg": 2}, 3.0)
>>> r.submit(Utterance("Human", "Watson, 2 eggs for $3?", "Watson", ask)).permitted
True
>>> t[0] = 2.4
>>> r.submit(Utterance("Watson", "Deal.", addressee="Human", bid=Bid("Accept", {"egg": 2}, 3.0))).deal
True
>>> r.human_quantity(), r.remaining_budget
({'egg': 2}, 47.0)
>>> t[0] = 72.0
>>> r.phase().value, r.results().sellers["Watson"].utility
('ended', 2.0)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .goods import GOODS
from .rules import (
    HUMAN,
    Bid,
    Decision,
    Intent,
    RuleConfig,
    RulesEngine,
    Utterance,
    apply_intent,
    to_cents,
    update_bids,
)
from .scoring import Allocation, BuyerScore, InvalidAllocation, buyer_value, check_allocation
from .utility import BuyerUtility, SellerUtility

__all__ = [
    "Durations",
    "LogEntry",
    "Phase",
    "Purchase",
    "Round",
    "RoundResults",
    "SellerResult",
]


class Phase(StrEnum):
    """A round's phase; ``FAILED``: the round runner broke and the round stopped."""

    CREATED = "created"
    WARMUP = "warmup"
    ACTIVE = "active"
    POST = "post"
    ENDED = "ended"
    FAILED = "failed"


@dataclass(frozen=True)
class Durations:
    """Phase lengths in seconds (wire: ``{warmUp, round, post}``)."""

    warmup: float = 5.0
    round: float = 300.0
    post: float = 120.0

    def __post_init__(self) -> None:
        for name in ("warmup", "round", "post"):
            if getattr(self, name) < 0:
                raise ValueError(f"duration {name} must be >= 0 seconds, got {getattr(self, name)}")

    def to_wire(self) -> dict[str, float]:
        return {"warmUp": self.warmup, "round": self.round, "post": self.post}


@dataclass(frozen=True)
class LogEntry:
    """One decision: ``t`` is seconds since the round started (server clock)."""

    seq: int
    t: float
    speaker: str
    addressee: str
    text: str
    permitted: bool
    rule: str | None
    rationale: str
    message: dict[str, Any]
    deal: bool = False


@dataclass
class Purchase:
    """A deal: ``seller`` sold ``quantity`` for ``price_cents``; ``seq`` is its log entry."""

    seq: int
    seller: str
    quantity: dict[str, int]
    price_cents: int
    t: float
    cancelled: bool = False


@dataclass(frozen=True)
class SellerResult:
    quantity: dict[str, int]
    revenue: float
    utility: float | None


@dataclass(frozen=True)
class RoundResults:
    """Final totals: the human's goods, cost and allocation value; each seller's sales."""

    human_quantity: dict[str, int]
    human_cost: float
    human_utility: float
    human_breakdown: dict[str, Any]
    sellers: dict[str, SellerResult]
    currency: str = "USD"

    def to_wire(self, human: str = HUMAN) -> dict[str, Any]:
        """``roundTotals`` of /receiveRoundTotals (original shape)."""
        out: dict[str, Any] = {
            human: {
                "quantity": self.human_quantity,
                "cost": self.human_cost,
                "utility": {
                    "currencyUnit": self.currency,
                    "value": round(self.human_utility, 2),
                    "breakdown": self.human_breakdown,
                },
            }
        }
        for name, s in self.sellers.items():
            out[name] = {
                "quantity": s.quantity,
                "revenue": s.revenue,
                "utility": {
                    "currencyUnit": self.currency,
                    "value": None if s.utility is None else round(s.utility, 2),
                },
            }
        return out


def _bid_of(message: Mapping[str, Any]) -> Bid | None:
    """The bid of a logged wire message, if it has a usable one."""
    bid = message.get("bid")
    if not isinstance(bid, Mapping) or not isinstance(bid.get("type"), str):
        return None
    price = bid.get("price")
    value = price.get("value") if isinstance(price, Mapping) else None
    quantity = bid.get("quantity")
    goods: dict[str, int] = dict(quantity) if isinstance(quantity, Mapping) else {}
    return Bid(bid["type"], goods, None if value is None else float(value))


def _add(into: dict[str, int], quantity: Mapping[str, int]) -> None:
    for g, n in quantity.items():
        into[g] = into.get(g, 0) + n


def _ordered(q: Mapping[str, int]) -> dict[str, int]:
    return {g: q[g] for g in GOODS if q.get(g)}


@dataclass
class Round:
    """One round: rules, phases, log, deals, allocation and results.

    ``clock`` returns monotonic seconds; all times given to methods are on that clock.
    """

    round_id: str
    agents: tuple[str, ...]
    budget: float
    durations: Durations = field(default_factory=Durations)
    seller_utilities: Mapping[str, SellerUtility] = field(default_factory=dict)
    buyer_utility: BuyerUtility | None = None
    config: RuleConfig = field(default_factory=RuleConfig)
    clock: Callable[[], float] = time.monotonic
    human: str = HUMAN
    round_number: int | None = None
    track_delivery: bool = False
    """See :class:`RulesEngine` (the orchestrator reports deliveries; simulations don't)."""
    seller_accepts_need_offer: bool = True
    """See :class:`RulesEngine`: a seller may accept only an offer the buyer made."""
    read_intent: Callable[[str], Intent | None] | None = None
    """Reads a buyer's words without a bid (see :class:`Intent`), to rebuild the buyer's
    standing offers after a restart as they were judged."""

    def __post_init__(self) -> None:
        self.agents = tuple(self.agents)
        self.initial_budget = float(self.budget)
        self.engine = RulesEngine(
            self.agents,
            self.budget,
            self.config,
            self.clock,
            self.human,
            track_delivery=self.track_delivery,
            seller_accepts_need_offer=self.seller_accepts_need_offer,
        )
        self.started_at: float | None = None
        self.active_ended_at: float | None = None
        self.post_ended_at: float | None = None
        self.log: list[LogEntry] = []
        self.purchases: list[Purchase] = []
        self.allocation: Allocation | None = None
        self.failure: str | None = None
        self._lock = threading.RLock()

    # ----------------------------------------------------------------- phases
    def start(self, now: float | None = None) -> None:
        """Start the warm-up; the other phases follow by the clock."""
        if self.started_at is not None:
            raise RuntimeError(f"round {self.round_id} already started")
        self.started_at = self.clock() if now is None else now

    @property
    def warmup_end(self) -> float | None:
        return None if self.started_at is None else self.started_at + self.durations.warmup

    @property
    def active_end(self) -> float | None:
        if self.active_ended_at is not None:
            return self.active_ended_at
        w = self.warmup_end
        return None if w is None else w + self.durations.round

    @property
    def post_end(self) -> float | None:
        if self.post_ended_at is not None:
            return self.post_ended_at
        a = self.active_end
        return None if a is None else a + self.durations.post

    def phase(self, now: float | None = None) -> Phase:
        at = self.clock() if now is None else now
        if self.failure is not None:
            return Phase.FAILED
        if self.started_at is None:
            return Phase.CREATED
        assert self.warmup_end is not None and self.active_end is not None
        assert self.post_end is not None
        if at < self.warmup_end:
            return Phase.WARMUP
        if at < self.active_end:
            return Phase.ACTIVE
        if at < self.post_end:
            return Phase.POST
        return Phase.ENDED

    def fail(self, reason: str) -> None:
        """Stop the round for good: it cannot go on (no more messages, no results)."""
        with self._lock:
            self.failure = reason

    def end_active(self, now: float | None = None) -> None:
        """Cut the negotiation short (admin /endRound): the post phase starts now."""
        at = self.clock() if now is None else now
        with self._lock:
            if self.phase(at) in (Phase.CREATED, Phase.WARMUP, Phase.ACTIVE):
                if self.started_at is None:
                    self.started_at = at
                self.active_ended_at = max(at, self.warmup_end or at)

    def end(self, now: float | None = None) -> None:
        """End the round at once (no more allocation changes)."""
        at = self.clock() if now is None else now
        with self._lock:
            self.end_active(at)
            self.post_ended_at = max(at, self.active_end or at)

    def elapsed(self, now: float | None = None) -> float:
        at = self.clock() if now is None else now
        return 0.0 if self.started_at is None else at - self.started_at

    # ---------------------------------------------------------------- messages
    def submit(
        self, msg: Utterance, now: float | None = None, wire: Mapping[str, Any] | None = None
    ) -> Decision:
        """Judge a message received at ``now``, log it and book any deal."""
        at = self.clock() if now is None else now
        with self._lock:
            self.engine.active = self.phase(at) is Phase.ACTIVE
            d = self.engine.decide(msg, at)
            self._record(msg, d, wire)
            return d

    def record_refusal(
        self, msg: Utterance, rule: str, rationale: str, now: float | None = None
    ) -> Decision:
        """Log a message refused before the rules (bad token, malformed bid...)."""
        at = self.clock() if now is None else now
        with self._lock:
            d = Decision(False, rule, rationale, at, msg.speaker)
            self._record(msg, d, None)
            return d

    def _record(self, msg: Utterance, d: Decision, wire: Mapping[str, Any] | None) -> None:
        seq = len(self.log)
        message: dict[str, Any] = (
            dict(wire)
            if wire is not None
            else {
                "speaker": msg.speaker,
                "addressee": msg.addressee,
                "text": msg.text,
            }
        )
        if wire is None and msg.bid is not None:
            bid: dict[str, Any] = {"type": msg.bid.type, "quantity": dict(msg.bid.quantity)}
            if msg.bid.price is not None:
                bid["price"] = {"unit": "USD", "value": msg.bid.price}
            message["bid"] = bid
        t = self.elapsed(d.at)
        self.log.append(
            LogEntry(
                seq,
                t,
                msg.speaker,
                msg.addressee,
                msg.text,
                d.permitted,
                d.rule,
                d.rationale,
                message,
                d.deal,
            )
        )
        if d.deal and msg.bid is not None:
            seller = (
                msg.speaker
                if msg.speaker != self.human
                else (self.engine.resolve_addressee(msg.addressee) or msg.addressee)
            )
            self.purchases.append(Purchase(seq, seller, dict(msg.bid.quantity), d.amount_cents, t))

    def cancel_deal(self, seq: int) -> bool:
        """Undo the deal booked by log entry ``seq`` (the human did not confirm it)."""
        with self._lock:
            for p in self.purchases:
                if p.seq == seq and not p.cancelled:
                    p.cancelled = True
                    self.engine.refund(p.price_cents)
                    return True
            return False

    def decline_deal(self, seq: int, rationale: str) -> LogEntry | None:
        """The buyer declined the deal of log entry ``seq`` (generation 2's
        confirmation): the Accept is blocked after all (rule "confirm"), its money is
        refunded and its speaker may speak again this turn. Returns the new entry, or
        None when there is no such standing deal."""
        with self._lock:
            if not self.cancel_deal(seq):
                return None
            old = self.log[seq]
            entry = replace(old, permitted=False, rule="confirm", rationale=rationale, deal=False)
            self.log[seq] = entry
            if self.started_at is not None:
                self.engine.withdraw(old.speaker, self.started_at + old.t)
            return entry

    def restore(
        self,
        log: list[LogEntry],
        purchases: list[Purchase],
        started_at: float | None,
        active_end: float | None = None,
        post_end: float | None = None,
    ) -> None:
        """Rebuild a round from its stored log and deals (times relative to the start)."""
        with self._lock:
            self.log = list(log)
            self.purchases = list(purchases)
            self.started_at = started_at
            if started_at is not None:
                self.active_ended_at = None if active_end is None else started_at + active_end
                self.post_ended_at = None if post_end is None else started_at + post_end
            base = started_at or 0.0
            human_at: float | None = None
            addressee: str | None = None
            spoken: list[tuple[str, float]] = []
            offers: dict[str, Bid] = {}
            bids: dict[str, Bid] = {}
            for e in self.log:
                if not e.permitted:
                    continue
                bid = _bid_of(e.message)
                if e.speaker == self.human:
                    human_at, addressee, spoken = base + e.t, e.addressee, []
                    seller = self.engine.resolve_addressee(e.addressee)
                    text = str(e.message.get("text") or e.text)
                    intent = self.read_intent(text) if self.read_intent else None
                    if bid is None and intent is not None:
                        apply_intent(bids, offers, self.agents, seller, intent)
                    else:
                        update_bids(bids, seller, bid)
                    if e.deal:
                        offers.pop(self.engine.resolve_addressee(e.addressee) or "", None)
                else:
                    spoken.append((e.speaker, base + e.t))
                    if bid is not None and bid.type == "SellOffer":
                        offers[e.speaker] = bid
                    elif bid is not None:
                        offers.pop(e.speaker, None)
                        bids.pop(e.speaker, None)
            spent = sum(p.price_cents for p in self.deals())
            self.engine.restore(
                to_cents(self.initial_budget) - spent, human_at, addressee, spoken, offers, bids
            )

    # ---------------------------------------------------------------- reading
    @property
    def transcript(self) -> list[LogEntry]:
        """The permitted messages, in order."""
        return [e for e in self.log if e.permitted]

    @property
    def remaining_budget(self) -> float:
        return self.engine.budget

    def deals(self) -> list[Purchase]:
        return [p for p in self.purchases if not p.cancelled]

    def human_quantity(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for p in self.deals():
            _add(total, p.quantity)
        return _ordered(total)

    def human_cost(self) -> float:
        return sum(p.price_cents for p in self.deals()) / 100

    def seller_totals(self) -> dict[str, tuple[dict[str, int], int]]:
        """``{seller: (quantity, revenue_cents)}`` over confirmed deals."""
        out: dict[str, tuple[dict[str, int], int]] = {a: ({}, 0) for a in self.agents}
        for p in self.deals():
            q, cents = out.setdefault(p.seller, ({}, 0))
            _add(q, p.quantity)
            out[p.seller] = (q, cents + p.price_cents)
        return {k: (_ordered(q), c) for k, (q, c) in out.items()}

    # ---------------------------------------------------------------- scoring
    def set_allocation(self, allocation: Allocation, now: float | None = None) -> None:
        """Save the human's allocation; it must fit what the human bought."""
        with self._lock:
            check = check_allocation(self.human_quantity(), allocation)
            if not check.sufficient:
                short = ", ".join(
                    f"{g}: need {check.rationale[g]['need']}, have {check.rationale[g]['have']}"
                    for g in check.deficits()
                )
                raise InvalidAllocation(f"allocation needs more than was bought ({short})")
            self.allocation = allocation

    def buyer_score(self) -> BuyerScore:
        if self.allocation is None or self.buyer_utility is None:
            return BuyerScore(0.0, {})
        return buyer_value(self.buyer_utility, self.allocation)

    def results(self) -> RoundResults:
        score = self.buyer_score()
        sellers: dict[str, SellerResult] = {}
        for name, (q, cents) in self.seller_totals().items():
            su = self.seller_utilities.get(name)
            util = None if su is None else su.value(q, cents / 100)
            sellers[name] = SellerResult(q, cents / 100, util)
        currency = self.buyer_utility.currency if self.buyer_utility else "USD"
        return RoundResults(
            self.human_quantity(),
            self.human_cost(),
            score.value,
            score.breakdown,
            sellers,
            currency,
        )

    def parties(self) -> Iterable[str]:
        return (self.human, *self.agents)
