"""A person's mistakes in Chromium are refused with the reason and change nothing: a
double click on "Send proposal", a repeated request, asking for more chips than the other
holds, sending more than one owns. No step is forfeited, no promise counted broken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from accord.leagues.trails.generator import generate
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def _join(browser: Any, url: str, path: str, contexts: list[Any]) -> Any:
    page = open_page(browser, contexts, viewport={"width": 1280, "height": 720})
    return enter_study(page, url + path, "/trails/play.html")


def test_double_clicks_and_invalid_actions_change_nothing_and_say_why(
    tmp_path: Path, web_browser: Any
) -> None:
    design = trails_design(["person"], dependency="independent")
    app, study = create_trails_app(tmp_path / "study", design, password="experimenter-pw")
    service = app.state.trails
    setup = generate("independent", 0)
    mine, theirs = setup.chips[0], setup.chips[1]
    k = int(next(i for i, n in enumerate(mine) if n > 0))
    contexts: list[Any] = []
    with ServerThread(app) as server:
        first, second = study.invite(2)
        alice = _join(web_browser, server.url, first.path, contexts)
        bob = _join(web_browser, server.url, second.path, contexts)
        expect(alice.locator("#phase")).to_have_text("propose")
        # asking for more than Bob holds: refused, said, nothing sent
        alice.fill(f"input[name=take-{k}]", str(int(theirs[k]) + 5))
        alice.click("#send-proposal")
        expect(alice.locator("#error")).to_contain_text("but the other player holds")
        expect(alice.locator("#phase")).to_have_text("propose")
        expect(bob.locator("#incoming")).to_be_hidden()
        # offering more than she holds: refused the same way
        alice.fill(f"input[name=take-{k}]", "0")
        alice.fill(f"input[name=give-{k}]", str(int(mine[k]) + 1))
        alice.click("#send-proposal")
        expect(alice.locator("#error")).to_contain_text("but you hold")
        # a double click on a good proposal sends it once
        alice.fill(f"input[name=give-{k}]", "1")
        alice.dblclick("#send-proposal")
        expect(bob.locator("#incoming")).to_be_visible()
        expect(alice.locator("#phase")).to_have_text("respond")
        # a late copy of the same act (a click that arrives after the step moved on)
        late = alice.evaluate(
            """async (k) => {
              const give = [0, 0, 0, 0, 0].slice(0, document.querySelectorAll('#builder .give').length);
              give[k] = 1;
              const r = await fetch('../api/trails/act', {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({kind: 'propose', give, take: give.map(() => 0),
                                      turn: 0, phase: 'propose'})});
              return [r.status, await r.json()];
            }""",
            k,
        )
        assert late[0] == 409 and late[1]["code"] == "refused"
        assert "the game has moved on" in late[1]["error"]
        bob.click("#accept")
        # Alice's transfer step is there (not skipped by the second click)
        expect(alice.locator("#transfer-box")).to_be_visible()
        letter = "ABCDEFGHIJ"[k]
        expect(alice.locator("#promised-mine")).to_have_text(f"1 {letter}")
        # sending more than she owns: refused, the transfer box stays
        alice.fill(f"input[name=send-{k}]", str(int(mine[k]) + 3))
        alice.click("#send-transfer")
        expect(alice.locator("#error")).to_contain_text("you tried to send")
        expect(alice.locator("#transfer-box")).to_be_visible()
        alice.fill(f"input[name=send-{k}]", "1")
        alice.click("#send-transfer")
        expect(alice.locator("#transfer-box")).to_be_hidden()
        (m,) = service.matches.values()
        g = m.game
        assert g.violations == []  # nothing forfeited, no broken promise recorded
        proposals = [
            e
            for e in study.events.read(kinds=("trails.action",))
            if e.data["action"]["kind"] == "propose"
        ]
        assert len(proposals) == 1
        # nothing refused reached the log: every stored action is valid
        assert all(e.data["ok"] for e in study.events.read(kinds=("trails.action",)))
        for c in contexts:
            c.close()
