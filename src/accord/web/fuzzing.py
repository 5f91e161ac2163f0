"""A fast, seeded HTTP fuzzer for Accord's servers (part of the test kit).

It reads an app's OpenAPI schema and sends requests to a running server over keep-alive
HTTP: bodies built from each operation's schema with some fields valid and some
replaced by hostile values (huge and negative numbers, wrong types, script text, long
strings, deep nesting, missing and extra fields), raw bodies that are not JSON at all,
hostile path and query values, and mutations of the valid examples a league gives for
routes that read their body themselves. The same seed sends the same requests.

A server passes when no request gets a 5xx answer (:attr:`FuzzReport.server_errors`).

    >>> import random
    >>> s = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}},
    ...      "required": ["n"]}
    >>> v = value(s, {}, random.Random(1), hostile=0.0)
    >>> isinstance(v, dict) and 0 <= v["n"] <= 9
    True
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from accord.web.http11 import Connection, HttpError

__all__ = ["HOSTILE", "FuzzReport", "Operation", "fuzz", "operations", "value"]

HOSTILE: list[Any] = [
    None,
    True,
    -1,
    0,
    10**30,
    -(10**30),
    2**63,
    2**53 + 1,
    -0.0,
    1.5,
    1e308,
    "",
    " ",
    "x" * 3000,
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=alert(1)>",
    "'; DROP TABLE events; --",
    "\u0000\u202e\ufeff",
    "🙂" * 20,
    "../../etc/passwd",
    "9" * 40,
    "NaN",
    "-1",
    [],
    {},
    [[[[[]]]]],
    {"kind": {"kind": {"kind": None}}},
    [None] * 50,
    list(range(200)),
]
"""Values put where a request has a field."""

RAW_BODIES: list[tuple[bytes, str | None]] = [
    (b"", "application/json"),
    (b"{", "application/json"),
    (b"null", "application/json"),
    (b"[]", "application/json"),
    (b'"text"', "application/json"),
    (b"\xff\xfe\x00", "application/json"),
    (b'{"a": NaN}', "application/json"),
    (b'{"a": Infinity}', "application/json"),
    (b'{"a": 1e999}', "application/json"),
    (b'{"a": ' + b"9" * 5000 + b"}", "application/json"),
    (b"[" * 3000 + b"]" * 3000, "application/json"),
    (b'{"a": 1, "a": 2}', "application/json"),
    (b"kind=propose&give=1", "application/x-www-form-urlencoded"),
    (b"<xml/>", "text/xml"),
    (b'{"kind": "offer"}', None),
    (b"\x00" * 64, "application/octet-stream"),
]
"""Bodies that are not what any route expects."""

PATH_VALUES = ["0", "-1", "9" * 30, "x" * 300, "%2e%2e%2f", "%00", "<script>", "null", "1.5", "🙂"]


@dataclass(frozen=True)
class Operation:
    """One route to fuzz: method, path (``{name}`` parameters), body schema, examples."""

    method: str
    path: str
    schema: Mapping[str, Any] | None = None
    examples: Sequence[Any] = ()
    query: Sequence[str] = ()


@dataclass
class FuzzReport:
    """What the fuzzer sent and what came back."""

    requests: int = 0
    seconds: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s >= 500)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        by = ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses.items()))
        return (
            f"{self.requests} requests in {self.seconds:.1f} s ({self.rate:.0f}/s); "
            f"server errors {self.server_errors}; statuses {by}"
        )


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in schema:
        schema = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def value(
    schema: Mapping[str, Any], defs: Mapping[str, Any], rng: random.Random, hostile: float = 0.3
) -> Any:
    """A value for ``schema``: valid, or (with probability ``hostile``) a hostile one."""
    if rng.random() < hostile:
        return rng.choice(HOSTILE)
    s = _resolve(schema, defs)
    for key in ("anyOf", "oneOf"):
        if key in s:
            return value(rng.choice(s[key]), defs, rng, hostile)
    if "allOf" in s:
        return value(s["allOf"][0], defs, rng, hostile)
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return rng.choice(s["enum"])
    kind = s.get("type")
    if kind == "object" or "properties" in s:
        props = s.get("properties", {})
        required = set(s.get("required", []))
        out = {
            k: value(v, defs, rng, hostile)
            for k, v in props.items()
            if k in required or rng.random() < 0.6
        }
        if required and rng.random() < hostile / 3:
            out.pop(rng.choice(sorted(required)), None)
        if rng.random() < hostile / 3:
            out["unexpected"] = rng.choice(HOSTILE)
        return out
    if kind == "array":
        n = rng.choice([0, 1, 2, 3, 5]) if rng.random() > hostile / 3 else rng.randint(0, 60)
        return [value(s.get("items", {}), defs, rng, hostile) for _ in range(n)]
    if kind == "integer":
        lo = int(s.get("minimum", -5))
        hi = int(s.get("maximum", lo + 20))
        return rng.randint(lo, max(lo, hi))
    if kind == "number":
        low = float(s.get("minimum", -5.0))
        return low + rng.random() * 20
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        n = int(s.get("maxLength", 12))
        return "".join(rng.choice("abcXYZ019 _-<>&\"'") for _ in range(rng.randint(0, min(n, 16))))
    return rng.choice(HOSTILE)


def _mutate(example: Any, rng: random.Random) -> Any:
    """``example`` with one leaf replaced, a key dropped or a key added (a deep copy)."""
    out = json.loads(json.dumps(example))
    if not isinstance(out, dict | list) or not out or rng.random() < 0.1:
        return rng.choice(HOSTILE)
    node: Any = out
    while True:
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return out
        k = rng.choice(keys)
        child = node[k]
        if isinstance(child, dict | list) and child and rng.random() < 0.6:
            node = child
            continue
        r = rng.random()
        if r < 0.6:
            node[k] = rng.choice(HOSTILE)
        elif r < 0.8 and isinstance(node, dict):
            del node[k]
        elif isinstance(node, dict):
            node["extra"] = rng.choice(HOSTILE)
        else:
            node.append(rng.choice(HOSTILE))
        return out


def operations(
    openapi: Mapping[str, Any],
    examples: Mapping[str, Sequence[Any]] | None = None,
    skip: Callable[[str, str], bool] | None = None,
) -> list[Operation]:
    """The operations of an OpenAPI document (streams skipped: paths ending ``/live``),
    with the league's ``examples`` (``"POST /api/han/event": [bodies]``) attached."""
    examples = dict(examples or {})
    ops: list[Operation] = []
    for path, methods in openapi.get("paths", {}).items():
        for method, op in methods.items():
            m = method.upper()
            if path.endswith("/live") or (skip is not None and skip(m, path)):
                continue
            content = (op.get("requestBody") or {}).get("content", {})
            schema = (content.get("application/json") or {}).get("schema")
            query = [p["name"] for p in op.get("parameters", []) if p.get("in") == "query"]
            ops.append(Operation(m, path, schema, examples.pop(f"{m} {path}", ()), query))
    for key, bodies in examples.items():
        m, path = key.split(" ", 1)
        ops.append(Operation(m, path, None, bodies))
    return ops


