"""The turn-taking rules R0-R4 of HUMAINE (Appendix B) as a pure, synchronous engine.

The engine knows nothing about HTTP. It holds the turn-taking state of one round
(last human utterance, who has spoken since, the human's remaining budget) and, for
each message, says whether it is permitted, which rule decided and why. A permitted
message updates the state in the same locked step, so two concurrent acceptances can
never both spend the same money (R1).

Time comes from an injectable clock (a callable returning monotonic seconds), or is
passed explicitly to :meth:`RulesEngine.decide`; client timestamps never count.

Example (a virtual clock; Appendix B, example #4):

>>> t = [0.0]
>>> eng = RulesEngine(agents=("Celia", "Watson"), budget=50.0, clock=lambda: t[0])
>>> eng.decide(Utterance("Human", "Celia, I would like to buy 2 eggs.", addressee="Celia")).permitted
True
>>> t[0] = 2.5
>>> eng.decide(Utterance("Watson", "2 eggs for 4.5 dollars", bid=Bid("SellOffer", {"egg": 2}, 4.5))).permitted
True
>>> d = eng.decide(Utterance("Celia", "2 eggs for 4 dollars", bid=Bid("SellOffer", {"egg": 2}, 4.0)))
>>> d.permitted, d.rule
(False, 'R2')

An acceptance (of an offer the other side made) reserves the money at once:

>>> t[0] = 10.0
>>> offer = Bid("BuyOffer", {"egg": 2}, 4.5)
>>> _ = eng.decide(Utterance("Human", "Watson, 2 eggs for 4.5?", "Watson", offer))
>>> t[0] = 10.5
>>> d = eng.decide(Utterance("Watson", "Deal!", bid=Bid("Accept", {"egg": 2}, 4.5)))
>>> d.permitted, eng.budget
(True, 45.5)
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from accord.core.errors import ConfigError, InvalidValue

__all__ = [
    "HUMAN",
    "MAX_AMOUNT",
    "Bid",
    "Decision",
    "Intent",
    "RuleConfig",
    "RulesEngine",
    "Utterance",
    "apply_intent",
    "count_words",
    "intent_bid",
    "to_cents",
    "update_bids",
]

HUMAN = "Human"
"""The buyer's speaker name on the wire."""

Clock = Callable[[], float]


MAX_AMOUNT = 1e9
"""Largest amount of money (dollars) a budget or an accepted price may have."""


def to_cents(amount: float) -> int:
    """Money as an integer number of cents (nearest cent); refuses amounts that are not
    finite or exceed :data:`MAX_AMOUNT` dollars in size.

    >>> to_cents(8.21), to_cents(0.1 + 0.2), to_cents(3)
    (821, 30, 300)
    >>> to_cents(1e300)
    Traceback (most recent call last):
    ...
    accord.core.errors.InvalidValue: an amount of money must be a finite number of at most 1e+09 USD, got 1e+300
    """
    value = float(amount)
    if not math.isfinite(value) or abs(value) > MAX_AMOUNT:
        raise InvalidValue(
            f"an amount of money must be a finite number of at most {MAX_AMOUNT:g} USD, "
            f"got {amount!r}"
        )
    return int(round(value * 100))


