"""Badly behaved agents, for testing that a tournament survives its competitors.

Each fails in one way: :class:`Raiser` raises, :class:`Exiter` raises ``SystemExit``,
:class:`InvalidOffers` proposes outcomes outside the space, :class:`Garbage` returns
values of the wrong type, :class:`Sleeper` answers too late, :class:`Hanger` never
answers, :class:`CpuHog` spins, :class:`MemoryHog` allocates without bound and
:class:`Crasher` kills its own process; :class:`Snoop` and :class:`Hoarder` look for
another party's utility in their own process. The default mode contains all of them (calls
are pre-empted, a dead worker is replaced). :class:`DictOffers` is not faulty: it
offers dicts ``{issue: value}``, a documented form, and must never be blamed.

    >>> Sleeper(seconds=0.5).seconds
    0.5
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from accord.agents.timebased import TimeDependent
from accord.core.negotiator import NegotiatorView, Response
from accord.core.outcomes import Outcome


class Raiser(TimeDependent):
    """Raises ``RuntimeError`` on its ``after``-th proposal."""

    def __init__(self, after: int = 1, name: str | None = None) -> None:
        super().__init__(1.0, name)
        self.after = after
        self._calls = 0

    def propose(self, view: NegotiatorView) -> Outcome | None:
        self._calls += 1
        if self._calls >= self.after:
            raise RuntimeError(f"deliberate failure on proposal {self._calls}")
        return super().propose(view)


class InvalidOffers(TimeDependent):
    """Proposes an outcome with a value no issue allows."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return tuple("not-a-value" for _ in view.space.issues)


class Sleeper(TimeDependent):
    """Sleeps ``seconds`` in every ``respond`` and ``propose``."""

    def __init__(self, seconds: float = 0.2, name: str | None = None) -> None:
        super().__init__(1.0, name)
        self.seconds = seconds

    def propose(self, view: NegotiatorView) -> Outcome | None:
        time.sleep(self.seconds)
        return super().propose(view)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        time.sleep(self.seconds)
        return super().respond(view, offer)


class Gated(TimeDependent):
    """Waits in every ``respond`` and ``propose`` while the file ``path`` exists (at most
    ``limit`` seconds a call): a test holds this agent's sessions open, without racing a
    clock, by creating the file, and lets them go by removing it."""

    def __init__(self, path: str, limit: float = 30.0, name: str | None = None) -> None:
        super().__init__(1.0, name)
        self.path = path
        self.limit = limit

    def _wait(self) -> None:
        until = time.monotonic() + self.limit
        while os.path.exists(self.path) and time.monotonic() < until:
            time.sleep(0.01)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        self._wait()
        return super().propose(view)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        self._wait()
        return super().respond(view, offer)


class Hanger(TimeDependent):
    """Never returns from ``propose`` (sleeps for an hour)."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        time.sleep(3600)
        return None


class CpuHog(TimeDependent):
    """Spins the CPU forever in ``propose``."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        x = 0
        while True:
            x += 1


class MemoryHog(TimeDependent):
    """Allocates memory until it fails, in ``propose``.

    Its blocks are mapped, not written (``bytes(n)`` asks for zeroed pages), so the
    address-space limit stops it within microseconds even on a loaded machine: a hog that
    filled each block first raced a short call limit and sometimes timed out instead."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        blocks = []
        while True:
            blocks.append(bytes(64 * 1024 * 1024))


class Crasher(TimeDependent):
    """Kills its own process (as a segfault would) in ``propose``."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        os._exit(3)


class Exiter(TimeDependent):
    """Calls ``sys.exit(4)`` (raises ``SystemExit``) in ``propose``."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        sys.exit(4)


class Garbage(TimeDependent):
    """Returns garbage: a string from ``propose``, a number from ``respond``."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return "garbage"  # type: ignore[return-value]

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return 42  # type: ignore[return-value]


class DictOffers(TimeDependent):
    """Well behaved: a time-based agent that makes its offers as ``{issue: value}`` dicts."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        offer = super().propose(view)
        return None if offer is None else view.space.to_dict(offer)  # type: ignore[return-value]


class Snoop(TimeDependent):
    """Tries to read another party's utility: walks up the call frames and searches the
    garbage collector's objects. Raises ``RuntimeError`` naming what it found (so a leak
    is a recorded failure); otherwise behaves as a linear time-based agent."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        found = snoop(view)
        if found:
            raise RuntimeError(f"reached another party's utility through {found}")
        return super().propose(view)


_HOARD: list[Any] = []  # every utility a Hoarder was given in this process, kept for good


class Hoarder(TimeDependent):
    """Keeps every utility it is given in a module global (it outlives the session) and,
    at each proposal, looks there and everywhere :func:`snoop` looks for another profile
    of the scenario it plays: a leak is a ``RuntimeError`` naming where it was found."""

    def on_start(self, view: NegotiatorView) -> None:
        super().on_start(view)
        _HOARD.append(view.utility)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        import numpy as np

        own = view.utility.all()
        for u in _HOARD:
            if u.space == view.space and not np.allclose(u.all(), own):
                raise RuntimeError("reached another party's utility through a module global")
        found = snoop(view)
        if found:
            raise RuntimeError(f"reached another party's utility through {found}")
        return super().propose(view)


def snoop(view: NegotiatorView) -> str:
    """How this process reaches a utility other than ``view.utility`` ('' if it cannot)."""
    import gc

    import numpy as np

    from accord.core.utilities import UtilityFunction

    own = view.utility.all()

    def foreign(obj: object) -> bool:
        return (
            isinstance(obj, UtilityFunction)
            and obj is not view.utility
            and obj.space == view.space
            and not np.allclose(obj.all(), own)
        )

    frame: Any = sys._getframe()
    while frame is not None:
        for value in frame.f_locals.values():
            for obj in (value, *vars(value).values()) if hasattr(value, "__dict__") else (value,):
                if foreign(obj) or (
                    isinstance(obj, tuple | list) and any(foreign(x) for x in obj[:16])
                ):
                    return f"the frame of {frame.f_code.co_name}()"
        frame = frame.f_back
    if any(foreign(o) for o in gc.get_objects()):
        return "gc.get_objects()"
    return ""
