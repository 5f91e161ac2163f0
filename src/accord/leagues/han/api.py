"""The agent API: ``on_event(event) -> list[Event]`` over a view of one's own side.

An agent (or a simulated participant) subclasses :class:`HanAgent`. The platform binds a
:class:`GameView` before the game starts: the issue names and quantities, the agent's
*own* per-item values and BATNA, the time limit, and the offer on the table as the game
goes. The other side's values and BATNA are never in it. Each response event may carry
a ``delay`` (seconds) to chain events; the platform spaces them (flood protection).

    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> view = GameView.of(EXAMPLE_1, "agent")
    >>> view.values, view.batna, hasattr(view, "person_points")
    ((1, 2, 4, 3), 4, False)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from accord.core.errors import AccordError, NegotiatorTimeout, StateError
from accord.leagues.han.domain import GameSpec, Offer, Role
from accord.leagues.han.events import Event, EventKind, Preference, Relation, SubClass

__all__ = [
    "AgentError",
    "AgentGone",
    "GameView",
    "HanAgent",
    "expression",
    "message",
    "offer_event",
]


@dataclass
class GameView:
    """One side's view of a game. ``offer`` and ``elapsed`` are kept current by the platform."""

    role: Role
    name: str
    issues: tuple[str, ...]
    quantities: tuple[int, ...]
    values: tuple[int, ...]
    batna: int
    total_time: float
    game_index: int = 0
    offer: Offer | None = None
    elapsed: float = 0.0
    heard: list[Event] = field(default_factory=list)

    @classmethod
    def of(cls, spec: GameSpec, role: Role, game_index: int = 0) -> GameView:
        return cls(
            role, spec.name, spec.issues, spec.quantities, spec.values(role),
            spec.batna(role), spec.total_time, game_index,
        )  # fmt: skip

    @property
    def me(self) -> int:
        """Column of this side in an offer row (0 for the agent, 2 for the person)."""
        return 0 if self.role == "agent" else 2

    def points(self, offer: Offer) -> int:
        """My points for ``offer``."""
        return sum(r[self.me] * v for r, v in zip(offer.rows, self.values, strict=True))

    def split(self, mine: list[int]) -> Offer:
        """A full offer giving me ``mine[i]`` items of issue i and the rest to the other side."""
        rows = []
        for m, q in zip(mine, self.quantities, strict=True):
            rows.append((m, 0, q - m) if self.role == "agent" else (q - m, 0, m))
        return Offer(tuple(rows))

    def ranking(self) -> list[int]:
        """Issue indices from my most to my least valued."""
        return sorted(range(len(self.values)), key=lambda i: (-self.values[i], i))


class AgentGone(NegotiatorTimeout):
    """An agent that runs elsewhere is gone (its process died, hung or could not start):
    raised by ``on_event``; to the agent driver it is a timeout (it will never answer),
    which the rules record and answer by ending the game with both BATNAs."""


class AgentError(AccordError):
    """An agent's ``on_event`` raised (in this process or in its sandbox); the message
    says which agent and what. The driver records it and the game goes on."""


class HanAgent(ABC):
    """Base class of agents and simulated participants.

    The platform calls :meth:`bind` once per game, then :meth:`on_event` for every event
    of the other side and of the system (GAME_START, TIME every 5 s, GAME_END).
    """

    name: str = "agent"
    description: str = ""

    def __init__(self) -> None:
        self._view: GameView | None = None

    def bind(self, view: GameView) -> None:
        self._view = view

    @property
    def view(self) -> GameView:
        if self._view is None:
            raise StateError(f"{type(self).__name__} has no game yet: the platform binds one")
        return self._view

    @abstractmethod
    def on_event(self, event: Event) -> list[Event]:
        """Events to send in answer to ``event`` (possibly none)."""


def offer_event(offer: Offer, delay: float = 0.0) -> Event:
    return Event(EventKind.SEND_OFFER, offer=offer, delay=delay)


def message(
    text: str = "", subclass: SubClass = SubClass.NONE, *, value: int = -1,
    preference: Preference | None = None, delay: float = 0.0,
) -> Event:  # fmt: skip
    return Event(
        EventKind.SEND_MESSAGE, text=text, subclass=subclass, value=value,
        preference=preference, delay=delay,
    )  # fmt: skip


def expression(emotion: str, delay: float = 0.0) -> Event:
    return Event(EventKind.SEND_EXPRESSION, emotion=emotion, delay=delay)


def pref_best(issue: int, delay: float = 0.0) -> Event:
    return message(
        subclass=SubClass.PREF_INFO, preference=Preference(issue, Relation.BEST), delay=delay
    )
