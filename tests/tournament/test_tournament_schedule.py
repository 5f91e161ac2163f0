"""Schedule and configuration: counts, rotation, determinism, clear errors."""

from __future__ import annotations

from collections import Counter
from dataclasses import FrozenInstanceError

import pytest
from tournament_helpers import T, small_config

from accord.core.errors import ConfigError
from accord.core.generate import random_linear_scenario
from accord.tournament.agents import check_agents, make_negotiator
from accord.tournament.config import AgentSpec, TournamentConfig
from accord.tournament.schedule import schedule, session_id, session_seed

FOUR = (f"{T}Boulware", f"{T}Conceder", f"{T}Linear", f"H={T}TimeDependent")


def three_bilateral() -> tuple[object, ...]:
    return tuple(random_linear_scenario(3, 4, 2, seed=s) for s in range(3))


def test_peer_configuration_has_192_sessions() -> None:
    # 4 agents x 3 bilateral scenarios x 2 reps, rotation and self-play: 16 x 2 x 3 x 2
    cfg = TournamentConfig(FOUR, three_bilateral(), reps=2)
    specs = schedule(cfg)
    assert len(specs) == 192
    assert len({s.id for s in specs}) == 192
    assert [s.index for s in specs] == list(range(192))


def test_counts_without_self_play_and_with_combinations() -> None:
    scen = three_bilateral()
    assert len(schedule(TournamentConfig(FOUR, scen, self_play=False))) == 12 * 2 * 3
    assert len(schedule(TournamentConfig(FOUR, scen, pairing="combinations"))) == 10 * 2 * 3
    cfg = TournamentConfig(FOUR, scen, pairing="combinations", self_play=False, rotate=False)
    assert len(schedule(cfg)) == 6 * 3


def test_three_party_groups_rotate_every_profile() -> None:
    cfg = TournamentConfig(FOUR[:2], [random_linear_scenario(2, 3, 3, seed=1)])
    specs = schedule(cfg)
    assert len(specs) == 2**3 * 3
    assert all(len(s.agents) == 3 for s in specs)
    # every agent holds every profile in every seat equally often
    seats = Counter(
        (a, k, p) for s in specs for k, (a, p) in enumerate(zip(s.agents, s.profiles, strict=True))
    )
    assert set(seats.values()) == {4}
    assert len(seats) == 2 * 3 * 3


def test_rotation_gives_each_agent_each_profile() -> None:
    specs = schedule(TournamentConfig(FOUR, three_bilateral()[:1], self_play=False))
    pairs = {(s.agents, s.profiles) for s in specs}
    assert (("Boulware", "Conceder"), (0, 1)) in pairs
    assert (("Boulware", "Conceder"), (1, 0)) in pairs
    assert (("Conceder", "Boulware"), (0, 1)) in pairs


def test_repetitions_come_in_order() -> None:
    specs = schedule(small_config(reps=3))
    reps = [s.rep for s in specs]
    assert reps == sorted(reps)
    assert set(reps) == {0, 1, 2}


def test_schedule_is_deterministic_and_seeded() -> None:
    a = schedule(small_config())
    b = schedule(small_config())
    assert a == b
    c = schedule(small_config(seed=8))
    assert [s.id for s in a] == [s.id for s in c]
    assert all(x.seed != y.seed for x, y in zip(a, c, strict=True))
    assert a[0].seed == session_seed(7, a[0].id)
    assert a[0].id == session_id(a[0].scenario, a[0].agents, a[0].profiles, a[0].rep)
    assert 0 <= a[0].seed < 2**63


def test_specs_are_frozen_and_hashable() -> None:
    s = schedule(small_config())[0]
    with pytest.raises(FrozenInstanceError):
        s.rep = 3  # type: ignore[misc]
    assert len({s, s}) == 1


def test_agent_spec_forms() -> None:
    assert AgentSpec.parse(f"{T}Boulware") == AgentSpec("Boulware", f"{T}Boulware")
    assert AgentSpec.parse(f"Tough = {T}Boulware").name == "Tough"
    spec = AgentSpec.parse({"name": "E", "type": f"{T}TimeDependent", "params": {"exponent": 3}})
    neg = make_negotiator(spec)
    assert (neg.name, neg.exponent) == ("E", 3.0)


