"""The state of one SCM world, in a few explicit objects (no attribute bag).

- :class:`Roster`: who is who (names, levels, trading partners), fixed for the world.
- :class:`Clock`: the day, the phase within it and today's agent order.
- :class:`Ledger`: money and goods of every factory, production commands, bankruptcy
  flags, and the counters of every unit of money or goods entering or leaving the world
  (so conservation can be checked every day).
- :class:`ContractBook`: every contract, its status and its dates, what is due when.
- :class:`Market`: trading prices, spot-market penalties and today's traded totals.
- :class:`History`: per-day records (for reports), breach statistics, bankruptcies and
  the exceptions agents raised.
- :class:`NegotiationQueue`: registered and running negotiations, today's requests.

:class:`WorldState` bundles them; signing (:mod:`.signing`) and execution
(:mod:`.execution`) are functions of a ``WorldState``.

Example:
    >>> book = ContractBook(n_agents=2, n_steps=3)
    >>> c = Contract(book.new_id("c"), "a", "b", 1, 10, 2, delivery=1, concluded_at=0)
    >>> book.agree(c, sign_on=0)
    >>> book.status[c.id].value, book.to_sign[0]
    ('agreed', ['c1'])
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from accord.core import Negotiator
from accord.leagues.scml.bulletin import BulletinBoard
from accord.leagues.scml.contracts import Agenda, Contract, ContractStatus
from accord.leagues.scml.formulas import PenaltyState, TradingPriceState
from accord.leagues.scml.generate import WorldConfig
from accord.leagues.scml.negotiation import Negotiation, NegotiationRunner
from accord.leagues.scml.params import SimulationParams

__all__ = [
    "AgentCalls",
    "AgentException",
    "Clock",
    "ContractBook",
    "HeldRequest",
    "History",
    "Ledger",
    "Market",
    "NegotiationQueue",
    "Phase",
    "Roster",
    "WorldState",
]

Ints = NDArray[np.int64]

#: (requester, partner, agenda, the requester's negotiator) of a request held back
HeldRequest = tuple[int, int, Agenda, Negotiator]


class Phase(Enum):
    """Where the world is within a day (section 6)."""

    INIT = "init"
    BEFORE_STEP = "before_step"
    NEGOTIATION = "negotiation"
    SIGNING = "signing"
    EXECUTION = "execution"
    AGENT_STEP = "agent_step"
    PRICES = "prices"
    PRODUCTION = "production"
    REPORTS = "reports"
    ENDED = "ended"


@dataclass(frozen=True)
class Roster:
    """Names, levels and trading partners of the factories (fixed for the world)."""

    names: tuple[str, ...]
    level: Ints
    #: (suppliers, customers) of every factory, as indices
    partners: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    index: dict[str, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {nm: i for i, nm in enumerate(self.names)})

    @classmethod
    def build(cls, names: list[str], level: Ints) -> Roster:
        """The roster of factories ``names`` at ``level`` (partners are adjacent levels)."""
        partners = []
        for i in range(len(names)):
            lv = int(level[i])
            sup = tuple(int(k) for k in np.flatnonzero(level == lv - 1))
            cus = tuple(int(k) for k in np.flatnonzero(level == lv + 1))
            partners.append((sup, cus))
        return cls(tuple(names), level, tuple(partners))

    @property
    def n(self) -> int:
        return len(self.names)

    def party(self, name: str) -> int:
        """Index of the factory ``name`` (-1 for the simulator)."""
        return self.index.get(name, -1)


@dataclass
class Clock:
    """The day, the phase within it and the (random) agent order of today."""

    day: int
    phase: Phase
    order: Ints

    def agent_order(self) -> list[int]:
        return [int(i) for i in self.order]


@dataclass(eq=False)
class Ledger:
    """Money and goods of every factory, and every flow in or out of the world."""

    balance: Ints
    initial_balance: Ints
    #: the balance published for a bankrupt agent (cash minus what it owed)
    reported_balance: Ints
    inventory: Ints
    #: process scheduled on (factory, day, line); -1 for none
    commands: NDArray[np.int16]
    bankrupt: NDArray[np.bool_]
    bankrupt_on: Ints
    #: cash an estate set aside for the contracts it still honours
    estate_cash: Ints
    #: estate cash reserved per contract id
    reserved: dict[str, int]
    goods_created: Ints
    goods_destroyed: Ints
    money_created: int = 0
    money_destroyed: int = 0

    @classmethod
    def new(cls, config: WorldConfig) -> Ledger:
        n, p = config.n_factories, config.n_products
        balance = config.initial_balances.astype(np.int64).copy()
        return cls(
            balance=balance,
            initial_balance=balance.copy(),
            reported_balance=balance.copy(),
            inventory=np.zeros((n, p), dtype=np.int64),
            commands=np.full((n, config.n_steps, config.n_lines), -1, dtype=np.int16),
            bankrupt=np.zeros(n, dtype=bool),
            bankrupt_on=np.full(n, -1, dtype=np.int64),
            estate_cash=np.zeros(n, dtype=np.int64),
            reserved={},
            goods_created=np.zeros(p, dtype=np.int64),
            goods_destroyed=np.zeros(p, dtype=np.int64),
        )

    def current_balances(self) -> Ints:
        """Balances as reported: cash, or the final (negative) balance of bankrupt agents."""
        return np.where(self.bankrupt, self.reported_balance, self.balance)

    def balance_of(self, i: int) -> int:
        return int(self.reported_balance[i] if self.bankrupt[i] else self.balance[i])

    def rebase(self) -> None:
        """Take the current holdings as the accounting baseline (for hand-set scenarios)."""
        self.goods_created = self.inventory.sum(axis=0).astype(np.int64)
        self.goods_destroyed = np.zeros_like(self.goods_created)
        self.money_created = int(self.balance.sum() - self.initial_balance.sum())
        self.money_destroyed = 0

    def check_invariants(self, day: int) -> None:
        """Raise AssertionError if money or goods were not conserved or went negative."""
        active = ~self.bankrupt
        money = int(self.balance[active].sum()) + int(self.estate_cash.sum())
        expected = int(self.initial_balance.sum()) + self.money_created - self.money_destroyed
        if money != expected:
            raise AssertionError(f"money not conserved on day {day}: {money} != {expected}")
        goods = self.inventory.sum(axis=0)
        if not np.array_equal(goods, self.goods_created - self.goods_destroyed):
            raise AssertionError(
                f"goods not conserved on day {day}: {goods.tolist()} != "
                f"{(self.goods_created - self.goods_destroyed).tolist()}"
            )
        if (self.inventory < 0).any():
            raise AssertionError(f"negative inventory on day {day}: {self.inventory.tolist()}")
        if (self.balance < 0).any() or (self.estate_cash < 0).any():
            raise AssertionError(f"negative cash on day {day}")
        if (self.inventory[self.bankrupt] != 0).any():
            raise AssertionError("a bankrupt agent holds inventory")


class ContractBook:
    """Every contract of the world with its status, dates and delivery schedule.

    Contracts are immutable; the book keeps their status (section 3.2). Ids come from
    one counter (``new_id``), so the same world gives the same ids.
    """

    def __init__(self, n_agents: int, n_steps: int) -> None:
        self.contracts: dict[str, Contract] = {}
        self.status: dict[str, ContractStatus] = {}
        #: 1, 2, ... in the order contracts were signed (a replacement keeps the original's)
        self.signing_order: dict[str, int] = {}
        self.signed_on: dict[str, int] = {}
        #: the day a contract was cancelled, nullified or executed
        self.closed_on: dict[str, int] = {}
        self.executed_quantity: dict[str, int] = {}
        #: signed contract ids of each factory
        self.of_agent: list[list[str]] = [[] for _ in range(n_agents)]
        #: signed contract ids due on each day, in execution order
        self.due: list[list[str]] = [[] for _ in range(n_steps)]
        #: agreed contract ids waiting to be signed, per signing day
        self.to_sign: dict[int, list[str]] = {}
        self.n_signed = 0
        self._ids = 0

    def new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}{self._ids}"

    def next_number(self) -> int:
        """A fresh number from the id counter (deterministic)."""
        self._ids += 1
        return self._ids

    def agree(self, c: Contract, sign_on: int) -> None:
        """Record an agreement (or a revealed exogenous contract) to be signed on ``sign_on``."""
        self.contracts[c.id] = c
        self.status[c.id] = ContractStatus.AGREED
        self.to_sign.setdefault(sign_on, []).append(c.id)

    def sign(self, cid: str, day: int, parties: list[int], first: bool = False) -> None:
        """Mark ``cid`` signed on ``day`` and schedule its execution."""
        self.status[cid] = ContractStatus.SIGNED
        self.signed_on[cid] = day
        self.n_signed += 1
        self.signing_order[cid] = self.n_signed
        due = self.due[self.contracts[cid].delivery]
        if first:
            due.insert(0, cid)
        else:
            due.append(cid)
        for k in parties:
            self.of_agent[k].append(cid)

    def add_signed(
        self, c: Contract, parties: list[int], day: int = 0, first: bool = False
    ) -> Contract:
        """Put a contract straight in as signed on ``day`` (hand-built scenarios)."""
        self.contracts[c.id] = c
        self.sign(c.id, day, parties, first)
        return c

    def close(self, cid: str, status: ContractStatus, day: int) -> None:
        """Cancelled, nullified or executed on ``day``."""
        self.status[cid] = status
        self.closed_on[cid] = day

    def replace(self, old: Contract, new: Contract, parties: list[int], day: int) -> None:
        """``new`` (a reduced ``old``) takes ``old``'s place in the delivery schedule."""
        self.contracts[new.id] = new
        self.status[new.id] = ContractStatus.SIGNED
        self.signed_on[new.id] = self.signed_on.get(old.id, day)
        self.signing_order[new.id] = self.signing_order[old.id]
        due = self.due[old.delivery]
        due[due.index(old.id)] = new.id
        for k in parties:
            self.of_agent[k].append(new.id)

    def of(self, i: int, status: ContractStatus | None = ContractStatus.SIGNED) -> list[Contract]:
        """Contracts of factory ``i`` (signed ones by default; ``None`` for all it signed)."""
        return [
            self.contracts[c]
            for c in self.of_agent[i]
            if status is None or self.status[c] is status
        ]

    def count(self, status: ContractStatus, exogenous: bool | None = None) -> int:
        """Contracts now in ``status`` (only exogenous or only negotiated ones if given)."""
        return sum(
            1
            for cid, s in self.status.items()
            if s is status and (exogenous is None or self.contracts[cid].exogenous is exogenous)
        )


