"""Submitted Colored Trails agents for the sandbox tests (imported by path in their sandbox)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from accord.leagues.trails.baselines import BASELINES

Reliable = BASELINES["reliable"]


class Snooper(Reliable):  # type: ignore[misc, valid-type]
    """Tries to read the organiser's files and reports what it saw in its proposal."""

    name = "snooper"
    seen: list[str] = []

    def propose(self, view: Any) -> Any:
        target = os.environ.get("TRAILS_SECRET", "")
        try:
            Path(target).read_text()
            raise SystemExit(7)  # saw it: die loudly so the test notices
        except OSError:
            pass
        return super().propose(view)


class Sleeper(Reliable):  # type: ignore[misc, valid-type]
    """Hangs on its first proposal."""

    name = "sleeper"

    def propose(self, view: Any) -> Any:
        time.sleep(3600)


class Garbage(Reliable):  # type: ignore[misc, valid-type]
    """Answers a transfer with something that is no chip vector."""

    name = "garbage"

    def transfer(self, view: Any, promised: Any, expected: Any) -> Any:
        return ["all", "of", "them"]
