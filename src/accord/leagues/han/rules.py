"""The IAGO-style game as a :class:`~accord.core.protocols.rules.Rules` machine: ``han-v1``.

The state is the engine's :class:`~accord.leagues.han.engine.Game`. Party 0 is the
agent's side, party 1 the person's; both may act at any time (events flow both ways),
so :meth:`HanRules.to_act` names both until the game ends. An action is an
:class:`~accord.leagues.han.events.Event` of its sender; one the rules refuse raises
:class:`~accord.core.protocols.rules.IllegalAction` and changes nothing. Time is what
the driver passes in: :meth:`HanRules.tick` gives the one-minute warning and ends the
game at its limit with both BATNAs. An agent's failure is what the league says: an
exception or an invalid answer is recorded against it and the game goes on; an agent
that is late past its deadline or dead ends the game with both BATNAs (outcome ``left``).

    >>> from accord.leagues.han.domain import EXAMPLE_2, Offer
    >>> from accord.leagues.han.events import Event, EventKind
    >>> rules = HanRules()
    >>> g = rules.initial(EXAMPLE_2, seed=0)
    >>> offer = Offer.of([(6, 0, 0), (0, 0, 6), (0, 0, 1)])
    >>> g, _ = rules.apply(g, 0, Event(EventKind.SEND_OFFER, "agent", offer=offer), 1.0)
    >>> g, _ = rules.apply(g, 1, Event(EventKind.FORMAL_ACCEPT, "person"), 2.0)
    >>> g, events = rules.apply(g, 0, Event(EventKind.FORMAL_ACCEPT, "agent"), 3.0)
    >>> events[-1].kind, rules.result(g).points
    ('end', {'agent': 30, 'person': 20})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from accord.core import protocols
from accord.core.errors import InvalidOffer
from accord.core.protocols.base import Phase
from accord.leagues.han.domain import GameSpec, Offer, Role
from accord.leagues.han.engine import Game, GameResult, Violation, reason_of
from accord.leagues.han.events import (
    EMOTIONS,
    PRESET_UTTERANCES,
    InvalidEvent,
    Preference,
    Relation,
    SubClass,
    event_from_json,
)
from accord.leagues.han.events import Event as HanEvent
from accord.leagues.han.events import EventKind as K
from accord.leagues.han.protocol import HAN

__all__ = ["SIDES", "HanRules"]

SIDES: tuple[Role, Role] = ("agent", "person")
"""Party k's side of the board."""


