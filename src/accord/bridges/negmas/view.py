"""The NegMAS side of one negotiator's view: its mechanism interface and state.

A NegMAS negotiator reads its session through ``self.nmi`` (a ``SAONMI`` whose queries go
to a mechanism object) and the ``SAOState`` it is called with. :class:`ViewMechanism`
stands in for that mechanism and is built from the Accord
:class:`~accord.core.negotiator.NegotiatorView` alone: the outcome space, the party
names, the offers the negotiator may see, its own utility, its own seeded generator.
It holds no session, no other negotiator and no other party's utility, so nothing of
another party can be reached through it; asking for what it cannot know (say the trace
with every party's utilities) raises :class:`~accord.core.errors.ProtocolViolation`.

The time base (see ``docs/negmas-bridge.md``):

* ``"negmas"`` (default): ``relative_time`` is NegMAS's ``(step + 1) / (n_steps + 1)``,
  where a step is a round, so a NegMAS agent concedes exactly as in NegMAS's own
  mechanism (with a deadline in seconds only, it is Accord's ``t``, which is then NegMAS's
  ``time / time_limit`` too);
* ``"accord"``: ``relative_time`` is Accord's normalised time ``t`` (the time Accord's
  discounting and deadline use).

In both, ``state.step`` is the round, ``nmi.n_steps`` the deadline in rounds (from the
view's :attr:`~accord.core.negotiator.NegotiatorView.deadline`, or given; inferred after
the first action when neither says), ``nmi.time_limit`` the deadline in seconds, and
``state.time`` the seconds since the session started.
"""

from __future__ import annotations

import copy
import math
import time as _time
from typing import Any

from accord.core.errors import ConfigError, ProtocolViolation
from accord.core.negotiator import NegotiatorView
from accord.core.outcomes import Outcome

TIME_BASES = ("accord", "negmas")


class ViewMechanism:
    """What a NegMAS interface may ask of its mechanism, answered from one Accord view."""

    def __init__(self, view: NegotiatorView, os: Any, own_id: str, session_id: str) -> None:
        from negmas.sao import SAOState

        self._view = view
        self.outcome_space = os
        self.id = session_id
        ids = list(view.names)
        ids[view.index] = own_id
        self.negotiator_ids = ids
        self._index = {nid: k for k, nid in enumerate(ids)}
        self.state: Any = SAOState(running=True, started=True, n_negotiators=len(ids))
        self.history: list[Any] = []
        self.params: dict[str, Any] = {}
        self.requirements: dict[str, Any] = {}
        self.atomic_steps = False
        self.agent_ids: list[str | None] = [None] * len(ids)
        self.agent_names: list[str | None] = [None] * len(ids)

    # -- parties -------------------------------------------------------------------------
    @property
    def genius_negotiator_ids(self) -> list[str]:
        return list(self.negotiator_ids)

    def genius_id(self, nid: str | None) -> str | None:
        return nid

    def negotiator_index(self, nid: str) -> int | None:
        return self._index.get(nid)

    @property
    def participants(self) -> list[Any]:
        from negmas.common import NegotiatorDescriptor

        return [NegotiatorDescriptor(name=n, id=n, type="") for n in self.negotiator_ids]

    # -- offers --------------------------------------------------------------------------
    @property
    def extended_trace(self) -> list[tuple[int, str, Outcome]]:
        """``(round, proposer id, offer)`` of every offer so far (rounds counted as NegMAS)."""
        ids = self.negotiator_ids
        out = []
        rnd = 0
        last = -1
        for j, offer in self._view.offers:
            if j <= last:  # the turn order wrapped: a new round
                rnd += 1
            last = j
            out.append((rnd, ids[j], offer))
        return out

    @property
    def trace(self) -> list[tuple[str, Outcome]]:
        return [(self.negotiator_ids[j], o) for j, o in self._view.offers]

    @property
    def offers(self) -> list[Outcome]:
        return [o for _, o in self._view.offers]

    def negotiator_offers(self, negotiator_id: str) -> list[Outcome]:
        k = self._index.get(negotiator_id)
        return [o for j, o in self._view.offers if j == k]

    @property
    def full_trace(self) -> list[Any]:
        raise ProtocolViolation(
            "full_trace is not available through the Accord bridge; use nmi.trace or "
            "nmi.extended_trace (offers only)"
        )

    @property
    def full_trace_with_utils(self) -> list[Any]:
        raise ProtocolViolation(
            "the trace with every party's utilities is not available: in Accord a "
            "negotiator sees only its own utility"
        )

    def full_trace_with_utils_df(self, ufun_names: Any = "id") -> Any:
        return self.full_trace_with_utils

    def negotiator_full_trace(self, negotiator_id: str) -> list[Any]:
        return self.full_trace

    # -- outcomes ------------------------------------------------------------------------
    def random_outcome(self) -> Outcome:
        return self.random_outcomes(1)[0]

    def random_outcomes(self, n: int = 1) -> list[Outcome]:
        return self._view.space.sample(n, self._view.rng)

    def discrete_outcome_space(self, levels: int = 5, max_cardinality: int = 10_000_000_000) -> Any:
        return self.outcome_space.to_discrete(levels=levels, max_cardinality=max_cardinality)

    def discrete_outcomes(self, max_cardinality: int | float = float("inf")) -> list[Outcome]:
        os = self.outcome_space
        if os.is_discrete() and os.cardinality <= max_cardinality:
            return list(os.enumerate())
        return list(
            os.sample(int(max_cardinality), with_replacement=False, fail_if_not_enough=False)
        )

    def log(self, nid: str, level: str = "info", data: Any = None) -> None:
        """NegMAS negotiators may log; the bridge drops the messages."""


