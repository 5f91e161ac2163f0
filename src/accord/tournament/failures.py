"""What failed in a tournament: counts and the most common reasons, with a traceback each.

>>> import pandas as pd
>>> s = pd.DataFrame({"failure_agent": ["A", "A", None], "failure_kind": ["timeout"] * 2 + [None],
...                   "failure_message": ["slow", "slow", None],
...                   "failure_traceback": ["Traceback ...", None, None]})
>>> summary = failure_summary(s)
>>> summary.failed, summary.total, summary.reasons[0].count, summary.reasons[0].agent
(2, 3, 2, 'A')
>>> summary.text().splitlines()[0]
'2 of 3 sessions failed; most common reasons:'
>>> summary.text().splitlines()[-1]
'failures by agent: A 2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class Reason:
    """One kind of failure: how many sessions, whose, what kind, the message and an
    example traceback (empty if the failure raised nothing, e.g. an invalid offer)."""

    count: int
    agent: str
    kind: str
    message: str
    traceback: str


@dataclass(frozen=True)
class FailureSummary:
    """How many sessions failed of how many, and the reasons, most common first."""

    failed: int
    total: int
    reasons: list[Reason]
    by_agent: dict[str, int] = field(default_factory=dict)

    def text(self, top: int = 5) -> str:
        """A few lines for the terminal."""
        if not self.failed:
            return f"no session failed (of {self.total})"
        lines = [f"{self.failed} of {self.total} sessions failed; most common reasons:"]
        for r in self.reasons[:top]:
            lines.append(f"  {r.count:>5}  {r.agent} ({r.kind}): {_first_line(r.message, 200)}")
        if len(self.reasons) > top:
            lines.append(f"  ... and {len(self.reasons) - top} other reasons (see the report)")
        if self.by_agent:
            counts = ", ".join(f"{a} {n}" for a, n in self.by_agent.items())
            lines.append(f"failures by agent: {counts}")
        return "\n".join(lines)


def failure_summary(sessions: pd.DataFrame) -> FailureSummary:
    """Group the failed sessions of a ``Results.sessions`` frame by agent, kind and
    message (numbers in messages, such as timings, do not split a group)."""
    f = sessions[sessions["failure_kind"].notna()]
    reasons: list[Reason] = []
    if not f.empty:
        key = f["failure_message"].fillna("").map(_shape)
        agent = f["failure_agent"].fillna("(no agent)")
        groups = f.assign(_agent=agent, _key=key).groupby(
            ["_agent", "failure_kind", "_key"], sort=False
        )
        for (who, kind, _), g in groups:
            tb = g["failure_traceback"].dropna() if "failure_traceback" in g else g["_key"][:0]
            reasons.append(
                Reason(
                    len(g),
                    str(who),
                    str(kind),
                    str(g["failure_message"].iloc[0]),
                    str(tb.iloc[0]) if len(tb) else "",
                )
            )
        reasons.sort(key=lambda r: (-r.count, r.agent, r.kind, r.message))
    counts = f["failure_agent"].fillna("(no agent)").value_counts()
    by_agent = {str(a): int(n) for a, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))}
    return FailureSummary(len(f), len(sessions), reasons, by_agent)


def _shape(message: str) -> str:
    return re.sub(r"\d+(\.\d+)?", "#", message)


def _first_line(text: str, limit: int) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
