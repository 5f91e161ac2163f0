"""The agent registry: short names, import paths, parameters, helpful errors."""

from __future__ import annotations

import pytest

import accord.agents as agents
from accord.agents import (
    Boulware,
    Conceder,
    FrequencyAgent,
    Hardliner,
    Linear,
    RandomNegotiator,
    TimeDependent,
    TitForTat,
    get_agent,
    known_agents,
    register_agent,
    resolve_agent,
    unregister_agent,
)
from accord.core import ConfigError, Negotiator


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("boulware", Boulware),
        ("Boulware", Boulware),
        ("linear", Linear),
        ("conceder", Conceder),
        ("time-dependent", TimeDependent),
        ("hardliner", Hardliner),
        ("random", RandomNegotiator),
        ("tit_for_tat", TitForTat),
        ("TitForTat", TitForTat),
        ("frequency", FrequencyAgent),
    ],
)
def test_short_names(name, cls):
    assert type(get_agent(name)) is cls


def test_parameters_reach_the_constructor():
    assert get_agent("conceder", exponent=3.0).exponent == 3.0
    assert get_agent("random", accept_probability=0.25).accept_probability == 0.25
    assert get_agent("boulware", name="B1").name == "B1"


def test_import_paths_with_colon_or_dot():
    assert type(get_agent("accord.agents.titfortat:TitForTat")) is TitForTat
    assert type(get_agent("accord.agents.simple.Hardliner")) is Hardliner
    assert resolve_agent("accord.agents.frequency:FrequencyAgent") is FrequencyAgent


def test_unknown_name_suggests_the_closest_and_lists_the_known():
    with pytest.raises(ConfigError) as info:
        get_agent("titfortatt")
    msg = str(info.value)
    assert "unknown agent 'titfortatt'. Did you mean 'TitForTat'?" in msg
    for name in ("Boulware", "Conceder", "Frequency", "Hardliner", "Linear", "Random"):
        assert name in msg
    with pytest.raises(ConfigError, match="Known agents: ") as info:
        get_agent("zzzzqqq")
    assert "Did you mean" not in str(info.value)


def test_bad_import_paths_and_parameters_are_explained():
    with pytest.raises(ConfigError, match="cannot import module 'no_such_pkg.mod'"):
        get_agent("no_such_pkg.mod:Agent")
    with pytest.raises(ConfigError, match="module 'accord.agents.simple' has no attribute 'Nope'"):
        get_agent("accord.agents.simple:Nope")
    with pytest.raises(ConfigError, match="cannot build agent 'linear' with parameters"):
        get_agent("linear", exponent=2.0)
    with pytest.raises(ConfigError, match="built a dict, not an accord Negotiator"):
        get_agent("builtins:dict")
    with pytest.raises(ConfigError, match="non-empty string"):
        get_agent("  ")


def test_register_and_unregister():
    class Mine(Negotiator):
        """My own agent."""

        def propose(self, view):
            return view.best_outcome

        def respond(self, view, offer):
            raise NotImplementedError

    register_agent("mine", Mine)
    try:
        assert type(get_agent("MINE")) is Mine
        assert known_agents()["mine"] == "My own agent."
    finally:
        unregister_agent("mine")
    assert "mine" not in known_agents()
    with pytest.raises(ConfigError, match="plain word"):
        register_agent("a:b", Mine)


def test_known_agents_are_described_and_exported():
    names = known_agents()
    assert {
        "Boulware",
        "Linear",
        "Conceder",
        "Hardliner",
        "Random",
        "TitForTat",
        "Frequency",
    } <= set(names)
    assert all(names[n] for n in names)
    assert len(set(agents.__all__)) == len(agents.__all__)
    for name in agents.__all__:
        assert getattr(agents, name).__doc__, name


def test_each_builtin_agent_has_one_name_however_it_is_asked_for():
    from accord.agents.registry import display_name

    for asked in ("frequency", "Frequency", "FREQUENCY", "accord.agents.frequency:FrequencyAgent"):
        assert display_name(asked) == "Frequency"
        assert get_agent(asked).name == "Frequency"
    assert get_agent("frequency", name="Mine").name == "Mine"
