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


LAZY = textwrap.dedent(
    """
    import signal, time
    from accord.core.errors import NegotiatorTimeout
    from accord.core.negotiator import Negotiator
    from accord.tournament.guard import Guarded

    class Agent(Negotiator):
        def __init__(self, sleep=0.0):
            super().__init__()
            self.sleep = sleep
        def propose(self, view):
            time.sleep(self.sleep)
            return ("x",)
        def respond(self, view, offer):
            return None
        def on_end(self, view, result):
            pass

    def preempted_after(g):
        t0 = time.monotonic()
        try:
            g.propose(None)
        except NegotiatorTimeout:
            return time.monotonic() - t0
        return None

    # fast calls for a while (the alarm armed by the first is pending), then one that
    # sleeps: it is pre-empted at its own limit, not at the pending alarm nor never
    fast = Guarded(Agent(), party=0, limit=0.4)
    t0 = time.monotonic()
    calls = 0
    while time.monotonic() - t0 < 0.3:
        fast.propose(None)
        calls += 1
    print("fast calls", calls)
    print("late sleeper", preempted_after(Guarded(Agent(sleep=5), party=1, limit=0.4)))

    # an alarm pending for a long limit does not delay a call with a short one
    Guarded(Agent(), party=0, limit=30.0).propose(None)
    print("short after long", preempted_after(Guarded(Agent(sleep=5), party=1, limit=0.2)))

    # pauses between calls longer than the limit: the alarm lapses, nothing is raised
    # (the limit leaves a trivial call room on a loaded machine: 0.05 s did not)
    slow = Guarded(Agent(), party=0, limit=0.25)
    for _ in range(3):
        slow.propose(None)
        time.sleep(0.3)
    print("lapsed ok")

    # at the end of a session no alarm of ours stays pending
    slow.propose(None)
    print("pending before on_end", signal.getitimer(signal.ITIMER_REAL)[0] > 0)
    slow.on_end(None, None)
    print("pending after on_end", signal.getitimer(signal.ITIMER_REAL)[0] > 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    time.sleep(0.3)
    print("alive")
    """
)


def test_a_lazily_armed_alarm_still_preempts_every_call_at_its_own_limit() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", LAZY], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    *shown, last = out.stdout.strip().splitlines()
    assert last == "alive"  # no alarm of ours went off after the session (SIG_DFL kills)
    lines = dict(line.rsplit(" ", 1) for line in shown)
    assert int(lines["fast calls"]) > 10
    assert 0.4 <= float(lines["late sleeper"]) < 0.9, lines
    assert 0.2 <= float(lines["short after long"]) < 0.7, lines
    assert lines["lapsed"] == "ok"
    assert lines["pending before on_end"] == "True"
    assert lines["pending after on_end"] == "False"


CANCELLED = textwrap.dedent(
    """
    import signal, time
    from accord.core.errors import NegotiatorTimeout
    from accord.core.negotiator import Negotiator
    from accord.tournament.guard import Guarded

    class Agent(Negotiator):
        sleep = 0.0
        def propose(self, view):
            time.sleep(self.sleep)
            return ("x",)

    def cancel():  # what pytest-timeout does at the end of every test
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    def preempted(g):
        g.inner.sleep = 5
        try:
            g.propose(None)
        except NegotiatorTimeout:
            return True
        return False

    # our alarm is pending (0.5 s ahead) when another test's timer replaces and cancels
    # it; the next session's guard (limit 2 s) must arm its own, not trust the stale one
    Guarded(Agent(), party=0, limit=0.5).propose(None)
    cancel()
    print("next session", preempted(Guarded(Agent(), party=0, limit=2.0)))

    # the same, inside one session: the stale instant has passed when the next call comes
    g = Guarded(Agent(), party=0, limit=0.05)
    g.propose(None)
    signal.setitimer(signal.ITIMER_REAL, 0)
    time.sleep(0.1)
    print("same session", preempted(g))
    """
)


def test_a_timer_cancelled_by_other_code_never_leaves_a_call_unguarded() -> None:
    # CI: after a test marked with pytest-timeout (which cancels SIGALRM's timer at its
    # end) the guard trusted its record of a timer that no longer existed, and a hanging
    # agent ran 30 s instead of being pre-empted at 0.3 s
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", CANCELLED], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["next session True", "same session True"]
