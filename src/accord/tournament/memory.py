"""What an agent may read of its own earlier sessions (ANAC 2017 repeated league rules).

For each earlier session the agent took part in, it sees: the names and order of the
agents, the utility *in its own utility space* of every offer exchanged (with who made
it and when), the agreement reached and its own final utility. It never sees another
party's utilities. It also gets a private data directory for files of its own.

In a tournament with ``learning=True``, a session of repetition ``r`` receives the
agent's sessions of repetitions ``< r`` (all scenarios), oldest first. That makes the
memory a function of the schedule alone, so results do not depend on which worker ran
what, or on an interruption and resume.

    >>> import numpy as np
    >>> past = PastSession("id1", "s", 0, 0, "profile1", ("Me", "You"),
    ...                    np.array([0, 1]), np.array([0.0, 0.01]), np.array([0.9, 0.4]),
    ...                    ("a",), 0.4, "agreement")
    >>> m = Memory("Me", (past,))
    >>> len(m.against(["You"])), past.opponent_offers().tolist()
    (1, [0.4])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from accord.core.outcomes import Outcome


@dataclass(frozen=True)
class PastSession:
    """One earlier session seen from one agent's side.

    ``proposers``, ``times`` and ``utilities`` describe every offer in order: who made
    it (position), at what normalised time, and its (undiscounted) utility to this agent.
    """

    session_id: str
    scenario: str
    rep: int
    position: int
    profile: str
    names: tuple[str, ...]
    proposers: npt.NDArray[np.int64]
    times: npt.NDArray[np.float64]
    utilities: npt.NDArray[np.float64]
    agreement: Outcome | None
    utility: float
    reason: str

    @property
    def opponents(self) -> tuple[str, ...]:
        """Names of the other agents, sorted."""
        return tuple(sorted(n for i, n in enumerate(self.names) if i != self.position))

    @property
    def agreed(self) -> bool:
        """True if the session ended in an agreement."""
        return self.agreement is not None

    def opponent_offers(self) -> npt.NDArray[np.float64]:
        """Own utilities of the offers the other parties made."""
        out: npt.NDArray[np.float64] = self.utilities[self.proposers != self.position]
        return out

    def own_offers(self) -> npt.NDArray[np.float64]:
        """Own utilities of this agent's own offers."""
        out: npt.NDArray[np.float64] = self.utilities[self.proposers == self.position]
        return out


@dataclass(frozen=True)
class Memory:
    """An agent's earlier sessions, its private data directory, and where it is now.

    ``scenario``, ``profile``, ``names`` and ``position`` describe the current session
    (its scenario, this agent's profile, the agents in turn order by tournament name and
    this agent's place), so an agent can pick the relevant part of its history.
    """

    agent: str
    sessions: tuple[PastSession, ...] = ()
    data_dir: Path | None = None
    scenario: str = ""
    profile: str = ""
    names: tuple[str, ...] = ()
    position: int = 0

    @property
    def opponents(self) -> tuple[str, ...]:
        """Names of the current session's other agents, sorted."""
        return tuple(sorted(n for i, n in enumerate(self.names) if i != self.position))

    def relevant(self) -> list[PastSession]:
        """Earlier sessions like the current one: same scenario, profile and opponents."""
        want = self.opponents
        return [
            s
            for s in self.sessions
            if s.scenario == self.scenario and s.profile == self.profile and s.opponents == want
        ]

    def __len__(self) -> int:
        return len(self.sessions)

    def against(self, opponents: Iterable[str], scenario: str | None = None) -> list[PastSession]:
        """Earlier sessions against exactly these opponents (any order), optionally one scenario."""
        want = tuple(sorted(opponents))
        return [
            s
            for s in self.sessions
            if s.opponents == want and (scenario is None or s.scenario == scenario)
        ]

    def in_scenario(self, scenario: str, profile: str | None = None) -> list[PastSession]:
        """Earlier sessions in a scenario (and profile, if given)."""
        return [
            s
            for s in self.sessions
            if s.scenario == scenario and (profile is None or s.profile == profile)
        ]
