"""Four example agents. Each answers events with offers, messages and expressions.

* :class:`FairSplitter` opens with an even split of every issue (odd items go to the
  person on the issues it values least), says it wants to split evenly and smiles. It
  formally accepts any full offer worth at least half of its maximum, or, in the last
  minute, anything above its BATNA.
* :class:`ToughCompetitor` opens by keeping everything it values most (about 85 % of
  its maximum), concedes slowly (Boulware: target falls with time cubed) and frowns at
  offers below its target. In the last minute it makes a final offer just above its
  BATNA with "This is the last offer" (which IAGO counts as a walk-away warning).
* :class:`FavorLedgerTrader` asks for the person's preferences, tells its own true best
  issue, and builds offers that keep what it values while giving what the person said
  they like (a log-rolling estimate from preference statements). It keeps a ledger of
  concessions: an angry or sad person gets a concession step and "I gave a little here;
  you give a little next time."; a happy one gets a smile back.
* :class:`LyingAgent` claims its *least* valued issue is its best and a BATNA twice its
  real one, then "concedes" that issue early while keeping what it truly values (the
  2017 winner of the points category lied about its preferences).

    >>> [a.name for a in EXAMPLE_AGENTS.values()]
    ['fair', 'tough', 'ledger', 'liar']
"""

from __future__ import annotations

from accord.leagues.han.api import HanAgent, expression, message, offer_event
from accord.leagues.han.events import (
    Event,
    EventKind,
    Preference,
    Relation,
    SubClass,
)
from accord.leagues.han.strategy import estimate_from, max_points, mine, offer_for

__all__ = ["EXAMPLE_AGENTS", "FairSplitter", "FavorLedgerTrader", "LyingAgent", "ToughCompetitor"]

_ACCEPT = Event(EventKind.FORMAL_ACCEPT)


class _Bargainer(HanAgent):
    """A target that falls from ``start`` to ``end`` (fractions of the maximum) with time."""

    start = 0.8
    end = 0.5
    power = 1.0
    step = 10.0  # seconds between offers

    def __init__(self) -> None:
        super().__init__()
        self._last_offer_at = -1e9
        self._accepted_offer: object = None

    def target(self) -> float:
        v = self.view
        t = min(1.0, v.elapsed / v.total_time)
        frac = self.start - (self.start - self.end) * t**self.power
        return float(max(v.batna + 1, frac * max_points(v)))

    def estimate(self) -> list[float] | None:
        return None

    def make_offer(self) -> list[Event]:
        self._last_offer_at = self.view.elapsed
        return [offer_event(offer_for(self.view, self.target(), self.estimate()))]

    def acceptable(self) -> bool:
        o = self.view.offer
        return o is not None and o.full and mine(self.view, o) >= self.target()

    def accept(self) -> list[Event]:
        if self.view.offer is self._accepted_offer:
            return []
        self._accepted_offer = self.view.offer
        return [_ACCEPT]

    def on_event(self, event: Event) -> list[Event]:
        k = event.kind
        v = self.view
        if k is EventKind.GAME_START:
            return self.opening()
        if k is EventKind.FORMAL_ACCEPT:
            return self.accept() if mine(v, v.offer) > v.batna else []
        if k is EventKind.SEND_OFFER:
            if self.acceptable():
                return [*self.pleased(), *self.accept()]
            return [*self.displeased(), *self.make_offer()]
        if k is EventKind.TIME and v.elapsed - self._last_offer_at >= self.step * 3:
            return self.make_offer()
        if k is EventKind.SEND_EXPRESSION:
            return self.react(event.emotion)
        if k is EventKind.SEND_MESSAGE:
            return self.reply(event)
        return []

    def opening(self) -> list[Event]:
        return self.make_offer()

    def pleased(self) -> list[Event]:
        return [expression("happy")]

    def displeased(self) -> list[Event]:
        return []

    def react(self, emotion: str) -> list[Event]:
        return []

    def reply(self, e: Event) -> list[Event]:
        return []


