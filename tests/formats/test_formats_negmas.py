"""NegMAS scenario folders (``Scenario.dumpas`` output) in ``load_scenario`` and
``accord negotiate``: the same utility as NegMAS's on every outcome, or one clear error."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import FormatError
from accord.formats import detect_format, load_scenario
from accord.formats.negmas_files import read_negmas_folder
from real_scenarios import genius

runner = CliRunner()


def dumped(folder: str, dest: Path, kind: str = "yml", ignore_discount: bool = True) -> Any:
    """A GENIUS folder read by NegMAS and written by ``Scenario.dumpas``; the NegMAS one."""
    inout = pytest.importorskip("negmas.inout", reason="needs the negmas extra")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = inout.Scenario.from_genius_folder(genius(folder), ignore_discount=ignore_discount)
        sc.dumpas(dest, type=kind)
    return sc


@pytest.mark.parametrize("kind", ["yml", "json"])
@pytest.mark.parametrize(
    "folder", ["anac2013_DefensiveCharms", "genius_IntegerDomain", "anac2015_dinner_3party"]
)
def test_a_negmas_dump_loads_with_the_same_utility_on_every_outcome(
    folder: str, kind: str, tmp_path: Path
) -> None:
    theirs = dumped(folder, tmp_path / "sc", kind)
    assert detect_format(tmp_path / "sc") == "negmas"
    ours = load_scenario(tmp_path / "sc")
    assert ours.n_parties == len(theirs.ufuns) >= 2
    assert [i.name for i in ours.space.issues] == [i.name for i in theirs.outcome_space.issues]
    assert ours.space.cardinality == theirs.outcome_space.cardinality
    names = sorted(u.name for u in theirs.ufuns)
    assert list(ours.profile_names) == names
    by_name = {u.name: u for u in theirs.ufuns}
    checked = 0
    for u, name in zip(ours.utilities, ours.profile_names, strict=True):
        nu = by_name[name]
        assert u.reservation == pytest.approx(max(float(nu.reserved_value), 0.0))
        for o in ours.space:
            assert u(o) == pytest.approx(float(nu(o)), abs=1e-12)
            checked += 1
    assert checked >= 2 * 36


def test_a_discount_on_relative_time_is_accords_discount(tmp_path: Path) -> None:
    theirs = dumped("anac2013_DefensiveCharms", tmp_path / "sc")
    for f in sorted((tmp_path / "sc").glob("*.yml")):
        doc = yaml.safe_load(f.read_text())
        if doc.get("type") == "LinearAdditiveUtilityFunction":
            wrapped = {"type": "ExpDiscountedUFun", "discount": 0.6, "factor": "relative_time",
                       "name": doc["name"], "reserved_value": 0.25, "ufun": doc}  # fmt: skip
            f.write_text(yaml.safe_dump(wrapped))
    ours = load_scenario(tmp_path / "sc")
    assert [u.discount for u in ours.utilities] == [0.6, 0.6]
    assert [u.reservation for u in ours.utilities] == [0.25, 0.25]
    o = next(iter(ours.space))
    base = {u.name: u for u in theirs.ufuns}[ours.profile_names[0]]
    assert ours.utilities[0].at(o, 0.5) == pytest.approx(float(base(o)) * 0.6**0.5, abs=1e-12)


def test_what_accord_cannot_read_exactly_is_refused_with_the_reason(tmp_path: Path) -> None:
    dumped("anac2011_Grocery", tmp_path / "step", ignore_discount=False)  # NegMAS: per step
    with pytest.raises(FormatError, match="factor 'step' discounts per round") as info:
        load_scenario(tmp_path / "step")
    assert "load the GENIUS folder itself" in str(info.value)
    lam = tmp_path / "lambda"
    lam.mkdir()
    (lam / "d.yml").write_text(
        yaml.safe_dump({"type": "CartesianOutcomeSpace", "name": "d",
                        "issues": [{"type": "ContiguousIssue", "name": "n", "values": [0, 3]}]})
    )  # fmt: skip
    for who in "ab":
        (lam / f"{who}.yml").write_text(
            yaml.safe_dump({"type": "LinearAdditiveUtilityFunction", "name": who,
                            "weights": [1.0], "values": [{"type": "LambdaFun", "f": b"x"}]})
        )  # fmt: skip
    with pytest.raises(FormatError, match="never unpickles"):
        read_negmas_folder(lam)
    with pytest.raises(FormatError, match="single NegMAS file is not a scenario"):
        load_scenario(lam / "a.yml")


def test_accord_negotiate_runs_a_negmas_scenario_folder(tmp_path: Path) -> None:
    dumped("anac2013_DefensiveCharms", tmp_path / "sc", "json")
    result = runner.invoke(
        app, ["negotiate", str(tmp_path / "sc"), "-a", "boulware conceder", "--json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["reason"] == "agreement" and doc["discounted"] is False
    assert len(doc["utilities_undiscounted"]) == 2
