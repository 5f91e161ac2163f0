"""Colored Trails as a :class:`~accord.core.protocols.rules.Rules` machine: ``colored-trails-v1``.

The state is the engine's :class:`~accord.leagues.trails.engine.Game` (a board, chips,
positions, the phase of the turn); :class:`TrailsRules` says who acts, what they may do,
applies an action at once or refuses it (:class:`~accord.core.protocols.rules.IllegalAction`,
state unchanged) and turns an agent's failure into what the league's rules say: the
failure is recorded against that player and the phase's null action is played (pass,
reject, send nothing, stop moving); the game goes on. Time plays no part.

    >>> from accord.leagues.trails.board import Board
    >>> from accord.leagues.trails.engine import Propose, Respond, Setup
    >>> rules = TrailsRules()
    >>> g = rules.initial(Setup(Board.parse(["AB", "BA"]), (0, 3), (3, 0), ((0, 2), (2, 0))), 0)
    >>> rules.to_act(g), rules.legal(g, 0).kinds
    ((0,), ('propose', 'pass'))
    >>> g, events = rules.apply(g, 0, Propose((0, 1), (1, 0)), 0.0)
    >>> [e.kind for e in events], rules.to_act(g)
    (['propose'], (1,))
    >>> rules.action_from_json(g, 1, {"kind": "accept", "args": {}})
    Respond(accept=True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.core import protocols
from accord.leagues.trails.board import Settings
from accord.leagues.trails.engine import (
    Action,
    EndMove,
    Game,
    Move,
    Pass,
    Phase,
    Propose,
    Respond,
    Setup,
    Transfer,
    legal_moves,
)
from accord.leagues.trails.protocol import COLORED_TRAILS

__all__ = ["MOST_ASKED", "TrailsRules"]

MOST_ASKED = 1000
"""The most chips of one colour a proposal may ask for where the proposer cannot see the
other's chips (``visibility="own"``): a bound from the chips in play would tell it them."""