class HanRules(protocols.Rules[GameSpec, Game, HanEvent]):
    """The rules of one game; ``person_menu_only``/``agent_is_person`` as in
    :class:`~accord.leagues.han.engine.Game`."""

    info = HAN

    def __init__(self, person_menu_only: bool = True, agent_is_person: bool = False) -> None:
        self.person_menu_only = person_menu_only
        self.agent_is_person = agent_is_person

    def example(self) -> GameSpec:
        """The 2017 example game 1, 50 ms long (random checks play about 50 actions)."""
        from accord.leagues.han.domain import EXAMPLE_1

        return EXAMPLE_1.with_time(0.05, 0.01)

    def initial(self, setup: GameSpec, seed: int) -> Game:
        return Game(setup, self.person_menu_only, self.agent_is_person)

    def to_act(self, state: Game) -> tuple[int, ...]:
        return () if state.ended else (0, 1)

    def legal(self, state: Game, party: int) -> protocols.Legal:
        """Exactly what the rules take from ``party`` now: an offer splits each issue into
        (agent, undecided, person) counts summing to its quantity; a formal accept needs a
        full offer on the table; free text only where the side is not held to the menus."""
        if state.ended or party not in (0, 1):
            return protocols.Legal(party, ())
        spec = state.spec
        n = len(spec.issues)
        splits = tuple(
            protocols.ActionField(
                f"issue_{i}", protocols.FieldKind.CHOICE, options=_splits(q), label=spec.issues[i]
            )
            for i, q in enumerate(spec.quantities)
        )
        issue = tuple(range(n))
        pair = tuple(r.value for r in Relation if r not in (Relation.BEST, Relation.WORST))
        presets = tuple(range(1, len(PRESET_UTTERANCES) + 1))
        act, field, choice = protocols.ActionSpec, protocols.ActionField, protocols.FieldKind.CHOICE
        specs = [
            act("SEND_EXPRESSION", (field("emotion", choice, options=EMOTIONS),)),
            act("SEND_OFFER", splits),
            act("preset", (field("preset", choice, options=presets),)),
            act("preference", (
                field("issue1", choice, options=issue),
                field("relation", choice, options=pair),
                field("issue2", choice, options=issue),
                field("query", choice, options=(False, True)),
            )),
            act("preference_one", (
                field("issue1", choice, options=issue),
                field("relation", choice, options=("BEST", "WORST")),
                field("query", choice, options=(False, True)),
            )),
            act("batna", (field("batna", protocols.FieldKind.INTEGER, low=0, high=10_000),)),
        ]  # fmt: skip
        if state.last_offer is not None and state.last_offer.full:
            specs.append(protocols.ActionSpec("FORMAL_ACCEPT"))
        specs.append(protocols.ActionSpec("FORMAL_QUIT"))
        if not self._menu_only(party):
            specs.append(
                protocols.ActionSpec(
                    "text",
                    (protocols.ActionField("text", protocols.FieldKind.TEXT, max_length=500),),
                )
            )
        return protocols.Legal(party, tuple(specs))

    def apply(
        self, state: Game, party: int, action: HanEvent, now: float
    ) -> tuple[Game, Sequence[protocols.Event]]:
        if party not in (0, 1):
            raise protocols.IllegalAction(
                party, action, "party 0 is the agent's side, 1 the person's"
            )
        if not isinstance(action, HanEvent):
            raise protocols.IllegalAction(party, action, "an action is an Event of the game")
        n = len(state.history)
        warned = state.warned
        try:
            state.apply_checked(action.owned_by(SIDES[party]), now)
        except (InvalidEvent, InvalidOffer) as exc:
            raise protocols.IllegalAction(party, action, str(exc)) from None
        warning = [protocols.Event("warning", None, {"left": state.spec.warning_time})]
        return state, (*(warning if state.warned and not warned else ()), *self._news(state, n))

    def tick(self, state: Game, now: float) -> tuple[Game, Sequence[protocols.Event]]:
        if state.ended:
            return state, ()
        warned = state.warned
        state.tick(now)
        out = []
        if state.warned and not warned:
            out.append(protocols.Event("warning", None, {"left": state.spec.warning_time}))
        if state.ended:
            out.append(protocols.Event("end", None, _result_json(state.result)))
        return state, tuple(out)

    def fail(
        self, state: Game, party: int, failure: protocols.Failure, now: float
    ) -> tuple[Game, Sequence[protocols.Event]]:
        side = SIDES[party]
        state.refuse(side, now, failure.message)
        out = [protocols.Event("violation", party, {"reason": failure.message})]
        if failure.kind is protocols.FailureKind.TIMEOUT and not state.ended:
            state.leave(side, now)
            out.append(protocols.Event("end", None, _result_json(state.result)))
        return state, tuple(out)

    def observe(self, state: Game, party: int | None) -> dict[str, Any]:
        """A side's view (its own values and BATNA, never the other's); a spectator sees
        the public game and the history."""
        if party is None:
            return {
                **state.spec.public(),
                "offer": None if state.last_offer is None else state.last_offer.to_list(),
                "accepted": sorted(state.accepted),
                "warned": state.warned,
                "ended": state.ended,
                "history": [[t, e.to_json()] for t, e in state.history],
            }
        out = state.state(SIDES[party])
        out["history"] = [[t, e.to_json()] for t, e in state.history]
        return out

    def result(self, state: Game) -> GameResult | None:
        return state.result if state.ended else None

    def serialize(self, state: Game) -> dict[str, Any]:
        r = state._result
        return {
            "spec": {
                k: list(v) if isinstance(v, tuple) else v for k, v in asdict(state.spec).items()
            },  # fmt: skip
            "person_menu_only": state.person_menu_only,
            "agent_is_person": state.agent_is_person,
            "phase": state.phase.value,
            "last_offer": _offer(state.last_offer),
            "first_offer": _offer(state.first_offer),
            "accepted": sorted(state.accepted),
            "quit_warned": sorted(state.quit_warned),
            "warned": state.warned,
            "last_time": state.last_time,
            "history": [[t, _event_json(e)] for t, e in state.history],
            "violations": [asdict(v) for v in state.violations],
            "counts": dict(state.counts),
            "result": None if r is None else {**_result_json(r), "end_time": r.end_time},
        }

    def restore(self, data: Mapping[str, Any]) -> Game:
        fields: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in data["spec"].items()
        }
        spec = GameSpec(**fields)
        g = Game(spec, bool(data["person_menu_only"]), bool(data["agent_is_person"]))
        g.phase = Phase(data["phase"])
        g.ended = g.phase is Phase.ENDED
        g.last_offer = _offer_of(data["last_offer"])
        g.first_offer = _offer_of(data["first_offer"])
        g.accepted = set(data["accepted"])
        g.quit_warned = set(data["quit_warned"])
        g.warned = bool(data["warned"])
        g.last_time = float(data["last_time"])
        g.history = [(float(t), _event_of(e)) for t, e in data["history"]]
        g.violations = [Violation(**v) for v in data["violations"]]
        g.counts = Counter(data["counts"])
        r = data["result"]
        if r is not None:
            g._result = GameResult(
                reason_of(r["outcome"]), dict(r["points"]), _offer_of(r["offer"]),
                float(r["end_time"]), tuple(g.violations), r["left_by"],
            )  # fmt: skip
        return g

    def action_to_json(self, state: Game, action: HanEvent) -> dict[str, Any]:
        if action.kind is K.SEND_OFFER and action.offer is not None:
            cells = {
                f"issue_{i}": ",".join(map(str, row)) for i, row in enumerate(action.offer.rows)
            }
            return {"kind": "SEND_OFFER", "args": cells}
        if action.kind is K.SEND_EXPRESSION:
            return {"kind": "SEND_EXPRESSION", "args": {"emotion": action.emotion}}
        if action.kind is K.SEND_MESSAGE:
            if action.preference is not None:
                p = action.preference
                args = {"issue1": p.issue1, "relation": p.relation.value, "query": p.query}
                if p.relation in (Relation.BEST, Relation.WORST):
                    return {"kind": "preference_one", "args": args}
                return {"kind": "preference", "args": {**args, "issue2": p.issue2}}
            if action.subclass is SubClass.BATNA_INFO:
                return {"kind": "batna", "args": {"batna": action.value}}
            if action.code > 0 and action.text in {t for t, _ in PRESET_UTTERANCES}:
                return {"kind": "preset", "args": {"preset": action.code}}
            return {"kind": "text", "args": {"text": action.text}}
        return {"kind": action.kind.value, "args": {}}

    def action_from_json(self, state: Game, party: int, data: Any) -> HanEvent:
        self.legal(state, party).require(party, data)
        kind, args = data["kind"], dict(data["args"])
        side = SIDES[party]
        if kind == "text":  # free text (agents): any up to 500 characters
            return HanEvent(K.SEND_MESSAGE, side, text=str(args["text"]))
        if kind == "SEND_OFFER":
            rows = [[int(x) for x in str(args[f"issue_{i}"]).split(",")]
                    for i in range(len(state.spec.issues))]  # fmt: skip
            raw: dict[str, Any] = {"kind": kind, "offer": rows}
        elif kind == "preference_one":
            raw = {"kind": "SEND_MESSAGE", "preference": {**args, "issue2": -1}}
        elif kind == "preference":
            raw = {"kind": "SEND_MESSAGE", "preference": args}
        elif kind in ("preset", "batna"):
            raw = {"kind": "SEND_MESSAGE", **args}
        else:
            raw = {"kind": kind, **args}
        try:
            return event_from_json(raw, side)
        except InvalidEvent as exc:
            raise protocols.IllegalAction(party, data, str(exc)) from None

    # -- internals ------------------------------------------------------------------------
    def _menu_only(self, party: int) -> bool:
        return (party == 1 and self.person_menu_only) or (party == 0 and self.agent_is_person)

    def _news(self, state: Game, since: int) -> list[protocols.Event]:
        out = [protocols.Event(e.kind.value, SIDES.index(e.owner) if e.owner in SIDES else None,
                     e.to_json()) for _, e in state.history[since:]]  # fmt: skip
        if state.ended:
            out.append(protocols.Event("end", None, _result_json(state.result)))
        return out


