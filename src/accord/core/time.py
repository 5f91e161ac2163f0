"""Deadlines and normalised time.

A deadline counts rounds (one round = every party acts once), wall-clock seconds, or
both; normalised time ``t`` runs from 0 at the start to 1 at the deadline and is the
larger of the two fractions when both are set.

    >>> d = Deadline(rounds=10)
    >>> d.fraction(steps=5, parties=2, elapsed=0.0)
    0.25
"""

from __future__ import annotations

from dataclasses import dataclass

from accord.core.errors import ConfigError


@dataclass(frozen=True)
class Deadline:
    """When a negotiation must end: after ``rounds`` rounds and/or ``seconds`` seconds."""

    rounds: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.rounds is None and self.seconds is None:
            raise ConfigError("a deadline needs rounds, seconds or both; got neither")
        if self.rounds is not None and self.rounds < 1:
            raise ConfigError(f"deadline rounds must be >= 1, got {self.rounds}")
        if self.seconds is not None and not self.seconds > 0:
            raise ConfigError(f"deadline seconds must be > 0, got {self.seconds}")

    def fraction(self, steps: int, parties: int, elapsed: float) -> float:
        """Normalised time after ``steps`` actions by ``parties`` parties and ``elapsed`` s."""
        t = 0.0
        if self.rounds is not None:
            t = steps / (self.rounds * parties)
        if self.seconds is not None:
            t = max(t, elapsed / self.seconds)
        return min(t, 1.0)
