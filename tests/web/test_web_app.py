"""The app factory: one error body everywhere, typed bodies in OpenAPI, body limit."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from accord.core.errors import ConfigError
from accord.web import WebError, create_app, parse, read_json
from accord.web.testing import ServerThread


class PointIn(BaseModel):
    x: int = Field(ge=0)
    label: str = Field(max_length=5)


class Points:
    """A service owning its state (no closures in the factory)."""

    def __init__(self) -> None:
        self.points: list[PointIn] = []
        self.opened = self.closed = False

    def open(self) -> None:
        self.opened = True

    async def close(self) -> None:
        self.closed = True

    def router(self) -> APIRouter:
        r = APIRouter()

        @r.post("/points")
        def add(body: PointIn) -> dict[str, int]:
            self.points.append(body)
            return {"n": len(self.points)}

        @r.post("/raw")
        async def raw(request: Request) -> dict[str, Any]:
            point = parse(PointIn, await read_json(request), "point")
            return point.model_dump()

        @r.get("/missing/{name}")
        def missing(name: str) -> None:
            raise WebError(404, f"no point named {name!r}")

        @r.get("/config")
        def config() -> None:
            raise ConfigError("seed must be a whole number; got 'x'")

        @r.get("/bug")
        def bug() -> None:
            raise ZeroDivisionError("oops")

        return r


@pytest.fixture(scope="module")
def served() -> Any:
    service = Points()
    app = create_app("points", service, max_body_bytes=1000)
    with ServerThread(app) as srv, httpx.Client(base_url=srv.url, timeout=10) as client:
        yield service, client
    assert service.opened and service.closed


def failed(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["status"] == "Failed" and body["code"] == code
    return body


def test_typed_bodies_work_and_wrong_ones_name_every_field(served: Any) -> None:
    service, client = served
    assert client.post("/points", json={"x": 1, "label": "a"}).json() == {"n": 1}
    body = failed(client.post("/points", json={"x": -1, "label": "toolong"}), 422, "invalid")
    assert [f["loc"] for f in body["fields"]] == ["body.x", "body.label"]
    assert body["error"] == (
        "invalid request: body.x: Input should be greater than or equal to 0 (got -1); "
        "body.label: String should have at most 5 characters (got 7 characters)"
    )
    missing = failed(client.post("/points", json={"label": "a"}), 422, "invalid")
    assert missing["fields"] == [{"loc": "body.x", "message": "required field is missing"}]
    bad = failed(
        client.post("/points", content=b"{nope", headers={"content-type": "application/json"}),
        400,
        "bad_request",
    )
    assert "malformed JSON" in bad["error"]
    assert len(service.points) == 1


def test_raw_bodies_parse_to_the_model_or_fail_clearly(served: Any) -> None:
    _, client = served
    assert client.post("/raw", json={"x": 2, "label": "b"}).json() == {"x": 2, "label": "b"}
    wrong = failed(client.post("/raw", json=[1, 2]), 422, "invalid")
    assert wrong["error"] == "point must be a JSON object, got list"
    empty = failed(client.post("/raw", content=b" "), 400, "bad_request")
    assert empty["error"] == "empty request body; expected a JSON object"


def test_every_failure_has_the_one_body(served: Any) -> None:
    _, client = served
    assert failed(client.get("/missing/p"), 404, "not_found")["error"] == "no point named 'p'"
    failed(client.get("/nowhere"), 404, "not_found")
    failed(client.delete("/points"), 405, "method_not_allowed")
    config = failed(client.get("/config"), 422, "config_error")
    assert config["error"] == "seed must be a whole number; got 'x'"
    bug = failed(client.get("/bug"), 500, "internal")
    assert bug["error"] == "internal error (ZeroDivisionError); the server log has the details"


def test_a_large_refused_body_gets_its_413_not_a_connection_reset(served: Any) -> None:
    """The server reads (and drops) a refused body before answering: closing a socket
    with unread data resets it, and the client then saw a reset instead of the 413
    (always with a body this large, sometimes with a small one on a loaded machine)."""
    _, client = served
    huge = b'{"x": 1, "label": "' + b"a" * 3_000_000 + b'"}'
    for _ in range(3):
        body = failed(client.post("/points", content=huge), 413, "too_large")
        assert body["error"] == f"request body has {len(huge)} bytes; the limit is 1000 bytes"

    def chunks() -> Any:
        for _ in range(300):
            yield b" " * 10_000

    failed(client.post("/raw", content=chunks()), 413, "too_large")


def test_bodies_over_the_limit_are_refused_declared_or_streamed(served: Any) -> None:
    _, client = served
    big = b'{"x": 1, "label": "' + b"a" * 2000 + b'"}'
    body = failed(client.post("/points", content=big), 413, "too_large")
    assert body["error"] == f"request body has {len(big)} bytes; the limit is 1000 bytes"

    def chunks() -> Any:
        for _ in range(4):
            yield b" " * 400

    streamed = failed(client.post("/raw", content=chunks()), 413, "too_large")
    assert streamed["error"] == "request body over the limit of 1000 bytes"


def test_openapi_shows_the_request_schemas(served: Any) -> None:
    _, client = served
    spec = client.get("/openapi.json").json()
    ref = spec["paths"]["/points"]["post"]["requestBody"]["content"]["application/json"]
    assert ref["schema"]["$ref"] == "#/components/schemas/PointIn"
    assert spec["components"]["schemas"]["PointIn"]["properties"]["x"]["minimum"] == 0