def _splits(q: int) -> tuple[str, ...]:
    """Every (agent, undecided, person) split of ``q`` items, as ``"a,u,p"``."""
    return tuple(f"{a},{q - a - p},{p}" for a in range(q + 1) for p in range(q + 1 - a))


def _offer(o: Offer | None) -> list[list[int]] | None:
    return None if o is None else o.to_list()


def _offer_of(rows: Any) -> Offer | None:
    return None if rows is None else Offer.of(rows)


def _result_json(r: GameResult) -> dict[str, Any]:
    return {"outcome": r.outcome, "points": dict(r.points), "offer": _offer(r.offer),
            "left_by": r.left_by}  # fmt: skip


def _event_json(e: HanEvent) -> dict[str, Any]:
    return {**e.to_json(), "code": e.code, "value": e.value, "delay": e.delay}


def _event_of(d: Mapping[str, Any]) -> HanEvent:
    p = d.get("preference")
    pref = None if p is None else Preference(
        int(p["issue1"]), Relation(p["relation"]), int(p["issue2"]), bool(p["query"])
    )  # fmt: skip
    return HanEvent(
        K(d["kind"]), d["owner"], d.get("text", ""), SubClass(d.get("subclass", "NONE")),
        int(d["code"]), int(d["value"]), pref, _offer_of(d.get("offer")),
        d.get("emotion", ""), float(d["delay"]),
    )  # fmt: skip
