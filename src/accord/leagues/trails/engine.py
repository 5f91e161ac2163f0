"""The Colored Trails game as a pure state machine: negotiation, non-binding transfer, movement.

One turn (documented defaults; the paper leaves the turn protocol open):

1. **Propose** (phase ``PROPOSE``): the proposer (player ``turn % 2``, so roles alternate)
   sends one :class:`Propose` (chips it gives, chips it asks for) or :class:`Pass`.
2. **Respond** (``RESPOND``): the other player accepts or rejects (:class:`Respond`).
   Under ``rules.protocol == "counter"`` steps 1-2 repeat up to ``rules.rounds`` times with
   the proposer alternating (a rejection or a pass hands the next slot to the other
   player); an acceptance ends the negotiation (see :class:`~.board.Settings`).
3. **Transfer** (``TRANSFER``): player 0 then player 1 choose what they actually send
   (:class:`Transfer`, any sub-multiset of their own chips, whatever was promised); both
   transfers are applied together once both have chosen. Agreements are not enforced.
4. **Move** (``MOVE``): player 0 then player 1 make any number of :class:`Move` steps to
   adjacent cells, each paying one chip of that cell's colour, then :class:`EndMove`.

A player who reaches its goal stops moving; at the end of the movement phase (so both
players have had their move) the game ends when a player stands on its goal (both players,
under ``rules.until == "both"``), when a player
has not moved for ``rules.dormant_limit`` consecutive turns, or at ``rules.max_turns``. Every action is checked; an invalid one is recorded against its sender
in :attr:`Game.violations` and replaced by the phase's null action (pass, reject, send
nothing, stop moving); an action out of turn is recorded and ignored.

    >>> from accord.leagues.trails.board import Board
    >>> setup = Setup(Board.parse(["AB", "BA"]), (0, 3), (3, 0), ((0, 2), (2, 0)))
    >>> g = Game(setup)
    >>> g.step(0, Propose((0, 1), (1, 0))).ok, g.phase.name
    (True, 'RESPOND')
    >>> g.step(1, Respond(True)).ok
    True
    >>> _ = g.step(0, Transfer((0, 1))); _ = g.step(1, Transfer((0, 0)))   # 1 breaks its word
    >>> g.chips.tolist()
    [[0, 1], [2, 1]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.leagues.trails.board import Board, Chips, Settings

__all__ = [
    "Action",
    "EndMove",
    "EndReason",
    "Game",
    "Move",
    "Pass",
    "Phase",
    "Propose",
    "Respond",
    "Setup",
    "StepResult",
    "Transfer",
    "TurnRecord",
    "Violation",
    "legal_moves",
]


class Phase(Enum):
    PROPOSE = "propose"
    RESPOND = "respond"
    TRANSFER = "transfer"
    MOVE = "move"
    ENDED = "ended"


class EndReason(Enum):
    GOAL = "goal"
    DORMANT = "dormant"
    MAX_TURNS = "max_turns"


@dataclass(frozen=True)
class Propose:
    """The proposer promises ``give`` and asks for ``take`` (colour count vectors)."""

    give: tuple[int, ...]
    take: tuple[int, ...]


@dataclass(frozen=True)
class Pass:
    """No proposal this turn."""


@dataclass(frozen=True)
class Respond:
    accept: bool


@dataclass(frozen=True)
class Transfer:
    """The chips actually sent (a colour count vector)."""

    send: tuple[int, ...]


@dataclass(frozen=True)
class Move:
    cell: int


@dataclass(frozen=True)
class EndMove:
    """Stop moving this turn."""


Action = Propose | Pass | Respond | Transfer | Move | EndMove


@dataclass(frozen=True)
class Setup:
    """A board, each player's start and goal cell, and each player's chips."""

    board: Board
    starts: tuple[int, int]
    goals: tuple[int, int]
    chips: tuple[tuple[int, ...], tuple[int, ...]]

    def __post_init__(self) -> None:
        b = self.board
        if len(self.starts) != 2 or len(self.goals) != 2 or len(self.chips) != 2:
            raise ConfigError("a Colored Trails setup has two players: two starts, goals, chips")
        for k in range(2):
            b.check_cell(self.starts[k], f"player {k}'s start")
            b.check_cell(self.goals[k], f"player {k}'s goal")
            if len(self.chips[k]) != b.n_colors or min(self.chips[k]) < 0:
                raise ConfigError(
                    f"player {k}'s chips must be {b.n_colors} non-negative counts; "
                    f"got {self.chips[k]!r}"
                )

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": self.board.letters(),
            "n_colors": self.board.n_colors,
            "starts": list(self.starts),
            "goals": list(self.goals),
            "chips": [list(c) for c in self.chips],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Setup:
        try:
            board = Board.parse(d["board"], int(d["n_colors"]))
            s, g, c = d["starts"], d["goals"], d["chips"]
            return cls(
                board,
                (int(s[0]), int(s[1])),
                (int(g[0]), int(g[1])),
                (tuple(int(x) for x in c[0]), tuple(int(x) for x in c[1])),
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ConfigError(
                "a setup is {board, n_colors, starts, goals, chips}; "
                f"got {sorted(d) if isinstance(d, dict) else d!r} ({exc})"
            ) from exc


@dataclass(frozen=True)
class StepResult:
    ok: bool
    error: str = ""


@dataclass(frozen=True)
class Violation:
    turn: int
    player: int
    phase: str
    reason: str


@dataclass
class TurnRecord:
    """What happened in one turn: who proposed what, the answer, promised vs sent chips."""

    turn: int
    proposer: int
    proposal: Propose | None = None
    accepted: bool = False
    offers: list[dict[str, Any]] = field(default_factory=list)
    promised: list[list[int]] = field(default_factory=lambda: [[], []])
    sent: list[list[int]] = field(default_factory=lambda: [[], []])
    moved: list[int] = field(default_factory=lambda: [0, 0])
    positions: list[int] = field(default_factory=list)
    chips: list[list[int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        p = self.proposal
        return {
            "turn": self.turn,
            "proposer": self.proposer,
            "give": list(p.give) if p else None,
            "take": list(p.take) if p else None,
            "accepted": self.accepted,
            "offers": self.offers,
            "promised": self.promised,
            "sent": self.sent,
            "moved": self.moved,
            "positions": self.positions,
            "chips": self.chips,
        }


class Game:
    """One two-player game; drive it with :meth:`step` (see the module docstring)."""

    def __init__(self, setup: Setup, rules: Settings | None = None) -> None:
        self.setup = setup
        self.rules = rules if rules is not None else Settings()
        self.board = setup.board
        self.chips: Chips = np.array(setup.chips, dtype=np.int64)
        self.positions = list(setup.starts)
        self.goals = setup.goals
        self.turn = 0
        self.phase = Phase.PROPOSE
        self.actor = 0
        self.proposer = 0  # who proposes (or proposed) in the current slot
        self.slot = 0  # the proposal slot of this negotiation phase
        self.dormant = [0, 0]
        self.proposal: Propose | None = None
        self.agreed = False
        self._sends: list[Chips | None] = [None, None]
        self.violations: list[Violation] = []
        self.history: list[TurnRecord] = []
        self.trails: list[list[int]] = [[], []]
        self.record = TurnRecord(0, 0)
        self.end_reason: EndReason | None = None
        self._total = self.chips.sum(axis=0)
        if self._home_ends():
            self._end(EndReason.GOAL)

    # --- reading ---------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.phase is Phase.ENDED

    def scores(self) -> list[int]:
        """Each player's score if the game ended now."""
        return [
            self.rules.score(self.board, self.positions[k], self.goals[k], self.chips[k])
            for k in range(2)
        ]

    def promised(self, player: int) -> Chips:
        """What ``player`` promised to send this turn (zeros without an agreement)."""
        zero = np.zeros(self.board.n_colors, dtype=np.int64)
        if not self.agreed or self.proposal is None:
            return zero
        side = self.proposal.give if player == self.proposer else self.proposal.take
        return np.array(side, dtype=np.int64)

    def independent(self, player: int, chips: Chips | None = None) -> bool:
        """Whether ``player`` can reach its goal with its own chips (or ``chips``)."""
        c = self.chips[player] if chips is None else chips
        return self.board.can_reach(self.positions[player], self.goals[player], c)

    # --- acting ----------------------------------------------------------------
    def step(self, player: int, action: Action) -> StepResult:
        """Apply ``player``'s action; an invalid one is recorded and nullified."""
        if self.phase is Phase.ENDED:
            return self._violate(player, "the game has ended", apply=False)
        if player != self.actor:
            return self._violate(
                player, f"it is player {self.actor}'s turn to {self.phase.value}", apply=False
            )
        problem = self._check(player, action)
        if problem:
            return self._violate(player, problem, apply=True)
        self._apply(player, action)
        return StepResult(True)

    def _violate(self, player: int, reason: str, *, apply: bool) -> StepResult:
        self.violations.append(Violation(self.turn, player, self.phase.value, reason))
        if apply:
            self._apply(player, self.null_action())
        return StepResult(False, reason)

    # --- the pieces :class:`~accord.leagues.trails.rules.TrailsRules` is made of ---------
    def problem(self, player: int, action: Action) -> str:
        """Why the actor ``player`` may not play ``action`` now ("" if it may)."""
        return self._check(player, action)

    def play(self, player: int, action: Action) -> None:
        """Apply an action :meth:`problem` found nothing wrong with."""
        self._apply(player, action)

    def violate(self, player: int, reason: str, *, apply: bool) -> None:
        """Record ``reason`` against ``player`` (and play the null action with ``apply``)."""
        self._violate(player, reason, apply=apply)

    def null_action(self) -> Action:
        """What a player who fails plays in this phase: pass, reject, send nothing, stop."""
        return _NULL[self.phase](self.board.n_colors)

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (:meth:`from_json` reads it back)."""
        p = self.proposal
        return {
            "setup": self.setup.to_dict(),
            "settings": asdict(self.rules),
            "chips": self.chips.tolist(),
            "positions": list(self.positions),
            "turn": self.turn,
            "phase": self.phase.value,
            "actor": self.actor,
            "proposer": self.proposer,
            "slot": self.slot,
            "dormant": list(self.dormant),
            "proposal": None if p is None else [list(p.give), list(p.take)],
            "agreed": self.agreed,
            "sends": [None if s is None else s.tolist() for s in self._sends],
            "violations": [asdict(v) for v in self.violations],
            "history": [_record_json(r) for r in self.history],
            "trails": [list(t) for t in self.trails],
            "record": _record_json(self.record),
            "end": None if self.end_reason is None else self.end_reason.value,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Game:
        """The game :meth:`to_json` wrote."""
        g = cls(Setup.from_dict(dict(d["setup"])), Settings(**d["settings"]))
        g.chips = np.array(d["chips"], dtype=np.int64)
        g.positions = [int(x) for x in d["positions"]]
        g.turn, g.phase = int(d["turn"]), Phase(d["phase"])
        g.actor, g.proposer, g.slot = int(d["actor"]), int(d["proposer"]), int(d["slot"])
        g.dormant = [int(x) for x in d["dormant"]]
        p = d["proposal"]
        g.proposal = None if p is None else Propose(tuple(p[0]), tuple(p[1]))
        g.agreed = bool(d["agreed"])
        g._sends = [None if s is None else np.array(s, dtype=np.int64) for s in d["sends"]]
        g.violations = [Violation(**v) for v in d["violations"]]
        g.history = [_record_of(r) for r in d["history"]]
        g.trails = [[int(x) for x in t] for t in d["trails"]]
        g.record = _record_of(d["record"])
        g.end_reason = None if d["end"] is None else EndReason(d["end"])
        return g

    def _vector(self, v: object, what: str) -> Chips | str:
        n = self.board.n_colors
        if not isinstance(v, tuple | list) or len(v) != n:
            return f"{what} must be {n} chip counts; got {v!r}"
        try:
            arr = np.array([int(x) for x in v], dtype=np.int64)
        except (TypeError, ValueError):
            return f"{what} must be integer chip counts; got {v!r}"
        if (arr < 0).any():
            return f"{what} must be non-negative; got {v!r}"
        return arr

    def _check(self, player: int, action: Action) -> str:
        other = 1 - player
        phase = self.phase
        if phase is Phase.PROPOSE:
            if isinstance(action, Pass):
                return ""
            if not isinstance(action, Propose):
                return f"expected Propose or Pass; got {type(action).__name__}"
            give, take = self._vector(action.give, "give"), self._vector(action.take, "take")
            for v in (give, take):
                if isinstance(v, str):
                    return v
            assert not isinstance(give, str) and not isinstance(take, str)
            if (give > self.chips[player]).any():
                return f"cannot promise {give.tolist()}: holds {self.chips[player].tolist()}"
            if self.rules.visibility == "full" and (take > self.chips[other]).any():
                return (
                    f"cannot ask for {take.tolist()}: the other holds {self.chips[other].tolist()}"
                )
            return ""
        if phase is Phase.RESPOND:
            return "" if isinstance(action, Respond) else f"expected Respond; got {action!r}"
        if phase is Phase.TRANSFER:
            if not isinstance(action, Transfer):
                return f"expected Transfer; got {type(action).__name__}"
            send = self._vector(action.send, "send")
            if isinstance(send, str):
                return send
            if (send > self.chips[player]).any():
                return f"cannot send {send.tolist()}: holds {self.chips[player].tolist()}"
            return ""
        if isinstance(action, EndMove):
            return ""
        if not isinstance(action, Move):
            return f"expected Move or EndMove; got {type(action).__name__}"
        here = self.positions[player]
        if not isinstance(action.cell, int) or action.cell not in self.board.neighbours(here):
            return f"cell {action.cell!r} is not adjacent to cell {here}"
        color = self.board.colors[action.cell]
        if self.chips[player, color] < 1:
            return f"moving to cell {action.cell} needs a chip of colour {color}; has none"
        return ""

    def _apply(self, player: int, action: Action) -> None:
        rec = self.record
        if self.phase is Phase.PROPOSE:
            if isinstance(action, Propose):
                self.proposal = Propose(
                    tuple(int(x) for x in action.give), tuple(int(x) for x in action.take)
                )
                rec.proposal, rec.proposer = self.proposal, player
                rec.offers.append(
                    {"from": player, "give": list(self.proposal.give),
                     "take": list(self.proposal.take), "accepted": False}
                )  # fmt: skip
                self.phase, self.actor = Phase.RESPOND, 1 - player
            else:
                self._next_slot()
        elif self.phase is Phase.RESPOND:
            assert isinstance(action, Respond)
            if action.accept:
                self.agreed = rec.accepted = True
                rec.offers[-1]["accepted"] = True
                self._to_transfer()
            else:
                self._next_slot()
        elif self.phase is Phase.TRANSFER:
            assert isinstance(action, Transfer)
            self._sends[player] = np.array(action.send, dtype=np.int64)
            if player == 0:
                self.actor = 1
            else:
                self._do_transfers()
        elif isinstance(action, Move):
            color = self.board.colors[action.cell]
            self.chips[player, color] -= 1
            self.positions[player] = action.cell
            self.trails[player].append(action.cell)
            rec.moved[player] += 1
            if action.cell == self.goals[player]:
                self._apply(player, EndMove())  # at its goal: its movement is over
        else:
            if player == 0:
                self.actor = 1
            else:
                self._close_turn()

    def _next_slot(self) -> None:
        """After a pass or a rejection: the other player's slot, or the transfer phase."""
        self.slot += 1
        if self.slot >= self.rules.negotiation_rounds:
            self._to_transfer()
            return
        self.proposer = 1 - self.proposer
        self.proposal = None
        self.phase, self.actor = Phase.PROPOSE, self.proposer

    def _to_transfer(self) -> None:
        self.record.promised = [self.promised(k).tolist() for k in range(2)]
        self.phase, self.actor = Phase.TRANSFER, 0

    def _do_transfers(self) -> None:
        s0, s1 = self._sends
        assert s0 is not None and s1 is not None
        self.chips[0] += s1 - s0
        self.chips[1] += s0 - s1
        self.record.sent = [s0.tolist(), s1.tolist()]
        self._sends = [None, None]
        self.phase, self.actor = Phase.MOVE, 0

    def _close_turn(self) -> None:
        rec = self.record
        rec.positions = list(self.positions)
        rec.chips = self.chips.tolist()
        self.history.append(rec)
        for k in range(2):
            home = self.positions[k] == self.goals[k]  # at home: never dormant
            self.dormant[k] = 0 if rec.moved[k] or home else self.dormant[k] + 1
        if self._home_ends():
            self._end(EndReason.GOAL)
        elif max(self.dormant) >= self.rules.dormant_limit:
            self._end(EndReason.DORMANT)
        elif self.rules.max_turns is not None and self.turn + 1 >= self.rules.max_turns:
            self._end(EndReason.MAX_TURNS)
        else:
            self.turn += 1
            self.proposal, self.agreed = None, False
            self.proposer, self.slot = self.turn % 2, 0
            self.record = TurnRecord(self.turn, self.proposer)
            self.phase, self.actor = Phase.PROPOSE, self.proposer

    def _home_ends(self) -> bool:
        """A player at its goal ends the game (``until="first"``), or both (``"both"``)."""
        home = [self.positions[k] == self.goals[k] for k in range(2)]
        return all(home) if self.rules.until == "both" else any(home)

    def _end(self, reason: EndReason) -> None:
        self.phase, self.end_reason, self.actor = Phase.ENDED, reason, -1

    def chips_conserved(self) -> bool:
        """Chips held plus chips spent on moves equal the chips dealt (a self-check)."""
        spent = np.zeros(self.board.n_colors, dtype=np.int64)
        for k in range(2):
            spent += self.board.path_cost(self.setup.starts[k], self.trails[k])
        return bool(((self.chips.sum(axis=0) + spent) == self._total).all())


