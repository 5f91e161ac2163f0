"""Telling the user's Ctrl-C from an agent's ``raise KeyboardInterrupt``.

Only the user's Ctrl-C may stop a run. A program that runs agents calls
:func:`install` in its main thread; from then on a ``SIGINT`` is counted before it
raises ``KeyboardInterrupt``, and :func:`user_interrupted` says whether the
``KeyboardInterrupt`` being handled can be the user's. Where ``SIGINT`` is ignored (the
tournament's worker processes) none can be; where the handler is someone else's, the
answer is yes (Accord cannot tell, so it stops as before).

    >>> install(); user_interrupted()
    False
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = ["install", "user_interrupted"]

_presses = [0]


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _presses[0] += 1
    raise KeyboardInterrupt


def install() -> None:
    """Count Ctrl-C presses from now on (main thread only; a custom handler is kept)."""
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if current is signal.default_int_handler or current is _on_sigint:
        _presses[0] = 0
        signal.signal(signal.SIGINT, _on_sigint)


def user_interrupted() -> bool:
    """True if the ``KeyboardInterrupt`` being handled may come from the user."""
    handler = signal.getsignal(signal.SIGINT)
    if handler is _on_sigint:
        return _presses[0] > 0
    return handler is not signal.SIG_IGN
