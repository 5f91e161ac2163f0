"""Entered negotiators: by path, in the sandbox; hostile ones contained (red team)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.cli import app  # noqa: E402
from accord.leagues.diplomacy.checks import audit  # noqa: E402
from accord.leagues.diplomacy.negotiator import AllianceNegotiator, Negotiator  # noqa: E402
from accord.leagues.diplomacy.runner import play_game  # noqa: E402
from accord.leagues.diplomacy.sandboxed import SandboxedNegotiator  # noqa: E402
from accord.sandbox import sandbox_available  # noqa: E402

ENTRIES = Path(__file__).parent / "entries"
WHY = sandbox_available()
needs_os = pytest.mark.skipif(WHY is not None, reason=f"the OS sandbox cannot run here: {WHY}")
runner = CliRunner()


@pytest.fixture
def entries(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(ENTRIES))
    monkeypatch.chdir(ENTRIES)
    return ENTRIES


def _events(rec: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for row in rec["phases"] for e in row.get("events", [])]


def _hostile_game(sandboxed: bool) -> dict[str, Any]:
    def entry(name: str, seed: int) -> Negotiator:
        if sandboxed:
            # generous: a loaded machine must not time out the quick ones
            wait = 2.0 if name == "Hanger" else 20.0
            return SandboxedNegotiator(f"dip_hostile:{name}", seed, call_seconds=wait)
        import dip_hostile  # type: ignore[import-not-found]

        neg: Negotiator = getattr(dip_hostile, name)(seed)
        return neg

    negs: dict[str, Negotiator | None] = {
        "AUSTRIA": entry("Snoop", 1),
        "ENGLAND": entry("Forger", 2),
        "ITALY": AllianceNegotiator(3),
        "FRANCE": AllianceNegotiator(4),
        "GERMANY": None,
    }
    if sandboxed:
        negs.update(RUSSIA=entry("Hanger", 5), TURKEY=entry("Interrupter", 6))
    rec = play_game(negs, seed=3, clock="virtual", ticks=2, last_year=1901, candidates=2)
    return rec.to_json()


@needs_os
def test_hostile_negotiators_are_contained(entries: Path) -> None:
    t0 = time.monotonic()
    rec = _hostile_game(sandboxed=True)
    assert time.monotonic() - t0 < 120  # a hanging negotiator cannot hang the game
    errors = "\n".join(rec["errors"])
    assert rec["end"] == "cap"
    assert "LEAK" not in errors  # no notary, no other power's deal in its process
    assert "RUSSIA: AgentTimeout" in errors and "negotiates no more" in errors
    assert "TURKEY: the negotiator raised" in errors and "KeyboardInterrupt" in errors
    assert "ENGLAND" in errors and "proposer is GERMANY" in errors
    assert "expected an op among" in errors and "ATLANTIS" in errors
    # nobody spoke for the non-negotiating power, and nobody but a deal's powers heard it
    events = _events(rec)
    assert events and all(e["from"] != "GERMANY" for e in events)
    for row in rec["phases"]:
        for e in row.get("events", []):
            involved = (
                set(json.dumps(row["deals"][e["id"]]).split('"'))
                if e["id"] in row["deals"]
                else set()
            )
            assert set(e["to"]) <= involved
    # the stored orders are the ones adjudicated: a replay reaches every stored phase
    assert audit(rec).games == 1


def test_in_process_the_same_snoop_finds_the_notary() -> None:
    """The positive control: without the sandbox the snoop reads others' deals and
    speaks for other powers, so the test above can fail."""
    import sys

    sys.path.insert(0, str(ENTRIES))
    try:
        rec = _hostile_game(sandboxed=False)
    finally:
        sys.path.remove(str(ENTRIES))
    forged = [e for e in _events(rec) if e["from"] == "GERMANY"]
    assert forged and "LEAK" in "\n".join(rec["errors"])


@needs_os
def test_docs_negotiator_entered_by_path_in_play_and_tournament(entries: Path) -> None:
    res = runner.invoke(
        app,
        [
            "diplomacy", "play", "--negotiators", "dip_peaceful:Peaceful alliance",
            "--fast", "--last-year", "1901", "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["players"]["AUSTRIA"] == "dip_peaceful:Peaceful"
    assert set(data["deals"]) == {
        "AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"
    }  # fmt: skip
    assert not [e for e in data["errors"] if e.startswith("AUSTRIA")], data["errors"]
    text = runner.invoke(
        app,
        [
            "diplomacy", "play", "--negotiators", "dip_peaceful:Peaceful alliance",
            "--fast", "--last-year", "1901",
        ],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert text.exit_code == 0, text.output
    assert "deals" in text.output
    assert "sandbox: os for entered negotiators" in text.output
    res = runner.invoke(
        app,
        [
            "diplomacy", "tournament", "dip_peaceful:Peaceful", "alliance",
            "--games", "1", "--last-year", "1901", "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert {r["player"] for r in rows} >= {"dip_peaceful:Peaceful", "alliance"}
    assert len(rows) == 7 and all(r["stage"] == "group 0" for r in rows)
    text = runner.invoke(
        app,
        [
            "diplomacy", "tournament", "dip_peaceful:Peaceful", "alliance",
            "--games", "1", "--last-year", "1901",
        ],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert text.exit_code == 0, text.output
    assert "sandbox: os for entered negotiators" in text.output


def test_unknown_negotiator_and_bad_sandbox_mode_fail_before_work(
    entries: Path, tmp_path: Path
) -> None:
    res = runner.invoke(app, ["diplomacy", "play", "--negotiators", "genius", "--fast"])
    assert res.exit_code != 0 and "pkg" not in res.output
    assert "package.module:Class" in res.output
    res = runner.invoke(
        app,
        ["diplomacy", "play", "--negotiators", "dip_peaceful:Peaceful", "--sandbox", "bwrap"],
    )
    assert res.exit_code != 0 and "os, process, none" in " ".join(res.output.split())
    # an entered negotiator whose module is nowhere: one error before any game is played
    # (found without importing it), no results file
    out = tmp_path / "never-written.sqlite"
    for args in (
        ["play", "--negotiators", "alliance nowhere_dip.negs:Peaceful", "--fast"],
        ["tournament", "alliance", "nowhere_dip.negs:Peaceful", "--out", str(out)],
    ):
        res = runner.invoke(app, ["diplomacy", *args], env={"COLUMNS": "200"})
        said = " ".join(res.output.split())
        assert res.exit_code == 2 and "cannot import module 'nowhere_dip'" in said, said
        assert "Game ended" not in said and "ANAC 2017" not in said
    assert not out.exists()
    # a game cannot end before it starts
    for command in ("play", "tournament"):
        res = runner.invoke(app, ["diplomacy", command, "--last-year", "1900"])
        assert res.exit_code == 2 and "expected 1901 or later" in " ".join(res.output.split())
    # nor last no time
    for args in (
        ["play", "--round-seconds", "0"],
        ["tournament", "alliance", "--real-time", "--round-seconds", "0"],
        ["play", "--negotiators", "dip_peaceful:Peaceful", "--call-seconds", "0", "--fast"],
        ["tournament", "dip_peaceful:Peaceful", "--call-seconds", "0"],
    ):
        res = runner.invoke(app, ["diplomacy", *args])
        said = " ".join(res.output.split())
        assert res.exit_code == 2 and "> 0, got 0.0" in said and "Game ended" not in said, said


def test_an_entrant_whose_code_is_gone_is_given_up_once() -> None:
    """Its code vanished after the check: it is recorded once and negotiates no more
    (no new start at every tick), and the game goes on."""
    negs: dict[str, Negotiator | None] = {"FRANCE": SandboxedNegotiator("nowhere_dip.x:Y", 1)}
    rec = play_game(negs, seed=1, clock="virtual", last_year=1901)
    assert len(rec.errors) == 1 and "negotiates no more" in rec.errors[0], rec.errors
    assert "cannot import module 'nowhere_dip'" in rec.errors[0]
    assert rec.phases[-1]["phase"] == "W1901A"


@needs_os
def test_real_time_round_bounds_a_hanging_negotiator(entries: Path) -> None:
    negs: dict[str, Negotiator | None] = {
        "FRANCE": SandboxedNegotiator("dip_hostile:Spinner", 1, call_seconds=30.0)
    }
    t0 = time.monotonic()
    rec = play_game(negs, seed=1, clock="real", round_seconds=1.0, last_year=1901)
    took = time.monotonic() - t0
    assert "FRANCE: AgentTimeout" in "\n".join(rec.errors)
    assert took < 60  # two 1 s rounds; the spinner's call ends with its round


def test_process_mode_is_an_explicit_weaker_choice(entries: Path) -> None:
    res = runner.invoke(
        app,
        [
            "diplomacy", "play", "--negotiators", "dip_peaceful:Peaceful", "--sandbox",
            "process", "--fast", "--last-year", "1901",
        ],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "gives up OS isolation" in " ".join(res.output.split())
    assert "sandbox: process for entered negotiators" in res.output