def _request(
    op: Operation, defs: Mapping[str, Any], rng: random.Random
) -> tuple[str, str, dict[str, Any]]:
    path = op.path
    while "{" in path:
        a, b = path.index("{"), path.index("}")
        path = path[:a] + rng.choice(PATH_VALUES) + path[b + 1 :]
    kw: dict[str, Any] = {}
    if op.query and rng.random() < 0.7:
        kw["params"] = {q: str(rng.choice(HOSTILE + PATH_VALUES)) for q in op.query}
    if rng.random() < 0.1:
        kw["params"] = {**kw.get("params", {}), rng.choice(["x", "n", "id"]): "9" * 25}
    if op.method in ("GET", "HEAD", "DELETE"):
        return op.method, path, kw
    r = rng.random()
    if r < 0.12:
        raw, ctype = rng.choice(RAW_BODIES)
        kw["content"] = raw
        if ctype is not None:
            kw["headers"] = {"content-type": ctype}
    elif op.examples and (op.schema is None or r < 0.55):
        ex = rng.choice(list(op.examples))
        kw["json"] = ex if rng.random() < 0.25 else _mutate(ex, rng)
    elif op.schema is not None:
        kw["json"] = value(op.schema, defs, rng)
    else:
        kw["json"] = rng.choice(HOSTILE)
    if rng.random() < 0.2:
        key = f"k{rng.randint(0, 20)}"
        kw["headers"] = {**kw.get("headers", {}), "Idempotency-Key": key}
    return op.method, path, kw


def fuzz(
    clients: Sequence[httpx.Client],
    ops: Sequence[Operation],
    openapi: Mapping[str, Any],
    n: int,
    seed: int = 0,
    timeout: float = 30.0,
    concurrency: int = 16,
) -> FuzzReport:
    """Send ``n`` requests over ``clients`` (chosen in turn at random: a participant, a
    stranger, an experimenter...) and report the answers; each 5xx is kept in
    :attr:`FuzzReport.failures` with what was sent.

    The requests are drawn from ``seed`` first (the same seed sends the same requests),
    then sent over ``concurrency`` keep-alive connections at once (a small HTTP/1.1
    client on asyncio: ten thousand requests take seconds, not minutes, and requests of
    one participant race each other as double clicks do). Each client's headers and
    cookies at the start are its identity; cookies a response sets are not kept."""
    rng = random.Random(seed)
    defs = openapi.get("components", {}).get("schemas", {})
    planned: list[tuple[str, str, dict[str, Any], bytes, str]] = []
    for _ in range(n):
        op = rng.choice(list(ops))
        c = rng.choice(list(clients))
        method, path, kw = _request(op, defs, rng)
        planned.append((method, path, kw, _encode(c, method, path, kw), str(c.base_url)))
    report = FuzzReport()
    start = time.perf_counter()
    asyncio.run(_send_all(planned, report, timeout, max(1, concurrency)))
    report.seconds = time.perf_counter() - start
    return report


