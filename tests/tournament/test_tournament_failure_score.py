"""A failure never pays: the agent that failed a session scores 0 in it (default), its
opponents their reservation value; ``--failure-score reservation`` is the NegMAS rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tournament_helpers import F, T
from typer.testing import CliRunner

from accord.tournament.cli import app
from accord.tournament.config import TournamentConfig
from accord.tournament.results import Results
from accord.tournament.scenarios import resolve_scenario


def _config(tmp_path: Path) -> Path:
    cfg = TournamentConfig(
        agents=(f"Boulware={T}Boulware", f"Linear={T}Linear", f"Raiser={F}Raiser"),
        scenarios=("builtin:tiny",),
        self_play=False,
        pairing="combinations",
        name="failscore",
    )
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    return path


def _run(cfg: Path, out: Path, *extra: str) -> tuple[int, str]:
    args = ["tournament", str(cfg), "--out", str(out), "--executor", "serial", "--no-report"]
    result = CliRunner().invoke(app, [*args, *extra])
    return result.exit_code, result.output


def test_a_failing_agent_scores_zero_and_ranks_last(tmp_path: Path) -> None:
    assert min(u.reservation for u in resolve_scenario("builtin:tiny").utilities) > 0
    out = tmp_path / "t.sqlite"
    code, output = _run(_config(tmp_path), out, "--json")
    assert code == 0, output
    res = Results(out)
    p = res.parties
    raiser = p[p.agent == "Raiser"]
    assert len(raiser) == 4 and raiser["failed"].all()  # 2 opponents x 2 rotations
    assert (raiser.utility == 0.0).all()
    failed_ids = set(raiser.session_id)
    opponents = p[p.session_id.isin(failed_ids) & (p.agent != "Raiser")]
    assert len(opponents) == 4 and not opponents["failed"].any()
    assert (opponents.utility == opponents.reservation).all()
    res.close()
    boards = json.loads(output)["leaderboards"]
    utility = boards["utility"]
    assert [r["agent"] for r in utility][-1] == "Raiser"
    assert utility[-1]["score"] == 0.0


def test_failures_by_agent_are_printed(tmp_path: Path) -> None:
    code, output = _run(_config(tmp_path), tmp_path / "t.sqlite")
    assert code == 0, output
    assert "4 of 6 sessions failed" in output
    assert "failures by agent: Raiser 4" in output


def test_reservation_opt_out_pays_the_failing_agent_its_reservation(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    code, output = _run(_config(tmp_path), out, "--failure-score", "reservation", "-q")
    assert code == 0, output
    res = Results(out)
    raiser = res.parties[res.parties.agent == "Raiser"]
    assert len(raiser) == 4 and raiser["failed"].all()
    assert (raiser.utility == raiser.reservation).all() and (raiser.utility > 0).all()
    res.close()


def test_resuming_with_another_failure_score_is_refused(tmp_path: Path) -> None:
    cfg, out = _config(tmp_path), tmp_path / "t.sqlite"
    assert _run(cfg, out, "-q")[0] == 0
    code, output = _run(cfg, out, "--failure-score", "reservation", "-q")
    assert code == 2
    flat = " ".join(output.split())
    assert "settings changed: failure_score from 'zero' to 'reservation'" in flat


@pytest.mark.parametrize("bad", ["none", "0"])
def test_an_unknown_failure_score_is_a_clear_error(tmp_path: Path, bad: str) -> None:
    code, output = _run(_config(tmp_path), tmp_path / "t.sqlite", "--failure-score", bad)
    assert code == 2
    flat = " ".join(output.split())
    assert f"failure_score must be one of ('zero', 'reservation'), got '{bad}'" in flat
