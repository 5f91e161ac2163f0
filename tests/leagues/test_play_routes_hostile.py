"""Hostile requests to the shared play routes (``state``, ``act``, ``live``) where they
serve: the web driver's page (a party's token), the Colored Trails, GENIUS and HAN study
pages (a participant's cookie). Each gets one clear 4xx in the one error body, and
the server keeps serving the seat's state afterwards."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.commands.play import build_game
from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.leagues.han.server import create_han_app
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.app import create_app
from accord.web.clock import VirtualClock
from accord.web.driver import PLAY_PAGE
from accord.web.testing import ServerThread

PW = "pw-hostile-routes"
JSON = {"content-type": "application/json"}


def _study_person(url: str, study: Any) -> httpx.Client:
    (inv,) = study.invite(1)
    c = httpx.Client(base_url=url, timeout=30, trust_env=False)
    c.post(inv.path)
    assert c.post("/api/participant/consent", json={"agree": True, "version": "1"}).is_success
    return c


Site = tuple[httpx.Client, str, str, httpx.Client]  # the seat, its routes, its query, a stranger


def _driver(tmp_path: Path) -> tuple[Any, Callable[[str], Site]]:
    game = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())

    def seat(url: str) -> Site:
        c = httpx.Client(base_url=url, timeout=30, trust_env=False)
        return c, "/api", f"?party=0&token={game.tokens[0]}", c

    return create_app("play", game, static={"/": PLAY_PAGE}), seat


def _study_site(app: Any, study: Any, api: str) -> tuple[Any, Callable[[str], Site]]:
    """A study app's site: a consenting participant, its routes, and a stranger."""
    return app, lambda url: (_study_person(url, study), api, "", httpx.Client(base_url=url))


def _trails(tmp_path: Path) -> tuple[Any, Callable[[str], Site]]:
    app, study = create_trails_app(tmp_path, trails_design(["purb"]), password=PW)
    return _study_site(app, study, "/api/trails")


def _genius(tmp_path: Path) -> tuple[Any, Callable[[str], Site]]:
    app, study = create_genius_app(tmp_path, genius_design([condition("kbagent")]), password=PW)
    return _study_site(app, study, "/api/genius")


def _han(tmp_path: Path) -> tuple[Any, Callable[[str], Site]]:
    app, study, _ = create_han_app(tmp_path / "han.sqlite", ["fair"], password=PW)
    return _study_site(app, study, "/api/han")


ACT = {"driver": "/act", "trails": "/act", "genius": "/action", "han": "/event"}


@pytest.fixture(params=[_driver, _trails, _genius, _han], ids=["driver", "trails", "genius", "han"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Site]]:
    app, seat = request.param(tmp_path)
    with ServerThread(app) as server:
        yield request.param.__name__.lstrip("_"), seat(server.url)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("malformed JSON", {"content": b'{"kind": "offer", '}),
    ("not an object", {"content": b'"offer"'}),
    ("a list", {"content": b"[1, 2, 3]"}),
    ("wrong types", {"content": json.dumps({"kind": 5, "args": [1], "give": "all"}).encode()}),
    ("an unknown kind", {"content": json.dumps({"kind": "steal", "args": {}}).encode()}),
    ("a huge number", {"content": b'{"kind": "offer", "give": [1000000000000000000000000000000]}'}),
    ("NaN", {"content": b'{"kind": "offer", "args": {"x": NaN}}'}),
    ("deep nesting", {"content": _deep(200).encode()}),
    ("a huge body", {"content": b'{"kind": "' + b"x" * 400_000 + b'"}'}),
    ("script text", {"content": json.dumps({"kind": "<script>alert(1)</script>"}).encode()}),
]


@pytest.mark.parametrize(("what", "request_kw"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_action_gets_one_clear_4xx_and_the_server_keeps_serving(
    site: tuple[str, Site], what: str, request_kw: dict[str, Any]
) -> None:
    name, (me, api, query, _) = site
    before = me.get(f"{api}/state{query}")
    assert before.status_code == 200
    act = ACT[name]
    r = me.post(f"{api}{act}{query}", headers=JSON, **request_kw)
    assert 400 <= r.status_code < 500, (what, r.status_code, r.text[:300])
    body = r.json()
    assert body["status"] == "Failed" and body["code"] and 0 < len(body["error"]) < 2000
    assert "<script>" not in r.headers.get("content-type", "")
    assert r.headers["content-security-policy"].startswith("default-src 'self'")
    after = me.get(f"{api}/state{query}")
    assert after.status_code == 200 and after.json().get("version") == before.json().get("version")


def test_a_wrong_seat_or_token_is_refused_on_every_route(site: tuple[str, Site]) -> None:
    name, (me, api, query, stranger) = site
    act = ACT[name]
    if name == "driver":
        wrong = ["?party=0&token=guess", "?party=1&token=" + query.rsplit("=", 1)[1],
                 "?party=-1&token=x", "?party=99999999999999999999&token=x", "?party=0"]  # fmt: skip
        asks = [(me, q) for q in wrong]
    else:
        forged = httpx.Client(base_url=str(me.base_url), cookies={"accord_participant": "forged"})
        asks = [(stranger, ""), (forged, "")]
    for client, q in asks:
        for method, path in (("GET", "/state"), ("POST", act), ("GET", "/live")):
            r = client.request(method, f"{api}{path}{q}", json={"kind": "pass", "args": {}})
            assert r.status_code in (401, 403, 422), (method, path, q, r.status_code)
            assert r.json()["status"] == "Failed" and r.json()["error"]
    assert me.get(f"{api}/state{query}").status_code == 200


def test_every_playing_page_is_served_by_the_shared_play_routes(tmp_path: Path) -> None:
    """The web driver's page and the Trails, GENIUS and HAN study pages: their state, act
    and live routes are those of accord.web.playroutes (no league writes its own)."""
    routers = {
        "driver": build_game("aop", "lunch", "boulware", rounds=10).router(),
        "trails": create_trails_app(tmp_path / "t", trails_design(["purb"]))[0].state.trails,
        "genius": create_genius_app(tmp_path / "g", genius_design([condition("kbagent")]))[
            0
        ].state.genius,
        "han": create_han_app(tmp_path / "han.sqlite", ["fair"])[2],
    }
    for name, router in routers.items():
        routes = router.routes if name == "driver" else router.router().routes
        api = "/api" if name == "driver" else f"/api/{name}"
        wanted = {f"{api}/state", f"{api}{ACT[name]}", f"{api}/live"}
        found = {r.path: r.endpoint.__module__ for r in routes if r.path in wanted}
        assert found == dict.fromkeys(wanted, "accord.web.playroutes"), name


def test_openapi_shows_an_action_body_only_where_a_model_checks_it(tmp_path: Path) -> None:
    """Trails and the driver check the action with a model, which OpenAPI shows; GENIUS
    and HAN read the page's JSON with their rules' own words, so no model is claimed."""
    apps = {
        "driver": _driver(tmp_path)[0],
        "trails": _trails(tmp_path / "t")[0],
        "genius": _genius(tmp_path / "g")[0],
        "han": _han(tmp_path / "h")[0],
    }
    bodies = {}
    for name, app in apps.items():
        path = "/api" + ("" if name == "driver" else f"/{name}") + ACT[name]
        body = app.openapi()["paths"][path]["post"].get("requestBody")
        bodies[name] = body and body["content"]["application/json"]["schema"]["$ref"]
    assert bodies == {
        "driver": "#/components/schemas/WireAction",
        "trails": "#/components/schemas/ActIn",
        "genius": None,
        "han": None,
    }
