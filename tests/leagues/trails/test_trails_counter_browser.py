"""A person in the browser under the "counter" turn protocol: a counter-proposal slot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from accord.leagues.trails.board import Settings
from accord.leagues.trails.generator import BoardSpec
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_person_gets_the_next_slot_after_rejecting_under_counter(
    tmp_path: Path, web_browser: Any
) -> None:
    design = trails_design(
        ["reliable"],
        board=BoardSpec(rows=4, cols=6, n_colors=3, chips=7),
        rules=Settings(protocol="counter", rounds=3),
    )
    app, study = create_trails_app(tmp_path / "study", design, password="experimenter-pw")
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        page = open_page(web_browser, viewport={"width": 1400, "height": 1000})
        enter_study(page, server.url + inv.path, "/trails/play.html")
        expect(page.locator("#protocol")).to_contain_text("up to 3 proposals a turn")
        expect(page.locator("#board .cell")).to_have_count(24)
        expect(page.locator("#propose-box")).to_be_visible()
        with page.expect_response("**/api/trails/act"):
            page.click("#pass")
        # slot 2 is the agent's: it proposes (the person rejects) or passes; slot 3 is the
        # person's again, in the same turn
        incoming = page.locator("#incoming")
        propose = page.locator("#propose-box")
        page.wait_for_function(
            "!document.getElementById('incoming').hidden"
            " || !document.getElementById('propose-box').hidden"
        )
        if incoming.is_visible():
            expect(page.locator("#phase")).to_have_text("respond")
            page.click("#reject")
        expect(propose).to_be_visible()
        expect(page.locator("#turn")).to_have_text("1")
        expect(page.locator("#phase")).to_have_text("propose")
        page.context.close()
