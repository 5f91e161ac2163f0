"""The notary: proposals, acceptances, confirmations, with privacy (pure, no engine).

No turns: any power proposes, accepts or rejects at any time. A proposal goes only to
the powers it involves; the proposer accepts it by proposing. When every involved power
has accepted, the notary checks it against the still-valid confirmed deals and, if
consistent, confirms it to the involved powers only (an inconsistent deal is silently
not confirmed). A rejection withdraws an acceptance only before confirmation. A deal
about a phase before the current one is void: it cannot be proposed and pending ones
are dropped when the clock moves on.

Example:
    >>> from accord.leagues.diplomacy.deals import Deal, Dmz
    >>> n = Notary(year=1901, phase="S")
    >>> pid = n.propose("FRANCE", Deal.make("FRANCE", dmzs=[Dmz.of(1901, "S", ["FRANCE", "GERMANY"], ["BUR"])]))
    >>> n.accept("GERMANY", pid)
    True
    >>> len(n.confirmed_for("ENGLAND")), len(n.confirmed_for("GERMANY"))
    (0, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from accord.core.errors import ProtocolViolation

from .deals import POWERS, SEASONS, Deal, DealError, inconsistency

__all__ = ["Event", "Notary", "NotaryError", "Proposal"]

BoardCheck = Callable[[Sequence[Deal]], str | None]
"""``deals -> why they cannot be obeyed on the current board, or None``.

The game runner passes one that checks the current phase's orders are legal and that
every unit keeps at least one order obeying the deals."""


class NotaryError(ProtocolViolation):
    """A request the notary refuses (unknown proposal, a power not involved, ...)."""


@dataclass
class Proposal:
    """A pending or settled proposal. ``status``: pending, confirmed, inconsistent, void."""

    id: str
    deal: Deal
    accepted: set[str] = field(default_factory=set)
    status: str = "pending"


@dataclass(frozen=True, slots=True)
class Event:
    """One line of the notary's log; ``to`` lists the powers who were told."""

    year: int
    phase: str
    kind: str  # propose, accept, reject, confirm, inconsistent, void
    proposal: str
    sender: str
    to: tuple[str, ...]


