"""The web layer's test kit: servers on loopback and Playwright fixtures for real Chromium.

Use it from any league's tests, either as a plugin (in the top ``tests/conftest.py``:
``pytest_plugins = ["accord.web.testing"]``) or by importing the fixtures into a
``conftest.py``::

    from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401

Fixtures:

- ``web_browser``: one headless Chromium per test module, launched from the system's
  ``chromium`` (never a downloaded one) with :data:`CHROMIUM_ARGS`; the test is
  skipped, saying why, when Chromium or Playwright is missing. (Per module, not per
  session: Playwright's sync API keeps an event loop running in the main thread while
  the browser is open, and ``asyncio.run`` in later tests would fail.)
- ``web_page``: a fresh browser context (own cookies) and page per test, 30 s default
  timeout, closed afterwards; ``second_page``: another one (a second person);
- ``screenshot``: ``screenshot(page, "name")`` saves ``name.png`` under the test's
  ``tmp_path`` (never a fixed path) and returns the path.

More people in one test: :func:`open_page` (a page in a context of its own);
:func:`enter_study` takes a page through a study's link, start and consent pages to its
task.

Servers: :class:`ServerThread` is a :class:`~accord.web.runner.BackgroundServer` with
the lifespan on; bind with :func:`loopback_socket` first when apps must know each
other's address before they start. :class:`ServerProcess` serves an app built by a
factory in a child process (as an operator runs it: a client in the test's process
then meets no shared interpreter, and ``kill()`` is a real kill -9).

Waiting: never sleep a fixed time and hope. :func:`wait_until` polls a condition with a
generous timeout (it returns as soon as the condition holds, so a generous bound costs
nothing on a quiet machine and keeps a loaded one green); a server that takes a
``clock`` gets a :class:`~accord.web.clock.VirtualClock` (time stands still until the test
moves it) or a :class:`SkipClock` (real time, plus the gaps the test skips: a rule that
wants 0.3 s between two messages is met by ``clock.skip(0.3)`` instead of a sleep).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import multiprocessing
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

import pytest

from accord.web.clock import VirtualClock
from accord.web.runner import ServerError, ServerThread, free_port, loopback_socket

__all__ = [
    "CHROMIUM_ARGS",
    "WAIT_TIMEOUT",
    "ServerProcess",
    "ServerThread",
    "SkipClock",
    "VirtualClock",
    "asleep_until",
    "chromium_path",
    "enter_study",
    "free_port",
    "loopback_socket",
    "open_page",
    "read_sse",
    "screenshot",
    "second_page",
    "sse_event",
    "wait_until",
    "web_browser",
    "web_page",
]

T = TypeVar("T")

WAIT_TIMEOUT = 30.0
"""Seconds :func:`wait_until` waits by default: far above what any condition of the tests
needs on a quiet machine (milliseconds) and on a loaded one (load 15: about a second),
so only a real failure reaches it."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Flags for a headless Chromium in a container without a GPU or a network."""


def wait_until(
    condition: Callable[[], T],
    what: str = "the condition",
    timeout: float = WAIT_TIMEOUT,
    every: float = 0.01,
) -> T:
    """``condition()``'s first truthy value, polled every ``every`` seconds; an
    ``AssertionError`` naming ``what`` (and the last value) after ``timeout`` seconds.

    >>> box = [0]
    >>> def bump() -> int:
    ...     box[0] += 1
    ...     return box[0] >= 3
    >>> wait_until(bump, "three polls", every=0)
    True
    >>> wait_until(lambda: [], "a non-empty list", timeout=0.05)
    Traceback (most recent call last):
    AssertionError: a non-empty list: not within 0.05 s (last value: [])
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s (last value: {value!r})")
        time.sleep(every)


def sse_event(text: str) -> tuple[str, Any, int | None]:
    """One server-sent event's wire text as ``(event, data, id)``.

    >>> sse_event('id: 3\\nevent: state\\ndata: {"v":1}\\n\\n')
    ('state', {'v': 1}, 3)
    """
    head = dict(line.split(": ", 1) for line in text.strip().splitlines())
    return head["event"], json.loads(head["data"]), int(head["id"]) if "id" in head else None


def read_sse(stream: Any, n: int) -> list[tuple[str, Any]]:
    """The next ``n`` events ``(event, data)`` of an open ``httpx`` streaming response,
    or of its lines (``lines = response.iter_lines()``: to read on after them)."""
    events: list[tuple[str, Any]] = []
    name = ""
    lines = stream.iter_lines() if hasattr(stream, "iter_lines") else stream
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[6:])))
            if len(events) == n:
                break
    return events


async def asleep_until(clock: VirtualClock, deadline: float) -> None:
    """Wait (real time, up to 10 s) until the one sleeper of ``clock`` sleeps until
    ``deadline`` (a stream between two reads), so the test may move the clock."""
    for _ in range(2000):
        if clock.pending == [deadline]:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"the stream never slept until {deadline}: {clock.pending}")


class SkipClock:
    """Monotonic seconds that run with the machine's clock and jump forward when the test
    calls :meth:`skip`; a ``Callable[[], float]`` for servers that take a ``clock``.

    Rules judged on it see a skipped gap as passed at once (deterministic, whatever the
    load), while the server's own timers (phases, timeouts) keep real time.

    >>> clock = SkipClock()
    >>> t0 = clock()
    >>> clock.skip(5.0)
    >>> clock() - t0 >= 5.0
    True
    """

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def skip(self, seconds: float) -> None:
        """Move this clock ``seconds`` ahead of the machine's."""
        self.offset += seconds


