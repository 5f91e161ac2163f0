"""The competition manager's HTTP API: login, registration, planning, results, restarts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from accord.leagues.humaine.manager.app import create_manager_app

PASSWORD = "correct horse"


def totals(celia: float, watson: float, human: float) -> dict:
    return {
        "Human": {"utility": {"currencyUnit": "USD", "value": human}},
        "Celia": {"utility": {"currencyUnit": "USD", "value": celia}},
        "Watson": {"utility": {"currencyUnit": "USD", "value": watson}},
    }


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make(db: Path | str, **kw) -> TestClient:
    kw.setdefault("admin_password", PASSWORD)
    kw.setdefault("orchestrator_url", f"http://127.0.0.1:{closed_port()}")
    return TestClient(create_manager_app(db, **kw))


def login(c: TestClient) -> TestClient:
    r = c.post("/api/login", json={"username": "admin", "password": PASSWORD})
    assert r.status_code == 200, r.text
    return c


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return login(make(tmp_path / "m.sqlite"))


def register(c: TestClient, agents: list[str], humans: list[str]) -> None:
    for i, a in enumerate(agents):
        assert c.post("/api/agents", json={"name": a, "port": 15000 + i}).status_code == 201
    for h in humans:
        assert c.post("/api/humans", json={"name": h}).status_code == 201


def test_admin_routes_need_a_login(tmp_path):
    c = make(tmp_path / "m.sqlite")
    r = c.get("/api/contestants")
    assert r.status_code == 401 and "admin login required" in r.json()["error"]
    assert c.post("/api/agents", json={"name": "x", "port": 1}).status_code == 401
    assert c.get("/api/me").json() == {"admin": False, "username": None}
    bad = c.post("/api/login", json={"username": "admin", "password": "nope nope"})
    assert bad.status_code == 401 and bad.json()["error"] == "wrong user name or password"
    login(c)
    assert c.get("/api/me").json() == {"admin": True, "username": "admin"}
    assert c.post("/api/logout").json() == {"ok": True}
    assert c.get("/api/contestants").status_code == 401


def test_session_cookie_is_http_only_and_the_password_is_stored_hashed(tmp_path):
    db = tmp_path / "m.sqlite"
    c = make(db)
    r = c.post("/api/login", json={"username": "admin", "password": PASSWORD})
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert PASSWORD.encode() not in db.read_bytes()


def test_a_fresh_manager_without_a_password_makes_a_random_one(tmp_path):
    app = create_manager_app(tmp_path / "m.sqlite", orchestrator_url=None)
    pw = app.state.initial_password
    assert isinstance(pw, str) and len(pw) >= 10
    c = TestClient(app)
    assert c.post("/api/login", json={"username": "admin", "password": pw}).status_code == 200


def test_register_and_remove_contestants(client):
    register(client, ["kleene", "jok"], ["alice"])
    got = client.get("/api/contestants").json()
    assert got["agents"] == [
        {
            "name": "kleene",
            "protocol": "http",
            "host": "127.0.0.1",
            "port": 15000,
            "authenticated": True,
        },
        {
            "name": "jok",
            "protocol": "http",
            "host": "127.0.0.1",
            "port": 15001,
            "authenticated": True,
        },
    ]
    assert got["humans"] == ["alice"]
    assert client.delete("/api/agents/jok").json() == {"ok": True}
    assert client.delete("/api/agents/jok").status_code == 404
    assert [a["name"] for a in client.get("/api/contestants").json()["agents"]] == ["kleene"]


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"name": "kleene", "port": 1}, 409, "already registered"),
        ({"name": "Celia", "port": 1}, 409, "is reserved"),
        ({"name": "dummy-2", "port": 1}, 409, "is reserved"),
        ({"name": "x", "port": 70000}, 409, "port must be a whole number in 1..65535"),
        ({"name": "x", "port": 1, "host": "a/b"}, 409, "host must be a host name"),
        ({"name": "x", "port": 1, "protocol": "ftp"}, 409, "protocol must be 'http' or 'https'"),
        ({"name": "<b>", "port": 1}, 409, "must be 1-40 characters"),
        ({"name": "x"}, 422, "port"),
    ],
)
def test_bad_agent_registrations_are_refused_with_the_reason(client, body, status, detail):
    register(client, ["kleene"], [])
    r = client.post("/api/agents", json=body)
    assert r.status_code == status
    assert detail in str(r.json()["error"])


def test_settings_are_checked(client):
    s = client.get("/api/settings").json()
    assert s["durations"] == {"warmUp": 30, "round": 300, "post": 120}
    r = client.put("/api/settings", json={"nPools": 1, "humanBudget": 60})
    assert r.status_code == 200 and r.json()["nPools"] == 1 and r.json()["humanBudget"] == 60
    for patch, detail in [
        ({"roundsPerMatch": 3}, "roundsPerMatch must be even"),
        ({"advance": 3}, "advance must be a whole number in 1..2"),
        ({"durations": {"warmUp": 1}}, "needs exactly warmUp, round, post"),
        ({"colour": "red"}, "unknown settings ['colour']"),
    ]:
        r = client.put("/api/settings", json=patch)
        assert r.status_code == 409 and detail in r.json()["error"], r.text


def test_pools_lock_the_contestants_and_show_in_the_schedule(client):
    register(client, ["a", "b", "c"], ["h1", "h2"])
    client.put("/api/settings", json={"nPools": 1})
    r = client.post("/api/pools")
    assert r.status_code == 200 and r.json()["rounds"] == 6
    assert client.post("/api/pools").status_code == 409
    locked = client.post("/api/agents", json={"name": "late", "port": 1})
    assert locked.status_code == 409 and "already scheduled" in locked.json()["error"]
    sched = client.get("/api/schedule").json()
    assert [s["name"] for s in sched["stages"]] == ["pool"]
    assert sorted(sched["stages"][0]["groups"]["A"]) == ["a", "b", "c"]
    rounds = sched["rounds"]
    assert [r["number"] for r in rounds] == [1, 2, 3, 4, 5, 6]
    assert all(r["status"] == "scheduled" for r in rounds)
    u = client.get(f"/api/utilities/{rounds[0]['celia_utility']}").json()
    assert u["kind"] == "seller" and set(u["body"]["utility"]) >= {"egg", "flour", "milk"}
    b = client.get(f"/api/utilities/{rounds[0]['buyer_utility']}").json()
    assert b["kind"] == "buyer" and set(b["body"]["utility"]) == {"cake", "pancake"}


def test_starting_a_round_with_the_orchestrator_down_marks_it_failed(client):
    register(client, ["a", "b"], ["h"])
    client.put("/api/settings", json={"nPools": 1})
    client.post("/api/pools")
    r = client.post("/api/rounds/1/start")
    assert r.status_code == 502 and "orchestrator unreachable" in r.json()["error"]
    row = client.get("/api/schedule").json()["rounds"][0]
    assert row["status"] == "failed" and "unreachable" in row["error"]
    assert client.post("/api/rounds/99/start").status_code == 404


def test_round_totals_make_the_leaderboard_and_unknown_round_ids_are_refused(client):
    register(client, ["a", "b"], ["h"])
    client.put("/api/settings", json={"nPools": 1})
    client.post("/api/pools")
    rounds = client.get("/api/schedule").json()["rounds"]
    for r, (c, w, h) in zip(rounds, [(1.5, 2.25, 20.0), (0.75, 3.0, 30.5)], strict=True):
        res = client.post(
            f"/api/rounds/{r['number']}/totals", json={"roundTotals": totals(c, w, h)}
        )
        assert res.status_code == 200 and res.json()["status"] == "done"
    expected = {}
    for r, (c, w) in zip(rounds, [(1.5, 2.25), (0.75, 3.0)], strict=True):
        expected[r["celia"]] = expected.get(r["celia"], 0) + c
        expected[r["watson"]] = expected.get(r["watson"], 0) + w
    board = client.get("/api/leaderboard").json()
    assert {s["name"]: s["total"] for s in board["agents"]} == expected
    assert board["humans"][0] == {
        "rank": 1, "name": "h", "kind": "human", "rounds": 2, "total": 50.5,
        "mean": 25.25, "dummy": False,
    }  # fmt: skip
    assert board["roundsDone"] == 2 and board["roundsTotal"] == 2
    unknown = client.post("/receiveRoundTotals", json={"roundId": "nope", "roundTotals": {}})
    assert unknown.status_code == 404 and "no round with roundId 'nope'" in unknown.json()["error"]
    bad = client.post("/api/rounds/1/totals", json={"roundTotals": {"Celia": 5}})
    assert bad.status_code == 409 and "must be an object" in bad.json()["error"]


def test_human_ui_routes_are_acknowledged_so_the_manager_can_listen(client):
    r = client.post("/setUtility", json={"roundId": "r1", "utility": {}})
    assert r.json() == {"status": "acknowledged", "roundId": "r1"}


def test_championship_from_pools_to_a_champion(client):
    register(client, ["a", "b", "c", "d"], ["h"])
    client.put("/api/settings", json={"nPools": 2, "advance": 1, "roundsPerMatch": 2})
    client.post("/api/pools")
    early = client.post("/api/championship")
    assert early.status_code == 409 and "pool is not finished" in early.json()["error"]
    skill = {"a": 4.0, "b": 1.0, "c": 2.0, "d": 3.0}

    def play(stage: str) -> None:
        for r in client.get("/api/schedule").json()["rounds"]:
            if r["stage"] == stage:
                t = totals(skill[r["celia"]], skill[r["watson"]], 10.0)
                client.post(f"/api/rounds/{r['number']}/totals", json={"roundTotals": t})

    play("pool")
    final = client.post("/api/championship").json()
    assert final["stage"] == "final" and final["rounds"] == 2
    pools = client.get("/api/schedule").json()["stages"][0]["groups"]
    winners = {max(m, key=skill.get) for m in pools.values()}
    assert set(final["groups"]["F"]) == winners
    assert client.get("/api/leaderboard").json()["champion"] is None
    play("final")
    assert client.get("/api/leaderboard").json()["champion"] == max(winners, key=skill.get)
    done = client.post("/api/championship")
    assert done.status_code == 409 and "the champion is" in done.json()["error"]


def test_everything_survives_a_restart(tmp_path):
    db = tmp_path / "m.sqlite"
    c = login(make(db))
    register(c, ["a", "b", "c"], ["h"])
    c.put("/api/settings", json={"nPools": 1, "humanBudget": 42})
    c.post("/api/pools")
    c.post("/api/rounds/2/totals", json={"roundTotals": totals(1, 2, 3)})
    before = (c.get("/api/schedule").json(), c.get("/api/leaderboard").json())
    c.app.state.competition.store.close()
    again = login(make(db, admin_password=None))  # the old password still works
    assert (again.get("/api/schedule").json(), again.get("/api/leaderboard").json()) == before
    assert again.get("/api/settings").json()["humanBudget"] == 42


def test_pages_are_served(client):
    for page in ("index.html", "schedule.html", "leaderboard.html", "login.html", "nav.js"):
        assert client.get(f"/{page}").status_code == 200, page
    assert "HUMAINE" in client.get("/").text
    assert client.get("/common/style.css").status_code == 200


def test_round_body_sends_each_agent_its_planned_utility_and_dummies_need_an_endpoint(client):
    register(client, ["a", "b", "c"], ["h"])
    client.put(
        "/api/settings", json={"nPools": 2, "durations": {"warmUp": 1, "round": 9, "post": 3}}
    )
    client.post("/api/pools")
    comp = client.app.state.competition
    rounds = comp.store.rounds()
    real = next(r for r in rounds if not any(x.startswith("dummy-") for x in (r.celia, r.watson)))
    body = comp.round_body(real)
    assert [a["name"] for a in body["agents"]] == ["Celia", "Watson"]
    celia = comp.store.agent(real.celia)
    assert (body["agents"][0]["host"], body["agents"][0]["port"]) == (celia.host, celia.port)
    assert body["agents"][0]["utilityFunction"] == comp.store.utility(real.celia_utility)["body"]
    assert body["agents"][1]["utilityFunction"] == comp.store.utility(real.watson_utility)["body"]
    # the manager starts the round, so it makes each speaker's secret for it
    secrets = [body["agents"][0].pop("token"), body["agents"][1].pop("token")]
    secrets.append(body["human"].pop("token"))
    assert len(set(secrets)) == 3 and all(len(x) >= 32 for x in secrets)
    assert comp.round_body(real)["human"]["token"] != secrets[2]  # fresh for every start
    assert body["human"] == {
        "name": "h", "utilityFunction": comp.store.utility(real.buyer_utility)["body"],
    }  # fmt: skip
    assert body["durations"] == {"warmUp": 1, "round": 9, "post": 3}
    dummy = next(r for r in rounds if r.number != real.number and "dummy-1" in (r.celia, r.watson))
    r = client.post(f"/api/rounds/{dummy.number}/start")
    assert r.status_code == 409 and "set the dummyAgent setting" in r.json()["error"]
    client.put("/api/settings", json={"dummyAgent": {"host": "127.0.0.1", "port": 14099}})
    seat = 0 if dummy.celia == "dummy-1" else 1
    assert comp.round_body(dummy)["agents"][seat]["port"] == 14099
