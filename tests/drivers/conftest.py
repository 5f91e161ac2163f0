"""The drivers' tests import their helpers from this folder."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from accord.web.testing import web_browser, web_page  # noqa: E402, F401 - Playwright fixtures
