"""Running one scheduled session and turning its result into store rows.

:func:`run_session` is what every executor calls, in whatever process it runs: it builds
the agents (in-process or isolated), runs the session, and returns a
:class:`SessionRecord` whose rows the store writes in one transaction. Failures of an
agent (while being created, or inside the session) become a recorded failure of that
session, never an exception.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.core.interrupts import user_interrupted
from accord.core.negotiator import Negotiator
from accord.core.outcomes import OutcomeSpace
from accord.core.protocols import DEFAULT_PROTOCOL, make_session, protocol_info
from accord.core.protocols.offers import NegotiatorSeat, OfferRules, OfferSession
from accord.core.protocols.result import Action, EndReason, FailureKind, SessionResult
from accord.core.protocols.tracelog import TraceLog
from accord.core.scenario import Scenario
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction
from accord.sandbox import SandboxMode
from accord.tournament.admission import profile_ids
from accord.tournament.agents import make_negotiator
from accord.tournament.config import AgentSpec, TournamentConfig
from accord.tournament.guard import Guarded
from accord.tournament.isolation import SandboxedNegotiator, TournamentLimits, plan
from accord.tournament.schedule import SessionSpec
from accord.tournament.workers import Death

_HOST = socket.gethostname()


@dataclass(frozen=True)
class RunContext:
    """What every worker needs besides the session spec (sent once per worker)."""

    scenarios: Mapping[str, Scenario]
    agents: Mapping[str, AgentSpec]
    rounds: int = 100
    seconds: float | None = None
    time_limit: float | None = None
    sandboxed: Mapping[str, SandboxMode] = field(default_factory=dict)
    limits: TournamentLimits = field(default_factory=TournamentLimits)
    protocol: str = DEFAULT_PROTOCOL
    failure_score: str = "zero"

    @staticmethod
    def limits_of(config: TournamentConfig) -> TournamentLimits:
        """The limits of a tournament's sandboxed agents."""
        limit = config.time_limit or config.call_timeout
        return TournamentLimits(config.cpu_limit, config.memory_limit, limit)

    @classmethod
    def from_config(cls, config: TournamentConfig, scenarios: Mapping[str, Scenario]) -> RunContext:
        """The context of a tournament."""
        limit = config.time_limit
        return cls(
            scenarios=dict(scenarios),
            agents={a.name: a for a in config.agents},
            rounds=config.rounds,
            seconds=config.seconds,
            time_limit=limit,
            sandboxed=plan({a.name: a for a in config.agents}, config.sandbox_choice),
            limits=cls.limits_of(config),
            protocol=config.protocol_path or config.protocol,
            failure_score=config.failure_score,
        )


@dataclass(frozen=True)
class Task:
    """One session to run, with the memories its agents may read (or None)."""

    spec: SessionSpec
    memories: tuple[Any, ...] | None = None


@dataclass
class SessionRecord:
    """The rows one session adds to the store (see :mod:`accord.tournament.store`)."""

    id: str
    session: tuple[Any, ...]
    parties: list[tuple[Any, ...]]
    trace: tuple[Any, ...] | None


def _counters(session: Any) -> bool:
    """True where every seat proposes at once, on the same view, after its REJECT."""
    return (
        isinstance(session, OfferSession)
        and isinstance(session.rules, OfferRules)
        and session.rules.counter_offers
        and all(type(seat) is NegotiatorSeat for seat in session.seats)
    )


def run_session(task: Task, ctx: RunContext) -> SessionRecord:
    """Run one session and return its rows. Never raises for an agent's fault."""
    game = prepare_session(task, ctx)
    if isinstance(game, SessionRecord):
        return game
    try:
        result = game.session.run()
    finally:
        game.close()  # the sandboxes go back to this worker's idle ones
    return game.record(result)


SandboxedFactory = Callable[
    [AgentSpec, TournamentLimits, UtilityFunction, Any, SandboxMode], SandboxedNegotiator
]


@dataclass
class Game:
    """A session built and ready to run (see :func:`prepare_session`)."""

    task: Task
    ctx: RunContext
    session: Any
    negotiators: list[Negotiator]
    started: float

    def close(self) -> None:
        """Give back the sandboxes of its sandboxed agents (idempotent)."""
        for n in self.negotiators:
            if isinstance(n, SandboxedNegotiator):
                n.close()

    def record(self, result: SessionResult) -> SessionRecord:
        """The rows of the finished session."""
        return _record(self.task.spec, self.ctx, result, self.started)


