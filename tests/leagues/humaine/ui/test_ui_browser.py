"""A person negotiates in real Chromium: chat UI + assistant UI against the real services."""

from __future__ import annotations

import httpx
import pytest
from hui_kit import SELLER_COSTS, join_page

from accord.web.testing import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BASICS = {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}


def test_a_person_types_offers_accepts_allocates_and_sees_the_results(browser, platform, tmp_path):
    from playwright.sync_api import expect

    ui = platform["urls"]["ui"]
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    ctx.set_default_timeout(30_000)
    admin = ctx.new_page()  # the operator's page: no admin controls on the buyer's chat
    join_page(admin, ui, "admin")
    admin.fill("input[name=warmUp]", "1")
    admin.fill("input[name=round]", "120")
    admin.fill("input[name=post]", "120")
    admin.fill("input[name=humanBudget]", "50")
    admin.click("#start")
    chat = ctx.new_page()
    join_page(chat, ui)  # the person's link opens the chat
    expect(chat.locator("#phase")).to_have_text("negotiation")
    expect(chat.locator("#start")).to_have_count(0)
    expect(chat.locator("#end")).to_have_count(0)

    # the person asks Celia for a cake's basics; Celia (a real agent service) offers
    chat.fill(
        "#say-text", "Celia, I'd like 2 eggs, 2 cups of flour, 1 cup of milk and 1 cup of sugar"
    )
    chat.click("#send")
    expect(chat.locator(".msg-line.from-human").first).to_contain_text("Celia, I'd like 2 eggs")
    expect(chat.locator(".msg-line.from-celia")).to_contain_text("for 6.00 USD")

    # R0: the page tells the person before a message would be refused, and sends nothing
    expect(chat.locator("#r0-note")).to_have_text("Rule R0: wait 5 s between two of your messages.")
    chat.fill("#say-text", "Watson, can you beat that?")
    chat.click("#send")
    expect(chat.locator("#say-msg")).to_contain_text("rule R0 allows one message every 5")
    expect(chat.locator(".msg-line.blocked")).to_have_count(0)
    expect(chat.locator("#say-text")).to_have_value("Watson, can you beat that?")

    # the assistant shows the utility, the budget and Celia's offer in the offers table
    assistant = ctx.new_page()
    assistant.goto(f"{ui}/assistant.html")
    expect(assistant.locator("#utility [data-product=cake] .unit-value")).to_have_text("$23.81")
    expect(assistant.locator("#money")).to_have_text("$50.00")
    row = assistant.locator("#offers tr[data-seller=Celia]")
    expect(row).to_contain_text("$6.00")

    # "Can I make?" with nothing bought: one cake needs everything
    assistant.fill("#cakes", "1")
    assistant.click("#check")
    expect(assistant.locator("#ingredients tr[data-good=egg] .need")).to_have_text("2")
    expect(assistant.locator("#ingredients tr[data-good=egg] .need")).to_have_class(
        "num need deficit"
    )
    expect(assistant.locator("#potential")).to_have_text("$23.81")
    assistant.screenshot(path=tmp_path / "assistant_active.png", full_page=True)

    # after the 5 s of R0 (skipped on the orchestrator's clock) the person accepts
    # Celia's offer from the offers table; Celia accepts too, and the assistant asks the
    # person to confirm the deal
    platform["clock"].skip(5.0)
    row.locator("button").click()
    pending = assistant.locator("#pending .pending-deal[data-seller=Celia]")
    expect(pending).to_contain_text("Celia sells you 2 egg, 2 flour, 1 milk, 1 sugar for $6.00")
    expect(pending).to_contain_text("unless you confirm")
    expect(assistant.locator("#reserved")).to_have_text("$6.00 awaiting your confirmation")
    expect(assistant.locator("#money")).to_have_text("$50.00")
    expect(chat.locator("#confirm .pending-deal[data-seller=Celia]")).to_contain_text(
        "Celia sells you 2 egg, 2 flour, 1 milk, 1 sugar for $6.00"
    )
    assistant.screenshot(path=tmp_path / "assistant_pending.png", full_page=True)
    pending.locator("button.confirm").click()
    expect(assistant.locator("#pending")).to_be_hidden()
    expect(assistant.locator("#offer-msg")).to_have_text("Confirmed: you bought from Celia.")
    expect(assistant.locator("#deals")).to_contain_text(
        "Celia: 2 egg, 2 flour, 1 milk, 1 sugar for $6.00"
    )
    expect(assistant.locator("#money")).to_have_text("$44.00")
    expect(chat.locator("#purchased tr[data-good=egg] td.num")).to_have_text("2")

    # with the goods bought the check passes; two cakes would still lack goods
    assistant.fill("#cakes", "2")
    assistant.click("#check")
    expect(assistant.locator("#ingredients tr[data-good=egg] .need")).to_have_text("2")
    expect(assistant.locator("#check-msg")).to_contain_text(
        "Missing: 2 egg, 2 flour, 1 sugar, 1 milk"
    )
    assistant.fill("#cakes", "1")
    assistant.click("#check")
    expect(assistant.locator("#ingredients tr[data-good=egg] .need")).to_have_class(
        "num need enough"
    )
    expect(assistant.locator("#save")).to_be_hidden()

    # the admin ends the negotiation: the post-round phase shows Save
    admin.click("#end")
    expect(assistant.locator("#phase")).to_contain_text("post-round")
    expect(assistant.locator("#save")).to_be_visible()
    assistant.click("#save")
    expect(assistant.locator("#check-msg")).to_contain_text("Allocation saved (value $23.81)")
    expect(assistant.locator("#saved")).to_contain_text("1 cake(s)")
    assistant.screenshot(path=tmp_path / "assistant.png", full_page=True)

    # the admin ends the round: the chat UI shows the results, checked by hand
    expect(admin.locator("#phase")).to_contain_text("post-round")
    admin.click("#end")
    expect(chat.locator("#phase")).to_have_text("round over")
    cost = sum(n * SELLER_COSTS["Celia"][g] for g, n in BASICS.items())  # 4.17
    celia = f"${6.0 - cost:.2f}"
    expect(chat.locator("#results tr[data-party=Human]")).to_contain_text("$23.81")
    expect(chat.locator("#results tr[data-party=Human]")).to_contain_text("spent $6.00")
    expect(chat.locator("#results tr[data-party=Celia]")).to_contain_text(celia)
    expect(chat.locator("#results tr[data-party=Watson]")).to_contain_text("$0.00")
    chat.click("#toggle-ingredients")
    chat.screenshot(path=tmp_path / "chat.png", full_page=True)
    ctx.close()


