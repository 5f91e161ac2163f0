"""Read GENIUS XML domains, profiles and scenario folders with GENIUS semantics.

A GENIUS scenario is a folder with one domain file (``<negotiation_template>`` or a
bare ``<utility_space>``) and one profile file per party. Profiles are read as GENIUS
evaluates them:

- discrete issues: each evaluation is divided by the issue's largest evaluation (all
  zero when that maximum is below 1e-5); weights are divided by their sum;
- integer issues: ``clamp(offset + slope * (x - lowerbound), 0, 1)`` (or the older
  ``parameter1 * x + parameter0``), not rescaled;
- real issues: ``clamp(parameter1 * x + parameter0, 0, 1)``; ``type="price"`` issues use
  the old price evaluator (see :mod:`accord.formats.legacy`);
- ``type="nonlinear"`` profiles (ANAC 2014): hyper-rectangles divided by ``maxutility``;
- issues are matched by their ``index`` attribute (objectives may be numbered from 1
  and issues from 2), weights of objectives are ignored; the reservation value is kept
  as written and a discount factor ``<= 0`` or ``>= 1`` means none.

Example:
    >>> from pathlib import Path
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "domain.xml").write_text(
    ...     '<negotiation_template><utility_space><objective index="0" name="root">'
    ...     '<issue index="1" name="Drink" vtype="discrete"><item index="1" value="Cola"/>'
    ...     '<item index="2" value="Beer"/></issue></objective></utility_space>'
    ...     '</negotiation_template>')
    >>> for k, (cola, beer) in enumerate([(20, 100), (100, 30)]):
    ...     _ = (folder / f"p{k + 1}.xml").write_text(
    ...         f'<utility_space><objective index="0"><issue index="1" name="Drink">'
    ...         f'<item value="Cola" evaluation="{cola}"/><item value="Beer" '
    ...         f'evaluation="{beer}"/></issue><weight index="1" value="2"/></objective>'
    ...         f'<reservation value="0.25"/></utility_space>')
    >>> s = read_genius_folder(folder)
    >>> s.profile_names, s.utilities[0](("Cola",)), s.utilities[1](("Beer",))
    (('p1', 'p2'), 0.2, 0.3)
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from accord.core.errors import FormatError, InvalidScenario
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace, RealIssue
from accord.core.scenario import Scenario
from accord.core.utilities import (
    Evaluator,
    HyperRectangle,
    HyperRectangleUtility,
    LinearAdditiveUtility,
    LinearEvaluator,
    UtilityFunction,
)
from accord.formats._xml import describe, fail, get_attr, get_float, get_int, located, parse_xml
from accord.formats.legacy import (
    ClampedLinearTerm,
    GeniusAdditiveUtility,
    PriceTerm,
    TableTerm,
    Term,
    clamp01,
)

#: Companion files of GENIUS scenario folders that are not domains or profiles.
IGNORED_FILES = frozenset({"pareto.xml"})
_MAX_TABLE = 1_000_000


@dataclass(frozen=True)
class GeniusDomain:
    """An outcome space read from a GENIUS domain, with each issue's XML ``index``."""

    space: OutcomeSpace
    numbers: tuple[int, ...]
    path: Path

    def position(self, number: int) -> int | None:
        """Position in the space of the issue with XML index ``number``."""
        try:
            return self.numbers.index(number)
        except ValueError:
            return None


def _utility_space(path: Path, root: ET.Element) -> ET.Element:
    if root.tag == "utility_space":
        return root
    if root.tag == "negotiation_template":
        found = root.find(".//utility_space")
        if found is not None:
            return found
        raise fail(path, root, "expected a <utility_space> child holding the issues, found none")
    raise fail(path, root, "expected <negotiation_template> or <utility_space> as the root element")


def _kind(el: ET.Element) -> str:
    return (el.get("vtype") or el.get("type") or el.get("etype") or "discrete").strip().lower()