def chromium_env() -> dict[str, str | float | bool]:
    """The environment to launch Chromium with: a short TMPDIR when the current one is long.

    Chromium puts its singleton socket in TMPDIR, and a socket path over about 100
    characters makes it abort ("Socket path too long").
    """
    env: dict[str, str | float | bool] = dict(os.environ)
    if len(tempfile.gettempdir()) > 60:
        env["TMPDIR"] = "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()[:60]
    return env


def chromium_path() -> str:
    """The system's Chromium; skips the calling test when there is none."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Chromium is not installed (shutil.which('chromium') is None)")
    return path


@pytest.fixture(scope="module")
def web_browser() -> Iterator[Any]:
    """A headless Chromium (Playwright ``Browser``) for the test module."""
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install playwright; no browser download)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, env=chromium_env())
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def web_page(web_browser: Any) -> Iterator[Any]:
    """A page in a fresh context (its own cookies), 30 s default timeout."""
    yield from _own_page(web_browser)


@pytest.fixture
def second_page(web_browser: Any) -> Iterator[Any]:
    """Another person beside ``web_page``: a page in a context of its own (own cookies)."""
    yield from _own_page(web_browser)


def _own_page(browser: Any) -> Iterator[Any]:
    page = open_page(browser)
    try:
        yield page
    finally:
        page.context.close()


def open_page(browser: Any, contexts: list[Any] | None = None, **options: Any) -> Any:
    """A page of ``browser`` in a fresh context (its own cookies; ``options`` for
    ``new_context``, default a 1280x900 viewport), 30 s default timeout. Its context is
    appended to ``contexts``, for the test to close (``page.context.close()``)."""
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
    context.set_default_timeout(30_000)
    if contexts is not None:
        contexts.append(context)
    return context.new_page()


def enter_study(page: Any, link: str, task: str) -> Any:
    """``page`` follows a participant's ``link`` (a full URL) as a person does: the
    start page, the consent page (``/study/consent.html``), then the page whose URL ends
    with ``task`` (``/han.html``, ``/study/instructions.html``, ...). Returns ``page``."""
    page.goto(link)
    page.click("#start")
    page.wait_for_url("**/study/consent.html")
    page.click("#agree")
    page.wait_for_url(f"**{task}")
    return page


@pytest.fixture
def screenshot(tmp_path: Path) -> Callable[[Any, str], Path]:
    """``screenshot(page, name)`` saves a full-page PNG under ``tmp_path``."""

    def take(page: Any, name: str) -> Path:
        path = tmp_path / "screenshots" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def _serve_child(factory: str, kwargs: dict[str, Any], port: int) -> None:
    import uvicorn

    module, _, name = factory.partition(":")
    built = getattr(importlib.import_module(module), name)(**kwargs)
    app = built[0] if isinstance(built, tuple) else built
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


class ServerProcess:
    """The app that ``factory`` (``"module:function"``, called with ``kwargs``; of a
    tuple, its first item) builds, served by uvicorn in a child process on a free
    loopback port; a context manager. :meth:`kill` ends it at once (SIGKILL)."""

    def __init__(self, factory: str, **kwargs: Any) -> None:
        self.factory, self.kwargs = factory, kwargs
        self.port = free_port()
        ctx = multiprocessing.get_context("spawn")
        self.proc = ctx.Process(target=_serve_child, args=(factory, kwargs, self.port), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> Self:
        """Start and wait until it accepts connections (generous: a loaded machine)."""
        self.proc.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.is_alive():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise ServerError(f"{self.factory} did not start on {self.url} within {timeout} s")

    def kill(self) -> None:
        """End the server at once, as kill -9 does."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(10)

    def stop(self) -> None:
        """Ask the server to stop (SIGTERM: shut-down runs), kill it if it does not."""
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(15)
        self.kill()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
