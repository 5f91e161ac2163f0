"""An agent for ``bench_sandbox.py`` that computes a little at every call, as agents with
opponent models do (a busy loop of a fixed CPU time, so both sides do the same work)."""

from __future__ import annotations

import time
from typing import Any

from accord.agents.timebased import TimeDependent

WORK = 0.0005  # seconds of CPU per call


class Thinker(TimeDependent):
    def _work(self) -> None:
        end = time.process_time() + WORK
        while time.process_time() < end:
            pass

    def propose(self, view: Any) -> Any:
        self._work()
        return super().propose(view)

    def respond(self, view: Any, offer: Any) -> Any:
        self._work()
        return super().respond(view, offer)