def _record_json(r: TurnRecord) -> dict[str, Any]:
    return {**r.to_dict(), "proposal_set": r.proposal is not None}


def _record_of(d: Mapping[str, Any]) -> TurnRecord:
    prop = Propose(tuple(d["give"]), tuple(d["take"])) if d.get("proposal_set") else None
    return TurnRecord(
        int(d["turn"]), int(d["proposer"]), prop, bool(d["accepted"]),
        [dict(o) for o in d["offers"]], [list(x) for x in d["promised"]],
        [list(x) for x in d["sent"]], list(d["moved"]), list(d["positions"]),
        [list(x) for x in d["chips"]],
    )  # fmt: skip


def _null_propose(n: int) -> Action:
    return Pass()


def _null_respond(n: int) -> Action:
    return Respond(False)


def _null_transfer(n: int) -> Action:
    return Transfer((0,) * n)


def _null_move(n: int) -> Action:
    return EndMove()


_NULL = {
    Phase.PROPOSE: _null_propose,
    Phase.RESPOND: _null_respond,
    Phase.TRANSFER: _null_transfer,
    Phase.MOVE: _null_move,
}


def legal_moves(game: Game, player: int) -> Sequence[int]:
    """The cells ``player`` can step to now (adjacent, with a chip of that colour)."""
    here = game.positions[player]
    return [c for c in game.board.neighbours(here) if game.chips[player, game.board.colors[c]] > 0]
