"""The one host of core negotiators in the sandbox, for every offer protocol.

:class:`OfferNegotiatorHost` is trusted Accord code that runs inside an entrant's
sandbox (see :mod:`accord.sandbox.host`), builds the entrant's
:class:`~accord.core.negotiator.Negotiator` and keeps, for every session it plays, a
mirror of the session as the negotiator may see it: its own utility, an
:class:`~accord.core.negotiator.OfferLog` and a read-only
:class:`~accord.core.negotiator.NegotiatorView`. It answers two callers:

* the negotiation tournament (:mod:`accord.tournament.isolation`, one call at a time,
  and :mod:`accord.tournament.multiplex`, the calls of many sessions in one ``batch``
  frame): ``check``, ``start``, ``propose``, ``respond``, ``end`` and ``batch``, each
  carrying the session's id and the view's new state (the organiser's own pickle: it
  trusts itself); a session's CPU time is counted here and the process's CPU limit
  moved to what its sessions have left;
* the agent driver's :class:`~accord.drivers.seats.SandboxSeat`, for any offer
  ``Rules`` (AOP, the SCML variant, the ultimatum game), in JSON alone: ``start`` (the
  party's observation: the outcome space, its own utility, the offers), ``act`` (the
  observation and what is legal) and ``end`` (the result).

Answers are JSON only (an outcome as a list of scalars, a response as its code, an
action as ``{"kind", "args"}``); the organiser checks each before the session sees it
(:func:`accord.tournament.isolation.check_outcome`, ``rules.action_from_json``) and
never unpickles anything from here.

    >>> import numpy as np
    >>> _outcome((np.int64(1), "a")), _outcome(None)
    ([1, 'a'], None)
"""

from __future__ import annotations

import gc
import resource
import time
import traceback
from collections.abc import Mapping
from typing import Any

from accord.core.errors import ConfigError, ProtocolViolation, StateError, UsageError
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import Outcome, OutcomeSpace, issue_from_dict
from accord.core.protocols.result import EndReason, Failure, FailureKind, SessionResult
from accord.core.utilities import utility_from_dict
from accord.sandbox import Host, HostContext, Then
from accord.sandbox.host import describe_exception, from_organiser

__all__ = ["LONG_OPS", "REPORT_AFTER", "OfferNegotiatorHost"]

_Session = tuple[Negotiator, NegotiatorView, OfferLog]
REPORT_AFTER = 0.05
"""Seconds into a batch after which the host reports each call's end before the next
call starts (a quick batch writes nothing). Before and after a ``start`` or ``end``
(:data:`LONG_OPS`: their budgets are long) it reports at once, so the organiser never
takes one of them for a timed call, nor the reverse."""
LONG_OPS = ("start", "end")


