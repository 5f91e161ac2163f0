"""Learning across sessions: what the memory holds, ordering, resume, and a learner that improves."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tournament_helpers import Recorder, T, content, small_config

from accord.core.generate import random_linear_scenario
from accord.tournament.config import TournamentConfig
from accord.tournament.memory import Memory
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament


def recorded(cfg: TournamentConfig, out: Path) -> list[tuple[str, Memory]]:
    Recorder.seen = []
    run_tournament(cfg, out, "serial")
    return list(Recorder.seen)  # type: ignore[arg-type]


def test_memory_holds_exactly_the_agents_own_earlier_sessions(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        agents=("Rec=tournament_helpers:Recorder", f"{T}Boulware"),
        scenarios=("builtin:tiny", "builtin:trilateral"),
        reps=3,
        learning=True,
        seed=2,
    )
    out = tmp_path / "t.sqlite"
    seen = recorded(cfg, out)
    res = Results(out)
    parties = res.parties
    events = res.events
    specs = res.specs.set_index("id")
    scenarios = res.scenarios
    seats = parties[parties.agent == "Rec"]  # the serial run met them in this order
    assert len(seen) == len(seats)
    dirs = set()
    for (name, memory), seat in zip(seen, seats.itertuples(), strict=True):
        assert name == "Rec" and isinstance(memory, Memory)
        assert memory.agent == "Rec"
        assert memory.data_dir is not None and memory.data_dir.is_dir()
        dirs.add(memory.data_dir)
        assert (memory.scenario, memory.profile) == (seat.scenario, seat.profile_name)
        assert memory.names == tuple(json.loads(seat.agents))
        assert memory.position == seat.position
        # all of its sessions of the earlier repetitions, one entry per seat, in order
        mine = seats[seats.rep < seat.rep]
        assert [(s.session_id, s.position) for s in memory.sessions] == list(
            zip(mine.session_id, mine.position, strict=True)
        )
    assert len(dirs) == 1
    # check the content of the last (largest) memory in detail
    _, memory = max(seen, key=lambda x: len(x[1].sessions))
    assert len(memory.sessions) > 0
    for past in memory.sessions:
        spec = specs.loc[past.session_id]
        assert past.names == tuple(json.loads(spec["agents"]))
        scen = scenarios[past.scenario]
        assert scen is not None
        profile = json.loads(spec["profiles"])[past.position]
        assert past.profile == scen.profile_names[profile]
        ev = events[(events.session_id == past.session_id) & (events.action == "offer")]
        own = [scen.utilities[profile](tuple(json.loads(o))) for o in ev.outcome]
        assert past.utilities.tolist() == own  # own utilities only, one per offer
        assert past.utilities.ndim == 1
        assert past.proposers.tolist() == ev.party.tolist()
        assert past.times.tolist() == ev.time.tolist()
        row = res.sessions.set_index("id").loc[past.session_id]
        assert past.agreed == isinstance(row["agreement"], str)
        if past.agreed:
            assert list(past.agreement) == json.loads(row["agreement"])
        mine = parties[
            (parties.session_id == past.session_id) & (parties.position == past.position)
        ]
        assert past.utility == mine.utility.iloc[0]
    res.close()


def test_without_learning_agents_get_no_memory(tmp_path: Path) -> None:
    cfg = TournamentConfig(("Rec=tournament_helpers:Recorder", f"{T}Boulware"), ("builtin:tiny",))
    seen = recorded(cfg, tmp_path / "t.sqlite")
    assert seen and all(m is None for _, m in seen)


def test_learning_run_interrupted_and_resumed_is_identical(tmp_path: Path) -> None:
    cfg = small_config(
        agents=("accord.agents.learning:Learner", f"{T}Boulware", f"{T}Conceder"),
        learning=True,
        reps=3,
    )
    full = tmp_path / "full.sqlite"
    run_tournament(cfg, full, "processes", workers=2)

    class Crash(Exception):
        pass

    def crash_midway(done: int, total: int) -> None:
        if done > total // 2:
            raise Crash

    part = tmp_path / "part.sqlite"
    with pytest.raises(Crash):
        run_tournament(cfg, part, "serial", progress=crash_midway)
    resumed = run_tournament(cfg, part, "processes", workers=2)
    assert 0 < resumed.ran < resumed.total
    assert content(part) == content(full)


def test_learner_improves_over_repetitions_against_the_same_opponents(tmp_path: Path) -> None:
    """Honest check over seeds: the learner's mean utility in the last two repetitions
    beats its first two, on random scenarios against fixed time-based opponents."""
    gains = []
    for seed in range(3):
        scenarios = (
            random_linear_scenario(3, 6, 2, seed=100 + seed, reservation=0.2),
            random_linear_scenario(4, 5, 2, seed=200 + seed, reservation=0.1),
        )
        cfg = TournamentConfig(
            agents=("accord.agents.learning:Learner", f"{T}Boulware", f"{T}Conceder", f"{T}Linear"),
            scenarios=scenarios,
            reps=5,
            learning=True,
            self_play=False,
            seed=seed,
        )
        out = tmp_path / f"s{seed}.sqlite"
        run_tournament(cfg, out, "processes", workers=2)
        res = Results(out)
        p = res.parties
        learner = p[p.agent == "Learner"].groupby("rep")["utility"].mean()
        res.close()
        gains.append(learner.loc[[3, 4]].mean() - learner.loc[[0, 1]].mean())
    assert np.mean(gains) > 0.05, gains
    assert sum(g > 0 for g in gains) >= 2, gains
