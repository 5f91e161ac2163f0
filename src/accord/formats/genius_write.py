"""Write outcome spaces, profiles and scenarios as GENIUS XML.

GENIUS rescales what it reads (weights to sum 1, each discrete issue's evaluations to a
maximum of 1, numeric evaluations clamped to [0, 1]). A profile that would read back
differently (for example a discrete issue whose best value is worth 0.8) is refused
with a :class:`FormatError` unless ``rescale=True``, which writes it anyway and lets
GENIUS rescale it.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([CategoricalIssue("Drink", ["Cola", "Beer"])])
    >>> u = LinearAdditiveUtility(space, [1.0], [{"Cola": 0.2, "Beer": 1.0}], reservation=0.3)
    >>> print(genius_profile_xml(u))
    <utility_space>
        <objective index="0" name="root" type="objective" etype="objective">
            <issue index="1" name="Drink" vtype="discrete" type="discrete" etype="discrete">
                <item index="1" value="Cola" evaluation="0.2" />
                <item index="2" value="Beer" evaluation="1.0" />
            </issue>
            <weight index="1" value="1.0" />
        </objective>
        <discount_factor value="1.0" />
        <reservation value="0.3" />
    </utility_space>
    <BLANKLINE>
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from accord.core.errors import FormatError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace, RealIssue
from accord.core.scenario import Scenario
from accord.core.utilities import (
    HyperRectangleUtility,
    LinearAdditiveUtility,
    LinearEvaluator,
    UtilityFunction,
)
from accord.formats._xml import fmt
from accord.formats.genius import natural_key
from accord.formats.legacy import (
    ClampedLinearTerm,
    GeniusAdditiveUtility,
    PriceTerm,
    TableTerm,
    clamp01,
)

_TOL = 1e-12


def _issue_element(parent: ET.Element, k: int, issue: Issue) -> ET.Element:
    el = ET.SubElement(parent, "issue", index=str(k + 1), name=issue.name)
    if isinstance(issue, CategoricalIssue):
        el.attrib.update(vtype="discrete", type="discrete", etype="discrete")
    elif isinstance(issue, IntegerIssue):
        el.attrib.update(vtype="integer", type="integer", etype="integer")
        el.attrib.update(lowerbound=str(issue.lower), upperbound=str(issue.upper))
    elif isinstance(issue, RealIssue):
        el.attrib.update(vtype="real", type="real", etype="real")
        ET.SubElement(el, "range", lowerbound=fmt(issue.lower), upperbound=fmt(issue.upper))
    else:
        raise FormatError(f"issue {issue.name!r}: {type(issue).__name__} has no GENIUS form")
    return el


def _root_objective(parent: ET.Element) -> ET.Element:
    return ET.SubElement(
        parent, "objective", index="0", name="root", type="objective", etype="objective"
    )


def _to_text(root: ET.Element) -> str:
    ET.indent(root, space="    ")
    return ET.tostring(root, encoding="unicode") + "\n"


def genius_domain_xml(space: OutcomeSpace) -> str:
    """The GENIUS domain (``<negotiation_template>``) of an outcome space."""
    root = ET.Element("negotiation_template")
    us = ET.SubElement(root, "utility_space", number_of_issues=str(len(space.issues)))
    obj = _root_objective(us)
    for k, issue in enumerate(space.issues):
        el = _issue_element(obj, k, issue)
        if isinstance(issue, CategoricalIssue):
            for j, v in enumerate(issue.values()):
                ET.SubElement(el, "item", index=str(j + 1), value=str(v))
    return _to_text(root)


def _check(ok: bool, rescale: bool, message: str) -> None:
    if not ok and not rescale:
        raise FormatError(message + "; pass rescale=True to write it anyway")


def _discrete(
    el: ET.Element,
    issue: Issue,
    evaluate: Callable[[Any], float],
    costs: Mapping[Any, float] | None,
    rescale: bool,
) -> None:
    evals = [evaluate(v) for v in issue.values()]
    top = max(evals)
    _check(
        abs(top - 1.0) <= _TOL or top < 1e-5 and all(e == 0 for e in evals),
        rescale,
        f"issue {issue.name!r}: GENIUS divides evaluations by their maximum, which is {top}",
    )
    for j, (v, e) in enumerate(zip(issue.values(), evals, strict=True)):
        item = ET.SubElement(el, "item", index=str(j + 1), value=str(v), evaluation=fmt(e))
        if costs and v in costs:
            item.set("cost", fmt(costs[v]))


def _numeric(
    el: ET.Element, issue: IntegerIssue | RealIssue, slope: float, offset: float, clamped: bool
) -> None:
    """A linear evaluator ``slope * x + offset`` (clamped to [0, 1] if ``clamped``)."""
    ends = (slope * issue.lower + offset, slope * issue.upper + offset)
    if not clamped and not all(-_TOL <= e <= 1.0 + _TOL for e in ends):
        raise FormatError(
            f"issue {issue.name!r}: GENIUS clamps numeric evaluations to [0, 1], but they "
            f"range over {min(ends)}..{max(ends)}"
        )
    if isinstance(issue, IntegerIssue):
        ET.SubElement(
            el,
            "evaluator",
            ftype="linear",
            slope=fmt(slope),
            offset=fmt(offset + slope * issue.lower),
        )
    else:
        ET.SubElement(
            el, "evaluator", ftype="linear", parameter0=fmt(offset), parameter1=fmt(slope)
        )


def _fit_integer(issue: IntegerIssue, table: Mapping[Any, float]) -> tuple[float, float]:
    """``(slope, offset)`` with ``clamp(slope * x + offset) == table[x]``, or FormatError."""
    xs = list(issue.values())
    ys = [float(table[x]) for x in xs]
    inner = [(x, y) for x, y in zip(xs, ys, strict=True) if 0.0 < y < 1.0]
    candidates = [(xs[0], ys[0], xs[-1], ys[-1])]
    if len(inner) >= 2:
        candidates.insert(0, (inner[0][0], inner[0][1], inner[-1][0], inner[-1][1]))
    for x0, y0, x1, y1 in candidates:
        slope = (y1 - y0) / (x1 - x0) if x1 != x0 else 0.0
        offset = y0 - slope * x0
        if all(abs(clamp01(slope * x + offset) - y) <= 1e-9 for x, y in zip(xs, ys, strict=True)):
            return slope, offset
    raise FormatError(
        f"issue {issue.name!r}: GENIUS integer issues need a (clamped) linear evaluation; "
        f"got {ys[:6]}{' ...' if len(ys) > 6 else ''}"
    )


def _linear_profile(u: LinearAdditiveUtility, obj: ET.Element, rescale: bool) -> None:
    total = float(u.weights.sum())
    _check(
        abs(total - 1.0) <= 1e-9,
        rescale,
        f"GENIUS divides the weights by their sum, so weights summing to {total:.6g} "
        "would read back different",
    )
    for k, issue in enumerate(u.space.issues):
        el = _issue_element(obj, k, issue)
        e = u.evaluators[k]
        if isinstance(issue, CategoricalIssue):
            _discrete(el, issue, partial(u.evaluation, k), None, rescale)
        elif isinstance(e, LinearEvaluator) and isinstance(issue, IntegerIssue | RealIssue):
            s = u.scales[k]
            _numeric(el, issue, e.slope * s, e.offset * s, clamped=False)
        elif isinstance(issue, IntegerIssue):
            table = {x: u.evaluation(k, x) for x in issue.values()}
            slope, offset = _fit_integer(issue, table)
            _numeric(el, issue, slope, offset, clamped=True)
        else:
            raise FormatError(f"issue {issue.name!r}: only a linear evaluator can be written")
    for k in range(len(u.space.issues)):
        ET.SubElement(obj, "weight", index=str(k + 1), value=fmt(u.weights[k]))


def _legacy_profile(u: GeniusAdditiveUtility, obj: ET.Element, rescale: bool) -> None:
    for k, (issue, term) in enumerate(zip(u.space.issues, u.terms, strict=True)):
        el = _issue_element(obj, k, issue)
        if isinstance(term, TableTerm):
            _discrete(el, issue, term.values.__getitem__, u.costs[k], rescale)
        elif isinstance(term, ClampedLinearTerm) and isinstance(issue, IntegerIssue | RealIssue):
            _numeric(el, issue, term.slope, term.offset, clamped=True)
        elif isinstance(term, PriceTerm):
            el.attrib.update(type="price", vtype="real", etype="real")
            for child in list(el):
                el.remove(child)
            ET.SubElement(el, "range", lowerbound=fmt(term.lower), upperbound=fmt(term.upper))
            ET.SubElement(el, "rationality_factor", value=fmt(term.rationality))
        else:
            raise FormatError(f"issue {issue.name!r}: cannot write term {term!r}")
    for k, w in enumerate(u.weights):
        ET.SubElement(obj, "weight", index=str(k + 1), value=fmt(w))


def _hyper_profile(u: HyperRectangleUtility, obj: ET.Element) -> None:
    for k, issue in enumerate(u.space.issues):
        _issue_element(obj, k, issue)
    util = ET.SubElement(obj, "utility", maxutility=fmt(u.max_utility))
    ufun = ET.SubElement(util, "ufun", type="PlainUfun", weight="1", aggregation="sum")
    for r in u.rectangles:
        box = ET.SubElement(ufun, "hyperRectangle", utility=fmt(r.utility))
        for k, lo, hi in r.bounds:
            ET.SubElement(box, "INCLUDES", index=str(k + 1), min=str(lo), max=str(hi))


def genius_profile_xml(utility: UtilityFunction, rescale: bool = False) -> str:
    """A GENIUS profile (``<utility_space>``) for a utility; FormatError if impossible."""
    root = ET.Element("utility_space")
    obj = _root_objective(root)
    if isinstance(utility, LinearAdditiveUtility):
        _linear_profile(utility, obj, rescale)
    elif isinstance(utility, GeniusAdditiveUtility):
        _legacy_profile(utility, obj, rescale)
    elif isinstance(utility, HyperRectangleUtility):
        root.set("type", "nonlinear")
        _hyper_profile(utility, obj)
    else:
        raise FormatError(
            f"a {type(utility).__name__} cannot be written as GENIUS XML; expected a linear "
            "additive or hyper-rectangle utility"
        )
    ET.SubElement(root, "discount_factor", value=fmt(utility.discount or 1.0))
    ET.SubElement(root, "reservation", value=fmt(utility.reservation))
    return _to_text(root)


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "profile"


def write_genius_folder(scenario: Scenario, folder: str | Path, rescale: bool = False) -> Path:
    """Write ``scenario`` as a GENIUS folder: ``<name>-domain.xml`` and one file per profile.

    GENIUS folders have no profile order; readers take the files in name order, so when
    the profile names do not sort in role order they get an ``NN-`` prefix.
    """
    out = Path(folder)
    stems = [_file_stem(n) for n in scenario.profile_names]
    if len(set(stems)) != len(stems) or sorted(stems, key=natural_key) != stems:
        stems = [f"{k + 1:02d}-{s}" for k, s in enumerate(stems)]
    texts = [genius_profile_xml(u, rescale) for u in scenario.utilities]  # fail before writing
    out.mkdir(parents=True, exist_ok=True)
    domain_name = f"{_file_stem(scenario.name)}-domain.xml"
    if domain_name[:-4] in stems:
        domain_name = "domain.xml"
    (out / domain_name).write_text(genius_domain_xml(scenario.space), encoding="utf-8")
    for stem, text in zip(stems, texts, strict=True):
        (out / f"{stem}.xml").write_text(text, encoding="utf-8")
    return out