@dataclass(eq=False)
class Market:
    """Trading prices (eq. 1), spot penalties (eq. 2) and today's trade totals."""

    tp: TradingPriceState
    penalties: PenaltyState
    global_penalty: float
    traded_quantity: Ints
    traded_value: Ints

    @classmethod
    def new(cls, config: WorldConfig) -> Market:
        p = config.params
        n_p = config.n_products
        return cls(
            TradingPriceState(config.catalog_prices, p.trading_price_discount, p.prior_quantity),
            PenaltyState(config.n_factories, n_p, p.spot_lambda, p.spot_alpha),
            p.global_penalty,
            np.zeros(n_p, dtype=np.int64),
            np.zeros(n_p, dtype=np.int64),
        )

    def new_day(self) -> None:
        self.traded_quantity[:] = 0
        self.traded_value[:] = 0

    def close_day(self) -> None:
        """Step 5: fold today's trades into the prices and today's spot buys into the history."""
        self.tp.update(self.traded_quantity, self.traded_value)
        self.penalties.close_day()


class AgentException(NamedTuple):
    """An exception an agent raised (or a malformed answer it gave), with the traceback."""

    day: int
    agent: str
    method: str
    message: str
    traceback: str = ""


class History:
    """Per-day records, breach statistics, bankruptcies and agent exceptions.

    The per-day arrays are preallocated (no per-day growth). ``negotiations`` has
    columns ``NEG_COLUMNS``; ``signed`` counts all contracts signed each day and
    ``signed_exogenous`` the exogenous ones among them.
    """

    NEG_COLUMNS = ("requested", "started", "agreed", "failed")

    def __init__(self, n_steps: int, n_agents: int, n_products: int) -> None:
        s, n = n_steps, n_agents
        self.balance = np.zeros((s, n), dtype=np.int64)
        self.inventory = np.zeros((s, n, n_products), dtype=np.int64)
        self.prices = np.zeros((s, n_products), dtype=np.float64)
        self.signed = np.zeros(s, dtype=np.int64)
        self.signed_exogenous = np.zeros(s, dtype=np.int64)
        self.cancelled = np.zeros(s, dtype=np.int64)
        self.cancelled_exogenous = np.zeros(s, dtype=np.int64)
        self.breaches = np.zeros(s, dtype=np.int64)
        self.negotiations = np.zeros((s, len(self.NEG_COLUMNS)), dtype=np.int64)
        self.spot_bought = np.zeros((s, n), dtype=np.int64)
        #: (day, requester, partner, agreed) of every finished negotiation
        self.negotiation_log: list[tuple[int, str, str, bool]] = []
        self.exceptions: list[AgentException] = []
        self.bankruptcies: list[dict[str, Any]] = []
        # breach statistics of the financial reports (section 5.2)
        self.n_due = np.zeros(n, dtype=np.int64)
        self.n_breaches = np.zeros(n, dtype=np.int64)
        self.breach_level_sum = np.zeros(n, dtype=np.float64)
        self.breached: set[tuple[int, str]] = set()

    def count_negotiation(self, day: int, column: str, k: int = 1) -> None:
        self.negotiations[day, self.NEG_COLUMNS.index(column)] += k

    def negotiation_column(self, column: str) -> Ints:
        return self.negotiations[:, self.NEG_COLUMNS.index(column)]

    def breach(self, agent: int, contract: str, level: float) -> None:
        """Count one breach of ``agent`` on ``contract`` (contracts, not reports)."""
        if (agent, contract) not in self.breached:
            self.breached.add((agent, contract))
            self.n_breaches[agent] += 1
        self.breach_level_sum[agent] += level


