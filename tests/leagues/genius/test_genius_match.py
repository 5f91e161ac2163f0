"""Two agents on a virtual clock: failures are the failing agent's invalid actions only."""

from __future__ import annotations

from typing import Any

from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import MAX_ACTIONS, Match
from accord.leagues.genius.pdas import make_agent
from accord.leagues.genius.protocol import Action

JC = load_domain("job_candidate")


class Chaos(GeniusAgent):
    """Raises, returns junk, floods, and sends bad actions, turn after turn."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, view: PartyView) -> Any:
        self.calls += 1
        k = self.calls % 5
        if k == 0:
            raise RuntimeError("boom")
        if k == 1:
            return "not a list"
        if k == 2:
            return [Action.comment(0)] * (MAX_ACTIONS + 1)
        if k == 3:
            return [Action.make_offer({"Salary": "a lot"}), Action.accept(10_000), 42]
        return None


def test_a_failing_agent_only_collects_invalid_actions_and_the_session_ends() -> None:
    chaos = Chaos()
    m = Match(JC, [chaos, make_agent("conceder")], (0, 0), seed=1)
    result = m.run()
    assert result.invalid[0] > 0 and result.invalid[1] == 0
    assert result.reason.value in ("deadline", "opt_out", "agreement")
    errors = {e.error.split(":")[0] for e in m.session.events if not e.ok and e.party == 0}
    assert any("expected an Action, got str" in (e or "") for e in errors)
    assert all(e.ok for e in m.session.events if e.party == 1)


def test_the_same_seed_gives_the_same_session() -> None:
    def run() -> list[dict[str, Any]]:
        m = Match(JC, [make_agent("kbagent"), make_agent("bayes")], (2, 1), seed=11)
        m.run()
        return [e.to_dict() for e in m.session.events]

    assert run() == run()


def test_step_advances_one_ask_at_a_time_until_the_result() -> None:
    m = Match(JC, [make_agent("issues"), make_agent("issues")], (0, 0), seed=0)
    steps = 0
    while m.step() is None:
        steps += 1
        assert steps < 10_000
    assert m.result is not None and m.step() is m.result
