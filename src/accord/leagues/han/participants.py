"""Simulated participants: scripted people that use only the page's menus.

They play the person's side with the same events a person's page sends: offers, the
eleven preset utterances, preference statements, BATNA claims, the five emotions, formal
accept and quit. They let an agent be tried against a pool in seconds on a virtual clock.

* :class:`Cooperative` tells its true best issue, asks for a fair split, accepts a full
  offer worth 45 % of its maximum (less with time), smiles.
* :class:`Greedy` claims a high BATNA, demands 75 %, accepts 60 % falling to its BATNA
  in the last minute, and says "Your offer sucks." to anything less.
* :class:`Emotional` shows an emotion for every offer (happy when good, angry when poor,
  sad when very poor) and accepts half of its maximum.
* :class:`Impatient` accepts 40 % of its maximum and walks away (formal quit) after
  three minutes without an acceptable offer.

The platform calls ``reseed(seed)`` with the game's seed, which moves each threshold by
up to ±0.05 of the maximum, so repeated games against a type differ, reproducibly.

    >>> sorted(PARTICIPANTS)
    ['cooperative', 'emotional', 'greedy', 'impatient']
"""

from __future__ import annotations

import random

from accord.leagues.han.api import HanAgent, expression, offer_event
from accord.leagues.han.events import Event, EventKind, Preference, Relation, SubClass, preset
from accord.leagues.han.strategy import max_points, mine, offer_for

__all__ = ["PARTICIPANTS", "Cooperative", "Emotional", "Greedy", "Impatient"]


class _Person(HanAgent):
    accept_frac = 0.5
    late_frac = 0.3
    ask_frac = 0.6

    def __init__(self) -> None:
        super().__init__()
        self._accepted: object = None
        self._countered: object = None

    def reseed(self, seed: int) -> None:
        """Vary this person a little (thresholds ± 0.05 of the maximum), reproducibly."""
        rng = random.Random(seed)
        self.accept_frac += rng.uniform(-0.05, 0.05)
        self.late_frac += rng.uniform(-0.05, 0.05)
        self.ask_frac += rng.uniform(-0.05, 0.05)

    def threshold(self) -> float:
        v = self.view
        t = min(1.0, v.elapsed / v.total_time)
        frac = self.accept_frac - (self.accept_frac - self.late_frac) * t
        return max(v.batna + 1, frac * max_points(v))

    def good(self) -> bool:
        o = self.view.offer
        return o is not None and o.full and mine(self.view, o) >= self.threshold()

    def accept(self) -> list[Event]:
        if self.view.offer is self._accepted:
            return []
        self._accepted = self.view.offer
        return [Event(EventKind.FORMAL_ACCEPT, "person")]

    def counter(self) -> list[Event]:
        if self.view.offer is self._countered:
            return []
        o = offer_for(self.view, max(self.threshold(), self.ask_frac * max_points(self.view)))
        self._countered = o
        return [offer_event(o)]

    def opening(self) -> list[Event]:
        return []

    def on_offer(self) -> list[Event]:
        return self.accept() if self.good() else self.counter()

    def on_event(self, event: Event) -> list[Event]:
        k = event.kind
        v = self.view
        if k is EventKind.GAME_START:
            return self.opening()
        if k is EventKind.SEND_OFFER:
            return self.on_offer()
        if k is EventKind.FORMAL_ACCEPT and v.offer is not None and mine(v, v.offer) > v.batna:
            return self.accept()
        if k is EventKind.FORMAL_QUIT or (
            k is EventKind.SEND_MESSAGE
            and event.subclass in (SubClass.THREAT_POS, SubClass.THREAT_NEG)
        ):
            return self.on_threat()
        return []

    def on_threat(self) -> list[Event]:
        return (
            self.accept()
            if mine(self.view, self.view.offer) > self.view.batna
            and self.view.offer is not None
            and self.view.offer.full
            else []
        )


def _best(v: object) -> Event:
    view = v  # a GameView
    return Event(
        EventKind.SEND_MESSAGE, "person", subclass=SubClass.PREF_INFO,
        preference=Preference(view.ranking()[0], Relation.BEST),  # type: ignore[attr-defined]
    )  # fmt: skip


class Cooperative(_Person):
    name = "cooperative"
    accept_frac = 0.45
    late_frac = 0.3
    ask_frac = 0.55

    def opening(self) -> list[Event]:
        return [preset(3), _best(self.view), expression("happy")]

    def on_offer(self) -> list[Event]:
        if self.good():
            return [expression("happy"), *self.accept()]
        return [preset(10), *self.counter()]


class Greedy(_Person):
    name = "greedy"
    accept_frac = 0.6
    late_frac = 0.45
    ask_frac = 0.75

    def opening(self) -> list[Event]:
        v = self.view
        claim = Event(
            EventKind.SEND_MESSAGE, "person", subclass=SubClass.BATNA_INFO, value=2 * v.batna + 6
        )
        return [claim, *self.counter()]

    def threshold(self) -> float:
        v = self.view
        if v.elapsed >= v.total_time - 60:
            return v.batna + 1
        return super().threshold()

    def on_offer(self) -> list[Event]:
        if self.good():
            return self.accept()
        return [preset(6), expression("angry"), *self.counter()]


class Emotional(_Person):
    name = "emotional"
    accept_frac = 0.5
    late_frac = 0.35
    ask_frac = 0.6

    def on_offer(self) -> list[Event]:
        got = mine(self.view, self.view.offer)
        top = max_points(self.view)
        if self.good():
            return [expression("happy"), *self.accept()]
        mood = "sad" if got < 0.25 * top else "angry"
        return [expression(mood), *self.counter()]

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.SEND_EXPRESSION and event.emotion == "angry":
            return [expression("sad")]
        if event.kind is EventKind.SEND_EXPRESSION and event.emotion == "happy":
            return [expression("happy")]
        return super().on_event(event)


class Impatient(_Person):
    name = "impatient"
    accept_frac = 0.4
    late_frac = 0.4
    ask_frac = 0.5
    patience = 180.0
    _quit = False

    def on_event(self, event: Event) -> list[Event]:
        v = self.view
        if event.kind is EventKind.TIME and v.elapsed >= self.patience and not self._quit:
            self._quit = True
            return [preset(11), Event(EventKind.FORMAL_QUIT, "person")]
        return super().on_event(event)


PARTICIPANTS: dict[str, type[HanAgent]] = {
    p.name: p for p in (Cooperative, Greedy, Emotional, Impatient)
}
