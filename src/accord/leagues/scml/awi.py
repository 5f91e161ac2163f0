"""The Agent-World Interface: what one agent may see and do (spec sections 5 and 7.2).

An agent reads its own private state (balance, inventory, production schedule, its
contracts and profile) and the public bulletin board, and acts by requesting
negotiations and scheduling production. It never gets the other agents' state.

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> from accord.leagues.scml.world import World
    >>> w = World(generate_config(n_steps=5, factories_per_level=[2, 2], seed=0), ["donothing"] * 4)
    >>> awi = AWI(w, 0, np.random.default_rng(0))
    >>> awi.my_input_product, awi.my_output_product, awi.my_consumers
    (0, 1, ('02DoN@1', '03DoN@1'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from accord.core import Negotiator, OutcomeSpace
from accord.core.errors import ConfigError, UsageError
from accord.leagues.scml.bulletin import BulletinView
from accord.leagues.scml.contracts import Agenda, Contract, ContractStatus
from accord.leagues.scml.negotiation import outcome_space
from accord.leagues.scml.state import Phase
from accord.leagues.scml.world import World

__all__ = ["AWI", "AWIError", "FactoryState", "NegotiatorFactory", "Range"]

Range = int | tuple[int, int]
NO_COMMAND = -1


class AWIError(ConfigError):
    """An action the AWI cannot carry out as asked (a malformed agenda, a wrong process...)."""


class NegotiatorFactory(Protocol):
    """Makes one negotiator per negotiation (a :class:`~accord.leagues.scml.agent.Controller`)."""

    def create_negotiator(self, nid: str) -> Negotiator: ...


@dataclass(frozen=True)
class FactoryState:
    """A snapshot of the agent's private state (copies: changing them changes nothing)."""

    day: int
    balance: int
    inventory: NDArray[np.int64]
    commands: NDArray[np.int16]
    bankrupt: bool


def _range(name: str, value: Range, empty_ok: bool = False) -> tuple[int, int]:
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value), int(value)
    if (
        isinstance(value, tuple | list)
        and len(value) == 2
        and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value)
    ):
        lo, hi = int(value[0]), int(value[1])
        if lo > hi and not empty_ok:
            raise AWIError(f"{name} range must have lo <= hi, got ({lo}, {hi})")
        return lo, hi
    raise AWIError(f"{name} must be an int or a (lo, hi) pair of ints, got {value!r}")


