"""A submitted agent (``pkg.module:Class``) is a study opponent in the OS sandbox: the
person's game is the one the built-in agent plays, and the sandbox closes at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from accord.core.errors import ConfigError
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.sandbox import sandbox_available

ENTRIES = Path(__file__).parent / "entries"


def _play(folder: Path, opponent: str) -> tuple[dict[str, Any], Any]:
    app, study = create_trails_app(folder, trails_design([opponent]), password="pw-sandbox")
    with TestClient(app) as c:
        (inv,) = study.invite(1)
        c.post(inv.path)
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        s = c.get("/api/trails/state").json()
        for i in range(60):
            if s["done"]:
                break
            n = s["nColors"]
            body: dict[str, Any] = {
                "propose": {"kind": "propose", "give": [0] * n, "take": [0] * n}
                if i % 2
                else {"kind": "pass"},
                "respond": {"kind": "respond", "accept": True},
                "transfer": {"kind": "transfer", "send": s["promised"]["mine"]}
                if s["promised"]
                else {},
                "move": {"kind": "endmove"},
            }[s["phase"]]
            s = c.post("/api/trails/act", json=body).json()
        service = app.state.trails
        (m,) = service.matches.values()
        seat = m.agents[1]
    study.close()
    return s, seat


@pytest.mark.skipif(sandbox_available() is not None, reason=f"{sandbox_available()}")
def test_a_submitted_opponent_plays_in_the_sandbox_as_the_built_in_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ENTRIES))
    boxed, seat = _play(tmp_path / "boxed", "trails_entries:Reliable")
    builtin, _ = _play(tmp_path / "builtin", "reliable")
    assert boxed["done"] and boxed == builtin
    assert not seat.agent.entrant.box.alive  # closed when the game ended


def test_a_study_refuses_an_unknown_sandbox_mode() -> None:
    with pytest.raises(ConfigError, match="sandbox must be one of os, process, none, off"):
        trails_design(["trails_entries:Reliable"], sandbox="docker")
