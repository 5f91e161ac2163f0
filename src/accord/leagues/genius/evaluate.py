"""Evaluating an agent with peer-designed agents (spec section 4), beside people's sessions.

:func:`evaluate` plays the agent against every PDA of the pool, on every combination of
types, on both sides, ``reps`` times with different seeds, and records per session the
agent's utility, whether an agreement was implemented (full, or partial at the deadline),
opt-outs, the turn of the agreement and the generosity (the opponent's utility).
:func:`summarise` averages each measure *per opponent* first and gives a 95 % Student-t
interval over the opponents, so the opponent, not the repetition, is the unit. When the
store holds sessions of the agent with people, :func:`people_records` gives the same
records with each person as the unit. :func:`round_robin` ranks the agent among the PDAs
(every entrant against every other, mean utility).

    >>> recs = evaluate("kbagent", ["job_candidate"], pool=["conceder", "fair"],
    ...                 type_pairs=[(0, 0)])
    >>> len(recs), sorted({r.opponent for r in recs})
    (4, ['conceder', 'fair'])
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.core.stats import mean_interval
from accord.leagues.genius.agent import GeniusAgent
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.kbagent import KBAgent
from accord.leagues.genius.knowledge import SessionLog
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import Match
from accord.leagues.genius.pdas import PDAS, make_agent
from accord.leagues.genius.protocol import EndReason, GeniusResult, Rules
from accord.leagues.genius.sandboxed import genius_sandbox, sandboxed

__all__ = [
    "MEASURES",
    "Interval",
    "Record",
    "evaluate",
    "people_records",
    "record_of",
    "round_robin",
    "summarise",
]

MEASURES = ("utility", "agreement", "opt_out", "turn", "generosity")
"""What :func:`summarise` reports, in order."""

Factory = Callable[[], GeniusAgent]


@dataclass(frozen=True)
class Record:
    """One session seen from the evaluated agent."""

    domain: str
    agent: str
    opponent: str
    side: int
    agent_type: int
    opponent_type: int
    rep: int
    utility: float
    generosity: float
    reason: str
    agreement: bool
    full: bool
    opt_out: bool
    turn: int


@dataclass(frozen=True)
class Interval:
    """A mean with its 95 % interval over ``n`` units (NaN bounds when n < 2)."""

    mean: float
    low: float
    high: float
    n: int

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready (NaN as None)."""
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in asdict(self).items()
        }


def record_of(
    domain: str, agent: str, opponent: str, side: int, result: GeniusResult, rep: int = 0
) -> Record:
    """The :class:`Record` of a finished session for the party on ``side``."""
    agreed = result.reason is not EndReason.OPT_OUT and result.agreed_issues > 0
    return Record(
        domain,
        agent,
        opponent,
        side,
        result.types[side],
        result.types[1 - side],
        rep,
        result.utilities[side],
        result.utilities[1 - side],
        result.reason.value,
        agreed,
        result.full,
        result.reason is EndReason.OPT_OUT,
        result.turn,
    )


def _factory(
    name: str | Factory, logs: Sequence[SessionLog] = (), sandbox: str = "os"
) -> tuple[str, Factory]:
    if callable(name):
        return getattr(name, "__name__", "agent"), name
    mode = genius_sandbox(name, sandbox)
    if mode is not None:  # a submitted agent: a fresh sandbox per session
        return name, lambda: sandboxed(name, mode)
    make_agent(name)  # fail early on an unknown name
    if name == "kbagent":
        return name, lambda: KBAgent(logs)
    return name, lambda: make_agent(name)


def evaluate(
    agent: str | Factory,
    domains: Sequence[str | Domain],
    pool: Sequence[str] | None = None,
    reps: int = 1,
    seed: int = 0,
    rules: Rules | None = None,
    type_pairs: Sequence[tuple[int, int]] | None = None,
    knowledge: Any = None,
    sandbox: str = "os",
) -> list[Record]:
    """Play ``agent`` against each PDA of ``pool`` (default: all) on every type pair, both sides.

    ``knowledge`` (a :class:`~accord.leagues.genius.store.GeniusStore`) gives the KBAgent its
    database: the store's finished sessions of each domain (without it: the empty-database
    prior). An agent named ``pkg.module:Class`` runs in :mod:`accord.sandbox` (``sandbox``:
    ``os``, ``process`` weaker, ``off`` in this process for trusted code), a fresh sandbox
    per session."""
    if isinstance(agent, str) and genius_sandbox(agent, sandbox):  # a bad mode: refused
        from accord.sandbox import require_mode

        require_mode(sandbox)  # no OS sandbox here: one line saying why, before any session
    if reps < 1:
        raise ConfigError(f"reps must be >= 1, got {reps}")
    opponents = list(pool) if pool is not None else list(PDAS)
    for name in opponents:
        make_agent(name)
    out: list[Record] = []
    for dom in domains:
        d = dom if isinstance(dom, Domain) else load_domain(dom)
        logs = knowledge.logs(d.name, domain_obj=d) if knowledge is not None else ()
        label, make = _factory(agent, logs, sandbox)
        for opp in opponents:
            for side in (0, 1):
                pairs = type_pairs or [
                    (a, b) for a in range(len(d.types[side])) for b in range(len(d.types[1 - side]))
                ]
                for ta, tb in pairs:
                    for rep in range(reps):
                        agents = [make(), make_agent(opp)]
                        types = (ta, tb)
                        if side == 1:
                            agents, types = agents[::-1], (tb, ta)
                        s = seed + 7919 * rep + 31 * ta + tb
                        result = Match(d, agents, types, rules, seed=s).run()
                        out.append(record_of(d.name, label, opp, side, result, rep))
    return out