class AWI:
    """One agent's window on the world."""

    def __init__(self, world: World, index: int, rng: np.random.Generator) -> None:
        self._w = world
        self._i = index
        self.rng = rng
        self._bb = world.bb.view
        self._level = int(world.roster.level[index])  # the roster is fixed for the world

    # -- identity and profile (private) -----------------------------------------------------
    @property
    def agent(self) -> str:
        return self._w.roster.names[self._i]

    @property
    def level(self) -> int:
        return self._level

    @property
    def my_input_product(self) -> int:
        return self.level

    @property
    def my_output_product(self) -> int:
        return self.level + 1

    @property
    def process(self) -> int:
        """The only manufacturing process this factory can run (same as its level)."""
        return self.level

    @property
    def cost(self) -> int:
        """Production cost per unit on any line (private)."""
        return int(self._w.config.costs[self._i])

    @property
    def n_lines(self) -> int:
        return self._w.config.n_lines

    @property
    def my_suppliers(self) -> tuple[str, ...]:
        return tuple(self._w.roster.names[k] for k in self._w.roster.partners[self._i][0])

    @property
    def my_consumers(self) -> tuple[str, ...]:
        return tuple(self._w.roster.names[k] for k in self._w.roster.partners[self._i][1])

    @property
    def is_first_level(self) -> bool:
        return self.level == 0

    @property
    def is_last_level(self) -> bool:
        return self.level == self._w.n_products - 2

    # -- time and public info ---------------------------------------------------------------
    @property
    def current_step(self) -> int:
        return self._w.clock.day  # (the world's day, one lookup less: agents ask often)

    @property
    def n_steps(self) -> int:
        return self._w.n_steps

    @property
    def horizon(self) -> int:
        return self._w.config.horizon

    @property
    def phase(self) -> Phase:
        """Where the world is within the day (which callback is running)."""
        return self._w.clock.phase

    @property
    def bb(self) -> BulletinView:
        """The public bulletin board (read-only)."""
        return self._bb

    @property
    def catalog_prices(self) -> tuple[int, ...]:
        return self._bb.catalog_prices

    @property
    def trading_prices(self) -> tuple[float, ...]:
        """The trading prices published on the bulletin board (section 5.2)."""
        return self._bb.trading_prices

    # -- private state ------------------------------------------------------------------------
    @property
    def state(self) -> FactoryState:
        ledger, i = self._w.ledger, self._i
        return FactoryState(
            self._w.day,
            self.current_balance,
            ledger.inventory[i].copy(),
            ledger.commands[i].copy(),
            bool(ledger.bankrupt[i]),
        )

    @property
    def current_balance(self) -> int:
        return self._w.ledger.balance_of(self._i)

    @property
    def current_inventory(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self._w.ledger.inventory[self._i])

    @property
    def quota_left(self) -> int:
        return self._w.negotiations.quota_left(self._i)

    def contracts(self, status: ContractStatus | None = ContractStatus.SIGNED) -> list[Contract]:
        """This agent's contracts (signed ones by default; ``None`` for all it signed)."""
        return self._w.book.of(self._i, status)

    def outcome_space(self, agenda: Agenda) -> OutcomeSpace:
        """The core outcome space of an agenda: (unit_price, quantity, time)."""
        return outcome_space(agenda)

    # -- negotiation actions ------------------------------------------------------------------

    def request_negotiation(
        self,
        is_buy: bool,
        product: int,
        quantity: Range,
        unit_price: Range,
        time: Range,
        partner: str,
        negotiator: Negotiator,
    ) -> bool:
        """Ask ``partner`` to negotiate; True if it accepted (the negotiation is registered).

        Returns False when this agent is bankrupt, the partner is bankrupt or refuses,
        today's negotiation quota is used up, or the time range is empty (no day on
        which the negotiation could run and deliver is left). Raises :class:`AWIError`
        (a ``ValueError``) on a malformed agenda and TypeError when ``negotiator`` is not
        a Negotiator.

        From ``init`` and ``before_step`` the partner is asked only after every agent's
        ``init`` (``before_step``) was called (section 7.2.1: ``before_step`` is the first
        call of the day), so True then means *sent*: the request holds a place in the
        quota and the answer arrives in ``on_negotiation_request_answered``.
        """
        w, i = self._w, self._i
        if w.ledger.bankrupt[i] or self.quota_left <= 0:
            return False
        agenda = self._agenda(is_buy, product, quantity, unit_price, time, partner)
        if agenda is None:
            return False
        if not isinstance(negotiator, Negotiator):
            raise UsageError(
                f"negotiator must be an accord.core.Negotiator, got {type(negotiator).__name__}"
            )
        return w.request_negotiation(i, w.roster.index[partner], agenda, negotiator)

    def next_negotiator_number(self) -> int:
        """A fresh number for a negotiator id (from the world's id counter: deterministic)."""
        return self._w.book.next_number()

    def request_negotiations(
        self,
        is_buy: bool,
        product: int,
        quantity: Range,
        unit_price: Range,
        time: Range,
        partners: list[str] | tuple[str, ...],
        controller: NegotiatorFactory | None = None,
        negotiators: list[Negotiator] | None = None,
    ) -> list[bool]:
        """Request one negotiation per partner, with a controller or one negotiator each."""
        if (controller is None) == (negotiators is None):
            raise AWIError("give exactly one of controller= or negotiators=")
        if negotiators is not None and len(negotiators) != len(partners):
            raise AWIError(
                f"expected {len(partners)} negotiators (one per partner), got {len(negotiators)}"
            )
        out = []
        for k, partner in enumerate(partners):
            if controller is not None:
                neg: Negotiator = controller.create_negotiator(
                    f"{self.agent}>{partner}#{self.next_negotiator_number()}"
                )
            else:
                assert negotiators is not None
                neg = negotiators[k]
            out.append(
                self.request_negotiation(is_buy, product, quantity, unit_price, time, partner, neg)
            )
        return out

    def _agenda(
        self,
        is_buy: bool,
        product: int,
        quantity: Range,
        unit_price: Range,
        time: Range,
        partner: str,
    ) -> Agenda | None:
        """The agenda of a request, or None if its time range is empty (nothing to do)."""
        w = self._w
        want = self.my_input_product if is_buy else self.my_output_product
        if product != want:
            kind = "buy its input" if is_buy else "sell its output"
            raise AWIError(f"{self.agent} can only {kind} product {want}, got product {product}")
        allowed = self.my_suppliers if is_buy else self.my_consumers
        if partner not in allowed:
            raise AWIError(
                f"partner {partner!r} cannot {'sell' if is_buy else 'buy'} product {product}; "
                f"allowed partners: {list(allowed)}"
            )
        q, u, t = (
            _range("quantity", quantity),
            _range("unit_price", unit_price),
            _range("time", time, empty_ok=True),
        )
        if q[0] < 1:
            raise AWIError(f"quantity must be >= 1, got range {q}")
        if u[0] < 1:
            raise AWIError(f"unit_price must be >= 1, got range {u}")
        if t[0] > t[1]:
            return None  # an empty time range: nothing to negotiate (a refusal, not an error)
        first = w.first_negotiation_day()
        if t[0] < first or t[1] >= w.n_steps:
            raise AWIError(
                f"time range {t} must lie in [{first}, {w.n_steps - 1}] (the negotiation runs on "
                f"day {first})"
            )
        return Agenda(is_buy, self.agent, partner, product, u, q, t)

    # -- production ---------------------------------------------------------------------------
    def available_for_production(
        self,
        repeats: int,
        step: Range = (-1, -1),
        line: int = -1,
        method: Literal["latest", "earliest", "all"] = "latest",
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Free (day, line) slots within ``step`` (default: today to the end)."""
        w, i = self._w, self._i
        lo, hi = _range("step", step)
        first = w.first_production_day()
        lo = first if lo < 0 else max(lo, first)
        hi = w.n_steps - 1 if hi < 0 else min(hi, w.n_steps - 1)
        if hi < lo:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        commands = w.ledger.commands
        block = (
            commands[i, lo : hi + 1, :] if line < 0 else commands[i, lo : hi + 1, line : line + 1]
        )
        days, lines = np.nonzero(block == NO_COMMAND)
        days = days + lo
        if line >= 0:
            lines = np.full_like(lines, line)
        order = np.lexsort((lines, -days)) if method == "latest" else np.lexsort((lines, days))
        days, lines = days[order], lines[order]
        if method != "all":
            days, lines = days[:repeats], lines[:repeats]
        return days.astype(np.int64), lines.astype(np.int64)

    def schedule_production(
        self,
        process: int,
        repeats: int = 1,
        step: Range = (-1, -1),
        line: int = -1,
        method: Literal["latest", "earliest"] = "latest",
        partial_ok: bool = True,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Schedule ``repeats`` runs of ``process``; returns the (days, lines) scheduled."""
        w, i = self._w, self._i
        if process != self.process:
            raise AWIError(
                f"{self.agent} can only run process {self.process} (any other costs infinity), "
                f"got {process}"
            )
        if repeats < 0:
            raise AWIError(f"repeats must be >= 0, got {repeats}")
        empty = np.zeros(0, np.int64)
        if w.ledger.bankrupt[i] or repeats == 0:
            return empty, empty
        days, lines = self.available_for_production(repeats, step, line, method)
        if len(days) < repeats and not partial_ok:
            return empty, empty
        w.ledger.commands[i, days, lines] = process
        return days, lines

    def cancel_production(self, step: int, line: int) -> bool:
        """Cancel the job on ``line`` at day ``step`` (future or today before production)."""
        w, i = self._w, self._i
        commands = w.ledger.commands
        first = w.first_production_day()
        if w.ledger.bankrupt[i] or not (first <= step < w.n_steps) or not 0 <= line < self.n_lines:
            return False
        if commands[i, step, line] == NO_COMMAND:
            return False
        commands[i, step, line] = NO_COMMAND
        return True

    def set_production(self, n: int, step: int | None = None) -> int:
        """Run ``n`` lines (the first ``n``) and no others on day ``step`` (default today)."""
        w, i = self._w, self._i
        day = w.day if step is None else step
        if not 0 <= n <= self.n_lines:
            raise AWIError(f"n must be in [0, {self.n_lines}], got {n}")
        first = w.first_production_day()
        if w.ledger.bankrupt[i] or not (first <= day < w.n_steps):
            return 0
        row = w.ledger.commands[i, day]
        row[:] = NO_COMMAND
        row[:n] = self.process
        return n
