"""What the offer protocols share: their setup, their state, their actions on the wire.

AOP/SAOP, the simultaneous-start variant and the ultimatum game are :class:`OfferRules`:
parties offer outcomes of one space, accept, reject or end. An action as the rules take
it is what a negotiator returns, with no wrapper: an outcome tuple (an offer; in AOP an
offer by the party that is asked to respond also rejects the standing one),
``Response.ACCEPT``, ``Response.REJECT`` (the ultimatum game) or ``Response.END``.
On the wire an action is ``{"kind": "offer", "args": {issue: value}}``, ``{"kind":
"accept", "args": {}}`` and so on.

The state (:class:`OfferState`) is one mutable object the rules change in place; its
trace (a :class:`~accord.core.protocols.tracelog.TraceLog`) is the play's event log,
and the events :meth:`OfferRules.apply` returns are a lazy view of the entries it
added. :class:`NegotiatorSeat` is how a :class:`~accord.core.negotiator.Negotiator`
(``propose``/``respond``) takes a seat at these rules in the agent driver.
"""

from __future__ import annotations

import secrets
import time as _time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from accord.core.errors import ConfigError, InvalidOutcome, InvalidScenario
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import (
    CategoricalIssue,
    IntegerIssue,
    Outcome,
    OutcomeSpace,
)
from accord.core.protocols.base import ProtocolInfo
from accord.core.protocols.driver import AgentDriver, SlowCall
from accord.core.protocols.machine import unique_names
from accord.core.protocols.result import (
    INVALID_OFFER,
    Action,
    EndReason,
    Failure,
    FailureKind,
    SessionResult,
)
from accord.core.protocols.rules import (
    ActionSpec,
    Event,
    IllegalAction,
    Legal,
    Rules,
)
from accord.core.protocols.setup import NegotiationSetup, offer_spec, outcome_json, plain
from accord.core.protocols.tracelog import TraceLog
from accord.core.time import Deadline
from accord.core.utilities import LinearAdditiveUtility, UtilityFunction

__all__ = [
    "ACCEPT_SPEC",
    "END_SPEC",
    "REJECT_SPEC",
    "NegotiationSetup",
    "NegotiatorSeat",
    "OfferAction",
    "OfferRules",
    "OfferSession",
    "OfferState",
    "TraceEvents",
    "bad_answer",
    "check_negotiation",
    "negotiation_views",
    "nothing",
    "offer_spec",
    "proposal_specs",
    "response_specs",
    "summary",
]

OfferAction = Outcome | Response
"""An action of the offer protocols: an outcome tuple, or ACCEPT, REJECT or END."""

ACCEPT_SPEC = ActionSpec("accept", label="Accept the offer")
REJECT_SPEC = ActionSpec("reject", label="Reject the offer")
END_SPEC = ActionSpec("end", label="End the negotiation")
_RESPONSES = {"accept": Response.ACCEPT, "reject": Response.REJECT, "end": Response.END}
_KINDS = {Response.ACCEPT: "accept", Response.REJECT: "reject", Response.END: "end"}


_SINGLES = tuple((k,) for k in range(32))


class OfferState:
    """The state of one play of an offer protocol (mutable; the rules change it)."""

    __slots__ = (
        "setup",
        "seed",
        "n",
        "total",
        "seconds",
        "turn",
        "standing",
        "proposer",
        "accepts",
        "steps",
        "t",
        "offers",
        "trace",
        "proposals",
        "over",
        "reason",
        "ended_by",
        "agreement",
        "end_t",
        "elapsed",
        "failure",
        "singles",
        "_spec",
        "_result",
        "events",
        "__weakref__",
    )

    def __init__(self, setup: NegotiationSetup, seed: int) -> None:
        n = len(setup.names)
        rounds, seconds = setup.deadline.rounds, setup.deadline.seconds
        self.setup = setup
        self.seed = seed
        self.n = n
        self.total: int | None = rounds * n if rounds is not None else None
        self.seconds: float | None = seconds
        self.turn = setup.first
        self.standing: Outcome | None = None
        self.proposer = -1
        self.accepts = 0
        self.steps = 0
        self.t = 0.0
        self.offers = OfferLog()
        self.trace = TraceLog()
        self.proposals: list[Outcome] | None = None
        self.over = False
        self.reason: EndReason | None = None
        self.ended_by: int | None = None
        self.agreement: Outcome | None = None
        self.end_t = 0.0
        self.elapsed = 0.0
        self.failure: Failure | None = None
        self.singles = _SINGLES if n <= len(_SINGLES) else tuple((k,) for k in range(n))
        self._spec: ActionSpec | None = None
        self._result: SessionResult | None = None
        self.events = TraceEvents(self)

    def emit(self, lo: int, ended: bool) -> tuple[OfferState, TraceEvents]:
        """``(self, events)`` for a call that began at step ``lo``."""
        events = self.events
        events.lo = lo
        events.hi = self.steps
        events.ended = ended
        return self, events

    @property
    def offer_spec(self) -> ActionSpec:
        """The typed description of an offer on this play's space (built on first use)."""
        spec = self._spec
        if spec is None:
            spec = self._spec = offer_spec(self.setup.space)
        return spec


