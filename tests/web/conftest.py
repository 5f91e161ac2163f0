"""The web layer's tests use its own test kit (as any league's tests can)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for tiny_league (no package here)

from accord.web.testing import screenshot, web_browser, web_page  # noqa: E402, F401
