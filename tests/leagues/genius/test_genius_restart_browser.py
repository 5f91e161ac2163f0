"""The GENIUS page over a server restart in Chromium: while the server is away the page
says it cannot reach it and keeps the board and the countdown; once the server is back
(on the same folder and port) the line goes away and the countdown goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.web.runner import BackgroundServer, free_port
from accord.web.testing import enter_study

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]
PW = "pw-genius-restart"


def _clock(page: Any) -> int:
    return int(page.inner_text("#clock"))


def test_page_recovers_after_a_server_restart(tmp_path: Path, web_page: Any) -> None:
    design = genius_design([condition("kbagent", turn_seconds=600)])
    folder, port = tmp_path / "study", free_port()
    app, study = create_genius_app(folder, design, password=PW, poll_seconds=0.2)
    server = BackgroundServer(app, port=port).start()
    (inv,) = study.invite(1)
    page = enter_study(web_page, server.url + inv.path, "/genius/negotiate.html")
    page.wait_for_selector("#board:not([hidden])")
    server.stop()
    expect(page.locator("#error")).to_contain_text("cannot be reached", timeout=30_000)
    expect(page.locator("#board")).to_be_visible()  # the board stays
    before = _clock(page)
    page.wait_for_timeout(1500)
    assert _clock(page) < before  # the countdown goes on meanwhile
    app2, _ = create_genius_app(folder, design, password=PW, poll_seconds=0.2)
    server = BackgroundServer(app2, port=port).start()
    try:
        expect(page.locator("#error")).to_have_text("", timeout=30_000)
        expect(page.locator("#board")).to_be_visible()
        first = _clock(page)
        page.wait_for_timeout(2500)
        assert 0 < _clock(page) < first
        assert page.inner_text("#status") == "running"
    finally:
        page.context.close()
        server.stop()
