"""The safety baseline every app of create_app gets: headers, bounds, idempotent actions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from fastapi import APIRouter
from fastapi.testclient import TestClient
from pydantic import BaseModel

from accord.web.app import create_app
from accord.web.safety import CSP, MAX_INT, check_json


class Add(BaseModel):
    n: int


class Counter:
    """A service whose every POST has an effect: a repeat must not have a second one."""

    def __init__(self) -> None:
        self.total = 0
        self.calls = 0

    def router(self) -> APIRouter:
        r = APIRouter()

        @r.post("/add")
        async def add(body: Add) -> dict[str, int]:
            self.calls += 1
            await asyncio.sleep(0.01)
            self.total += body.n
            return {"total": self.total, "call": self.calls}

        @r.get("/item/{k}")
        def item(k: int) -> dict[str, int]:
            return {"k": k}

        return r


def client(tmp_path: Path) -> tuple[TestClient, Counter]:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "index.html").write_text("<!doctype html><p>hi</p>")
    c = Counter()
    return TestClient(create_app("t", c, static={"/": pages})), c


def test_every_answer_carries_the_strict_policy(tmp_path: Path) -> None:
    tc, _ = client(tmp_path)
    for r in (
        tc.get("/"),
        tc.get("/nowhere"),
        tc.post("/add", json={"n": 1}),
        tc.get("/accord/safe.js"),
    ):
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"
    for part in (
        "script-src 'self';",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ):
        assert part in CSP
    assert "unsafe-eval" not in CSP and "'unsafe-inline'" not in CSP.split("style-src")[0]
    assert tc.get("/accord/safe.js").headers["content-type"].startswith("text/javascript")


def test_huge_numbers_are_refused_before_the_route(tmp_path: Path) -> None:
    tc, c = client(tmp_path)
    r = tc.post("/add", json={"n": 10**30})
    assert r.status_code == 422 and r.json()["code"] == "out_of_range"
    assert "the number 100000000000...000000 (31 digits) is out of range" in r.json()["error"]
    assert tc.post("/add", json={"n": MAX_INT}).json()["total"] == MAX_INT
    assert tc.post("/add", json={"n": MAX_INT + 1}).status_code == 422
    digits = "9" * 5000  # more digits than Python converts by default
    r = tc.post("/add", content=f'{{"n": {digits}}}', headers={"content-type": "application/json"})
    assert r.status_code == 422 and "(5000 digits)" in r.json()["error"]
    for raw in ('{"n": NaN}', '{"n": Infinity}', '{"n": 1e999}'):
        r = tc.post("/add", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 422, raw
    deep = "[" * 40 + "]" * 40
    r = tc.post("/add", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nested deeper than 32" in r.json()["error"]
    very_deep = "[" * 100_000 + "]" * 100_000
    r = tc.post("/add", content=very_deep, headers={"content-type": "application/json"})
    assert r.status_code == 400
    r = tc.get("/item/" + "1" * 30)
    assert r.status_code == 422 and r.json()["code"] == "out_of_range"
    assert tc.get("/item/12").json() == {"k": 12}
    assert c.calls == 1  # only the one in range ran
    assert check_json(json.dumps({"a": [1, 2.5, "x", None]}).encode()) is None


def test_a_repeated_request_has_no_second_effect(tmp_path: Path) -> None:
    tc, c = client(tmp_path)
    key = {"Idempotency-Key": "click-1"}
    first = tc.post("/add", json={"n": 5}, headers=key)
    again = tc.post("/add", json={"n": 5}, headers=key)
    assert first.json() == again.json() == {"total": 5, "call": 1}
    assert again.headers["idempotent-replay"] == "true" and c.total == 5
    other = tc.post("/add", json={"n": 6}, headers=key)
    assert other.status_code == 409 and other.json()["code"] == "key_reused" and c.total == 5
    assert (
        tc.post("/add", json={"n": 1}, headers={"Idempotency-Key": "click-2"}).json()["total"] == 6
    )
    # another caller (other cookies) with the same key is another act
    tc2 = TestClient(tc.app, cookies={"accord_participant": "someone"})
    assert tc2.post("/add", json={"n": 5}, headers=key).json()["total"] == 11


def test_two_copies_at_once_run_once(tmp_path: Path) -> None:
    import httpx

    from accord.web.runner import BackgroundServer

    c = Counter()
    app = create_app("t", c)

    async def both(url: str) -> list[dict[str, int]]:
        async with httpx.AsyncClient(base_url=url, trust_env=False) as h:
            key = {"Idempotency-Key": "double-click"}
            rs = await asyncio.gather(
                *[h.post("/add", json={"n": 2}, headers=key) for _ in range(5)]
            )
        return [r.json() for r in rs]

    with BackgroundServer(app) as srv:
        answers = asyncio.run(both(srv.url))
    assert answers == [{"total": 2, "call": 1}] * 5 and c.calls == 1
