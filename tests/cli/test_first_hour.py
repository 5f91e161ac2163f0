"""A researcher's first hour (issue 11), through the real ``accord`` command.

Real-valued and huge integer domains, choosing profiles, bad input refused before any
work, start-up without the heavy stacks, the plots, ``--json``/``--quiet``/``--version``
and one name per agent.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord.agents.registry import known_agents
from accord.cli import app
from accord.core.generate import random_linear_scenario
from accord.core.outcomes import CategoricalIssue, IntegerIssue, OutcomeSpace, RealIssue
from accord.core.scenario import Scenario
from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator
from accord.formats import load_scenario, write_native

runner = CliRunner()
SRC = Path(__file__).resolve().parents[2] / "src"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    return result.exit_code, _flat(result.output)


@pytest.fixture
def real_car(tmp_path: Path) -> Path:
    """A used-car scenario with a real-valued price, written as a native file."""
    space = OutcomeSpace(
        [CategoricalIssue("radio", ["none", "good"]), RealIssue("price", 5000.0, 9000.0)]
    )
    buyer = LinearAdditiveUtility(
        space, [0.3, 0.7], [{"none": 0.2, "good": 1.0}, LinearEvaluator(-1 / 4000, 9000 / 4000)]
    )
    seller = LinearAdditiveUtility(
        space,
        [0.2, 0.8],
        [{"none": 1.0, "good": 0.4}, LinearEvaluator(1 / 4000, -5000 / 4000)],
        reservation=0.2,
    )
    return write_native(
        Scenario("real_car", space, (buyer, seller), ("buyer", "seller")),
        tmp_path / "real_car.json",
    )


@pytest.fixture
def four_profiles(tmp_path: Path) -> Path:
    base = random_linear_scenario(3, 4, 4, seed=5)
    sc = Scenario(
        "market", base.space, base.utilities, ("m_Itex", "m_Itex50", "m_Cypress", "m_Cypress100")
    )
    return write_native(sc, tmp_path / "market.json")


# -- 1. real-valued and huge integer domains -----------------------------------------------
def test_every_builtin_agent_plays_on_a_real_valued_domain_and_the_output_says_how(real_car):
    for name in known_agents():
        code, out = _run(["negotiate", str(real_car), "-a", f"{name} Boulware", "--rounds", "30"])
        assert code == 0, out
        assert "real issue 'price' put on a grid of 10 values" in out
        assert "failure" not in out, (name, out)
    code, out = _run(
        ["negotiate", str(real_car), "-a", "Frequency Linear", "--discretize", "5", "--json"]
    )
    doc = json.loads(out)
    assert doc["failure"] is None and doc["notes"] == [
        "real issue 'price' put on a grid of 5 values (change with --discretize N)"
    ]
    assert doc["agreement"] is None or doc["agreement"]["price"] in (
        5000.0,
        6000.0,
        7000.0,
        8000.0,
        9000.0,
    )


def test_scenarios_show_says_how_real_issues_and_extra_profiles_are_played(real_car, four_profiles):
    code, out = _run(["scenarios", "show", str(real_car)])
    assert code == 0 and "put real (and huge integer) issues on a grid of 10 values" in out
    code, out = _run(["scenarios", "show", str(four_profiles)])
    assert (
        code == 0 and "4 profiles: negotiate with 4 agents, or choose some with --profiles" in out
    )


def test_discretize_zero_keeps_real_issues_and_the_agent_failure_is_recorded(real_car):
    code, out = _run(["negotiate", str(real_car), "-a", "Frequency Random", "--discretize", "0"])
    assert code == 0 and "failure of Frequency" in out and "discretize" in out
    code, out = _run(["negotiate", str(real_car), "-a", "Frequency Random", "--discretize", "1"])
    assert code == 2 and "--discretize must be 0 (keep real issues) or >= 2, got 1" in out


def test_huge_integer_issues_are_put_on_a_grid(tmp_path):
    space = OutcomeSpace([IntegerIssue("units", 0, 10**6), IntegerIssue("days", 1, 5000)])
    u1 = LinearAdditiveUtility(
        space, [0.5, 0.5], [LinearEvaluator(1e-6, 0.0), LinearEvaluator(-1 / 5000, 1.0)]
    )
    u2 = LinearAdditiveUtility(
        space, [0.5, 0.5], [LinearEvaluator(-1e-6, 1.0), LinearEvaluator(1 / 5000, 0.0)]
    )
    path = write_native(Scenario("bulk", space, (u1, u2)), tmp_path / "bulk.json")
    code, out = _run(["negotiate", str(path), "-a", "Frequency Conceder"])
    assert code == 0, out
    assert "integer (1000001 values) issue 'units' put on a grid of 10 values" in out
    assert "failure" not in out


def test_a_yaml_tournament_discretizes_and_says_so(tmp_path, real_car):
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({"agents": ["Boulware", "Frequency"], "scenarios": [str(real_car)],
                                   "discretize": 4, "rounds": 20}))  # fmt: skip
    code, out = _run(
        [
            "tournament",
            str(cfg),
            "--out",
            str(tmp_path / "t.sqlite"),
            "--executor",
            "serial",
            "--no-report",
        ]
    )
    assert code == 0, out
    assert "note: real_car: real issue 'price' put on a grid of 4 values" in out
    assert "Frequency" in out and "failure" not in out.lower().replace("failures", "")


# -- 2. choosing profiles --------------------------------------------------------------------
def test_profiles_are_chosen_in_load_scenario_and_the_cli(four_profiles):
    sc = load_scenario(four_profiles, profiles=["Itex", "Cypress100"])
    assert sc.profile_names == ("m_Itex", "m_Cypress100") and sc.name == "market[Itex,Cypress100]"
    code, out = _run(["negotiate", str(four_profiles), "-a", "Boulware Conceder"])
    assert code == 2 and "has 4 parties" in out and "--profiles" in out
    code, out = _run(
        [
            "negotiate",
            str(four_profiles),
            "-a",
            "Boulware Conceder",
            "--profiles",
            "Cypress,Itex50",
            "--json",
        ]
    )
    assert code == 0, out
    assert json.loads(out)["profiles"] == ["m_Cypress", "m_Itex50"]
    code, out = _run(
        ["negotiate", str(four_profiles), "-a", "Boulware Conceder", "--profiles", "Itex,Nobody"]
    )
    assert code == 2 and "has no profile 'Nobody'" in out and "m_Cypress100" in out


def test_tournaments_iterate_over_profile_pairs_as_genius_does(tmp_path, four_profiles):
    cfg = tmp_path / "t.yaml"
    entry = {
        "scenario": str(four_profiles),
        "profiles": {"sides": [["Itex", "Itex50"], ["Cypress", "Cypress100"]]},
    }
    cfg.write_text(
        yaml.safe_dump({"agents": ["Boulware", "Conceder"], "scenarios": [entry], "rounds": 10})
    )
    code, out = _run(
        [
            "tournament",
            str(cfg),
            "--out",
            str(tmp_path / "t.sqlite"),
            "--executor",
            "serial",
            "--json",
            "--no-report",  # the pairs are the point (the report's 10 plots took 3/4 of it)
        ]
    )
    assert code == 0, out
    doc = json.loads(out)
    # 4 profile pairs x 4 ordered agent pairs (self-play on) x 2 profile rotations
    assert doc["sessions"] == 4 * 4 * 2
    code, out = _run(["tournament", "--agents", "Boulware,Conceder", "--scenarios", str(four_profiles),
                      "--profiles", "pairs", "--rounds", "5", "--reps", "1", "--out", str(tmp_path / "p.sqlite"),
                      "--executor", "serial", "--json", "--no-report"])  # fmt: skip
    assert code == 0, out
    assert json.loads(out)["sessions"] == 6 * 4 * 2


# -- 3. bad input is refused before any work, in the user's words -----------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--trim", "0.7"],
            "--trim is the share cut from each end of the scores: it must be in [0, 0.5), got 0.7",
        ),
        (["--export", "xlsx"], "--export must be 'csv' or 'parquet', got 'xlsx'"),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
        (["--executor", "threads"], "--executor must be one of"),
        (["--discretize", "1"], "discretize must be 0 (keep real issues) or >= 2 levels, got 1"),
    ],
)
def test_bad_tournament_options_fail_before_any_session(tmp_path, args, message):
    out = tmp_path / "r.sqlite"
    code, text = _run(
        [
            "tournament",
            "--agents",
            "Boulware,Conceder",
            "--scenarios",
            "lunch",
            "--out",
            str(out),
            *args,
        ]
    )
    assert code == 2 and message in text
    assert not out.exists()


def test_yaml_with_a_wrong_type_names_the_setting(tmp_path):
    cfg = tmp_path / "t.yaml"
    cfg.write_text("agents: [Boulware, Conceder]\nscenarios: [lunch]\nreps: two\n")
    code, out = _run(["tournament", str(cfg), "--out", str(tmp_path / "r.sqlite")])
    assert code == 2 and out == "error: setting 'reps' must be int; got str 'two'"


def test_report_on_a_file_that_is_not_sqlite(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("my notes")
    code, out = _run(["report", str(bad)])
    assert (
        code == 2 and "is not an Accord tournament results file: expected a SQLite database" in out
    )


def test_league_and_convert_options_are_checked(tmp_path, monkeypatch):
    code, out = _run(["scml", "run", "--days", "-3"])
    assert code == 2 and "--days" in out and "must be at least 1, got -3" in out
    code, out = _run(["humaine", "agents", "fast-round", "--duration", "-5"])
    assert code == 2 and "--duration" in out and "got -5.0" in out
    monkeypatch.chdir(tmp_path)
    code, out = _run(["scenarios", "convert", "lunch", "lunch.yaml"])
    assert code == 1 and "a native scenario is a .json file (or a folder); got 'lunch.yaml'" in out
    assert not (tmp_path / "lunch.yaml").exists()


def test_negotiate_checks_its_numbers(tmp_path):
    code, out = _run(["negotiate", "lunch", "-a", "Boulware Conceder", "--rounds", "0"])
    assert code == 2 and "--rounds must be at least 1, got 0" in out
    code, out = _run(
        ["negotiate", "lunch", "-a", "Boulware Conceder", "--plot", str(tmp_path / "x.jpeg")]
    )
    assert code == 2 and "must end in .png, .svg or .pdf" in out


# -- 4. start-up ------------------------------------------------------------------------------
def _modules_after(code: str) -> set[str]:
    heavy = ("fastapi", "pandas", "matplotlib", "scipy", "uvicorn")
    probe = (
        f"import sys\n{code}\n"
        f"print('LOADED:', *[m for m in {heavy!r} if m in sys.modules], file=sys.stderr)"
    )
    env = {"PYTHONPATH": str(SRC), "COLUMNS": "80", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.strip().splitlines()[-1].split()[1:])


def test_importing_the_cli_and_asking_for_help_loads_no_heavy_stack():
    assert _modules_after("import accord.cli") == set()
    assert (
        _modules_after(
            "from accord.cli import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
        )
        == set()
    )
    assert (
        _modules_after(
            "from accord.cli import app\ntry:\n    app(['negotiate', 'lunch', '-a', 'Boulware Conceder', '--quiet'])\n"
            "except SystemExit:\n    pass"
        )
        == set()
    )


def test_help_lists_every_command_without_loading_them():
    code, out = _run(["--help"])
    for name in ("negotiate", "tournament", "report", "scenarios", "agents", "scml", "humaine"):
        assert f" {name} " in out
    code, out = _run(["humaine", "--help"])
    assert code == 0 and " manager " in out and " agents " in out


# -- 7. plots ---------------------------------------------------------------------------------
def test_plots_for_three_parties_and_offers_over_time(tmp_path):
    space_png, time_png = tmp_path / "space.png", tmp_path / "time.png"
    code, out = _run(["negotiate", "holiday", "-a", "Linear Conceder Boulware", "--rounds", "20",
                      "--plot", str(space_png), "--timeline", str(time_png)])  # fmt: skip
    assert code == 0, out
    for p in (space_png, time_png):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 20_000


def test_session_figure_leaves_the_matplotlib_backend_alone():
    import matplotlib

    from accord.core import Deadline, Session
    from accord.core.analysis import analyze
    from accord.plots import SessionTrace, session_figure, timeline_figure

    before = matplotlib.get_backend()
    matplotlib.rcParams["backend"] = "svg"
    try:
        sc = load_scenario("job_offer")
        from accord.agents import Boulware, Conceder

        r = Session(sc.space, [Boulware(), Conceder()], sc.utilities, Deadline(rounds=20)).run()
        fig = session_figure(sc, r, analyze(sc))
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert {"Nash point", "Kalai point", "Pareto frontier"} <= set(labels)
        assert fig.axes[0].get_xlabel().startswith("undiscounted utility of Boulware")
        timeline_figure(SessionTrace.of(sc, r))
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.rcParams["backend"] = before


# -- 8. scripting -------------------------------------------------------------------------------
def test_version_json_quiet_and_trace_utilities():
    code, out = _run(["--version"])
    assert code == 0 and out.startswith("accord ")
    code, out = _run(["negotiate", "lunch", "-a", "Boulware Conceder", "--quiet"])
    assert code == 0 and json.loads(out) == {"Food": "Hamburger", "Drink": "Beer"}
    code, out = _run(["negotiate", "lunch", "-a", "boulware frequency", "--json", "--trace"])
    doc = json.loads(out)
    assert doc["agents"] == ["Boulware", "Frequency"] and doc["reason"] == "agreement"
    first = doc["trace"][0]
    assert first["action"] == "offer" and len(first["utilities_undiscounted"]) == 2
    code, out = _run(["negotiate", "lunch", "-a", "boulware conceder", "--trace"])
    assert "utilities are undiscounted, in party order: Boulware (alice), Conceder (bob)" in out
    offers = re.findall(r"offer u=\[(\d\.\d{3}) (\d\.\d{3})\]", out)
    assert len(offers) == int(re.search(r"(\d+) offers,", out).group(1)) > 0


def test_tournament_json_and_quiet_print_only_what_scripts_read(tmp_path):
    out = tmp_path / "r.sqlite"
    code, text = _run(["tournament", "--agents", "boulware,accord.agents.frequency:FrequencyAgent",
                       "--scenarios", "lunch", "--rounds", "10", "--out", str(out),
                       "--executor", "serial", "--json"])  # fmt: skip
    assert code == 0, text
    doc = json.loads(text)
    assert doc["results"] == str(out) and Path(doc["report"]).is_file()
    assert {row["agent"] for row in doc["leaderboards"]["utility"]} == {"Boulware", "Frequency"}
    out = tmp_path / "q.sqlite"
    code, text = _run(["tournament", "--agents", "boulware,frequency", "--scenarios", "lunch",
                       "--rounds", "10", "--out", str(out), "--executor", "serial", "--quiet"])  # fmt: skip
    assert code == 0 and text.split() == [str(out), str(out.with_suffix(".html"))]


# -- 9. small things -----------------------------------------------------------------------------
def test_a_taken_port_suggests_free_ports():
    import socket

    import typer

    from accord.leagues.humaine.cli import _bind

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(typer.BadParameter, match="pass --port-base 0 to use free ports"):
            _bind("127.0.0.1", taken.getsockname()[1]).close()
    finally:
        taken.close()


def test_the_scml_tournament_table_counts_worlds_and_explains_its_score(tmp_path):
    code, out = _run(["scml", "tournament", "--competitors", "trader,random", "--days", "3",
                      "--configs", "1", "--executor", "serial", "--out", str(tmp_path / "s.sqlite")])  # fmt: skip
    assert code == 0, out
    worlds = int(re.search(r"SCML std tournament: (\d+) worlds run", out).group(1))
    played = [
        int(n)
        for n in re.findall(
            r"│ \d+ │ (?:trader|random) │ [+-]\d\.\d{4} │ [+-]\d\.\d{4} │ (\d+) │", out
        )
    ]
    assert len(played) == 2 and all(1 <= n <= worlds for n in played)
    assert "Ranked by score: the mean profit (eq. 3) of this type's factories" in out
    assert "worlds played: worlds in which this type ran a factory" in out