class Notary:
    """Keeps proposals and confirmed deals; tells each power only what it may see."""

    def __init__(
        self,
        powers: Iterable[str] = POWERS,
        year: int = 1901,
        phase: str = "S",
        check: BoardCheck | None = None,
    ) -> None:
        self.powers = tuple(powers)
        self.now = (year, SEASONS.index(phase))
        self.check = check
        self.proposals: dict[str, Proposal] = {}
        self.confirmed: list[Proposal] = []
        self.log: list[Event] = []
        self._inbox: dict[str, list[Event]] = {p: [] for p in self.powers}
        self._all: dict[str, Proposal] = {}
        self._next = 0

    # -- the clock ---------------------------------------------------------------------
    def advance(self, year: int, phase: str, check: BoardCheck | None = None) -> None:
        """Move to ``(year, phase)``; pending proposals about the past become void."""
        if phase not in SEASONS:
            raise DealError(f"notary: expected phase 'S' or 'F', got {phase!r}")
        self.now = (year, SEASONS.index(phase))
        self.check = check
        for prop in list(self.proposals.values()):
            if prop.status == "pending" and prop.deal.is_past(self.now):
                prop.status = "void"
                self._emit("void", prop, prop.deal.proposer, ())
                del self.proposals[prop.id]

    # -- requests ----------------------------------------------------------------------
    def propose(self, sender: str, deal: Deal) -> str:
        """Register ``deal`` from ``sender``; return its id. Raises `DealError` if invalid."""
        if sender not in self.powers:
            raise NotaryError(f"propose: {sender!r} is not a power in this game")
        if deal.proposer != sender:
            raise NotaryError(f"propose: deal's proposer is {deal.proposer}, sender is {sender}")
        deal.validate(self.powers)
        if deal.is_past(self.now):
            raise DealError(
                f"deal is about a past phase (now {self.now[0]}{SEASONS[self.now[1]]}): void"
            )
        if self.check is not None:
            reason = self.check([deal])
            if reason:
                raise DealError(reason)
        self._next += 1
        pid = f"d{self._next}"
        prop = Proposal(pid, deal, {sender})
        self.proposals[pid] = prop
        self._all[pid] = prop
        self._emit("propose", prop, sender, self._others(prop, sender))
        self._maybe_confirm(prop, sender)
        return pid

    def accept(self, sender: str, pid: str) -> bool:
        """Accept proposal ``pid``; return True if this confirmed it."""
        prop = self._pending(sender, pid, "accept")
        if prop is None:
            return False
        prop.accepted.add(sender)
        self._emit("accept", prop, sender, self._others(prop, sender))
        return self._maybe_confirm(prop, sender)

    def reject(self, sender: str, pid: str) -> None:
        """Reject ``pid`` (withdraws ``sender``'s acceptance; ignored after confirmation)."""
        prop = self._pending(sender, pid, "reject")
        if prop is None:
            return
        prop.accepted.discard(sender)
        self._emit("reject", prop, sender, self._others(prop, sender))

    # -- views -------------------------------------------------------------------------
    def proposals_for(self, power: str) -> list[Proposal]:
        """Pending proposals that involve ``power``."""
        return [
            p for p in self.proposals.values() if p.status == "pending" and power in p.deal.involved
        ]

    def confirmed_for(self, power: str) -> list[Deal]:
        """Confirmed, not yet expired deals that involve ``power``."""
        return [
            p.deal
            for p in self.confirmed
            if power in p.deal.involved and not p.deal.is_expired(self.now)
        ]

    def valid_confirmed(self) -> list[Deal]:
        """Every confirmed deal not yet expired (god view)."""
        return [p.deal for p in self.confirmed if not p.deal.is_expired(self.now)]

    def find(self, pid: str) -> Proposal | None:
        """Any proposal ever made, by id, whatever its status (god view)."""
        return self._all.get(pid)

    def inbox(self, power: str) -> list[Event]:
        """Messages for ``power`` since the last call (drains them)."""
        box = self._inbox[power]
        self._inbox[power] = []
        return box

    # -- internals ---------------------------------------------------------------------
    def _pending(self, sender: str, pid: str, what: str) -> Proposal | None:
        if sender not in self.powers:
            raise NotaryError(f"{what}: {sender!r} is not a power in this game")
        prop = self.proposals.get(pid)
        if prop is None:
            for c in self.confirmed:
                if c.id == pid and sender in c.deal.involved:
                    return None  # after confirmation: ignored
            raise NotaryError(f"{what}: no pending proposal {pid!r} addressed to {sender}")
        if sender not in prop.deal.involved:
            raise NotaryError(f"{what}: no pending proposal {pid!r} addressed to {sender}")
        return prop

    @staticmethod
    def _others(prop: Proposal, sender: str) -> tuple[str, ...]:
        return tuple(sorted(prop.deal.involved - {sender}))

    def _maybe_confirm(self, prop: Proposal, last: str) -> bool:
        if not prop.deal.involved <= prop.accepted:
            return False
        del self.proposals[prop.id]
        together = [*self.valid_confirmed(), prop.deal]
        bad = inconsistency(together)
        if bad is None and self.check is not None:
            bad = self.check(together)
        if bad is not None:
            prop.status = "inconsistent"
            self._emit("inconsistent", prop, last, ())
            return False
        prop.status = "confirmed"
        self.confirmed.append(prop)
        self._emit("confirm", prop, last, tuple(sorted(prop.deal.involved)))
        return True

    def _emit(self, kind: str, prop: Proposal, sender: str, to: tuple[str, ...]) -> None:
        year, season = self.now
        ev = Event(year, SEASONS[season], kind, prop.id, sender, to)
        self.log.append(ev)
        for power in to:
            self._inbox[power].append(ev)
