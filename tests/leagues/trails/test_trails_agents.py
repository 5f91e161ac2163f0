"""PURB's trait updates on a hand-worked sequence, its rules, and the baselines."""

from __future__ import annotations

import numpy as np
import pytest

from accord.core.errors import ConfigError
from accord.leagues.trails.agent import make_view
from accord.leagues.trails.baselines import Unreliable
from accord.leagues.trails.board import Board
from accord.leagues.trails.engine import Game, Propose, Setup, TurnRecord
from accord.leagues.trails.generator import CLASSES, generate
from accord.leagues.trails.match import AGENTS, play
from accord.leagues.trails.purb import Purb, PurbConfig, Traits


def test_traits_hand_worked_sequence() -> None:
    t = Traits(discount=0.1)
    assert (t.reliability, t.helpfulness) == (1.0, 0.5)
    # 1) promised 2, sent 2, its proposal gave 3 asked 1 (helpful)
    t.observe(promised=2, sent=2, proposed=True)
    # sent = 0.9*1 + 2 = 2.9 ; promised = 0.9 + 2 = 2.9 ; helpful = 0.45 + 1 ; props = 1.9
    assert t.reliability == pytest.approx(1.0)
    assert t.helpfulness == pytest.approx(1.45 / 1.9)
    # 2) promised 3, sent 1, did not propose
    t.observe(promised=3, sent=1, proposed=None)
    # sent = 2.61 + 1 = 3.61 ; promised = 2.61 + 3 = 5.61 ; helpful 1.305 / 1.71
    assert t.reliability == pytest.approx(3.61 / 5.61)
    assert t.helpfulness == pytest.approx(1.305 / 1.71)
    # 3) promised 1, sent 0, an unhelpful proposal
    t.observe(promised=1, sent=0, proposed=False)
    assert t.reliability == pytest.approx(3.249 / 6.049)
    assert t.helpfulness == pytest.approx(1.1745 / 2.539)
    assert t.observations == 3
    assert t.cooperativeness == pytest.approx((3.249 / 6.049 + 1.1745 / 2.539) / 2)


def _purb_in_game(setup: Setup) -> tuple[Purb, Game]:
    agent = Purb()
    agent.start(0, np.random.default_rng(0))
    return agent, Game(setup)


def test_purb_observe_updates_both_players() -> None:
    agent, _ = _purb_in_game(generate("mutual", 2))
    rec = TurnRecord(0, 1, Propose((0, 1, 0, 0), (2, 0, 0, 0)), accepted=True)
    rec.promised, rec.sent = [[2, 0, 0, 0], [0, 1, 0, 0]], [[2, 0, 0, 0], [0, 0, 0, 0]]
    agent.observe(None, rec)  # type: ignore[arg-type]
    me, other = agent.traits
    assert me.reliability == pytest.approx(2.9 / 2.9)
    assert other.reliability == pytest.approx(0.9 / 1.9)
    assert other.helpfulness == pytest.approx(0.45 / 1.9)  # gave 1, asked 2
    assert me.helpfulness == pytest.approx(0.5)  # did not propose: only discounted
    rejected = TurnRecord(1, 0, Propose((1, 0, 0, 0), (0, 0, 0, 0)), accepted=False)
    agent.observe(None, rejected)  # type: ignore[arg-type]
    assert agent.traits[1].observations == 1


def test_purb_transfer_by_reliability() -> None:
    setup = generate("mutual", 4)
    agent, game = _purb_in_game(setup)
    view = make_view(game, 0)
    promised = tuple(min(1, c) for c in view.chips)
    low = agent.traits[1]
    low.observe(3, 0, None)
    low.observe(3, 0, None)
    assert low.reliability < agent.config.low
    assert agent.transfer(view, promised, (0,) * 4) == (0,) * 4
    agent.traits[1] = Traits()
    for _ in range(2):
        agent.traits[1].observe(2, 2, None)
    assert agent.transfer(view, promised, (0,) * 4) == promised


