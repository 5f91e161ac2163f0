"""``accord negotiate`` end to end through the real CLI app."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()


def test_negotiate_prints_agreement_utilities_and_distances_and_draws_the_plot(tmp_path):
    png = tmp_path / "lunch.png"
    result = runner.invoke(
        app, ["negotiate", "lunch", "--agents", "boulware conceder", "--plot", str(png)]
    )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "ended by agreement" in out
    assert "{'Food': 'Hamburger', 'Drink': 'Beer'}" in out
    assert "0.9100" in out  # U(Hamburger, Beer) for the first (PRIANAC) profile
    assert "distance to Pareto 0.0000" in out and "distance to Nash" in out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_negotiate_runs_multilateral_sessions():
    result = runner.invoke(
        app,
        [
            "negotiate",
            "holiday",
            "-a",
            "linear",
            "-a",
            "conceder",
            "-a",
            "boulware",
            "--rounds",
            "30",
            "--trace",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "step    0" in result.output and "social welfare" in result.output


def test_wrong_agent_count_is_a_clear_error():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware"])
    assert result.exit_code == 2
    assert "has 2 parties" in " ".join(result.output.split())


def test_unknown_agent_and_scenario_are_named():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware nosuch"])
    assert result.exit_code == 2 and "unknown agent 'nosuch'" in result.output
    result = runner.invoke(app, ["negotiate", "lunchh", "-a", "boulware conceder"])
    assert result.exit_code == 2 and "lunch" in result.output


def test_a_missing_extra_is_named_in_one_line_by_every_command(monkeypatch):
    # NegMAS's agent packages not installed: importing them fails, as without the extra.
    monkeypatch.setitem(sys.modules, "negmas_negolog", None)
    name = "negmas_negolog:BoulwareAgent"
    for args in (
        ["negotiate", "lunch", "--agents", f"{name} boulware"],
        ["agents", "check", name],
        ["tournament", "--agents", f"{name},boulware", "--scenarios", "lunch"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        assert "pip install '.[negmas]'" in result.output, (args, result.output)


def test_error_text_reaches_the_user_verbatim_not_read_as_markup():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware nosuchmod_x:Agent[bold]"])
    assert result.exit_code == 2
    assert "nosuchmod_x:Agent[bold]" in " ".join(result.output.split())


def test_every_figure_says_whether_it_is_discounted() -> None:
    """FitnessA-like: a discounted scenario (holiday is not; a discount is added here)."""
    import json

    plain = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder", "--json"])
    doc = json.loads(plain.output)
    assert doc["discounted"] is False
    for key in ("utilities", "welfare", "nash_product", "pareto_distance", "nash_distance"):
        assert key not in doc  # no unlabelled figure
    for key in ("utilities_discounted", "utilities_undiscounted", "welfare_discounted",
                "welfare_undiscounted", "nash_product_discounted", "nash_product_undiscounted",
                "pareto_distance_undiscounted", "nash_distance_undiscounted"):  # fmt: skip
        assert key in doc, key
    assert doc["utilities_discounted"] == doc["utilities_undiscounted"]  # no discount
    text = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder"]).output
    out = " ".join(text.split())
    assert "utilities (no discount)" in out and "undiscounted: social welfare" in out
    assert "discounted to t=" not in out


def test_a_discounted_session_labels_both_figures(tmp_path) -> None:
    import json

    from accord.formats import load_scenario, write_native
    from accord.formats.native import scenario_from_dict, scenario_to_dict

    d = scenario_to_dict(load_scenario("lunch"))
    for profile in d["profiles"]:
        profile["utility"]["discount"] = 0.5
    path = write_native(scenario_from_dict(d), tmp_path / "lunch_d.json")
    doc = json.loads(
        runner.invoke(app, ["negotiate", str(path), "-a", "boulware conceder", "--json"]).output
    )
    assert doc["discounted"] is True and doc["discounts"] == [0.5, 0.5]
    t = doc["time"]
    for name, und in doc["utilities_undiscounted"].items():
        assert doc["utilities_discounted"][name] == pytest.approx(und * 0.5**t)
    assert doc["welfare_discounted"] < doc["welfare_undiscounted"]
    out = " ".join(
        runner.invoke(app, ["negotiate", str(path), "-a", "boulware conceder"]).output.split()
    )
    assert f"discounted to t={t:.3f}: social welfare" in out
    assert "undiscounted: social welfare" in out and "distance to Pareto" in out


TD = "accord.agents.timebased:TimeDependent"


def test_param_goes_to_the_agents_that_take_it_or_to_one_party() -> None:
    import json

    def first_offer(*params: str) -> dict:
        result = runner.invoke(
            app,
            ["negotiate", "job_offer", "-a", f"{TD} conceder", "--json", "--trace", *params],
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    base = first_offer()
    both = first_offer("-p", "exponent=0.01")  # both take an exponent: both get it
    second = first_offer("-p", "2:exponent=0.01")
    assert both["trace"] != base["trace"] and second["trace"] != base["trace"]
    assert second["trace"] != both["trace"]
    # Linear takes no exponent: a plain key=value goes to the agents that take it only
    only = runner.invoke(
        app, ["negotiate", "job_offer", "-a", "linear conceder", "-p", "exponent=0.01", "--json"]
    )
    assert only.exit_code == 0, only.output
    bad = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder", "-p", "nope=1"])
    assert bad.exit_code == 2 and "no agent takes a parameter 'nope'" in bad.output
    assert "Traceback" not in bad.output
    bad = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder", "-p", "3:x=1"])
    assert bad.exit_code == 2 and "party 3 does not exist" in bad.output
    # a value that is not YAML: one line saying what was expected, no traceback
    bad = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder", "-p", "exponent=[1"])
    said = " ".join(bad.output.split())
    assert bad.exit_code == 2, bad.output
    assert "parameter 'exponent': expected a YAML value" in said and "got '[1'" in said, said


def test_agreeing_below_ones_reservation_value_is_reported() -> None:
    import json

    from accord.agents import get_agent
    from accord.commands.negotiate import below_reservation
    from accord.core import Deadline, Session
    from accord.formats import load_scenario

    sc = load_scenario("lunch")
    res = Session(sc.space, [get_agent("boulware"), get_agent("conceder")], sc.utilities,
                  Deadline(rounds=20)).run()  # fmt: skip
    assert res.agreement is not None
    low = min(res.utilities)
    raised = [type(u)(u.space, u.weights, u.evaluators, reservation=low + 0.05,
                      normalize=False) if k == res.utilities.index(low) else u
              for k, u in enumerate(sc.utilities)]  # fmt: skip
    from accord.core.scenario import Scenario

    sc2 = Scenario(sc.name, sc.space, tuple(raised), sc.profile_names)
    assert below_reservation(sc2, res) == [res.names[res.utilities.index(low)]]
    assert below_reservation(sc, res) == []
    doc_ok = json.loads(runner.invoke(app, ["negotiate", "lunch", "-a", "boulware conceder",
                                            "--json"]).output)  # fmt: skip
    assert doc_ok["below_reservation"] == []
