"""The protocols ported to the Rules contract play exactly as before (golden playthroughs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from accord.core.protocols.alternating import Session
from accord.core.protocols.offers import OfferSession
from accord.core.protocols.result import SessionResult

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

from sessions import GOLDEN, playthroughs  # noqa: E402


def test_every_golden_playthrough_is_replayed_exactly() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(playthroughs()))
    assert sorted(got) == sorted(golden)
    assert len(golden) == 398
    differ = [name for name in golden if got[name] != golden[name]]
    assert differ == [], f"{len(differ)} playthroughs differ, e.g. {differ[:3]}"


def test_the_fused_loop_and_the_generic_driver_give_the_same_golden_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Session.run`` plays plain AOP in one fused loop; stepping the generic agent
    driver instead gives every golden playthrough exactly too (and the fused loop ran)."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    fused = []
    real = Session._run_fused

    def counting(self: Session) -> SessionResult:
        fused.append(1)
        return real(self)

    monkeypatch.setattr(Session, "_run_fused", counting)
    playthroughs()
    assert len(fused) > 100  # the plain-AOP cases took the fused loop
    monkeypatch.setattr(Session, "run", OfferSession.run)  # the generic driver, step by step
    fused.clear()
    got = json.loads(json.dumps(playthroughs()))
    assert fused == []
    differ = [name for name in golden if got[name] != golden[name]]
    assert differ == [], f"{len(differ)} playthroughs differ, e.g. {differ[:3]}"
