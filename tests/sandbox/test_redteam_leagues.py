"""Red team, GENIUS sessions and study sessions (a person against the entrant, as the
study server runs them), Colored Trails games and Diplomacy negotiators: the
catalogue of ``league_entries/hostile_core.py`` (files, /proc of the organiser read and
written, signals, network, lifted limits, memory, threads, fork bomb, then
``KeyboardInterrupt`` and ``SystemExit``) runs inside each league's entrant, and a
crafted pickle and a partial frame break its channel. Each is recorded against that
entrant with its reason, the game goes on to its end, and nothing escapes: no probe
gets out, the pickle never runs, the results and scenario files are untouched.

One game per league plays the whole catalogue (one sandbox), one more the two channel
attacks (a sandbox each; Diplomacy's partial frame is the timeout its own red-team test
covers with a hanging negotiator), so the suite stays quick.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import accord

pytestmark = pytest.mark.needs_bwrap
TEMPLATE = Path(__file__).parent / "league_entries"
KIT = Path(__file__).parent / "entries" / "hostile_kit.py"  # what every hostile entrant uses
SCENARIO = Path(accord.__file__).parent / "scenarios" / "holiday.json"
CONTAINED = "contained: 9 probes, none got out"


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The entrants' folder (the catalogue, the hostile kit and the targets) on the path,
    and the targets."""
    folder = tmp_path_factory.mktemp("league_entries")
    for src in [*TEMPLATE.glob("*.py"), KIT]:
        shutil.copy(src, folder / src.name)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    results = folder.parent / "results.sqlite"
    results.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    found = {
        "PID": os.getpid(), "RESULTS": str(results), "SCENARIO": str(SCENARIO),
        "PORT": listener.getsockname()[1], "MARK": str(folder.parent / "pwned"),
    }  # fmt: skip
    (folder / "redteam_targets.py").write_text("".join(f"{k} = {v!r}\n" for k, v in found.items()))
    sys.path.insert(0, str(folder))
    yield found
    sys.path.remove(str(folder))
    listener.close()


def _genius(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str], list[str]]:
    from accord.leagues.genius import sandboxed
    from accord.leagues.genius.loading import load_domain
    from accord.leagues.genius.match import Match
    from accord.leagues.genius.pdas import make_agent

    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 30.0)  # generous: the probes take a while
    jc = load_domain("job_candidate")
    r = Match(jc, [sandboxed.sandboxed("hostile_genius:GeniusCatalogue"),
                   make_agent("conceder")], (0, 1), seed=3).run()  # fmt: skip
    assert r.invalid[1] == 0 and r.reason.value in ("deadline", "opt_out", "agreement")
    mine = [str(e.error) for e in r.events if not e.ok]
    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 1.0)  # the partial frame's deadline
    broken = Match(jc, [sandboxed.sandboxed("hostile_genius:GeniusPickler"),
                        sandboxed.sandboxed("hostile_genius:GeniusPartial")], (0, 1),
                   seed=3).run()  # fmt: skip
    first = {}
    for e in broken.events:
        if not e.ok:
            first.setdefault(e.party, str(e.error))
    return mine, [first[0]], [first[1]]


def _genius_study(monkeypatch: pytest.MonkeyPatch, tmp: Path) -> tuple[list[str], None, None]:
    """A study session of the GENIUS server: a person against the entrant (the channel
    attacks are the same adapter's as in the sessions above)."""
    from accord.leagues.genius import sandboxed
    from accord.leagues.genius.live import LiveSession
    from accord.leagues.genius.protocol import Action, Rules, VirtualClock
    from accord.leagues.genius.store import GeniusStore

    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 30.0)
    clock = VirtualClock(5000.0)
    store = GeniusStore(tmp / "genius.sqlite")
    names = ("person:ann", "agent:hostile_genius:GeniusCatalogue")
    live = LiveSession.create(store, "s1", "job_candidate", (0, 2), Rules(turn_seconds=120),
                              names, clock=clock)  # fmt: skip
    for _ in range(4):  # four turns: the agent acts in each
        clock.advance(121)
        live.poll()
    end = live.submit(0, Action.opt_out())
    assert end.result is not None and end.result.ended_by == 0
    row = store.session("s1")
    assert row is not None and row["status"] == "ended"
    mine = [str(e["error"]) for e in store.events("s1") if e["party"] == 1 and not e["ok"]]
    live.close()
    store.close()
    return mine, None, None


def _trails(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str], list[str]]:
    from accord.leagues.trails import sandboxed
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import play

    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 30.0)  # generous: the probes take a while
    r = play(generate("mutual", 3), ["hostile_trails:TrailsCatalogue", "reliable"], seed=2)
    assert {v["player"] for v in r["violations"]} == {0} and len(r["scores"]) == 2
    mine = [v["reason"] for v in r["violations"]]
    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 1.0)  # the partial frame's deadline
    broken = play(generate("mutual", 3), ["hostile_trails:TrailsPickler",
                                          "hostile_trails:TrailsPartial"], seed=2)  # fmt: skip
    by = {p: [v["reason"] for v in broken["violations"] if v["player"] == p] for p in (0, 1)}
    return mine, by[0], by[1]


def _diplomacy(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str], None]:
    pytest.importorskip("diplomacy", reason="needs the optional engine: pip install '.[diplomacy]'")
    from accord.leagues.diplomacy.negotiator import AllianceNegotiator, Negotiator
    from accord.leagues.diplomacy.runner import play_game
    from accord.leagues.diplomacy.sandboxed import SandboxedNegotiator

    negs: dict[str, Negotiator | None] = {
        "AUSTRIA": SandboxedNegotiator("hostile_dip:DipCatalogue", 1, call_seconds=20.0),
        "ENGLAND": SandboxedNegotiator("hostile_dip:DipPickler", 2, call_seconds=20.0),
        "ITALY": AllianceNegotiator(4),
        "FRANCE": AllianceNegotiator(5),
    }
    rec = play_game(negs, seed=3, clock="virtual", ticks=2, last_year=1901, candidates=2)
    assert rec.end == "cap"
    by = {p: [e for e in rec.errors if e.startswith(p + ":")] for p in negs}
    assert by["ITALY"] == by["FRANCE"] == []
    # (a partial frame is a timeout like the hanging negotiator of test_diplomacy_sandbox)
    return by["AUSTRIA"], by["ENGLAND"], None


Run = Callable[..., tuple[list[str], list[str] | None, list[str] | None]]
LEAGUES: dict[str, Run] = {
    "genius": _genius,
    "genius-study": _genius_study,
    "trails": _trails,
    "diplomacy": _diplomacy,
}


@pytest.mark.parametrize("league", sorted(LEAGUES))
def test_the_catalogue_is_contained_and_recorded_against_the_entrant(
    league: str, targets: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run = LEAGUES[league]
    args = (monkeypatch, tmp_path) if league == "genius-study" else (monkeypatch,)
    catalogue, pickler, partial = run(*args)
    assert len(catalogue) >= 3, catalogue
    assert CONTAINED in catalogue[0], catalogue[0]  # every probe ran and none got out
    assert "KeyboardInterrupt" in catalogue[1] and "SystemExit" in catalogue[2], catalogue
    if pickler is not None:
        assert pickler and "frame of kind 80" in pickler[0], pickler  # refused, never loaded
    if partial is not None:
        assert partial and ("1 s" in partial[0] or "timed out" in partial[0]), partial
    assert not Path(targets["MARK"]).exists()
    assert Path(targets["RESULTS"]).read_bytes() == b"SQLite format 3\x00" + b"\x00" * 100
    assert SCENARIO.stat().st_size > 100
