"""A negotiator that learns across the sessions of a tournament (ANAC 2017 repeated league).

:class:`Learner` reads ``view.memory`` (an :class:`accord.tournament.memory.Memory`: its
own earlier sessions, as the league rules allow) and keeps only the sessions like the
current one: same scenario, same profile, same opponents. From those it estimates what
these opponents are willing to give it:

* ``estimate`` = the best own utility among the agreements reached and, in bilateral
  sessions, among the offers the opponent made;
* if the latest of those sessions ended in an agreement, it asks a little more next time
  (``estimate + step * (max - estimate)``): hill climbing on its aspiration;
* each of the latest two sessions that failed lowers the aspiration by ``backoff``.

It is a :class:`~accord.agents.timebased.TimeDependent` negotiator: with no relevant
history it concedes linearly (``exponent``) to its reservation value. With history it
concedes late (``learned_exponent``) towards the aspiration, and near
the deadline (``t >= late``) accepts any offer worth at least the estimate. Against the
same opponents the aspiration climbs as long as agreements keep coming, so its utility
rises over the repetitions.

    >>> Learner().exponent, Learner().learned_exponent
    (1.0, 0.2)
"""

from __future__ import annotations

from typing import Any

from accord.agents.timebased import TimeDependent
from accord.core.errors import ConfigError
from accord.core.negotiator import NegotiatorView, Response
from accord.core.outcomes import Outcome


class Learner(TimeDependent):
    """Time-dependent concession whose target is learned from earlier sessions."""

    def __init__(
        self,
        exponent: float = 1.0,
        learned_exponent: float = 0.2,
        step: float = 0.25,
        backoff: float = 0.1,
        late: float = 0.9,
        name: str | None = None,
    ) -> None:
        if not (exponent > 0 and learned_exponent > 0):
            raise ConfigError(f"exponents must be > 0, got {exponent}, {learned_exponent}")
        if not (0 <= step <= 1 and backoff >= 0 and 0 < late <= 1):
            raise ConfigError(
                "need 0 <= step <= 1, backoff >= 0 and 0 < late <= 1; "
                f"got step={step}, backoff={backoff}, late={late}"
            )
        super().__init__(exponent, name)
        self.learned_exponent = learned_exponent
        self.step = step
        self.backoff = backoff
        self.late = late
        self.estimate: float | None = None

    def on_start(self, view: NegotiatorView) -> None:
        super().on_start(view)
        self.estimate = None
        self._power = 1.0 / self.exponent
        past = _relevant(view.memory)
        if not past:
            return
        agreed = [s.utility for s in past if s.agreed]
        offered = [
            float(s.opponent_offers().max())
            for s in past
            if view.n_parties == 2 and s.opponent_offers().size
        ]
        if not agreed and not offered:
            return
        estimate = max(agreed + offered)
        aim = estimate
        if past[-1].agreed:
            aim = estimate + self.step * (self._top - estimate)
        fails = sum(1 for s in past[-2:] if not s.agreed)
        aim -= self.backoff * fails
        self.estimate = estimate - self.backoff * fails
        self._floor = min(self._top, max(self._floor, aim))
        self._power = 1.0 / self.learned_exponent

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        u = self._utility(offer)
        t = view.time
        if u >= self.target(t):
            return Response.ACCEPT
        if (
            self.estimate is not None
            and t >= self.late
            and u >= max(self.estimate, view.reservation)
        ):
            return Response.ACCEPT
        return Response.REJECT


def _relevant(memory: Any) -> list[Any]:
    """The earlier sessions like this one, if the memory offers them."""
    if memory is None or not hasattr(memory, "relevant"):
        return []
    return list(memory.relevant())
