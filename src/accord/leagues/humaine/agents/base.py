"""The seller agent's side of Appendix C as a plain Python class.

A :class:`SellerAgent` has the five callbacks of the wire API (``set_utility``,
``start_round``, ``end_round``, ``receive_message``, ``receive_rejection``), each taking the
JSON body as a dict and returning the JSON reply. It talks back through an
:class:`AgentContext`: ``send`` relays a message to the orchestrator, ``call_later``
schedules a callback, ``now`` is the clock. The HTTP service and fast mode each provide a
context, so one agent class runs over real HTTP and in a virtual-time simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from accord.core.errors import AccordError

from ..utility import InvalidUtility, SellerUtility
from .goods import GOODS, bundle_cost, check_bundle
from .language import DEFAULT_NAMES, Act, ActKind, parse_utterance
from .phrases import accept_text, sell_offer_text

HUMAN = "Human"


class AgentContext(Protocol):
    """What an agent may do: read the clock, relay a message, schedule a callback."""

    def now(self) -> float: ...

    def timestamp(self) -> str: ...

    def send(self, message: dict[str, Any]) -> None: ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> None: ...


@dataclass(frozen=True)
class Offer:
    """A priced bundle said by ``speaker`` at time ``t`` (``t`` on the agent's clock)."""

    speaker: str
    bundle: dict[str, int]
    price: float
    t: float


@dataclass(frozen=True)
class Heard:
    """One permitted message as an agent saw it, with its reading."""

    t: float
    speaker: str
    addressee: str
    text: str
    act: Act


SAMPLE_GESTURES: dict[str, str | Sequence[str]] = {
    "SellOffer": "smile",
    "Accept": ["nod", "smile"],
    "tell": "thinking",
}
"""The sample sellers' gestures in the immersive mode."""


class NotBound(AccordError, RuntimeError):
    """An agent tried to speak before a context was attached with :meth:`SellerAgent.bind`."""


class SellerAgent:
    """Base seller: wire callbacks, transcript and offer bookkeeping; subclasses decide.

    Subclasses override :meth:`on_human`, and optionally :meth:`on_agent` and
    :meth:`on_rejection`.
    """

    kind = "base"
    gestures: Mapping[str, str | Sequence[str]] = {}
    """Gestures asked for when a message names none, by act ("SellOffer", "Accept",
    "tell"): empty by default (no ``behavior`` sent, as the original's agents);
    ``accord humaine up --immersive`` gives the sample sellers :data:`SAMPLE_GESTURES`."""

    def __init__(
        self, name: str = "Celia", *, seed: int = 0, names: tuple[str, ...] = DEFAULT_NAMES
    ):
        self.name = name
        self.names = names
        self.seed = seed
        self.ctx: AgentContext | None = None
        self.utility: SellerUtility | None = None
        self.round_id: str | None = None
        self.environment: str | None = None
        self.reset_round()

    # ------------------------------------------------------------------ set-up
    def bind(self, ctx: AgentContext) -> SellerAgent:
        """Attach the context the agent speaks through; returns the agent."""
        self.ctx = ctx
        return self

    def reset_round(self) -> None:
        self.active = False
        self.started_at = 0.0
        self.duration = 300.0
        self.heard: list[Heard] = []
        self.standing: Offer | None = None
        self.rival_offer: Offer | None = None
        self.last_seller_offer: Offer | None = None
        self.last_human: Heard | None = None
        self.spoken_since_human = False
        self.pending: dict[str, Any] | None = None
        self.deals: list[Offer] = []
        self._unknown_note: str | None = None

    @property
    def costs(self) -> Mapping[str, float]:
        return {} if self.utility is None else self.utility.costs

    @property
    def rival(self) -> str:
        others = [n for n in self.names if n != self.name]
        return others[0] if others else ""

    def cost(self, bundle: Mapping[str, int]) -> float:
        """Production cost of ``bundle`` for this agent."""
        return bundle_cost(bundle, {g: self.costs.get(g, 0.0) for g in bundle})

    def elapsed_fraction(self) -> float:
        """Share of the negotiation phase gone, in [0, 1]."""
        if self.ctx is None or self.duration <= 0:
            return 0.0
        return min(1.0, max(0.0, (self.ctx.now() - self.started_at) / self.duration))

    # -------------------------------------------------------------- callbacks
    def set_utility(self, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """/setUtility: store unit costs, name and round id."""
        if not body:
            return {"status": "Failed; no message body", "utility": None}
        try:
            self.utility = SellerUtility.from_wire(body)
        except InvalidUtility as e:
            return {"status": f"Failed; {e}", "utility": None}
        if body.get("name"):
            self.name = str(body["name"])
        self.round_id = body.get("roundId") or self.round_id
        reply: dict[str, Any] = {"status": "Acknowledged", "utility": dict(body)}
        if body.get("roundId"):
            reply["roundId"] = body["roundId"]
        return reply

    def start_round(self, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """/startRound: the negotiation phase begins now."""
        body = body or {}
        self.reset_round()
        self.active = True
        self.round_id = body.get("roundId") or self.round_id
        self.duration = float(body.get("roundDuration") or 300.0)
        self.started_at = self.ctx.now() if self.ctx is not None else 0.0
        return {"status": "Acknowledged"}

    def end_round(self, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """/endRound: stop talking."""
        self.active = False
        return {"status": "Acknowledged"}

    def receive_message(self, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """/receiveMessage: read the message, update the books, maybe answer."""
        if not body or not isinstance(body.get("text"), str):
            return {"status": "Failed; a message needs a text", "interpretation": None}
        speaker = str(body.get("speaker", ""))
        addressee = str(body.get("addressee") or "")
        text = body["text"]
        self.environment = body.get("environmentUUID") or self.environment
        act = parse_utterance(text, self.names)
        now = self.ctx.now() if self.ctx is not None else 0.0
        heard = Heard(now, speaker, addressee, text, act)
        self.heard.append(heard)
        interpretation = {
            k: body[k]
            for k in ("roundId", "text", "speaker", "addressee", "role", "environmentUUID")
            if k in body
        }
        interpretation["act"] = {
            "kind": act.kind.value,
            "goods": dict(act.goods),
            "price": act.price,
        }
        reply = {"status": "Acknowledged", "interpretation": interpretation}
        if speaker == HUMAN:
            self.last_human = heard
            self.spoken_since_human = False
            if self.active:
                self._unknown_note = self._unknown_goods_note(heard)
                self.on_human(heard)
                if self._unknown_note and not self.spoken_since_human:
                    self.tell(self._unknown_note)  # say so rather than ignore it
                self._unknown_note = None
        elif speaker == self.name:
            self._confirm_own(heard)
        else:
            self._note_agent(heard)
            if self.active:
                self.on_agent(heard)
        return reply

    def receive_rejection(self, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """/receiveRejection: our message was blocked; ``rationale`` says why."""
        if not body:
            return {"status": "Failed"}
        if self.pending is not None and self.pending.get("text") == body.get("text"):
            self.pending = None
        self.spoken_since_human = "twice" in str(body.get("rationale", ""))
        if self.active:
            self.on_rejection(dict(body))
        return {"status": "acknowledged", "message": dict(body)}

    # ------------------------------------------------------------------- hooks
    def on_human(self, heard: Heard) -> None:
        """A human utterance arrived during the round."""

    def on_agent(self, heard: Heard) -> None:
        """The other seller's permitted message arrived (without its bid)."""

    def on_rejection(self, message: dict[str, Any]) -> None:
        """One of our messages was blocked."""

    # ----------------------------------------------------------------- helpers
    def target_of(self, heard: Heard) -> str | None:
        """Whom a human utterance is for: the wire addressee, else the name in the text."""
        for cand in (heard.addressee, heard.act.addressee):
            for n in self.names:
                if cand and cand.lower() == n.lower():
                    return n
        return None

    def accept_target(self, heard: Heard) -> str | None:
        """Which seller a human acceptance means: the one addressed, else the latest offer."""
        target = self.target_of(heard)
        if target:
            return target
        return self.last_seller_offer.speaker if self.last_seller_offer else None

    def offer(
        self,
        bundle: Mapping[str, int],
        price: float,
        text: str | None = None,
        behavior: str | Sequence[str] | None = None,
    ) -> None:
        """Relay a SellOffer. ``behavior``: the avatar's gesture(s) in the immersive mode
        ("smile", ["wave", "smile"]; see :mod:`accord.leagues.humaine.behaviour`)."""
        self._say("SellOffer", bundle, price, text or sell_offer_text, behavior)

    def accept(
        self,
        bundle: Mapping[str, int],
        price: float,
        text: str | None = None,
        behavior: str | Sequence[str] | None = None,
    ) -> None:
        """Relay an Accept for ``bundle`` at ``price`` (makes the deal)."""
        self._say("Accept", bundle, price, text or accept_text, behavior)

    def _unknown_goods_note(self, heard: Heard) -> str | None:
        """What to say about goods the human asked for that nobody sells ("3 apples"):
        the seller addressed says it (Celia when nobody is), once per utterance."""
        if not heard.act.unknown:
            return None
        target = self.target_of(heard)
        if target != self.name and not (target is None and self.names[:1] == (self.name,)):
            return None
        words = " or ".join(heard.act.unknown[:3])
        return f"Sorry, I don't sell {words}: I sell {', '.join(GOODS)}."

    def tell(self, text: str, behavior: str | Sequence[str] | None = None) -> None:
        """Relay a message without a bid (small talk, or why we cannot offer)."""
        self._send({"text": text, "behavior": behavior or self.gestures.get("tell")})

    def _say(
        self,
        kind: str,
        bundle: Mapping[str, int],
        price: float,
        text: str | Callable[[dict[str, int], float], str],
        behavior: str | Sequence[str] | None = None,
    ) -> None:
        """Relay a bid of ``kind``: the bundle checked, the price rounded to cents, the
        words ``text`` (or made of the bid by it)."""
        clean = check_bundle(bundle)
        price = round(float(price), 2)
        if not isinstance(text, str):
            text = text(clean, price)
        note = self._unknown_note
        if note:
            text, self._unknown_note = f"{note} {text}", None
        bid = {"type": kind, "quantity": clean, "price": {"unit": "USD", "value": price}}
        self._send({"text": text, "bid": bid, "behavior": behavior or self.gestures.get(kind)})

    def _send(self, content: dict[str, Any]) -> None:
        if self.ctx is None:
            raise NotBound(f"agent {self.name} has no context; call bind(ctx) first")
        message: dict[str, Any] = {
            "text": content["text"],
            "speaker": self.name,
            "role": "seller",
            "addressee": HUMAN,
            "timeStamp": self.ctx.timestamp(),
        }
        if "bid" in content:
            message["bid"] = content["bid"]
        behavior = content.get("behavior")
        if behavior:  # only when asked: the original's agents send none
            message["behavior"] = behavior if isinstance(behavior, str) else list(behavior)
        if self.round_id:
            message["roundId"] = self.round_id
        if self.environment:
            message["environmentUUID"] = self.environment
        self.pending = message
        self.spoken_since_human = True
        self.ctx.send(message)

    def _confirm_own(self, heard: Heard) -> None:
        sent = self.pending
        if sent is None or sent.get("text") != heard.text:
            return
        self.pending = None
        bid = sent["bid"]
        offer = Offer(self.name, dict(bid["quantity"]), float(bid["price"]["value"]), heard.t)
        if bid["type"] == "SellOffer":
            self.standing = offer
            self.last_seller_offer = offer
        elif bid["type"] == "Accept":
            self.deals.append(offer)
            self.standing = None
            self.last_seller_offer = None

    def _note_agent(self, heard: Heard) -> None:
        act = heard.act
        if act.kind is ActKind.OFFER and act.price is not None and act.quantities:
            offer = Offer(heard.speaker, act.quantities, act.price, heard.t)
            self.rival_offer = offer
            self.last_seller_offer = offer
        elif act.kind is ActKind.ACCEPT:
            self.last_seller_offer = None