class TraceEvents(Sequence[Event]):
    """The events of the latest call of the rules on one state: its trace entries of
    steps ``lo`` to ``hi - 1`` and, if the play ended in that call, ``failure`` and
    ``over`` events.

    Built only when read, and a *live* view: each state has one, which the next call
    of the rules on that state moves on (so the hot loop allocates nothing). Copy it
    (``list(events)``) to keep it.
    """

    __slots__ = ("_state", "lo", "hi", "ended")

    def __init__(self, state: OfferState) -> None:
        self._state = weakref.ref(state)  # no cycle: a finished play is freed at once
        self.lo = self.hi = 0
        self.ended = False

    def _all(self) -> list[Event]:
        s = self._state()
        if s is None:
            raise ReferenceError("the play these events belong to is gone")
        lo, hi, trace = self.lo, self.hi, s.trace
        i = len(trace)
        while i > 0 and trace[i - 1].step >= lo:
            i -= 1
        out = [
            Event(
                e.action.value,
                e.party,
                {"step": e.step, "outcome": outcome_json(e.outcome), "time": e.time},
            )
            for e in trace[i:]
            if e.step < hi
        ]
        if self.ended:
            f = s.failure
            if f is not None:
                out.append(Event("failure", f.party, {"kind": f.kind.value, "message": f.message}))
            out.append(Event("over", s.ended_by, summary(s)))
        return out

    @overload
    def __getitem__(self, i: int) -> Event: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Event]: ...
    def __getitem__(self, i: int | slice) -> Event | Sequence[Event]:
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())

    def __repr__(self) -> str:
        return f"TraceEvents({self._all()!r})"


def summary(state: OfferState) -> dict[str, Any]:
    """How the play ended, as JSON-ready data (None fields while it runs)."""
    return {
        "reason": None if state.reason is None else state.reason.value,
        "ended_by": state.ended_by,
        "agreement": outcome_json(state.agreement),
        "time": state.end_t,
    }