def _bundle(quantity: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {g}" for g, n in quantity.items() if n) or "nothing"


def _unlike(offer: Bid | None, bid: Bid, missing: str, offers: str) -> str | None:
    """Why an Accept naming ``bid`` is not of the standing ``offer`` (None: it is):
    ``missing`` when none stands, else ``offers`` (who offers whom) and both bundles."""
    if offer is None:
        return missing
    said = dict(offer.quantity)
    if dict(bid.quantity) != said or to_cents(bid.price or 0.0) != to_cents(offer.price or 0):
        return (
            f"{offers} {_bundle(said)} for {offer.price or 0:.2f} USD; the Accept names "
            f"{_bundle(dict(bid.quantity))} for {bid.price or 0:.2f} USD"
        )
    return None


def count_words(text: str) -> int:
    """Words in a text, as R4 counts them: runs of non-space characters.

    >>> count_words("I can give you 2 eggs for 4.50 dollars.")
    9
    """
    return len(text.split())


@dataclass(frozen=True)
class RuleConfig:
    """The constants of R0-R4; defaults are the spec's values.

    Tests may shrink them, the timing tests use the defaults.
    ``simultaneity`` is the "within milliseconds" of R3: an agent message received
    less than this many seconds from the other agent's permitted message (by the
    server's clock at receipt) is simultaneous with it and blocked: the first response
    is granted, the second blocked (Appendix B, example #5), whether or not its copy of
    the first had started on its way.
    """

    human_gap: float = 5.0
    """R0: seconds between two human utterances."""
    addressee_window: float = 2.0
    """R2: seconds the addressed agent has to answer first."""
    max_words: int = 100
    """R4: longest agent message, in words."""
    simultaneity: float = 0.05
    """R3: two agent replies received closer than this (seconds) are simultaneous."""
    r4_applies_to_human: bool = False
    """The spec limits agent messages only; the original also limited the human."""

    def __post_init__(self) -> None:
        for name in ("human_gap", "addressee_window", "simultaneity"):
            value = getattr(self, name)
            if value < 0:
                raise ConfigError(f"RuleConfig.{name} must be >= 0 seconds, got {value!r}")
        if self.max_words < 1:
            raise ConfigError(f"RuleConfig.max_words must be >= 1, got {self.max_words!r}")


@dataclass(frozen=True)
class Bid:
    """The structured part of a message: ``type`` (SellOffer, BuyOffer, Accept, Reject),
    goods and quantities, and the price in dollars (None when the bid names none)."""

    type: str
    quantity: Mapping[str, int] = field(default_factory=dict)
    price: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "quantity", MappingProxyType(dict(self.quantity)))


@dataclass(frozen=True)
class Intent:
    """What a buyer's words offer when the message carries no bid (read by
    :func:`accord.leagues.humaine.agents.intent.read_intent`): ``kind`` is "accept" (the
    addressed seller's standing offer), "offer" (``goods`` for ``price``), "price" (the
    standing offer's goods for ``price``) or "reject". Used only to know which offer a
    seller may accept; it never books anything itself."""

    kind: str
    goods: Mapping[str, int] = field(default_factory=dict)
    price: float | None = None


@dataclass(frozen=True)
class Utterance:
    """One message as the rules see it. ``addressee`` is an agent name, "Human" or "";
    ``intent`` is the buyer's offer read from its words (messages without a bid)."""

    speaker: str
    text: str
    addressee: str = ""
    bid: Bid | None = None
    intent: Intent | None = None


@dataclass(frozen=True)
class Decision:
    """The verdict on one message.

    ``rule`` names the rule that blocked it ("R0".."R4", "phase", "speaker", "order",
    "offer": an Accept of no standing offer of the other side, "confirm": a deal the buyer
    declined) or is None when permitted; ``rationale`` always explains the verdict; ``at`` is the
    server time of receipt; ``deal`` is True when a permitted Accept booked a purchase
    (at any price, even 0).
    """

    permitted: bool
    rule: str | None
    rationale: str
    at: float
    speaker: str
    deal: bool = False
    amount_cents: int = 0


@dataclass
class _TurnState:
    human_at: float | None = None
    addressee: str | None = None
    spoken: set[str] = field(default_factory=set)
    addressee_spoke: bool = False
    addressee_spoke_at: float | None = None
    last_agent_at: float | None = None
    last_agent: str | None = None


