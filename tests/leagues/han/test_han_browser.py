"""The person's page in real Chromium: a deal with the survey, and a game run out to the BATNA."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import httpx
import pytest

from accord.leagues.han.server import create_han_app
from accord.web.testing import ServerThread, enter_study

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def _open(web_page, server_url: str, path: str) -> None:
    enter_study(web_page, server_url + path, "/han.html")


def test_a_person_bargains_reaches_a_deal_and_fills_the_survey(
    tmp_path: Path, web_page, screenshot
) -> None:
    from playwright.sync_api import expect

    app, study, _ = create_han_app(tmp_path / "han.sqlite", ["fair"], password="secret-pw")
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        page = web_page
        _open(page, server.url, inv.path)
        # the fair agent greets, smiles and offers [[2,0,3],[2,0,3],[3,0,2],[3,0,2]]
        expect(page.locator("#history")).to_contain_text("We should try to split things evenly.")
        expect(page.locator("#history")).to_contain_text(
            "offer: you get 3 Oil, 3 Iron, 2 Foodstuffs, 2 Lumber; the other side gets 2 Oil",
            timeout=10_000,
        )
        expect(page.locator("#cell-0-2 .count")).to_have_text(" 3")
        expect(page.locator("#points")).to_have_text("27")  # mine: 3*4 + 3*3 + 2*1 + 2*2
        # move one Oil of mine to undecided by a click, then drag it to the agent
        page.locator("#cell-0-2 .item").first.click()
        expect(page.locator("#cell-0-1 .count")).to_have_text(" 1")
        page.locator("#cell-0-1 .item").first.drag_to(page.locator("#cell-0-0"))
        expect(page.locator("#cell-0-0 .count")).to_have_text(" 3")
        page.click("button[data-preset='3']")
        expect(page.locator("#history")).to_contain_text(
            "You: We should try to split things evenly."
        )
        page.click("#emo-surprised")
        expect(page.locator("#history")).to_contain_text("You: [surprised]")
        expect(page.locator("#face")).to_have_attribute("data-face", "neutral", timeout=30_000)
        page.click("#send-offer")
        # the agent likes it: its face turns happy and it formally accepts
        expect(page.locator("#face")).to_have_attribute("data-face", "happy", timeout=30_000)
        expect(page.locator("#face")).to_have_text("😀")
        screenshot(page, "han-happy-agent")
        expect(page.locator("#history")).to_contain_text("Agent: formal accept", timeout=30_000)
        expect(page.locator("#points")).to_have_text("23")
        page.click("#accept")
        expect(page.locator("#result")).to_have_text("You reached a deal: you scored 23 points.")
        for key, v in [
            ("use_again", 6),
            ("not_recommend", 2),
            ("use_frequently", 5),
            ("liked_partner", 7),
            ("trusted_partner", 6),
        ]:
            page.check(f"input[name={key}][value='{v}']")
        page.select_option("select[name=attention]", "agree")
        page.fill("input[name=age]", "33")
        screenshot(page, "han-survey")
        page.click("#submit-survey")
        expect(page).to_have_url(f"{server.url}/study/done.html")
        admin = httpx.Client(base_url=server.url, timeout=10)
        admin.post("/api/login", json={"username": "experimenter", "password": "secret-pw"})
        (row,) = csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text))
        assert (row["userPoints"], row["vhPoints"], row["timedout"], row["liked_partner"]) == (
            "23",
            "28",
            "0",
            "7",
        )
        assert row["numUserSurprised"] == "1" and row["numUserGENERIC_POS"] == "1"


def test_the_clock_runs_out_to_the_batna(tmp_path: Path, web_page, screenshot) -> None:
    from playwright.sync_api import expect

    app, study, _ = create_han_app(
        tmp_path / "han.sqlite", ["tough"], game="example-2", time_limit=8.0, warning_time=5.0
    )
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        urls: list[str] = []
        web_page.on("request", lambda r: urls.append(r.url))
        _open(web_page, server.url, inv.path)
        expect(web_page.locator("#warning")).to_be_visible(timeout=30_000)
        screenshot(web_page, "han-warning")
        expect(web_page.locator("#result")).to_have_text(
            "Time ran out: you scored 20 points.", timeout=15_000
        )
        # the page listens to the live channel; it does not poll
        assert any(u.endswith("/api/han/live") for u in urls)
        assert not [u for u in urls if u.endswith("/api/han/state")]


def _survey(page) -> None:
    for key in ("use_again", "not_recommend", "use_frequently", "liked_partner", "trusted_partner"):
        page.check(f"input[name={key}][value='4']")
    page.select_option("select[name=attention]", "agree")
    page.fill("input[name=age]", "40")
    page.click("#submit-survey")


def test_a_sequence_of_two_games_with_a_survey_after_each(tmp_path: Path, web_page) -> None:
    from playwright.sync_api import expect

    app, study, _ = create_han_app(
        tmp_path / "han.sqlite", ["fair"], game=["example-1", "example-2"], time_limit=4.0,
        warning_time=2.0,
    )  # fmt: skip
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        _open(web_page, server.url, inv.path)
        expect(web_page.locator("#game-no")).to_have_text("Game 1 of 2.")
        expect(web_page.locator("#result")).to_contain_text("Time ran out", timeout=30_000)
        _survey(web_page)
        expect(web_page.locator("#game-no")).to_have_text("Game 2 of 2.")
        expect(web_page.locator("#result")).to_contain_text("Time ran out", timeout=30_000)
        _survey(web_page)
        expect(web_page).to_have_url(f"{server.url}/study/done.html")
        assert [r["currentGame"] for r in _rows(study)] == [0, 1]


def _rows(study) -> list[dict]:
    return [e.data["row"] for e in study.events.read(kinds=("game_row",))]
