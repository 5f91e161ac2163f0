"""Agent vs agent in the browser: a stored game replayed turn by turn (real Chromium)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.trails.replay import replay_html

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_agent_vs_agent_game_is_replayed_step_by_step(
    tmp_path: Path, web_browser: Any, screenshot: Any
) -> None:
    page_file = tmp_path / "replay.html"
    r = CliRunner().invoke(
        app,
        ["trails", "play", "-a", "purb reliable", "--board", "4", "--protocol", "counter",
         "--json", "--html", str(page_file)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    rec = json.loads(r.stdout)
    setup, history = rec["setup"], rec["history"]
    assert len(history) >= 2
    context = web_browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(page_file.as_uri())
    cols = len(setup["board"][0])
    cells = page.locator("#board .cell")
    expect(cells).to_have_count(len(setup["board"]) * cols)
    expect(page.locator("#frame")).to_have_text("start")
    expect(page.locator("#pos-0")).to_have_text(str(setup["starts"][0]))
    start = page.locator(f'#board .cell[data-cell="{setup["starts"][0]}"] .me-mark')
    expect(start).to_have_count(1)
    expect(page.locator("#chips-1 .chip")).to_have_count(sum(setup["chips"][1]))
    expect(page.locator("#prev")).to_be_disabled()
    for t, h in enumerate(history, start=1):
        page.click("#next")
        expect(page.locator("#frame")).to_have_text(f"turn {t} of {len(history)}")
        expect(page.locator("#pos-0")).to_have_text(str(h["positions"][0]))
        expect(page.locator("#pos-1")).to_have_text(str(h["positions"][1]))
        expect(page.locator("#chips-0 .chip")).to_have_count(sum(h["chips"][0]))
        expect(page.locator("#offers li")).to_have_count(max(1, len(h["offers"])))
        expect(page.locator("#moved")).to_have_text(f"{h['moved'][0]} | {h['moved'][1]}")
        mark = page.locator(f'#board .cell[data-cell="{h["positions"][1]}"] .other-mark')
        expect(mark).to_have_count(1)
    expect(page.locator("#next")).to_be_disabled()
    final = page.locator("#final")
    expect(final).to_be_visible()
    expect(final).to_contain_text(
        f"ended by {rec['end']}; scores purb {rec['scores'][0]}, reliable {rec['scores'][1]}"
    )
    screenshot(page, "trails-replay")
    page.click("#prev")
    expect(final).to_be_hidden()
    context.close()


def test_replay_refuses_a_record_that_is_not_a_game() -> None:
    with pytest.raises(ConfigError, match="missing \\['end', 'history', 'setup'\\]"):
        replay_html({"agents": ["a", "b"], "scores": [0, 0]})


def test_replay_command_from_a_tournament_file_and_from_json(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "t.sqlite"
    args = ["trails", "tournament", "-a", "purb reliable", "--boards", "1", "--out", str(db)]
    assert runner.invoke(app, args).exit_code == 0
    page = tmp_path / "g.html"
    r = runner.invoke(
        app, ["trails", "replay", str(db), "--game", "mutual-0-purb-reliable", "--html", str(page)]
    )
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert '<script type="application/json" id="record">' in text and '"purb"' in text
    # a protocol other than the stored run's is refused on resume, before any game
    other = runner.invoke(app, [*args, "--protocol", "counter"], env={"COLUMNS": "200"})
    assert other.exit_code == 2 and "protocol" in other.output
    rec = tmp_path / "g.json"
    rec.write_text(runner.invoke(app, ["trails", "play", "--json"]).stdout)
    assert runner.invoke(app, ["trails", "replay", str(rec), "--html", str(page)]).exit_code == 0
    env = {"COLUMNS": "200"}
    bad = runner.invoke(
        app, ["trails", "replay", str(db), "--game", "nope", "--html", str(page)], env=env
    )
    assert (
        bad.exit_code == 2 and "no game 'nope'" in bad.output and "mutual-0-purb-purb" in bad.output
    )
    study = tmp_path / "x.sqlite"
    study.write_bytes(b"")  # an empty file: no tasks table; left as it was
    bad = runner.invoke(
        app, ["trails", "replay", str(study), "--game", "a", "--html", str(page)], env=env
    )
    assert bad.exit_code == 2 and "expected a tournament's SQLite file" in bad.output
    assert study.read_bytes() == b""
    bad = runner.invoke(app, ["trails", "replay", str(db), "--html", str(page)], env=env)
    assert bad.exit_code == 2 and "for a tournament file give --game" in bad.output
