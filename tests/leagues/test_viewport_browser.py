"""Every league's participant page works at 1280x720 without scrolling to its main
buttons (the study's own pages and a crowd participant's way:
tests/web/test_web_crowd_browser.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

VIEWPORT = {"width": 1280, "height": 720}


def _within(page: Any, ids: list[str]) -> None:
    for i in ids:
        page.wait_for_selector(f"#{i}", state="visible")
        box = page.locator(f"#{i}").bounding_box()
        assert box is not None, i
        assert box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"], (i, box)
        assert box["x"] + box["width"] <= VIEWPORT["width"], (i, box)
    assert page.evaluate("() => window.scrollY") == 0


def test_han_page_fits_1280x720(tmp_path: Path, web_browser: Any) -> None:
    from accord.leagues.han.server import create_han_app

    app, study, _ = create_han_app(tmp_path / "h.sqlite", ["fair"], password="pw-view")
    page = open_page(web_browser, viewport=VIEWPORT)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(page, srv.url + inv.path, "/han.html")
        _within(page, ["send-offer", "accept", "quit", "timer"])
        page.context.close()


def test_trails_page_fits_1280x720(tmp_path: Path, web_browser: Any) -> None:
    from accord.leagues.trails.server import create_trails_app, trails_design

    app, study = create_trails_app(tmp_path / "t", trails_design(["purb"]), password="pw-view")
    page = open_page(web_browser, viewport=VIEWPORT)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(page, srv.url + inv.path, "/trails/play.html")
        _within(page, ["send-proposal", "pass", "board"])
        page.context.close()


def test_genius_page_fits_1280x720(tmp_path: Path, web_browser: Any) -> None:
    from accord.leagues.genius.server import condition, create_genius_app, genius_design

    design = genius_design([condition("kbagent", turn_seconds=600)])
    app, study = create_genius_app(tmp_path / "g", design, password="pw-view")
    page = open_page(web_browser, viewport=VIEWPORT)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(page, srv.url + inv.path, "/genius/negotiate.html")
        page.wait_for_selector("#board:not([hidden])")
        _within(page, ["send-offer", "opt-out", "clock"])
        page.context.close()
