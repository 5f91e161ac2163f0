"""Games on the engine: deals are obeyed order by order, end rules, bad agents."""

from __future__ import annotations

import contextlib

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.leagues.diplomacy.deals import POWERS, SEASONS, Deal, DealError  # noqa: E402
from accord.leagues.diplomacy.negotiator import (  # noqa: E402
    AllianceNegotiator,
    Negotiator,
    Round,
    random_deal,
)
from accord.leagues.diplomacy.runner import play_game  # noqa: E402
from accord.leagues.diplomacy.tactics import obeys  # noqa: E402


class Agreeable(Negotiator):
    """Proposes a random deal every tick and accepts everything: many confirmed deals."""

    def negotiate(self, rnd: Round) -> None:
        for p in rnd.proposals():
            if rnd.power not in p.accepted:
                rnd.accept(p.id)
        deal = random_deal(rnd, self.rng)
        if deal is not None:
            with contextlib.suppress(DealError):  # a deal the board cannot obey is refused
                rnd.propose(deal)


def test_tactics_never_breaks_a_confirmed_deal_in_100_random_games() -> None:
    confirmed_total = 0
    for seed in range(100):
        negs: dict[str, Negotiator | None] = {
            p: Agreeable(seed * 7 + i) for i, p in enumerate(POWERS)
        }
        rec = play_game(negs, seed=seed, clock="virtual", ticks=2, last_year=1901, candidates=1)
        assert rec.violations == 0
        for row in rec.phases:
            if "events" not in row:
                continue
            year, season = int(row["phase"][1:5]), row["phase"][0]
            ids = [e["id"] for e in row["events"] if e["kind"] == "confirm"]
            deals = [Deal.from_json(row["deals"][i]) for i in ids]
            confirmed_total += len(deals)
            for power, orders in row["orders"].items():
                assert obeys(power, orders, deals, (year, SEASONS.index(season))), (seed, power)
    assert confirmed_total > 200  # the check had deals to check


def test_game_stops_at_the_cap_year_and_scores() -> None:
    rec = play_game({}, seed=3, clock="virtual", last_year=1902, candidates=1)
    assert rec.end == "cap"
    phases = [r["phase"] for r in rec.phases]
    assert phases[-1] in ("W1902A", "S1903M")
    assert sum(rec.points.values()) == len(rec.survivors) * {7: 1, 6: 2, 5: 2}[len(rec.survivors)]


def test_agreed_draw_ends_the_game() -> None:
    class Drawer(Negotiator):
        def negotiate(self, rnd: Round) -> None:
            rnd.propose_draw()

    rec = play_game({p: Drawer() for p in POWERS}, seed=1, clock="virtual", ticks=1)
    assert rec.end == "draw" and rec.phases[0]["phase"] == "S1901M"
    assert rec.points == {p: 1 for p in POWERS}


def test_bad_and_flooding_agents_are_recorded_and_the_game_goes_on() -> None:
    class Broken(Negotiator):
        def negotiate(self, rnd: Round) -> None:
            raise RuntimeError("boom")

    class Liar(Negotiator):
        def negotiate(self, rnd: Round) -> None:
            rnd.propose(Deal("FRANCE", ()))  # empty deal, wrong proposer

    class Flood(Negotiator):
        def negotiate(self, rnd: Round) -> None:
            for _ in range(50):
                rnd.propose(_dmz())

    def _dmz() -> Deal:
        from accord.leagues.diplomacy.deals import Dmz

        return Deal("ITALY", (), (Dmz.of(1901, "S", ["AUSTRIA"], ["TYR"]),))

    rec = play_game(
        {"ENGLAND": Broken(), "GERMANY": Liar(), "ITALY": Flood(), "FRANCE": AllianceNegotiator(1)},
        seed=2,
        clock="virtual",
        ticks=2,
        last_year=1901,
        candidates=1,
    )
    text = "\n".join(rec.errors)
    assert "ENGLAND: RuntimeError: boom" in text
    assert "GERMANY" in text and "proposer" in text
    assert "ITALY: flooding" in text
    assert rec.end == "cap" and rec.violations == 0


def test_real_clock_rounds_last_their_time() -> None:
    import time

    calls: list[float] = []

    class Counter(Negotiator):
        def negotiate(self, rnd: Round) -> None:
            calls.append(rnd.time_left())

    t0 = time.monotonic()
    rec = play_game({"FRANCE": Counter()}, seed=1, round_seconds=0.3, last_year=1901, candidates=1)
    assert time.monotonic() - t0 >= 0.6  # two movement rounds of 0.3 s
    assert rec.end == "cap" and len(calls) > 2 and all(c <= 0.3 for c in calls)


def test_bad_configuration() -> None:
    from accord.core.errors import ConfigError

    with pytest.raises(ConfigError, match="'real' or 'virtual'"):
        play_game({}, clock="fast")
    with pytest.raises(ConfigError, match="PRUSSIA"):
        play_game({"PRUSSIA": None})
