"""Files that cannot be read give a FormatError naming the file, the element and the problem."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from accord.core.errors import FormatError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import CallableUtility, LinearAdditiveUtility, LinearEvaluator
from accord.formats import (
    genius_profile_xml,
    load_scenario,
    read_genius_folder,
    read_geniusweb_folder,
    read_native,
    save_scenario,
)

DOMAIN = """<negotiation_template><utility_space><objective index="0" name="root">
<issue index="1" name="drink" vtype="discrete"><item value="Cola"/><item value="Beer"/></issue>
<issue index="2" name="size" vtype="integer" lowerbound="1" upperbound="3"/>
</objective></utility_space></negotiation_template>"""

GOOD = """<utility_space><objective index="0" name="root">
<issue index="1" name="drink"><item value="Cola" evaluation="1"/><item value="Beer" evaluation="2"/>
</issue>
<issue index="2" name="size" type="integer" lowerbound="1" upperbound="3">
<evaluator ftype="linear" slope="0.5" offset="0"/></issue>
<weight index="1" value="0.5"/><weight index="2" value="0.5"/>
</objective></utility_space>"""


def make(tmp_path: Path, bad: str, domain: str = DOMAIN) -> Path:
    (tmp_path / "domain.xml").write_text(domain)
    (tmp_path / "a_good.xml").write_text(GOOD)
    (tmp_path / "b_bad.xml").write_text(bad)
    return tmp_path


@pytest.mark.parametrize(
    ("bad", "file", "pieces"),
    [
        (GOOD.replace("</objective>", ""), "b_bad.xml", ["not well-formed XML", "line"]),
        (
            GOOD.replace('evaluation="2"', 'evaluation="lots"'),
            "b_bad.xml",
            ['<item value="Beer">', "'evaluation' must be a number", "'lots'"],
        ),
        (
            GOOD.replace('<item value="Beer" evaluation="2"/>', ""),
            "b_bad.xml",
            ['<issue index="1" name="drink">', "missing ['Beer']"],
        ),
        (
            GOOD.replace('<weight index="2" value="0.5"/>', ""),
            "b_bad.xml",
            ['<issue index="2" name="size">', '<weight index="2"'],
        ),
        (
            GOOD.replace('ftype="linear" slope="0.5" offset="0"', 'ftype="triangular"'),
            "b_bad.xml",
            ["<evaluator>", "unsupported evaluator ftype 'triangular'"],
        ),
        (
            GOOD.replace('index="2" name="size"', 'index="7" name="volume"'),
            "b_bad.xml",
            ['<issue index="2">', "'size'", "found issue indices [1, 7]"],
        ),
        (
            '<utility_space type="nonlinear"><objective index="0"><utility maxutility="10">'
            '<ufun><hyperRectangle utility="3"><INCLUDES index="9" min="0" max="1"/>'
            "</hyperRectangle></ufun></utility></objective></utility_space>",
            "b_bad.xml",
            ['<INCLUDES index="9">', "not an issue of the domain"],
        ),
        (
            '<utility_space type="nonlinear"><objective index="0"><utility maxutility="10">'
            '<ufun><hyperRectangle utility="3"><EXCLUDES index="1" min="0" max="1"/>'
            "</hyperRectangle></ufun></utility></objective></utility_space>",
            "b_bad.xml",
            ['<EXCLUDES index="1">', "expected <INCLUDES index min max>"],
        ),
        ("<profile/>", "b_bad.xml", ["<profile>", "neither a GENIUS domain"]),
    ],
    ids=[
        "malformed",
        "non-numeric",
        "missing-value",
        "missing-weight",
        "bad-ftype",
        "unknown-issue",
        "box-on-unknown-issue",
        "excludes",
        "wrong-root",
    ],
)
def test_bad_profile_names_file_and_element(
    tmp_path: Path, bad: str, file: str, pieces: list[str]
) -> None:
    folder = make(tmp_path, bad)
    with pytest.raises(FormatError) as err:
        read_genius_folder(folder)
    message = str(err.value)
    assert message.startswith(str(folder / file))
    for piece in pieces:
        assert piece in message


def test_bad_domain_issue_type(tmp_path: Path) -> None:
    domain = DOMAIN.replace('vtype="integer"', 'vtype="fuzzy"')
    folder = make(tmp_path, GOOD, domain=domain)
    with pytest.raises(
        FormatError, match=r"domain\.xml: element <issue index=\"2\" name=\"size\">"
    ):
        read_genius_folder(folder)
    with pytest.raises(FormatError, match="unknown issue type 'fuzzy'; expected discrete"):
        read_genius_folder(folder)


def test_integer_issue_without_bounds(tmp_path: Path) -> None:
    domain = DOMAIN.replace('lowerbound="1" upperbound="3"', "")
    with pytest.raises(FormatError, match="expected lowerbound/upperbound attributes or a <range>"):
        read_genius_folder(make(tmp_path, GOOD, domain=domain))


def test_folder_needs_one_domain_and_two_profiles(tmp_path: Path) -> None:
    (tmp_path / "d1.xml").write_text(DOMAIN)
    (tmp_path / "p.xml").write_text(GOOD)
    with pytest.raises(FormatError, match=r"expected at least 2 GENIUS profile files, found 1"):
        read_genius_folder(tmp_path)
    (tmp_path / "d2.xml").write_text(DOMAIN)
    with pytest.raises(
        FormatError, match=r"exactly one GENIUS domain file, found d1\.xml, d2\.xml"
    ):
        read_genius_folder(tmp_path)


def test_geniusweb_errors_name_file_and_json_location(tmp_path: Path) -> None:
    dom = {"name": "d", "issuesValues": {"x": {"values": ["a", "b"]}}}
    (tmp_path / "d.json").write_text(json.dumps(dom))
    good = {
        "LinearAdditiveUtilitySpace": {
            "issueWeights": {"x": 1.0},
            "issueUtilities": {"x": {"discreteutils": {"valueUtilities": {"a": 1, "b": 0}}}},
        }
    }
    (tmp_path / "d1.json").write_text(json.dumps(good))
    bad = json.loads(json.dumps(good))
    bad["LinearAdditiveUtilitySpace"]["issueWeights"]["x"] = "heavy"
    (tmp_path / "d2.json").write_text(json.dumps(bad))
    with pytest.raises(FormatError) as err:
        read_geniusweb_folder(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'd2.json'}: LinearAdditiveUtilitySpace.issueWeights.x: "
        'expected a number, got "heavy"'
    )
    (tmp_path / "d2.json").write_text("{not json")
    with pytest.raises(FormatError, match=r"d2\.json: not valid JSON at line 1, column 2"):
        read_geniusweb_folder(tmp_path)
    bid = json.loads(json.dumps(good))
    bid["LinearAdditiveUtilitySpace"]["reservationBid"] = {"issuevalues": {"x": "c"}}
    (tmp_path / "d2.json").write_text(json.dumps(bid))
    with pytest.raises(FormatError, match=r"reservationBid: issue 'x' got 'c'; allowed: 'a', 'b'"):
        read_geniusweb_folder(tmp_path)


def test_native_errors_name_file_and_location(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    save_scenario(load_scenario("lunch"), path)
    data = json.loads(path.read_text())
    data["format"] = "something-else"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"s\.json: format: expected 'accord\.scenario'"):
        read_native(path)
    data["format"] = "accord.scenario"
    data["profiles"][1]["utility"]["type"] = "quadratic"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"s\.json: profiles\[1\]\.utility: .*'quadratic'"):
        read_native(path)
    del data["profiles"][1]["utility"]["issues"]["Drink"]
    data["profiles"][1]["utility"]["type"] = "linear_additive"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"profiles\[1\]\.utility: missing key 'Drink'"):
        read_native(path)


def test_load_scenario_explains_unknown_sources(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"did you mean 'meeting'\? Bundled: car_purchase"):
        load_scenario("meting")
    (tmp_path / "x.xml").write_text(DOMAIN)
    with pytest.raises(
        FormatError, match="a single GENIUS file is not a scenario; load its folder"
    ):
        load_scenario(tmp_path / "x.xml")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match="expected GENIUS XML files, GeniusWeb JSON files"):
        load_scenario(empty)


def test_writer_refuses_what_genius_would_read_differently(tmp_path: Path) -> None:
    space = OutcomeSpace([CategoricalIssue("x", ["a", "b"]), IntegerIssue("n", 0, 4)])
    u = LinearAdditiveUtility(
        space, [0.5, 0.5], [{"a": 0.8, "b": 0.1}, LinearEvaluator(0.25, 0.0)], normalize=False
    )
    with pytest.raises(FormatError, match=r"issue 'x': GENIUS divides .* maximum, which is 0\.8"):
        genius_profile_xml(u)
    assert 'evaluation="0.8"' in genius_profile_xml(u, rescale=True)
    steep = LinearAdditiveUtility(
        space, [0.5, 0.5], [{"a": 1.0, "b": 0.1}, LinearEvaluator(0.5, 0.0)], normalize=False
    )
    with pytest.raises(FormatError, match=re.escape("issue 'n': GENIUS clamps numeric")):
        genius_profile_xml(steep)
    odd = CallableUtility(space, lambda o: 0.5)
    with pytest.raises(FormatError, match="CallableUtility cannot be written as GENIUS XML"):
        save_scenario(Scenario("odd", space, (odd, odd)), tmp_path / "out", format="genius")
    assert not (tmp_path / "out").exists()


def test_genius_writer_refuses_weights_that_do_not_sum_to_one():
    space = OutcomeSpace([CategoricalIssue("x", ["a", "b"]), CategoricalIssue("y", ["a", "b"])])
    u = LinearAdditiveUtility(
        space, [0.7, 0.7], [{"a": 1, "b": 0.2}, {"a": 1, "b": 0}], normalize=False
    )
    assert u(("a", "a")) == pytest.approx(1.4)
    with pytest.raises(FormatError, match="weights summing to 1.4 would read back different"):
        genius_profile_xml(u)
    assert 'value="0.7"' in genius_profile_xml(u, rescale=True)