class NegmasSide:
    """The NMI and the states one NegMAS negotiator sees, kept in step with its Accord view.

    Args:
        view: the negotiator's Accord view.
        os: the NegMAS outcome space of ``view.space``.
        own_id: the NegMAS negotiator's id.
        time_base: ``"negmas"`` or ``"accord"`` (see the module docstring).
        rounds: the deadline in rounds (default: the view's deadline; else inferred).
    """

    def __init__(
        self,
        view: NegotiatorView,
        os: Any,
        own_id: str,
        time_base: str = "negmas",
        rounds: int | None = None,
    ) -> None:
        from negmas.sao import SAONMI

        if time_base not in TIME_BASES:
            raise ConfigError(f"time_base must be one of {TIME_BASES}, got {time_base!r}")
        self.view = view
        self.time_base = time_base
        deadline = view.deadline
        if rounds is None and deadline is not None:
            rounds = deadline.rounds
        self.rounds = rounds
        self.seconds = deadline.seconds if deadline is not None else None
        # a view built without its deadline: infer the rounds after the first action
        self._infer = rounds is None and deadline is None
        self.mechanism = ViewMechanism(view, os, own_id, f"accord-{id(view):x}")
        inf = float("inf")
        self.nmi = SAONMI(
            id=self.mechanism.id,
            n_outcomes=os.cardinality,
            outcome_space=os,
            shared_time_limit=self.seconds if self.seconds is not None else inf,
            shared_n_steps=rounds,
            private_time_limit=inf,
            private_n_steps=None,
            pend=0.0,
            pend_per_second=0.0,
            step_time_limit=inf,
            negotiator_time_limit=inf,
            dynamic_entry=False,
            max_n_negotiators=len(view.names),
            _mechanism=self.mechanism,
        )
        self._started = _time.perf_counter()
        self._seen = 0  # offers already in the log at this negotiator's previous call

    @property
    def state(self) -> Any:
        """The current NegMAS state."""
        return self.mechanism.state

    def relative_time(self) -> float:
        """NegMAS's ``relative_time`` for the view's current moment (on this time base)."""
        if self.time_base == "accord":
            return self.view.time
        return self.negmas_time()

    def negmas_time(self) -> float:
        """NegMAS's relative time: ``(round + 1) / (rounds + 1)``, or the share of the
        time limit when that is larger; Accord's ``t`` when no rounds are known."""
        view = self.view
        rounds = self._known_rounds()
        if rounds is None:
            return view.time
        t = (view.round + 1) / (rounds + 1)
        if self.seconds is not None:
            t = max(t, (_time.perf_counter() - self._started) / self.seconds)
        return min(1.0, t)

    def _known_rounds(self) -> int | None:
        if self._infer:
            view = self.view
            if view.step > 0 and view.time > 0:
                self._infer = False
                self.rounds = max(1, round(view.step / (view.time * view.n_parties)))
                object.__setattr__(self.nmi, "shared_n_steps", self.rounds)
                object.__setattr__(self.nmi, "n_steps", self.rounds)
        return self.rounds

    def update(self, offer: Outcome | None) -> Any:
        """Move the state to the view's current moment, ``offer`` being the one on the table."""
        view = self.view
        state = copy.copy(self.mechanism.state)
        state.step = view.round
        state.relative_time = self.relative_time()
        state.time = _time.perf_counter() - self._started
        ids = self.mechanism.negotiator_ids
        me = view.index
        n = view.n_parties
        if offer is None:
            state.current_offer = None
            state.current_proposer = None
            state.n_acceptances = 0
        else:
            p = view.standing_proposer
            state.current_offer = offer
            state.current_proposer = ids[p] if p >= 0 else None
            # everyone from the proposer up to me has accepted (the proposer by offering)
            state.n_acceptances = (me - p) % n if p >= 0 else 0
        log = view.offers
        fresh = [(ids[j], o) for j, o in log[self._seen :] if j < me]
        state.new_offers = fresh
        state.new_offerer_agents = [None] * len(fresh)
        state.new_data = [(nid, None) for nid, _ in fresh]
        state.last_negotiator = ids[(me - 1) % n]
        self._seen = len(log)
        self.mechanism.state = state
        self.mechanism.history.append(state)
        return state

    def finish(self, agreement: Outcome | None, reason: str, t: float, rounds: int) -> Any:
        """The final state: ``reason`` is Accord's end reason (``EndReason.value``).

        As in NegMAS, the step a session ends in counts as done: ``step`` is ``rounds``,
        the rounds begun (Accord's ``SessionResult.rounds``), and ``relative_time``
        follows from it.
        """
        state = copy.copy(self.mechanism.state)
        state.running = False
        state.agreement = agreement
        state.broken = reason == "walkaway"
        state.timedout = reason == "deadline"
        state.has_error = reason == "failure"
        state.step = rounds
        deadline = self._known_rounds()
        if self.time_base == "accord" or deadline is None:
            state.relative_time = t
        else:
            state.relative_time = min(1.0, (rounds + 1) / (deadline + 1))
        if math.isnan(state.relative_time):  # pragma: no cover - defensive
            state.relative_time = 1.0
        self.mechanism.state = state
        return state