class TrailsRules(protocols.Rules[Setup, Game, Action]):
    """The rules of one Colored Trails game under ``settings`` (scores, protocol, caps)."""

    info = COLORED_TRAILS

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()

    def example(self) -> Setup:
        """A seeded board of the ``mutual`` class (for checks and demos)."""
        from accord.leagues.trails.generator import generate

        return generate("mutual", 0)

    def initial(self, setup: Setup, seed: int) -> Game:
        return Game(setup, self.settings)

    def to_act(self, state: Game) -> tuple[int, ...]:
        return () if state.done else (state.actor,)

    def legal(self, state: Game, party: int) -> protocols.Legal:
        if state.done or party != state.actor:
            return protocols.Legal(party, ())
        phase = state.phase
        mine = [int(x) for x in state.chips[party]]
        if phase is Phase.PROPOSE:
            # what the other holds, where the player may see it; else any number (up to
            # MOST_ASKED): the game's chips would tell the player what the other holds
            n = state.board.n_colors
            full = state.rules.visibility == "full"
            seen = [int(x) for x in state.chips[1 - party]] if full else [MOST_ASKED] * n
            fields = _chips("give", mine) + _chips("take", seen)
            return protocols.Legal(
                party, (protocols.ActionSpec("propose", fields), protocols.ActionSpec("pass"))
            )
        if phase is Phase.RESPOND:
            return protocols.Legal(
                party, (protocols.ActionSpec("accept"), protocols.ActionSpec("reject"))
            )
        if phase is Phase.TRANSFER:
            return protocols.Legal(party, (protocols.ActionSpec("transfer", _chips("send", mine)),))
        cells = tuple(legal_moves(state, party))
        moves = (
            protocols.ActionSpec(
                "move", (protocols.ActionField("cell", protocols.FieldKind.CHOICE, options=cells),)
            ),
        )
        return protocols.Legal(party, (*(moves if cells else ()), protocols.ActionSpec("end_move")))

    def apply(
        self, state: Game, party: int, action: Action, now: float
    ) -> tuple[Game, Sequence[protocols.Event]]:
        if state.done:
            raise protocols.IllegalAction(party, action, "the game has ended")
        if party != state.actor:
            raise protocols.IllegalAction(
                party, action, f"it is player {state.actor}'s turn to {state.phase.value}"
            )
        problem = state.problem(party, action)
        if problem:
            raise protocols.IllegalAction(party, action, problem)
        return state, self._play(state, party, action)

    def fail(
        self, state: Game, party: int, failure: protocols.Failure, now: float
    ) -> tuple[Game, Sequence[protocols.Event]]:
        """The failure is recorded against ``party``; on its turn, the null action is played."""
        reason = failure.message
        if failure.kind is protocols.FailureKind.EXCEPTION:
            reason = f"agent raised {reason}"
        elif failure.kind is protocols.FailureKind.TIMEOUT:
            reason = f"agent timed out: {reason}"
        fault = protocols.Event("violation", party, {"reason": reason, "phase": state.phase.value})
        if state.done or party != state.actor:
            state.violate(party, reason, apply=False)
            return state, (fault,)
        null = state.null_action()
        state.violate(party, reason, apply=False)
        return state, (fault, *self._play(state, party, null))

    def _play(self, state: Game, party: int, action: Action) -> tuple[protocols.Event, ...]:
        turns = len(state.history)
        state.play(party, action)
        events = [protocols.Event(_kind(action), party, self.action_to_json(state, action)["args"])]
        if len(state.history) > turns:
            events.append(protocols.Event("turn", None, state.history[-1].to_dict()))
        if state.done:
            events.append(protocols.Event("end", None, self.result(state) or {}))
        return tuple(events)

    def observe(self, state: Game, party: int | None) -> dict[str, Any]:
        """The board, positions, goals and turn; a player's own chips (and the other's
        under ``visibility="full"``); a spectator sees all chips."""
        full = party is None or state.rules.visibility == "full"
        chips = [[int(x) for x in state.chips[k]] if full or k == party else None for k in (0, 1)]
        p = state.proposal
        return {
            "board": state.board.letters(),
            "n_colors": state.board.n_colors,
            "me": party,
            "turn": state.turn,
            "phase": state.phase.value,
            "actor": state.actor,
            "proposer": state.proposer,
            "positions": list(state.positions),
            "goals": list(state.goals),
            "chips": chips,
            "dormant": list(state.dormant),
            "proposal": None if p is None else {"give": list(p.give), "take": list(p.take)},
            "agreed": state.agreed,
            "history": [r.to_dict() for r in state.history] if full else [],
        }

    def result(self, state: Game) -> dict[str, Any] | None:
        if not state.done:
            return None
        return {
            "scores": state.scores(),
            "end": state.end_reason.value if state.end_reason else None,
            "turns": len(state.history),
            "reached": [state.positions[k] == state.goals[k] for k in (0, 1)],
            "violations": [v.__dict__ for v in state.violations],
        }

    def serialize(self, state: Game) -> dict[str, Any]:
        return state.to_json()

    def restore(self, data: Mapping[str, Any]) -> Game:
        return Game.from_json(data)

    def action_to_json(self, state: Game, action: Action) -> dict[str, Any]:
        if isinstance(action, Propose):
            args = {**_named("give", action.give), **_named("take", action.take)}
            return {"kind": "propose", "args": args}
        if isinstance(action, Respond):
            return {"kind": "accept" if action.accept else "reject", "args": {}}
        if isinstance(action, Transfer):
            return {"kind": "transfer", "args": _named("send", action.send)}
        if isinstance(action, Move):
            return {"kind": "move", "args": {"cell": action.cell}}
        return {"kind": _kind(action), "args": {}}

    def action_from_json(self, state: Game, party: int, data: Any) -> Action:
        self.legal(state, party).require(party, data)
        kind, args = data["kind"], data["args"]
        n = state.board.n_colors
        if kind == "propose":
            return Propose(_vector(args, "give", n), _vector(args, "take", n))
        if kind == "transfer":
            return Transfer(_vector(args, "send", n))
        if kind == "move":
            return Move(int(args["cell"]))
        simple: dict[str, Action] = {
            "pass": Pass(), "accept": Respond(True), "reject": Respond(False), "end_move": EndMove(),
        }  # fmt: skip
        return simple[kind]


def _chips(name: str, most: Sequence[int]) -> tuple[protocols.ActionField, ...]:
    """One whole-number field per colour, ``name_c`` in ``[0, most[c]]``."""
    return tuple(
        protocols.ActionField(f"{name}_{c}", protocols.FieldKind.INTEGER, low=0, high=int(m))
        for c, m in enumerate(most)
    )


def _named(name: str, counts: Sequence[int]) -> dict[str, int]:
    return {f"{name}_{c}": int(x) for c, x in enumerate(counts)}


def _vector(args: Mapping[str, Any], name: str, n: int) -> tuple[int, ...]:
    return tuple(int(args[f"{name}_{c}"]) for c in range(n))


def _kind(action: Action) -> str:
    names = {Propose: "propose", Pass: "pass", Transfer: "transfer", Move: "move"}
    if isinstance(action, Respond):
        return "accept" if action.accept else "reject"
    return names.get(type(action), "end_move")
