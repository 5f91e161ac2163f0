"""Agreements below an agent's own reservation value, counted per agent.

An agent that agrees to less than it gets without an agreement (its reservation value,
discounted to the same moment as its utility) acted against its own interest: the
organiser should know. Many ported agents do so now and then.

    >>> import pandas as pd
    >>> parties = pd.DataFrame({"session_id": ["a", "a", "b", "b"], "agent": ["X", "Y", "X", "Y"],
    ...     "profile": [0, 1, 0, 1], "scenario": ["s"] * 4, "utility": [0.2, 0.9, 0.5, 0.5],
    ...     "reservation": [0.3, 0.1, 0.3, 0.1], "agreed": [True, True, True, True]})
    >>> sessions = pd.DataFrame({"id": ["a", "b"], "time": [0.5, 0.5]})
    >>> below_reservation(parties, sessions, {}).to_dict("records")
    [{'agent': 'X', 'agreements': 2, 'below': 1}, {'agent': 'Y', 'agreements': 2, 'below': 0}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

#: How far below the reservation value a utility must be to count (rounding aside).
TOLERANCE = 1e-9


def below_reservation(
    parties: pd.DataFrame, sessions: pd.DataFrame, scenarios: Mapping[str, Any]
) -> pd.DataFrame:
    """Per agent: ``agreements`` (sessions it agreed in) and ``below`` (of those, the ones
    where its final utility was under its reservation value discounted to the end time).

    ``parties`` and ``sessions`` are :class:`~accord.tournament.results.Results` frames;
    ``scenarios`` maps a scenario name to its :class:`~accord.core.scenario.Scenario` (for
    the discount factors; a missing one counts as undiscounted).
    """
    agreed = parties[parties["agreed"].astype(bool)]
    if agreed.empty:
        return pd.DataFrame({"agent": [], "agreements": [], "below": []})
    times = dict(zip(sessions["id"], sessions["time"], strict=True))

    def threshold(row: Any) -> float:
        scenario = scenarios.get(row.scenario)
        delta = None
        if scenario is not None and int(row.profile) < len(scenario.utilities):
            delta = scenario.utilities[int(row.profile)].discount
        t = float(times.get(row.session_id, 1.0))
        return float(row.reservation) * (1.0 if delta is None else float(delta) ** t)

    limits = [threshold(r) for r in agreed.itertuples()]
    below = agreed["utility"].to_numpy() < pd.Series(limits).to_numpy() - TOLERANCE
    frame = pd.DataFrame({"agent": agreed["agent"].to_numpy(), "below": below})
    out = (
        frame.groupby("agent", sort=True)
        .agg(agreements=("below", "size"), below=("below", "sum"))
        .reset_index()
    )
    out["below"] = out["below"].astype(int)
    out["agreements"] = out["agreements"].astype(int)
    return out


def summary_line(table: pd.DataFrame) -> str:
    """One line for the terminal: who agreed below its reservation value, how often."""
    hit = table[table["below"] > 0].sort_values(["below", "agent"], ascending=[False, True])
    if hit.empty:
        return "agreements below the agent's own reservation value: none"
    parts = [f"{r.agent} {r.below} of {r.agreements}" for r in hit.itertuples()]
    total = int(hit["below"].sum())
    return (
        f"agreements below the agent's own reservation value (discounted alike): {total} "
        f"party-agreements; " + ", ".join(parts)
    )
