"""The agent (factory manager) interface of section 7, and negotiators with controllers.

An agent overrides the callbacks it cares about and acts through ``self.awi``
(:class:`~accord.leagues.scml.awi.AWI`). Negotiations are conducted by core
:class:`~accord.core.Negotiator` objects: *empowered* negotiators decide themselves
(give them a ``utility_function``), *pass-through* negotiators forward every decision
to a :class:`Controller` that manages many negotiations at once.

Example:
    >>> class Quiet(SCMLAgent):
    ...     def sign_all_contracts(self, contracts):
    ...         return [False] * len(contracts)
    >>> Quiet().short_type
    'Qui'
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from accord.core import (
    Negotiator,
    NegotiatorView,
    Outcome,
    Response,
    SessionResult,
    UtilityFunction,
)
from accord.core.errors import InvalidValue
from accord.leagues.scml.awi import AWI
from accord.leagues.scml.contracts import Agenda, Contract
from accord.leagues.scml.negotiation import utility_of
from accord.leagues.scml.world import World

__all__ = [
    "Controller",
    "EmpoweredNegotiator",
    "PassThroughNegotiator",
    "SCMLAgent",
    "utility_of",
]


class SCMLAgent:
    """Base class of factory managers. Every callback has a harmless default."""

    awi: AWI

    def __init__(self, name: str | None = None) -> None:
        self.name = name or ""

    @property
    def short_type(self) -> str:
        """Three letters of the class name, used in generated agent names."""
        return type(self).__name__.removesuffix("Agent")[:3] or "Agt"

    @property
    def type_name(self) -> str:
        """``module:Class`` of this agent (how results name its type)."""
        return f"{type(self).__module__}:{type(self).__qualname__}"

    def bind(self, world: World, index: int, rng: np.random.Generator) -> None:
        """Called by the world once, before ``init``: gives this agent its AWI."""
        self.awi = AWI(world, index, rng)

    def unbind(self) -> None:
        """Called when the world ends (nothing to release in-process)."""

    # -- main loop ------------------------------------------------------------------
    def init(self) -> None:
        """After the world is built, before day 0."""

    def before_step(self) -> None:
        """At the start of each day, after exogenous contracts are revealed."""

    def step(self) -> None:
        """At the end of each day's agent phase: request tomorrow's negotiations here."""

    # -- events ---------------------------------------------------------------------
    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        """Return a negotiator to accept the request, ``None`` to refuse (the default)."""
        return None

    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        """Decide which agreements (and revealed exogenous contracts) to sign."""
        return [True] * len(contracts)

    def on_negotiation_success(self, contract: Contract, agenda: Agenda) -> None:
        """A negotiation reached an agreement (not yet signed)."""

    def on_negotiation_failure(self, partner: str, agenda: Agenda, reason: str) -> None:
        """A negotiation ended without agreement."""

    def on_negotiation_request_answered(self, partner: str, agenda: Agenda, accepted: bool) -> None:
        """``partner`` answered a request this agent sent from ``init`` or ``before_step``.

        Those requests are held until every agent's ``init`` (``before_step``) was called,
        so ``request_negotiation`` could only say the request was sent; this is the
        answer. Requests sent at any other time are answered by their return value.
        """

    def on_contracts_finalized(
        self, signed: list[Contract], cancelled: list[Contract], rejectors: list[list[str]]
    ) -> None:
        """After signing: ``rejectors[i]`` lists who refused ``cancelled[i]``."""

    def on_agent_bankrupt(
        self, agent: str, nullified: list[Contract], reduced: list[Contract]
    ) -> None:
        """``agent`` went bankrupt; ``nullified``/``reduced`` are this agent's affected contracts.

        A reduced contract replaces the nullified contract named in its ``replaces``.
        """

    def on_failure(self, day: int, lines: list[int], reason: str) -> None:
        """Production on ``lines`` failed today for lack of inputs or funds."""


class Controller:
    """Decides for many pass-through negotiators at once (a centralised strategy).

    Override :meth:`propose` and :meth:`respond`; ``nid`` names the negotiation.
    """

    def __init__(self) -> None:
        self.negotiators: dict[str, PassThroughNegotiator] = {}

    def create_negotiator(self, nid: str) -> PassThroughNegotiator:
        """A pass-through negotiator bound to this controller under the id ``nid``."""
        neg = PassThroughNegotiator(self, nid)
        self.negotiators[nid] = neg
        return neg

    def propose(self, nid: str, view: NegotiatorView) -> Outcome | None:
        raise NotImplementedError(f"{type(self).__name__} must implement propose()")

    def respond(self, nid: str, view: NegotiatorView, offer: Outcome) -> Response:
        raise NotImplementedError(f"{type(self).__name__} must implement respond()")

    def on_negotiation_end(self, nid: str, view: NegotiatorView, result: SessionResult) -> None:
        """One of the negotiations ended."""


class PassThroughNegotiator(Negotiator):
    """Forwards every decision to its controller."""

    def __init__(self, controller: Controller, nid: str) -> None:
        super().__init__(nid)
        self.controller = controller
        self.nid = nid

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return self.controller.propose(self.nid, view)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return self.controller.respond(self.nid, view, offer)

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        self.controller.on_negotiation_end(self.nid, view, result)


class EmpoweredNegotiator(Negotiator):
    """A negotiator with its own utility ``f(offer) -> float`` over (price, quantity, time).

    The world wraps ``utility_function`` in a core utility on the negotiation's outcome
    space, so ``view.utility`` works as in any core negotiation.

    It proposes its best outcome and accepts an offer within ``1 - accept_fraction`` of
    its utility *range* from the best: ``u(offer) >= best - (1 - f) * (best - worst)``
    with ``f = accept_fraction`` (0.9). The rule is the same for any sign or scale of
    utility (``-price`` works as well as ``price``); when every outcome is worth the
    same it accepts anything.

    Example:
        >>> from accord.core import IntegerIssue, OutcomeSpace, CallableUtility
        >>> space = OutcomeSpace([IntegerIssue("price", 1, 11)])
        >>> neg = EmpoweredNegotiator(lambda o: -o[0])  # a buyer: lower is better
        >>> neg.acceptable(CallableUtility(space, neg.utility_function), (2,))
        True
        >>> neg.acceptable(CallableUtility(space, neg.utility_function), (3,))
        False
    """

    utility_function: Callable[[Outcome], float] | None = None

    def __init__(
        self,
        utility_function: Callable[[Outcome], float] | None = None,
        name: str | None = None,
        accept_fraction: float = 0.9,
    ) -> None:
        super().__init__(name)
        if utility_function is not None:
            self.utility_function = utility_function
        if not 0.0 <= accept_fraction <= 1.0:
            raise InvalidValue(f"accept_fraction must be in [0, 1], got {accept_fraction}")
        self.accept_fraction = accept_fraction

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return view.best_outcome

    def acceptable(self, utility: UtilityFunction, offer: Outcome) -> bool:
        """True if ``offer`` is within the accepted share of the utility range."""
        values = utility.all()
        best, worst = float(values.max()), float(values.min())
        threshold = best - (1.0 - self.accept_fraction) * (best - worst)
        return float(utility(offer)) >= threshold - 1e-12 * max(1.0, abs(threshold))

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT if self.acceptable(view.utility, offer) else Response.REJECT
