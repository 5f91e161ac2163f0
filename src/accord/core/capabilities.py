"""Capabilities: what a negotiator can do beyond offering and answering.

Every negotiator can :meth:`~accord.core.negotiator.Negotiator.propose` and
:meth:`~accord.core.negotiator.Negotiator.respond`; that is all the alternating-offers
protocol and the ultimatum game ask. A protocol that needs more (partial offers,
opting out, messages) names the capabilities it needs in its
:class:`~accord.core.protocols.ProtocolInfo` (``needs``), and a negotiator that has one
says so by mixing in the class below and implementing its method(s). AOP agents are not
touched by any of this.

Each capability is a ``typing.Protocol``, so it is both a mixin (nominal) and a check
(structural): ``isinstance(agent, OptsOut)`` holds for any object with an ``opt_out``
method. :func:`missing_capabilities` is the check protocols and the registry use.

    >>> from accord.core.negotiator import Negotiator
    >>> class Walker(Negotiator, OptsOut):
    ...     def opt_out(self, view):
    ...         return view.time > 0.9
    >>> missing_capabilities(Walker, (OptsOut, SendsMessages))
    ['SendsMessages (send_message, receive_message)']
    >>> missing_capabilities(Walker(), (OptsOut,))
    []
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from accord.core.negotiator import NegotiatorView


@runtime_checkable
class ProposesPartial(Protocol):
    """Can offer values for some issues only (the rest left open)."""

    def propose_partial(self, view: NegotiatorView) -> Mapping[str, Any] | None:
        """Issue name to value for the issues this offer fixes; None walks away."""
        ...


@runtime_checkable
class OptsOut(Protocol):
    """Can leave the negotiation at a moment the protocol asks (opt-out)."""

    def opt_out(self, view: NegotiatorView) -> bool:
        """True to opt out now."""
        ...


@runtime_checkable
class SendsMessages(Protocol):
    """Can send and receive free-text messages beside its offers."""

    def send_message(self, view: NegotiatorView) -> str | None:
        """A message to every other party, or None for none."""
        ...

    def receive_message(self, view: NegotiatorView, sender: int, text: str) -> None:
        """A message from party ``sender``."""
        ...


def capability_name(capability: type) -> str:
    """``Name (method, method)``: how errors name a capability.

    >>> capability_name(OptsOut)
    'OptsOut (opt_out)'
    """
    methods = [m for m in vars(capability) if not m.startswith("_")]
    return f"{capability.__name__} ({', '.join(methods)})" if methods else capability.__name__


def missing_capabilities(agent: object, needs: Sequence[type]) -> list[str]:
    """Names of the capabilities in ``needs`` that ``agent`` (a class or an instance) lacks."""
    out = []
    for cap in needs:
        has = issubclass(agent, cap) if isinstance(agent, type) else isinstance(agent, cap)
        if not has:
            out.append(capability_name(cap))
    return out