class NegotiationQueue:
    """Registered (pending) and running negotiations, and today's requests per agent."""

    def __init__(self, runner: NegotiationRunner, quota: Ints) -> None:
        self.runner = runner
        self.quota = quota
        self.pending: list[Negotiation] = []
        self.running: list[Negotiation] = []
        self.requests_today = np.zeros(len(quota), dtype=np.int64)
        #: requests made during init/before_step wait here (section 7.2.1)
        self.held: list[HeldRequest] | None = None

    def quota_left(self, i: int) -> int:
        return int(self.quota[i] - self.requests_today[i])

    def register(self, neg: Negotiation) -> None:
        self.pending.append(neg)
        self.requests_today[neg.requester] += 1

    def drop_party(self, a: int) -> None:
        """A bankrupt agent negotiates no more: its registered negotiations are dropped."""
        self.pending = [n for n in self.pending if a not in (n.requester, n.partner)]
        self.running = [n for n in self.running if a not in (n.requester, n.partner)]


class AgentCalls:
    """The one boundary through which the world calls agent code.

    An exception (or a malformed answer) is recorded in ``history.exceptions`` with its
    message and traceback and never raised; a bankrupt agent is not called.
    """

    def __init__(
        self,
        agents: list[Any],
        roster: Roster,
        ledger: Ledger,
        history: History,
        clock: Clock,
    ) -> None:
        self.agents = agents
        self.roster = roster
        self.ledger = ledger
        self.history = history
        self.clock = clock

    def call(self, i: int, method: str, *args: Any, default: Any = None) -> Any:
        if self.ledger.bankrupt[i]:
            return default
        try:
            return getattr(self.agents[i], method)(*args)
        except Exception as exc:  # noqa: BLE001 - an agent's failure must not stop the world
            # an isolated agent's error carries the message and traceback from its process
            message = getattr(exc, "agent_message", None) or f"{type(exc).__name__}: {exc}"
            trace = getattr(exc, "agent_traceback", None) or traceback.format_exc(limit=-8)
            self.record(i, method, message, trace)
            return default

    def record(self, i: int, method: str, message: str, trace: str = "") -> None:
        """Record a failure of agent ``i`` in ``method``."""
        self.history.exceptions.append(
            AgentException(self.clock.day, self.roster.names[i], method, message, trace)
        )

    def all(self, method: str, *args: Any) -> None:
        """Call ``method`` of every agent, in today's order."""
        for i in self.clock.agent_order():
            self.call(i, method, *args)


@dataclass(eq=False)
class WorldState:
    """Everything a world holds, as explicit objects (what signing and execution change)."""

    config: WorldConfig
    params: SimulationParams
    rng: np.random.Generator
    roster: Roster
    clock: Clock
    ledger: Ledger
    book: ContractBook
    market: Market
    history: History
    negotiations: NegotiationQueue
    bb: BulletinBoard
    calls: AgentCalls
    #: publishes the financial report of one factory (the world's reporting rule)
    publish_report: Callable[[int], None]

    @property
    def day(self) -> int:
        return self.clock.day

    @property
    def n_steps(self) -> int:
        return self.config.n_steps
