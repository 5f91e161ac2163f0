"""The contract every protocol implements, and the record of what it supports.

A protocol is a small state machine (:class:`Mechanism`): it starts in
:attr:`Phase.CREATED`, :meth:`Mechanism.step` lets the next party (or parties) act,
:meth:`Mechanism.run` steps until the end, and :attr:`Mechanism.result` is the typed
:class:`~accord.core.protocols.result.SessionResult` once the phase is
:attr:`Phase.ENDED`. What a protocol supports is data, a frozen :class:`ProtocolInfo`
that tools can ask before building anything:

    >>> from accord.core.protocols.result import Action
    >>> info = ProtocolInfo("take-it-v1", "take it or leave it", TurnStyle.SEQUENTIAL,
    ...                     actions=frozenset({Action.OFFER, Action.ACCEPT}), max_parties=2)
    >>> info.check_parties(3)
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: protocol 'take-it-v1' takes 2 parties; got 3
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

from accord.core.capabilities import capability_name, missing_capabilities
from accord.core.errors import CapabilityError, ConfigError
from accord.core.protocols.result import Action, SessionResult

_ID = re.compile(r"^[a-z][a-z0-9-]*-v[0-9]+$")


class Phase(Enum):
    """Where the session is."""

    CREATED = "created"
    RUNNING = "running"
    ENDED = "ended"


class TurnStyle(StrEnum):
    """Who acts in one step."""

    SEQUENTIAL = "sequential"
    """One party per step, in an order the protocol keeps (AOP, the ultimatum game)."""
    SIMULTANEOUS = "simultaneous"
    """Every party in every step (sealed bids)."""
    SIMULTANEOUS_START = "simultaneous-start"
    """Every party in the first round, one party per step after (the SCML variant)."""


@dataclass(frozen=True)
class ProtocolInfo:
    """What a protocol is and supports.

    Args:
        id: name and version, ``name-vN`` (``"aop-v1"``); results record it, so a new
            rule is a new version, never a silent change.
        name: a human label.
        turns: who acts in one step.
        actions: the actions that can appear in its trace.
        min_parties: fewest parties it takes.
        max_parties: most parties it takes (None: no limit).
        needs: capabilities (from :mod:`accord.core.capabilities`) every negotiator must
            have beyond ``propose``/``respond``.
        description: one line for listings.
    """

    id: str
    name: str
    turns: TurnStyle
    actions: frozenset[Action]
    min_parties: int = 2
    max_parties: int | None = None
    needs: tuple[type, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ConfigError(
                f"a protocol id is a lower-case name and a version like 'aop-v1'; got {self.id!r}"
            )
        if self.min_parties < 1 or (
            self.max_parties is not None and self.max_parties < self.min_parties
        ):
            raise ConfigError(
                f"protocol {self.id!r}: party counts must satisfy 1 <= min <= max; "
                f"got min {self.min_parties}, max {self.max_parties}"
            )
        object.__setattr__(self, "actions", frozenset(self.actions))
        object.__setattr__(self, "needs", tuple(self.needs))

    def check_parties(self, n: int) -> None:
        """Raise :class:`ConfigError` unless ``n`` parties can take part."""
        lo, hi = self.min_parties, self.max_parties
        if n < lo or (hi is not None and n > hi):
            wanted = f"at least {lo}" if hi is None else f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise ConfigError(f"protocol {self.id!r} takes {wanted} parties; got {n}")

    def check_negotiators(self, agents: Sequence[object], names: Sequence[str] = ()) -> None:
        """Raise :class:`CapabilityError` naming every agent that lacks a needed capability.

        ``agents`` are negotiator classes or instances; ``names`` label them in the error.
        """
        if not self.needs:
            return
        problems = []
        for k, agent in enumerate(agents):
            missing = missing_capabilities(agent, self.needs)
            if missing:
                label = names[k] if k < len(names) else _label(agent)
                problems.append(f"{label} lacks {', '.join(missing)}")
        if problems:
            wanted = ", ".join(capability_name(c) for c in self.needs)
            raise CapabilityError(
                f"protocol {self.id!r} needs negotiators with {wanted}; " + "; ".join(problems)
            )


def _label(agent: object) -> str:
    cls = agent if isinstance(agent, type) else type(agent)
    name = getattr(agent, "name", None) if not isinstance(agent, type) else None
    return f"{name!r} ({cls.__name__})" if isinstance(name, str) else cls.__name__


class Mechanism(ABC):
    """The contract of a protocol: a phase, ``step``, ``run``, a result and a step count.

    Implementations set :attr:`info` (usually a class attribute) and :attr:`phase`.
    """

    info: ProtocolInfo
    phase: Phase

    @property
    @abstractmethod
    def result(self) -> SessionResult | None:
        """The result once the session has ended, else None."""

    @property
    @abstractmethod
    def steps(self) -> int:
        """Actions taken so far."""

    @abstractmethod
    def step(self) -> SessionResult | None:
        """Let the next party (or parties) act; the result if this step ended the session."""

    def run(self) -> SessionResult:
        """Step until the session ends and return its result."""
        while True:
            result = self.step()
            if result is not None:
                return result