def _bounds(path: Path, el: ET.Element, number: type[int] | type[float]) -> tuple[Any, Any]:
    holder = el
    if el.get("lowerbound") is None:
        rng = el.find("range")
        if rng is None:
            raise fail(path, el, "expected lowerbound/upperbound attributes or a <range> child")
        holder = rng
    if number is int:
        return get_int(path, holder, "lowerbound"), get_int(path, holder, "upperbound")
    return get_float(path, holder, "lowerbound"), get_float(path, holder, "upperbound")


def _domain_issue(path: Path, el: ET.Element) -> Issue:
    name = get_attr(path, el, "name")
    kind = _kind(el)
    with located(f"{path}: element {describe(el)}"):
        if kind == "discrete":
            values = [get_attr(path, item, "value") for item in el.findall("item")]
            if not values:
                raise fail(path, el, "a discrete issue needs <item value=...> children, found none")
            return CategoricalIssue(name, values)
        if kind == "integer":
            lo, hi = _bounds(path, el, int)
            return IntegerIssue(name, lo, hi)
        if kind in ("real", "price"):
            lo, hi = _bounds(path, el, float)
            return RealIssue(name, lo, hi)
    raise fail(path, el, f"unknown issue type {kind!r}; expected discrete, integer or real")


def genius_domain_from_xml(path: Path, root: ET.Element) -> GeniusDomain:
    """Build the domain from an already parsed root element."""
    us = _utility_space(path, root)
    elements = list(us.iter("issue"))
    if not elements:
        raise fail(path, us, "the domain has no <issue> elements")
    issues = [_domain_issue(path, el) for el in elements]
    numbers = tuple(get_int(path, el, "index") for el in elements)
    if len(set(numbers)) != len(numbers):
        raise fail(path, us, f"issue index attributes must be distinct, got {list(numbers)}")
    with located(str(path)):
        space = OutcomeSpace(issues)
    return GeniusDomain(space, numbers, path)


def read_genius_domain(path: str | Path) -> GeniusDomain:
    """Read a GENIUS domain file."""
    p = Path(path)
    return genius_domain_from_xml(p, parse_xml(p))


# ---------------------------------------------------------------------------------------
# Profiles


def _discrete_term(
    path: Path, el: ET.Element, issue: Issue
) -> tuple[dict[Any, float], dict[Any, float]]:
    """Normalised evaluations and costs of a discrete issue's values."""
    raw: dict[Any, float] = {}
    costs: dict[Any, float] = {}
    for item in el.findall("item"):
        value = get_attr(path, item, "value")
        if item.get("evaluation") not in (None, "null"):
            raw[value] = get_float(path, item, "evaluation")
        costs[value] = get_float(path, item, "cost", default=0.0)
    missing = [v for v in issue.values() if v not in raw]
    if missing:
        raise fail(
            path,
            el,
            f"expected an <item value=... evaluation=...> for every value of the domain; "
            f"missing {missing[:5]!r}",
        )
    top = max(raw[v] for v in issue.values())
    if top < 1e-5:
        return {v: 0.0 for v in issue.values()}, costs
    return {v: raw[v] / top for v in issue.values()}, costs


def _linear_params(path: Path, el: ET.Element, integer_lower: int | None) -> tuple[float, float]:
    """``(slope, offset)`` on the raw value ``x`` of a numeric issue's evaluator."""
    ev = el.find("evaluator")
    if ev is None:
        return 0.0, 0.0  # GENIUS: an integer evaluator without parameters evaluates to 0
    ftype = (ev.get("ftype") or "linear").strip().lower()
    if ftype == "constant":
        return 0.0, get_float(path, ev, "parameter0", "offset")
    if ftype != "linear":
        raise fail(path, ev, f"unsupported evaluator ftype {ftype!r}; expected linear or constant")
    if ev.get("slope") is not None:
        slope = get_float(path, ev, "slope")
        offset = get_float(path, ev, "offset", default=0.0)
        # GENIUS integer evaluators measure x from the issue's lower bound.
        lower = integer_lower if integer_lower is not None else 0
        return slope, offset - slope * lower
    return get_float(path, ev, "parameter1"), get_float(path, ev, "parameter0", default=0.0)


