"""A hostile seller whose every text and field is a script payload, in real Chromium:
on the buyer's chat, the assistant and the admin page no script runs (no
``window.__pwned``, no dialog) and the seller's words show as it typed them."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from hui_kit import LITERAL, PAYLOADS, hostile_seller, join, join_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(300),
]  # a hang guard (a loaded machine is slow, not hung)


@pytest.fixture
def celia_app() -> Any:
    made: list[Any] = []

    def make(orch: str) -> Any:
        made.append(hostile_seller("Celia", orch))
        return made[-1]

    make.made = made  # type: ignore[attr-defined]
    return make


def shown(text: str) -> str:
    """What the pages show of a seller's text: SSML tags dropped (round.js plainText)."""
    out = re.sub(r"<[^<>]{0,400}>", " ", text)
    return re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s+", " ", out)).strip()


def watch(page: Any, dialogs: list[str]) -> None:
    """Keep every dialog a script opens (and dismiss it)."""
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))


@pytest.mark.parametrize("platform", ["fast"], indirect=True)
def test_a_hostile_sellers_payloads_show_as_text_and_never_run(
    browser: Any, platform: dict[str, Any], celia_app: Any
) -> None:
    from playwright.sync_api import expect

    ui = platform["urls"]["ui"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        join(c, roles=("admin",))
        c.post("/api/admin/start", json={"warmUp": 0, "round": 60, "post": 5}).raise_for_status()
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.set_default_timeout(30_000)
    dialogs: list[str] = []
    try:
        admin = ctx.new_page()
        watch(admin, dialogs)
        join_page(admin, ui, "admin")
        chat = ctx.new_page()
        watch(chat, dialogs)
        join_page(chat, ui)
        expect(chat.locator("#phase")).to_have_text("negotiation")
        chat.fill("#say-text", "Celia, two eggs please")
        chat.click("#send")
        line = chat.locator(".msg-line.from-celia")
        expect(line).to_have_count(1)
        assert [code for code, _ in celia_app.made[0].state.answers] == [200]
        expect(line.locator(".text")).to_have_text(shown(" | ".join(PAYLOADS)))
        assistant = ctx.new_page()
        watch(assistant, dialogs)
        assistant.goto(f"{ui}/assistant.html")
        expect(assistant.locator("#phase")).to_contain_text("negotiation")
        expect(admin.locator("#phase")).to_contain_text("negotiation")
        text = chat.locator("body").inner_text()
        assert all(literal in text for literal in LITERAL), text
        for page in (chat, assistant, admin):
            assert page.evaluate("window.__pwned") is None, page.url
            assert not page.locator("body img, body script:not([src]), body svg[onload]").count()
        assert dialogs == []
        # at 1280x720 the buyer's main controls are in view without scrolling
        chat.evaluate("window.scrollTo(0, 0)")
        for sel in ("#say-text", "#send"):
            box = chat.locator(sel).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, (sel, box)
    finally:
        ctx.close()