class OfferRules(Rules[NegotiationSetup, OfferState, OfferAction]):
    """What every offer protocol shares: time, ending, failure, results, JSON forms.

    A protocol subclasses it and writes :meth:`to_act`, :meth:`legal` and
    :meth:`apply`. ``counter_offers`` says what a responder's REJECT means to an
    in-process negotiator: True (AOP), reject by making a counter-offer (its
    ``propose`` is asked next); False (the ultimatum game), REJECT is the action.
    ``counts_rounds``: whether views see ``step // n`` as the round (else 0).
    """

    counter_offers = True
    counts_rounds = True
    panels = ("clock", "standing", "offers")

    def initial(self, setup: NegotiationSetup, seed: int) -> OfferState:
        """A new play on ``setup``."""
        return OfferState(setup, seed)

    def example(self) -> NegotiationSetup:
        """Two parties, a 3x3 space of opposed linear utilities, 6 rounds."""
        space = OutcomeSpace(
            [CategoricalIssue("food", ["pizza", "sushi", "tacos"]), IntegerIssue("price", 1, 3)]
        )
        food = [
            {"pizza": 1.0, "sushi": 0.5, "tacos": 0.0},
            {"pizza": 0.0, "sushi": 0.5, "tacos": 1.0},
        ]
        price = [{1: 0.0, 2: 0.5, 3: 1.0}, {1: 1.0, 2: 0.5, 3: 0.0}]
        utilities = tuple(
            LinearAdditiveUtility(space, [0.6, 0.4], [food[k], price[k]], reservation=0.2)
            for k in range(2)
        )
        return NegotiationSetup(space, utilities, Deadline(rounds=6), ("seller", "buyer"))

    # -- time and ending -------------------------------------------------------------------
    def time(self, state: OfferState, now: float) -> float:
        """Normalised time at ``now`` seconds: the larger of the rounds and seconds
        fractions (not capped; 1 or more is past the deadline)."""
        total = state.total
        t = state.steps / total if total is not None else 0.0
        seconds = state.seconds
        if seconds is not None:
            t = max(t, now / seconds)
        return t

    def tick(self, state: OfferState, now: float) -> tuple[OfferState, Sequence[Event]]:
        """Time passes: note the time of this step; past the deadline the play ends."""
        if state.over:
            return state, ()
        total = state.total
        t = state.steps / total if total is not None else 0.0
        seconds = state.seconds
        if seconds is not None and now / seconds > t:
            t = now / seconds
        state.t = t
        if t >= 1.0:
            self.end(state, EndReason.DEADLINE, None, None, 1.0, now)
            return state.emit(state.steps, True)
        return state, ()

    def end(
        self,
        state: OfferState,
        reason: EndReason,
        ended_by: int | None,
        agreement: Outcome | None,
        t: float,
        now: float,
        failure: Failure | None = None,
    ) -> None:
        """End the play (the result is built when first asked for)."""
        state.over = True
        state.reason = reason
        state.ended_by = ended_by
        state.agreement = agreement
        state.end_t = t
        state.elapsed = now
        state.failure = failure

    def fail(
        self, state: OfferState, party: int, failure: Failure, now: float
    ) -> tuple[OfferState, Sequence[Event]]:
        """A failing agent ends the play, the failure recorded against it, at the time of
        the step it failed in."""
        if state.over:
            return state, ()
        self.end(state, EndReason.FAILURE, party, None, state.t, now, failure)
        return state.emit(state.steps, True)

    def to_act(self, state: OfferState) -> tuple[int, ...]:
        """The party whose turn it is; () once over."""
        if state.over:
            return ()
        return state.singles[state.turn]

    def _check_turn(self, state: OfferState, party: int, action: Any) -> None:
        if state.over:
            raise IllegalAction(party, action, "the negotiation is over")
        if party not in self.to_act(state):
            raise IllegalAction(party, action, f"it is party {self.to_act(state)}'s turn")

    def _invalid_offer(self, state: OfferState, party: int, action: Any) -> IllegalAction:
        try:
            state.setup.space.validate(action)
        except InvalidOutcome as exc:
            return IllegalAction(party, action, f"{INVALID_OFFER}: {exc}")
        return IllegalAction(party, action, f"{INVALID_OFFER}: an offer is an outcome tuple")

    # -- what a party sees ---------------------------------------------------------------
    def observe(self, state: OfferState, party: int | None) -> dict[str, Any]:
        """Where the play is, every offer made so far, and (for a party) its own
        utility of each; the result once over."""
        setup = state.setup
        u = setup.utilities[party] if party is not None else None
        space = setup.space

        def mine(o: Outcome | None) -> float | None:
            return None if u is None or o is None else float(u(o))

        try:
            profile = None if u is None else u.to_dict()
        except InvalidScenario:  # a utility given as code: the party sees its values only
            profile = None

        return {
            "protocol": self.info.id,
            "party": party,
            "names": list(setup.names),
            "issues": [i.to_dict() for i in space.issues],
            "to_act": list(self.to_act(state)),
            "step": state.steps,
            "round": state.steps // state.n if self.counts_rounds else 0,
            "time": min(state.t, 1.0),
            "deadline": {"rounds": setup.deadline.rounds, "seconds": setup.deadline.seconds},
            "standing": None if state.standing is None else _offer_dict(space, state.standing),
            "proposer": state.proposer,
            "my_utility_of_standing": mine(state.standing),
            "reservation": None if u is None else float(u.reservation),
            "utility": profile,
            "offers": [
                {"party": k, "outcome": _offer_dict(space, o), "my_utility": mine(o)}
                for k, o in state.offers
            ],
            "over": state.over,
            "result": None if (r := self.result(state)) is None else r.to_dict(),
        }

    def result(self, state: OfferState) -> SessionResult | None:
        """The typed result once over (utilities discounted at the end time)."""
        if not state.over:
            return None
        r = state._result
        if r is None:
            setup, t, agreement = state.setup, state.end_t, state.agreement
            if agreement is not None:
                utilities = tuple([u.at(agreement, t) for u in setup.utilities])
            else:
                utilities = tuple([u.reservation_at(t) for u in setup.utilities])
            r = state._result = SessionResult.trusted(
                agreement,
                state.reason or EndReason.FAILURE,
                state.ended_by,
                t,
                state.steps,
                -(-state.steps // state.n),
                state.elapsed,
                utilities,
                setup.names,
                state.failure,
                state.trace,
            )
        return r

    # -- JSON ------------------------------------------------------------------------------
    def serialize(self, state: OfferState) -> dict[str, Any]:
        """Everything in the state, as JSON-ready data (the setup included)."""
        f = state.failure
        return {
            "protocol": self.info.id,
            "setup": state.setup.to_json(),
            "seed": state.seed,
            "turn": state.turn,
            "standing": outcome_json(state.standing),
            "proposer": state.proposer,
            "accepts": state.accepts,
            "steps": state.steps,
            "t": state.t,
            "offers": [[k, outcome_json(o)] for k, o in state.offers],
            "trace": [
                [e.step, e.party, e.action.value, outcome_json(e.outcome), e.time]
                for e in state.trace
            ],
            "proposals": None
            if state.proposals is None
            else [outcome_json(o) for o in state.proposals],
            "over": state.over,
            **summary(state),
            "elapsed": state.elapsed,
            "failure": None
            if f is None
            else {
                "party": f.party,
                "name": f.name,
                "kind": f.kind.value,
                "message": f.message,
                "traceback": f.traceback,
            },
        }

    def restore(self, data: Mapping[str, Any]) -> OfferState:
        """The state :meth:`serialize` wrote."""
        if data.get("protocol") != self.info.id:
            raise ConfigError(
                f"this is a state of {data.get('protocol')!r}, not of {self.info.id!r}"
            )
        s = OfferState(NegotiationSetup.from_json(data["setup"]), int(data["seed"]))
        s.turn = data["turn"]
        s.standing = _tuple(data["standing"])
        s.proposer = data["proposer"]
        s.accepts = data["accepts"]
        s.steps = data["steps"]
        s.t = data["t"]
        for k, o in data["offers"]:
            s.offers._append(k, tuple(o))
        for step, party, action, o, t in data["trace"]:
            s.trace.add(step, party, Action(action), _tuple(o), t)
        props = data["proposals"]
        s.proposals = None if props is None else [tuple(o) for o in props]
        s.over = data["over"]
        s.reason = None if data["reason"] is None else EndReason(data["reason"])
        s.ended_by = data["ended_by"]
        s.agreement = _tuple(data["agreement"])
        s.end_t = data["time"]
        s.elapsed = data["elapsed"]
        f = data["failure"]
        s.failure = (
            None
            if f is None
            else Failure(
                f["party"], f["name"], FailureKind(f["kind"]), f["message"], f["traceback"]
            )
        )
        return s

    def action_to_json(self, state: OfferState, action: OfferAction) -> dict[str, Any]:
        """``{"kind": "offer", "args": {issue: value}}`` or a response kind."""
        if type(action) is tuple:
            return {"kind": "offer", "args": _offer_dict(state.setup.space, action)}
        kind = _KINDS.get(action) if isinstance(action, Response) else None
        if kind is None:
            raise ConfigError(f"not an action of {self.info.id!r}: {action!r}")
        return {"kind": kind, "args": {}}

    def action_from_json(self, state: OfferState, party: int, data: Any) -> OfferAction:
        """The action a wire form stands for, checked against :meth:`legal`."""
        self.legal(state, party).require(party, data)
        if data["kind"] == "offer":
            args = data["args"]
            return tuple(args[name] for name in state.setup.space.names)
        return _RESPONSES[data["kind"]]


def _offer_dict(space: OutcomeSpace, outcome: Outcome) -> dict[str, Any]:
    return {name: plain(v) for name, v in zip(space.names, outcome, strict=True)}


def _tuple(o: Sequence[Any] | None) -> Outcome | None:
    return None if o is None else tuple(o)


class NegotiatorSeat:
    """A :class:`Negotiator` at a table of :class:`OfferRules`, in this process.

    It updates the negotiator's view, calls ``propose``/``respond`` (each call timed
    against ``time_limit``: a slower answer raises :class:`SlowCall`) and turns the
    answer into an action of the rules: ``propose() -> None`` is END, an offer in any
    documented form becomes an outcome tuple, and REJECT asks ``propose`` for the
    counter-offer where the rules want one. An answer that is no action raises
    :class:`IllegalAction`.
    """

    __slots__ = ("negotiator", "view", "name", "_space", "_limit", "_counter", "_rounds")

    def __init__(
        self,
        negotiator: Negotiator,
        view: NegotiatorView,
        rules: OfferRules,
        space: OutcomeSpace,
        time_limit: float | None = None,
    ) -> None:
        self.negotiator = negotiator
        self.view = view
        self.name = negotiator.name
        self._space = space
        self._limit = time_limit
        self._counter = rules.counter_offers
        self._rounds = rules.counts_rounds

    def start(self, state: OfferState) -> None:
        """Call ``on_start`` (untimed: start-up is precomputation, not a response)."""
        self.negotiator.on_start(self.view)

    def _propose(self, party: int, view: NegotiatorView) -> OfferAction:
        limit = self._limit
        if limit is None:
            offer = self.negotiator.propose(view)
        else:
            start = _time.perf_counter()
            offer = self.negotiator.propose(view)
            took = _time.perf_counter() - start
            if took > limit:
                raise SlowCall(f"propose took {took:.3f} s; the limit is {limit:.3f} s")
        if type(offer) is tuple:
            return offer
        return self._convert(party, offer)

    def _convert(self, party: int, offer: Any) -> OfferAction:
        """An offer in another documented form as a tuple; None is END."""
        if offer is None:
            return Response.END
        try:
            return self._space.validate(offer)
        except Exception as exc:  # noqa: BLE001 - InvalidOutcome, or garbage that breaks checks
            raise IllegalAction(party, offer, f"{INVALID_OFFER}: {exc}") from exc

    def act(self, state: OfferState, party: int) -> OfferAction:
        """The negotiator's action now."""
        view = self.view
        steps = state.steps
        view.update(
            state.t,
            steps,
            steps // state.n if self._rounds else 0,
            state.standing,
            state.proposer,
        )
        standing = state.standing
        if standing is None or state.proposals is not None:
            return self._propose(party, view)
        limit = self._limit
        if limit is None:
            answer = self.negotiator.respond(view, standing)
        else:
            start = _time.perf_counter()
            answer = self.negotiator.respond(view, standing)
            took = _time.perf_counter() - start
            if took > limit:
                raise SlowCall(f"respond took {took:.3f} s; the limit is {limit:.3f} s")
        if answer is Response.REJECT:
            if not self._counter:
                return answer
            if limit is None:  # the hot path: a counter-offer, untimed
                offer = self.negotiator.propose(view)
                return offer if type(offer) is tuple else self._convert(party, offer)
            return self._propose(party, view)
        if answer is Response.ACCEPT or answer is Response.END:
            return answer
        raise bad_answer(party, answer)

    def end(self, result: Any) -> None:
        """Call ``on_end`` with the result."""
        self.negotiator.on_end(self.view, result)


def bad_answer(party: int, answer: Any) -> IllegalAction:
    """What a ``respond`` that returned no :class:`Response` raises."""
    return IllegalAction(
        party,
        answer,
        f"respond() must return a Response (ACCEPT, REJECT or END); got {answer!r}",
    )


def response_specs(state: OfferState, reject: bool) -> tuple[ActionSpec, ...]:
    """Accept, then reject (the ultimatum game) or a counter-offer (AOP), then end."""
    if reject:
        return (ACCEPT_SPEC, REJECT_SPEC, END_SPEC)
    counter = state.offer_spec
    counter = ActionSpec(counter.kind, counter.fields, "Reject and counter-offer")
    return (ACCEPT_SPEC, counter, END_SPEC)


def proposal_specs(state: OfferState) -> tuple[ActionSpec, ...]:
    """An offer, or end."""
    return (state.offer_spec, END_SPEC)


def nothing(party: int) -> Legal:
    """No action allowed (not the party's turn, or over)."""
    return Legal(party, ())


def check_negotiation(
    info: ProtocolInfo,
    space: OutcomeSpace,
    negotiators: Sequence[Negotiator],
    utilities: Sequence[UtilityFunction],
    seed: int | None,
) -> tuple[int, tuple[str, ...]]:
    """Check the parties of an offer protocol; their seed and unique names."""
    n = len(negotiators)
    if n < 2:
        raise ConfigError(f"a negotiation needs at least 2 negotiators, got {n}")
    info.check_parties(n)
    if len(utilities) != n:
        raise ConfigError(f"expected {n} utilities (one per negotiator), got {len(utilities)}")
    for k, u in enumerate(utilities):
        if u.space is not space and u.space != space:
            raise ConfigError(f"utility {k} is defined on {u.space!r}, not on {space!r}")
    info.check_negotiators(negotiators)
    given = [neg.name for neg in negotiators]
    names = tuple(given) if len(set(given)) == n else unique_names(given)
    return (int(seed) if seed is not None else secrets.randbits(63)), names


def negotiation_views(
    state: OfferState, memories: Sequence[Any] | None = None
) -> tuple[NegotiatorView, ...]:
    """One read-only view per party of ``state`` (its offers log shared with the play);
    party ``k`` draws from ``(seed, k)``."""
    setup = state.setup
    names, offers, seed = setup.names, state.offers, state.seed
    mem = list(memories) if memories is not None else [None] * len(names)
    return tuple(
        [
            NegotiatorView(u, k, names, offers, (seed, k), mem[k], setup.deadline)
            for k, u in enumerate(setup.utilities)
        ]
    )


class OfferSession(AgentDriver):
    """The agent driver running offer ``rules`` with in-process negotiators: what
    :class:`~accord.core.protocols.alternating.Session` and
    :class:`~accord.core.protocols.ultimatum.Ultimatum` share.

    Args:
        rules: the offer protocol's rules.
        space: the outcome space.
        negotiators: the parties, in turn order.
        utilities: one utility per party (same order); each sees only its own.
        deadline: rounds and/or seconds.
        seed: seeds the per-negotiator generators (``(seed, index)``) and the rules'
            draws; None draws a fresh seed.
        time_limit: seconds a single ``propose``/``respond`` call may take (None: none).
        first: index of the party that acts first.
        memories: optional per-party data the tournament lets each negotiator read.
    """

    def __init__(
        self,
        rules: OfferRules,
        space: OutcomeSpace,
        negotiators: Sequence[Negotiator],
        utilities: Sequence[UtilityFunction],
        deadline: Deadline,
        seed: int | None = 0,
        time_limit: float | None = None,
        first: int = 0,
        memories: Sequence[Any] | None = None,
    ) -> None:
        seed_, names = check_negotiation(rules.info, space, negotiators, utilities, seed)
        n = len(negotiators)
        if not 0 <= first < n:
            raise ConfigError(f"first must be a party index in 0..{n - 1}, got {first}")
        setup = NegotiationSetup.trusted(space, tuple(utilities), deadline, names, first)
        super().__init__(rules, setup, (), names, seed_)
        views = negotiation_views(self.state, memories)
        self.seats = tuple(
            [
                NegotiatorSeat(neg, views[k], rules, space, time_limit)
                for k, neg in enumerate(negotiators)
            ]
        )
        self.space = space
        self.negotiators = tuple(negotiators)
        self.utilities = tuple(utilities)
        self.deadline = deadline
        self.time_limit = time_limit
        self.views = views

    @classmethod
    def factory(cls, rules: OfferRules) -> Any:
        """A session factory for :func:`~accord.core.protocols.registry.register_protocol`
        (and ``make_session``) playing ``rules`` with negotiators; it carries ``info``."""

        def make(
            space: OutcomeSpace,
            negotiators: Sequence[Negotiator],
            utilities: Sequence[UtilityFunction],
            deadline: Deadline,
            **kwargs: Any,
        ) -> OfferSession:
            return cls(rules, space, negotiators, utilities, deadline, **kwargs)

        make.info = rules.info  # type: ignore[attr-defined]
        return make

    @property
    def steps(self) -> int:
        """Actions taken so far."""
        return int(self.state.steps)

    @property
    def result(self) -> SessionResult | None:
        """The result once the session has ended."""
        return self._result  # type: ignore[no-any-return]

    @property
    def standing_offer(self) -> Outcome | None:
        """The offer on the table."""
        return self.state.standing  # type: ignore[no-any-return]

    def run(self) -> SessionResult:
        """Step until the session ends and return its result."""
        step = self.step
        while self._result is None:
            step()
        return self._result  # type: ignore[no-any-return]