@pytest.mark.parametrize("platform", ["fast"], indirect=True)
def test_a_person_declines_a_deal_and_keeps_the_money(browser, platform, tmp_path):
    """Watson accepts, the person clicks Decline: nothing is bought, the budget is whole
    (in the UI and at the orchestrator) and the deal is listed as declined."""
    from playwright.sync_api import expect

    ui, orch = platform["urls"]["ui"], platform["urls"]["orch"]
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    ctx.set_default_timeout(30_000)
    admin = ctx.new_page()
    join_page(admin, ui, "admin")
    admin.fill("input[name=warmUp]", "0")
    admin.click("#start")
    chat = ctx.new_page()
    join_page(chat, ui)
    expect(chat.locator("#phase")).to_have_text("negotiation")
    chat.fill("#say-text", "Watson, I'd like 2 eggs, 2 cups of flour, 1 milk and 1 sugar")
    chat.click("#send")
    expect(chat.locator(".msg-line.from-watson")).to_contain_text("for 7.50 USD")
    assistant = ctx.new_page()
    assistant.goto(f"{ui}/assistant.html")
    platform["clock"].skip(0.3)  # R0 here is 0.3 s (the assistant page leaves it to the server)
    assistant.locator("#offers tr[data-seller=Watson] button").click()
    pending = assistant.locator("#pending .pending-deal[data-seller=Watson]")
    expect(pending).to_contain_text("Watson sells you 2 egg, 2 flour, 1 milk, 1 sugar for $7.50")
    pending.locator("button.decline").click()
    expect(assistant.locator("#offer-msg")).to_have_text(
        "Declined: nothing bought from Watson; your money is back."
    )
    expect(assistant.locator("#pending")).to_be_hidden()
    expect(assistant.locator("#deals .deal.declined")).to_contain_text("declined: you declined")
    expect(assistant.locator("#money")).to_have_text("$50.00")
    expect(assistant.locator("#reserved")).to_have_text("")
    expect(assistant.locator("#ingredients tr[data-good=egg] .have")).to_have_text("0")
    expect(chat.locator("#purchased tr[data-good=egg] td.num")).to_have_text("0")
    assistant.screenshot(path=tmp_path / "assistant_declined.png", full_page=True)
    rid = assistant.evaluate("fetch('api/state').then((r) => r.json()).then((s) => s.roundId)")
    eo = wait_until(
        lambda: (e := httpx.get(f"{orch}/rounds/{rid}").json())["remainingBudget"] == 50.0 and e,
        "the orchestrator's refund",
    )
    assert eo["purchases"] == {} and [d["cancelled"] for d in eo["deals"]] == [True]
    assert eo["decisions"][-1]["rule"] == "confirm"  # the Accept was blocked
    ctx.close()
