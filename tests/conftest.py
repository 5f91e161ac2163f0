"""Suite-wide settings: the browser tests' waits are generous (a loaded machine).

Playwright's ``expect`` assertions wait 5 s by default, which a loaded 2-core machine
(load 15-20 while the suite runs beside other work) can overrun on a page that is just
slow to update; they now wait up to :data:`EXPECT_TIMEOUT_MS`. Passing assertions return
as soon as they hold, so this costs nothing on a quiet machine; a real failure still
fails (after the bound). The pages' own action timeouts are set where each test makes
its browser context (30 s throughout).
"""

from __future__ import annotations

import pytest

EXPECT_TIMEOUT_MS = 30_000


def pytest_configure(config: pytest.Config) -> None:
    try:
        from playwright.sync_api import expect
    except ImportError:  # the browser tests skip themselves, saying why
        return
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