class RulesEngine:
    """R0-R4 for one round. Thread-safe: :meth:`decide` checks and applies atomically.

    Args:
        agents: the registered seller names (normally ``("Celia", "Watson")``).
        budget: the human's budget in dollars.
        config: rule constants (defaults: the spec).
        clock: monotonic seconds; used when ``decide`` gets no explicit ``now``.
        human: the buyer's speaker name.
        active: whether messages may flow; the round toggles it with its phases.
        track_delivery: R2 read to the letter: the addressee's reply frees the
            unaddressed agent only once that agent has been sent its copy (reported
            through :meth:`mark_seen`); without it, at once (virtual-time simulations).
        seller_accepts_need_offer: a seller's Accept is permitted only of the buyer's
            standing offer to that seller, at its goods and price (rule "offer"), as a
            buyer's Accept must be of a seller's standing offer. The buyer's offer is its
            ``BuyOffer`` bid or, for a message without a bid, what its words offer (the
            utterance's :class:`Intent`: "I accept" makes the seller's standing offer the
            buyer's, "2 eggs for $3" offers that). Every round (:class:`~.round.Round`,
            so the orchestrator and fast mode) turns it on; the bare engine leaves it
            off for unit tests of the other rules.
    """

    def __init__(
        self,
        agents: Iterable[str],
        budget: float,
        config: RuleConfig | None = None,
        clock: Clock = time.monotonic,
        human: str = HUMAN,
        active: bool = True,
        track_delivery: bool = False,
        seller_accepts_need_offer: bool = False,
    ) -> None:
        self.agents: tuple[str, ...] = tuple(agents)
        if len(set(self.agents)) != len(self.agents):
            raise ConfigError(f"agent names must be distinct, got {self.agents!r}")
        if human in self.agents:
            raise ConfigError(f"an agent may not use the human's name {human!r}")
        if budget < 0:
            raise ConfigError(f"budget must be >= 0 dollars, got {budget!r}")
        self.config = config or RuleConfig()
        self.clock = clock
        self.human = human
        self.active = active
        self.track_delivery = track_delivery
        self.seller_accepts_need_offer = seller_accepts_need_offer
        self._budget_cents = to_cents(budget)
        self._turn = _TurnState()
        self._seen: dict[str, float] = {}
        self._offers: dict[str, Bid] = {}
        self._bids: dict[str, Bid] = {}  # the buyer's standing BuyOffer to each seller
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ state
    @property
    def budget(self) -> float:
        """The human's remaining budget in dollars (acceptances already deducted)."""
        return self._budget_cents / 100

    @property
    def budget_cents(self) -> int:
        return self._budget_cents

    @property
    def last_human_at(self) -> float | None:
        """Server time of the last permitted human utterance."""
        return self._turn.human_at

    @property
    def addressee(self) -> str | None:
        """The agent the last human utterance addressed, if any."""
        return self._turn.addressee

    def spoken_since_human(self) -> frozenset[str]:
        """Agents whose messages went out since the last human utterance."""
        return frozenset(self._turn.spoken)

    def standing_offers(self) -> dict[str, Bid]:
        """Each seller's offer that still stands: its latest permitted SellOffer, until
        it makes another bid or the offer is bought."""
        with self._lock:
            return dict(self._offers)

    def withdraw(self, speaker: str, at: float) -> None:
        """Undo the turn taken by ``speaker``'s message received at ``at`` (a deal the
        buyer then declined): within the same human turn it may speak again."""
        with self._lock:
            turn = self._turn
            if turn.human_at is not None and turn.human_at <= at:
                turn.spoken.discard(speaker)
                if speaker == turn.addressee and turn.addressee_spoke_at == at:
                    turn.addressee_spoke, turn.addressee_spoke_at = False, None

    def refund(self, amount_cents: int) -> None:
        """Give back money reserved by an acceptance that was later cancelled."""
        if amount_cents < 0:
            raise InvalidValue(f"refund must be >= 0 cents, got {amount_cents}")
        with self._lock:
            self._budget_cents += amount_cents

    def mark_seen(self, agent: str, at: float) -> None:
        """Tell the engine that ``agent`` has been sent its copy of the message received
        at ``at``: a reply from it is then no longer "simultaneous" with that message."""
        with self._lock:
            if at > self._seen.get(agent, -math.inf):
                self._seen[agent] = at

    def restore(
        self,
        budget_cents: int,
        human_at: float | None,
        addressee: str | None,
        spoken: Iterable[tuple[str, float]] = (),
        offers: Mapping[str, Bid] | None = None,
        bids: Mapping[str, Bid] | None = None,
    ) -> None:
        """Rebuild the state (after a restart): remaining budget, the last human
        utterance and the agents' messages since, as ``(name, time)`` in order, the
        sellers' standing offers and the buyer's standing offers (by seller)."""
        with self._lock:
            self._budget_cents = budget_cents
            self._offers = dict(offers or {})
            self._bids = dict(bids or {})
            turn = _TurnState(human_at=human_at, addressee=self.resolve_addressee(addressee))
            for name, at in spoken:
                turn.spoken.add(name)
                turn.last_agent_at, turn.last_agent = at, name
                if name == turn.addressee:
                    turn.addressee_spoke, turn.addressee_spoke_at = True, at
            self._turn = turn

    def resolve_addressee(self, addressee: str | None) -> str | None:
        """The registered agent an addressee string names (case-insensitive), else None."""
        if not addressee:
            return None
        wanted = addressee.strip().lower()
        for name in self.agents:
            if name.lower() == wanted:
                return name
        return None

    # --------------------------------------------------------------- decisions
    def check(self, msg: Utterance, now: float | None = None) -> Decision:
        """The verdict on ``msg`` without changing any state."""
        at = self.clock() if now is None else now
        with self._lock:
            return self._check(msg, at)

    def decide(self, msg: Utterance, now: float | None = None) -> Decision:
        """Judge ``msg`` received at ``now`` (default: the clock) and, if permitted,
        apply it: the check and the update happen under one lock."""
        at = self.clock() if now is None else now
        with self._lock:
            verdict = self._check(msg, at)
            if verdict.permitted:
                self._apply(msg, verdict)
            return verdict

    def _block(self, msg: Utterance, at: float, rule: str, why: str) -> Decision:
        return Decision(False, rule, why, at, msg.speaker)

    def _check(self, msg: Utterance, at: float) -> Decision:
        cfg = self.config
        speaker = msg.speaker
        is_human = speaker == self.human
        if not is_human and speaker not in self.agents:
            known = ", ".join((self.human, *self.agents))
            return self._block(
                msg, at, "speaker", f"Unknown speaker {speaker!r}; this round's parties: {known}"
            )
        if not self.active:
            return self._block(msg, at, "phase", "Failed; round not active")
        words = count_words(msg.text)
        if (not is_human or cfg.r4_applies_to_human) and words > cfg.max_words:
            return self._block(
                msg,
                at,
                "R4",
                f"Excessive message length: {words} words, the limit is {cfg.max_words}",
            )
        deal_cents: int | None = None  # an Accept moves money, even a price of 0
        bid = msg.bid
        if bid is not None and bid.type == "Accept":
            if bid.price is None:
                return self._block(msg, at, "R1", "An Accept bid must carry a price")
            if is_human and self.resolve_addressee(msg.addressee) is None:
                return self._block(
                    msg, at, "R1", "A human Accept must be addressed to the seller it buys from"
                )
            try:
                deal_cents = to_cents(bid.price)
            except ValueError as e:
                return self._block(msg, at, "R1", f"Unusable price: {e}")
            if deal_cents > self._budget_cents:
                return self._block(
                    msg,
                    at,
                    "R1",
                    f"Insufficient budget: accepting {deal_cents / 100:.2f} USD would drive "
                    f"the human's budget of {self._budget_cents / 100:.2f} USD negative",
                )
            unlike = (
                self._unlike_standing_offer(msg, bid)
                if is_human
                else self._unlike_buyer_offer(speaker, bid)
                if self.seller_accepts_need_offer
                else None
            )
            if unlike is not None:
                return self._block(msg, at, "offer", unlike)
        if is_human:
            return self._check_human(msg, at, deal_cents)
        return self._check_agent(msg, at, deal_cents)

    def _unlike_standing_offer(self, msg: Utterance, bid: Bid) -> str | None:
        """Why a human Accept is not of an offer that stands (None: it is)."""
        seller = self.resolve_addressee(msg.addressee) or msg.addressee
        return _unlike(
            self._offers.get(seller),
            bid,
            f"No standing offer to accept: {seller} has no offer that still stands; "
            "a buyer may accept only an offer a seller made",
            f"Not the standing offer: {seller} offers",
        )

    def _unlike_buyer_offer(self, seller: str, bid: Bid) -> str | None:
        """Why a seller's Accept is not of an offer the buyer made to it and that still
        stands (None: it is). Without this a seller could "accept" a price the buyer
        never offered and take the buyer's money (generation 1 has no confirmation)."""
        return _unlike(
            self._bids.get(seller),
            bid,
            f"No standing buyer offer to accept: {self.human} has made {seller} no offer "
            "that still stands; a seller may accept only an offer the buyer made to it",
            f"Not the buyer's standing offer: {self.human} offers {seller}",
        )

    def _check_human(self, msg: Utterance, at: float, deal_cents: int | None) -> Decision:
        last = self._turn.human_at
        gap = self.config.human_gap
        if last is not None and at - last < gap:
            return self._block(
                msg,
                at,
                "R0",
                f"Human spoke {at - last:.3f} s after the previous human utterance; "
                f"at least {gap:g} s must pass",
            )
        deal = deal_cents is not None
        return Decision(
            True, None, "Human utterance permitted", at, msg.speaker, deal, deal_cents or 0
        )

    def _check_agent(self, msg: Utterance, at: float, deal_cents: int | None) -> Decision:
        turn = self._turn
        cfg = self.config
        speaker = msg.speaker
        if turn.human_at is None:
            return self._block(
                msg, at, "order", "No human utterance yet: agents speak only in response"
            )
        if speaker in turn.spoken:
            return self._block(
                msg, at, "R3", "Agent speaking twice since the most recent human utterance"
            )
        elapsed = at - turn.human_at
        window = cfg.addressee_window
        if turn.addressee is not None:
            if speaker == turn.addressee:
                if elapsed >= window:
                    return self._block(
                        msg,
                        at,
                        "R2",
                        f"Addressed agent answered {elapsed:.3f} s after the human; its "
                        f"{window:g} s window has expired until the next human utterance",
                    )
                why = f"Addressed agent answering {elapsed:.3f} s after the human"
            else:
                if not turn.addressee_spoke and elapsed < window:
                    return self._block(
                        msg,
                        at,
                        "R2",
                        f"Premature response from unaddressed agent: {turn.addressee} was "
                        f"addressed and has {window - elapsed:.3f} s left to answer first",
                    )
                if elapsed < window and not self._has_seen(speaker, turn.addressee_spoke_at):
                    return self._block(
                        msg,
                        at,
                        "R2",
                        f"Premature response from unaddressed agent: {turn.addressee}'s reply "
                        f"has not been delivered to {speaker} yet ({window - elapsed:.3f} s "
                        "of the window left)",
                    )
                why = (
                    f"Unaddressed agent answering after {turn.addressee}'s reply"
                    if turn.addressee_spoke
                    else f"Unaddressed agent answering after the {window:g} s window"
                )
        else:
            why = f"Agent answering an unaddressed utterance {elapsed:.3f} s after the human"
        if (
            turn.last_agent_at is not None
            and turn.last_agent != speaker
            and abs(at - turn.last_agent_at) < cfg.simultaneity
        ):
            return self._block(
                msg,
                at,
                "R3",
                f"Simultaneous reply: received {abs(at - turn.last_agent_at) * 1000:.1f} ms "
                f"from {turn.last_agent}'s permitted message (less than "
                f"{cfg.simultaneity * 1000:g} ms apart is simultaneous); resubmit in the light "
                "of it",
            )
        return Decision(True, None, why, at, speaker, deal_cents is not None, deal_cents or 0)

    def _has_seen(self, agent: str, at: float | None) -> bool:
        """Whether ``agent`` has been sent its copy of the message received at ``at``."""
        if not self.track_delivery or at is None:
            return True
        return self._seen.get(agent, -math.inf) >= at

    def _apply(self, msg: Utterance, verdict: Decision) -> None:
        turn = self._turn
        if verdict.deal:
            self._budget_cents -= verdict.amount_cents
        bid = msg.bid
        if msg.speaker == self.human:
            seller = self.resolve_addressee(msg.addressee)
            if bid is None and msg.intent is not None:
                apply_intent(self._bids, self._offers, self.agents, seller, msg.intent)
            else:
                update_bids(self._bids, seller, bid)
            if verdict.deal:  # the offer is bought
                self._offers.pop(self.resolve_addressee(msg.addressee) or "", None)
        elif bid is not None:
            if bid.type == "SellOffer":
                self._offers[msg.speaker] = bid
            else:  # an Accept or Reject ends the seller's standing offer
                self._offers.pop(msg.speaker, None)
                self._bids.pop(msg.speaker, None)  # and answers the buyer's
        if msg.speaker == self.human:
            self._turn = _TurnState(
                human_at=verdict.at, addressee=self.resolve_addressee(msg.addressee)
            )
            return
        turn.spoken.add(msg.speaker)
        turn.last_agent_at = verdict.at
        turn.last_agent = msg.speaker
        if msg.speaker == turn.addressee:
            turn.addressee_spoke, turn.addressee_spoke_at = True, verdict.at


