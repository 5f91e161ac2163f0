"""Review finding in Chromium: a study with ``visibility="own"`` shows the person their own
chips and "hidden" for the other player's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread, enter_study

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_hidden_chips_read_hidden_on_the_page(tmp_path: Path, web_page: Any) -> None:
    design = trails_design(["purb"], visibility="own")
    app_, study = create_trails_app(tmp_path / "s", design, password="pw-123456")
    with ServerThread(app_) as srv:
        (inv,) = study.invite(1)
        page = enter_study(web_page, srv.url + inv.path, "/trails/play.html")
        expect(page.locator("#chips-other")).to_have_text("hidden")
        expect(page.locator("#chips-mine")).not_to_have_text("hidden")
        expect(page.locator("#chips-mine")).not_to_be_empty()
