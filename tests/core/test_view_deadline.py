"""Every negotiator knows the session's deadline from its first call (``view.deadline``):
GENIUS agents and NegMAS ones (``nmi.n_steps``) plan their concessions on it."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core import Deadline, Negotiator, Response, make_session
from accord.formats import load_scenario


class Watcher(Negotiator):
    """Records the deadline its view shows at every call."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def on_start(self, view: Any) -> None:
        self.seen.append(view.deadline)

    def propose(self, view: Any) -> Any:
        self.seen.append(view.deadline)
        return view.best_outcome

    def respond(self, view: Any, offer: Any) -> Response:
        self.seen.append(view.deadline)
        return Response.REJECT


@pytest.mark.parametrize("protocol", ["aop", "ultimatum"])
@pytest.mark.parametrize("deadline", [Deadline(rounds=7), Deadline(rounds=5, seconds=60.0)])
def test_every_view_shows_the_sessions_deadline_from_the_start(
    protocol: str, deadline: Deadline
) -> None:
    sc = load_scenario("lunch")
    parties = [Watcher(), Watcher()]
    make_session(protocol, sc.space, parties, sc.utilities, deadline, seed=0).run()
    for p in parties:
        assert p.seen, "every party was called"
        assert all(d == deadline for d in p.seen)
