"""A NegMAS SAO negotiator as an Accord negotiator.

:class:`NegmasNegotiator` holds one NegMAS negotiator. At ``on_start`` it converts the
outcome space and its own utility (reservation value and discount included), builds the
NegMAS interface from the Accord view (see :mod:`accord.bridges.negmas.view`) and joins
the NegMAS negotiator to it. Each Accord call becomes one NegMAS call
(``negotiator(state)``, which answers with an ``SAOResponse``) and the answer is mapped
back:

=========================  ==========================================================
NegMAS                     Accord
=========================  ==========================================================
``REJECT_OFFER`` + offer   ``Response.REJECT``, then that offer from ``propose``
``REJECT_OFFER``, no offer ``Response.REJECT``, then ``None`` from ``propose`` (walk away)
``ACCEPT_OFFER``           ``Response.ACCEPT``
``END_NEGOTIATION``        ``Response.END`` (or ``None`` from ``propose``)
``LEAVE``                  ``Response.END`` (Accord has no leaving without ending)
``WAIT``, ``NO_RESPONSE``  a :class:`~accord.core.errors.ProtocolViolation`: the session
                           records it as this negotiator's failure
=========================  ==========================================================

:func:`adapt_class` turns a NegMAS class into an Accord ``Negotiator`` subclass, so the
registry, the checker and tournaments take ``negmas.sao:AspirationNegotiator`` like any
agent:

    >>> from negmas.sao import AspirationNegotiator
    >>> Aspiration = adapt_class(AspirationNegotiator)
    >>> issubclass(Aspiration, NegmasNegotiator), Aspiration.__name__
    (True, 'AspirationNegotiator')
    >>> neg = Aspiration(name="A")
    >>> neg.name, type(neg.negmas).__name__
    ('A', 'AspirationNegotiator')
"""

from __future__ import annotations

import inspect
from abc import ABC
from typing import Any, ClassVar

from accord.bridges.negmas._require import require_negmas
from accord.bridges.negmas.convert import Clock, outcome_space, to_accord, utility
from accord.bridges.negmas.view import TIME_BASES, NegmasSide
from accord.core.errors import ConfigError, ProtocolViolation
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols import SessionResult

_NO_OFFER = object()
#: Largest discrete space a NegMAS negotiator runs on by default (``max_outcomes``).
MAX_OUTCOMES = 10_000_000


def is_negmas_negotiator(obj: Any) -> bool:
    """Whether ``obj`` is a concrete NegMAS negotiator class that SAO can run (a subclass
    of NegMAS's ``GBNegotiator``, as every SAO negotiator is, and not a base class: see
    :func:`why_not`; False when NegMAS is absent).

    >>> from negmas.sao import NaiveTitForTatNegotiator, SAONegotiator
    >>> is_negmas_negotiator(NaiveTitForTatNegotiator), is_negmas_negotiator(int)
    (True, False)
    >>> is_negmas_negotiator(SAONegotiator)  # propose() is abstract
    False
    """
    return isinstance(obj, type) and why_not(obj) is None


def why_not(cls: type) -> str | None:
    """Why the NegMAS class ``cls`` cannot play, or None when it can.

    A base class is refused with the reason: abstract methods, ``ABC`` among its own
    bases (its author marks it as a base), or a class attribute it declares without a
    value for subclasses to set (NegoLog's ``NegologNegotiatorWrapper`` and its
    ``negolog_agent_class``).

    >>> from negmas.sao import SAONegotiator, AspirationNegotiator
    >>> why_not(AspirationNegotiator) is None
    True
    >>> why_not(SAONegotiator)  # NegMAS names it SAOPRNegotiator
    'SAOPRNegotiator is a base class: propose() is abstract'
    """
    try:
        from negmas.gb.negotiators.base import GBNegotiator
    except ImportError:
        return "NegMAS is not installed"
    name = getattr(cls, "__name__", repr(cls))
    if not isinstance(cls, type) or not issubclass(cls, GBNegotiator):
        return f"{name} is not a NegMAS SAO negotiator (a subclass of negmas.gb.GBNegotiator)"
    abstract = sorted(getattr(cls, "__abstractmethods__", ()) or ())
    abstract += [
        m
        for m in ("propose", "respond", "__call__")
        if getattr(getattr(cls, m, None), "__isabstractmethod__", False) and m not in abstract
    ]
    if abstract:
        return f"{name} is a base class: {', '.join(f'{m}()' for m in abstract)} " + (
            "is abstract" if len(abstract) == 1 else "are abstract"
        )
    if ABC in cls.__bases__:
        return f"{name} is a base class: it derives from ABC directly (its subclasses play)"
    for klass in cls.__mro__:
        if klass.__module__.partition(".")[0] == "negmas":
            break  # NegMAS's own annotations are instance fields, not hooks to fill
        for attr in getattr(klass, "__annotations__", {}):
            if not attr.startswith("_") and not hasattr(cls, attr) and _class_level(klass, attr):
                return (
                    f"{name} is a base class: it declares {attr!r} without a value, which "
                    "its subclasses set"
                )
    return None


