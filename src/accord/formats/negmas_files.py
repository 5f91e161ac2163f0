"""NegMAS scenario folders, as ``negmas.inout.Scenario.dumpas`` writes them (read only).

A folder holds one outcome-space file (``type: ...CartesianOutcomeSpace`` with
``issues``) and one file per utility function, all YAML (``.yml``/``.yaml``, the default
of ``dumpas``) or JSON (``dumpas(type="json")``; ``type="xml"`` writes a GENIUS folder,
read by the GENIUS reader). NegMAS itself is not needed: the files are read as data.

What maps exactly (a NegMAS utility is ``sum_i w_i * f_i(x_i)``, read without GENIUS's
normalisation, so every outcome gets the same number as in NegMAS):

=====================================  ============================================
NegMAS                                 Accord
=====================================  ============================================
``CategoricalIssue``                   :class:`~accord.core.outcomes.CategoricalIssue`
``ContiguousIssue`` ``[lo, hi]``       :class:`~accord.core.outcomes.IntegerIssue`
``ContinuousIssue`` ``[lo, hi]``       :class:`~accord.core.outcomes.RealIssue`
``LinearAdditiveUtilityFunction``      ``LinearAdditiveUtility(normalize=False)``
``TableFun`` / ``AffineFun`` /         a value table / :class:`LinearEvaluator`
``LinearFun`` / ``IdentityFun`` /
``ConstFun``
``ExpDiscountedUFun``,                 ``discount``: ``U * delta**t`` on normalised time
``factor: relative_time``
``reserved_value: -.inf`` (none)       ``0.0`` (Accord's reservation is a number)
=====================================  ============================================

Refused, with the reason: ``LambdaFun`` (pickled Python code; never unpickled),
``ExpDiscountedUFun`` with ``factor: step`` (a discount per round, which Accord's
discount on normalised time cannot express: NegMAS's own GENIUS reader writes it; load
the GENIUS folder itself instead), and any other utility type.

    >>> import tempfile, pathlib, yaml
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "dom.yml").write_text(yaml.safe_dump({"type": "CartesianOutcomeSpace",
    ...     "name": "dom", "issues": [{"type": "ContiguousIssue", "name": "n", "values": [0, 4]}]}))
    >>> for who, s in (("a", 0.25), ("b", -0.25)):
    ...     _ = (d / f"{who}.yml").write_text(yaml.safe_dump({"type":
    ...         "LinearAdditiveUtilityFunction", "name": who, "reserved_value": 0.1, "weights":
    ...         [1.0], "values": [{"type": "AffineFun", "slope": s, "bias": 0.0 if s > 0 else 1}]}))
    >>> sc = read_negmas_folder(d)
    >>> sc.profile_names, [u((4,)) for u in sc.utilities]
    (('a', 'b'), [1.0, 0.0])
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from accord.core.errors import FormatError
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace, RealIssue
from accord.core.scenario import Scenario
from accord.core.utilities import Evaluator, LinearAdditiveUtility, LinearEvaluator

SUFFIXES = (".yml", ".yaml", ".json")
_SPACE_TYPES = ("CartesianOutcomeSpace", "DiscreteCartesianOutcomeSpace")
_CATEGORICAL = (
    "CategoricalIssue",
    "DiscreteCategoricalIssue",
    "OrdinalIssue",
    "DiscreteOrdinalIssue",
)


def _read(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        return json.loads(text)
    import yaml

    try:
        return yaml.safe_load(text)  # safe: NegMAS's !!binary pickles stay bytes
    except yaml.YAMLError as exc:
        raise FormatError(f"{path}: not valid YAML: {exc}") from None


def _type(doc: Any) -> str:
    return str(doc.get("type", "")).rsplit(".", 1)[-1] if isinstance(doc, dict) else ""


def is_negmas_folder(path: Path) -> bool:
    """Whether ``path`` is a folder with a NegMAS outcome-space file and utility files."""
    if not path.is_dir():
        return False
    for f in path.iterdir():
        if f.suffix.lower() in (".yml", ".yaml") or (
            f.suffix.lower() == ".json" and f.stat().st_size < 50_000_000
        ):
            try:
                if _type(_read(f)) in _SPACE_TYPES:
                    return True
            except (OSError, ValueError, FormatError):
                continue
    return False


def read_negmas_folder(path: str | Path) -> Scenario:
    """The scenario of a NegMAS ``Scenario.dumpas`` folder (profiles in file-name order)."""
    folder = Path(path)
    space: OutcomeSpace | None = None
    name = folder.name
    profiles: list[tuple[str, dict[str, Any], Path]] = []
    for f in sorted(folder.iterdir()):
        if f.suffix.lower() not in SUFFIXES or not f.is_file():
            continue
        try:
            doc = _read(f)
        except (OSError, ValueError) as exc:
            raise FormatError(f"{f}: cannot read it: {exc}") from None
        kind = _type(doc)
        if kind in _SPACE_TYPES:
            if space is not None:
                raise FormatError(f"{folder}: more than one outcome-space file ({f.name})")
            space = _space(doc, f)
            name = str(doc.get("name") or name)
        elif kind:
            profiles.append((str(doc.get("name") or f.stem), doc, f))
    if space is None:
        raise FormatError(
            f"{folder}: no NegMAS outcome-space file (a .yml/.json with type "
            "CartesianOutcomeSpace and its issues)"
        )
    if len(profiles) < 2:
        raise FormatError(
            f"{folder}: a scenario needs at least 2 utility files; found {len(profiles)}"
        )
    utilities = tuple(_utility(space, doc, f) for _, doc, f in profiles)
    return Scenario(name, space, utilities, tuple(n for n, _, _ in profiles))


def _space(doc: dict[str, Any], where: Path) -> OutcomeSpace:
    issues: list[Issue] = []
    for k, item in enumerate(doc.get("issues") or []):
        kind = _type(item)
        iname = str(item.get("name", f"issue{k}"))
        values = item.get("values")
        if kind in _CATEGORICAL and isinstance(values, list):
            issues.append(CategoricalIssue(iname, list(values or [])))
        elif kind == "ContiguousIssue" and isinstance(values, list) and len(values) == 2:
            issues.append(IntegerIssue(iname, int(values[0]), int(values[1])))
        elif kind == "ContinuousIssue" and isinstance(values, list) and len(values) == 2:
            issues.append(RealIssue(iname, float(values[0]), float(values[1])))
        else:
            raise FormatError(
                f"{where}: issue {iname!r} of type {kind or '?'} with values {values!r}: "
                "expected CategoricalIssue, ContiguousIssue [lo, hi] or ContinuousIssue [lo, hi]"
            )
    if not issues:
        raise FormatError(f"{where}: the outcome space has no issues")
    return OutcomeSpace(issues)


def _utility(space: OutcomeSpace, doc: dict[str, Any], where: Path) -> LinearAdditiveUtility:
    kind = _type(doc)
    discount: float | None = None
    outer_rv = doc.get("reserved_value")
    if kind == "ExpDiscountedUFun":
        factor = doc.get("factor", "step")
        if factor != "relative_time":
            raise FormatError(
                f"{where}: ExpDiscountedUFun with factor {factor!r} discounts per "
                f"{'round' if factor == 'step' else factor}; Accord discounts on normalised "
                "time only (NegMAS's factor 'relative_time'). NegMAS's own GENIUS reader "
                "writes factor 'step': load the GENIUS folder itself instead"
            )
        discount = float(doc["discount"])
        doc = doc.get("ufun") or {}
        kind = _type(doc)
    if kind != "LinearAdditiveUtilityFunction":
        raise FormatError(
            f"{where}: utility type {kind or '?'} is not read; expected "
            "LinearAdditiveUtilityFunction (optionally inside ExpDiscountedUFun)"
        )
    funs = doc.get("values") or []
    weights = doc.get("weights") or [1.0] * len(funs)
    if len(funs) != len(space.issues) or len(weights) != len(space.issues):
        raise FormatError(
            f"{where}: {len(funs)} value functions and {len(weights)} weights for "
            f"{len(space.issues)} issues"
        )
    evaluators = [
        _value_fun(f, issue.name, where) for f, issue in zip(funs, space.issues, strict=True)
    ]
    rv = _reservation(doc.get("reserved_value"), outer_rv)
    try:
        return LinearAdditiveUtility(
            space,
            [float(w) for w in weights],
            evaluators,
            reservation=rv,
            discount=discount,
            normalize=False,
        )
    except (ValueError, TypeError) as exc:
        raise FormatError(f"{where}: {exc}") from None


def _reservation(inner: Any, outer: Any) -> float:
    for value in (outer, inner):
        if value is None:
            continue
        v = float(value)
        if math.isfinite(v):
            return v
    return 0.0


def _value_fun(f: Any, issue: str, where: Path) -> Evaluator:
    kind = _type(f)
    if kind == "TableFun":
        return {k: float(v) for k, v in (f.get("mapping") or {}).items()}
    if kind in ("AffineFun", "LinearFun"):
        return LinearEvaluator(float(f.get("slope", 1.0)), float(f.get("bias", 0.0)))
    if kind == "IdentityFun":
        return LinearEvaluator(1.0, 0.0)
    if kind == "ConstFun":
        return LinearEvaluator(0.0, float(f.get("bias", 0.0)))
    if kind == "LambdaFun":
        raise FormatError(
            f"{where}: issue {issue!r} has a LambdaFun, pickled Python code, which Accord "
            "never unpickles; save a TableFun or AffineFun instead"
        )
    raise FormatError(
        f"{where}: issue {issue!r}: value function {kind or '?'} is not read; expected "
        "TableFun, AffineFun, LinearFun, IdentityFun or ConstFun"
    )
