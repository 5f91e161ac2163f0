"""Golden playthroughs of the built-in session protocols, run through the agent driver.

:func:`playthroughs` plays a fixed set of sessions (every built-in agent pairing on
bundled scenarios, 3-party SAOP, the simultaneous-start variant, the ultimatum game,
a chosen first mover, and agents that fail in every way a negotiator can) and returns
each one's result and trace as JSON-ready data. ``sessions.json`` beside this file holds
what they gave before the protocols were ported to the ``Rules`` contract; the test
compares the two line by line. Regenerate only on purpose:
``PYTHONPATH=src python tests/core/golden/sessions.py --write``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from accord.agents.registry import get_agent
from accord.core import Deadline
from accord.core.generate import random_linear_scenario
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols import make_session
from accord.core.protocols.result import SessionResult
from accord.scenarios import load_bundled

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "sessions.json"
AGENTS = ["boulware", "conceder", "linear", "hardliner", "titfortat", "frequency", "random"]


class Raises(Negotiator):
    """Raises in ``where`` (propose, respond or on_start) at its ``after``-th call."""

    def __init__(self, where: str, after: int = 0) -> None:
        super().__init__(f"raises-{where}")
        self.where, self.after, self.calls = where, after, 0

    def _maybe(self, where: str) -> None:
        if where == self.where:
            self.calls += 1
            if self.calls > self.after:
                raise RuntimeError(f"broken {where}")

    def on_start(self, view: NegotiatorView) -> None:
        self._maybe("on_start")

    def propose(self, view: NegotiatorView) -> Outcome | None:
        self._maybe("propose")
        return view.best_outcome

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        self._maybe("respond")
        return Response.REJECT


class _Garbage:
    def __repr__(self) -> str:
        return "<garbage>"


class Odd(Negotiator):
    """Answers in odd ways: ``mode`` picks which."""

    def __init__(self, mode: str, after: int = 1) -> None:
        super().__init__(f"odd-{mode}")
        self.mode, self.after, self.calls = mode, after, 0

    def propose(self, view: NegotiatorView) -> Any:
        self.calls += 1
        best = view.best_outcome
        late = self.calls > self.after
        if self.mode == "outside" and late:
            return ("nonsense",) * len(best)
        if self.mode == "walk" and late:
            return None
        if self.mode == "dict":
            return view.space.to_dict(best)
        if self.mode == "list":
            return list(best)
        if self.mode == "array":
            return np.array(best, dtype=object)
        if self.mode == "garbage" and late:
            return _Garbage()
        return best

    def respond(self, view: NegotiatorView, offer: Outcome) -> Any:
        if self.mode == "badanswer" and view.step > 2:
            return 5
        if self.mode == "end" and view.step > 4:
            return Response.END
        if self.mode == "acceptall":
            return Response.ACCEPT
        return Response.REJECT


def _result(r: SessionResult) -> dict[str, Any]:
    d = r.to_dict()
    del d["elapsed"]
    if d["failure"] is not None:
        del d["failure"]["traceback"]
    d["trace"] = [
        [e.step, e.party, e.action.value, None if e.outcome is None else list(e.outcome), e.time]
        for e in r.trace
    ]
    return d


def _cases() -> Iterator[tuple[str, Callable[[], SessionResult]]]:
    lunch = load_bundled("lunch")
    job = load_bundled("job_offer")
    tri = random_linear_scenario(3, 4, n_parties=3, seed=7, reservation=0.2, discount=0.9)
    for scen_name, scen in (("lunch", lunch), ("job_offer", job)):
        for a in AGENTS:
            for b in AGENTS:
                for proto in ("aop", "aop-simultaneous", "ultimatum"):
                    name = f"{proto}/{scen_name}/{a}-{b}"

                    def play(a: str = a, b: str = b, proto: str = proto, scen: Any = scen) -> Any:
                        return make_session(
                            proto,
                            scen.space,
                            [get_agent(a), get_agent(b)],
                            list(scen.utilities),
                            Deadline(rounds=20),
                            seed=3,
                        ).run()

                    yield name, play
    trio = [("boulware", "conceder", "linear"), ("conceder", "conceder", "conceder")]
    for names in trio:
        for proto in ("aop", "aop-simultaneous", "ultimatum"):
            for seed in (0, 1, 2):

                def play3(names: Any = names, proto: str = proto, seed: int = seed) -> Any:
                    return make_session(
                        proto,
                        tri.space,
                        [get_agent(n) for n in names],
                        list(tri.utilities),
                        Deadline(rounds=15),
                        seed=seed,
                    ).run()

                yield f"{proto}/tri/{'-'.join(names)}/seed{seed}", play3
    for proto in ("aop", "ultimatum"):

        def first1(proto: str = proto) -> Any:
            agents = [get_agent("boulware"), get_agent("conceder")]
            return make_session(
                proto, lunch.space, agents, list(lunch.utilities), Deadline(rounds=10), first=1
            ).run()

        yield f"{proto}/lunch/first1", first1
    faulty: list[Callable[[], Negotiator]] = [
        lambda: Raises("propose"),
        lambda: Raises("propose", after=2),
        lambda: Raises("respond"),
        lambda: Raises("respond", after=1),
        lambda: Raises("on_start"),
        lambda: Odd("outside"),
        lambda: Odd("walk"),
        lambda: Odd("dict"),
        lambda: Odd("list"),
        lambda: Odd("array"),
        lambda: Odd("garbage"),
        lambda: Odd("badanswer"),
        lambda: Odd("end"),
        lambda: Odd("acceptall"),
    ]
    for i, make in enumerate(faulty):
        for proto in ("aop", "aop-simultaneous", "ultimatum"):
            for side in (0, 1):

                def bad(make: Any = make, proto: str = proto, side: int = side) -> Any:
                    agents = [get_agent("conceder"), make()]
                    if side:
                        agents.reverse()
                    return make_session(
                        proto, job.space, agents, list(job.utilities), Deadline(rounds=12)
                    ).run()

                yield f"{proto}/job_offer/faulty{i}-{make().name}/side{side}", bad


def playthroughs() -> dict[str, dict[str, Any]]:
    """Every golden case's result and trace, by case name."""
    return {name: _result(play()) for name, play in _cases()}


if __name__ == "__main__":
    got = playthroughs()
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(got, indent=None, sort_keys=True).replace("}, ", "},\n"))
    print(len(got), "playthroughs")
