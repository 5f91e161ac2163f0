"""The protocol table: every protocol is found by id or short name in a fresh process,
without importing a league, and results always name the versioned id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accord.core.protocols.registry import TABLE, protocol_ids, protocol_source, table_entry
from accord.tournament import Results, TournamentConfig, run_tournament

SRC = Path(__file__).resolve().parents[2] / "src"


def _fresh(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_every_protocol_is_listed_without_importing_a_league() -> None:
    code = (
        "import sys, json\n"
        "from accord.core.protocols.registry import protocol_ids, table_entry\n"
        "ids = protocol_ids()\n"
        "found = {n: table_entry(n).id for n in ['genius', 'GENIUS_partial', 'han', 'iago',"
        " 'trails', 'colored-trails-oneshot', 'diplomacy', 'ultimatum', 'saop']}\n"
        "leagues = sorted(m for m in sys.modules if m.startswith('accord.leagues'))\n"
        "print(json.dumps([ids, found, leagues]))\n"
    )
    ids, found, leagues = json.loads(_fresh(code))
    assert leagues == []
    assert ids == sorted(e.id for e in TABLE)
    assert found == {
        "genius": "genius-partial-v1",
        "GENIUS_partial": "genius-partial-v1",
        "han": "han-v1",
        "iago": "han-v1",
        "trails": "colored-trails-v1",
        "colored-trails-oneshot": "colored-trails-oneshot-v1",
        "diplomacy": "diplomacy-anac2017-v1",
        "ultimatum": "ultimatum-v1",
        "saop": "aop-v1",
    }


def test_a_league_protocol_resolves_by_short_name_in_a_fresh_process() -> None:
    code = (
        "from accord.core.protocols import protocol_info\n"
        "print(protocol_info('genius').id, protocol_info('han').id,"
        " protocol_info('colored-trails').id, protocol_info('diplomacy').min_parties)\n"
    )
    assert _fresh(code).split() == ["genius-partial-v1", "han-v1", "colored-trails-v1", "7"]


@pytest.mark.parametrize("name", ["genius-partial-v1", "genius"])
def test_accord_tournament_runs_the_genius_protocol_in_a_fresh_process(
    name: str, tmp_path: Path
) -> None:
    out = tmp_path / "g.sqlite"
    code = (
        "from accord.cli import app\n"
        f"app(['tournament', '--protocol', '{name}', '--agents',"
        " 'accord.leagues.genius.mechanism:PartialConceder', '--scenarios', 'lunch',"
        f" '--rounds', '6', '--out', r'{out}'], standalone_mode=False)\n"
    )
    _fresh(code)
    results = Results(out)
    try:
        assert results.config["protocol"] == "genius-partial-v1"
        assert "protocol_path" not in results.config
        assert len(results.sessions) == 6
    finally:
        results.close()


def test_a_protocol_given_by_import_path_is_stored_by_its_id(tmp_path: Path) -> None:
    path = "accord.core.protocols.ultimatum:Ultimatum"
    config = TournamentConfig(["boulware", "conceder"], ["lunch"], protocol=path, rounds=5)
    assert config.protocol == "ultimatum-v1"
    assert config.protocol_path == path
    assert config.to_dict()["protocol"] == "ultimatum-v1"
    run_tournament(config, tmp_path / "u.sqlite")
    results = Results(tmp_path / "u.sqlite")
    try:
        assert results.config["protocol"] == "ultimatum-v1"
        assert results.config["protocol_path"] == path
        assert set(results.sessions["reason"]) <= {"agreement", "rejected"}
    finally:
        results.close()
    assert TournamentConfig(**{**config.to_dict(), "agents": ["boulware"]}).protocol_path == path


def test_workers_resolve_the_table_id_or_the_path_they_were_given() -> None:
    assert protocol_source("genius") == "genius-partial-v1"
    assert protocol_source("aop") == "aop-v1"
    assert table_entry("no-such-protocol") is None
    assert "genius-partial-v1" in protocol_ids()