def _class_level(klass: type, attr: str) -> bool:
    """Whether ``attr`` is annotated as a class-level hook (``Type[...]``, ``ClassVar``,
    ``type[...]``) rather than an instance field set in ``__init__``."""
    note = str(klass.__annotations__.get(attr, ""))
    return note.startswith(("Type[", "type[", "ClassVar", "typing.Type", "typing.ClassVar"))


class NegmasNegotiator(Negotiator):
    """Runs one NegMAS SAO negotiator in an Accord session.

    Args:
        negotiator: the NegMAS negotiator (a new instance per session); subclasses made
            by :func:`adapt_class` build it from ``params`` instead.
        name: the Accord name (default: the NegMAS negotiator's class name).
        time_base: ``"negmas"`` (default: ``relative_time`` is ``(round + 1) / (rounds +
            1)`` as in NegMAS's own mechanism) or ``"accord"`` (Accord's ``t``).
        discount_clock: the exponent of the NegMAS utility's discount ``delta**x``:
            ``"negmas"`` (NegMAS's relative time, as ``ExpDiscountedUFun`` with
            ``factor="relative_time"`` in NegMAS) or ``"accord"`` (Accord's ``t``, the
            rule Accord scores with); default: the same as ``time_base``.
        deadline_rounds: the deadline in rounds the NegMAS negotiator is told
            (``nmi.n_steps``); by default the session's (``view.deadline``).
        seed_globals: at the start of a session, seed the generators NegMAS agents draw
            from (Python's and numpy's global ones, and those NegMAS's ``apply_seed``
            reaches) with a number from the view's seeded generator, then (for classes
            made by :func:`adapt_class`) build the NegMAS negotiator afresh, so that the
            session seed reproduces the session. This touches process-wide state: turn it
            off when something else in the process relies on those global generators.
        max_outcomes: on a discrete space with more outcomes than this (the ANAC 2014
            domains have 10^10) the negotiator fails at the start of the session, alone,
            instead of running: many NegMAS agents enumerate the outcome space, which
            there takes tens of GB and gets the whole process killed. ``None`` runs it
            anyway.
    """

    negmas_class: ClassVar[type | None] = None

    def __init__(
        self,
        negotiator: Any = None,
        *,
        name: str | None = None,
        time_base: str = "negmas",
        discount_clock: str | None = None,
        deadline_rounds: int | None = None,
        seed_globals: bool = True,
        max_outcomes: int | None = MAX_OUTCOMES,
        **params: Any,
    ) -> None:
        require_negmas()
        if time_base not in TIME_BASES:
            raise ConfigError(f"time_base must be one of {TIME_BASES}, got {time_base!r}")
        if discount_clock is not None and discount_clock not in TIME_BASES:
            raise ConfigError(
                f"discount_clock must be one of {TIME_BASES} (or unset), got {discount_clock!r}"
            )
        if deadline_rounds is not None and int(deadline_rounds) < 1:
            raise ConfigError(f"deadline_rounds must be >= 1, got {deadline_rounds}")
        if negotiator is None:
            cls = type(self).negmas_class
            if cls is None:
                raise ConfigError(
                    "NegmasNegotiator needs a NegMAS negotiator instance, or use adapt_class()"
                )
            if name is not None:
                params.setdefault("name", name)
            negotiator = cls(**params)
            self._params: dict[str, Any] | None = params
        else:
            self._params = None
        if params and self._params is None:
            raise ConfigError(
                f"parameters {sorted(params)} go to the NegMAS class; pass a class through "
                "adapt_class() or build the negotiator yourself"
            )
        if not is_negmas_negotiator(type(negotiator)):
            raise ConfigError(
                f"expected a NegMAS SAO negotiator, got a {type(negotiator).__name__}"
            )
        super().__init__(name or type(negotiator).__name__)
        self.negmas = negotiator
        self.time_base = time_base
        self.discount_clock = discount_clock or time_base
        self.deadline_rounds = None if deadline_rounds is None else int(deadline_rounds)
        self.seed_globals = seed_globals
        self.max_outcomes = None if max_outcomes is None else int(max_outcomes)
        self._side: NegmasSide | None = None
        self._clock = Clock()
        self._pending: Any = _NO_OFFER

    # -- the Accord calls ----------------------------------------------------------------
    def on_start(self, view: NegotiatorView) -> None:
        space = view.space
        if (
            self.max_outcomes is not None
            and space.is_discrete
            and int(space.cardinality) > self.max_outcomes
        ):
            raise ConfigError(
                f"{int(space.cardinality)} outcomes: more than the NegMAS bridge runs "
                f"(max_outcomes={self.max_outcomes}); NegMAS agents may enumerate the "
                "outcome space. Pass max_outcomes=None (-p max_outcomes=null) to run it anyway"
            )
        if self.seed_globals:
            from negmas.helpers.rand import apply_seed

            apply_seed(int(view.rng.integers(2**31 - 1)))
            cls = type(self).negmas_class
            if cls is not None and self._params is not None:
                self.negmas = cls(**self._params)
        os = outcome_space(view.space)
        ufun = utility(view.utility, os, self._clock)
        side = NegmasSide(view, os, self.negmas.id, self.time_base, self.deadline_rounds)
        self._side = side
        state = side.update(None)
        self._tick(side)
        if not self.negmas.join(side.nmi, state, preferences=ufun, role="negotiator"):
            raise ProtocolViolation(f"{type(self.negmas).__name__} refused to join the session")
        self.negmas._on_negotiation_start(state)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        pending, self._pending = self._pending, _NO_OFFER
        if pending is not _NO_OFFER:
            offer: Outcome | None = pending  # the counter-offer made with its rejection
            return offer
        response = self._call(view, None)
        kind = response.response.name
        if kind == "REJECT_OFFER":
            return to_accord(view.space, response.outcome)
        if kind in ("END_NEGOTIATION", "LEAVE", "ACCEPT_OFFER"):
            return None  # NegMAS ends a session when nothing is on the table to accept
        raise self._unsupported(kind)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        response = self._call(view, offer)
        kind = response.response.name
        if kind == "ACCEPT_OFFER":
            return Response.ACCEPT
        if kind == "REJECT_OFFER":
            self._pending = to_accord(view.space, response.outcome)
            return Response.REJECT
        if kind in ("END_NEGOTIATION", "LEAVE"):
            return Response.END
        raise self._unsupported(kind)

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        side = self._side
        if side is None:
            return
        state = side.finish(result.agreement, result.reason.value, result.time, result.rounds)
        self._clock.t = state.relative_time if self.discount_clock == "negmas" else result.time
        if self.negmas.nmi is not None:
            self.negmas._on_negotiation_end(state)

    # -- internals -----------------------------------------------------------------------
    def _call(self, view: NegotiatorView, offer: Outcome | None) -> Any:
        side = self._side
        if side is None:  # pragma: no cover - the session always calls on_start first
            raise ProtocolViolation("the NegMAS bridge was called before on_start")
        state = side.update(offer)
        self._tick(side)
        ids = side.mechanism.negotiator_ids
        dest = ids[(view.index + 1) % view.n_parties]
        return self.negmas(state, dest=dest)

    def _tick(self, side: NegmasSide) -> None:
        """Move the discount clock to the current moment on the chosen clock."""
        self._clock.t = side.negmas_time() if self.discount_clock == "negmas" else side.view.time

    def _unsupported(self, kind: str) -> ProtocolViolation:
        return ProtocolViolation(
            f"{type(self.negmas).__name__} answered {kind}, which alternating offers in "
            "Accord do not have (only accept, reject with a counter-offer, or end)"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, negmas={type(self.negmas).__name__})"


