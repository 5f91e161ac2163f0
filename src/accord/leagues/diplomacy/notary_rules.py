"""The notary's negotiation as a :class:`~accord.core.protocols.rules.Rules` machine.

One phase of BANDANA negotiation between the powers, with the :class:`~.notary.Notary`
as its state: any power that has not said it is done may act at any time (the driver
asks them in power order), so the rules name every such power in ``to_act``. A power

- **proposes** a deal: on the wire, a mutual demilitarised zone between itself and one
  other power over one province in the current or one of the next two phases
  (``{"kind": "propose", "args": {"with": "GERMANY", "province": "BUR", "when":
  "1901S"}}``); the proposer accepts its own proposal by proposing it;
- **accepts** or **rejects** a pending proposal addressed to it (by id); once every
  power a deal involves has accepted, the notary confirms it, to those powers only, or
  drops it silently when it contradicts a deal confirmed before;
- **ends**: it is done for this phase (an agent's failure ends its part too).

The phase is over when every power is done, after ``max_actions`` actions, or when the
time passed in reaches ``seconds``. The result lists the confirmed deals. Each notary
message becomes one :class:`~accord.core.protocols.rules.Event` per power told (seen by
that power only); what nobody is told (an inconsistent or void deal) is the operator's.
Order commitments and board checks need the game engine; the league's runner drives the
:class:`~.notary.Notary` with them directly.

    >>> rules = NotaryRules()
    >>> s = rules.initial(NotarySetup(), seed=0)
    >>> rules.to_act(s)
    (0, 1, 2, 3, 4, 5, 6)
    >>> wire = {"kind": "propose", "args": {"with": "GERMANY", "province": "BUR", "when": "1901S"}}
    >>> s, events = rules.apply(s, 2, rules.action_from_json(s, 2, wire), 0.0)
    >>> [(e.kind, e.party) for e in events]
    [('propose', 2), ('propose', 3)]
    >>> accept = {"kind": "accept", "args": {"proposal": "d1"}}
    >>> s, events = rules.apply(s, 3, rules.action_from_json(s, 3, accept), 0.0)
    >>> [(e.kind, e.party) for e in events], len(rules.observe(s, 3)["confirmed"])
    ([('accept', 2), ('accept', 3), ('confirm', 2), ('confirm', 3)], 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.core import protocols

from . import PROTOCOL
from .deals import POWERS, PROVINCES, SEASONS, Deal, DealError, Dmz
from .notary import Event as NotaryEvent
from .notary import Notary, NotaryError, Proposal

__all__ = ["NotaryAction", "NotaryRules", "NotarySetup", "NotaryState"]


@dataclass(frozen=True)
class NotarySetup:
    """One phase's negotiation: the powers, the phase, and when it ends."""

    powers: tuple[str, ...] = POWERS
    year: int = 1901
    phase: str = "S"
    max_actions: int = 200
    seconds: float | None = None


@dataclass(frozen=True)
class NotaryAction:
    """``propose`` (with ``deal``), ``accept``/``reject`` (with ``proposal``) or ``end``."""

    kind: str
    deal: Deal | None = None
    proposal: str = ""


@dataclass
class NotaryState:
    """The notary, who is done, how many actions were played and why the phase ended."""

    setup: NotarySetup
    notary: Notary
    done: set[int] = field(default_factory=set)
    actions: int = 0
    ended: str | None = None


