"""The play page shows the panels the rules name (``Rules.panels``): offers and the offer
on the table for offer protocols, the state and the events for any other rules (the
ultimatum game without a round clock; Colored Trails with no offer panels at all)."""

from __future__ import annotations

from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from accord.commands.play import build_game
from accord.leagues.trails.baselines import BASELINES
from accord.leagues.trails.generator import generate
from accord.leagues.trails.rules import TrailsRules
from accord.leagues.trails.seats import TrailsSeat
from accord.tournament.sqlite import SqliteFile
from accord.web.app import create_app
from accord.web.clock import VirtualClock
from accord.web.driver import PLAY_PAGE, RulesGame
from accord.web.store import EventLog
from accord.web.testing import ServerThread


def _trails() -> RulesGame:
    def seats(state: Any) -> dict[int, TrailsSeat]:
        return {1: TrailsSeat(BASELINES["reliable"](), 1, np.random.default_rng(1))}

    log = EventLog(SqliteFile(":memory:"))
    game = RulesGame(TrailsRules(), generate("mutual", 1), [0], seats, log,
                     names=["you", "reliable"], clock=VirtualClock())  # fmt: skip
    game.seats[1].start(game.state)
    return game


def test_each_rules_names_its_panels_and_the_view_says_who_acts() -> None:
    aop = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())
    ult = build_game("ultimatum", "lunch", "hardliner", rounds=10, clock=VirtualClock())
    trails = _trails()
    got = {}
    for game in (aop, ult, trails):
        q = f"party=0&token={game.tokens[0]}"
        with TestClient(create_app("play", game, static={"/": PLAY_PAGE})) as client:
            view = client.get(f"/api/state?{q}").json()
        got[view["protocol"]] = (view["panels"], view["names"], view["to_act"], view["result"])
    assert got == {
        "aop-v1": (["clock", "standing", "offers"], ["you", "Boulware"], [0], None),
        "ultimatum-v1": (["standing", "offers", "events"], ["you", "Hardliner"], [0], None),
        "colored-trails-v1": (["state", "events"], ["you", "reliable"], [0], None),
    }


def test_a_person_plays_colored_trails_on_the_generic_page_in_chromium(web_page: Any) -> None:
    game = _trails()
    page = web_page
    with ServerThread(create_app("play", game, static={"/": PLAY_PAGE})) as server:
        page.goto(f"{server.url}/?party=0&token={game.tokens[0]}")
        page.locator("form[data-kind=pass]").wait_for()
        assert page.locator("#title").text_content() == "colored-trails-v1: you are you"
        assert page.locator("#status").text_content() == "Your turn."
        for hidden in ("clock", "standing", "offers"):
            assert page.locator(f"[data-panel={hidden}]").is_hidden()
        assert page.locator("#state th", has_text="phase").count() == 1
        page.locator("form[data-kind=pass] button").click()
        page.locator("#events li").first.wait_for()  # the pass, then the agent's answer
        assert page.locator("#events li").first.text_content().startswith("you: ")  # type: ignore[union-attr]
        assert page.locator("#error").text_content() == ""
