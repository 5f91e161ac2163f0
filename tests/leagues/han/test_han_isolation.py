"""Each participant's agent in a fresh process: class and module state never carries
over (tournament and server), and a failing agent process ends its game with BATNAs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.han.domain import EXAMPLE_1
from accord.leagues.han.isolation import IsolatedAgent, isolated_factory
from accord.leagues.han.participants import Cooperative
from accord.leagues.han.play import play
from accord.leagues.han.server import create_han_app
from accord.leagues.han.tournament import run_tournament
from accord.web.testing import ServerThread

HERE = Path(__file__).parent
SHORT = EXAMPLE_1.with_time(30.0)


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``han_stateful`` importable here and in the agents' processes (they get sys.path)."""
    monkeypatch.syspath_prepend(str(HERE))


def _tournament(shared: bool) -> list[int]:
    res = run_tournament(
        ["han_stateful:Counting"], ["cooperative", "greedy"], n=2, games=["example-1"],
        time_limit=20.0, shared_process=shared,
    )  # fmt: skip
    return [int(g["row"]["numVHHappy"]) for g in res["games"]]


def test_every_tournament_game_sees_a_fresh_class_and_module() -> None:
    assert _tournament(shared=False) == [1, 1, 1, 1]


def test_shared_process_carries_class_state_over_which_the_default_prevents() -> None:
    counts = _tournament(shared=True)
    assert counts == sorted(counts) and counts[-1] - counts[0] == 3  # 1..4 more each game


def _counts_said(url: str, paths: list[str]) -> list[str]:
    said = []
    for path in paths:
        c = httpx.Client(base_url=url, timeout=10)
        assert c.post(path).status_code == 303
        consent = {"agree": True, "version": "1"}
        assert c.post("/api/participant/consent", json=consent).status_code == 200
        for _ in range(100):
            texts = [h["text"] for h in c.get("/api/han/state").json()["history"]]
            hit = [t for t in texts if "count class=" in t]
            if hit:
                said.append(hit[0])
                break
            time.sleep(0.05)
    return said


@pytest.mark.parametrize("shared", [False, True])
def test_every_served_participant_meets_a_fresh_class_and_module(
    tmp_path: Path, shared: bool
) -> None:
    app, study, service = create_han_app(
        tmp_path / "han.sqlite", ["han_stateful.Counting"], time_limit=30.0,
        password="secret-pw", shared_process=shared,
    )  # fmt: skip
    with ServerThread(app) as srv:
        said = _counts_said(srv.url, [i.path for i in study.invite(3)])
    service.close()
    assert len(said) == 3
    if shared:  # what the opt-out gives up: the second participant's agent saw the first's
        ks = [int(s.split("class=")[1].split()[0]) for s in said]
        assert ks == [ks[0], ks[0] + 1, ks[0] + 2]  # (earlier tests in this process count too)
    else:
        assert all(s.endswith("count class=1 module=1") for s in said), said


@pytest.mark.parametrize(
    ("agent", "why"),
    [
        ("han_stateful:Crashing", "exited unexpectedly (exit code 3)"),
        ("han_stateful:Hanging", "did not answer within 0.5 s; its process was killed"),
        ("han_stateful:Nobody", "could not build agent 'han_stateful:Nobody'"),
    ],
)
def test_a_dead_hung_or_unbuildable_agent_process_ends_the_game_with_batnas(
    agent: str, why: str
) -> None:
    make = (lambda: IsolatedAgent(agent, timeout=0.5)) if "Nobody" in agent else None
    rec = play(SHORT, make or isolated_factory(agent, timeout=0.5), Cooperative)
    assert rec.result.outcome == "left"
    assert rec.result.points == {"agent": SHORT.batna("agent"), "person": SHORT.batna("person")}
    (v,) = [v for v in rec.result.violations if v.side == "agent"]
    assert why in v.reason and v.time == 0.0


def test_an_agent_that_raises_is_recorded_and_the_game_times_out_to_batnas() -> None:
    rec = play(SHORT, isolated_factory("han_stateful:Raising"), Cooperative)
    assert rec.result.outcome == "timeout" and rec.result.end_time == 30.0
    assert rec.result.points == {"agent": SHORT.batna("agent"), "person": SHORT.batna("person")}
    reasons = [v.reason for v in rec.result.violations if v.side == "agent"]
    assert reasons and all(
        "Raising.on_event raised RuntimeError('agent bug')" in r for r in reasons
    )


def test_a_crashing_agent_in_a_tournament_is_a_recorded_game_not_a_failed_run() -> None:
    res = run_tournament(
        ["han_stateful:Crashing", "fair"], ["cooperative"], games=["example-1"], time_limit=20.0
    )
    crash, fair = res["games"]
    assert (crash["outcome"], crash["points"], crash["invalid"]) == ("left", 4, 1)
    assert fair["outcome"] == "deal"


def test_the_isolated_agent_plays_exactly_as_in_process() -> None:
    from accord.leagues.han.agents import FavorLedgerTrader

    here = play(EXAMPLE_1, FavorLedgerTrader, Cooperative, seed=3)
    there = play(EXAMPLE_1, isolated_factory("ledger"), Cooperative, seed=3)
    assert there.game.history == here.game.history and there.result == here.result


def test_cli_tournament_twice_in_one_process_is_the_same_unless_shared() -> None:
    args = ["han", "tournament", "han_stateful:Counting", "--participants", "cooperative",
            "--games", "example-1", "--n", "2", "--json"]  # fmt: skip

    def likeability(*extra: str) -> float:
        r = CliRunner().invoke(app, [*args, *extra])
        assert r.exit_code == 0, r.output
        return float(json.loads(r.output)["agents"][0]["likeability"])

    assert likeability() == likeability()  # a fresh class and module for every game
    import han_stateful  # the module the in-process runs use: start its count at 0

    han_stateful.Counting.games = 0
    shared = [likeability("--sandbox", "none") for _ in range(2)]
    assert shared[1] > shared[0]  # more happy faces each game: the class count carried over


def test_a_study_agent_is_named_with_dots_not_a_colon(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pkg.module.Class"):
        create_han_app(tmp_path / "han.sqlite", ["han_stateful:Counting"], password="secret-pw")
    assert not (tmp_path / "han.sqlite").exists()


def test_a_served_agent_that_crashes_ends_that_game_with_batnas_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    app_, study, service = create_han_app(
        tmp_path / "han.sqlite", ["han_stateful.Crashing"], time_limit=30.0,
        password="secret-pw",
    )  # fmt: skip
    with ServerThread(app_) as srv:
        for inv in study.invite(2):  # each participant's agent crashes in its own process
            c = httpx.Client(base_url=srv.url, timeout=10)
            assert c.post(inv.path).status_code == 303
            consent = {"agree": True, "version": "1"}
            assert c.post("/api/participant/consent", json=consent).status_code == 200
            s = c.get("/api/han/state").json()
            assert s["result"]["points"] == SHORT.batna("person") and s["left"] > 0
            (m,) = [service.matches[inv.pid]]
            (v,) = m.game.violations
            assert (v.side, m.game.result.outcome) == ("agent", "left")
            assert "exited unexpectedly (exit code 3)" in v.reason
    service.close()
