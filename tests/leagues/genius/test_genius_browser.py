"""The GENIUS study in a real Chromium: people negotiate, opt out, leave; the study records it."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

PW = "experimenter-pw"


@pytest.fixture
def lab(
    tmp_path: Path, web_browser: Any, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    """A study server (opponent from the test's ``opponent`` mark) and the logged-in admin."""
    marker = request.node.get_closest_marker("opponent")
    opponent = marker.args[0] if marker else "person"
    design = genius_design([condition(opponent, turn_seconds=600)], title="Job talks")
    app, study = create_genius_app(
        tmp_path / "study", design, password=PW, leave_after=8.0, poll_seconds=0.2
    )
    contexts: list[Any] = []
    with ServerThread(app) as server:
        admin = web_browser.new_context().new_page()
        contexts.append(admin.context)
        admin.set_default_timeout(30_000)
        admin.goto(f"{server.url}/study/admin.html")
        admin.fill("input[name=password]", PW)
        admin.click("#login button")
        admin.wait_for_selector("#panel:not(.hidden)")
        yield {"url": server.url, "admin": admin, "browser": web_browser, "contexts": contexts}
        for c in contexts:  # close the pages' live streams before the server stops
            c.close()


def _links(lab: dict[str, Any], n: int) -> list[str]:
    admin = lab["admin"]
    admin.fill("#invite input[name=count]", str(n))
    admin.click("#invite button")
    admin.wait_for_selector(f"#links li:nth-child({n})")
    return [li.inner_text().split(": ", 1)[1] for li in admin.query_selector_all("#links li")][-n:]


def _join(lab: dict[str, Any], link: str) -> Any:
    page = open_page(lab["browser"], lab["contexts"], viewport={"width": 1280, "height": 720})
    page.on("dialog", lambda d: d.accept())
    return enter_study(page, link, "/genius/negotiate.html")


def _status_count(admin: Any, status: str) -> str:
    return str(admin.inner_text(f"#status tr[data-key={status}] td:nth-child(2)"))


def test_two_people_negotiate_to_an_agreement(lab: dict[str, Any], screenshot: Any) -> None:
    alice_link, bob_link = _links(lab, 2)
    alice, bob = _join(lab, alice_link), _join(lab, bob_link)
    alice.wait_for_selector("#board:not([hidden])")
    bob.wait_for_selector("#board:not([hidden])")
    assert {alice.inner_text("#role"), bob.inner_text("#role")} == {"employer", "candidate"}
    # the offer builder shows the person's own score before sending
    alice.select_option("select[name='Salary']", "12,000 NIS")
    partial = alice.inner_text("#preview")
    for issue, value in [
        ("Job Description", "Programmer"),
        ("Leased Car", "Without leased car"),
        ("Pension Fund", "10%"),
        ("Promotion Possibilities", "Slow promotion track"),
        ("Working Hours", "9 hours"),
    ]:
        alice.select_option(f"select[name='{issue}']", value)
    assert alice.inner_text("#preview") != partial
    screenshot(alice, "offer-builder")
    alice.click("#send-offer")
    bob.wait_for_selector("#incoming .offer button.accept")  # arrives by the live channel
    bob.click("#incoming .offer button.accept")
    bob.wait_for_selector("#result:not([hidden])")
    assert "Full agreement" in bob.inner_text("#result-text")
    alice.wait_for_selector("#result:not([hidden])")
    assert alice.inner_text("#agreement").count("(open)") == 0
    alice.click("#continue")
    alice.wait_for_url("**/study/done.html")
    admin = lab["admin"]
    admin.wait_for_function(
        "document.querySelector('#status tr[data-key=done] td:nth-child(2)').textContent === '2'"
    )
    with admin.expect_download() as dl:
        admin.click("#csv")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    actions = [json.loads(r["data"]) for r in rows if r["kind"] == "genius.action"]
    assert [a["kind"] for a in actions] == ["offer", "accept"] and all(a["ok"] for a in actions)


@pytest.mark.opponent("kbagent")
def test_a_person_against_the_kbagent_opts_out(lab: dict[str, Any]) -> None:
    (link,) = _links(lab, 1)
    page = _join(lab, link)
    page.wait_for_selector("#incoming .offer")  # the KBAgent opened with an offer
    page.select_option("#threat", "1")
    page.click("#send-threat")
    page.wait_for_selector("#messages li")
    page.click("#opt-out")
    page.wait_for_selector("#result:not([hidden])")
    assert "Opt-out at turn 0" in page.inner_text("#result-text")
    assert page.is_disabled("#send-offer")
    admin = lab["admin"]
    admin.wait_for_function(
        "document.querySelector('#status tr[data-key=done] td:nth-child(2)').textContent === '1'"
    )


def test_a_person_leaving_mid_session_is_recorded(lab: dict[str, Any]) -> None:
    stay_link, go_link = _links(lab, 2)
    stay, go = _join(lab, stay_link), _join(lab, go_link)
    stay.wait_for_selector("#board:not([hidden])")
    go.wait_for_selector("#board:not([hidden])")
    go.context.close()  # the person closes the browser mid-session
    stay.wait_for_selector("#result:not([hidden])", timeout=30_000)
    assert "abandoned" in stay.inner_text("#result-text")
    assert stay.is_disabled("#send-offer")
    admin = lab["admin"]
    admin.wait_for_function(
        "document.querySelector('#status tr[data-key=withdrawn] td:nth-child(2)').textContent === '1'",
        timeout=30_000,
    )
    assert _status_count(admin, "done") == "1"
    with admin.expect_download() as dl:
        admin.click("#csv")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    assert any(r["kind"] == "genius.left" for r in rows)
    assert any(r["kind"] == "withdrawn" for r in rows)


def test_a_reused_link_is_refused_in_another_browser(lab: dict[str, Any]) -> None:
    (link,) = _links(lab, 1)
    _join(lab, link)
    context = lab["browser"].new_context()
    lab["contexts"].append(context)
    other = context.new_page()
    response = other.goto(link)
    assert response is not None and response.status == 409
    assert "already used" in other.inner_text("#error")
