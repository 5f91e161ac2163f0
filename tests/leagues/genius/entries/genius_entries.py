"""Submitted GENIUS agents for the sandbox tests (imported by path in their sandbox)."""

from __future__ import annotations

import os
import time
from typing import Any

from accord.leagues.genius.pdas import Bayes, Conceder


class MyBayes(Bayes):  # the same strategy as the built-in, from a submitted module
    pass


class Peeker(Conceder):
    """Looks for the other side's type and the organiser's files; says what it found."""

    def act(self, view: Any) -> Any:
        s = view._session
        leaks = []
        if len(getattr(s, "profiles", {})) > 1 or hasattr(s, "types"):
            leaks.append("type")
        secret = os.environ.get("GENIUS_SECRET", "")
        if secret and os.path.exists(secret):
            leaks.append("file")
        if leaks:
            raise RuntimeError("leaked " + ",".join(leaks))
        return super().act(view)


class Stalling(Conceder):
    def act(self, view: Any) -> Any:
        time.sleep(3600)
