"""Fixtures of the tests across leagues (browser fixtures: accord.web.testing)."""

from __future__ import annotations

from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401
