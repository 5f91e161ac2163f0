"""Read a GENIUS BIU/QO scenario folder (e.g. ``genius_QODomain_JobCandidate``) as a domain.

The folder holds one domain file and per-type profiles named ``Side_A<Type>.xml`` and
``Side_B<Type>.xml`` (``Side_A_utility.xml`` is the template's default profile and is used
only when a side has no typed profile). Profiles are read **raw**, as the BIU protocol
evaluates them: evaluations as written (may be negative), weights not renormalised,
``<reservation>`` is the status quo, ``<optout>`` the opt-out value, ``<timeeffect>`` the
change per turn and ``<weightmultiplyer>`` the multiplier (100 when absent). A profile
without ``<reservation>``, ``<optout>`` or ``<timeeffect>`` is refused with one error
naming every missing value (the GENIUS QO template folders have none of the three); with
``missing="zero"`` they are read as 0 and each is reported as a :class:`UserWarning`. A
value named "No agreement" is the issue's "No agreement" value.
"""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Literal

from accord.core.errors import FormatError
from accord.formats._xml import fail, get_attr, get_float, parse_xml
from accord.formats.genius import is_profile, natural_key, read_genius_domain
from accord.leagues.genius.domain import Domain, Issue, Profile

__all__ = [
    "read_biu_folder",
]

_SIDE = re.compile(r"^side_?([ab])_?(.*)$", re.IGNORECASE)
_NO_AGREEMENT = "no agreement"
_REQUIRED = ("reservation", "optout", "timeeffect")
Missing = Literal["refuse", "zero"]


def _constant(path: Path, root: ET.Element, tag: str, default: float) -> float:
    el = root.find(tag)
    return default if el is None else get_float(path, el, "value")


def _type_name(rest: str) -> str:
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", rest) or [rest]
    return "-".join(w.lower() for w in words)


def _missing(path: Path, root: ET.Element) -> list[str]:
    return [tag for tag in _REQUIRED if root.find(tag) is None]


def _profile(path: Path, root: ET.Element, issues: tuple[Issue, ...], name: str) -> Profile:
    by_name = {el.get("name"): el for el in root.iter("issue")}
    weights_by_index = {
        get_attr(path, w, "index"): get_float(path, w, "value") for w in root.iter("weight")
    }
    weights: list[float] = []
    evaluations: list[tuple[float, ...]] = []
    for issue in issues:
        el = by_name.get(issue.name)
        if el is None:
            raise fail(path, root, f"no <issue name={issue.name!r}> in this profile")
        evals = {
            get_attr(path, item, "value"): get_float(path, item, "evaluation")
            for item in el.findall("item")
        }
        missing = [v for v in issue.values if v not in evals]
        if missing:
            raise fail(path, el, f"no evaluation for value {missing[0]!r}")
        evaluations.append(tuple(evals[v] for v in issue.values))
        key = get_attr(path, el, "index")
        if key not in weights_by_index:
            raise fail(path, el, f"no <weight index={key!r}> for this issue")
        weights.append(weights_by_index[key])
    mult = _constant(path, root, "weightmultiplyer", 100.0)
    return Profile(
        name,
        issues,
        tuple(weights),
        tuple(evaluations),
        _constant(path, root, "reservation", 0.0),
        _constant(path, root, "optout", 0.0),
        _constant(path, root, "timeeffect", 0.0),
        mult,
    )


def read_biu_folder(folder: Path, missing: Missing = "refuse") -> Domain:
    """Read a GENIUS BIU/QO folder as a :class:`Domain` with sides ``A`` and ``B``.

    ``missing``: ``"refuse"`` (default) raises :class:`FormatError` when a profile lacks
    the status quo, the opt-out or the time effect; ``"zero"`` reads them as 0 and warns.
    """
    if missing not in ("refuse", "zero"):
        raise FormatError(f"missing must be 'refuse' or 'zero', got {missing!r}")
    files = sorted(folder.glob("*.xml"), key=lambda f: natural_key(f.stem))
    domain_file = [f for f in files if not is_profile(parse_xml(f))]
    if len(domain_file) != 1:
        found = ", ".join(f.name for f in domain_file) or "none"
        raise FormatError(f"{folder}: expected exactly one GENIUS domain file, found {found}")
    space = read_genius_domain(domain_file[0]).space
    issues = tuple(
        Issue(
            i.name,
            tuple(str(v) for v in i.values()),
            next((str(v) for v in i.values() if str(v).lower() == _NO_AGREEMENT), None),
        )
        for i in space.issues
    )
    typed: dict[str, list[tuple[str, Path]]] = {"a": [], "b": []}
    default: dict[str, Path] = {}
    for f in files:
        m = _SIDE.match(f.stem)
        if f in domain_file or m is None:
            continue
        side, rest = m.group(1).lower(), m.group(2)
        if rest.lower() in ("utility", ""):
            default[side] = f
        else:
            typed[side].append((_type_name(rest), f))
    sides: list[tuple[Profile, ...]] = []
    for side in ("a", "b"):
        entries = typed[side] or ([("default", default[side])] if side in default else [])
        if not entries:
            raise FormatError(f"{folder}: no profile file Side_{side.upper()}*.xml found")
        roots = [(n, p, parse_xml(p)) for n, p in entries]
        gaps = [(p.name, _missing(p, r)) for _, p, r in roots if _missing(p, r)]
        if gaps:
            listed = "; ".join(f"{f}: no <{'>, <'.join(tags)}>" for f, tags in gaps)
            if missing == "refuse":
                raise FormatError(
                    f"{folder}: expected each profile to give <reservation value=...> (status "
                    f"quo), <optout value=...> and <timeeffect value=...>; missing in {listed}. "
                    "Add them, or load with missing='zero' (`accord genius play --missing zero`) to "
                    "read them as 0."
                )
            warnings.warn(f"{folder}: read as 0: {listed}", UserWarning, stacklevel=2)
        sides.append(tuple(_profile(p, r, issues, n) for n, p, r in roots))
    return Domain(folder.name, issues, ("A", "B"), (sides[0], sides[1]))