def test_purb_medium_keeps_partner_dependent() -> None:
    # player 1 needs two A to reach its goal (every path enters cell 8, colour A, from an A
    # or through two As); PURB promised both As: with a medium partner it sends just one
    board = Board.parse(["ABB", "ABB", "AAA"])
    setup = Setup(board, (1, 6), (2, 8), ((2, 0), (0, 5)))
    agent, game = _purb_in_game(setup)
    view = make_view(game, 0)
    assert not view.independent(1, view.other_chips or ())
    sent = agent.transfer(view, (2, 0), (0, 1))
    after = (0 + sent[0], 5 - 1)
    assert not view.independent(1, after) and sent == (1, 0)
    assert view.independent(1, (2, 4))


def test_purb_proposals_are_narrowed_and_deterministic_by_seed() -> None:
    setup = generate("mutual", 5)
    agent, game = _purb_in_game(setup)
    view = make_view(game, 0)
    cands = agent.candidates(view)
    assert cands and all(not (g and t) for p in cands for g, t in zip(p.give, p.take, strict=True))
    assert all(sum(p.give) <= 3 and sum(p.take) <= 3 for p in cands)
    a = play(setup, ["purb", "reliable"], seed=3)
    b = play(setup, ["purb", "reliable"], seed=3)
    assert a == b


def test_purb_keeps_game_alive_rule() -> None:
    # PURB at cell 0 holds only C chips (no C neighbour); the offer gives it a B
    board = Board.parse(["AB", "BA"], n_colors=3)
    setup = Setup(board, (0, 3), (3, 0), ((0, 0, 1), (0, 2, 0)))
    agent = Purb(PurbConfig())
    agent.start(0, np.random.default_rng(0))
    game = Game(setup)
    game.dormant = [2, 0]
    view = make_view(game, 0)
    assert agent.respond(view, Propose((0, 1, 0), (0, 0, 1)))
    assert agent._keeps_alive(view, (0, 1, 0))
    game.dormant = [0, 0]
    assert not agent._keeps_alive(make_view(game, 0), (0, 1, 0))


def test_unreliable_never_sends_and_reliable_does() -> None:
    setup = generate("mutual", 1)
    r = play(setup, ["reliable", "unreliable"], seed=0)
    agreed = [h for h in r["history"] if h["accepted"]]
    assert agreed
    assert all(sum(h["sent"][1]) == 0 for h in agreed)
    assert all(h["sent"][0] == h["promised"][0] for h in agreed)
    assert isinstance(Unreliable(), Unreliable)


@pytest.mark.parametrize("cls", CLASSES)
def test_every_pair_finishes_without_violations(cls: str) -> None:
    setup = generate(cls, 11)
    for a in AGENTS:
        r = play(setup, [a, "purb"], seed=1)
        assert r["end"] in {"goal", "dormant", "max_turns"} and not r["violations"]


def test_failing_agent_is_recorded_not_fatal() -> None:
    class Broken(Purb):
        name = "broken"

        def propose(self, view):  # type: ignore[no-untyped-def]
            raise RuntimeError("boom")

    r = play(generate("mutual", 1), [Broken(), "reliable"], seed=0)
    assert r["end"] is not None
    assert any("boom" in v["reason"] and v["player"] == 0 for v in r["violations"])
    with pytest.raises(ConfigError, match="unknown trails agent"):
        play(generate("mutual", 1), ["nobody", "purb"])


def test_purb_gives_nothing_for_free_to_an_independent_partner() -> None:
    setup = generate("independent", 3)
    agent, game = _purb_in_game(setup)
    view = make_view(game, 0)
    base = view.best(0, view.chips)
    for p in agent.candidates(view):
        if any(p.give):
            mine = tuple(a - g + t for a, g, t in zip(view.chips, p.give, p.take, strict=True))
            assert view.best(0, mine) > base