def _numeric_term(path: Path, el: ET.Element, issue: IntegerIssue | RealIssue) -> Evaluator | Term:
    """A LinearEvaluator when no clamping happens on the issue's range, else exact terms."""
    if isinstance(issue, IntegerIssue):
        lower = get_int(path, el, "lowerbound") if el.get("lowerbound") else issue.lower
        slope, offset = _linear_params(path, el, lower)
    else:
        slope, offset = _linear_params(path, el, None)
    ends = (slope * issue.lower + offset, slope * issue.upper + offset)
    if all(0.0 <= e <= 1.0 for e in ends):
        return LinearEvaluator(slope, offset)
    if isinstance(issue, IntegerIssue):
        if issue.cardinality > _MAX_TABLE:
            raise fail(path, el, f"integer range too large ({issue.cardinality} values)")
        return {x: clamp01(slope * x + offset) for x in issue.values()}
    return ClampedLinearTerm(slope, offset)


def _price_term(path: Path, el: ET.Element) -> PriceTerm:
    lo, hi = _bounds(path, el, float)
    rf = el.find("rationality_factor")
    rationality = get_float(path, rf, "value") if rf is not None else 0.0
    return PriceTerm(lo, hi, rationality)


def _find_issue(
    path: Path, us: ET.Element, by_number: Mapping[int, ET.Element], number: int, issue: Issue
) -> ET.Element:
    el = by_number.get(number)
    if el is None:
        el = next((e for e in us.iter("issue") if e.get("name") == issue.name), None)
    if el is None:
        raise FormatError(
            f'{path}: expected an <issue index="{number}"> for domain issue {issue.name!r}, '
            f"found issue indices {sorted(by_number)}"
        )
    return el


def _linear_profile(
    path: Path, us: ET.Element, domain: GeniusDomain, rv: float, df: float | None
) -> UtilityFunction:
    weights_raw: dict[int, float] = {}
    for w in us.iter("weight"):
        weights_raw[get_int(path, w, "index")] = get_float(path, w, "value")
    by_number = {get_int(path, el, "index"): el for el in us.iter("issue")}
    space = domain.space
    weights: list[float] = []
    evaluators: list[Evaluator | Term] = []
    costs: list[dict[Any, float] | None] = []
    for number, issue in zip(domain.numbers, space.issues, strict=True):
        el = _find_issue(path, us, by_number, number, issue)
        number = get_int(path, el, "index")
        if number not in weights_raw:
            raise fail(path, el, f'expected a <weight index="{number}" value=...>, found none')
        weights.append(weights_raw[number])
        cost: dict[Any, float] | None = None
        if isinstance(issue, CategoricalIssue):
            table, cost = _discrete_term(path, el, issue)
            evaluators.append(table)
        elif (el.get("type") or "").lower() == "price":
            evaluators.append(_price_term(path, el))
        else:
            assert isinstance(issue, IntegerIssue | RealIssue)
            evaluators.append(_numeric_term(path, el, issue))
        costs.append(cost)
    total = sum(weights)
    if not total > 0:
        raise fail(path, us, f"issue weights must have a positive sum, got {weights}")
    weights = [w / total for w in weights]
    with located(str(path)):
        if any(isinstance(e, ClampedLinearTerm | PriceTerm) for e in evaluators):
            terms = [_as_term(e) for e in evaluators]
            has_price = any(isinstance(t, PriceTerm) for t in terms)
            return GeniusAdditiveUtility(
                space, weights, terms, costs if has_price else None, rv, df
            )
        plain = cast(list[Evaluator], evaluators)  # no legacy terms left
        return LinearAdditiveUtility(space, weights, plain, rv, df, normalize=False)


def _as_term(e: Evaluator | Term) -> Term:
    if isinstance(e, TableTerm | ClampedLinearTerm | PriceTerm):
        return e
    if isinstance(e, LinearEvaluator):
        return ClampedLinearTerm(e.slope, e.offset)
    if isinstance(e, Mapping):
        return TableTerm(dict(e))
    raise InvalidScenario(f"cannot use evaluator {e!r} in a GENIUS profile")


