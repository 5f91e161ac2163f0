"""A crowd study's way through the HUMAINE human UI in Chromium: the person's link leads
to the consent form, then the instructions, then the chat; the chat's routes refuse the
person before that; when the round is over the chat offers the end, which shows the
completion code and the platform's return link. A restarted server keeps the steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.humaine.flow import Flow
from accord.leagues.humaine.ui_server import create_ui_app
from accord.web.testing import ServerThread

pytestmark = pytest.mark.browser

KEY = "person-key-of-the-flow-test"
FLOW = Flow(
    consent="CONSENT TEXT <b>not bold</b>: you may stop at any time.",
    instructions="INSTRUCTIONS: buy eggs and flour, then bake.",
    rounds=1,
    code="C0DE-4711",
    return_url="https://platform.example/return?c=C0DE-4711",
)
ROUND = {"roundId": "r1", "durations": {"warmUp": 0, "round": 60, "post": 5},
         "humanBudget": {"value": 50}}  # fmt: skip


def _app(db: Path) -> Any:
    return create_ui_app(
        orchestrator_url="http://127.0.0.1:9", db_path=db, person_key=KEY,
        admin_key=KEY + "-admin", flow=FLOW,
    )  # fmt: skip


def test_consent_instructions_rounds_and_the_completion_code(tmp_path: Path, web_page: Any) -> None:
    from playwright.sync_api import expect

    page = web_page
    db = tmp_path / "ui.sqlite"
    with ServerThread(_app(db)) as srv:
        page.goto(f"{srv.url}/join?key={KEY}")
        expect(page).to_have_url(f"{srv.url}/consent.html")
        expect(page.locator("#consent-text")).to_have_text(FLOW.consent)  # text, not HTML
        # the chat's routes refuse the person before consent and instructions
        said = page.request.post(f"{srv.url}/api/say", data={"text": "hi"})
        assert said.status == 403 and said.json()["code"] == "consent_required"
        page.click("#agree")
        expect(page).to_have_url(f"{srv.url}/instructions.html")
        expect(page.locator("#instructions-text")).to_have_text(FLOW.instructions)
        page.click("#start")
        expect(page).to_have_url(f"{srv.url}/chat.html")
        expect(page.locator("#finish")).to_be_hidden()
        # the orchestrator plays the round to its totals
        orch = httpx.Client(base_url=srv.url, trust_env=False)
        for route, body in (
            ("sendRoundMetadata", ROUND), ("startRound", {"roundId": "r1"}),
            ("endRound", {"roundId": "r1"}),
            ("receiveRoundTotals", {"roundId": "r1", "roundTotals": {"Human": {"price": 0}}}),
        ):  # fmt: skip
            assert orch.post(f"/{route}", json=body).status_code == 200
        expect(page.locator("#finish")).to_be_visible(timeout=30_000)
        page.click("#finish")
        expect(page).to_have_url(f"{srv.url}/done.html")
        expect(page.locator("#code")).to_have_text("C0DE-4711")
        expect(page.locator("#return")).to_have_attribute("href", FLOW.return_url or "")
    with ServerThread(_app(db)) as srv:  # restarted: the person is done, the code the same
        page.goto(f"{srv.url}/join?key={KEY}")
        expect(page).to_have_url(f"{srv.url}/done.html")
        expect(page.locator("#code")).to_have_text("C0DE-4711")


def test_declining_ends_the_study_and_opens_no_chat(tmp_path: Path, web_page: Any) -> None:
    from playwright.sync_api import expect

    page = web_page
    with ServerThread(_app(tmp_path / "ui.sqlite")) as srv:
        page.goto(f"{srv.url}/join?key={KEY}")
        page.click("#decline")
        expect(page).to_have_url(f"{srv.url}/done.html")
        expect(page.locator("#done-title")).to_have_text("You chose not to take part")
        r = page.request.post(f"{srv.url}/api/participant/instructions", data={})
        assert r.status == 403
        page.goto(f"{srv.url}/join?key={KEY}")
        expect(page).to_have_url(f"{srv.url}/done.html")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--return-url", "https://platform.example/r"], "add --crowd"),
        (["--crowd", "--return-url", "ftp://x"], "return_url must be an http(s) address"),
    ],
)
def test_up_refuses_a_return_link_it_cannot_use(args: list[str], said: str) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    r = CliRunner().invoke(app, ["humaine", "up", *args])
    assert r.exit_code != 0 and said in (r.output + str(r.exception))