class FairSplitter(_Bargainer):
    name = "fair"
    description = "Offers an even split and accepts half of its maximum."
    start = 0.5
    end = 0.5

    def target(self) -> float:
        v = self.view
        late = v.elapsed >= v.total_time - 60
        return v.batna + 1 if late else 0.5 * max_points(v)

    def opening(self) -> list[Event]:
        v = self.view
        top = set(v.ranking()[: len(v.issues) // 2])  # odd items: keep those I value most
        take = [q // 2 + (q % 2 if i in top else 0) for i, q in enumerate(v.quantities)]
        self._last_offer_at = v.elapsed
        offer = v.split(take)
        return [
            message("We should try to split things evenly.", SubClass.GENERIC_POS),
            expression("happy", delay=0.5),
            offer_event(offer),
        ]

    def make_offer(self) -> list[Event]:
        self._last_offer_at = self.view.elapsed
        return self.opening()[2:]


class ToughCompetitor(_Bargainer):
    name = "tough"
    description = "Demands much, concedes late, frowns at low offers, ends with a final offer."
    start = 0.85
    end = 0.45
    power = 3.0
    _final = False

    def displeased(self) -> list[Event]:
        return [expression("angry"), message("Your offer sucks.", SubClass.GENERIC_NEG)]

    def on_event(self, event: Event) -> list[Event]:
        v = self.view
        if event.kind is EventKind.TIME and not self._final and v.elapsed >= v.total_time - 60:
            self._final = True
            return [
                *self.make_offer(),
                message(
                    "This is the last offer. Take it or leave it.", SubClass.THREAT_POS, delay=1
                ),
            ]
        return super().on_event(event)


class FavorLedgerTrader(_Bargainer):
    name = "ledger"
    description = "Asks and tells preferences, trades on them, keeps a ledger of favours."
    start = 0.75
    end = 0.5
    power = 1.5

    def __init__(self) -> None:
        super().__init__()
        self.ledger = 0  # concessions given minus received

    def estimate(self) -> list[float] | None:
        return estimate_from(self.view.heard, len(self.view.issues))

    def target(self) -> float:
        return max(self.view.batna + 1, super().target() - 2 * max(0, self.ledger))

    def opening(self) -> list[Event]:
        best = self.view.ranking()[0]
        return [
            message(
                "It is important that we both are happy with an agreement.", SubClass.GENERIC_POS
            ),
            message(
                subclass=SubClass.PREF_REQUEST,
                preference=Preference(0, Relation.BEST, query=True),
                delay=0.2,
            ),
            message(
                subclass=SubClass.PREF_INFO, preference=Preference(best, Relation.BEST), delay=0.2
            ),
            expression("happy"),
            *self.make_offer(),
        ]

    def react(self, emotion: str) -> list[Event]:
        if emotion in ("angry", "sad"):
            self.ledger += 1
            return [
                expression("sad"),
                message(
                    "I gave a little here; you give a little next time.", SubClass.FAVOR_REQUEST
                ),
                *self.make_offer(),
            ]
        if emotion == "happy":
            return [expression("happy")]
        return []

    def reply(self, e: Event) -> list[Event]:
        if e.preference is not None and e.preference.query:
            best = self.view.ranking()[0]
            return [
                message(subclass=SubClass.PREF_INFO, preference=Preference(best, Relation.BEST))
            ]
        if e.preference is not None:
            return [expression("happy"), *self.make_offer()]
        if e.subclass is SubClass.FAVOR_REQUEST:
            self.ledger += 1
            return [
                message("Happy to help. Remember this one.", SubClass.FAVOR_ACCEPT),
                *self.make_offer(),
            ]
        return []


class LyingAgent(_Bargainer):
    name = "liar"
    description = "Claims its least valued issue is its best and inflates its BATNA."
    start = 0.8
    end = 0.5
    power = 2.0

    def opening(self) -> list[Event]:
        worst = self.view.ranking()[-1]
        return [
            message(subclass=SubClass.PREF_INFO, preference=Preference(worst, Relation.BEST)),
            message(subclass=SubClass.BATNA_INFO, value=2 * self.view.batna + 5, delay=0.3),
            *self.make_offer(),
        ]

    def reply(self, e: Event) -> list[Event]:
        if e.subclass is SubClass.BATNA_REQUEST:
            return [message(subclass=SubClass.BATNA_INFO, value=2 * self.view.batna + 5)]
        if e.preference is not None and e.preference.query:
            worst = self.view.ranking()[-1]
            return [
                message(subclass=SubClass.PREF_INFO, preference=Preference(worst, Relation.BEST))
            ]
        return []


EXAMPLE_AGENTS: dict[str, type[HanAgent]] = {
    a.name: a for a in (FairSplitter, ToughCompetitor, FavorLedgerTrader, LyingAgent)
}