def prepare_session(
    task: Task,
    ctx: RunContext,
    sandboxed: SandboxedFactory = SandboxedNegotiator,
    time_limit: bool = True,
) -> Game | SessionRecord:
    """Build the agents and the session of ``task``: a :class:`Game` to run, or the
    record of a session that failed before it began (an agent that could not be
    created). ``sandboxed`` makes the sandboxed agents' stand-ins; ``time_limit=False``
    leaves the per-call time limit to them (the session does not time their calls)."""
    spec = task.spec
    scenario = ctx.scenarios[spec.scenario]
    utilities = [scenario.utilities[p] for p in spec.profiles]
    memories = task.memories or (None,) * len(spec.agents)
    started = time.time()
    negotiators: list[Negotiator] = []
    build_error: tuple[int, str] | None = None
    limit = ctx.limits.call_timeout if ctx.sandboxed else ctx.time_limit
    guard = ctx.time_limit or ctx.limits.call_timeout  # in-process calls are pre-empted here
    # a protocol needing capabilities (extra methods) gets the agents themselves, unguarded
    guarded = not protocol_info(ctx.protocol).needs
    for k, name in enumerate(spec.agents):
        agent = ctx.agents[name]
        try:
            mode = ctx.sandboxed.get(name)
            if mode is not None:
                boxed = sandboxed(agent, ctx.limits, utilities[k], memories[k], mode)
                boxed.sides = profile_ids(ctx.scenarios).sides(spec)[k]  # its admission
                negotiators.append(boxed)
            else:
                neg = make_negotiator(agent)
                if guarded:
                    neg = Guarded(neg, k, guard, max(guard, ctx.limits.call_timeout))
                negotiators.append(neg)
        except BaseException as exc:  # noqa: BLE001 - a broken agent is that session's failure
            if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                raise
            build_error = (k, f"could not create agent {name!r}: {type(exc).__name__}: {exc}")
            break
    if build_error is not None:
        for n in negotiators:
            if isinstance(n, SandboxedNegotiator):
                n.close()
        k, message = build_error
        return _failed_record(
            spec, scenario, k, FailureKind.EXCEPTION, message, "", started, ctx.failure_score
        )
    session = make_session(
        ctx.protocol,
        scenario.space,
        negotiators,
        utilities,
        Deadline(rounds=ctx.rounds, seconds=ctx.seconds),
        seed=spec.seed,
        time_limit=limit if time_limit else None,
        memories=memories,
    )
    if _counters(session):
        for n in negotiators:
            if isinstance(n, SandboxedNegotiator):
                n.counters = True
    return Game(task, ctx, session, negotiators, started)


def _record(
    spec: SessionSpec, ctx: RunContext, result: SessionResult, started: float
) -> SessionRecord:
    scenario = ctx.scenarios[spec.scenario]
    utilities = [scenario.utilities[p] for p in spec.profiles]
    finished = time.time()
    f = result.failure
    agreement = None if result.agreement is None else _dumps(result.agreement)
    session_row = (
        spec.id,
        spec.index,
        spec.scenario,
        spec.rep,
        spec.rotation,
        agreement,
        result.reason.value,
        result.ended_by,
        result.time,
        result.steps,
        result.rounds,
        None if f is None else f.party,
        None if f is None else spec.agents[f.party],
        None if f is None else f.kind.value,
        None if f is None else f.message,
        None if f is None else f.traceback or None,
        result.elapsed,
        started,
        finished,
        f"{_HOST}:{os.getpid()}",
    )
    culprit = f.party if f is not None and result.reason is EndReason.FAILURE else None
    finals = failure_finals(result.utilities, culprit, ctx.failure_score)
    parties = _party_rows(spec, scenario, finals)
    trace = encode_trace(spec.id, result.trace, scenario.space, utilities)
    return SessionRecord(spec.id, session_row, parties, trace)


def failure_finals(finals: Sequence[float], culprit: int | None, score: str) -> list[float]:
    """The utilities stored for a session: the party that failed it (``culprit``) scores 0
    when ``score`` is ``zero`` (a failure never pays); everyone else keeps ``finals``.

    >>> failure_finals([0.75, 0.75], 1, "zero"), failure_finals([0.75, 0.75], 1, "reservation")
    ([0.75, 0.0], [0.75, 0.75])
    >>> failure_finals([0.75, 0.75], None, "zero")  # nobody to blame: no agreement for all
    [0.75, 0.75]
    """
    out = [float(u) for u in finals]
    if culprit is not None and score == "zero" and 0 <= culprit < len(out):
        out[culprit] = 0.0
    return out


