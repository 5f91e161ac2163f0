"""A study in real Chromium: consent -> two rounds -> done; the experimenter watches
progress live and downloads the CSV; a reused link is refused."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from tiny_league import DESIGN, make_app

from accord.web.study import Study
from accord.web.testing import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_participant_consents_plays_two_rounds_and_the_experimenter_sees_it_live(
    tmp_path: Path, web_browser, web_page, screenshot
) -> None:
    from playwright.sync_api import expect

    study = Study(tmp_path / "study.sqlite", DESIGN, password="experimenter-pw")
    with ServerThread(make_app(study)) as server:
        # the experimenter logs in and makes a link
        admin = web_page
        admin.goto(f"{server.url}/study/admin.html")
        admin.fill("input[name=password]", "experimenter-pw")
        admin.click("#login button")
        expect(admin.locator("#title")).to_have_text("Ultimatum pilot")
        expect(admin.locator("#live-state")).to_have_text("live")
        admin.fill("#invite input[name=label]", "pilot")
        admin.click("#invite button")
        link_line = admin.locator("#links li[data-pid=p001]")
        expect(link_line).to_contain_text(f"{server.url}/s/")
        link = link_line.inner_text().split(": ", 1)[1]
        expect(admin.locator("#status tr[data-key=invited] td").nth(1)).to_have_text("1")

        # the participant opens the link in another browser context and consents
        context = web_browser.new_context()
        context.set_default_timeout(30_000)
        person = context.new_page()
        person.goto(link)
        expect(person.locator("#title")).to_have_text("Ultimatum pilot")
        expect(admin.locator("#status tr[data-key=invited] td").nth(1)).to_have_text("1")
        person.click("#start")
        expect(person).to_have_url(f"{server.url}/study/consent.html")
        expect(person.locator("#title")).to_have_text("Consent to take part")
        expect(person.locator("#text p")).to_have_count(2)
        expect(admin.locator("#status tr[data-key=opened] td").nth(1)).to_have_text("1")
        screenshot(person, "consent")
        person.click("#agree")
        expect(person).to_have_url(f"{server.url}/task.html")
        expect(admin.locator("#conditions tr[data-key=greedy] td").nth(1)).to_have_text("1")

        # round 1 (greedy agent, threshold 60): 50 is rejected; the reply comes live
        expect(person.locator("#round")).to_have_text("1")
        person.fill("#give", "50")
        person.click("#offer")
        expect(person.locator("#reply")).to_have_text("Rejected: nobody gets anything.")
        expect(admin.locator("#conditions tr[data-key=greedy] td").nth(2)).to_have_text("1")
        person.click("#next")
        # round 2 (fair agent, threshold 40): 45 is accepted
        expect(person.locator("#round")).to_have_text("2")
        person.fill("#give", "45")
        person.click("#offer")
        expect(person.locator("#reply")).to_have_text("Accepted: you keep 55.")
        person.click("#next")
        expect(person).to_have_url(f"{server.url}/study/done.html")
        expect(person.locator("#message")).to_contain_text("You finished all 2 round(s)")
        expect(person.locator("#pid")).to_have_text("p001")
        expect(admin.locator("#status tr[data-key=done] td").nth(1)).to_have_text("1")
        screenshot(admin, "experimenter")

        # the same link in a third browser is refused, saying why
        other = web_browser.new_context().new_page()
        response = other.goto(link)
        assert response is not None and response.status == 409
        expect(other.locator("#error")).to_contain_text("this study link was already used on")
        other.context.close()

        # the experimenter downloads every event as CSV
        with admin.expect_download() as got:
            admin.click("#csv")
        rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text())))
        kinds = [r["kind"] for r in rows]
        assert kinds == [  # the third browser's look at the link is logged
            "invited",
            "link_opened",
            "consented",
            "offer",
            "reply",
            "round_done",
            "offer",
            "reply",
            "round_done",
            "finished",
            "link_reused",
        ]
        assert {r["party"] for r in rows} == {"p001"}
        assert [r["data"] for r in rows if r["kind"] == "offer"] == [
            '{"condition":"greedy","give":50,"round":0}',
            '{"condition":"fair","give":45,"round":1}',
        ]
        assert all(r["time"].endswith("Z") and float(r["at"]) > 0 for r in rows)
        context.close()
    assert (tmp_path / "screenshots" / "consent.png").stat().st_size > 0
