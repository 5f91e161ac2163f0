"""Person-vs-person in real Chromium: two pages pair, bargain to a deal and fill the survey;
another pair runs out the clock to their BATNAs while a third person is released."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.han.server import create_han_app
from accord.web.testing import ServerThread, enter_study

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def _open(page: Any, url: str, path: str) -> None:
    enter_study(page, url + path, "/han.html")


def _survey(page: Any, liked: int) -> None:
    for key, v in [("use_again", 5), ("not_recommend", 3), ("use_frequently", 4),
                   ("liked_partner", liked), ("trusted_partner", 5)]:  # fmt: skip
        page.check(f"input[name={key}][value='{v}']")
    page.select_option("select[name=attention]", "agree")
    page.fill("input[name=age]", "35")
    page.click("#submit-survey")


def test_two_people_pair_exchange_an_offer_reach_a_deal_and_fill_the_survey(
    tmp_path: Path, web_page: Any, second_page: Any, screenshot: Any
) -> None:
    from playwright.sync_api import expect

    app, study, _ = create_han_app(
        tmp_path / "han.sqlite", [], pairs=True, wait=120.0, password="secret-pw"
    )
    with ServerThread(app) as server:
        a_inv, b_inv = study.invite(2)
        a, b = web_page, second_page
        _open(a, server.url, a_inv.path)
        expect(a.locator("#waiting")).to_be_visible()
        expect(a.locator("#game")).to_be_hidden()
        screenshot(a, "han-waiting")
        _open(b, server.url, b_inv.path)
        # b's arrival forms the pair: both pages show the game, with a partner
        for page in (a, b):
            expect(page.locator("#game")).to_be_visible()
            expect(page.locator("#partner-label")).to_have_text("Partner")
            expect(page.locator("#col-partner")).to_have_text("Partner")
        expect(a.locator("#waiting")).to_be_hidden()
        # each sees their own values: a sits on the person's side, b on the agent's
        expect(a.locator("#board")).to_contain_text("Oil (4)")
        expect(b.locator("#board")).to_contain_text("Oil (1)")
        # b builds a full offer: all the Oil to b (click), everything else to a (drag)
        for _ in range(5):
            b.locator("#cell-0-1 .item").first.click()
        for i in (1, 2, 3):
            for _ in range(5):
                b.locator(f"#cell-{i}-1 .item").first.drag_to(b.locator(f"#cell-{i}-0"))
        expect(b.locator("#cell-0-2 .count")).to_have_text(" 5")
        expect(b.locator("#cell-3-0 .count")).to_have_text(" 5")
        b.click("#send-offer")
        expect(b.locator("#points")).to_have_text("5")
        # a sees it turned round: the Oil with the partner, the rest with a
        expect(a.locator("#cell-0-0 .count")).to_have_text(" 5")
        expect(a.locator("#cell-1-2 .count")).to_have_text(" 5")
        expect(a.locator("#points")).to_have_text("30")  # 3*5 + 1*5 + 2*5
        expect(a.locator("#history")).to_contain_text(
            "Partner: offer: you get 5 Iron, 5 Foodstuffs, 5 Lumber; the other side gets 5 Oil"
        )
        a.click("button[data-preset='1']")
        a.click("#emo-happy")
        expect(b.locator("#face")).to_have_attribute("data-face", "happy")
        expect(b.locator("#history")).to_contain_text(
            "Partner: It is important that we both are happy with an agreement."
        )
        screenshot(b, "han-partner-happy")
        a.click("#accept")
        expect(b.locator("#history")).to_contain_text("Partner: formal accept")
        b.click("#accept")
        expect(a.locator("#result")).to_have_text("You reached a deal: you scored 30 points.")
        expect(b.locator("#result")).to_have_text("You reached a deal: you scored 5 points.")
        expect(a.locator("#survey-about")).to_be_visible()
        screenshot(a, "han-pair-survey")
        _survey(a, 6)
        _survey(b, 3)
        for page in (a, b):
            expect(page).to_have_url(f"{server.url}/study/done.html")
        admin = httpx.Client(base_url=server.url, timeout=10)
        admin.post("/api/login", json={"username": "experimenter", "password": "secret-pw"})
        rows = {
            r["id"]: r for r in csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text))
        }
        ra, rb = rows[a_inv.pid], rows[b_inv.pid]
        assert (ra["pairId"], rb["pairId"], ra["role"], rb["role"]) == (
            "pair-001", "pair-001", "person", "agent",
        )  # fmt: skip
        assert (ra["partner"], rb["partner"]) == (b_inv.pid, a_inv.pid)
        assert (ra["userPoints"], rb["userPoints"], ra["surveyAbout"]) == ("30", "5", "person")
        assert (ra["liked_partner"], rb["liked_partner"]) == ("6", "3")
        assert (ra["numUserGENERIC_POS"], rb["numVHGENERIC_POS"], ra["endedBy"]) == (
            "1", "1", "deal",
        )  # fmt: skip


def test_a_pair_runs_out_the_clock_to_their_batnas_and_a_third_person_is_released(
    tmp_path: Path, web_page: Any, second_page: Any, web_browser: Any
) -> None:
    from playwright.sync_api import expect

    app, study, _ = create_han_app(
        tmp_path / "han.sqlite", [], pairs=True, wait=15.0, time_limit=6.0, warning_time=3.0,
        game="example-2",
    )  # fmt: skip
    third = web_browser.new_context()
    try:
        with ServerThread(app) as server:
            a_inv, b_inv, c_inv = study.invite(3)
            _open(web_page, server.url, a_inv.path)
            _open(second_page, server.url, b_inv.path)
            c = third.new_page()
            _open(c, server.url, c_inv.path)
            expect(c.locator("#waiting")).to_be_visible()
            for page in (web_page, second_page):
                expect(page.locator("#warning")).to_be_visible(timeout=30_000)
            for page in (web_page, second_page):
                expect(page.locator("#result")).to_have_text(
                    "Time ran out: you scored 20 points.", timeout=10_000
                )
            # nobody came for c: released after 15 s, on to the end of the study
            expect(c.locator("#released-text")).to_contain_text(
                "No other participant arrived", timeout=25_000
            )
            c.click("#continue")
            expect(c).to_have_url(f"{server.url}/study/done.html")
            kinds = [e.kind for e in study.events.read(party=c_inv.pid)]
            assert "released" in kinds and "paired" not in kinds
            ends = [e.data["row"]["endedBy"] for e in study.events.read(kinds=("game_row",))]
            assert ends == []  # no survey answered yet; the pair's game ended on time
            paired = [e for e in study.events.read(kinds=("paired",))]
            assert sorted(e.party for e in paired) == sorted([a_inv.pid, b_inv.pid])
    finally:
        third.close()
