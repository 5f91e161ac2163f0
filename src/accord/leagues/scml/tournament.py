"""SCML tournaments (spec section 8 and Appendix A.3): schedule and scores.

For each basic configuration: draw the copies per competitor A_i (1 in the standard
track, U{2..4} in the collusion track), the number of processes L ~ U{2..5} and the
factories per process, generate the world, pick A_i * M assignable factories and split
them into M sets. Then for every combination of M of the C competitors, rotate the
competitors over the sets M times and simulate each assignment K times: K M C(C, M)
worlds per basic configuration. In the collusion track every such world is followed by
A_i *isolated* worlds per competitor, each giving it just one factory of its set (the
rest of the set goes to non-competitors); its collusion score is its score in the
collusion world minus its mean score in those isolated worlds.

Example:
    >>> spec = TournamentSpec(competitors=["trader", "random", "donothing"],
    ...                       n_configs=1, n_repetitions=2, n_per_world=2, n_steps=10)
    >>> len(build_schedule(spec))  # K * M * C(3, 2)
    12
    >>> truncated_mean([1, 2, 3, 100], top=1, bottom=1)
    2.5
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from accord.core.errors import ConfigError
from accord.leagues.scml.isolation import Limits

__all__ = ["TournamentSpec", "WorldRun", "build_schedule", "summarize", "truncated_mean"]

Track = Literal["std", "collusion"]
#: which agents run in processes of their own: every one, the competitors only (the
#: organiser's non-competitors in-process), or none (development runs: trusted code)
Isolation = Literal["all", "competitors", "none"]
ISOLATION_MODES = ("all", "competitors", "none")


@dataclass(frozen=True)
class TournamentSpec:
    """What to run. ``trim_top``/``trim_bottom``: an int drops that many scores, a float
    in [0, 1) drops that fraction (rounded down), at each end of each type's sorted scores."""

    competitors: Sequence[str]
    track: Track = "std"
    n_configs: int = 2
    n_repetitions: int = 1
    n_per_world: int | None = None
    n_steps: int | tuple[int, int] = 50
    non_competitors: Sequence[str] = ("market",)
    copies_range: tuple[int, int] = (2, 4)
    levels_range: tuple[int, int] = (2, 5)
    trim_top: float | int = 0
    trim_bottom: float | int = 0
    seed: int = 0
    isolation: Isolation = "all"
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "os"

    def __post_init__(self) -> None:
        if self.sandbox not in ("os", "process"):
            raise ConfigError(f"sandbox must be 'os' or 'process', got {self.sandbox!r}")
        if self.isolation not in ISOLATION_MODES:
            raise ConfigError(f"isolation must be one of {ISOLATION_MODES}, got {self.isolation!r}")
        c = len(self.competitors)
        if c < 1:
            raise ConfigError("a tournament needs at least one competitor")
        if len(set(self.competitors)) != c:
            raise ConfigError(f"competitor names must be unique, got {list(self.competitors)}")
        if self.track not in ("std", "collusion"):
            raise ConfigError(f"track must be 'std' or 'collusion', got {self.track!r}")
        m = self.m
        if not 1 <= m <= c:
            raise ConfigError(
                f"n_per_world must be in [1, {c}] (the number of competitors), got {m}"
            )
        if self.n_configs < 1 or self.n_repetitions < 1:
            raise ConfigError(
                f"n_configs and n_repetitions must be >= 1, got {self.n_configs}, {self.n_repetitions}"
            )
        if not self.non_competitors:
            raise ConfigError("non_competitors must name at least one agent type")
        both = set(self.non_competitors) & set(self.competitors)
        if self.track == "collusion" and both:
            raise ConfigError(
                f"in the collusion track non-competitors must differ from competitors; both: {sorted(both)}"
            )

    @property
    def m(self) -> int:
        """M: competitor types per world (default min(C, 3))."""
        return self.n_per_world if self.n_per_world is not None else min(len(self.competitors), 3)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["competitors"] = list(self.competitors)
        d["non_competitors"] = list(self.non_competitors)
        return d


@dataclass(frozen=True)
class WorldRun:
    """One simulation to run: a configuration recipe and an assignment of agent types."""

    id: str
    config_index: int
    config_seed: int
    factories_per_level: tuple[int, ...]
    n_steps: int
    agents: tuple[str, ...]
    groups: dict[str, tuple[int, ...]] = field(hash=False)
    seed: int = 0
    kind: Literal["std", "collusion", "isolated"] = "std"
    combination: tuple[str, ...] = ()
    rotation: int = 0
    repetition: int = 0
    parent: str | None = None  # the collusion run an isolated run belongs to
    isolation: Isolation = "all"
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "os"  # how isolated agents are isolated (accord.sandbox's modes)

    def isolated(self, factory: int) -> bool:
        """True if the agent of ``factory`` runs in a process of its own."""
        if self.isolation == "all":
            return True
        if self.isolation == "none":
            return False
        return any(factory in fs for fs in self.groups.values())


def _draw_counts(rng: np.random.Generator, spec: TournamentSpec, need: int) -> list[int]:
    lo_l, hi_l = spec.levels_range
    levels = int(rng.integers(lo_l, hi_l + 1))
    x = max(3, math.ceil(2 * need / levels))
    counts = [int(v) for v in rng.integers(2, x + 1, size=levels)]
    while sum(counts) < need:  # top up random levels until A_i * M factories exist
        counts[int(rng.integers(levels))] += 1
    return counts


