"""The command line (tournament, report) and the HTML report."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from tournament_helpers import F, T, table
from typer.testing import CliRunner

from accord.cli import app as accord_app
from accord.tournament.cli import app, build_config, default_out
from accord.tournament.config import TournamentConfig
from accord.tournament.default import DEFAULT_OUT, default_config
from accord.tournament.report import write_report
from accord.tournament.runner import run_tournament

runner = CliRunner()


def test_flags_run_print_leaderboards_and_write_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accord.tournament import report

    figures = _keep_figures(report, monkeypatch)
    out = tmp_path / "r.sqlite"
    args = [
        "tournament",
        "--agents", f"{T}Boulware,Soft={T}Conceder",
        "--scenarios", "builtin:tiny",
        "--reps", "2", "--executor", "serial", "--out", str(out), "--seed", "3",
        "--export", "csv",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    for title in ("Individual utility", "Social welfare", "Nash product"):
        assert title in result.output
    assert "Boulware" in result.output and "Soft" in result.output
    assert "16 sessions (16 run now)" in result.output
    assert out.with_suffix(".html").is_file()
    assert (tmp_path / "r-csv" / "parties.csv").is_file()
    # every title, axis, colour-bar and legend text of the report's plots that names a
    # utility says whether it is discounted
    named = [t for t in _figure_texts(figures) if "utilit" in t.lower()]
    assert len(figures) >= 5 and len(named) >= 5
    assert not [t for t in named if "discount" not in t.lower()]
    # the same command again resumes and finds nothing left to run
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "16 sessions (0 run now)" in again.output


def _keep_figures(report: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the report draws from now on (each still drawn into the page)."""
    figures: list[Any] = []
    real_img = report.png_img

    def keep(fig: Any) -> str:
        figures.append(fig)
        return str(real_img(fig))

    monkeypatch.setattr(report, "png_img", keep)
    return figures


def _figure_texts(figures: list[Any]) -> list[str]:
    texts: list[str] = []
    for fig in figures:
        texts.append(fig.get_suptitle())
        for ax in fig.axes:
            texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
            legend = ax.get_legend()
            texts += [t.get_text() for t in legend.get_texts()] if legend else []
    return texts


