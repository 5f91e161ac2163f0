"""The agent side of the protocol: what an agent sees and the one method it writes.

An agent subclasses :class:`GeniusAgent` and implements ``act(view)``, returning the
actions it sends now (possibly none). It is asked several times per turn, so it can answer
offers as they arrive; it sees only its own type, the list of the other side's types
(never which one it faces), the running agreement, the offers and the messages.

    >>> from accord.leagues.genius.protocol import Action
    >>> class Stubborn(GeniusAgent):
    ...     def act(self, view):
    ...         best = view.best_outcome()
    ...         return [Action.make_offer(best)] if not view.my_offers() else []
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from accord.leagues.genius.domain import Domain, Profile
from accord.leagues.genius.protocol import Action, Event, GeniusResult, Kind, Offer, Rules

if TYPE_CHECKING:
    from accord.leagues.genius.protocol import GeniusSession

__all__ = [
    "GeniusAgent",
    "PartyView",
]


class PartyView:
    """One side's read-only window on a session."""

    def __init__(self, session: GeniusSession, side: int, seed: int) -> None:
        self._session = session
        self.side = side
        self.domain: Domain = session.domain
        self.profile: Profile = session.profiles[side]
        self.opponent_types: tuple[Profile, ...] = session.domain.types[1 - side]
        self.rules: Rules = session.rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._scores: npt.NDArray[np.float64] | None = None

    # -- time --------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """Current turn index (0-based)."""
        return self._session.turn

    @property
    def elapsed(self) -> float:
        """Seconds on the session's clock since the start."""
        return self._session.elapsed

    @property
    def period(self) -> int:
        """Time period used in utilities now (``turn + rules.first_turn``)."""
        return self._session.period

    @property
    def turns(self) -> int:
        """Number of turns (the deadline)."""
        return self.rules.turns

    # -- state -------------------------------------------------------------------------
    @property
    def agreement_row(self) -> npt.NDArray[np.int64]:
        """The running agreement as an index row (-1 = open); a copy."""
        return self._session.agreement_row.copy()

    def offers(self) -> list[Offer]:
        """Every offer so far (both sides)."""
        return list(self._session.offers)

    def my_offers(self) -> list[Offer]:
        """This side's offers."""
        return [o for o in self._session.offers if o.party == self.side]

    def pending(self) -> list[Offer]:
        """The other side's offers this side has not answered."""
        return self._session.open_offers(self.side)

    def messages(self) -> list[Event]:
        """The other side's comments and threats, oldest first."""
        return [
            e
            for e in self._session.events
            if e.ok and e.party != self.side and e.kind in (Kind.COMMENT, Kind.THREAT)
        ]

    def opponent_events(self) -> list[Event]:
        """Every valid action of the other side."""
        return [e for e in self._session.events if e.ok and e.party != self.side]

    # -- own utility -------------------------------------------------------------------
    @property
    def scores(self) -> npt.NDArray[np.float64]:
        """Time-free utility of every full outcome (``domain.rows`` order), cached."""
        if self._scores is None:
            self._scores = self.profile.scores(self.domain.rows)
        return self._scores

    def value(self, row: npt.NDArray[np.int64], t: float | None = None) -> float:
        """Own utility of a (partial) index row at period ``t`` (default: now)."""
        t = self.period if t is None else t
        return self.profile.score(row, self.rules.open_issues) + t * self.profile.time_effect

    def combined(self, row: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The running agreement with ``row``'s agreed values written over it."""
        out = self._session.agreement_row.copy()
        out[row >= 0] = row[row >= 0]
        return out

    def offer_of(self, row: npt.NDArray[np.int64]) -> dict[str, str]:
        """The values mapping of an index row (open issues left out)."""
        return {
            i.name: i.values[int(k)] for i, k in zip(self.domain.issues, row, strict=True) if k >= 0
        }

    def best_outcome(self) -> dict[str, str]:
        """This side's best full outcome as values."""
        return self.offer_of(self.domain.rows[int(np.argmax(self.scores))])


class GeniusAgent:
    """Base class of agents for this protocol; override :meth:`act`."""

    @property
    def name(self) -> str:
        """Display name (the class name by default)."""
        return type(self).__name__

    def on_start(self, view: PartyView) -> None:
        """Called once before the first turn (precompute here)."""

    def act(self, view: PartyView) -> Sequence[Action]:
        """The actions to send now; called several times per turn."""
        return []

    def on_resume(self, view: PartyView) -> None:
        """Called after a server restart, once the stored session is replayed into
        ``view`` (after :meth:`on_start`): rebuild what the agent keeps from the session's
        history (default: nothing; an agent that keeps state through a session overrides
        this, or it starts from what its view shows)."""

    def memory(self) -> dict[str, Any] | None:
        """What the agent keeps between its calls that its view's history cannot tell
        (JSON-ready), saved with the session after every change so that a restart
        restores it exactly (see :meth:`recall`); default None: nothing."""
        return None

    def recall(self, memory: dict[str, Any]) -> None:
        """Take back what :meth:`memory` returned (after :meth:`on_resume`)."""

    def on_end(self, view: PartyView, result: GeniusResult) -> None:
        """Called once when the session ends."""
