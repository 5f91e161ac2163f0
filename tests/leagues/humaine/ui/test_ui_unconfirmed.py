"""An unanswered confirmation books nothing, in Chromium: a seller accepts, the chat page
shows the deal with Confirm and Decline, nobody clicks; when the orchestrator's wait for
the buyer's answer runs out the deal is blocked (fail closed): the page stops asking and
says so in plain words, the money is whole, nothing was bought (issue 23, item 5)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hui_kit import join_page

from conftest import UNCONFIRMED_AFTER

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.mark.parametrize("platform", ["unconfirmed"], indirect=True)
def test_an_unanswered_confirmation_books_nothing(browser: Any, platform: dict[str, Any]):
    from playwright.sync_api import expect

    ui, orch = platform["urls"]["ui"], platform["urls"]["orch"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.set_default_timeout(30_000)
    admin = ctx.new_page()
    join_page(admin, ui, "admin")
    admin.fill("input[name=warmUp]", "0")
    admin.click("#start")
    chat = ctx.new_page()
    chat.clock.install()  # the page's own R0 check runs on it (time flows; we skip gaps)
    join_page(chat, ui)
    expect(chat.locator("#phase")).to_have_text("negotiation")
    chat.fill("#say-text", "Watson, I'd like 2 eggs, 2 cups of flour, 1 milk and 1 sugar")
    chat.click("#send")
    expect(chat.locator(".msg-line.from-watson")).to_contain_text("for 7.50 USD")
    platform["clock"].skip(0.3)  # R0 here is 0.3 s, for the orchestrator and the page
    chat.clock.fast_forward(300)
    chat.fill("#say-text", "Watson, I accept")
    chat.click("#send")
    pending = chat.locator("#confirm .pending-deal[data-seller=Watson]")
    expect(pending).to_contain_text("Watson sells you 2 egg, 2 flour, 1 milk, 1 sugar for $7.50")
    # nobody clicks: the orchestrator's wait runs out, the Accept is blocked
    notice = chat.locator(".msg-line.notice")
    expect(notice).to_have_text(
        "No deal with Watson: it was not confirmed in time, and your money is back.",
        timeout=(UNCONFIRMED_AFTER + 20) * 1000,
    )
    expect(pending).to_have_count(0)
    # Watson's Accept was never said to the buyer: only its offer is in the chat
    expect(chat.locator(".msg-line.from-watson")).to_have_count(1)
    rid = chat.evaluate("fetch('api/state').then((r) => r.json()).then((s) => s.roundId)")
    eo = httpx.get(f"{orch}/rounds/{rid}", trust_env=False).json()
    assert eo["remainingBudget"] == 50.0 and eo["purchases"] == {}
    watson = [d for d in eo["decisions"] if d["speaker"] == "Watson"]
    assert (watson[-1]["permitted"], watson[-1]["rule"]) == (False, "confirm")
    assert watson[-1]["rationale"].startswith("Deal not confirmed by the buyer")
    # blocked because the wait ran out (not before): the question timed out
    waits = [e for e in eo["deliveryErrors"] if e["route"] == "/confirmAccept"]
    assert [e["error"] for e in waits] == [f"no answer within {UNCONFIRMED_AFTER:g} s"]
    ctx.close()