def _hyper_profile(
    path: Path, us: ET.Element, domain: GeniusDomain, rv: float, df: float | None
) -> HyperRectangleUtility:
    util = us.find(".//utility")
    if util is None:
        raise fail(path, us, "a nonlinear profile needs a <utility> element, found none")
    top = get_float(path, util, "maxutility", default=0.0) or None
    ufuns = util.findall("ufun") or [util]
    rects: list[HyperRectangle] = []
    for uf in ufuns:
        aggregation = (uf.get("aggregation") or "sum").lower()
        if aggregation != "sum":
            raise fail(path, uf, f"unsupported aggregation {aggregation!r}; expected sum")
        weight = get_float(path, uf, "weight", default=1.0)
        for hr in uf.findall("hyperRectangle"):
            bounds: list[tuple[int, int, int]] = []
            for c in hr:
                if c.tag != "INCLUDES":
                    raise fail(path, c, "unsupported constraint; expected <INCLUDES index min max>")
                number = get_int(path, c, "index")
                k = domain.position(number)
                if k is None:
                    raise fail(path, c, f"index {number} is not an issue of the domain")
                bounds.append((k, get_int(path, c, "min"), get_int(path, c, "max")))
            rects.append(HyperRectangle(weight * get_float(path, hr, "utility"), tuple(bounds)))
    if not rects:
        raise fail(path, util, "expected <hyperRectangle> elements, found none")
    with located(str(path)):
        return HyperRectangleUtility(domain.space, rects, top, rv, df)


def is_profile(root: ET.Element) -> bool:
    """True if a parsed GENIUS file is a profile (it has weights, evaluations or boxes)."""
    if root.tag != "utility_space":
        return False
    if root.get("type", "").lower() == "nonlinear" or root.find(".//hyperRectangle") is not None:
        return True
    return root.find(".//weight") is not None or any(
        "evaluation" in i.attrib for i in root.iter("item")
    )


def genius_profile_from_xml(path: Path, root: ET.Element, domain: GeniusDomain) -> UtilityFunction:
    """Build a profile from an already parsed root element."""
    us = _utility_space(path, root)
    res = next(us.iter("reservation"), None)
    rv = get_float(path, res, "value") if res is not None else 0.0
    disc = next(us.iter("discount_factor"), None)
    df = get_float(path, disc, "value") if disc is not None else None
    if us.get("type", "").lower() == "nonlinear" or us.find(".//hyperRectangle") is not None:
        return _hyper_profile(path, us, domain, rv, df)
    return _linear_profile(path, us, domain, rv, df)


def read_genius_profile(path: str | Path, domain: GeniusDomain) -> UtilityFunction:
    """Read a GENIUS profile (utility space) for ``domain``."""
    p = Path(path)
    return genius_profile_from_xml(p, parse_xml(p), domain)


def natural_key(name: str) -> list[Any]:
    """Sort key that puts ``util2`` before ``util10``."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def read_genius_folder(folder: str | Path, name: str | None = None) -> Scenario:
    """Read a folder holding one GENIUS domain and the profiles (sorted by file name)."""
    root_dir = Path(folder)
    files = sorted(
        (f for f in root_dir.glob("*.xml") if f.name.lower() not in IGNORED_FILES),
        key=lambda f: natural_key(f.stem),
    )
    domains: list[tuple[Path, ET.Element]] = []
    profiles: list[tuple[Path, ET.Element]] = []
    for f in files:
        root = parse_xml(f)
        if root.tag not in ("negotiation_template", "utility_space"):
            raise FormatError(
                f"{f}: root element {describe(root)} is neither a GENIUS domain "
                "(<negotiation_template> or <utility_space>) nor a profile (<utility_space>)"
            )
        (profiles if is_profile(root) else domains).append((f, root))
    if len(domains) != 1:
        found = ", ".join(p.name for p, _ in domains) or "none"
        raise FormatError(f"{root_dir}: expected exactly one GENIUS domain file, found {found}")
    domain = genius_domain_from_xml(*domains[0])
    if len(profiles) < 2:
        raise FormatError(
            f"{root_dir}: expected at least 2 GENIUS profile files, found {len(profiles)}"
        )
    utilities = tuple(genius_profile_from_xml(p, r, domain) for p, r in profiles)
    return Scenario(
        name or root_dir.name, domain.space, utilities, tuple(p.stem for p, _ in profiles)
    )