_ADAPTED: dict[type, type[NegmasNegotiator]] = {}


def adapt_class(cls: type) -> type[NegmasNegotiator]:
    """An Accord ``Negotiator`` subclass that builds ``cls(**params)`` for every session.

    The subclass takes the NegMAS class's parameters plus ``time_base``,
    ``discount_clock``, ``deadline_rounds``, ``seed_globals`` and ``max_outcomes`` (see
    :class:`NegmasNegotiator`), and is cached per class.
    """
    require_negmas()
    reason = why_not(cls)
    if reason is not None:
        raise ConfigError(f"{getattr(cls, '__qualname__', cls)!r} cannot play: {reason}")
    adapted = _ADAPTED.get(cls)
    if adapted is None:
        doc = (cls.__doc__ or "").strip().splitlines()
        adapted = type(
            cls.__name__,
            (NegmasNegotiator,),
            {
                "negmas_class": cls,
                "__doc__": f"{doc[0] if doc else cls.__name__} (NegMAS, through the bridge)",
                "__module__": cls.__module__,
                "__qualname__": cls.__qualname__,
            },
        )
        adapted.__signature__ = _signature(cls)  # type: ignore[attr-defined]
        _ADAPTED[cls] = adapted
    return adapted


def _signature(cls: type) -> inspect.Signature:
    """The NegMAS constructor's parameters plus the bridge's own keyword options."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        params = [inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD)]
    names = {p.name for p in params}
    extra = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
        for n, d in (
            ("time_base", "negmas"),
            ("discount_clock", None),
            ("deadline_rounds", None),
            ("seed_globals", True),
            ("max_outcomes", MAX_OUTCOMES),
        )
        if n not in names
    ]
    var_kw = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    rest = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
    return inspect.Signature([*rest, *extra, *var_kw])
