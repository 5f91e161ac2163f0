"""The in-process guard survives other code resetting SIGALRM (as pytest-timeout does).

Run in a child process: if the guard's alarm met the default SIGALRM action, the process
would be killed ("Alarm clock"), which must never happen to a tournament or a test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import signal, time
    from accord.agents.timebased import Boulware
    from accord.core.errors import NegotiatorTimeout
    from accord.core.negotiator import Negotiator
    from accord.tournament.guard import Guarded

    class Sleeper(Negotiator):
        def propose(self, view):
            time.sleep(5)
        def respond(self, view, offer):
            time.sleep(5)

    g = Guarded(Sleeper(name="S"), party=0, limit=0.2)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # someone put the default back
    try:
        g.propose(None)
    except NegotiatorTimeout as exc:
        print("timeout:", exc)
    time.sleep(0.5)  # no stray alarm fires after the call
    print("alive")
    """
)


def test_a_reset_sigalrm_handler_neither_kills_the_process_nor_misses_the_limit() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "timeout: propose() did not return within 0.2 s" in out.stdout
    assert out.stdout.rstrip().endswith("alive")