def _party_rows(
    spec: SessionSpec, scenario: Scenario, finals: Sequence[float]
) -> list[tuple[Any, ...]]:
    return [
        (
            spec.id,
            k,
            name,
            p,
            scenario.profile_names[p],
            float(finals[k]),
            scenario.utilities[p].reservation,
        )
        for k, (name, p) in enumerate(zip(spec.agents, spec.profiles, strict=True))
    ]


def encode_trace(
    sid: str, trace: Sequence[Any], space: OutcomeSpace, utilities: Sequence[Any]
) -> tuple[Any, ...]:
    """One ``traces`` row: parties (uint8 bytes), actions (``o``/``a``/``e`` letters), times
    (float64 bytes), outcomes (JSON: flat indices, -1 for none, on discrete spaces; value
    lists or null otherwise) and utilities (float64 bytes, one row per entry, one column
    per party, NaN where there is no outcome). Works per distinct outcome, so a trace of
    millions of entries encodes in a fraction of a second."""
    n = len(trace)
    k = len(utilities)
    if isinstance(trace, TraceLog):
        parties, letters, times, oid = trace.columns()
        party = parties.astype(np.uint8)
        table: list[Any] = trace.outcomes
    else:
        party = np.fromiter((e.party for e in trace), dtype=np.uint8, count=n)
        letters = np.fromiter((_ACTION_CODE[e.action] for e in trace), dtype=np.uint8, count=n)
        times = np.fromiter((e.time for e in trace), dtype=np.float64, count=n)
        table = [None]
        ids: dict[Any, int] = {}
        for e in trace:
            if e.outcome is not None and e.outcome not in ids:
                ids[e.outcome] = len(table)
                table.append(e.outcome)
        oid = np.fromiter((ids.get(e.outcome, 0) for e in trace), dtype=np.int64, count=n)
    discrete = space.is_discrete
    codes: list[Any] = [-1 if discrete else None]
    values = np.full((len(table), k), np.nan)
    for i, o in enumerate(table[1:], start=1):
        codes.append(space.flat_index(o) if discrete else list(o))
        values[i] = [u(o) for u in utilities]
    actions = "".join(_LETTERS[letters].tolist()) if n else ""
    if discrete:
        outcomes = json.dumps(np.asarray(codes, dtype=np.int64)[oid].tolist())
    else:
        outcomes = json.dumps([codes[i] for i in oid.tolist()], default=_default)
    return (
        sid,
        n,
        party.tobytes(),
        actions,
        np.ascontiguousarray(times).tobytes(),
        outcomes,
        values[oid].tobytes(),
    )


_LETTER = {Action.OFFER: "o", Action.ACCEPT: "a", Action.END: "e", Action.REJECT: "r"}
_ACTION_CODE = {a: i for i, a in enumerate(Action)}  # the codes TraceLog stores
_LETTERS = np.array([_LETTER[a] for a in Action])


def lost_session(task: Task, death: Death, ctx: RunContext) -> SessionRecord:
    """The record of a session whose worker process died (or was killed) while running it:
    a failure of the agent that was acting (``death.party``), or of nobody if none was."""
    spec = task.spec
    k = death.party if 0 <= death.party < len(spec.agents) else None
    where = f" in {spec.agents[k]}'s {death.op}()" if k is not None and death.op else ""
    kind = FailureKind.TIMEOUT if "did not return" in death.message else FailureKind.EXCEPTION
    message = f"{death.message}{where}"
    scenario = ctx.scenarios[spec.scenario]
    return _failed_record(spec, scenario, k, kind, message, "", time.time(), ctx.failure_score)


def _failed_record(
    spec: SessionSpec,
    scenario: Scenario,
    k: int | None,
    kind: FailureKind,
    message: str,
    trace: str,
    started: float,
    failure_score: str,
) -> SessionRecord:
    reservations = [scenario.utilities[p].reservation_at(0.0) for p in spec.profiles]
    finals = failure_finals(reservations, k, failure_score)
    row = (
        spec.id,
        spec.index,
        spec.scenario,
        spec.rep,
        spec.rotation,
        None,
        EndReason.FAILURE.value,
        k,
        0.0,
        0,
        0,
        k,
        None if k is None else spec.agents[k],
        kind.value,
        message,
        trace or None,
        0.0,
        started,
        time.time(),
        f"{_HOST}:{os.getpid()}",
    )
    return SessionRecord(spec.id, row, _party_rows(spec, scenario, finals), None)


def _dumps(outcome: Any) -> str:
    return json.dumps(list(outcome), default=_default)


def _default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    raise TypeError(f"cannot store outcome value {v!r} ({type(v).__name__})")
