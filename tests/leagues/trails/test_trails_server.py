"""The Colored Trails study service over HTTP: a person against PURB, bad input."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from accord.core.errors import ConfigError
from accord.leagues.trails.analysis import compare, rows_from_study_csv
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread


def _person(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url)
    c.post(path)
    me = c.post("/api/participant/consent", json={"agree": True, "version": "1"}).json()
    assert me["next"] == "/trails/play.html"
    return c


def test_person_against_purb_to_the_end(tmp_path: Path) -> None:
    app, study = create_trails_app(tmp_path / "s", trails_design(["purb"]), password="pw-trails")
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        person = _person(server.url, inv.path)
        s = person.get("/api/trails/state").json()
        assert s["opponent"] == "purb" and s["me"] == 0 and s["myTurn"]
        assert s["chips"][1] is not None and len(s["colors"]) == s["rows"] * s["cols"]
        bad = person.post("/api/trails/act", json={"kind": "propose", "give": [1], "take": [0]})
        assert bad.status_code == 422 and bad.json()["status"] == "Failed"
        wrong = person.post("/api/trails/act", json={"kind": "move", "cell": 999})
        assert wrong.status_code == 409 and wrong.json()["code"] == "refused"
        assert "now is the time to make or pass on a proposal" in wrong.json()["error"]
        assert person.get("/api/trails/state").json() == s  # refused: nothing changed
        for _ in range(40):  # the person passes, answers no, sends nothing, never moves
            if s["done"]:
                break
            kind = {
                "propose": "pass",
                "respond": "respond",
                "transfer": "transfer",
                "move": "endmove",
            }
            body: dict[str, object] = {"kind": kind[s["phase"]]}
            if s["phase"] == "transfer":
                body["send"] = [0] * s["nColors"]
            s = person.post("/api/trails/act", json=body).json()
        assert s["done"] and s["end"] in {"dormant", "goal"}
        assert person.get("/api/participant").json()["status"] == "done"
        admin = httpx.Client(base_url=server.url)
        admin.post("/api/login", json={"username": "experimenter", "password": "pw-trails"})
        export = tmp_path / "events.csv"
        export.write_text(admin.get("/api/study/events.csv").text)
    row, agent_row = rows_from_study_csv(export)
    assert row["population"] == "people" and row["agent"] == "person"
    assert agent_row["population"] == "agents-vs-people" and agent_row["agent"] == "purb"
    assert agent_row["score"] == s["scores"][1] and row["cls"] == "mutual"
    assert row["score"] == s["scores"][0] and row["promised"] == 0 and row["kept"] is None
    assert compare([row])["people"]["person"]["games"] == 1
    with pytest.raises(ConfigError, match="unknown opponent"):
        trails_design(["nobody"])
