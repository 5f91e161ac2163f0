"""Makes the helpers in ``tests/`` (``real_scenarios``) importable (importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
