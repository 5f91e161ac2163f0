"""Colored Trails in a real Chromium: a person proposes, accepts, breaks a promise, moves
to the goal and sees the final score; the study's CSV records it all."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from playwright.sync_api import expect

from accord.leagues.trails.generator import generate
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
PW = "experimenter-pw"


def _join(browser: Any, url: str, path: str, contexts: list[Any]) -> Any:
    page = open_page(browser, contexts, viewport={"width": 1400, "height": 1000})
    return enter_study(page, url + path, "/trails/play.html")


def _spare(setup: Any, k: int) -> tuple[list[int], int]:
    b = setup.board
    path = b.shortest_path(setup.starts[k], setup.goals[k], setup.chips[k])
    assert path is not None
    spare = np.array(setup.chips[k]) - b.path_cost(setup.starts[k], path)
    color = int(np.flatnonzero(spare > 0)[0])
    return path, color


def test_person_proposes_accepts_breaks_promise_and_reaches_goal(
    tmp_path: Path, web_browser: Any, screenshot: Any
) -> None:
    design = trails_design(["person"], dependency="independent")
    app, study = create_trails_app(tmp_path / "study", design, password=PW)
    setup = generate("independent", 0)  # the first game's board (study seed 0)
    path_a, spare_a = _spare(setup, 0)
    _, spare_b = _spare(setup, 1)
    contexts: list[Any] = []
    with ServerThread(app) as server:
        first, second = study.invite(2)
        alice = _join(web_browser, server.url, first.path, contexts)
        expect(alice.locator("#waiting")).to_be_visible()
        bob = _join(web_browser, server.url, second.path, contexts)

        # turn 1: Alice promises one spare chip; Bob accepts; Alice sends nothing
        expect(alice.locator("#propose-box")).to_be_visible()
        expect(alice.locator("#phase")).to_have_text("propose")
        alice.fill(f"input[name=give-{spare_a}]", "1")
        alice.click("#send-proposal")
        expect(bob.locator("#incoming")).to_be_visible()
        bob.click("#accept")
        expect(alice.locator("#transfer-box")).to_be_visible()
        letter = "ABCDEFGHIJ"[spare_a]
        expect(alice.locator("#promised-mine")).to_have_text(f"1 {letter}")
        alice.fill(f"input[name=send-{spare_a}]", "0")
        screenshot(alice, "transfer")
        alice.click("#send-transfer")
        expect(bob.locator("#transfer-box")).to_be_visible()
        bob.click("#send-transfer")
        alice.click("#end-move")
        expect(bob.locator("#end-move")).to_be_visible()
        bob.click("#end-move")

        # turn 2: Bob proposes a gift; Alice accepts, keeps hers (none promised), moves
        expect(bob.locator("#propose-box")).to_be_visible()
        bob.fill(f"input[name=give-{spare_b}]", "1")
        bob.click("#send-proposal")
        expect(alice.locator("#incoming")).to_be_visible()
        alice.click("#accept")
        expect(alice.locator("#transfer-box")).to_be_visible()
        alice.click("#send-transfer")
        expect(bob.locator("#transfer-box")).to_be_visible()
        bob.click("#send-transfer")
        for cell in path_a:
            target = alice.locator(f'#board .cell.can-move[data-cell="{cell}"]')
            target.click()
        expect(bob.locator("#end-move")).to_be_visible()
        bob.click("#end-move")

        expected = 100 + 5 * (sum(setup.chips[0]) + 1 - len(path_a))
        expect(alice.locator("#final-score")).to_have_text(str(expected))
        expect(bob.locator("#result")).to_contain_text("Game over (goal)")
        screenshot(alice, "final")

        admin = httpx.Client(base_url=server.url)
        admin.post("/api/login", json={"username": "experimenter", "password": PW})
        rows = list(csv.DictReader(io.StringIO(admin.get("/api/study/events.csv").text)))
        for c in contexts:
            c.close()
    ends = [json.loads(r["data"]) for r in rows if r["kind"] == "trails.end"]
    assert len(ends) == 2 and ends[0]["scores"][0] == expected
    first_turn = ends[0]["history"][0]
    assert sum(first_turn["promised"][0]) == 1 and sum(first_turn["sent"][0]) == 0
    assert sum(r["kind"] == "trails.action" for r in rows) >= 10
    assert [r["kind"] for r in rows].count("round_done") == 2


def test_person_against_purb_sees_proposals_and_the_end(tmp_path: Path, web_browser: Any) -> None:
    app, study = create_trails_app(tmp_path / "study", trails_design(["purb"]), password=PW)
    contexts: list[Any] = []
    with ServerThread(app) as server:
        (invite,) = study.invite(1)
        page = _join(web_browser, server.url, invite.path, contexts)
        expect(page.locator("#chips-other .chip").first).to_be_visible()  # full visibility
        saw_incoming = False
        # the page as it stands once its last act is answered (its body not aria-busy): the
        # person's turn, or the end; a click is decided on that, never on a page that may
        # still show the step it just left
        settled = page.locator("body:not([aria-busy]) #whose")
        for _ in range(60):  # the person never trades or moves: the game ends by dormancy
            expect(settled).to_have_text(re.compile("^(your turn|game over)$"))
            if page.locator("#result").is_visible():
                break
            if page.locator("#propose-box").is_visible():
                page.click("#pass")
            elif page.locator("#incoming").is_visible():
                saw_incoming = True
                expect(page.locator("#incoming-text")).to_contain_text("They would send you")
                page.click("#reject")
            elif page.locator("#transfer-box").is_visible():
                page.click("#send-transfer")
            else:
                page.click("#end-move")
        expect(page.locator("#result")).to_contain_text("Game over")
        assert saw_incoming
        for c in contexts:
            c.close()
