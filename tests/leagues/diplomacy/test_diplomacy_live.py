"""A person plays one power in the browser against six negotiating agents."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from fastapi.testclient import TestClient  # noqa: E402

from accord.leagues.diplomacy.deals import Deal, Dmz  # noqa: E402
from accord.leagues.diplomacy.live import LiveGame, live_app  # noqa: E402
from accord.leagues.diplomacy.negotiator import (  # noqa: E402
    AllianceNegotiator,
    Negotiator,
    RandomNegotiator,
    Round,
)
from accord.web.testing import ServerThread  # noqa: E402


class Courteous(Negotiator):
    """Accepts what it is offered; once a round offers France a DMZ in Sweden."""

    name = "courteous"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.asked: tuple[int, str] | None = None

    def negotiate(self, rnd: Round) -> None:
        for p in rnd.proposals():
            if rnd.power not in p.accepted:
                rnd.accept(p.id)
        if self.asked != rnd.when:
            self.asked = rnd.when
            y, s = rnd.when
            rnd.propose(Deal(rnd.power, (), (Dmz.of(y, s, [rnd.power, "FRANCE"], ["SWE"]),)))


def _game() -> LiveGame:
    agents: dict[str, Negotiator | None] = {
        "GERMANY": Courteous(1),
        "AUSTRIA": AllianceNegotiator(2),
        "ENGLAND": RandomNegotiator(3),
        "ITALY": AllianceNegotiator(4),
        "RUSSIA": RandomNegotiator(5),
        "TURKEY": AllianceNegotiator(6),
    }
    return LiveGame("FRANCE", agents, seed=1, round_seconds=600, tick_seconds=0.05, last_year=1902)


def test_api_needs_the_link_and_refuses_bad_requests() -> None:
    app, link = live_app(_game())
    client = TestClient(app)
    assert client.get("/api/state").status_code == 401
    assert client.get("/join/not-a-token", follow_redirects=False).status_code == 401
    assert client.get(link, follow_redirects=False).status_code == 303
    state = client.get("/api/state").json()
    assert state["power"] == "FRANCE" and state["phase"] == "S1901M"
    assert "A PAR - BUR" in state["allowed"]["A PAR"]
    bad = client.post("/api/orders", json={"orders": ["A PAR - MUN"]})
    assert bad.status_code in (400, 422) and "A PAR - MUN" in bad.text
    atl = client.post(
        "/api/propose", json={"dmzs": [[1901, "S", ["FRANCE", "GERMANY"], ["ATLANTIS"]]]}
    )
    assert atl.status_code >= 400 and "ATLANTIS" in atl.text
    # only the person's own proposals and deals are shown
    for p in state["proposals"]:
        assert "FRANCE" in Deal.from_json(p["deal"]).involved


@pytest.mark.browser
def test_person_orders_proposes_and_sees_the_deal_kept(web_page: Any, screenshot: Any) -> None:
    from playwright.sync_api import expect

    game = _game()
    app, link = live_app(game)
    with ServerThread(app) as server:
        page = web_page
        page.goto(server.url + link)
        expect(page.locator("body")).to_have_attribute("data-phase", "S1901M")
        expect(page.locator("#power")).to_have_text("FRANCE")
        # orders on the map: choose an order for Paris among those allowed
        page.select_option("#units select[data-unit='A PAR']", "A PAR - BUR")
        page.click("#submit-orders")
        expect(page.locator("#orders-sent")).to_contain_text("sent 1")
        # a proposal to an agent, through the notary
        page.select_option("#to", "GERMANY")
        page.select_option("#kind", "dmz")
        page.fill("#what", "RUH")
        page.click("#propose")
        expect(page.locator("#deals li", has_text="RUH")).to_have_count(1, timeout=30_000)
        # a proposal from an agent, accepted
        offer = page.locator("#proposals li", has_text="SWE")
        expect(offer).to_have_count(1, timeout=30_000)
        offer.locator("button.accept").click()
        expect(page.locator("#deals li", has_text="SWE")).to_have_count(1, timeout=30_000)
        assert int(page.locator("#clock").inner_text()) > 0
        page.click("#end-round")
        expect(page.locator("body")).to_have_attribute("data-phase", "F1901M", timeout=30_000)
        expect(page.locator("#last-phase")).to_have_text("S1901M")
        expect(page.locator("#kept li.kept")).to_have_count(2)
        expect(page.locator("#kept li.broken")).to_have_count(0)
        france = page.locator("#last-orders tr[data-power='FRANCE']")
        expect(france).to_contain_text("A PAR - BUR")
        assert "- RUH" not in page.locator("#last-orders tr[data-power='GERMANY']").inner_text()
        # the map image loaded (polled from here: the page's CSP forbids eval)
        for _ in range(200):
            if page.evaluate("document.getElementById('mapimg').naturalWidth") > 0:
                break
            page.wait_for_timeout(100)
        assert page.evaluate("document.getElementById('mapimg').naturalWidth") > 0
        screenshot(page, "diplomacy-live")
