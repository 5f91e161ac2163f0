"""Golden playthroughs: every protocol with rules replays its recorded plays line by line.

Each ``golden/<id>.json`` holds playthroughs (start state, wire actions) and the text of
their replay. Regenerate on purpose only (a changed rule is a new protocol version):
``ACCORD_WRITE_GOLDEN=1 PYTHONPATH=src pytest tests/drivers/test_golden_playthroughs.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from drivers_helpers import WITH_RULES, rules_of

from accord.core.protocols.registry import TableEntry
from accord.drivers.replay import Playthrough, random_playthrough, transcript

GOLDEN = Path(__file__).resolve().parent / "golden"
POLICIES = range(8)


def _record(entry: TableEntry) -> dict[str, object]:
    rules = rules_of(entry)
    plays = [random_playthrough(rules, seed=p, policy_seed=p, dt=0.01) for p in POLICIES]
    return {
        "plays": [p.to_json() for p in plays],
        "transcripts": [transcript(rules, p) for p in plays],
    }


@pytest.mark.parametrize("entry", WITH_RULES, ids=[e.id for e in WITH_RULES])
def test_every_golden_playthrough_replays_line_by_line(entry: TableEntry) -> None:
    path = GOLDEN / f"{entry.id}.json"
    if os.environ.get("ACCORD_WRITE_GOLDEN") == "1":
        path.write_text(json.dumps(_record(entry), indent=1) + "\n", encoding="utf-8")
    assert path.exists(), f"no golden playthroughs for {entry.id}; see this module's docstring"
    golden = json.loads(path.read_text(encoding="utf-8"))
    rules = rules_of(entry)
    assert len(golden["plays"]) == len(POLICIES)
    for data, lines in zip(golden["plays"], golden["transcripts"], strict=True):
        got = transcript(rules, Playthrough.from_json(data))
        for k, (want, line) in enumerate(zip(lines, got, strict=True)):
            assert line == want, f"{entry.id}: line {k + 1} differs"


@pytest.mark.parametrize("entry", WITH_RULES, ids=[e.id for e in WITH_RULES])
def test_the_golden_plays_are_what_the_rules_play_today(entry: TableEntry) -> None:
    golden = json.loads((GOLDEN / f"{entry.id}.json").read_text(encoding="utf-8"))
    assert golden == json.loads(json.dumps(_record(entry)))


def test_every_golden_file_belongs_to_a_protocol_with_rules() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(e.id for e in WITH_RULES)
