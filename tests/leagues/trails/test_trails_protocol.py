"""The turn-protocol parameter: the "counter" protocol's exact phase sequence, agents under
both protocols, and the game parameters on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.trails.board import Board, Settings
from accord.leagues.trails.engine import (
    EndMove,
    Game,
    Pass,
    Propose,
    Respond,
    Setup,
    Transfer,
)
from accord.leagues.trails.generator import CLASSES, BoardSpec, dependency_class, generate
from accord.leagues.trails.match import play

runner = CliRunner()
# Row 0: A A B ; row 1: C B B ; row 2: A C A   (cells 0..8)
BOARD = Board.parse(["AAB", "CBB", "ACA"])
SETUP = Setup(BOARD, (0, 8), (2, 6), ((2, 0, 1), (0, 2, 1)))
COUNTER = Settings(protocol="counter")  # two proposal slots a phase


def _where(g: Game) -> tuple[str, int, int]:
    return g.phase.value, g.actor, g.proposer


def test_counter_reject_hands_the_next_slot_to_the_other_then_accept_ends_negotiation() -> None:
    g = Game(SETUP, COUNTER)
    seq = [_where(g)]
    g.step(0, Propose((1, 0, 0), (0, 1, 0)))
    seq.append(_where(g))
    g.step(1, Respond(False))  # rejected: player 1's slot
    seq.append(_where(g))
    g.step(1, Propose((0, 1, 0), (1, 0, 0)))  # the counter-proposal
    seq.append(_where(g))
    g.step(0, Respond(True))
    seq.append(_where(g))
    assert seq == [
        ("propose", 0, 0),
        ("respond", 1, 0),
        ("propose", 1, 1),
        ("respond", 0, 1),
        ("transfer", 0, 1),
    ]
    # the agreement is the counter-proposal: player 1 promised B, player 0 promised A
    assert g.promised(1).tolist() == [0, 1, 0] and g.promised(0).tolist() == [1, 0, 0]
    g.step(0, Transfer((1, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))  # player 1 breaks its counter-proposal
    rec = g.record
    assert rec.proposer == 1 and rec.accepted and rec.promised == [[1, 0, 0], [0, 1, 0]]
    assert rec.offers == [
        {"from": 0, "give": [1, 0, 0], "take": [0, 1, 0], "accepted": False},
        {"from": 1, "give": [0, 1, 0], "take": [1, 0, 0], "accepted": True},
    ]
    assert g.chips.tolist() == [[1, 0, 1], [1, 2, 1]]
    assert not g.violations


def test_counter_two_rejections_end_the_phase_without_agreement_and_turn_two_starts_with_1() -> (
    None
):
    g = Game(SETUP, COUNTER)
    g.step(0, Propose((1, 0, 0), (0, 1, 0)))
    g.step(1, Respond(False))
    g.step(1, Propose((0, 1, 0), (1, 0, 0)))
    g.step(0, Respond(False))
    assert _where(g) == ("transfer", 0, 1)
    assert g.promised(0).tolist() == [0, 0, 0] and g.promised(1).tolist() == [0, 0, 0]
    g.step(0, Transfer((0, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))
    g.step(0, EndMove())
    g.step(1, EndMove())
    assert g.history[0].offers[-1]["accepted"] is False and not g.history[0].accepted
    # turn 2: player 1 takes the first slot, a pass hands the second to player 0
    assert _where(g) == ("propose", 1, 1)
    g.step(1, Pass())
    assert _where(g) == ("propose", 0, 0)
    g.step(0, Pass())
    assert _where(g) == ("transfer", 0, 0)
    assert not g.violations


def test_counter_with_three_rounds_and_out_of_turn_action() -> None:
    g = Game(SETUP, Settings(protocol="counter", rounds=3))
    g.step(0, Pass())
    g.step(1, Pass())
    assert _where(g) == ("propose", 0, 0)  # the third slot is player 0's again
    assert not g.step(1, Propose((0, 1, 0), (0, 0, 0))).ok  # out of turn: recorded, ignored
    assert _where(g) == ("propose", 0, 0) and len(g.violations) == 1
    g.step(0, Propose((0, 0, 1), (0, 0, 0)))
    g.step(1, Respond(False))
    assert _where(g) == ("transfer", 0, 0)


def test_alternating_is_unchanged_one_slot() -> None:
    g = Game(SETUP)
    g.step(0, Propose((1, 0, 0), (0, 1, 0)))
    g.step(1, Respond(False))
    assert _where(g) == ("transfer", 0, 0)
    assert (
        Settings().negotiation_rounds == 1
        and Settings(protocol="counter", rounds=4).negotiation_rounds == 4
    )


def test_rules_refuse_unknown_protocol_and_zero_rounds() -> None:
    with pytest.raises(ConfigError, match="protocol must be one of"):
        Settings(protocol="simultaneous")
    with pytest.raises(ConfigError, match="rounds .* must be >= 1; got 0"):
        Settings(protocol="counter", rounds=0)


@pytest.mark.parametrize("protocol", ["alternating", "counter"])
@pytest.mark.parametrize(
    "agents",
    [
        ["purb", "reliable"],
        ["unreliable", "purb"],
        ["greedy", "random"],
        ["purb", "purb"],
        ["sim-reciprocal", "sim-opportunist"],
        ["sim-cooperative", "sim-forgetful"],
    ],
)
def test_agents_play_both_protocols_without_violations(protocol: str, agents: list[str]) -> None:
    rules = Settings(protocol=protocol, max_turns=50)
    for cls in CLASSES:
        r = play(generate(cls, 3), agents, rules=rules, seed=1)
        assert r["end"] in {"goal", "dormant", "max_turns"}
        assert r["violations"] == []
        for h in r["history"]:
            assert len(h["offers"]) + (h["give"] is None) >= 1 or h["offers"] == []
            assert len(h["offers"]) <= rules.negotiation_rounds
            assert sum(o["accepted"] for o in h["offers"]) == int(h["accepted"])


def test_counter_lets_the_responder_counter_in_a_real_game() -> None:
    rules = Settings(protocol="counter", max_turns=50)
    counters = 0
    for seed in range(6):
        r = play(generate("mutual", seed), ["purb", "reliable"], rules=rules, seed=seed)
        counters += sum(len(h["offers"]) == 2 for h in r["history"])
    assert counters > 0  # rejections were followed by counter-proposals


def test_board_spec_limits() -> None:
    with pytest.raises(ConfigError, match="cannot hold a start and a goal 3 squares apart"):
        BoardSpec(rows=2, cols=2)
    with pytest.raises(ConfigError, match="colours must be 1..10; got 0"):
        BoardSpec(n_colors=0)
    with pytest.raises(ConfigError, match="chips per player must be 1..16; got 0"):
        BoardSpec(chips=0)
    with pytest.raises(ConfigError, match="board rows must be 2..12; got 1"):
        BoardSpec(rows=1)
    s = generate("unilateral", 2, **BoardSpec(rows=4, cols=6, n_colors=3, chips=7).to_dict())
    assert (s.board.rows, s.board.cols, s.board.n_colors) == (4, 6, 3)
    assert [sum(c) for c in s.chips] == [7, 7] and dependency_class(s) == "unilateral"


def test_play_cli_board_and_protocol_options() -> None:
    r = runner.invoke(
        app,
        ["trails", "play", "--rows", "4", "--cols", "6", "--colors", "3", "--chips", "7",
         "--protocol", "counter", "--rounds", "3", "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    g = json.loads(r.stdout)
    assert len(g["setup"]["board"]) == 4 and len(g["setup"]["board"][0]) == 6
    assert g["setup"]["n_colors"] == 3 and [sum(c) for c in g["setup"]["chips"]] == [7, 7]
    assert all(len(h["offers"]) <= 3 for h in g["history"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rows", "2", "--cols", "2"], "a 2x2 board cannot hold a start and a goal"),
        (["--colors", "0"], "colours must be 1..10; got 0"),
        (["--chips", "0"], "chips per player must be 1..16; got 0"),
        (["--visibility", "some"], "visibility must be one of"),
        (["--protocol", "fixed"], "protocol must be one of"),
        (["--rounds", "3"], "--rounds applies to --protocol counter"),
    ],
)
@pytest.mark.parametrize("command", ["play", "tournament", "serve"])
def test_bad_game_parameters_are_refused_in_one_line(
    command: str, args: list[str], message: str, tmp_path: object
) -> None:
    extra = ["--folder", str(tmp_path), "--port", "0"] if command == "serve" else []
    r = runner.invoke(app, ["trails", command, *extra, *args], env={"COLUMNS": "200"})
    assert r.exit_code == 2
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1
    if command == "serve":
        assert not any(tmp_path.iterdir())  # type: ignore[attr-defined]


def test_tournament_cli_under_counter_protocol_and_small_board() -> None:
    r = runner.invoke(
        app,
        ["trails", "tournament", "--agents", "purb reliable", "--boards", "1", "--rows", "4",
         "--cols", "4", "--protocol", "counter", "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["games"] == 12 and set(out["table"]) == {"purb", "reliable"}


def test_served_game_under_counter_protocol_lets_the_person_counter_propose(
    tmp_path: Path,
) -> None:
    import httpx

    from accord.leagues.trails.server import create_trails_app, trails_design
    from accord.web.testing import ServerThread

    spec = BoardSpec(rows=4, cols=6, n_colors=3, chips=7)
    design = trails_design(["reliable"], board=spec, rules=Settings(protocol="counter", rounds=3))
    app_, study = create_trails_app(tmp_path / "s", design, password="pw-trails")
    with ServerThread(app_) as server:
        (inv,) = study.invite(1)
        c = httpx.Client(base_url=server.url)
        c.post(inv.path)
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        s = c.get("/api/trails/state").json()
        assert (s["rows"], s["cols"], s["nColors"]) == (4, 6, 3)
        assert s["rules"]["protocol"] == "counter" and s["rules"]["rounds"] == 3
        assert sum(s["chips"][0]) == 7
        assert (s["phase"], s["myTurn"]) == ("propose", True)
        s = c.post("/api/trails/act", json={"kind": "pass"}).json()
        # slot 2 was the agent's: it proposed (now the person answers) or passed (slot 3
        # is the person's again)
        if s["phase"] == "respond":
            assert s["proposal"]["from"] == 1
            s = c.post("/api/trails/act", json={"kind": "respond", "accept": False}).json()
        assert (s["phase"], s["myTurn"], s["turn"]) == ("propose", True, 0)
        give = [1 if k == max(range(3), key=lambda i: s["chips"][0][i]) else 0 for k in range(3)]
        s = c.post(
            "/api/trails/act", json={"kind": "propose", "give": give, "take": [0, 0, 0]}
        ).json()
        assert s.get("error") is None and s["turn"] == 0
        assert s["phase"] in {"transfer", "move"}  # a gift: the agent answered; slots used up