def build_schedule(spec: TournamentSpec) -> list[WorldRun]:
    """Every world of the tournament, in a deterministic order."""
    rng = np.random.default_rng(spec.seed)
    m = spec.m
    runs: list[WorldRun] = []
    combos = list(itertools.combinations(spec.competitors, m))
    for b in range(spec.n_configs):
        copies = (
            1
            if spec.track == "std"
            else int(rng.integers(spec.copies_range[0], spec.copies_range[1] + 1))
        )
        counts = _draw_counts(rng, spec, copies * m)
        n_f = sum(counts)
        if isinstance(spec.n_steps, int):
            n_steps = spec.n_steps
        else:
            n_steps = int(rng.integers(spec.n_steps[0], spec.n_steps[1] + 1))
        config_seed = int(rng.integers(2**62))
        chosen = rng.permutation(n_f)[: copies * m]
        sets = [
            tuple(sorted(int(f) for f in chosen[j * copies : (j + 1) * copies])) for j in range(m)
        ]
        fillers = [
            spec.non_competitors[int(rng.integers(len(spec.non_competitors)))] for _ in range(n_f)
        ]
        for ci, combo in enumerate(combos):
            for r in range(m):
                agents = list(fillers)
                groups: dict[str, tuple[int, ...]] = {}
                for j, fs in enumerate(sets):
                    who = combo[(j + r) % m]
                    groups[who] = fs
                    for f in fs:
                        agents[f] = who
                for k in range(spec.n_repetitions):
                    rid = f"b{b}-c{ci}-r{r}-k{k}"
                    seed = int(rng.integers(2**62))
                    main = WorldRun(
                        rid,
                        b,
                        config_seed,
                        tuple(counts),
                        n_steps,
                        tuple(agents),
                        groups,
                        seed,
                        "std" if spec.track == "std" else "collusion",
                        combo,
                        r,
                        k,
                        isolation=spec.isolation,
                        limits=spec.limits,
                        sandbox=spec.sandbox,
                    )
                    runs.append(main)
                    if spec.track == "collusion":
                        runs.extend(_isolated(main, fillers, seed))
    return runs


def _isolated(main: WorldRun, fillers: list[str], seed: int) -> list[WorldRun]:
    out = []
    for who, fs in main.groups.items():
        for f in fs:
            agents = list(main.agents)
            for g in fs:
                if g != f:
                    agents[g] = fillers[g]
            out.append(
                WorldRun(
                    f"{main.id}-i{who}-f{f}",
                    main.config_index,
                    main.config_seed,
                    main.factories_per_level,
                    main.n_steps,
                    tuple(agents),
                    {who: (f,)},
                    seed,
                    "isolated",
                    main.combination,
                    main.rotation,
                    main.repetition,
                    main.id,
                    main.isolation,
                    main.limits,
                    main.sandbox,
                )
            )
    return out


def truncated_mean(scores: Sequence[float], top: float | int = 0, bottom: float | int = 0) -> float:
    """Mean after dropping the ``top`` highest and ``bottom`` lowest scores.

    An int is a count, a float in [0, 1) a fraction of the scores (rounded down). If
    trimming would drop everything, the median is returned.
    """
    x = np.sort(np.asarray(scores, dtype=np.float64))
    n = len(x)
    if n == 0:
        return float("nan")

    def count(v: float | int) -> int:
        if isinstance(v, bool) or v < 0:
            raise ConfigError(f"trim must be a non-negative int or a fraction in [0, 1), got {v!r}")
        if isinstance(v, int | np.integer):
            return int(v)
        if v >= 1:
            raise ConfigError(f"a trim fraction must be < 1, got {v}")
        return math.floor(v * n)

    lo, hi = count(bottom), count(top)
    if lo + hi >= n:
        return float(np.median(x))
    return float(x[lo : n - hi].mean())


def summarize(
    results: Sequence[dict[str, Any]], spec: TournamentSpec
) -> dict[str, dict[str, float]]:
    """Scores per competitor from finished runs (``{"run": WorldRun, "scores": {...}}``).

    Returns ``{type: {"score", "mean", "n", ["collusion_score", "isolated_mean"]}}``;
    in the collusion track ``score`` is the truncated mean of the collusion differences.
    """
    per_type: dict[str, list[float]] = {}
    isolated: dict[tuple[str, str], list[float]] = {}
    main_scores: dict[tuple[str, str], float] = {}
    for res in results:
        run: WorldRun = res["run"]
        for t, s in res["scores"].items():
            if t not in spec.competitors:
                continue
            if run.kind == "isolated":
                isolated.setdefault((run.parent or "", t), []).append(s)
            else:
                per_type.setdefault(t, []).append(s)
                main_scores[(run.id, t)] = s
    out: dict[str, dict[str, float]] = {}
    for t in spec.competitors:
        s = per_type.get(t, [])
        row = {
            "score": truncated_mean(s, spec.trim_top, spec.trim_bottom),
            "mean": float(np.mean(s)) if s else float("nan"),
            "n": float(len(s)),
        }
        if spec.track == "collusion":
            diffs = [
                main_scores[(rid, tt)] - float(np.mean(v))
                for (rid, tt), v in isolated.items()
                if tt == t and (rid, tt) in main_scores
            ]
            iso = [x for (rid, tt), v in isolated.items() if tt == t for x in v]
            row["collusion_score"] = truncated_mean(diffs, spec.trim_top, spec.trim_bottom)
            row["isolated_mean"] = float(np.mean(iso)) if iso else float("nan")
            row["score"] = row["collusion_score"]
        out[t] = row
    return out
