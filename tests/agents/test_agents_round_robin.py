"""The frequency-model agent against the time-dependent family, in an honest round robin.

Every ordered pair of distinct agents meets on every scenario (so each pair plays both
role orders); an agent's score is the mean of its own final utilities over all its
sessions. Nothing is fixed in advance: the ranking is computed from the sessions.
"""

from __future__ import annotations

import itertools
from statistics import mean

import pytest
from agent_scenarios import independent, opposed, tradeoff

from accord.agents import FrequencyAgent
from accord.agents.timebased import Boulware, Conceder, Linear, TimeDependent
from accord.core import Deadline, Session

FAMILY = {
    "Boulware(0.2)": Boulware,
    "Linear": Linear,
    "Conceder(5)": Conceder,
    "TD(0.1)": lambda: TimeDependent(0.1),
    "TD(0.5)": lambda: TimeDependent(0.5),
    "TD(2)": lambda: TimeDependent(2.0),
}

KINDS = [
    (tradeoff, 3, 6, 0.0),
    (opposed, 4, 5, 0.1),
    (independent, 4, 4, 0.3),
    (tradeoff, 5, 4, 0.25),
    (opposed, 3, 7, 0.0),
    (tradeoff, 2, 15, 0.4),
    (opposed, 6, 3, 0.2),
    (independent, 3, 8, 0.0),
]


def scenarios(seeds):
    return [make(n, m, seed, rv) for seed in seeds for make, n, m, rv in KINDS]


def round_robin(players, scens, rounds):
    scores = {name: [] for name in players}
    for k, s in enumerate(scens):
        for a, b in itertools.permutations(players, 2):
            result = Session(
                s.space,
                [players[a](), players[b]()],
                list(s.utilities),
                Deadline(rounds=rounds),
                seed=k,
            ).run()
            assert result.failure is None, result.failure
            scores[a].append(result.utilities[0])
            scores[b].append(result.utilities[1])
    return sorted(((mean(v), name) for name, v in scores.items()), reverse=True)


@pytest.mark.parametrize(("seeds", "rounds"), [((0, 1), 100), ((2, 3), 40), ((4, 5, 6), 60)])
def test_frequency_agent_beats_the_time_dependent_family(seeds, rounds):
    players = dict(FAMILY)
    players["Frequency"] = FrequencyAgent
    ranking = round_robin(players, scenarios(seeds), rounds)
    table = "\n".join(f"{score:.4f}  {name}" for score, name in ranking)
    assert ranking[0][1] == "Frequency", f"ranking by mean own utility:\n{table}"
