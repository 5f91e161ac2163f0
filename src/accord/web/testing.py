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
- ``web_page``: a fresh browser context (own cookies) and page per test, 10 s default
  timeout, closed afterwards;
- ``screenshot``: ``screenshot(page, "name")`` saves ``name.png`` under the test's
  ``tmp_path`` (never a fixed path) and returns the path.

Servers: :class:`ServerThread` is a :class:`~accord.web.runner.BackgroundServer` with
the lifespan on; bind with :func:`loopback_socket` first when apps must know each
other's address before they start.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.web.runner import ServerThread, free_port, loopback_socket

__all__ = [
    "CHROMIUM_ARGS",
    "ServerThread",
    "chromium_path",
    "free_port",
    "loopback_socket",
    "screenshot",
    "web_browser",
    "web_page",
]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Flags for a headless Chromium in a container without a GPU or a network."""


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
    """A page in a fresh context (its own cookies), 10 s default timeout."""
    context = web_browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def screenshot(tmp_path: Path) -> Callable[[Any, str], Path]:
    """``screenshot(page, name)`` saves a full-page PNG under ``tmp_path``."""

    def take(page: Any, name: str) -> Path:
        path = tmp_path / "screenshots" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
