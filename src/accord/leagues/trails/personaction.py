"""A person's action on the Colored Trails game page: the request body, why it cannot be
done now (in the person's words), and the engine action it stands for.

    >>> person_action(ActIn(kind="transfer", send=[1, 0, 2]), 3)
    Transfer(send=(1, 0, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from accord.leagues.trails.engine import (
    Action,
    EndMove,
    Game,
    Move,
    Pass,
    Propose,
    Respond,
    Transfer,
)
from accord.leagues.trails.rules import MOST_ASKED
from accord.web.errors import WebError

__all__ = ["LETTERS", "MAX_CHIPS", "ActIn", "person_action", "refusal"]

MAX_CHIPS = MOST_ASKED
"""The most chips of one colour a request may name (boards hold far fewer)."""
Count = Annotated[int, Field(ge=0, le=MAX_CHIPS)]
LETTERS = "ABCDEFGHIJ"


class ActIn(BaseModel):
    """One action from the page; ``turn`` and ``phase`` (optional) say which step of the
    game it was meant for: an action for a step that is over is refused (a double click)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["propose", "pass", "respond", "transfer", "move", "endmove"]
    give: list[Count] = Field(default_factory=list, max_length=10)
    take: list[Count] = Field(default_factory=list, max_length=10)
    send: list[Count] = Field(default_factory=list, max_length=10)
    accept: bool = False
    cell: int = Field(default=-1, ge=-1, le=10_000)
    turn: int | None = Field(default=None, ge=0, le=10_000)
    phase: Literal["propose", "respond", "transfer", "move"] | None = None


def _words(v: Sequence[int] | np.ndarray) -> str:
    parts = [f"{int(n)} {LETTERS[k]}" for k, n in enumerate(v) if int(n)]
    return ", ".join(parts) or "no chips"


_DOING = {
    "propose": "make or pass on a proposal",
    "respond": "accept or reject the proposal",
    "transfer": "send chips",
    "move": "move or end your move",
}


def refusal(body: ActIn, g: Game, me: int) -> tuple[int, str]:
    """Why the person's action cannot be done now, in their words, with the HTTP status
    (409: not now, 422: not possible; ``(0, "")`` when it can be done)."""
    phase = g.phase.value
    if (
        body.turn is not None
        and body.phase is not None
        and (body.turn, body.phase)
        != (
            g.turn,
            phase,
        )
    ):
        return 409, (
            f"this action was meant for turn {body.turn + 1} ({body.phase}); the game has "
            f"moved on to turn {g.turn + 1} ({phase}), so nothing was done. Look at the "
            "board again and choose"
        )
    if g.actor != me:
        return 409, f"it is the other player's turn to {_DOING.get(phase, phase)}; please wait"
    fits = {
        "propose": ("propose", "pass"),
        "respond": ("respond",),
        "transfer": ("transfer",),
        "move": ("move", "endmove"),
    }[phase]
    if body.kind not in fits:
        return 409, f"now is the time to {_DOING[phase]}, not to {body.kind}; nothing was done"
    n = g.board.n_colors
    for name in ("give", "take", "send"):
        v = getattr(body, name)
        if name in _USED[body.kind] and len(v) != n:
            return 422, f"{name} must list {n} chip counts (one per colour); got {len(v)}"
    mine, theirs = g.chips[me], g.chips[1 - me]
    if body.kind == "propose":
        if any(a > b for a, b in zip(body.give, mine, strict=True)):
            return 422, (
                f"you offered to give {_words(body.give)} but you hold {_words(mine)}; "
                "nothing was sent: change the proposal and send it again"
            )
        if g.rules.visibility == "full" and any(
            a > b for a, b in zip(body.take, theirs, strict=True)
        ):
            return 422, (
                f"you asked for {_words(body.take)} but the other player holds "
                f"{_words(theirs)}; nothing was sent: change the proposal and send it again"
            )
    if body.kind == "transfer" and any(a > b for a, b in zip(body.send, mine, strict=True)):
        return 422, (
            f"you tried to send {_words(body.send)} but you hold {_words(mine)}; nothing was "
            "sent: change the amounts and send again"
        )
    if body.kind == "move":
        here = g.positions[me]
        if body.cell not in g.board.neighbours(here):
            return 422, "you can move only to a square next to yours; nothing was done"
        color = g.board.colors[body.cell]
        if mine[color] < 1:
            return 422, (
                f"moving there needs a chip of colour {LETTERS[color]} and you have none; "
                "nothing was done"
            )
    return 0, ""


_USED = {
    "propose": ("give", "take"),
    "transfer": ("send",),
    "pass": (),
    "respond": (),
    "move": (),
    "endmove": (),
}


def person_action(body: ActIn, n: int) -> Action:
    """The engine's action for a checked ``body`` on a board of ``n`` colours (a chip
    list of another length is a 422)."""

    def vec(v: list[int], what: str) -> tuple[int, ...]:
        if len(v) != n:
            raise WebError(422, f"{what} must be {n} chip counts; got {v}")
        return tuple(v)

    if body.kind == "propose":
        return Propose(vec(body.give, "give"), vec(body.take, "take"))
    if body.kind == "pass":
        return Pass()
    if body.kind == "respond":
        return Respond(body.accept)
    if body.kind == "transfer":
        return Transfer(vec(body.send, "send"))
    if body.kind == "move":
        return Move(body.cell)
    return EndMove()
