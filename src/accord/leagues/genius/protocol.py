"""The GENIUS/BIU protocol: partial offers, accept/reject, opt-out, comments and threats.

Two parties negotiate over ``turns`` time periods (14 by default) on a clock: a wall clock
for experiments with people (e.g. 120 s a turn) or a :class:`VirtualClock` for agent runs.
At any time either side may send an offer over any non-empty subset of the issues (a
*partial offer*), accept or reject an offer of the other side it has not answered yet, opt
out, or send one of the fixed comments or threats. An offer accepted by the other side
(its proposer counts as accepting it) joins the running agreement: its values replace
earlier ones. The session ends

- on a **full agreement** (every issue agreed): each side gets ``U(agreement, t)``;
- on an **opt-out** by either side at turn ``t``: each side gets ``opt_out + t*time_effect``;
- at the **deadline** ``t = turns``: the partial agreement reached so far is implemented
  (open issues scored as :class:`~accord.leagues.genius.domain.Profile` says), or the status
  quo when nothing was agreed. ``Rules(deadline_rule="code")`` discards the partial
  agreement and gives the status quo, as the original Java code does.

Time periods count from 0 (the paper's ``Time = {0, 1, ..., dl}``); ``first_turn=1`` numbers
them from 1 as the Java code does. Every action is checked; an invalid one is recorded
against its sender (``Event.ok`` false, ``GeniusResult.invalid``) and changes nothing else.

    >>> from accord.leagues.genius.loading import load_domain
    >>> d = load_domain("job_candidate")
    >>> clock = VirtualClock()
    >>> s = GeniusSession(d, (0, 0), Rules(turns=14, turn_seconds=60), clock)
    >>> s.start()
    >>> e = s.submit(0, Action.make_offer({"Salary": "12,000 NIS", "Working Hours": "9 hours"}))
    >>> s.submit(1, Action.accept(e.offer)).ok, s.agreement["Salary"], s.phase.name
    (True, '12,000 NIS', 'RUNNING')
    >>> s.submit(1, Action.accept(99)).error
    'no offer 99 to answer; open offers of the other side: none'
    >>> clock.advance(60 * 3 + 1)
    >>> r = s.submit(0, Action.opt_out()).result
    >>> r.reason.value, r.turn, r.utilities   # opt-out at turn 3: 210 - 6*3, 150 - 8*3
    ('opt_out', 3, (192.0, 126.0))
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from accord.core.errors import ConfigError, InvalidScenario, ProtocolViolation
from accord.leagues.genius.domain import OPEN, Domain, PartialOutcome

__all__ = [
    "COMMENTS",
    "THREATS",
    "Action",
    "Clock",
    "EndReason",
    "Event",
    "GeniusResult",
    "GeniusSession",
    "Kind",
    "Offer",
    "Phase",
    "Rules",
    "VirtualClock",
]

Clock = Callable[[], float]

COMMENTS = (
    "We are on the right track for reaching an agreement.",
    "I don't believe that you are just in your intentions.",
    "If you will try to compromise I will also try to go towards you.",
)
"""The fixed comments (index -> text)."""

THREATS = (
    "If an agreement is not reached by the next round I will toughen my stands.",
    "If an agreement is not reached by the next round I will opt out.",
    "If I do not receive an offer that I like I will have to think about continuing "
    "the negotiation.",
)
"""The fixed threats (index -> text)."""


class VirtualClock:
    """A clock that moves only when told to: ``clock()`` returns its seconds.

    >>> c = VirtualClock(); c.advance(2.5); c()
    2.5
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move forward by ``seconds`` (>= 0)."""
        if seconds < 0:
            raise ConfigError(f"a clock cannot go back; got advance({seconds})")
        self.now += seconds


@dataclass(frozen=True)
class Rules:
    """The protocol's settings; the defaults follow the paper.

    Args:
        turns: number of time periods (the deadline ``dl``).
        turn_seconds: length of one period on the session's clock.
        deadline_rule: ``"paper"`` implements a partial agreement at the deadline;
            ``"code"`` discards it and gives the status quo (the Java code's behaviour).
        open_issues: ``"paper"`` scores an open issue with its "No agreement" value, else 0;
            ``"code"`` scores every open issue 0.
        first_turn: number of the first period (0 as in the paper, 1 as in the code).
    """

    turns: int = 14
    turn_seconds: float = 120.0
    deadline_rule: Literal["paper", "code"] = "paper"
    open_issues: Literal["paper", "code"] = "paper"
    first_turn: int = 0

    def __post_init__(self) -> None:
        if self.turns < 1:
            raise ConfigError(f"turns must be >= 1, got {self.turns}")
        if not self.turn_seconds > 0:
            raise ConfigError(f"turn_seconds must be > 0, got {self.turn_seconds}")
        if self.deadline_rule not in ("paper", "code"):
            raise ConfigError(
                f"deadline_rule must be 'paper' or 'code', got {self.deadline_rule!r}"
            )
        if self.open_issues not in ("paper", "code"):
            raise ConfigError(f"open_issues must be 'paper' or 'code', got {self.open_issues!r}")
        if self.first_turn not in (0, 1):
            raise ConfigError(f"first_turn must be 0 or 1, got {self.first_turn}")


class Phase(Enum):
    """Where a session is."""

    CREATED = "created"
    RUNNING = "running"
    ENDED = "ended"


class Kind(StrEnum):
    """What an action does."""

    OFFER = "offer"
    ACCEPT = "accept"
    REJECT = "reject"
    OPT_OUT = "opt_out"
    COMMENT = "comment"
    THREAT = "threat"


class EndReason(StrEnum):
    """Why a session ended."""

    AGREEMENT = "agreement"
    OPT_OUT = "opt_out"
    DEADLINE = "deadline"
    FAILURE = "failure"
    """An agent failed and the rules end the session on a failure (core negotiators in
    a tournament; each side gets its status quo). The league's own runs record a
    failure as an invalid action instead."""


@dataclass(frozen=True)
class Action:
    """One move; build it with :meth:`make_offer`, :meth:`accept`, ... or :meth:`from_json`."""

    kind: Kind
    values: Mapping[str, str] | None = None
    offer: int | None = None
    index: int | None = None

    @classmethod
    def make_offer(cls, values: Mapping[str, str]) -> Action:
        """Offer values for some (or all) issues."""
        return cls(Kind.OFFER, values=dict(values))

    @classmethod
    def accept(cls, offer: int) -> Action:
        """Accept the other side's offer number ``offer``."""
        return cls(Kind.ACCEPT, offer=offer)

    @classmethod
    def reject(cls, offer: int) -> Action:
        """Reject the other side's offer number ``offer``."""
        return cls(Kind.REJECT, offer=offer)

    @classmethod
    def opt_out(cls) -> Action:
        """Leave the negotiation; both sides get their opt-out value."""
        return cls(Kind.OPT_OUT)

    @classmethod
    def comment(cls, index: int) -> Action:
        """Send comment ``COMMENTS[index]``."""
        return cls(Kind.COMMENT, index=index)

    @classmethod
    def threat(cls, index: int) -> Action:
        """Send threat ``THREATS[index]``."""
        return cls(Kind.THREAT, index=index)

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse ``{"kind": ..., "values"|"offer"|"index": ...}``; a clear error otherwise.

        >>> Action.from_json({"kind": "accept", "offer": 3})
        Action(kind=<Kind.ACCEPT: 'accept'>, values=None, offer=3, index=None)
        >>> Action.from_json({"kind": "bid"})
        Traceback (most recent call last):
        ...
        accord.core.errors.ProtocolViolation: unknown action kind 'bid'; expected one of offer, accept, reject, opt_out, comment, threat
        """
        if not isinstance(data, Mapping):
            raise ProtocolViolation(f"an action must be a JSON object, got {type(data).__name__}")
        raw = data.get("kind")
        try:
            kind = Kind(str(raw))
        except ValueError:
            allowed = ", ".join(k.value for k in Kind)
            raise ProtocolViolation(
                f"unknown action kind {raw!r}; expected one of {allowed}"
            ) from None
        if kind is Kind.OFFER:
            values = data.get("values")
            if not isinstance(values, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in values.items()
            ):
                raise ProtocolViolation(
                    f"an offer needs 'values', an object issue -> value (strings); got {values!r}"
                )
            return cls(kind, values=dict(values))
        if kind in (Kind.ACCEPT, Kind.REJECT):
            offer = data.get("offer")
            if not isinstance(offer, int) or isinstance(offer, bool):
                raise ProtocolViolation(
                    f"{kind.value} needs 'offer', an offer number; got {offer!r}"
                )
            return cls(kind, offer=offer)
        if kind in (Kind.COMMENT, Kind.THREAT):
            index = data.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                raise ProtocolViolation(f"{kind.value} needs 'index', a number; got {index!r}")
            return cls(kind, index=index)
        return cls(kind)


@dataclass
class Offer:
    """An offer on record: its number, proposer, values, turn and the answer it got."""

    id: int
    party: int
    row: npt.NDArray[np.int64]
    values: dict[str, str]
    turn: int
    answer: Kind | None = None

    @property
    def is_open(self) -> bool:
        """Not yet accepted or rejected."""
        return self.answer is None


@dataclass(frozen=True)
class Event:
    """One submitted action, valid or not, with when it arrived and what it did."""

    seq: int
    turn: int
    elapsed: float
    party: int
    kind: str
    offer: int | None = None
    values: dict[str, str] | None = None
    index: int | None = None
    ok: bool = True
    error: str | None = None
    result: GeniusResult | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the result)."""
        return {
            "seq": self.seq,
            "turn": self.turn,
            "elapsed": self.elapsed,
            "party": self.party,
            "kind": self.kind,
            "offer": self.offer,
            "values": self.values,
            "index": self.index,
            "ok": self.ok,
            "error": self.error,
        }


@dataclass(frozen=True)
class GeniusResult:
    """How a session ended and what each side got."""

    reason: EndReason
    agreement: PartialOutcome
    full: bool
    turn: int
    ended_by: int | None
    utilities: tuple[float, float]
    types: tuple[int, int]
    invalid: tuple[int, int]
    events: tuple[Event, ...] = field(default=(), repr=False)

    @property
    def agreed_issues(self) -> int:
        """Issues with an agreed value."""
        return sum(v is not None for v in self.agreement)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the events)."""
        return {
            "reason": self.reason.value,
            "agreement": list(self.agreement),
            "full": self.full,
            "turn": self.turn,
            "ended_by": self.ended_by,
            "utilities": list(self.utilities),
            "types": list(self.types),
            "invalid": list(self.invalid),
        }


class GeniusSession:
    """One session's state machine; drive it with :meth:`start`, :meth:`submit`, :meth:`tick`."""

    def __init__(
        self,
        domain: Domain,
        types: tuple[int, int],
        rules: Rules | None = None,
        clock: Clock | None = None,
    ) -> None:
        for side, k in enumerate(types):
            if not 0 <= k < len(domain.types[side]):
                raise ConfigError(
                    f"type {k} of side {domain.sides[side]!r} does not exist; "
                    f"it has {len(domain.types[side])} types"
                )
        self.domain = domain
        self.types = (int(types[0]), int(types[1]))
        self.profiles = (domain.types[0][types[0]], domain.types[1][types[1]])
        self.rules = rules or Rules()
        self.clock: Clock = clock or time.monotonic
        self.phase = Phase.CREATED
        self.offers: list[Offer] = []
        self.events: list[Event] = []
        self.agreement_row = np.full(len(domain.issues), OPEN, dtype=np.int64)
        self.invalid = [0, 0]
        self.result: GeniusResult | None = None
        self._started = 0.0

    # -- state ---------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        """Seconds on the session's clock since the start."""
        return 0.0 if self.phase is Phase.CREATED else self.clock() - self._started

    @property
    def turn(self) -> int:
        """The current turn index, 0 .. turns (turns = the deadline has passed)."""
        return min(int(math.floor(self.elapsed / self.rules.turn_seconds)), self.rules.turns)

    @property
    def period(self) -> int:
        """The time period used in utilities for the current turn (``turn + first_turn``)."""
        return self.turn + self.rules.first_turn

    @property
    def agreement(self) -> dict[str, str | None]:
        """The running agreement, issue -> value (None = still open)."""
        return dict(
            zip(self.domain.issue_names, self.domain.values_of(self.agreement_row), strict=True)
        )

    def open_offers(self, party: int) -> list[Offer]:
        """The other side's offers that ``party`` has not answered yet."""
        return [o for o in self.offers if o.party != party and o.is_open]

    # -- driving -------------------------------------------------------------------------
    def start(self, at: float | None = None) -> None:
        """Start the clock (turn 0) now, or at clock time ``at`` (to resume a session)."""
        if self.phase is not Phase.CREATED:
            raise ProtocolViolation(f"the session was already started (phase {self.phase.value})")
        self.phase = Phase.RUNNING
        self._started = self.clock() if at is None else float(at)

    @property
    def started(self) -> float:
        """Clock time of the start."""
        return self._started

    def tick(self) -> GeniusResult | None:
        """End the session if the deadline has passed; returns the result once ended."""
        if self.phase is Phase.RUNNING and self.turn >= self.rules.turns:
            self._deadline()
        return self.result

    def submit(self, party: int, action: Any) -> Event:
        """Check and apply one action of ``party``; an invalid one is recorded, not applied."""
        self.tick()
        if party not in (0, 1):
            raise ProtocolViolation(f"party must be 0 or 1, got {party!r}")
        try:
            if not isinstance(action, Action):
                raise ProtocolViolation(
                    f"expected an Action, got {type(action).__name__}: {action!r}"
                )
            if self.phase is not Phase.RUNNING:
                why = "has not started" if self.phase is Phase.CREATED else "has ended"
                raise ProtocolViolation(f"the session {why}; no {action.kind.value} accepted")
            return self._apply(party, action)
        except (ProtocolViolation, InvalidScenario) as exc:
            self.invalid[party] += 1
            kind = action.kind.value if isinstance(action, Action) else "invalid"
            return self._record(party, kind, ok=False, error=str(exc))

    def apply_checked(self, party: int, action: Action) -> Event:
        """Apply ``action`` of ``party``, or raise :class:`ProtocolViolation` (or
        :class:`InvalidScenario`) and change nothing: the check of
        :class:`~accord.leagues.genius.rules.GeniusRules`, which refuses instead of recording."""
        self.tick()
        if party not in (0, 1):
            raise ProtocolViolation(f"party must be 0 or 1, got {party!r}")
        if self.phase is not Phase.RUNNING:
            why = "has not started" if self.phase is Phase.CREATED else "has ended"
            raise ProtocolViolation(f"the session {why}; no {action.kind.value} accepted")
        return self._apply(party, action)

    def problem(self, party: int, action: Action) -> str:
        """Why ``action`` of ``party`` cannot be played now ("" if it can), in the words
        :meth:`apply_checked` refuses it with; nothing changes.

        >>> from accord.leagues.genius.loading import load_domain
        >>> s = GeniusSession(load_domain("job_candidate"), (0, 0), Rules(), VirtualClock())
        >>> s.start(); s.problem(0, Action.accept(3))
        'no offer 3 to answer; open offers of the other side: none'
        """
        try:
            if self.phase is not Phase.RUNNING:
                why = "has not started" if self.phase is Phase.CREATED else "has ended"
                return f"the session {why}; no {action.kind.value} accepted"
            kind = action.kind
            if kind is Kind.OFFER:
                if not isinstance(action.values, Mapping) or not action.values:
                    names = list(self.domain.issue_names)
                    return f"an offer needs values for at least one issue of {names}"
                self.domain.row_of(action.values)
            elif kind in (Kind.ACCEPT, Kind.REJECT):
                self._answerable(party, action.offer)
            elif kind in (Kind.COMMENT, Kind.THREAT):
                n = len(COMMENTS if kind is Kind.COMMENT else THREATS)
                if action.index is None or not 0 <= action.index < n:
                    return f"{kind.value} index must be 0..{n - 1}, got {action.index!r}"
        except (ProtocolViolation, InvalidScenario) as exc:
            return str(exc)
        return ""

    def end_failed(self, party: int) -> GeniusResult:
        """End the session because ``party``'s agent failed: each side gets its status
        quo at the current period."""
        if self.result is not None:
            return self.result
        return self._finish(EndReason.FAILURE, party, self.period, implement=False)

    def record_invalid(self, party: int, kind: str, error: str) -> Event:
        """Record a failure of ``party`` (an invalid action) against it; nothing else changes."""
        self.invalid[party] += 1
        return self._record(party, kind, ok=False, error=error)

    # -- internals -----------------------------------------------------------------------
    def _record(self, party: int, kind: str, **fields: Any) -> Event:
        event = Event(len(self.events), self.turn, self.elapsed, party, kind, **fields)
        self.events.append(event)
        return event

    def _answerable(self, party: int, number: int | None) -> Offer:
        if number is None or not 0 <= number < len(self.offers):
            open_ = ", ".join(str(o.id) for o in self.open_offers(party)) or "none"
            raise ProtocolViolation(
                f"no offer {number} to answer; open offers of the other side: {open_}"
            )
        offer = self.offers[number]
        if offer.party == party:
            raise ProtocolViolation(f"offer {number} is your own; only the other side answers it")
        if not offer.is_open:
            assert offer.answer is not None
            raise ProtocolViolation(f"offer {number} was already answered ({offer.answer.value})")
        return offer

    def _apply(self, party: int, action: Action) -> Event:
        kind = action.kind
        if kind is Kind.OFFER:
            values = action.values
            if not isinstance(values, Mapping) or not values:
                raise ProtocolViolation(
                    f"an offer needs values for at least one issue of {list(self.domain.issue_names)}"
                    f"; got {values!r}"
                )
            row = self.domain.row_of(values)
            offer = Offer(len(self.offers), party, row, dict(values), self.turn)
            self.offers.append(offer)
            return self._record(party, kind.value, offer=offer.id, values=offer.values)
        if kind in (Kind.ACCEPT, Kind.REJECT):
            offer = self._answerable(party, action.offer)
            offer.answer = kind
            if kind is Kind.ACCEPT:
                agreed = offer.row >= 0
                self.agreement_row[agreed] = offer.row[agreed]
            event = self._record(party, kind.value, offer=offer.id)
            if kind is Kind.ACCEPT and bool((self.agreement_row >= 0).all()):
                return self._end_with(event, EndReason.AGREEMENT, None)
            return event
        if kind is Kind.OPT_OUT:
            event = self._record(party, kind.value)
            return self._end_with(event, EndReason.OPT_OUT, party)
        texts = COMMENTS if kind is Kind.COMMENT else THREATS
        if action.index is None or not 0 <= action.index < len(texts):
            raise ProtocolViolation(
                f"{kind.value} index must be 0..{len(texts) - 1}, got {action.index!r}"
            )
        return self._record(party, kind.value, index=action.index)

    def _end_with(self, event: Event, reason: EndReason, by: int | None) -> Event:
        result = self._finish(reason, by, self.period)
        final = Event(**{**event.__dict__, "result": result})
        self.events[-1] = final
        return final

    def _deadline(self) -> None:
        dl = self.rules.turns
        agreed = bool((self.agreement_row >= 0).any())
        if self.rules.deadline_rule == "code":
            self.agreement_row[:] = OPEN
            agreed = False
        self._finish(EndReason.DEADLINE, None, dl, implement=agreed)

    def _finish(
        self, reason: EndReason, by: int | None, t: int, implement: bool = True
    ) -> GeniusResult:
        self.phase = Phase.ENDED
        mode = self.rules.open_issues
        if reason is EndReason.OPT_OUT:
            utils = tuple(p.opt_out_at(t) for p in self.profiles)
        elif not implement:
            utils = tuple(p.status_quo_at(t) for p in self.profiles)
        else:
            utils = tuple(
                p.score(self.agreement_row, mode) + t * p.time_effect for p in self.profiles
            )
        self.result = GeniusResult(
            reason=reason,
            agreement=self.domain.values_of(self.agreement_row),
            full=bool((self.agreement_row >= 0).all()),
            turn=t,
            ended_by=by,
            utilities=(float(utils[0]), float(utils[1])),
            types=self.types,
            invalid=(self.invalid[0], self.invalid[1]),
            events=tuple(self.events),
        )
        return self.result
