"""The game viewer: API privacy, and Chromium stepping through a stored game."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from fastapi.testclient import TestClient  # noqa: E402

from accord.leagues.diplomacy.deals import POWERS, Deal  # noqa: E402
from accord.leagues.diplomacy.negotiator import AllianceNegotiator  # noqa: E402
from accord.leagues.diplomacy.runner import play_game  # noqa: E402
from accord.leagues.diplomacy.viewer import viewer_app  # noqa: E402
from accord.web.testing import ServerThread  # noqa: E402


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    negs = {p: AllianceNegotiator(i) for i, p in enumerate(POWERS[:4])}
    rec = play_game(negs, seed=4, clock="virtual", ticks=2, last_year=1901, candidates=1)
    data = rec.to_json()
    assert any(e["kind"] == "confirm" for e in data["phases"][0]["events"])
    return data


def test_api_privacy(record: dict[str, Any]) -> None:
    client = TestClient(viewer_app(record))
    god = client.get("/api/phase/0?view=god").json()
    assert god["deals"] and god["confirmed"]
    for power in POWERS:
        mine = client.get(f"/api/phase/0?view={power}").json()
        for d in mine["deals"].values():
            assert power in Deal.from_json(d).involved
        for e in mine["events"]:
            assert e["from"] == power or power in e["to"]
    bad = client.get("/api/phase/0?view=PRUSSIA")
    assert bad.status_code >= 400 and "PRUSSIA" in bad.text
    assert client.get("/api/phase/99").status_code >= 400


@pytest.mark.browser
def test_viewer_steps_through_the_game(
    record: dict[str, Any], web_page: Any, screenshot: Any
) -> None:
    from playwright.sync_api import expect

    with ServerThread(viewer_app(record)) as server:
        web_page.goto(server.url + "/")
        expect(web_page.locator("body")).to_have_attribute("data-ready", "0")
        expect(web_page.locator("#map img")).to_have_attribute("src", "/api/phase/0/map.svg")
        expect(web_page.locator("#phase")).to_contain_text("S1901M")
        assert web_page.locator("#centres tr[data-power='FRANCE'] .n").inner_text() == "3"
        expect(web_page.locator("#deals li.confirmed").first).to_be_visible()
        client = TestClient(viewer_app(record))
        god = len(client.get("/api/phase/0").json()["deals"])
        assert web_page.locator("#deals li[data-id]").count() == god
        seen = {p: len(client.get(f"/api/phase/0?view={p}").json()["deals"]) for p in POWERS}
        power = min(POWERS, key=lambda p: seen[p])
        assert seen[power] < god
        web_page.select_option("#view", power)
        expect(web_page.locator("#deals li[data-id]")).to_have_count(seen[power])
        web_page.click("#next")
        expect(web_page.locator("body")).to_have_attribute("data-ready", "1")
        expect(web_page.locator("#phase")).to_contain_text("F1901M")
        screenshot(web_page, "diplomacy-viewer")


HOSTILE = '<img src=x onerror="window.__xss=1;alert(1)">'


@pytest.mark.browser
def test_agent_text_is_shown_as_text_never_run(
    record: dict[str, Any], web_page: Any, screenshot: Any
) -> None:
    """A negotiator's deal text and name that are HTML run nothing in the viewer."""
    from playwright.sync_api import expect

    rec = json.loads(json.dumps(record))
    rec["players"]["FRANCE"] = HOSTILE
    row = rec["phases"][0]
    pid = next(iter(row["deals"]))
    row["deals"][pid]["proposer"] = HOSTILE
    row["deals"][pid]["commitments"] = [[1901, "S", HOSTILE, HOSTILE]]
    row["events"][0]["from"] = HOSTILE
    dialogs: list[str] = []
    web_page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    with ServerThread(viewer_app(rec)) as server:
        web_page.goto(server.url + "/")
        expect(web_page.locator("body")).to_have_attribute("data-ready", "0")
        expect(web_page.locator("#deals")).to_contain_text(HOSTILE)
        expect(web_page.locator("#view")).to_contain_text(HOSTILE)
        assert web_page.locator("#deals img, #events img, #view img").count() == 0
        assert web_page.evaluate("window.__xss") is None
        assert dialogs == []
        screenshot(web_page, "diplomacy-viewer-hostile-text")