def _interval(values: Sequence[float]) -> Interval:
    m = mean_interval(values)
    return Interval(m.mean, m.low, m.high, m.n)


def _measure(r: Record, name: str) -> float:
    if name == "turn":
        return float(r.turn) if r.agreement else float("nan")
    value: Any = getattr(r, name)
    return float(value)


def summarise(records: Sequence[Record], unit: str = "opponent") -> dict[str, Interval]:
    """Each measure averaged per ``unit`` (opponent or person), then a t-interval over units."""
    groups: dict[str, list[Record]] = {}
    for r in records:
        groups.setdefault(getattr(r, unit), []).append(r)
    out: dict[str, Interval] = {}
    for m in MEASURES:
        per_unit = []
        for rs in groups.values():
            vals = [v for v in (_measure(r, m) for r in rs) if not math.isnan(v)]
            per_unit.append(float(np.mean(vals)) if vals else float("nan"))
        out[m] = _interval(per_unit)
    return out


def people_records(store: Any, agent: str, domain: str) -> list[Record]:
    """Sessions of ``agent`` with people in the store, one record per session (unit: person)."""
    out: list[Record] = []
    for s in store.sessions(domain, "people"):
        if s["status"] != "ended" or s["reason"] is None:
            continue
        # the study server names an agent side "agent:<name>"
        names = tuple(str(n).removeprefix("agent:") for n in (s["party0"], s["party1"]))
        if agent not in names:
            continue
        side = names.index(agent)
        opponent = names[1 - side]
        agreed = s["reason"] != EndReason.OPT_OUT and any(
            v is not None for v in json.loads(s["agreement"])
        )
        types = (int(s["type0"]), int(s["type1"]))
        u = (float(s["u0"]), float(s["u1"]))
        out.append(
            Record(
                domain,
                agent,
                opponent,
                side,
                types[side],
                types[1 - side],
                0,
                u[side],
                u[1 - side],
                s["reason"],
                agreed,
                bool(s["full"]),
                s["reason"] == EndReason.OPT_OUT,
                int(s["turn"]),
            )
        )
    return out


def round_robin(
    entrants: Sequence[str],
    domains: Sequence[str | Domain],
    reps: int = 1,
    seed: int = 0,
    rules: Rules | None = None,
    type_pairs: Sequence[tuple[int, int]] | None = None,
    sandbox: str = "os",
) -> dict[str, dict[str, float]]:
    """Mean utility of every entrant against all the others: ``{domain: {entrant: mean}}``.

    Each pair of entrants meets on every type pair (or ``type_pairs``), each on both sides.
    Entrants named ``pkg.module:Class`` run in :mod:`accord.sandbox` (see :func:`evaluate`).
    """
    makers = {e: _factory(e, (), sandbox)[1] for e in entrants}
    table: dict[str, dict[str, float]] = {}
    for dom in domains:
        d = dom if isinstance(dom, Domain) else load_domain(dom)
        scores: dict[str, list[float]] = {e: [] for e in entrants}
        for i, a in enumerate(entrants):
            for b in entrants[i + 1 :]:
                pairs = type_pairs or [(x, y) for x in range(3) for y in range(3)]
                for ta, tb in pairs:
                    for rep in range(reps):
                        for first, second, types in ((a, b, (ta, tb)), (b, a, (ta, tb))):
                            s = seed + 7919 * rep + 31 * ta + tb
                            agents = [makers[first](), makers[second]()]
                            r = Match(d, agents, types, rules, seed=s).run()
                            scores[first].append(r.utilities[0])
                            scores[second].append(r.utilities[1])
        table[d.name] = {e: float(np.mean(v)) for e, v in scores.items()}
    return table
