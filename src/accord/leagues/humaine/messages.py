"""Pydantic models of the HUMAINE wire messages (Appendix C and the captured examples).

Incoming models are tolerant of the original's variants (``timestamp`` as epoch
milliseconds from humans, ``timeStamp`` as ISO text from agents, numeric strings in
``durations``, ports as strings, extra fields) and strict about what matters: known
goods, whole non-negative quantities, a price on offers and acceptances, bounded
texts. :func:`explain` turns a validation error into one readable sentence.

>>> m = RelayMessage.model_validate({"speaker": "Watson", "text": "5 eggs for 3.73",
...     "role": "seller", "addressee": "Human", "timeStamp": "2020-02-20T08:08:05.825Z",
...     "bid": {"type": "SellOffer", "quantity": {"egg": 5},
...             "price": {"unit": "USD", "value": 3.73}}})
>>> m.bid.price.value, m.bid.quantity
(3.73, {'egg': 5})
>>> try:
...     RelayMessage.model_validate({"speaker": "Watson", "text": "hi",
...                                  "bid": {"type": "SellOffer", "quantity": {"egg": 1}}})
... except Exception as e:
...     print(explain(e))
bid: Value error, a SellOffer bid needs a price {unit, value}
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .goods import InvalidBundle, validate_bundle

__all__ = [
    "MAX_NAME_CHARS",
    "MAX_TEXT_CHARS",
    "UI_ROUTES",
    "Ack",
    "AgentSpec",
    "AllocationRequest",
    "BidModel",
    "BudgetModel",
    "DurationsModel",
    "EndRoundRequest",
    "HumanSpec",
    "HumanTotals",
    "InitializeReply",
    "InitializeRound",
    "LogMessage",
    "PartyEndRound",
    "PartySpec",
    "PartyStartRound",
    "PriceModel",
    "RejectionMessage",
    "RelayMessage",
    "RelayReply",
    "RoundMetadata",
    "RoundTotalsMessage",
    "SellerTotals",
    "SetUtilityMessage",
    "SetUtilityReply",
    "StartRoundRequest",
    "explain",
]

MAX_TEXT_CHARS = 5000
"""Longest message text accepted on the wire (R4 separately limits agents to 100 words)."""
MAX_NAME_CHARS = 64
MAX_BEHAVIOR_CHARS = 400

BID_TYPES = ("SellOffer", "BuyOffer", "Accept", "Reject")

UI_ROUTES: tuple[str, ...] = (
    "sendRoundMetadata",
    "setUtility",
    "startRound",
    "endRound",
    "receiveMessage",
    "receiveLog",
    "receiveRejection",
    "confirmAccept",
    "receiveRoundTotals",
)
"""The routes (without ``/``) the orchestrator posts to a human UI."""


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class PriceModel(_Wire):
    unit: str = "USD"
    value: float

    @field_validator("value")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"price value must be a finite number >= 0, got {v}")
        return v


class BidModel(_Wire):
    """``{type, quantity: {good: int}, price: {unit, value}}``."""

    type: Literal["SellOffer", "BuyOffer", "Accept", "Reject"]
    quantity: dict[str, Any] = Field(default_factory=dict)
    price: PriceModel | None = None

    @field_validator("quantity", mode="before")
    @classmethod
    def _goods(cls, v: Any) -> dict[str, int]:
        if v is None:
            return {}
        try:
            return validate_bundle(v)
        except InvalidBundle as e:
            raise ValueError(str(e)) from None

    @model_validator(mode="after")
    def _priced(self) -> BidModel:
        if self.type != "Reject" and self.price is None:
            raise ValueError(f"a {self.type} bid needs a price {{unit, value}}")
        if self.type in ("SellOffer", "Accept") and not any(self.quantity.values()):
            raise ValueError(f"a {self.type} bid needs a non-empty quantity {{good: count}}")
        return self


class RelayMessage(_Wire):
    """A message posted to /relayMessage by the human's UI or by an agent."""

    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    speaker: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    role: str | None = None
    addressee: str | None = Field(default="", max_length=MAX_NAME_CHARS)
    roundId: str | None = None
    environmentUUID: str | None = None
    timestamp: int | float | str | None = None
    timeStamp: int | float | str | None = None
    bid: BidModel | None = None
    token: str | None = None
    behavior: str | list[Any] | dict[str, Any] | None = None
    """Optional avatar behaviour of an agent's message (the immersive mode): a gesture
    ("smile"), a list of them, or ``{"gesture": ...}``; see :mod:`.behaviour`. Agents
    written for the original send none."""

    @field_validator("behavior")
    @classmethod
    def _behavior(cls, v: Any) -> Any:
        if v is not None and len(repr(v)) > MAX_BEHAVIOR_CHARS:
            raise ValueError(f"behavior may take {MAX_BEHAVIOR_CHARS} characters; got more")
        return v

    @field_validator("role")
    @classmethod
    def _role(cls, v: str | None) -> str | None:
        if v is not None and v not in ("buyer", "seller"):
            raise ValueError(f"role must be 'buyer' or 'seller', got {v!r}")
        return v


class DurationsModel(_Wire):
    """Phase lengths in seconds; numeric strings (as the original sent) are accepted."""

    warmUp: float = Field(default=5.0, ge=0, le=86400)
    round: float = Field(default=300.0, ge=0, le=86400)
    post: float = Field(default=120.0, ge=0, le=86400)


