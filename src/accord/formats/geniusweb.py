"""Read GeniusWeb JSON domains and ``LinearAdditiveUtilitySpace`` profiles.

A GeniusWeb scenario folder holds one domain (``{"name", "issuesValues"}``) and one
JSON profile per party. GeniusWeb does not rescale: the utility of a bid is
``sum_i weight_i * utility_i(value_i)`` as written (a value without a utility is worth
0), there is no discount factor, and the reservation value is the utility of the
profile's ``reservationBid`` (0 when there is none).

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> dom = {"name": "d", "issuesValues": {"x": {"values": ["a", "b"]}}}
    >>> _ = (folder / "d.json").write_text(json.dumps(dom))
    >>> for k, (a, b) in enumerate([(1.0, 0.4), (0.2, 1.0)]):
    ...     prof = {"LinearAdditiveUtilitySpace": {"domain": dom, "name": f"p{k}",
    ...         "issueWeights": {"x": 1.0},
    ...         "issueUtilities": {"x": {"discreteutils": {"valueUtilities": {"a": a, "b": b}}}},
    ...         "reservationBid": {"issuevalues": {"x": "b"}}}}
    ...     _ = (folder / f"d{k + 1}.json").write_text(json.dumps(prof))
    >>> s = read_geniusweb_folder(folder)
    >>> s.profile_names, [u.reservation for u in s.utilities]
    (('d1', 'd2'), [0.4, 1.0])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from accord.core.errors import FormatError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import Evaluator, LinearAdditiveUtility
from accord.formats._xml import located
from accord.formats.genius import natural_key

PROFILE_KEY = "LinearAdditiveUtilitySpace"


def read_json(path: Path) -> Any:
    """Parsed JSON, or a :class:`FormatError` naming the file and position."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(f"{path}: file not found") from None
    except json.JSONDecodeError as e:
        raise FormatError(
            f"{path}: not valid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"{path}: cannot read the file ({e})") from None


def _expect(path: Path, where: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise FormatError(f"{path}: {where}: expected {what}, got {json.dumps(value)[:80]}")
    return value


def _number(path: Path, where: str, raw: Any) -> Decimal:
    try:
        return Decimal(str(raw).strip())
    except InvalidOperation:
        raise FormatError(f"{path}: {where}: expected a number, got {raw!r}") from None


def _issue(path: Path, name: str, spec: Any) -> Issue:
    where = f"issuesValues.{name}"
    _expect(path, where, spec, dict, 'an object with "values" or "range"')
    with located(f"{path}: {where}"):
        if "values" in spec:
            values = _expect(path, f"{where}.values", spec["values"], list, "a list of values")
            return CategoricalIssue(name, [v if isinstance(v, str) else _num(v) for v in values])
        if "range" in spec:
            rng = spec["range"]
            if isinstance(rng, Mapping):
                parts = [rng.get("low"), rng.get("high"), rng.get("step", 1)]
            else:
                parts = list(_expect(path, f"{where}.range", rng, list, "[low, high, step]"))
            if len(parts) != 3 or any(p is None for p in parts):
                raise FormatError(f"{path}: {where}.range: expected low, high and step, got {rng}")
            lo, hi, step = (_number(path, f"{where}.range", p) for p in parts)
            if step <= 0:
                raise FormatError(f"{path}: {where}.range: step must be positive, got {step}")
            if lo == int(lo) and step == 1:
                return IntegerIssue(name, int(lo), int(hi))
            count = int((hi - lo) / step) + 1
            return CategoricalIssue(name, [_num(lo + k * step) for k in range(count)])
    raise FormatError(f'{path}: {where}: expected "values" or "range", got keys {sorted(spec)}')


def _num(v: Any) -> int | float:
    d = v if isinstance(v, Decimal) else Decimal(str(v))
    return int(d) if d == d.to_integral_value() else float(d)


def geniusweb_space(path: Path, data: Any) -> tuple[str, OutcomeSpace]:
    """``(name, space)`` from a parsed GeniusWeb domain object."""
    _expect(path, "domain", data, dict, "a JSON object")
    issues_values = _expect(
        path, "issuesValues", data.get("issuesValues"), dict, "an object {issue: values}"
    )
    if not issues_values:
        raise FormatError(f"{path}: issuesValues: expected at least one issue, got none")
    issues = [_issue(path, n, spec) for n, spec in issues_values.items()]
    return str(data.get("name", path.stem)), OutcomeSpace(issues)


def read_geniusweb_domain(path: str | Path) -> tuple[str, OutcomeSpace]:
    """Read a GeniusWeb domain file: its name and outcome space."""
    p = Path(path)
    return geniusweb_space(p, read_json(p))


def _evaluator(path: Path, issue: Issue, spec: Any) -> Evaluator:
    where = f"{PROFILE_KEY}.issueUtilities.{issue.name}"
    _expect(path, where, spec, dict, 'an object with "discreteutils" or "numberutils"')
    if "discreteutils" in spec:
        table = _expect(
            path,
            f"{where}.discreteutils.valueUtilities",
            spec["discreteutils"].get("valueUtilities"),
            dict,
            "an object {value: utility}",
        )
        by_text = {str(k): v for k, v in table.items()}
        out: dict[Any, float] = {}
        for v in issue.values():
            raw = by_text.get(str(v), 0.0)
            out[v] = float(_expect(path, f"{where}.{v}", raw, (int, float), "a number"))
        return out
    if "numberutils" in spec:
        nu = spec["numberutils"]
        keys = ("lowValue", "lowUtility", "highValue", "highUtility")
        lv, lu, hv, hu = (float(_number(path, f"{where}.numberutils.{k}", nu.get(k))) for k in keys)
        if hv == lv:
            return {v: (lu if float(v) == lv else 0.0) for v in issue.values()}
        slope = (hu - lu) / (hv - lv)

        def linear(v: Any) -> float:
            x = float(v)
            return lu + slope * (x - lv) if lv <= x <= hv else 0.0

        return {v: linear(v) for v in issue.values()}
    raise FormatError(
        f'{path}: {where}: expected "discreteutils" or "numberutils", got keys {sorted(spec)}'
    )


def geniusweb_profile(path: Path, data: Any, space: OutcomeSpace) -> LinearAdditiveUtility:
    """A utility from a parsed GeniusWeb profile object."""
    _expect(path, "profile", data, dict, "a JSON object")
    if PROFILE_KEY not in data:
        raise FormatError(f"{path}: expected a {PROFILE_KEY!r} profile, got keys {sorted(data)}")
    body = _expect(path, PROFILE_KEY, data[PROFILE_KEY], dict, "a JSON object")
    weights = _expect(path, f"{PROFILE_KEY}.issueWeights", body.get("issueWeights"), dict, "{}")
    utils = _expect(path, f"{PROFILE_KEY}.issueUtilities", body.get("issueUtilities"), dict, "{}")
    w: list[float] = []
    evs: list[Evaluator] = []
    for issue in space.issues:
        if issue.name not in weights or issue.name not in utils:
            raise FormatError(
                f"{path}: {PROFILE_KEY}: expected a weight and utilities for issue "
                f"{issue.name!r}; weights name {sorted(weights)}, utilities {sorted(utils)}"
            )
        where = f"{PROFILE_KEY}.issueWeights.{issue.name}"
        w.append(float(_expect(path, where, weights[issue.name], (int, float), "a number")))
        evs.append(_evaluator(path, issue, utils[issue.name]))
    with located(str(path)):
        u = LinearAdditiveUtility(space, w, evs, normalize=False)
    bid = body.get("reservationBid")
    if not bid:
        return u
    values = _expect(
        path, f"{PROFILE_KEY}.reservationBid.issuevalues", bid.get("issuevalues"), dict, "{}"
    )
    outcome = []
    for issue in space.issues:
        raw = values.get(issue.name)
        match = next((v for v in issue.values() if str(v) == str(raw)), None)
        if match is None:
            raise FormatError(
                f"{path}: {PROFILE_KEY}.reservationBid: issue {issue.name!r} got {raw!r}; "
                f"allowed: {issue.allowed()}"
            )
        outcome.append(match)
    return LinearAdditiveUtility(space, w, evs, reservation=u(tuple(outcome)), normalize=False)


def read_geniusweb_folder(folder: str | Path, name: str | None = None) -> Scenario:
    """Read a folder with one GeniusWeb domain and its profiles (sorted by file name)."""
    root = Path(folder)
    domains: list[tuple[Path, Any]] = []
    profiles: list[tuple[Path, Any]] = []
    for f in sorted(root.glob("*.json"), key=lambda f: natural_key(f.stem)):
        data = read_json(f)
        if isinstance(data, dict) and PROFILE_KEY in data:
            profiles.append((f, data))
        elif isinstance(data, dict) and "issuesValues" in data:
            domains.append((f, data))
        else:
            shown = sorted(data)[:5] if isinstance(data, dict) else type(data).__name__
            raise FormatError(
                f"{f}: expected a GeniusWeb domain (issuesValues) or a {PROFILE_KEY} "
                f"profile, got {shown}"
            )
    if len(domains) != 1:
        found = ", ".join(p.name for p, _ in domains) or "none"
        raise FormatError(f"{root}: expected exactly one GeniusWeb domain file, found {found}")
    _, space = geniusweb_space(*domains[0])
    if len(profiles) < 2:
        raise FormatError(f"{root}: expected at least 2 GeniusWeb profiles, found {len(profiles)}")
    utilities = tuple(geniusweb_profile(p, d, space) for p, d in profiles)
    return Scenario(name or root.name, space, utilities, tuple(p.stem for p, _ in profiles))