def test_yaml_config_with_flag_overrides(tmp_path: Path) -> None:
    cfg = tmp_path / "t.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "name": "yaml-run",
                "agents": [f"{T}Boulware", f"{T}Linear"],
                "scenarios": ["builtin:tiny"],
                "reps": 1,
            }
        )
    )
    built = build_config(cfg, reps=2, seed=9)
    assert (built.name, built.reps, built.seed) == ("yaml-run", 2, 9)
    assert default_out(built, cfg) == Path("results") / "t.sqlite"
    out = tmp_path / "y.sqlite"
    result = runner.invoke(
        app, ["tournament", str(cfg), "--out", str(out), "--executor", "serial", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    assert "8 sessions (8 run now)" in result.output
    assert not out.with_suffix(".html").exists()


def test_bad_input_gives_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["tournament", "--agents", "nowhere:Agent", "--scenarios", "builtin:tiny",
         "--out", str(tmp_path / "x.sqlite"), "--executor", "serial"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "cannot import module 'nowhere'" in result.output
    result = runner.invoke(app, ["tournament", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = runner.invoke(accord_app, ["report", str(tmp_path / "missing.sqlite")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_report_command_writes_a_self_contained_page(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    cfg = TournamentConfig(
        agents=("accord.agents.learning:Learner", f"{T}Boulware", f"R={F}Raiser"),
        scenarios=("builtin:tiny", "builtin:trilateral"),
        reps=2,
        learning=True,
    )
    run_tournament(cfg, out, "processes", workers=2)
    page = tmp_path / "page.html"
    result = runner.invoke(accord_app, ["report", str(out), "--out", str(page), "--trim", "0.1"])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "mean after cutting 10% from each end" in html
    for section in (
        "Leaderboards", "Score distributions", "Agent against agent", "Per scenario",
        "Mean utility per repetition", "Failures", "Sample sessions", "Nash and Kalai points",
    ):  # fmt: skip
        assert section in html
    assert "RuntimeError: deliberate failure" in html
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(images) >= 5
    for img in images:
        assert base64.b64decode(img).startswith(b"\x89PNG")
    # nothing is loaded from elsewhere
    assert not re.search(r'(src|href)="(?!data:)', html)


def test_report_of_a_file_without_finished_sessions(tmp_path: Path) -> None:
    from accord.tournament.scenarios import resolve_scenarios
    from accord.tournament.schedule import schedule
    from accord.tournament.store import Store

    cfg = TournamentConfig((f"{T}Boulware",), ("builtin:tiny",))
    out = tmp_path / "empty.sqlite"
    with Store(out) as store:
        scen = resolve_scenarios(cfg.scenarios)
        store.prepare(cfg, scen, schedule(cfg, scen))
    html = write_report(out).read_text()
    assert "No session has finished yet" in html


def test_default_tournament_configuration() -> None:
    cfg = default_config()
    assert cfg.learning and cfg.reps == 3
    assert "accord.agents.learning:Learner" in [a.type for a in cfg.agents]
    assert build_config(None) == cfg
    assert default_out(cfg, None) == DEFAULT_OUT


def test_default_tournament_runs(tmp_path: Path) -> None:
    """The default tournament's path (processes, learning, leaderboards, report) on its
    own agents and scenarios, cut to one repetition of 10 rounds: what the full run adds
    is more of the same sessions (it took 82 s of the suite), and the full schedule is
    counted below without playing it."""
    from accord.tournament.cli import default_tournament
    from accord.tournament.scenarios import resolve_scenarios
    from accord.tournament.schedule import schedule

    full = default_config()
    small = full.with_(reps=1, rounds=10)
    out = tmp_path / "d.sqlite"
    run = default_tournament(out, workers=2, config=small)
    scenarios = resolve_scenarios(small.scenarios)
    assert run.ran == run.total == len(schedule(small, scenarios)) > 0
    assert (tmp_path / "d.html").is_file()
    rows = table(out, "SELECT COUNT(*), COUNT(DISTINCT scenario) FROM sessions")
    assert rows == [(run.total, 3)]
    # every agent of the default tournament played, the learner included
    agents = {a for (a,) in table(out, "SELECT DISTINCT agent FROM parties")}
    assert agents == {a.name for a in full.agents}
    # the full default schedule: three repetitions of the same pairings
    assert len(schedule(full, resolve_scenarios(full.scenarios))) == 3 * run.total


def test_agreements_below_the_own_reservation_value_are_counted_per_agent(tmp_path: Path) -> None:
    """An agent that accepts anything agrees below its reservation value: the terminal and
    the report count it, per agent; the careful one never does."""
    from accord.formats import load_scenario, write_native
    from accord.formats.native import scenario_from_dict, scenario_to_dict
    from accord.tournament.rationality import below_reservation
    from accord.tournament.results import Results

    d = scenario_to_dict(load_scenario("lunch"))
    for profile in d["profiles"]:
        profile["utility"]["reservation"] = 0.6
    path = write_native(scenario_from_dict(d), tmp_path / "lunch_rv.json")
    out = tmp_path / "r.sqlite"
    cfg = {
        "agents": ["Yes=tournament_helpers:AcceptsAnything", f"{T}Boulware"],
        "scenarios": [str(path)],
        "rounds": 10,
        "self_play": False,
    }
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(cfg))
    result = runner.invoke(
        app, ["tournament", str(tmp_path / "t.yaml"), "--out", str(out), "--executor", "serial"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    res = Results(out)
    try:
        table = below_reservation(res.parties, res.sessions, res.scenarios)
        rows = {r.agent: (r.below, r.agreements) for r in table.itertuples()}
    finally:
        res.close()
    below, agreed = rows["Yes"]
    assert agreed >= 1 and below >= 1
    assert rows["Boulware"][0] == 0
    assert f"Yes {below} of {agreed}" in result.output
    html = (tmp_path / "r.html").read_text()
    assert "Agreements below the agent&#x27;s own reservation value" in html or (
        "Agreements below the agent's own reservation value" in html
    )
    assert f"<td>Yes</td><td>{below}</td><td>{agreed}</td>" in html


def test_an_entrant_refused_before_any_session_leaves_no_progress_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "entrant.py").write_text("X = 1\n")
    monkeypatch.chdir(tmp_path)
    args = ["tournament", "--agents", "entrant:Nope,boulware", "--scenarios", "lunch"]
    result = runner.invoke(app, [*args, "--reps", "1", "--sandbox", "process"])
    assert result.exit_code == 2
    assert "module 'entrant' has no attribute 'Nope'" in result.output
    assert "0/?" not in result.output and "━" not in result.output
