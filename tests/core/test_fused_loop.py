"""The fused alternating-offers loop plays exactly as the generic agent driver.

``Session.run`` takes the fused loop for plain AOP under a deadline in rounds, and
``Session.step`` a fused step (also past SCML's simultaneous first round); with
``_fusable`` off, stepping takes the generic driver. The golden sessions check this
without time limits; these check it with a per-call time limit, with guarded agents and
with agents that fail, and that the other cases stay generic.
"""

from __future__ import annotations

from typing import Any

import pytest

from accord.agents.registry import get_agent
from accord.core import Deadline
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.alternating import Session
from accord.core.protocols.result import SessionResult
from accord.scenarios import load_bundled
from accord.tournament.guard import Guarded

JOB = load_bundled("job_offer")


class Flaky(Negotiator):
    """Offers its best outcome; at its ``after``-th answer does ``what``."""

    def __init__(self, what: str, after: int) -> None:
        super().__init__(f"flaky-{what}")
        self.what, self.after, self.calls = what, after, 0

    def propose(self, view: NegotiatorView) -> Any:
        self.calls += 1
        if self.calls > self.after:
            if self.what == "raise":
                raise RuntimeError("broken")
            if self.what == "outside":
                return ("nonsense",) * len(view.best_outcome)
            if self.what == "walk":
                return None
            if self.what == "dict":
                return view.space.to_dict(view.best_outcome)
        return view.best_outcome

    def respond(self, view: NegotiatorView, offer: Outcome) -> Any:
        if self.what == "badanswer" and self.calls > self.after:
            return "yes"
        return Response.REJECT


def _play(make: Any, stepped: bool, generic: bool = False, **kwargs: Any) -> dict[str, Any]:
    s = Session(JOB.space, make(), list(JOB.utilities), Deadline(rounds=12), seed=5, **kwargs)
    if generic:
        s._fusable = False  # every step through the agent driver's own step()
    if stepped:
        r: SessionResult | None = None
        while r is None:
            r = s.step()
    else:
        r = s.run()
    d = r.to_dict()
    del d["elapsed"]
    if d["failure"] is not None:
        d["failure"].pop("traceback")
    d["trace"] = [(e.step, e.party, e.action.value, e.outcome, e.time) for e in r.trace]
    return d


PAIRS = {
    "boulware-conceder": lambda: [get_agent("boulware"), get_agent("conceder")],
    "guarded": lambda: [
        Guarded(get_agent("linear"), 0, 30.0),
        Guarded(get_agent("titfortat"), 1, 30.0),
    ],
    **{
        f"flaky-{w}": (lambda w=w: [get_agent("conceder"), Flaky(w, 2)])
        for w in ("raise", "outside", "walk", "dict", "badanswer")
    },
}


ENDS = {  # how each pair's play ends: reason, failure kind
    "boulware-conceder": ("agreement", None),
    "guarded": ("agreement", None),
    "flaky-raise": ("failure", "exception"),
    "flaky-outside": ("failure", "invalid"),
    "flaky-badanswer": ("failure", "invalid"),
    "flaky-walk": ("walkaway", None),
    "flaky-dict": ("deadline", None),
}


@pytest.mark.parametrize("limit", [None, 30.0])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_run_and_step_give_the_same_play(pair: str, limit: float | None) -> None:
    fused = _play(PAIRS[pair], stepped=False, time_limit=limit)
    stepped = _play(PAIRS[pair], stepped=True, time_limit=limit)
    generic = _play(PAIRS[pair], stepped=True, generic=True, time_limit=limit)
    assert fused == stepped == generic
    failure = fused["failure"]
    assert (fused["reason"], failure and failure["kind"]) == ENDS[pair]


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_the_fused_step_plays_the_scml_variant_as_the_generic_driver(pair: str) -> None:
    kw: dict[str, Any] = {"time_limit": 10.0, "simultaneous_start": True}
    fused = _play(PAIRS[pair], stepped=True, **kw)
    assert fused == _play(PAIRS[pair], stepped=True, generic=True, **kw)
    assert fused["steps"] > 2  # past the simultaneous first round


def test_only_plain_aop_in_rounds_takes_the_fused_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []
    real = Session._run_fused

    def spy(self: Session) -> SessionResult:
        taken.append("fused")
        return real(self)

    monkeypatch.setattr(Session, "_run_fused", spy)
    agents = PAIRS["boulware-conceder"]
    Session(JOB.space, agents(), list(JOB.utilities), Deadline(rounds=5)).run()
    assert taken == ["fused"]
    Session(JOB.space, agents(), list(JOB.utilities), Deadline(rounds=5, seconds=60)).run()
    s = Session(
        JOB.space, agents(), list(JOB.utilities), Deadline(rounds=5), simultaneous_start=True
    )
    s.run()
    assert taken == ["fused"]  # a deadline in seconds, the SCML variant: the generic driver


def test_steps_past_a_simultaneous_start_take_the_fused_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[int] = []
    real = Session._step_fused

    def spy(self: Session, state: Any) -> SessionResult | None:
        taken.append(state.steps)
        return real(self, state)

    monkeypatch.setattr(Session, "_step_fused", spy)
    agents = PAIRS["boulware-conceder"]
    s = Session(
        JOB.space, agents(), list(JOB.utilities), Deadline(rounds=5), simultaneous_start=True
    )
    while s.step() is None:
        pass
    assert taken and taken[0] == 2  # the first round (both propose) is the generic step
    taken.clear()
    s = Session(JOB.space, agents(), list(JOB.utilities), Deadline(rounds=5, seconds=60))
    while s.step() is None:
        pass
    assert taken == []  # a deadline in seconds: the generic driver