def intent_bid(
    offers: Mapping[str, Bid], seller: str | None, intent: Intent
) -> tuple[str | None, Bid | None]:
    """The seller a buyer's words are for and the bid they amount to, given the sellers'
    standing ``offers`` (None: they change no offer). An unaddressed acceptance is of the
    only standing offer.

    >>> offers = {"Celia": Bid("SellOffer", {"egg": 2}, 3.0)}
    >>> intent_bid(offers, None, Intent("accept"))
    ('Celia', Bid(type='BuyOffer', quantity=mappingproxy({'egg': 2}), price=3.0))
    >>> intent_bid(offers, "Watson", Intent("price", price=2.0))
    ('Watson', None)
    """
    if seller is None and intent.kind == "accept" and len(offers) == 1:
        seller = next(iter(offers))
    standing = offers.get(seller or "")
    if intent.kind == "reject":
        return seller, Bid("Reject")
    if intent.kind == "accept" and standing is not None:
        return seller, Bid("BuyOffer", standing.quantity, standing.price)
    if intent.kind == "offer" and intent.goods and intent.price is not None:
        return seller, Bid("BuyOffer", intent.goods, intent.price)
    if intent.kind == "price" and standing is not None and intent.price is not None:
        return seller, Bid("BuyOffer", standing.quantity, intent.price)
    return seller, None


