"""Review findings: bad command-line input is a one-line error, before any game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.trails.tournament import run_tournament


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--board", "-1"], "a board seed is 0 or more; got -1"),
        (["play", "--seed", "-1"], "the agents' seed is 0 or more; got -1"),
        (["tournament", "--seed", "-1"], "the seed of the boards must be 0 or more; got -1"),
        (["tournament", "--boards", "0"], "boards per dependency class must be at least 1; got 0"),
        (["tournament", "--boards", "1", "-a", "purb purb"], "agent 'purb' is named twice"),
    ],
)
def test_bad_numbers_and_names_are_one_line_errors(args: list[str], said: str) -> None:
    r = CliRunner().invoke(app, ["trails", *args], env={"COLUMNS": "200"})
    assert r.exit_code == 2, r.output
    assert said in r.output and "Traceback" not in r.output


def test_a_bad_tournament_makes_no_results_file(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    with pytest.raises(ConfigError, match="at least 1"):
        run_tournament(["purb"], boards=-2, out=out)
    assert not out.exists()


def _row(agent: str, score: int, promised: int = 0, sent: int = 0) -> dict[str, object]:
    return {
        "population": "p", "agent": agent, "partner": "x", "cls": "mutual", "score": score,
        "reached": False, "promised": promised, "sent": sent,
        "kept": round(sent / promised, 3) if promised else None, "reliability": 1.0,
    }  # fmt: skip


def test_compare_gives_the_score_interval_and_null_not_nan() -> None:
    import json

    from accord.leagues.trails.analysis import compare

    out = compare([_row("a", 10), _row("a", 20), _row("a", 30)])["p"]["a"]
    assert out["games"] == 3 and out["score"] == 20.0
    assert out["score_ci95"] == round(1.96 * 10.0 / 3**0.5, 2)  # sd 10 over 3 games
    assert out["kept"] is None  # nobody promised: JSON null, never NaN
    assert "NaN" not in json.dumps(compare([_row("a", 10)]))


@pytest.mark.parametrize("text", ["root:x:0:0:root:/root:/bin/bash\n", "a,b\n1,2\n"])
def test_a_file_that_is_not_a_study_export_is_refused_before_any_game(
    tmp_path: Path, text: str
) -> None:
    from accord.leagues.trails.analysis import population_report

    p = tmp_path / "events.csv"
    p.write_text(text)
    with pytest.raises(ConfigError, match="columns kind and data"):
        population_report(["no-such-agent"], ["reliable"], [], study=p, boards=1)
