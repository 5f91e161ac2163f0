"""The person's experience in real Chromium (issue 9, item 9): no admin controls on the
buyer's chat, R0 told before a refusal, a deal confirmed in the chat itself with the
time to do it shown, and a long transcript that keeps its first lines readable."""

from __future__ import annotations

import httpx
import pytest
from hui_kit import join, join_page

from accord.web.testing import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.mark.parametrize("platform", ["fast"], indirect=True)
def test_the_person_confirms_a_deal_in_the_chat_and_reads_the_whole_transcript(browser, platform):
    from playwright.sync_api import expect

    ui = platform["urls"]["ui"]
    with httpx.Client(timeout=10) as admin:
        join(admin, ui, ("admin",))
        r = admin.post(ui + "/api/admin/start", json={"warmUp": 0, "round": 120, "post": 30})
        assert r.status_code == 200, r.text
        rid = r.json()["roundId"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(30_000)
    chat = ctx.new_page()
    chat.clock.install()  # the page's own R0 check runs on it (time flows; we skip gaps)
    chat.goto(f"{ui}/chat.html")  # without the person's link: told to use it
    expect(chat.locator("#say-msg")).to_contain_text("Open the link you were given")
    join_page(chat, ui)
    expect(chat.locator("#phase")).to_have_text("negotiation")
    expect(chat.locator("#admin, #start, #end, #start-form")).to_have_count(0)
    expect(chat.locator("#r0-note")).to_have_text(
        "Rule R0: wait 0.3 s between two of your messages."
    )
    chat.fill("#say-text", "Celia, I'd like 2 eggs, 2 cups of flour, 1 milk and 1 sugar")
    chat.click("#send")
    expect(chat.locator(".msg-line.from-celia")).to_contain_text("for 6.00 USD")
    platform["clock"].skip(0.3)  # R0's gap, for the orchestrator and the page alike
    chat.clock.fast_forward(300)
    chat.fill("#say-text", "Celia, I accept")
    chat.click("#send")
    deal = chat.locator("#confirm .pending-deal[data-seller=Celia]")
    expect(deal).to_contain_text("Celia sells you 2 egg, 2 flour, 1 milk, 1 sugar for $6.00")
    expect(deal).to_contain_text("(you have 60 s for each deal)")
    left = deal.locator(".left").inner_text()
    assert "Declined for you in 0:5" in left or "Declined for you in 1:00" in left, left
    deal.locator("button.confirm").click()
    expect(chat.locator("#say-msg")).to_have_text("Confirmed: you bought from Celia.")
    expect(chat.locator("#confirm")).to_be_hidden()
    expect(chat.locator("#purchased tr[data-good=egg] td.num")).to_have_text("2")
    orch = platform["urls"]["orch"]
    wait_until(
        lambda: httpx.get(f"{orch}/rounds/{rid}").json()["remainingBudget"] == 44.0,
        "the orchestrator's booking of the deal",
    )

    # forty more lines: the first ones stay readable, and reading them is not interrupted
    for i in range(40):
        line = {"roundId": rid, "speaker": "Watson", "addressee": "Human",
                "text": f"line {i}: a long sentence about eggs and flour " * 2,
                "timestamp": f"t{i}"}  # fmt: skip
        httpx.post(ui + "/receiveMessage", json=line)
    expect(chat.locator(".msg-line")).to_have_count(44)
    box = chat.locator("#transcript")
    box.evaluate("(b) => { b.scrollTop = 0; }")
    first = chat.locator(".msg-line").first
    expect(first).to_contain_text("Celia, I'd like 2 eggs")
    fits = first.evaluate(
        "(m) => { const b = m.parentElement.getBoundingClientRect(), r = m.getBoundingClientRect();"
        " return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && m.scrollHeight <= m.clientHeight + 1; }"
    )
    assert fits, "the first line is cut or hidden"
    httpx.post(ui + "/receiveMessage", json={"roundId": rid, "speaker": "Celia",
                                              "addressee": "Human", "text": "one more"})  # fmt: skip
    expect(chat.locator(".msg-line")).to_have_count(45)
    assert box.evaluate("(b) => b.scrollTop") == 0  # the person is still reading the top
    ctx.close()


def test_an_unauthenticated_seller_is_shown_as_such(browser, tmp_path):
    from hui_kit import KEYS
    from playwright.sync_api import expect

    from accord.leagues.humaine.testing import ServerThread
    from accord.leagues.humaine.ui_server import create_ui_app

    app = create_ui_app(orchestrator_url="http://127.0.0.1:9", db_path=tmp_path / "ui.db", **KEYS)
    with ServerThread(app) as srv:
        meta = {"roundId": "r1", "durations": {"warmUp": 0, "round": 60, "post": 10},
                "humanBudget": {"value": 50}, "unauthenticated": ["Watson"],
                "token": "the-buyers-secret-of-r1"}  # fmt: skip
        httpx.post(srv.url + "/sendRoundMetadata", json=meta)
        httpx.post(srv.url + "/startRound", json={"roundId": "r1", "roundDuration": 60})
        said = {"roundId": "r1", "speaker": "Watson", "addressee": "Human", "text": "hi",
                "authenticated": False}  # fmt: skip
        httpx.post(srv.url + "/receiveMessage", json=said)
        ctx = browser.new_context()
        page = ctx.new_page()
        join_page(page, srv.url)
        expect(page.locator("#auth-note")).to_have_text(
            "Watson is unauthenticated: admitted by the operator without a secret."
        )
        expect(page.locator(".msg-line.from-watson .unauth")).to_have_text(" (unauthenticated)")
        state = page.evaluate("fetch('api/state').then((r) => r.json())")
        assert "token" not in str(state) and "the-buyers-secret" not in str(state)
        ctx.close()
