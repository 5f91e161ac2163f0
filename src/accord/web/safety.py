"""The safety baseline every Accord web app gets from :func:`~accord.web.app.create_app`.

Three ASGI middlewares, all on by default (a league asks for nothing):

- :class:`SecurityHeaders`: a strict Content-Security-Policy on every response (scripts
  only from the app's own files: no inline script, no ``eval``, no other origin; no
  plugins, no ``<base>``, no framing), ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: no-referrer`` and ``X-Frame-Options: DENY``. Inline *styles* stay
  allowed (pages set ``style`` from code; a style cannot run code). FastAPI's own
  ``/docs`` pages (no participant data) may load their assets from their CDN;
- :class:`RequestBounds`: before any route runs, a JSON body must parse, nest at most
  :data:`MAX_DEPTH` deep and hold only numbers a browser can hold exactly (integers
  within +-:data:`MAX_INT`, finite floats); a query or path value of more than
  :data:`MAX_DIGITS` digits is refused too. A refusal is the one error body (422
  ``out_of_range``, 400 ``bad_request``), never a 500;
- :class:`Idempotency`: a state-changing request (POST, PUT, PATCH, DELETE) that carries
  an ``Idempotency-Key`` header is done once per caller: a repeat with the same key gets
  the first answer again (``Idempotent-Replay: true``) and changes nothing; the same key
  with another request is refused (409 ``key_reused``). Pages send one key per act of the
  person (see ``/accord/safe.js``), so a double click is one act. Given a SQLite file
  (:class:`FiledAnswers`; a study's app keeps them in the study's file), the answers
  are kept there too, so a request retried after a restart still gets its first answer.

    >>> check_json(b'{"chips": 1000000000000000000000000000000}') is None
    False
    >>> check_json(b'{"chips": 4}') is None
    True
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from accord.core.errors import AccordError
from accord.tournament.sqlite import SqliteFile
from accord.web.errors import WebError

__all__ = [
    "CSP",
    "DOCS_CSP",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_INT",
    "FiledAnswers",
    "Idempotency",
    "RequestBounds",
    "SecurityHeaders",
    "check_json",
    "script_source",
]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob: mediastream:; connect-src 'self'; "
    "font-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of every response (pages and API alike)."""

DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: "
    "https://fastapi.tiangolo.com; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
"""FastAPI's interactive docs (``/docs``, ``/redoc``): its CDN assets and inline start-up."""

DOCS_PATHS = ("/docs", "/redoc", "/docs/oauth2-redirect")

MAX_INT = 2**53 - 1
"""The largest integer a request may hold (JavaScript's ``Number.MAX_SAFE_INTEGER``)."""
MAX_DIGITS = 16
"""Digits a query or path value may have when it is a number."""
MAX_DEPTH = 32
"""How deep a JSON body may nest."""

_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DIGITS = re.compile(r"[+-]?\d+")


