"""Accord outcome spaces and utilities as NegMAS objects, and NegMAS offers back.

Only what one negotiator owns is converted: the outcome space (shared by all parties)
and that negotiator's own utility, with its reservation value and discount.

* A categorical issue becomes a NegMAS categorical issue with the same values, an
  integer issue a contiguous one, a real issue a continuous one.
* A linear additive utility over a discrete space becomes a NegMAS
  ``LinearAdditiveUtilityFunction`` with Accord's normalised weights and evaluations
  (so ``u(w)`` is the same number on both sides); any other utility becomes a NegMAS
  utility that asks the Accord one.
* A discount ``delta`` becomes an ``ExpDiscountedUFun`` whose exponent is Accord's
  normalised time ``t`` read from a :class:`Clock` the bridge moves, with the
  reservation value discounted too (Accord's rule ``U * delta**t``).

    >>> from accord.formats import load_scenario
    >>> s = load_scenario("lunch")
    >>> os = outcome_space(s.space)
    >>> u = utility(s.utilities[0], os, Clock())
    >>> o = next(iter(s.space))
    >>> abs(u(o) - s.utilities[0](o)) < 1e-12, u.reserved_value == s.utilities[0].reservation
    (True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.bridges.negmas._require import require_negmas
from accord.core.errors import ConfigError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Outcome, OutcomeSpace, RealIssue
from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator, UtilityFunction


class Clock:
    """Accord's normalised time of the session, as the bridge last saw it."""

    __slots__ = ("t",)

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self, state: Any = None) -> float:
        """The discount exponent (NegMAS calls this with its state, which is ignored)."""
        return self.t


def outcome_space(space: OutcomeSpace, name: str = "accord") -> Any:
    """The NegMAS ``CartesianOutcomeSpace`` with the same issues, values and order."""
    require_negmas()
    from negmas.outcomes import make_issue, make_os

    issues = []
    for issue in space.issues:
        if isinstance(issue, CategoricalIssue):
            issues.append(make_issue(list(issue.values()), name=issue.name))
        elif isinstance(issue, IntegerIssue):
            issues.append(make_issue((int(issue.lower), int(issue.upper)), name=issue.name))
        elif isinstance(issue, RealIssue):
            issues.append(make_issue((float(issue.lower), float(issue.upper)), name=issue.name))
        else:  # pragma: no cover - every Accord issue type is listed above
            raise ConfigError(
                f"issue {issue.name!r} of type {type(issue).__name__} has no NegMAS form"
            )
    return make_os(issues, name=name)


def utility(u: UtilityFunction, os: Any, clock: Clock) -> Any:
    """A NegMAS utility function equal to ``u`` on ``os``, discounted on ``clock``."""
    require_negmas()
    from negmas.preferences import ExpDiscountedUFun

    base = _undiscounted(u, os)
    if u.discount is None:
        return base
    return ExpDiscountedUFun(
        ufun=base,
        discount=u.discount,
        factor=clock,
        outcome_space=os,
        reserved_value=u.reservation,
        dynamic_reservation=True,
    )


def _undiscounted(u: UtilityFunction, os: Any) -> Any:
    from negmas.preferences import LinearAdditiveUtilityFunction
    from negmas.preferences.value_fun import AffineFun, TableFun

    if isinstance(u, LinearAdditiveUtility):
        values: list[Any] = []
        for k, issue in enumerate(u.space.issues):
            e = u.evaluators[k]
            if issue.is_discrete:
                values.append(TableFun({v: u.evaluation(k, v) for v in issue.values()}))
            elif isinstance(e, LinearEvaluator):
                s = u.scales[k]
                values.append(AffineFun(slope=e.slope * s, bias=e.offset * s))
            else:
                return _Wrapped.make(u, os)
        return LinearAdditiveUtilityFunction(
            values=values,
            weights=[float(w) for w in u.weights],
            outcome_space=os,
            reserved_value=u.reservation,
        )
    return _Wrapped.make(u, os)


class _Wrapped:
    """Factory of a NegMAS utility that evaluates an Accord utility (built lazily)."""

    _cls: type | None = None

    @classmethod
    def make(cls, u: UtilityFunction, os: Any) -> Any:
        if cls._cls is None:
            from negmas.preferences import UtilityFunction as NegmasUtility

            class AccordUtility(NegmasUtility):  # type: ignore[misc]
                """A NegMAS utility that asks an Accord utility (undiscounted)."""

                def __init__(self, inner: UtilityFunction, **kwargs: Any) -> None:
                    super().__init__(**kwargs)
                    self.inner = inner

                def eval(self, offer: Any) -> float:
                    if offer is None:
                        return float(self.reserved_value)
                    return float(self.inner(tuple(offer)))

                def to_dict(self, python_class_identifier: str = "__python_class__") -> Any:
                    return {python_class_identifier: "AccordUtility"}

            cls._cls = AccordUtility
        return cls._cls(u, outcome_space=os, reserved_value=u.reservation)


def to_accord(space: OutcomeSpace, offer: Any) -> Outcome | None:
    """A NegMAS offer as an Accord outcome: a tuple with numbers of the issues' types.

    NegMAS negotiators may return numpy scalars or lists; an offer that is not a sequence
    of the right length is returned as is, for the session to reject with its message.

    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> import numpy as np
    >>> to_accord(OutcomeSpace([IntegerIssue("n", 1, 5)]), [np.int64(3)])
    (3,)
    """
    if offer is None:
        return None
    if isinstance(offer, Mapping):
        offer = tuple(offer.get(n) for n in space.names)
    try:
        items = tuple(offer)
    except TypeError:
        return offer  # type: ignore[no-any-return]
    if len(items) != len(space.issues):
        return items
    out: list[Any] = []
    for issue, v in zip(space.issues, items, strict=True):
        if hasattr(v, "dtype") and hasattr(v, "item"):
            v = v.item()  # a numpy scalar
        if isinstance(issue, IntegerIssue) and isinstance(v, float) and v.is_integer():
            v = int(v)
        out.append(v)
    return tuple(out)
