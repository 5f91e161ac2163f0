"""The chat page before the first round: it waits quietly, without failing requests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for hui_kit (no package here)

from hui_kit import join_page  # noqa: E402

pytestmark = pytest.mark.browser


def test_the_chat_page_polls_without_errors_before_a_round(browser, platform):
    from playwright.sync_api import expect

    ui = platform["urls"]["ui"]
    ctx = browser.new_context()
    ctx.set_default_timeout(30_000)
    page = ctx.new_page()
    failed: list[str] = []
    polls: list[int] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("response", lambda r: polls.append(r.status) if "/api/state" in r.url else None)
    join_page(page, ui)
    expect(page.locator("#phase")).to_have_text("waiting for a round")
    page.wait_for_timeout(1500)  # about three polls at 500 ms
    ctx.close()
    assert len(polls) >= 2 and set(polls) == {200}
    assert failed == []
