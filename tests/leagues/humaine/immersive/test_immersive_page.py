"""The immersive page in real Chromium, typed input: avatars idle, speak in turn with
the gestures their messages ask for, show whom the buyer addresses, never show a
blocked message. (With speech on the server the page plays the audio; without it the
mouths move by timing: this test holds either way.)"""

from __future__ import annotations

import shutil
from typing import Any

import httpx
import pytest
from hui_kit import CHROMIUM_ARGS, PERSON_KEY, join
from imm_kit import WATSON_BLOCKED

from accord.web.testing import chromium_env

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(300),
]  # a hang guard (a loaded machine is slow, not hung)


def test_avatars_idle_speak_in_turn_with_gestures_and_show_the_addressee(
    stage: dict[str, Any], playwright: Any, tmp_path
) -> None:
    from playwright.sync_api import expect

    ui = stage["urls"]["ui"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        join(c, roles=("admin",))
        rid = c.post("/api/admin/start", json={"warmUp": 0, "round": 60, "post": 5}).json()
    browser = playwright.chromium.launch(
        executable_path=shutil.which("chromium"),
        args=[*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
        env=chromium_env(),
    )
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(30_000)
        page.goto(f"{ui}/join?key={PERSON_KEY}")
        expect(page.locator("#phase")).to_have_text("negotiation")
        celia, watson = (
            page.locator(".seat[data-name=Celia]"),
            page.locator(".seat[data-name=Watson]"),
        )
        # idle: both blink and breathe
        for seat in (celia, watson):
            lid = seat.locator(".lid").first
            assert lid.evaluate("e => getComputedStyle(e).animationName") == "blink"
            torso = seat.locator(".torso")
            assert torso.evaluate("e => getComputedStyle(e).animationName") == "breathe"
        # a click chooses an avatar
        watson.click()
        expect(watson).to_have_class("seat avatar-watson focused")
        expect(watson.locator(".cue")).to_have_text("you chose me (click)")
        # the buyer types to Celia (the typed path); both answer, in turn
        said = page.request.post(
            f"{ui}/api/say", data={"text": "Celia, two eggs and two cups of flour?"}
        )
        assert said.json()["reply"]["permitted"] is True
        expect(celia).to_have_class("seat avatar-celia addressed speaking")
        expect(celia.locator("svg.avatar")).to_have_class("avatar g-smile g-wave")
        expect(celia.locator(".gesture-label")).to_have_text("smile, wave")
        page.screenshot(path=tmp_path / "celia-speaks.png")
        expect(watson.locator("svg.avatar")).to_have_class("avatar g-thinking g-shrug")
        expect(celia).not_to_have_class("seat avatar-celia addressed speaking")
        page.wait_for_function("() => window.__immersive.played.length >= 2", timeout=60_000)
        played = page.evaluate("window.__immersive.played")
        assert [p["speaker"] for p in played] == ["Celia", "Watson"]
        assert played[0]["end"] <= played[1]["start"]
        assert all(p["peakMouth"] > 0.2 for p in played)
        expect(page.locator("#history li")).to_have_count(3)
        assert WATSON_BLOCKED not in page.content()
        assert page.evaluate("window.__immersive.errors") == []
        assert rid["roundId"]
    finally:
        browser.close()
