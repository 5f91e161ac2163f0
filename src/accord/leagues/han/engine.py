"""The game as a pure state machine: events in, a typed result out.

:class:`Game` checks every event against the rules and records an invalid one against
its sender (the game goes on). Nothing binds until both sides have formally accepted
the same full offer: any new offer clears earlier acceptances. A quit warning from each
side (FORMAL_QUIT or a threat) ends the game with both BATNAs, as does the time limit.

    >>> from accord.leagues.han.domain import EXAMPLE_2, Offer
    >>> g = Game(EXAMPLE_2)
    >>> g.apply(Event(EventKind.SEND_OFFER, "agent", offer=Offer.of([(6, 0, 0), (0, 0, 6), (0, 0, 1)])), 1.0)
    >>> g.apply(Event(EventKind.FORMAL_ACCEPT, "person"), 2.0)
    >>> g.apply(Event(EventKind.FORMAL_ACCEPT, "agent"), 3.0)
    >>> r = g.result
    >>> r.outcome, r.points["agent"], r.points["person"]
    ('deal', 30, 20)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import InvalidOffer, ParseError, StateError
from accord.core.protocols.base import Phase
from accord.core.protocols.result import EndReason
from accord.leagues.han.domain import GameSpec, Offer, Role
from accord.leagues.han.events import PRESET_UTTERANCES, Event, EventKind, InvalidEvent, SubClass

__all__ = ["OUTCOMES", "Game", "GameResult", "Violation", "reason_of"]

_THREATS = {SubClass.THREAT_POS, SubClass.THREAT_NEG}
_PRESET_TEXTS = {t for t, _ in PRESET_UTTERANCES}


OUTCOMES: dict[EndReason, str] = {
    EndReason.AGREEMENT: "deal",
    EndReason.DEADLINE: "timeout",
    EndReason.WALKAWAY: "quit",
    EndReason.LEFT: "left",
}
"""How a game can end (the core's reasons) and IAGO's word for each: a deal; the time
limit; both sides warned they would walk away (FORMAL_QUIT or a threat); a side left
for good (a person closed the game, an agent's process died): both get their BATNA
unless it is a deal."""


def reason_of(outcome: str) -> EndReason:
    """The reason IAGO's word ``outcome`` stands for (``"deal"`` -> agreement, ...)."""
    for reason, word in OUTCOMES.items():
        if word == outcome:
            return reason
    raise ParseError(f"a HAN outcome is one of {', '.join(OUTCOMES.values())}; got {outcome!r}")


@dataclass(frozen=True)
class Violation:
    """An event refused, with who sent it, when and why."""

    side: str
    time: float
    reason: str


@dataclass(frozen=True)
class GameResult:
    """How a game ended (``reason``; :attr:`outcome` is IAGO's word for it) and what each
    side scored."""

    reason: EndReason
    points: dict[str, int]
    offer: Offer | None
    end_time: float
    violations: tuple[Violation, ...]
    left_by: str = ""
    """With outcome ``left``: the side that left."""

    @property
    def outcome(self) -> str:
        """IAGO's word for how the game ended: deal, timeout, quit or left."""
        return OUTCOMES[self.reason]


@dataclass
class Game:
    """One game between ``agent`` and ``person`` on ``spec``.

    ``person_menu_only``: the person may send only menu messages (preset utterances,
    preference statements, BATNA claims), as a person on the page can; off in
    agent-vs-agent mode. ``agent_is_person``: a person sits on the agent's side too
    (person-vs-person games): that side is held to the menus as well, and its other
    buttons withdraw the walk-away warnings as the person's do.
    """

    spec: GameSpec
    person_menu_only: bool = True
    agent_is_person: bool = False
    phase: Phase = Phase.RUNNING
    last_offer: Offer | None = None
    accepted: set[str] = field(default_factory=set)
    quit_warned: set[str] = field(default_factory=set)
    warned: bool = False
    last_time: float = 0.0
    history: list[tuple[float, Event]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    first_offer: Offer | None = None
    _result: GameResult | None = None
    ended: bool = field(default=False, repr=False, compare=False)
    """Whether the game is over (``phase`` is ENDED; a field, read on every step)."""

    @property
    def result(self) -> GameResult:
        if self._result is None:
            raise StateError("the game is still running; no result yet")
        return self._result

    def apply(self, event: Event, now: float) -> None:
        """Apply ``event`` from its owner at ``now``; an invalid one is recorded, not applied."""
        if self.ended:
            return
        self.tick(now)
        if self.ended:
            return
        try:
            self._apply(event, now)
        except (InvalidEvent, InvalidOffer) as exc:
            self.violations.append(Violation(event.owner, now, str(exc)))
            self.counts[f"{_tag(event.owner)}Invalid"] += 1

    def apply_checked(self, event: Event, now: float) -> None:
        """Apply ``event`` at ``now`` or raise (:class:`InvalidEvent`, :class:`InvalidOffer`)
        and change nothing: :class:`~accord.leagues.han.rules.HanRules` refuses instead of
        recording."""
        if self.ended or now >= self.spec.total_time:
            raise InvalidEvent("the game has ended")
        self._apply(event, now)  # raises before it changes anything
        self.tick(now)

    def refuse(self, side: str, now: float, reason: str) -> None:
        """Record an event that could not even be read (malformed JSON, a raising agent)."""
        self.violations.append(Violation(side, now, reason))
        self.counts[f"{_tag(side)}Invalid"] += 1

    def tick(self, now: float) -> None:
        """Move the game's time to ``now``: the warning and the time limit."""
        self.last_time = max(self.last_time, now)
        if self.ended:
            return
        if now >= self.spec.total_time - self.spec.warning_time:
            self.warned = True
        if now >= self.spec.total_time:
            self._end(EndReason.DEADLINE, self.spec.total_time)

    def _apply(self, e: Event, now: float) -> None:
        side = e.owner
        if side not in ("agent", "person"):
            raise InvalidEvent(f"only the agent or the person sends events; got owner {side!r}")
        k = e.kind
        t = _tag(side)
        if k is EventKind.SEND_OFFER:
            if e.offer is None:
                raise InvalidEvent("SEND_OFFER carries no offer")
            offer = self.spec.check(e.offer)
            self.last_offer = offer
            self.first_offer = self.first_offer or offer
            self.accepted.clear()
            self.quit_warned.clear()
            self.counts[f"{t}Offers"] += 1
        elif k is EventKind.FORMAL_ACCEPT:
            if self.last_offer is None or not self.last_offer.full:
                what = "no offer" if self.last_offer is None else "an offer with undecided items"
                raise InvalidEvent(
                    f"FORMAL_ACCEPT needs a full offer on the table; there is {what}"
                )
            self.accepted.add(side)
            if self.accepted == {"agent", "person"}:
                self._record(e, now)
                self._end(EndReason.AGREEMENT, now)
                return
        elif k is EventKind.FORMAL_QUIT:
            self._quit(side, now, e)
            return
        elif k is EventKind.SEND_MESSAGE:
            self._message(e, side)
            if e.subclass in _THREATS:
                self._quit(side, now, e)
                return
        elif k is EventKind.SEND_EXPRESSION:
            self.counts[f"{t}{e.emotion.capitalize()}"] += 1
        elif k is not EventKind.OFFER_IN_PROGRESS:
            raise InvalidEvent(f"{k.value} is sent by the platform, not by a player")
        if self._human(side) and k is not EventKind.OFFER_IN_PROGRESS:
            self.quit_warned.clear()  # any other button withdraws the walk-away warnings
        self._record(e, now)

    def _message(self, e: Event, side: str) -> None:
        t = _tag(side)
        values = self.spec.values(side)  # type: ignore[arg-type]
        if e.preference is not None:
            p = e.preference
            n = len(self.spec.issues)
            if not 0 <= p.issue1 < n or (
                p.relation.value not in ("BEST", "WORST") and not 0 <= p.issue2 < n
            ):
                raise InvalidEvent(
                    f"a preference names issues 0..{n - 1}; got {p.issue1}, {p.issue2}"
                )
            if p.query:
                self.counts[f"{t}Query"] += 1
            else:
                self.counts[f"{t}Pref"] += 1
                if not p.is_true(values):
                    self.counts[f"{t}Lie"] += 1
        elif e.subclass is SubClass.BATNA_INFO:
            if e.value != self.spec.batna(side):  # type: ignore[arg-type]
                self.counts[f"{t}BATNALies"] += 1
                self.counts[f"{t}Lie"] += 1
        elif self._menu_only(side) and e.text not in _PRESET_TEXTS:
            raise InvalidEvent(
                "a person sends menu messages only (a preset utterance, a preference or a "
                f"BATNA claim); got free text {e.text[:60]!r}"
            )
        self.counts[f"{t}Msg"] += 1
        self.counts[f"{t}{e.subclass.value}"] += 1

    def _human(self, side: str) -> bool:
        return side == "person" or (side == "agent" and self.agent_is_person)

    def _menu_only(self, side: str) -> bool:
        return (side == "person" and self.person_menu_only) or (
            side == "agent" and self.agent_is_person
        )

    def leave(self, side: str, now: float) -> None:
        """``side`` left for good: the game ends and both get their BATNA."""
        if self.ended:
            return
        if side not in ("agent", "person"):
            raise InvalidEvent(f"only the agent or the person leaves; got {side!r}")
        self.tick(now)
        if not self.ended:
            self._end(EndReason.LEFT, now, left_by=side)

    def _quit(self, side: str, now: float, e: Event) -> None:
        self.quit_warned.add(side)
        self._record(e, now)
        if self.quit_warned == {"agent", "person"}:
            self._end(EndReason.WALKAWAY, now)

    def _record(self, e: Event, now: float) -> None:
        self.history.append((now, e))

    def _end(self, outcome: EndReason, now: float, left_by: str = "") -> None:
        self.phase = Phase.ENDED
        self.ended = True
        if outcome is EndReason.AGREEMENT:
            assert self.last_offer is not None
            offer: Offer | None = self.last_offer
            points = {r: self.spec.points(self.last_offer, r) for r in ("agent", "person")}
        else:
            offer = None
            points = {r: self.spec.batna(r) for r in ("agent", "person")}
        self._result = GameResult(
            outcome, points, offer, now, tuple(self.violations), left_by=left_by
        )

    def points_on_table(self, role: Role) -> int:
        """Points ``role`` would get for the offer on the table (0 with none)."""
        return 0 if self.last_offer is None else self.spec.points(self.last_offer, role)

    def state(self, role: Role) -> dict[str, Any]:
        """What ``role`` may see: the public spec, its own values and BATNA, the table."""
        return {
            **self.spec.public(),
            "role": role,
            "values": list(self.spec.values(role)),
            "batna": self.spec.batna(role),
            "offer": None if self.last_offer is None else self.last_offer.to_list(),
            "points_on_table": self.points_on_table(role),
            "accepted": sorted(self.accepted),
            "warned": self.warned,
            "ended": self.ended,
        }


def _tag(side: str) -> str:
    return "VH" if side == "agent" else "User" if side == "person" else "System"
