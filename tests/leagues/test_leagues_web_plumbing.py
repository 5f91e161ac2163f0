"""No league carries its own web plumbing: apps, servers, sockets, secrets schemes and
HTTP journals all come from ``accord.web`` (issue 24: "0 web plumbing in the leagues").

What is looked for, in every module under ``src/accord/leagues`` (code, comments and
docstrings alike, so an example in a docstring cannot teach the old way either):

- an app built by hand: ``FastAPI(`` (apps come from :func:`accord.web.app.create_app`);
- a server started by hand: any ``uvicorn`` (servers start through
  :mod:`accord.web.runner`: ``serve``, ``serve_together``, ``BackgroundServer``);
- a socket bound by hand: ``socket.socket(``, ``.bind((``, ``SO_REUSEADDR``, ``.listen(``
  (sockets come from :func:`accord.web.runner.bound_socket`);
- a token, digest or HMAC scheme of its own: ``hmac``, ``compare_digest``, ``hashlib``,
  ``secrets.token_``, ``scrypt`` (secrets, digests and comparisons come from
  :mod:`accord.web.auth`);
- an event log or outbox of its own: a class named ``EventLog``, a subclass of the web
  layer's ``Outbox``, a SQL table journalling HTTP routes (``route TEXT``) (events go to
  :class:`accord.web.store.EventLog`, deliveries to :class:`accord.web.delivery.Outbox`).

Not web plumbing, so not looked for: a league's game records in its own SQLite tables
(the orchestrator's decisions, GENIUS's moves) and game-level queues (IAGO's flood-spaced
agent messages in ``han.queues``).
"""

from __future__ import annotations

import re
from pathlib import Path

LEAGUES = Path(__file__).resolve().parents[2] / "src" / "accord" / "leagues"

PLUMBING: dict[str, str] = {
    "app built by hand": r"\bFastAPI\(",
    "server started by hand": r"\buvicorn\b",
    "socket bound by hand": r"\bsocket\.socket\(|\.bind\(\(|\bSO_REUSEADDR\b|\.listen\(",
    "own token/digest/HMAC scheme": (
        r"\bhmac\b|\bcompare_digest\b|\bhashlib\b|\bsecrets\.token_|\bscrypt\b"
    ),
    "own event log or outbox": r"\bclass\s+EventLog\b|\bclass\s+\w+\(\s*_?Outbox\s*\)|\broute\s+TEXT\b",
}


def plumbing_in(text: str) -> list[tuple[str, int, str]]:
    """``(what, line number, line)`` for every piece of web plumbing in ``text``.

    >>> plumbing_in("import uvicorn\\nx = 1\\napp = FastAPI(title='t')")
    [('app built by hand', 3, "app = FastAPI(title='t')"), ('server started by hand', 1, 'import uvicorn')]
    """
    found = []
    lines = text.splitlines()
    for what, pattern in PLUMBING.items():
        for m in re.finditer(pattern, text):
            n = text.count("\n", 0, m.start()) + 1
            found.append((what, n, lines[n - 1].strip()))
    return found


def test_the_scan_finds_every_kind_it_looks_for() -> None:
    """The patterns can fail: each catches the old HUMAINE code it replaced."""
    old = """
import hashlib, hmac, secrets, socket, uvicorn
from fastapi import FastAPI
app = FastAPI(title="x")
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind((host, port)); sock.listen(128)
uvicorn.run(app, host=host, port=port)
ok = hmac.compare_digest(hashlib.sha256(b"k").digest(), d); t = secrets.token_urlsafe(24)
class EventLog: ...
class Outbox(_Outbox): ...
_EVENTS = "CREATE TABLE events (seq INTEGER, route TEXT NOT NULL)"
"""
    kinds = {what for what, _, _ in plumbing_in(old)}
    assert kinds == set(PLUMBING)
    assert len(plumbing_in(old)) >= 14


def test_no_league_module_carries_web_plumbing() -> None:
    modules = sorted(LEAGUES.rglob("*.py"))
    assert len(modules) > 100  # the scan really reads the leagues
    hits = [
        f"{path.relative_to(LEAGUES)}:{n}: {what}: {line}"
        for path in modules
        for what, n, line in plumbing_in(path.read_text(encoding="utf-8"))
    ]
    assert hits == [], "web plumbing outside accord.web:\n" + "\n".join(hits)
