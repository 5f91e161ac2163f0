"""Time-dependent negotiators: Boulware, Linear, Conceder and any exponent.

The target utility at normalised time ``t`` is
``floor + (max - floor) * (1 - t ** (1 / e))`` where ``floor`` is the larger of the
reservation value and the worst outcome's utility. ``e < 1`` concedes late (Boulware),
``e = 1`` linearly, ``e > 1`` early (Conceder). A time-dependent negotiator offers the
outcome closest above its target and accepts any offer at least as good as the target.

    >>> Boulware().exponent, Conceder().exponent, Linear().exponent
    (0.2, 5.0, 1.0)
"""

from __future__ import annotations

from accord.core.errors import ConfigError
from accord.core.inverse import Inverse, inverse_of
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome

_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT


def target_range(view: NegotiatorView) -> tuple[Inverse, float, float]:
    """The shared inverse of the negotiator's utility, its floor and its best utility.

    The floor is the larger of the reservation value and the worst outcome's utility:
    the lowest target a conceding negotiator goes down to.
    """
    inv = inverse_of(view.utility)
    return inv, max(view.reservation, inv.min), inv.max


class TimeDependent(Negotiator):
    """Concedes from its best outcome towards its reservation value as time runs out."""

    def __init__(self, exponent: float = 1.0, name: str | None = None) -> None:
        super().__init__(name)
        if not exponent > 0:
            raise ConfigError(f"exponent must be > 0, got {exponent}")
        self.exponent = float(exponent)
        self._inverse: Inverse | None = None
        self._floor = 0.0
        self._top = 1.0
        self._power = 1.0 / self.exponent
        self._at = -1.0  # the time of the last target computed, and that target
        self._aim = 0.0

    def on_start(self, view: NegotiatorView) -> None:
        self._inverse, self._floor, self._top = target_range(view)
        self._utility = view.utility
        self._at = -1.0

    def target(self, t: float) -> float:
        """Utility aimed at, at normalised time ``t``."""
        return self._floor + (self._top - self._floor) * (1.0 - float(t**self._power))

    # propose and respond compute target() in place (they run at every action); a
    # counter-offer right after a rejection reuses the target respond computed at that time
    def propose(self, view: NegotiatorView) -> Outcome | None:
        inv = self._inverse
        assert inv is not None
        t = view.time
        if t == self._at:
            return inv.at_least(self._aim)
        floor = self._floor
        return inv.at_least(floor + (self._top - floor) * (1.0 - t**self._power))

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        floor = self._floor
        t = view.time
        target = floor + (self._top - floor) * (1.0 - t**self._power)
        self._at = t
        self._aim = target
        return _ACCEPT if self._utility(offer) >= target else _REJECT


class Boulware(TimeDependent):
    """Concedes late (exponent 0.2 by default)."""

    def __init__(self, exponent: float = 0.2, name: str | None = None) -> None:
        super().__init__(exponent, name)


class Linear(TimeDependent):
    """Concedes linearly in time."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(1.0, name)


class Conceder(TimeDependent):
    """Concedes early (exponent 5 by default)."""

    def __init__(self, exponent: float = 5.0, name: str | None = None) -> None:
        super().__init__(exponent, name)