def test_a_wrong_colour_transfer_lowers_reliability() -> None:
    agent, _ = _purb_in_game(generate("mutual", 2))
    rec = TurnRecord(0, 1, Propose((0, 1, 0, 0), (0, 0, 1, 0)), accepted=True)
    # the partner promised one chip of colour B and sent one of colour C
    rec.promised, rec.sent = [[0, 0, 1, 0], [0, 1, 0, 0]], [[0, 0, 1, 0], [0, 0, 1, 0]]
    agent.observe(None, rec)  # type: ignore[arg-type]
    assert agent.traits[1].reliability == pytest.approx(0.9 / 1.9)  # nothing of it kept
    assert agent.traits[0].reliability == pytest.approx(1.0)
    # colour by colour: two of A promised, one A and two D sent: one chip kept
    rec2 = TurnRecord(1, 0, Propose((2, 0, 0, 0), (0, 0, 0, 0)), accepted=True)
    rec2.promised, rec2.sent = [[0, 0, 0, 0], [2, 0, 0, 0]], [[0, 0, 0, 0], [1, 0, 0, 2]]
    agent.observe(None, rec2)  # type: ignore[arg-type]
    assert agent.traits[1].reliability == pytest.approx((0.81 + 1) / (1.71 + 2))


def test_purb_keeps_a_model_of_hidden_chips() -> None:
    from dataclasses import replace

    from accord.leagues.trails.purb import ChipBelief

    setup = generate("mutual", 4)
    agent, game = _purb_in_game(setup)
    hidden = replace(make_view(game, 0), other_chips=None)
    seen = agent.believed(hidden).other_chips
    assert seen == ChipBelief.even(sum(hidden.chips), 4).rounded()  # the prior
    # the partner offered 3 of colour A: it holds at least 3; PURB sent it one B; the
    # partner sent one C; a request for two D was refused: perhaps it holds at most one
    assert agent.respond(hidden, Propose((3, 0, 0, 0), (0, 0, 0, 0))) in (True, False)
    rec = TurnRecord(0, 0, Propose((0, 1, 0, 0), (0, 0, 1, 0)), accepted=True)
    rec.promised, rec.sent = [[0, 1, 0, 0], [0, 0, 1, 0]], [[0, 1, 0, 0], [0, 0, 1, 0]]
    agent.observe(hidden, rec)
    refused = TurnRecord(1, 0, Propose((0, 0, 0, 0), (0, 0, 0, 2)), accepted=False)
    agent.observe(hidden, refused)
    assert agent.belief is not None
    prior = sum(hidden.chips) / 4
    assert agent.belief.counts == pytest.approx([3.0, prior + 1, prior - 1, 1.0])


def test_agents_trade_when_the_partners_chips_are_hidden() -> None:
    from accord.leagues.trails.board import Settings

    deals = {"full": 0, "own": 0}
    for vis in deals:
        for seed in range(900, 910):
            for cls in ("mutual", "unilateral"):
                for seats in (["purb", "purb"], ["purb", "reliable"], ["reliable", "purb"]):
                    rules = Settings(max_turns=50, visibility=vis)
                    r = play(generate(cls, seed), seats, rules=rules)
                    deals[vis] += sum(1 for t in r["history"] if t["accepted"])
    # before the model of hidden chips: 0 deals under "own" in these 60 games
    assert deals["own"] >= 20 and deals["full"] >= 20


def test_longer_games_go_on_after_one_player_reaches_home() -> None:
    from accord.leagues.trails.board import Settings
    from accord.leagues.trails.generator import LONGER_BOARD, LONGER_RULES

    board = Board.parse(["AAA", "BBB", "AAA"])
    setup = Setup(board, (0, 6), (1, 8), ((1, 0), (0, 0)))  # 0 is one step from home
    first = play(setup, ["reliable", "reliable"], rules=Settings(until="first"))
    both = play(setup, ["reliable", "reliable"], rules=Settings(until="both", dormant_limit=4))
    assert (first["end"], len(first["history"])) == ("goal", 1)
    # player 0 is home after turn 1 and never dormant; player 1 cannot move: it is dormant
    # for 4 turns, then the game ends
    assert (both["end"], len(both["history"])) == ("dormant", 4)
    with pytest.raises(ConfigError, match="until must be one of"):
        Settings(until="never")
    assert LONGER_RULES.until == "both" and LONGER_BOARD.chips > 6