class SecurityHeaders:
    """ASGI middleware adding the security headers (see the module doc) to every answer."""

    def __init__(self, app: ASGIApp, csp: str = CSP) -> None:
        self.app = app
        self.csp = csp.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP.encode() if scope.get("path") in DOCS_PATHS else self.csp

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OURS]
                headers += [
                    (b"content-security-policy", csp),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


_OURS = frozenset(
    {b"content-security-policy", b"x-content-type-options", b"referrer-policy", b"x-frame-options"}
)


class _Refused(AccordError):  # noqa: N818 - internal signal, turned into a WebError
    def __init__(self, error: WebError) -> None:
        self.error = error


def _number_text(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text)} digits)"


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("+-"))
    if digits > 16 or abs(int(text)) > MAX_INT:
        raise _Refused(
            WebError(
                422,
                f"the number {_number_text(text)} is out of range; numbers must lie between "
                f"{-MAX_INT} and {MAX_INT}",
                code="out_of_range",
            )
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(
            WebError(422, f"the number {_number_text(text)} is too large", code="out_of_range")
        )
    return value


def _parse_constant(text: str) -> Any:
    raise _Refused(WebError(422, f"{text} is not a number a request may hold", code="out_of_range"))


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (stops counting past ``limit``)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    deepest = 0
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return deepest


def check_json(body: bytes) -> WebError | None:
    """Why the JSON ``body`` is refused (None: it is fine); see the module doc."""
    try:
        value = json.loads(
            body,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except _Refused as r:
        return r.error
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return WebError(400, f"malformed JSON: {e}; expected a JSON object")
    except (RecursionError, ValueError):
        return WebError(400, f"JSON nested deeper than {MAX_DEPTH} levels; expected a flat object")
    if _depth(value, MAX_DEPTH) > MAX_DEPTH:
        return WebError(400, f"JSON nested deeper than {MAX_DEPTH} levels; expected a flat object")
    return None


def check_url(path: str, query: str) -> WebError | None:
    """Why a path or query value is refused (a number over :data:`MAX_DIGITS` digits)."""
    values = [unquote(s) for s in path.split("/")]
    values += [v for _, v in parse_qsl(query, keep_blank_values=True)]
    for v in values:
        if len(v) > MAX_DIGITS and _DIGITS.fullmatch(v):
            return WebError(
                422,
                f"the number {_number_text(v)} in the address is out of range; numbers must "
                f"lie between {-MAX_INT} and {MAX_INT}",
                code="out_of_range",
            )
    return None


def _is_json(scope: Scope) -> bool:
    for k, v in scope.get("headers") or []:
        if k == b"content-type":
            return b"json" in v.lower()
    return False


async def _read_all(receive: Receive) -> tuple[bytes, list[Message]]:
    chunks: list[bytes] = []
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks), messages


async def _drain(receive: Receive) -> None:
    """Read the rest of a request's body (bounded by the body limit outside) so that the
    keep-alive connection can carry the next request after a refusal."""
    with contextlib.suppress(WebError):
        await _read_all(receive)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again


class RequestBounds:
    """ASGI middleware refusing out-of-range numbers and malformed or deep JSON bodies
    before any route runs (see the module doc). Sits inside the body-size limit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        error = check_url(scope.get("path", ""), scope.get("query_string", b"").decode("latin-1"))
        if error is None and scope.get("method") in _STATE_CHANGING and _is_json(scope):
            try:
                body, messages = await _read_all(receive)
            except WebError as e:  # over the body limit
                await e.response()(scope, receive, send)
                return
            if body.strip():
                error = check_json(body)
            receive = _replay(messages, receive)
        if error is not None:
            await _drain(receive)  # read what was sent: the connection stays usable
            await error.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass
class _Answer:
    fingerprint: str
    start: Message | None = None
    body: bytes = b""
    done: asyncio.Event | None = None
    complete: bool = False


_ANSWERS = """
CREATE TABLE IF NOT EXISTS idempotent_answers (
    slot TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,
    headers TEXT NOT NULL, body BLOB NOT NULL);
"""


class FiledAnswers:
    """The answers of idempotent requests in a SQLite file (table ``idempotent_answers``,
    beside the service's own tables), the last ``keep`` of them.

        >>> answers = FiledAnswers(SqliteFile(":memory:"))
        >>> answers.put("who:k1", "f", 200, [(b"content-type", b"application/json")], b"{}")
        >>> answers.get("who:k1")[2:]
        ([(b'content-type', b'application/json')], b'{}')
        >>> answers.get("who:k2") is None
        True
    """

    def __init__(self, file: SqliteFile, keep: int = 10_000) -> None:
        self.file = file
        self.keep = keep
        self._puts = 0
        with self.file.lock:
            self.file.conn.executescript(_ANSWERS)

    def get(self, slot: str) -> tuple[str, int, list[tuple[bytes, bytes]], bytes] | None:
        """(fingerprint, status, headers, body) of the answer kept for ``slot``."""
        rows = self.file.rows(
            "SELECT fingerprint, status, headers, body FROM idempotent_answers WHERE slot = ?",
            (slot,),
        )
        if not rows:
            return None
        r = rows[0]
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in json.loads(r["headers"])]
        return str(r["fingerprint"]), int(r["status"]), headers, bytes(r["body"])

    def put(
        self,
        slot: str,
        fingerprint: str,
        status: int,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
    ) -> None:
        """Keep the answer of ``slot`` (the oldest beyond ``keep`` are dropped)."""
        pairs = json.dumps([(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers])
        self.file.execute(
            "INSERT OR REPLACE INTO idempotent_answers VALUES (?, ?, ?, ?, ?)",
            (slot, fingerprint, status, pairs, body),
        )
        self._puts += 1
        if self._puts % 100 == 0:
            self.file.execute(
                "DELETE FROM idempotent_answers WHERE rowid <= "
                "(SELECT MAX(rowid) FROM idempotent_answers) - ?",
                (self.keep,),
            )


class Idempotency:
    """ASGI middleware: a state-changing request with an ``Idempotency-Key`` header is
    done once per caller (its cookies and ``Authorization``); the answers of the last
    ``keep`` keys are kept in memory, and in ``filed`` when given (see the module doc).

    A request whose answer could not be filed before the server died (it stopped between
    the action's own commit and the answer's) is done again when retried; the leagues'
    own checks (an action for a step that is over is refused) catch that repeat."""

    HEADER = b"idempotency-key"

    def __init__(self, app: ASGIApp, keep: int = 10_000, filed: FiledAnswers | None = None) -> None:
        self.app = app
        self.keep = keep
        self.filed = filed
        self.answers: OrderedDict[str, _Answer] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in _STATE_CHANGING:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        key = headers.get(self.HEADER)
        if not key:
            await self.app(scope, receive, send)
            return
        if len(key) > 200:
            await _drain(receive)
            await WebError(400, "Idempotency-Key is longer than 200 characters").response()(
                scope, receive, send
            )
            return
        try:
            body, messages = await _read_all(receive)
        except WebError as e:  # over the body limit
            await e.response()(scope, receive, send)
            return
        receive = _replay(messages, receive)
        who = hashlib.sha256(
            headers.get(b"cookie", b"") + b"\0" + headers.get(b"authorization", b"")
        ).hexdigest()
        slot = f"{who}:{key.decode('latin-1')}"
        fingerprint = hashlib.sha256(
            scope["method"].encode() + b" " + scope.get("path", "").encode() + b"\0" + body
        ).hexdigest()
        known = self.answers.get(slot)
        if known is not None:
            await self._again(known, fingerprint, scope, receive, send)
            return
        answer = _Answer(fingerprint, done=asyncio.Event())
        self.answers[slot] = answer  # before any await: a copy arriving now waits for it
        if self.filed is not None:
            try:
                kept = await asyncio.to_thread(self.filed.get, slot)  # never blocks the loop
            except BaseException:
                self.answers.pop(slot, None)
                assert answer.done is not None
                answer.done.set()  # a copy waiting on it is told the key failed
                raise
            if kept is not None:  # answered before a restart
                answer.fingerprint, answer.body, answer.complete = kept[0], kept[3], True
                answer.start = {"type": "http.response.start", "status": kept[1],
                                "headers": kept[2]}  # fmt: skip
                assert answer.done is not None
                answer.done.set()
                await self._again(answer, fingerprint, scope, receive, send)
                return
        while len(self.answers) > self.keep:
            self.answers.popitem(last=False)

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer.start = message
            elif message["type"] == "http.response.body":
                answer.body += message.get("body", b"")
            await send(message)

        try:
            await self.app(scope, receive, keep)
            ok = answer.start is not None and int(answer.start["status"]) < 500
            answer.complete = ok
            if not ok:
                self.answers.pop(slot, None)
            elif self.filed is not None and answer.start is not None:
                await asyncio.to_thread(
                    self.filed.put,
                    slot,
                    fingerprint,
                    int(answer.start["status"]),
                    list(answer.start.get("headers", [])),
                    answer.body,
                )
        except BaseException:
            self.answers.pop(slot, None)
            raise
        finally:
            assert answer.done is not None
            answer.done.set()

    async def _again(
        self, known: _Answer, fingerprint: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        if known.fingerprint != fingerprint:
            error = WebError(
                409,
                "this Idempotency-Key was used for another request; use a new key per action",
                code="key_reused",
            )
            await error.response()(scope, receive, send)
            return
        if known.done is not None:
            await known.done.wait()
        if not known.complete or known.start is None:
            error = WebError(
                409,
                "the first request with this key failed; send it with a new key",
                code="key_failed",
            )
            await error.response()(scope, receive, send)
            return
        start = dict(known.start)
        start["headers"] = [*known.start.get("headers", []), (b"idempotent-replay", b"true")]
        await send(start)
        await send({"type": "http.response.body", "body": known.body})


def script_source(script: str) -> str:
    """The CSP source that allows exactly this inline ``script`` (and nothing else), for
    a standalone page with its script inlined (a replay file opened from disk).

    >>> script_source("alert(1)")
    "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"
    """
    import base64

    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return f"'sha256-{digest}'"
