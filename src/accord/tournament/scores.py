"""Leaderboards with bootstrap confidence intervals and neighbour tests.

Scores, per party row of ``Results.parties`` (one row per agent per session; an agent
meeting itself has one row per seat):

* ``utility``: the agent's final (discounted) utility — the individual-utility category;
* ``welfare``: the sum of all parties' utilities in that session (PRIANAC social welfare);
* ``nash``: the product of all parties' utilities in that session (ANAC 2017 Nash-product
  category); ``nash_gain`` is the product of gains over reservation values.

**The unit of analysis.** Repetitions of one session setup (the same scenario, agents in
the same order, the same profile rotation) are not independent samples: with
deterministic agents they are bit-identical copies. So an agent's rows are grouped into
*units*, one per setup it played (scenario x opponents x role), and each unit counts
once, with the mean of its repetitions (identical copies are one observation). The
score is the mean (or truncated mean: ``trim`` cut from each end) of the agent's unit
values; it equals the mean of its rows when every setup has as many repetitions. The
95% interval is a percentile bootstrap that resamples units (a cluster bootstrap),
seeded per agent; ``n_eff`` is the number of units, ``n`` the number of rows.
``p_next`` is a two-sided Mann-Whitney U test (or a permutation test of the difference
of means) between the unit values of an agent and those of the agent ranked just below
it; ``differs_next`` says whether ``p_next < alpha``. Without the columns that identify
a setup (``scenario``, ``agents``, ``rotation``), every row is its own unit.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"agent": ["A", "A", "B", "B"], "utility": [0.9, 0.7, 0.2, 0.4],
    ...                    "scenario": ["s"] * 4})
    >>> board = leaderboard(df, "utility", n_boot=200)
    >>> board[["rank", "agent", "score"]].round(3).values.tolist()
    [[1, 'A', 0.8], [2, 'B', 0.3]]
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from accord.core.errors import ConfigError

METRICS = ("utility", "welfare", "nash", "nash_gain")
TESTS = ("mannwhitney", "permutation")
FloatArray = npt.NDArray[np.float64]


def statistic(values: npt.ArrayLike, trim: float = 0.0) -> float:
    """Mean, or the mean after cutting ``trim`` of the values from each end.

    >>> statistic([1, 2, 3, 4, 100]), statistic([1, 2, 3, 4, 100], trim=0.2)
    (22.0, 3.0)
    """
    x = np.asarray(values, dtype=np.float64)
    if not 0.0 <= trim < 0.5:
        raise ConfigError(f"trim must be in [0, 0.5), got {trim}")
    if trim == 0.0:
        return float(x.mean())
    return float(stats.trim_mean(x, trim))


def bootstrap_ci(
    values: npt.ArrayLike,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
    trim: float = 0.0,
    block: int = 250,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the (truncated) mean, seeded.

    >>> bootstrap_ci([0.5, 0.5, 0.5])
    (0.5, 0.5)
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return (float("nan"), float("nan"))
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be in (0, 1), got {confidence}")
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot, dtype=np.float64)
    for start in range(0, n_boot, block):
        k = min(block, n_boot - start)
        sample = x[rng.integers(0, x.size, size=(k, x.size))]
        if trim:
            out[start : start + k] = stats.trim_mean(sample, trim, axis=1)
        else:
            out[start : start + k] = sample.mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(out, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def compare(a: npt.ArrayLike, b: npt.ArrayLike, test: str = "mannwhitney", seed: int = 0) -> float:
    """Two-sided p-value for "the samples ``a`` and ``b`` differ".

    >>> round(compare([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 4)
    0.0079
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.size == 0 or y.size == 0:
        return float("nan")
    if np.ptp(np.concatenate([x, y])) == 0.0:
        return 1.0
    if test == "mannwhitney":
        return float(stats.mannwhitneyu(x, y, alternative="two-sided").pvalue)
    if test == "permutation":
        res = stats.permutation_test(
            (x, y),
            lambda u, v, axis: np.mean(u, axis=axis) - np.mean(v, axis=axis),
            vectorized=True,
            n_resamples=2000,
            alternative="two-sided",
            random_state=seed,
        )
        return float(res.pvalue)
    raise ConfigError(f"test must be one of {TESTS}, got {test!r}")


def _agent_seed(seed: int, agent: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(agent.encode())) % (2**63)


def leaderboard(
    parties: pd.DataFrame,
    metric: str = "utility",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
    trim: float = 0.0,
    test: str = "mannwhitney",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Agents ranked by ``metric`` with intervals and neighbour tests, by unit.

    Columns: ``rank, agent, score, ci_low, ci_high, n_eff, n, p_next, differs_next``.
    """
    _check_metric(parties, metric)
    rows = []
    samples: dict[str, FloatArray] = {}
    for agent, grp in parties.groupby("agent", sort=True):
        x = unit_values(grp, metric)
        name = str(agent)
        samples[name] = x
        lo, hi = bootstrap_ci(x, confidence, n_boot, _agent_seed(seed, name), trim)
        rows.append((name, statistic(x, trim), lo, hi, x.size, len(grp)))
    board = pd.DataFrame(rows, columns=["agent", "score", "ci_low", "ci_high", "n_eff", "n"])
    board = board.sort_values(["score", "agent"], ascending=[False, True], kind="stable")
    board = board.reset_index(drop=True)
    board.insert(0, "rank", np.arange(1, len(board) + 1))
    names = board["agent"].tolist()
    p_next = [
        compare(samples[a], samples[b], test, seed) for a, b in zip(names, names[1:], strict=False)
    ]
    board["p_next"] = p_next + [float("nan")]
    board["differs_next"] = [bool(p < alpha) for p in p_next] + [False]
    return board


UNIT = ("scenario", "agents", "rotation")


def unit_values(rows: pd.DataFrame, metric: str) -> FloatArray:
    """One value per independent unit of ``rows`` (one agent's party rows): the mean of
    ``metric`` over the repetitions of each session setup (``scenario``, ``agents``,
    ``rotation``), in setup order. Without those columns, the rows themselves.

    >>> df = pd.DataFrame({"scenario": ["s"] * 4, "agents": ['["A","B"]'] * 4,
    ...                    "rotation": [0, 0, 1, 1], "utility": [0.5, 0.5, 0.2, 0.4]})
    >>> unit_values(df, "utility").tolist()
    [0.5, 0.30000000000000004]
    """
    if not all(c in rows.columns for c in UNIT):
        return rows[metric].to_numpy(dtype=np.float64)
    means = rows.groupby(list(UNIT), sort=True)[metric].mean()
    return means.to_numpy(dtype=np.float64)


def leaderboards(parties: pd.DataFrame, **kwargs: object) -> dict[str, pd.DataFrame]:
    """One leaderboard per score in ``utility``, ``welfare`` and ``nash``."""
    return {m: leaderboard(parties, m, **kwargs) for m in ("utility", "welfare", "nash")}  # type: ignore[arg-type]


def by_scenario(parties: pd.DataFrame, metric: str = "utility", trim: float = 0.0) -> pd.DataFrame:
    """Agent x scenario table of the (truncated) mean of ``metric``."""
    _check_metric(parties, metric)
    fn: Callable[[pd.Series], float] = lambda s: statistic(s.to_numpy(), trim)  # noqa: E731
    return parties.pivot_table(index="agent", columns="scenario", values=metric, aggfunc=fn)


def agent_vs_agent(parties: pd.DataFrame, metric: str = "utility") -> pd.DataFrame:
    """Mean ``metric`` of the row agent over the sessions in which it met the column agent.

    >>> df = pd.DataFrame({"session_id": ["s1", "s1", "s2", "s2"],
    ...                    "agent": ["A", "B", "A", "A"], "utility": [0.9, 0.1, 0.5, 0.6]})
    >>> agent_vs_agent(df).round(2).values.tolist()
    [[0.55, 0.9], [0.1, nan]]
    """
    _check_metric(parties, metric)
    left = parties[["session_id", "agent", metric]].reset_index()
    right = parties[["session_id", "agent"]].reset_index()
    pairs = left.merge(right, on="session_id", suffixes=("", "_opp"))
    pairs = pairs[pairs["index"] != pairs["index_opp"]]
    table = pairs.pivot_table(index="agent", columns="agent_opp", values=metric, aggfunc="mean")
    table.index.name = "agent"
    table.columns.name = "opponent"
    return table


def _check_metric(parties: pd.DataFrame, metric: str) -> None:
    if metric not in parties.columns:
        raise ConfigError(
            f"unknown score {metric!r}; expected one of {[m for m in METRICS if m in parties]}"
        )
