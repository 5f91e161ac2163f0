"""A spoken take is shown to the buyer and sent only when the buyer sends it, in real
Chromium with a fake microphone (issue 23, item 5): the page shows what was heard and
nothing reaches the orchestrator; taking it back sends nothing and costs no R0 time (the
next take may start at once); an edit sends the edited text, exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import numpy as np
import pytest
from hui_kit import PERSON_KEY
from test_immersive_browser import LEAD_IN, Offline, journal, launch, round_id, wait_journal

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]  # two takes, see HEARD_WITHIN
__all__ = ["round_id"]  # the fixture, shared with the other browser test

SPOKEN = "Watson, no deal. Can I get two eggs for two dollars?"
"""What the fake microphone says: whatever is heard of it, the buyer corrects it."""
EDITED = "Celia, I want two eggs and two cups of flour"


@pytest.fixture
def take_wav(tmp_path: Path, needs_speech: None) -> Path:
    from accord.leagues.humaine import speech

    samples, rate = speech.read_wav(speech.speak(SPOKEN, speech.BUYER_VOICES["buyer-m1"]).wav)
    path = tmp_path / "take.wav"
    quiet = np.zeros(int(LEAD_IN * rate), np.float32)
    path.write_bytes(speech.write_wav(np.concatenate([quiet, samples]), rate))
    return path


def humans(stage: dict[str, Any], rid: str) -> list[dict[str, Any]]:
    state = httpx.get(f"{stage['urls']['orch']}/rounds/{rid}", trust_env=False).json()
    return [d for d in state["decisions"] if d["speaker"] == "Human"]


@pytest.mark.parametrize("stage", [5.0], indirect=True)  # the spec's R0 gap
def test_a_take_is_sent_only_when_the_buyer_sends_it(
    playwright: Any, stage: dict[str, Any], take_wav: Path, round_id: str
) -> None:
    from playwright.sync_api import expect

    ui = stage["urls"]["ui"]
    browser = launch(playwright, take_wav)
    net = Offline(browser)
    page = net.ctx.new_page()
    page.goto(f"{ui}/join?key={PERSON_KEY}")
    expect(page.locator("#phase")).to_have_text("negotiation")

    # 1. a take is heard and shown, with its addressee: nothing is sent
    page.click("#talk-btn")
    first = wait_journal(page, "heard", 1)[0]
    assert first["pending"] is True and first["sent"] is False, first
    expect(page.locator("#take")).to_be_visible()
    expect(page.locator("#take-text")).to_have_value(first["text"])
    expect(page.locator("#heard")).to_have_text(f"Heard: “{first['text']}”")
    assert humans(stage, round_id) == []

    # 2. taken back: nothing sent, and the next take may start at once (no R0 wait)
    page.click("#take-back")
    wait_journal(page, "answered", 1)
    expect(page.locator("#take")).to_be_hidden()
    expect(page.locator("#talk-msg")).to_have_text("Taken back: nothing was sent.")
    assert humans(stage, round_id) == []
    page.click("#talk-btn")
    second = wait_journal(page, "heard", 2)[1]
    expect(page.locator("#talk-msg")).not_to_contain_text("Please wait")
    assert second["pending"] is True and humans(stage, round_id) == []

    # 3. the buyer corrects it and sends it: the edited text goes out, exactly
    page.fill("#take-text", EDITED)
    page.select_option("#take-to", "Celia")
    page.click("#take-send")
    sent = wait_journal(page, "answered", 2)[1]
    assert sent["permitted"] is True and sent["edited"] is True, sent
    said = humans(stage, round_id)
    assert [(d["text"], d["addressee"], d["permitted"]) for d in said] == [(EDITED, "Celia", True)]
    expect(page.locator("#heard")).to_have_text(f"You said: “{EDITED}”")
    assert not journal(page)["errors"]
    browser.close()
    assert net.refused == [] and all(
        urlparse(u).hostname == "127.0.0.1" for u in net.asked if u.startswith("http")
    )