class OfferNegotiatorHost(Host):
    """Runs in the sandbox: builds a negotiator per session and mirrors its view."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        from accord.tournament.agents import agent_factory

        agent_factory(agent)  # import it now: a module that cannot load fails at start
        gc.freeze()  # what exists now is never garbage: collections then scan sessions only
        self.sessions: dict[int, _Session] = {}
        self.cpu_left: dict[int, float] = {}  # CPU seconds each session may still use
        self.seat: _Session | None = None  # the agent driver's one play (JSON only)
        self.space: OutcomeSpace | None = None  # the seat's outcome space
        self.utilities: dict[bytes, Any] = {}  # each profile sent pickled, unpickled once

    def handle(self, op: str, payload: Any) -> Any:
        """A tournament's call (its payload names the session, ``sid``), a ``batch`` of
        them, or a seat's ``start``, ``act`` or ``end`` (see the module)."""
        if op == "batch":
            return self._batch(payload)
        if op == "act":
            return self._act(payload["observation"], payload["legal"])
        if op == "check":
            from accord.tournament.agents import check_agents

            check_agents([payload["spec"]])
            return None
        if op in ("start", "end") and "sid" not in payload:
            return self._seat_call(op, payload)
        if op not in ("start", "propose", "respond", "end"):
            raise UsageError(
                f"unknown op {op!r}; expected check, start, propose, respond, end, act"
            )
        sid = payload["sid"]
        *now, new = payload["state"]
        if op == "start":
            self._cap_cpu(payload["cpu"])
            self._start(sid, payload, now, new)
            return None
        if sid not in self.sessions:
            raise StateError(f"session {sid} has not started here")
        neg, view, offers = self.sessions[sid]
        view.update(*now)
        for k, o in new:
            offers._append(k, o)
        if op == "propose":
            return _outcome(neg.propose(view))
        if op == "respond":
            answer = int(neg.respond(view, payload["offer"]))
            if answer == Response.REJECT and payload.get("counter"):
                return Then(answer, lambda: _outcome(neg.propose(view)))
            return answer
        return self._end(sid, neg, view, payload["result"])  # op == "end"

    # -- the tournament's sessions ---------------------------------------------------------
    def _batch(self, calls: list[tuple[str, int, Any, Any, Any]]) -> list[list[Any]]:
        """Answer the calls of many sessions in one request (see
        :mod:`accord.tournament.multiplex`), in order, each on its own. A call is
        ``(op, sid, state, new offers, arg)``; ``op`` is ``start`` (``arg``: the
        session's set-up; answers the megabytes the process maps), ``propose``,
        ``respond`` (``arg``: the offer), ``counter`` (``respond``, and ``propose`` at
        once after a REJECT) or ``end`` (``arg``: the pickled result). An entry per
        call: ``[seconds, 0, value]``, ``[seconds, 0, value, follow]`` (a REJECT and the
        counter-offer's entry), ``[seconds, 1, type, error, traceback]`` (it raised) or
        ``[seconds, 2]`` (its session used up its CPU time: dropped here). Seconds are
        the call's wall time; the process's CPU limit is moved to what the batch's
        sessions have left (plus a second) before any of them runs. Each call's end is
        reported before the next starts (``context.report``) once the batch has run
        :data:`REPORT_AFTER` seconds, and always around a ``start`` or ``end`` (their
        budgets are long): the organiser then catches a hanging call near its own
        limit, not the batch's."""
        left, sessions = self.cpu_left, self.sessions
        budget = 1.0
        for op, sid, _, _, arg in calls:
            budget += arg["cpu"] if op == "start" else max(0.0, left.get(sid, 0.0))
        self._cap_cpu(budget)
        clock, cpu = time.perf_counter, time.process_time
        out: list[list[Any]] = []
        t, c = clock(), cpu()
        began, told, report = t, 0, self.context.report
        for op, sid, now, new, arg in calls:
            if len(out) > told and (
                t - began >= REPORT_AFTER or op in LONG_OPS or calls[len(out) - 1][0] in LONG_OPS
            ):
                report(len(out) - told)  # (a quick batch of timed calls writes nothing)
                told = len(out)
            neg: Any = None
            value: Any = None
            try:
                if op == "start":
                    self._start(sid, arg, now, new)
                    value = _mapped_mb()  # the organiser stops adding sessions near the limit
                else:
                    neg, view, offers = sessions[sid]
                    view.update(*now)
                    for k, o in new:
                        offers._append(k, o)
                    if op == "propose":
                        value = _outcome(neg.propose(view))
                    elif op == "respond" or op == "counter":
                        value = int(neg.respond(view, arg))
                        if op == "respond" or value != Response.REJECT:
                            neg = None  # no counter-offer follows
                    elif op == "end":
                        value = self._end(sid, neg, view, arg)
                        neg = None
                    else:
                        raise UsageError(f"unknown op {op!r}")
                entry: list[Any] = [0.0, 0, value]
            except BaseException as exc:  # noqa: BLE001 - the agent's, SystemExit included
                entry = _raised(exc)
                neg = None
            t1, c1 = clock(), cpu()
            entry[0], t = t1 - t, t1
            spent, c = c1 - c, c1
            if sid in left:
                left[sid] -= spent
                if left[sid] < 0:
                    out.append(self._drop(sid, entry[0]))
                    continue
            if neg is not None and op == "counter":  # the counter-offer, its own call
                try:
                    follow: list[Any] = [0.0, 0, _outcome(neg.propose(view))]
                except BaseException as exc:  # noqa: BLE001
                    follow = _raised(exc)
                t1, c1 = clock(), cpu()
                follow[0], t = t1 - t, t1
                spent, c = c1 - c, c1
                left[sid] -= spent
                if left[sid] < 0:
                    out.append(self._drop(sid, entry[0] + follow[0]))
                    continue
                entry.append(follow)
            out.append(entry)
        return out

    def _start(self, sid: int, arg: dict[str, Any], now: Any, new: Any) -> None:
        """A new session: its negotiator and the mirror of its view."""
        from accord.tournament.agents import make_negotiator

        neg = make_negotiator(arg["spec"])
        offers = OfferLog()
        utility = arg["utility"]
        if type(utility) is bytes:  # pickled once by the organiser for many sessions
            utility = self._unpickled(utility)
        view = NegotiatorView(
            utility,
            arg["index"],
            arg["names"],
            offers,
            arg["rng"],
            arg["memory"],
            arg["deadline"],
        )
        self.sessions[sid] = (neg, view, offers)
        self.cpu_left[sid] = arg["cpu"]
        view.update(*now)
        for k, o in new:
            offers._append(k, o)
        neg.on_start(view)

    def _unpickled(self, data: bytes) -> Any:
        """The utility pickled as ``data``, one object for all the sessions given it
        while the process holds a session (as in-process: its inverse, built by the
        first, serves them all). Only its own profiles ever arrive here (the organiser's
        admission); the last 16 are kept."""
        got = self.utilities.get(data)
        if got is None:
            if len(self.utilities) >= 16:
                del self.utilities[next(iter(self.utilities))]
            got = self.utilities[data] = from_organiser(data)
        return got

    def _end(self, sid: int, neg: Negotiator, view: NegotiatorView, result: Any) -> float:
        """The session is over: ``on_end``, then nothing of it stays (collected once the
        process holds no session). The process's CPU time used so far."""
        del self.sessions[sid]
        self.cpu_left.pop(sid, None)
        if type(result) is bytes:  # pickled once by the organiser for every party
            result = from_organiser(result)
        neg.on_end(view, result)
        del neg, view
        if not self.sessions:  # nothing of this session stays reachable in the next
            from accord.core.inverse import clear_inverses

            self.utilities.clear()
            clear_inverses()  # the LRU would keep this session's utilities reachable
            gc.collect()
        used = resource.getrusage(resource.RUSAGE_SELF)
        return used.ru_utime + used.ru_stime

    def _drop(self, sid: int, seconds: float) -> list[Any]:
        """A session past its CPU time: forgotten here (the organiser fails it)."""
        self.sessions.pop(sid, None)
        self.cpu_left.pop(sid, None)
        return [seconds, 2]

    def _cap_cpu(self, seconds: float) -> None:
        """Let the process use ``seconds`` more CPU time (the soft limit; never past the
        hard one, which bounds the process's life)."""
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        used = resource.getrusage(resource.RUSAGE_SELF)
        cap = int(used.ru_utime + used.ru_stime + seconds + 0.999)
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_CPU, (cap, hard))

    # -- the agent driver's seat (JSON in, JSON out) -----------------------------------------
    def _seat_call(self, op: str, payload: Mapping[str, Any]) -> None:
        if op == "start":
            self._seat_start(payload["party"], payload["observation"])
            self._seat_session()[0].on_start(self._seat_session()[1])
        else:
            neg, view, _ = self._seat_session()
            neg.on_end(view, _result(payload["result"]))

    def _seat_session(self) -> _Session:
        if self.seat is None:
            raise StateError("the play has not started: act before start")
        return self.seat

    def _seat_start(self, party: int, o: Mapping[str, Any]) -> None:
        from accord.agents.registry import get_agent

        space = OutcomeSpace([issue_from_dict(i) for i in o["issues"]])
        if o.get("utility") is None:
            raise ConfigError("this protocol does not show the party its utility")
        u = utility_from_dict(space, o["utility"])
        log = OfferLog()
        self.space = space
        self.seat = (
            get_agent(self.agent_name),
            NegotiatorView(u, party, o["names"], log, (0, party)),
            log,
        )
        self._seat_update(o)

    def _seat_outcome(self, d: Mapping[str, Any] | None) -> Outcome | None:
        assert self.space is not None
        return None if d is None else tuple(d[n] for n in self.space.names)

    def _seat_update(self, o: Mapping[str, Any]) -> None:
        _, view, log = self._seat_session()
        for offer in o["offers"][len(log) :]:
            outcome = self._seat_outcome(offer["outcome"])
            assert outcome is not None
            log._append(int(offer["party"]), outcome)
        view.update(
            o["time"], o["step"], o["round"], self._seat_outcome(o["standing"]), o["proposer"]
        )

    def _act(self, o: Mapping[str, Any], legal: Mapping[str, Any]) -> dict[str, Any]:
        """The seat's action: a response to the standing offer where one is legal, else
        (or after a REJECT) a proposal; ``end`` where the negotiator ends the play."""
        self._seat_update(o)
        neg, view, _ = self._seat_session()
        kinds = [a["kind"] for a in legal["actions"]]
        if "accept" in kinds and view.standing_offer is not None:
            answer = neg.respond(view, view.standing_offer)
            if answer is Response.ACCEPT:
                return {"kind": "accept", "args": {}}
            if answer is Response.END:
                return {"kind": "end", "args": {}}
            if answer is Response.REJECT and "reject" in kinds:
                return {"kind": "reject", "args": {}}
            if answer is not Response.REJECT:
                raise ProtocolViolation(f"respond() must return a Response; got {answer!r}")
        offer = neg.propose(view)
        if offer is None:
            return {"kind": "end", "args": {}}
        assert self.space is not None
        outcome = self.space.validate(offer)
        return {
            "kind": "offer",
            "args": {n: _plain(v) for n, v in zip(self.space.names, outcome, strict=True)},
        }