class PartySpec(_Wire):
    """Where a party listens: ``{protocol, host, port}`` or a full ``url``."""

    protocol: str = "http"
    host: str = "localhost"
    port: int | None = None
    url: str | None = None
    name: str = Field(default="humanUI", min_length=1, max_length=MAX_NAME_CHARS)

    def base_url(self) -> str:
        if self.url:
            return self.url.rstrip("/")
        if self.port is None:
            raise ValueError(f"party {self.name!r} needs a port or a url")
        return f"{self.protocol}://{self.host}:{self.port}"

    @model_validator(mode="after")
    def _addressable(self) -> PartySpec:
        self.base_url()
        return self


class AgentSpec(PartySpec):
    """A seller in a round: address, name, utility and its secret token (the
    orchestrator makes one when none is given). ``authenticated: false`` admits an agent
    that cannot send a secret (written for the original platform): the operator's
    explicit choice, shown to the UIs and in the log."""

    utilityFunction: dict[str, Any]
    token: str | None = Field(default=None, max_length=200)
    authenticated: bool = True


class HumanSpec(_Wire):
    utilityFunction: dict[str, Any] | None = None
    budget: float | None = Field(default=None, ge=0)
    token: str | None = Field(default=None, max_length=200)
    authenticated: bool = True


class InitializeRound(_Wire):
    """Generation 2 ``/initializeRound`` body, also the generation 1 ``/startRound`` body."""

    roundId: str | None = Field(default=None, min_length=1, max_length=200)
    roundNumber: int | None = None
    agents: list[AgentSpec] = Field(min_length=1, max_length=8)
    human: HumanSpec = Field(default_factory=HumanSpec)
    durations: DurationsModel = Field(default_factory=DurationsModel)
    humanBudget: float | dict[str, Any] | None = None
    humanUIs: list[PartySpec] | None = None

    @model_validator(mode="after")
    def _distinct(self) -> InitializeRound:
        names = [a.name for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError(f"agent names must be distinct, got {names}")
        if "Human" in names:
            raise ValueError("an agent may not be named 'Human'")
        return self

    def budget(self, default: float) -> float:
        """The human's budget: ``human.budget``, ``humanBudget`` (number or {value})."""
        if self.human.budget is not None:
            return self.human.budget
        hb = self.humanBudget
        if isinstance(hb, dict):
            hb = hb.get("value")
        if hb is None:
            return default
        value = float(hb)
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"humanBudget must be a number >= 0, got {hb!r}")
        return value


class StartRoundRequest(_Wire):
    roundId: str = Field(min_length=1)


class EndRoundRequest(_Wire):
    roundId: str | None = None


class AllocationRequest(_Wire):
    """``/receiveHumanAllocation``: ``{roundId, payload: {cake, pancake}}`` (generation 2)
    or the products object alone (generation 1)."""

    roundId: str | None = None
    payload: dict[str, Any] | None = None

    def products(self) -> dict[str, Any]:
        if self.payload is not None:
            return self.payload
        extra = self.model_extra or {}
        return {k: v for k, v in extra.items() if k in ("cake", "pancake", "products")}


# ------------------------------------------------------------ outgoing messages
class SetUtilityMessage(_Wire):
    """``/setUtility`` to an agent (unit costs) or a human UI (cake/pancake values)."""

    currencyUnit: str = "USD"
    utility: dict[str, Any]
    name: str
    roundId: str | None = None


class SetUtilityReply(_Wire):
    status: str
    utility: dict[str, Any] | None = None


class PartyStartRound(_Wire):
    """``/startRound`` to every party after the warm-up."""

    roundDuration: float
    timestamp: str
    roundId: str | None = None
    roundNumber: int | None = None


class PartyEndRound(_Wire):
    timestamp: str
    roundId: str | None = None
    roundNumber: int | None = None


class BudgetModel(_Wire):
    currentUnit: str = "USD"
    value: float


class RoundMetadata(_Wire):
    """``/sendRoundMetadata`` to the human UIs (generation 2)."""

    roundId: str
    durations: DurationsModel
    humanBudget: BudgetModel


class RejectionMessage(RelayMessage):
    """``/receiveRejection``: the blocked message plus why."""

    rationale: str


class LogMessage(RelayMessage):
    """``/receiveLog``: every decision, permitted or not."""

    permitted: bool
    rationale: str | None = None


class SellerTotals(_Wire):
    quantity: dict[str, int]
    revenue: float
    utility: dict[str, Any]


class HumanTotals(_Wire):
    quantity: dict[str, int]
    cost: float
    utility: dict[str, Any]


class RoundTotalsMessage(_Wire):
    """``/receiveRoundTotals``: ``roundTotals = {Human: ..., <seller>: ...}``."""

    roundId: str | None = None
    roundNumber: int | None = None
    roundTotals: dict[str, Any]

    @model_validator(mode="after")
    def _shapes(self) -> RoundTotalsMessage:
        for name, totals in self.roundTotals.items():
            model = HumanTotals if name == "Human" else SellerTotals
            model.model_validate(totals)
        return self


class Ack(_Wire):
    status: str


class RelayReply(_Wire):
    status: str
    allResponses: list[Any] = Field(default_factory=list)


class InitializeReply(_Wire):
    roundId: str
    msg: str


def explain(error: Exception) -> str:
    """One readable line per problem: where it is, what was expected, what arrived."""
    if not isinstance(error, ValidationError):
        return str(error)
    parts = []
    for e in error.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "body"
        msg = e["msg"]
        if e["type"] in ("missing",):
            parts.append(f"{loc}: required field is missing")
            continue
        got = e.get("input")
        shown = repr(got)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        if e["type"].startswith("string_too_long"):
            shown = f"{len(got)} characters" if isinstance(got, str) else shown
        if e["type"] in ("value_error", "assertion_error"):
            parts.append(f"{loc}: {msg}")
        else:
            parts.append(f"{loc}: {msg} (got {shown})")
    return "; ".join(parts)