def test_config_errors_say_what_was_expected() -> None:
    with pytest.raises(ConfigError, match="unique; repeated: \\['Boulware'\\]"):
        TournamentConfig((f"{T}Boulware", f"{T}Boulware"), ("builtin:tiny",))
    with pytest.raises(ConfigError, match="unknown tournament settings \\['repz'\\]"):
        TournamentConfig.from_dict({"agents": FOUR, "scenarios": ["builtin:tiny"], "repz": 2})
    with pytest.raises(ConfigError, match="pairing must be one of"):
        TournamentConfig(FOUR, ("builtin:tiny",), pairing="round-robin")
    with pytest.raises(ConfigError, match="reps must be >= 1, got 0"):
        TournamentConfig(FOUR, ("builtin:tiny",), reps=0)
    with pytest.raises(ConfigError, match="needs 'scenarios'"):
        TournamentConfig.from_dict({"agents": FOUR})
    with pytest.raises(ConfigError, match="no built-in scenario 'huge'"):
        schedule(TournamentConfig(FOUR, ("builtin:huge",)))


def test_agent_errors_say_what_was_expected() -> None:
    with pytest.raises(ConfigError, match="cannot import module 'nowhere'"):
        make_negotiator(AgentSpec("x", "nowhere:Agent"))
    with pytest.raises(ConfigError, match="has no attribute 'Nope'"):
        make_negotiator(AgentSpec("x", "accord.agents.timebased:Nope"))
    with pytest.raises(ConfigError, match="not a Negotiator subclass"):
        make_negotiator(AgentSpec("x", "accord.tournament.schedule:schedule"))
    with pytest.raises(ConfigError, match="cannot create .* with parameters"):
        make_negotiator(AgentSpec("x", f"{T}Boulware", {"speed": 3}))


def test_registry_short_names_are_agent_types() -> None:
    neg = make_negotiator(AgentSpec("Tough", "Time-Dependent", {"exponent": 0.5}))
    assert (type(neg).__name__, neg.name, neg.exponent) == ("TimeDependent", "Tough", 0.5)
    dotted = make_negotiator(AgentSpec("D", "accord.agents.timebased.Conceder"))
    assert (type(dotted).__name__, dotted.name) == ("Conceder", "D")
    check_agents([AgentSpec("B", "boulware"), AgentSpec("L", "learner")])


def test_check_agents_catches_short_name_errors_before_running() -> None:
    with pytest.raises(ConfigError, match="unknown agent 'bolware'. Did you mean 'Boulware'?"):
        check_agents([AgentSpec("B", "bolware")])
    with pytest.raises(ConfigError, match="agent 'B': boulware does not take parameters"):
        check_agents([AgentSpec("B", "boulware", {"speed": 3})])
    with pytest.raises(ConfigError, match="not a Negotiator subclass"):
        check_agents([AgentSpec("S", "accord.tournament.schedule:schedule")])


def test_yaml_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "t.yaml"
    p.write_text(
        "name: demo\nreps: 3\nseed: 5\nagents:\n"
        f"  - {T}Boulware\n"
        f"  - {{name: Soft, type: '{T}TimeDependent', params: {{exponent: 4}}}}\n"
        "scenarios: [builtin:tiny, builtin:trilateral]\n"
    )
    cfg = TournamentConfig.from_yaml(p)
    assert [a.name for a in cfg.agents] == ["Boulware", "Soft"]
    assert cfg.agents[1].params == {"exponent": 4}
    assert (cfg.reps, cfg.seed, cfg.name) == (3, 5, "demo")
    assert TournamentConfig.from_dict(cfg.to_dict()).fingerprint() == cfg.fingerprint()
    p.write_text("agents: [a\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        TournamentConfig.from_yaml(p)
    with pytest.raises(ConfigError, match="does not exist"):
        TournamentConfig.from_yaml(tmp_path / "missing.yaml")