def _result(d: Mapping[str, Any]) -> SessionResult:
    """A result sent as JSON (the seat's ``end``)."""
    f = d.get("failure")
    failure = (
        None if f is None else Failure(f["party"], f["name"], FailureKind(f["kind"]), f["message"])
    )
    return SessionResult(
        agreement=None if d["agreement"] is None else tuple(d["agreement"]),
        reason=EndReason(d["reason"]),
        ended_by=d["ended_by"],
        time=d["time"],
        steps=d["steps"],
        rounds=d["rounds"],
        elapsed=d["elapsed"],
        utilities=tuple(d["utilities"]),
        names=tuple(d["names"]),
        failure=failure,
    )


def _mapped_mb() -> float:
    """Megabytes of address space this process maps (what ``RLIMIT_AS`` limits)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize() / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def _raised(exc: BaseException) -> list[Any]:
    return [0.0, 1, type(exc).__name__, describe_exception(exc), traceback.format_exc()[-8000:]]


def _outcome(out: Outcome | None) -> list[Any] | None:
    """An outcome as JSON: a list of plain scalars (numpy ones converted)."""
    if out is None:
        return None
    return [v if type(v) in _PLAIN else _plain(v) for v in out]


_PLAIN = frozenset({int, float, str, bool})


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v  # a numpy scalar
