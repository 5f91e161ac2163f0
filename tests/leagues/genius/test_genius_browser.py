"""The study pages in a real Chromium: people negotiate, opt out, leave; the study records it."""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.genius.server import create_app
from accord.leagues.humaine.testing import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (shutil.which('chromium') is None)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(
        str(tmp_path / "genius.sqlite"), password="pw", leave_after=2.0, poll_seconds=0.2
    )
    with ServerThread(app) as srv:
        yield srv.url


def _create_study(
    browser: Any, url: str, opponent: str, participants: int
) -> tuple[Any, list[str]]:
    exp = browser.new_context().new_page()
    exp.goto(f"{url}/experimenter#pw")
    exp.select_option("select[name=opponent]", opponent)
    exp.fill("input[name=participants]", str(participants))
    exp.fill("input[name=turn_seconds]", "600")
    exp.click("button[type=submit]")
    exp.wait_for_selector("#links a.link")
    links = [a.get_attribute("href") for a in exp.query_selector_all("#links a.link")]
    return exp, [str(x) for x in links]


def _open(browser: Any, link: str) -> Any:
    page = browser.new_context().new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(link)
    return page


def test_two_people_negotiate_to_an_agreement(browser: Any, server: str) -> None:
    exp, links = _create_study(browser, server, "person", 2)
    alice, bob = _open(browser, links[0]), _open(browser, links[1])
    alice.wait_for_selector("#board:not([hidden])")
    bob.wait_for_selector("#board:not([hidden])")
    assert alice.inner_text("#role") == "employer" and bob.inner_text("#role") == "candidate"
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
    alice.click("#send-offer")
    bob.wait_for_selector("#incoming .offer button.accept")
    bob.click("#incoming .offer button.accept")
    bob.wait_for_selector("#result:not([hidden])")
    assert "Full agreement" in bob.inner_text("#result")
    alice.wait_for_selector("#result:not([hidden])")
    assert "Full agreement" in alice.inner_text("#result")
    assert alice.inner_text("#agreement").count("(open)") == 0
    exp.wait_for_function(
        "document.querySelector('#studies .progress').textContent.includes('done: 2')"
    )
    with exp.expect_download() as dl:
        exp.click("#studies button.csv")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text())))
    assert [r["kind"] for r in rows] == ["offer", "accept"]
    assert rows[0]["values"] and rows[1]["reason"] == "agreement" and rows[0]["time_utc"]


def test_a_person_against_the_kbagent_opts_out(browser: Any, server: str) -> None:
    _, links = _create_study(browser, server, "kbagent", 1)
    page = _open(browser, links[0])
    page.wait_for_selector("#incoming .offer")  # the KBAgent opened with an offer
    page.select_option("#threat", "1")
    page.click("#send-threat")
    page.wait_for_selector("#messages li")
    page.click("#opt-out")
    page.wait_for_selector("#result:not([hidden])")
    assert "Opt-out at turn 0" in page.inner_text("#result")
    assert page.is_disabled("#send-offer")


def test_a_person_leaving_mid_session_is_recorded(browser: Any, server: str) -> None:
    exp, links = _create_study(browser, server, "person", 2)
    stay, go = _open(browser, links[0]), _open(browser, links[1])
    stay.wait_for_selector("#board:not([hidden])")
    go.wait_for_selector("#board:not([hidden])")
    go.context.close()  # the person closes the browser mid-session
    exp.wait_for_function(
        "document.querySelector('#studies .progress').textContent.includes('left: 1')",
        timeout=20_000,
    )
    stay.wait_for_selector("#result:not([hidden])", timeout=20_000)
    assert "abandoned" in stay.inner_text("#result")
    assert stay.is_disabled("#send-offer")


def test_a_reused_link_is_refused_in_another_browser(browser: Any, server: str) -> None:
    _, links = _create_study(browser, server, "kbagent", 1)
    first = _open(browser, links[0])
    first.wait_for_selector("#board:not([hidden])")
    second = _open(browser, links[0])
    second.wait_for_function("document.querySelector('#error').textContent.length > 0")
    assert "already used" in second.inner_text("#error")
