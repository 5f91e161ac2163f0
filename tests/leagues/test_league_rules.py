"""The GENIUS, HAN and Colored Trails ``Rules``: random legal play through the wire forms,
a refused action changes nothing, every state survives serialize/restore (play goes on
from the restored state), and an agent's failure does what each league's rules say."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import ActionField, FieldKind, IllegalAction, Rules
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.rules import GeniusRules, GeniusSetup
from accord.leagues.han.domain import EXAMPLE_1, EXAMPLE_2
from accord.leagues.han.events import Event as HanEvent
from accord.leagues.han.events import EventKind
from accord.leagues.han.rules import HanRules
from accord.leagues.trails.engine import Pass, Phase, Propose
from accord.leagues.trails.generator import generate
from accord.leagues.trails.rules import TrailsRules


def _sample(f: ActionField, rng: np.random.Generator) -> Any:
    if f.kind is FieldKind.CHOICE:
        return f.options[int(rng.integers(len(f.options)))]
    if f.kind is FieldKind.TEXT:
        return "hello"
    low = int(f.low) if f.low is not None else 0
    high = int(f.high) if f.high is not None else low + 3
    return int(rng.integers(low, min(high, low + 3) + 1))


def _random_play(rules: Rules[Any, Any, Any], setup: Any, seed: int, steps: int) -> Any:
    rng = np.random.default_rng(seed)
    s = rules.initial(setup, seed)
    applied = refused = 0
    for t in range(steps):
        parties = rules.to_act(s)
        if not parties:
            break
        p = int(parties[int(rng.integers(len(parties)))])
        legal = rules.legal(s, p)
        assert legal.actions, f"party {p} is asked to act but may do nothing"
        spec = legal.actions[int(rng.integers(len(legal.actions)))]
        data = {"kind": spec.kind, "args": {f.name: _sample(f, rng) for f in spec.fields}}
        assert legal.problem(data) is None
        before = json.dumps(rules.serialize(s), sort_keys=True)
        try:
            action = rules.action_from_json(s, p, data)
            s, _ = rules.apply(s, p, action, float(t))
            applied += 1
        except IllegalAction:
            refused += 1
            assert json.dumps(rules.serialize(s), sort_keys=True) == before
            continue
        wire = json.loads(json.dumps(rules.serialize(s)))
        s = rules.restore(wire)  # play on from the restored state
        assert rules.serialize(s) == wire
        json.dumps(rules.observe(s, p))
        json.dumps(rules.observe(s, None))
    assert applied >= 1, (applied, refused)
    return s


@pytest.mark.parametrize("seed", range(4))
def test_trails_random_play_serializes_and_ends(seed: int) -> None:
    rules = TrailsRules()
    s = _random_play(rules, generate("mutual", seed), seed, 3000)
    assert rules.result(s) is not None and s.chips_conserved()


@pytest.mark.parametrize("seed", range(4))
def test_genius_random_play_serializes_and_ends(seed: int) -> None:
    rules = GeniusRules()
    s = _random_play(rules, GeniusSetup(load_domain("job_candidate"), (seed % 3, 1)), seed, 3000)
    r = rules.result(s)
    assert r is not None and r.reason.value in ("agreement", "opt_out", "deadline")


@pytest.mark.parametrize("seed", range(4))
def test_han_random_play_serializes_and_ends(seed: int) -> None:
    rules = HanRules()
    s = _random_play(rules, EXAMPLE_2.with_time(200.0), seed, 260)
    s, _ = rules.tick(s, 200.0)
    assert rules.result(s) is not None


def test_trails_failure_is_recorded_and_the_null_action_played() -> None:
    rules = TrailsRules()
    s = rules.initial(generate("mutual", 2), 0)
    with pytest.raises(IllegalAction, match="cannot promise"):
        rules.apply(s, 0, Propose((99, 0, 0, 0), (0, 0, 0, 0)), 0.0)
    assert s.violations == [] and s.phase is Phase.PROPOSE
    s, events = rules.fail(s, 0, Failure(0, "a", FailureKind.EXCEPTION, "KeyError: 'x'"), 0.0)
    (v,) = s.violations
    assert (v.player, v.reason) == (0, "agent raised KeyError: 'x'")
    assert [e.kind for e in events] == ["violation", "pass"]  # passed: on to the transfers
    assert (s.phase, rules.to_act(s)) == (Phase.TRANSFER, (0,))
    with pytest.raises(IllegalAction, match="player 0's turn to transfer"):
        rules.apply(s, 1, Pass(), 0.0)


def test_genius_failure_is_an_invalid_action_and_a_quiet_ask() -> None:
    rules = GeniusRules()
    s = rules.initial(GeniusSetup(load_domain("job_candidate"), (0, 0)), 0)
    s, _ = rules.fail(s, 0, Failure(0, "a", FailureKind.EXCEPTION, "ValueError: no"), 0.0)
    e = s.session.events[-1]
    assert (e.party, e.ok, s.session.invalid, s.asks, s.quiet) == (0, False, [1, 0], 1, 1)
    assert e.error == "expected an Action, got str: 'agent raised ValueError: no'"
    with pytest.raises(IllegalAction, match="expected an Action, got int: 5"):
        rules.apply(s, 1, 5, 0.0)  # type: ignore[arg-type]
    assert s.session.invalid == [1, 0]


def test_han_refuses_without_recording_and_a_late_agent_ends_the_game_with_batnas() -> None:
    rules = HanRules()
    s = rules.initial(EXAMPLE_1, 0)
    with pytest.raises(IllegalAction, match="menu messages only"):
        rules.apply(s, 1, HanEvent(EventKind.SEND_MESSAGE, "person", text="all mine"), 1.0)
    assert s.violations == [] and not s.history
    s, _ = rules.fail(s, 0, Failure(0, "a", FailureKind.EXCEPTION, "RuntimeError: bug"), 2.0)
    assert not s.ended and len(s.violations) == 1
    s, events = rules.fail(s, 0, Failure(0, "a", FailureKind.TIMEOUT, "no answer in 5 s"), 3.0)
    r = rules.result(s)
    assert r is not None and (r.outcome, r.left_by) == ("left", "agent")
    assert r.points == {"agent": 4, "person": 4} and events[-1].kind == "end"
