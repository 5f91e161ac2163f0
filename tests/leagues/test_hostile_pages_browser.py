"""Hostile text on every league's participant page, in real Chromium: no script runs.

Each agent (or scenario file) below writes script payloads wherever the league lets it
write: HAN agents' chat text and emotions, GENIUS scenario names (issue, value, side
names, which the KBAgent then offers back), Colored Trails agent names on the replay
page. The page must show the text as typed, no dialog may open and the flag each payload
would set must stay unset. (The Diplomacy viewer has its own such test in
``tests/leagues/diplomacy``; the HUMAINE pages in ``tests/leagues/humaine``.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.han.api import HanAgent, expression, message
from accord.leagues.han.events import Event, EventKind
from accord.web.testing import ServerThread, enter_study

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

PAYLOADS = [
    "<img src=x onerror=\"window.__pwned='img';alert('img')\">",
    "<script>window.__pwned='script';alert('script')</script>",
    "\"><svg onload=\"window.__pwned='svg';alert('svg')\">",
    "</div><iframe srcdoc=\"<script>parent.__pwned='frame'</script>\"></iframe>",
    "javascript:alert('href')",
]
EMOTION = "<img src=y onerror=\"window.__pwned='emotion';alert('emotion')\">"


def watch(page: Any) -> list[str]:
    """Every dialog the page opens (each is dismissed)."""
    seen: list[str] = []

    def on_dialog(d: Any) -> None:
        seen.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    return seen


def assert_nothing_ran(page: Any, dialogs: list[str]) -> None:
    page.wait_for_timeout(300)  # an onerror fires once the broken image fails
    assert dialogs == []
    assert page.evaluate(
        "() => window.__pwned === undefined && !document.querySelector('iframe, svg[onload], img[onerror]')"
    )


class Hostile(HanAgent):
    """Says every payload and shows a payload as its emotion, once."""

    name = "hostile"

    def __init__(self) -> None:
        self.said = False

    def on_event(self, event: Event) -> list[Event]:
        if self.said or event.kind is EventKind.GAME_END:
            return []
        self.said = True
        return [*(message(p) for p in PAYLOADS), expression(EMOTION)]


def test_han_page_shows_a_hostile_agents_text_as_typed(tmp_path: Path, web_page: Any) -> None:
    from playwright.sync_api import expect

    from accord.leagues.han.domain import domain
    from accord.leagues.han.server import STATIC, HanService, han_design
    from accord.web.study import Study, create_study_app

    study = Study(tmp_path / "han.sqlite", han_design(["hostile"], "han-x"), password="pw-hostile")
    spec = domain("example-1").with_time(120.0, None)
    service = HanService(study, {"hostile": Hostile}, [spec], spacing=0.0)
    app = create_study_app(study, service, pages={"/": str(STATIC)})
    dialogs = watch(web_page)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(web_page, srv.url + inv.path, "/han.html")
        history = web_page.locator("#history")
        for p in PAYLOADS:
            expect(history).to_contain_text(p, timeout=30_000)
        texts = web_page.locator("#history .agent .text").all_inner_texts()
        assert [t for t in texts if t in PAYLOADS] == PAYLOADS
        face = web_page.locator("#face")
        assert face.inner_text() in ("😐", "😀", "😠", "😮", "😢")  # never the payload as HTML
        assert_nothing_ran(web_page, dialogs)


def hostile_domain(folder: Path) -> tuple[Path, list[str]]:
    """The Job Candidate scenario with every name a payload (same numbers)."""
    from importlib import resources

    d = json.loads(
        (resources.files("accord.leagues.genius") / "domains" / "job_candidate.json").read_text()
    )
    names: list[str] = []

    def bad(k: int) -> str:
        text = PAYLOADS[k % len(PAYLOADS)] + f" #{k}"
        names.append(text)
        return text

    n = 0
    sides = [bad(n), bad(n + 1)]
    n += 2
    d["types"] = {new: d["types"][old] for old, new in zip(d["sides"], sides, strict=True)}
    d["sides"] = sides
    for issue in d["issues"]:
        issue["name"] = bad(n)
        n += 1
        renamed = {}
        for j, v in enumerate(issue["values"]):
            renamed[v] = bad(n)
            issue["values"][j] = renamed[v]
            n += 1
        if issue["no_agreement"] is not None:
            issue["no_agreement"] = renamed[issue["no_agreement"]]
    d["name"] = "hostile_job"
    path = folder / "hostile_job.json"
    path.write_text(json.dumps(d))
    return path, names


def test_genius_page_shows_hostile_scenario_names_as_typed(tmp_path: Path, web_page: Any) -> None:
    from playwright.sync_api import expect

    from accord.leagues.genius.server import create_genius_app, genius_design
    from accord.web.study import Condition

    path, names = hostile_domain(tmp_path)
    params = {
        "domain": str(path), "side": 0, "opponent": "kbagent-instant", "turns": 14,
        "turn_seconds": 600.0,
    }  # fmt: skip
    design = genius_design([Condition(name="hostile", params=params)])
    app, study = create_genius_app(
        tmp_path / "study", design, password="pw-genius", poll_seconds=0.2
    )
    dialogs = watch(web_page)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(web_page, srv.url + inv.path, "/genius/negotiate.html")
        web_page.wait_for_selector("#board:not([hidden])")
        expect(web_page.locator("#incoming .offer").first).to_be_visible(timeout=30_000)
        shown = web_page.locator("body").inner_text()
        issue_names = [n for n in names if n in shown]
        assert len(issue_names) >= 6 + 6  # the six issue names and at least one value each
        assert web_page.locator("#role").inner_text() == names[0]
        assert_nothing_ran(web_page, dialogs)


def test_trails_replay_shows_hostile_agent_names_as_typed(tmp_path: Path, web_page: Any) -> None:
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import play
    from accord.leagues.trails.replay import replay_html

    record = play(generate("mutual", 1), ["purb", "reliable"])
    record["agents"] = [PAYLOADS[0], PAYLOADS[1]]
    page_file = tmp_path / "replay.html"
    page_file.write_text(replay_html(record))
    dialogs = watch(web_page)
    web_page.goto(page_file.as_uri())
    title = web_page.locator("#title").inner_text()
    assert PAYLOADS[0] in title and PAYLOADS[1] in title
    web_page.click("#next")
    offers = web_page.locator("#offers").inner_text()
    assert PAYLOADS[0] in offers or PAYLOADS[1] in offers or "no proposal" in offers
    assert_nothing_ran(web_page, dialogs)