def _encode(c: httpx.Client, method: str, path: str, kw: dict[str, Any]) -> bytes:
    """The request as HTTP/1.1 bytes, with ``c``'s headers and cookies (as httpx sends)."""
    req = c.build_request(method, path, **kw)
    body = req.read()
    headers = [(k, v) for k, v in req.headers.raw if k.lower() != b"accept-encoding"]
    if body and not any(k.lower() == b"content-length" for k, _ in headers):
        headers.append((b"Content-Length", str(len(body)).encode()))
    head = b"%s %s HTTP/1.1\r\n" % (method.encode(), req.url.raw_path)
    head += b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    return head + b"\r\n" + body


async def _send_all(
    planned: list[tuple[str, str, dict[str, Any], bytes, str]],
    report: FuzzReport,
    timeout: float,
    concurrency: int,
) -> None:
    todo = iter(planned)

    async def worker() -> None:
        conns: dict[str, Connection] = {}
        for method, path, kw, raw, url in todo:
            conn = conns.get(url)
            if conn is None:
                conn = conns[url] = Connection(url)
            try:
                status, payload = await conn.send(raw, timeout)
                text = str(payload)[:200]
            except (HttpError, TimeoutError) as e:  # a dropped connection is a server error
                status, text = 599, f"{type(e).__name__}: {e}"
            report.requests += 1
            report.statuses[status] += 1
            if status >= 500 and len(report.failures) < 20:
                sent = {k: (v if k != "content" else v[:80]) for k, v in kw.items()}
                report.failures.append(f"{method} {path} {str(sent)[:300]} -> {status} {text}")
        for conn in conns.values():
            conn.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def client(url: str) -> httpx.Client:
    """A keep-alive client of ``url`` (no proxies from the environment)."""
    return httpx.Client(base_url=url, trust_env=False, timeout=60)


def experimenter(url: str, password: str, username: str = "experimenter") -> httpx.Client:
    """A client logged in as the study's experimenter."""
    c = client(url)
    r = c.post("/api/login", json={"username": username, "password": password})
    if r.status_code != 200:
        raise AssertionError(f"experimenter login failed: {r.status_code} {r.text[:200]}")
    return c


def participants(admin: httpx.Client, n: int) -> list[httpx.Client]:
    """``n`` new participants of a study who opened their link and consented."""
    made = admin.post("/api/study/invites", json={"count": n}).json()
    out = []
    for m in made:
        c = client(str(admin.base_url))
        link = httpx.URL(m["link"])
        c.post(link.path)
        version = c.get("/api/participant").json()["consent"]["version"]
        r = c.post("/api/participant/consent", json={"agree": True, "version": version})
        if r.status_code != 200:
            raise AssertionError(f"consent failed: {r.status_code} {r.text[:200]}")
        out.append(c)
    return out


@dataclass
class Restart:
    """What :func:`fuzz_then_restart` saw: the fuzz report, and each participant's state
    and each admin read before the kill and after the restart."""

    report: FuzzReport
    before: list[Any]
    after: list[Any]
    admin_before: dict[str, str]
    admin_after: dict[str, str]


def fuzz_then_restart(
    factory: str,
    kwargs: Mapping[str, Any],
    schema_kwargs: Mapping[str, Any],
    password: str,
    examples: Mapping[str, Sequence[Any]],
    state: str,
    *,
    requests: int,
    seed: int,
    people: int = 4,
    admin_reads: Sequence[str] = ("/api/study/participants",),
) -> Restart:
    """The study-server check every league runs: serve ``factory(**kwargs)`` (an import
    path ``pkg.module:function`` returning ``(app, ...)``) in a child process on loopback,
    let ``people`` participants open their ``state`` route, fuzz it with ``requests``
    seeded requests (the schema of an app made with ``schema_kwargs`` over ``kwargs``,
    ``examples`` for routes that read their own body, and the participant links), read
    every state and ``admin_reads``, kill the server (-9), restart it on the same files
    and read them all again. Raises AssertionError if any request got a 5xx answer."""
    from accord.core.imports import import_object
    from accord.web.testing import ServerProcess

    make = import_object(factory, "app factory")
    spec = make(**{**kwargs, **schema_kwargs})[0].openapi()
    ops = [
        *operations(spec, examples),
        Operation("GET", "/s/{token}"),
        Operation("POST", "/s/{token}"),
    ]
    server = ServerProcess(factory, **kwargs).start()
    try:
        admin = experimenter(server.url, password)
        users = participants(admin, people)
        for p in users:
            p.get(state)
        report = fuzz([*users, client(server.url), admin], ops, spec, requests, seed=seed)
        print(report.summary())
        if report.server_errors:
            raise AssertionError("\n".join(report.failures))
        before = [p.get(state).json() for p in users]
        admin_before = {path: admin.get(path).text for path in admin_reads}
    finally:
        server.kill()
    server = ServerProcess(factory, **kwargs).start()
    try:
        for c in [*users, admin]:
            c.base_url = httpx.URL(server.url)
        after = [p.get(state).json() for p in users]
        admin_after = {path: admin.get(path).text for path in admin_reads}
    finally:
        server.stop()
    return Restart(report, before, after, admin_before, admin_after)
