"""A hostile seller on the immersive page (typed input, real Chromium): its text,
gestures and emotion are script payloads; none runs, and its words show as text."""

from __future__ import annotations

import re
import shutil
from typing import Any

import httpx
import pytest
from hui_kit import CHROMIUM_ARGS, LITERAL, PAYLOADS, PERSON_KEY, hostile_seller, join

from accord.web.testing import chromium_env

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(300),
]  # a hang guard (a loaded machine is slow, not hung)


@pytest.fixture
def celia_app() -> Any:
    return lambda orch: hostile_seller("Celia", orch)


def test_a_hostile_sellers_payloads_never_run_on_the_immersive_page(
    stage: dict[str, Any], playwright: Any
) -> None:
    from playwright.sync_api import expect

    ui = stage["urls"]["ui"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        join(c, roles=("admin",))
        c.post("/api/admin/start", json={"warmUp": 0, "round": 60, "post": 5}).raise_for_status()
    browser = playwright.chromium.launch(
        executable_path=shutil.which("chromium"),
        args=[*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
        env=chromium_env(),
    )
    dialogs: list[str] = []
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_default_timeout(30_000)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{ui}/join?key={PERSON_KEY}")
        expect(page.locator("#phase")).to_have_text("negotiation")
        said = page.request.post(f"{ui}/api/say", data={"text": "Celia, two eggs please?"})
        assert said.json()["reply"]["permitted"] is True
        shown = re.sub(r"\s+", " ", re.sub(r"<[^<>]*>", " ", " | ".join(PAYLOADS))).strip()
        expect(page.locator("#history li", has_text="javascript:")).to_contain_text(shown)
        celia = page.locator(".seat[data-name=Celia]")
        expect(celia.locator(".gesture-label")).to_contain_text("smile")  # payloads dropped
        text = page.locator("body").inner_text()
        assert all(literal in text for literal in LITERAL), text
        assert page.evaluate("window.__pwned") is None
        assert not page.locator("#history img, #history script, .seat svg[onload]").count()
        assert dialogs == []
        # at 1280x720 the talk button is in view without scrolling
        box = page.locator("#talk-btn").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    finally:
        browser.close()