class NotaryRules(protocols.Rules[NotarySetup, NotaryState, NotaryAction]):
    """The notary's rules for one phase (see the module)."""

    info = PROTOCOL

    def example(self) -> NotarySetup:
        """Three powers in Spring 1901, at most 20 actions (small, for checks and demos)."""
        return NotarySetup(("ENGLAND", "FRANCE", "GERMANY"), max_actions=20)

    def initial(self, setup: NotarySetup, seed: int) -> NotaryState:
        if setup.phase not in SEASONS:
            raise DealError(f"notary: expected phase 'S' or 'F', got {setup.phase!r}")
        return NotaryState(setup, Notary(setup.powers, setup.year, setup.phase))

    def to_act(self, state: NotaryState) -> tuple[int, ...]:
        if state.ended is not None:
            return ()
        return tuple(k for k in range(len(state.setup.powers)) if k not in state.done)

    def legal(self, state: NotaryState, party: int) -> protocols.Legal:
        if party not in self.to_act(state):
            return protocols.Legal(party, ())
        powers = state.setup.powers
        me = powers[party]
        others = tuple(p for p in powers if p != me)
        deal = (
            protocols.ActionField("with", protocols.FieldKind.CHOICE, options=others),
            protocols.ActionField(
                "province", protocols.FieldKind.CHOICE, options=tuple(sorted(PROVINCES))
            ),
            protocols.ActionField(
                "when", protocols.FieldKind.CHOICE, options=_phases(state.notary.now)
            ),
        )
        specs = [protocols.ActionSpec("propose", deal, "propose a mutual DMZ")]
        pending = state.notary.proposals_for(me)
        unaccepted = tuple(p.id for p in pending if me not in p.accepted)
        if unaccepted:
            pick = (
                protocols.ActionField("proposal", protocols.FieldKind.CHOICE, options=unaccepted),
            )
            specs.append(protocols.ActionSpec("accept", pick))
        if pending:
            pick = (
                protocols.ActionField(
                    "proposal", protocols.FieldKind.CHOICE, options=tuple(p.id for p in pending)
                ),
            )
            specs.append(protocols.ActionSpec("reject", pick))
        specs.append(protocols.ActionSpec("end", (), "done for this phase"))
        return protocols.Legal(party, tuple(specs))

    def apply(
        self, state: NotaryState, party: int, action: NotaryAction, now: float
    ) -> tuple[NotaryState, Sequence[protocols.Event]]:
        if party not in self.to_act(state):
            raise protocols.IllegalAction(party, action, f"party {party} is not asked now")
        if not isinstance(action, NotaryAction):
            raise protocols.IllegalAction(party, action, "expected a NotaryAction")
        notary, me = state.notary, state.setup.powers[party]
        before = len(notary.log)
        try:
            if action.kind == "propose" and action.deal is not None:
                notary.propose(me, action.deal)
            elif action.kind == "accept":
                if me in _pending(notary, me, action.proposal, party, action).accepted:
                    raise protocols.IllegalAction(
                        party, action, f"{action.proposal} is accepted already"
                    )
                notary.accept(me, action.proposal)
            elif action.kind == "reject":
                _pending(notary, me, action.proposal, party, action)
                notary.reject(me, action.proposal)
            elif action.kind == "end":
                state.done.add(party)
            else:
                raise protocols.IllegalAction(party, action, "propose, accept, reject or end")
        except (NotaryError, DealError) as exc:
            raise protocols.IllegalAction(party, action, str(exc)) from None
        state.actions += 1
        events = self._events(state, before)
        if action.kind == "end":
            events.append(protocols.Event("end", party, {"power": me}))
        return state, self._close(state, events)

    def tick(self, state: NotaryState, now: float) -> tuple[NotaryState, Sequence[protocols.Event]]:
        limit = state.setup.seconds
        if state.ended is None and limit is not None and now >= limit:
            state.ended = "deadline"
            return state, (protocols.Event("over", None, {"reason": "deadline"}),)
        return state, ()

    def fail(
        self, state: NotaryState, party: int, failure: protocols.Failure, now: float
    ) -> tuple[NotaryState, Sequence[protocols.Event]]:
        """A failing power is done for this phase; the others go on."""
        if state.ended is not None:
            return state, ()
        state.done.add(party)
        data = {"kind": failure.kind.value, "message": failure.message[:500]}
        return state, self._close(state, [protocols.Event("failure", party, data)])

    def observe(self, state: NotaryState, party: int | None) -> dict[str, Any]:
        """A power sees the proposals addressed to it, its confirmed deals and the
        messages it was told; a spectator sees everything."""
        n, powers = state.notary, state.setup.powers
        me = None if party is None else powers[party]
        props = n.proposals.values() if me is None else n.proposals_for(me)
        confirmed = n.valid_confirmed() if me is None else n.confirmed_for(me)
        log = [e for e in n.log if me is None or me in e.to or e.sender == me]
        return {
            "names": list(powers),
            "power": me,
            "year": n.now[0],
            "phase": SEASONS[n.now[1]],
            "proposals": [_proposal_json(p) for p in props if p.status == "pending"],
            "confirmed": [d.to_json() for d in confirmed],
            "messages": [_log_dict(e) for e in log],
            "done": sorted(state.done),
        }

    def result(self, state: NotaryState) -> dict[str, Any] | None:
        if state.ended is None:
            return None
        return {
            "reason": state.ended,
            "confirmed": [d.to_json() for d in state.notary.valid_confirmed()],
            "actions": state.actions,
        }

    def serialize(self, state: NotaryState) -> dict[str, Any]:
        n, s = state.notary, state.setup
        index = {id(e): k for k, e in enumerate(n.log)}
        return {
            "setup": {"powers": list(s.powers), "year": s.year, "phase": s.phase,
                      "max_actions": s.max_actions, "seconds": s.seconds},
            "now": list(n.now),
            "next": n._next,
            "proposals": [_proposal_json(p) for p in n._all.values()],
            "pending": list(n.proposals),
            "confirmed": [p.id for p in n.confirmed],
            "log": [_log_json(e) for e in n.log],
            "inbox": {p: [index[id(e)] for e in box] for p, box in n._inbox.items()},
            "done": sorted(state.done),
            "actions": state.actions,
            "ended": state.ended,
        }  # fmt: skip

    def restore(self, data: Mapping[str, Any]) -> NotaryState:
        su = data["setup"]
        setup = NotarySetup(
            tuple(su["powers"]), int(su["year"]), str(su["phase"]), int(su["max_actions"]),
            None if su["seconds"] is None else float(su["seconds"]),
        )  # fmt: skip
        n = Notary(setup.powers, setup.year, setup.phase)
        n.now = (int(data["now"][0]), int(data["now"][1]))
        n._next = int(data["next"])
        for p in data["proposals"]:
            prop = Proposal(p["id"], Deal.from_json(p["deal"]), set(p["accepted"]), p["status"])
            n._all[prop.id] = prop
        n.proposals = {pid: n._all[pid] for pid in data["pending"]}
        n.confirmed = [n._all[pid] for pid in data["confirmed"]]
        n.log = [
            NotaryEvent(int(y), str(ph), str(k), str(pid), str(by), tuple(to))
            for y, ph, k, pid, by, to in data["log"]
        ]
        n._inbox = {p: [n.log[k] for k in ks] for p, ks in data["inbox"].items()}
        return NotaryState(
            setup, n, {int(k) for k in data["done"]}, int(data["actions"]), data["ended"]
        )

    def action_to_json(self, state: NotaryState, action: NotaryAction) -> dict[str, Any]:
        if action.kind == "propose":
            assert action.deal is not None
            z = action.deal.dmzs[0]
            (other,) = z.powers - {action.deal.proposer}
            (where,) = z.provinces
            when = f"{z.year}{z.phase}"
            return {"kind": "propose", "args": {"with": other, "province": where, "when": when}}
        if action.kind in ("accept", "reject"):
            return {"kind": action.kind, "args": {"proposal": action.proposal}}
        return {"kind": action.kind, "args": {}}

    def action_from_json(self, state: NotaryState, party: int, data: Any) -> NotaryAction:
        self.legal(state, party).require(party, data)
        kind, args = data["kind"], data["args"]
        if kind == "propose":
            me = state.setup.powers[party]
            when = str(args["when"])
            dmz = Dmz.of(int(when[:-1]), when[-1], (me, args["with"]), (args["province"],))
            return NotaryAction(kind, Deal.make(me, dmzs=[dmz], powers=state.setup.powers))
        if kind in ("accept", "reject"):
            return NotaryAction(kind, proposal=str(args["proposal"]))
        return NotaryAction(kind)

    # -- internals ------------------------------------------------------------------------
    def _events(self, state: NotaryState, since: int) -> list[protocols.Event]:
        """One event per power told of each new notary message (the operator's if none)."""
        powers = state.setup.powers
        out = []
        for e in state.notary.log[since:]:
            data = _log_dict(e)
            told = sorted({e.sender, *e.to} if e.to else ())
            if not told:
                out.append(
                    protocols.Event(
                        e.kind, powers.index(e.sender), data, protocols.Visibility.OPERATOR
                    )
                )
            for p in told:
                out.append(
                    protocols.Event(e.kind, powers.index(p), data, protocols.Visibility.PARTY)
                )
        return out

    def _close(
        self, state: NotaryState, events: list[protocols.Event]
    ) -> tuple[protocols.Event, ...]:
        """End the phase when everyone is done or the actions ran out."""
        if state.ended is None:
            if len(state.done) == len(state.setup.powers):
                state.ended = "done"
            elif state.actions >= state.setup.max_actions:
                state.ended = "max_actions"
            if state.ended is not None:
                events.append(protocols.Event("over", None, {"reason": state.ended}))
        return tuple(events)


def _phases(now: tuple[int, int]) -> tuple[str, ...]:
    """The current phase and the two after it, as ``1901S``."""
    year, season = now
    out = []
    for _ in range(3):
        out.append(f"{year}{SEASONS[season]}")
        year, season = (year, 1) if season == 0 else (year + 1, 0)
    return tuple(out)


def _pending(notary: Notary, me: str, pid: str, party: int, action: Any) -> Proposal:
    prop = notary.proposals.get(pid)
    if prop is None or prop.status != "pending" or me not in prop.deal.involved:
        raise protocols.IllegalAction(
            party, action, f"no pending proposal {pid!r} addressed to {me}"
        )
    return prop


def _proposal_json(p: Proposal) -> dict[str, Any]:
    return {"id": p.id, "deal": p.deal.to_json(), "accepted": sorted(p.accepted),
            "status": p.status}  # fmt: skip


def _log_json(e: NotaryEvent) -> list[Any]:
    return [e.year, e.phase, e.kind, e.proposal, e.sender, list(e.to)]


def _log_dict(e: NotaryEvent) -> dict[str, Any]:
    return {"year": e.year, "phase": e.phase, "kind": e.kind, "proposal": e.proposal,
            "sender": e.sender, "to": list(e.to)}  # fmt: skip