def apply_intent(
    bids: dict[str, Bid],
    offers: Mapping[str, Bid],
    agents: Iterable[str],
    seller: str | None,
    intent: Intent,
) -> None:
    """Apply a buyer's words (no bid) to its standing offers by seller: said to a
    seller, to that seller; an offer or a rejection said to nobody, to every seller
    (both may answer it, R2); an acceptance or a price said to nobody, to the only
    seller with a standing offer (none when both have one: whose would it be?).

    >>> bids: dict[str, Bid] = {}
    >>> apply_intent(bids, {}, ("Celia", "Watson"), None, Intent("offer", {"egg": 2}, 3.0))
    >>> sorted(bids)
    ['Celia', 'Watson']
    """
    if seller is None and intent.kind in ("accept", "price"):
        if len(offers) == 1:
            seller = next(iter(offers))
        else:
            return
    for name in [seller] if seller is not None else list(agents):
        update_bids(bids, *intent_bid(offers, name, intent))


def update_bids(bids: dict[str, Bid], seller: str | None, bid: Bid | None) -> None:
    """Apply one permitted human message to the buyer's standing offers by seller: a
    BuyOffer addressed to a seller stands for that seller (replacing the previous one);
    the buyer's Accept or Reject addressed to it withdraws it. An unaddressed BuyOffer is
    made to no seller in particular, so no seller may accept it.

    >>> bids: dict[str, Bid] = {}
    >>> update_bids(bids, "Celia", Bid("BuyOffer", {"egg": 2}, 3.0))
    >>> sorted(bids), update_bids(bids, "Celia", Bid("Reject")), bids
    (['Celia'], None, {})
    """
    if seller is None or bid is None:
        return
    if bid.type == "BuyOffer":
        bids[seller] = bid
    elif bid.type in ("Accept", "Reject"):
        bids.pop(seller, None)
