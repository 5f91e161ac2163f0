"""The protocols ported to the Rules contract play exactly as before (golden playthroughs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

from sessions import GOLDEN, playthroughs  # noqa: E402


def test_every_golden_playthrough_is_replayed_exactly() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(playthroughs()))
    assert sorted(got) == sorted(golden)
    assert len(golden) == 398
    differ = [name for name in golden if got[name] != golden[name]]
    assert differ == [], f"{len(differ)} playthroughs differ, e.g. {differ[:3]}"
