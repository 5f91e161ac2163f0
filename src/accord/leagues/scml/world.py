"""The SCM world: one simulation, run day by day in the order of spec section 6.

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> from accord.leagues.scml.agents import DoNothingAgent
    >>> cfg = generate_config(n_steps=5, factories_per_level=[2, 2], seed=1)
    >>> world = World(cfg, [DoNothingAgent] * 4, seed=1)
    >>> world.run().day
    5
    >>> sorted(world.scores())[:1]
    ['00DoN@0']
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import numpy as np

from accord.core import Negotiator
from accord.leagues.scml import execution, signing
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.bulletin import BulletinBoard, MarketStatus
from accord.leagues.scml.contracts import (
    SIMULATOR_NAME,
    Agenda,
    Contract,
    ContractStatus,
    FinancialReport,
)
from accord.leagues.scml.execution import BankruptcyEvent
from accord.leagues.scml.formulas import PenaltyState, TradingPriceState, profit
from accord.leagues.scml.generate import WorldConfig
from accord.leagues.scml.negotiation import Negotiation, NegotiationRunner

__all__ = ["World", "Phase", "AgentSpec", "make_agent"]

AgentSpec = SCMLAgent | type[SCMLAgent] | str


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


def make_agent(spec: AgentSpec) -> SCMLAgent:
    """An agent from an instance, a class or a ``"module:Class"`` / built-in name."""
    if isinstance(spec, SCMLAgent):
        return spec
    if isinstance(spec, type) and issubclass(spec, SCMLAgent):
        return spec()
    if isinstance(spec, str):
        from accord.leagues.scml.agents import resolve_agent_type

        return resolve_agent_type(spec)()
    raise TypeError(f"expected an SCMLAgent, an SCMLAgent subclass or a name; got {spec!r}")


class World:
    """One simulation of an assigned configuration (``config`` + one agent per factory)."""

    def __init__(
        self,
        config: WorldConfig,
        agents: Sequence[AgentSpec],
        seed: int | None = None,
        on_day_end: Callable[[World], None] | None = None,
    ) -> None:
        if len(agents) != config.n_factories:
            raise ValueError(
                f"expected {config.n_factories} agents (one per factory), got {len(agents)}"
            )
        self.config = config
        self.params = p = config.params
        self.n_steps = config.n_steps
        self.n_agents = n = config.n_factories
        self.n_products = config.n_products
        self.gp = p.global_penalty
        seed = config.seed if seed is None else seed
        self.rng = np.random.default_rng(seed)
        self._agent_seeds = self.rng.integers(2**63, size=n)
        self.agents = [make_agent(a) for a in agents]
        self.level = config.factory_level
        self.names = [
            f"{i:02d}{ag.short_type}@{int(self.level[i])}" for i, ag in enumerate(self.agents)
        ]
        self.index = {nm: i for i, nm in enumerate(self.names)}
        self.types = [f"{type(a).__module__}:{type(a).__qualname__}" for a in self.agents]
        # state (private to each agent; the AWI hands out copies)
        self.balance = config.initial_balances.astype(np.int64).copy()
        self.initial_balance = self.balance.copy()
        self.reported_balance = self.balance.copy()
        self.inventory = np.zeros((n, self.n_products), dtype=np.int64)
        self.commands = np.full((n, self.n_steps, config.n_lines), -1, dtype=np.int16)
        self.bankrupt = np.zeros(n, dtype=bool)
        self.bankrupt_on = np.full(n, -1, dtype=np.int64)
        self.estate_cash = np.zeros(n, dtype=np.int64)
        self.tp = TradingPriceState(
            config.catalog_prices, p.trading_price_discount, p.prior_quantity
        )
        self.penalties = PenaltyState(n, self.n_products, p.spot_lambda, p.spot_alpha)
        # contracts
        self.contracts: dict[str, Contract] = {}
        self.status: dict[str, ContractStatus] = {}
        self.signing_order: dict[str, int] = {}
        # section 3.2: the signing day, and the day a contract was cancelled, nullified
        # or executed
        self.signed_on: dict[str, int] = {}
        self.closed_on: dict[str, int] = {}
        self.executed_quantity: dict[str, int] = {}
        self.agent_contracts: list[list[str]] = [[] for _ in range(n)]
        self._due: list[list[str]] = [[] for _ in range(self.n_steps)]
        self._to_sign: dict[int, list[str]] = {}
        self._reserved: dict[str, int] = {}
        self._ids = 0
        self._n_signed = 0
        # negotiations
        self._runner = NegotiationRunner(p, lambda: int(self.rng.integers(2**63)))
        self._pending: list[Negotiation] = []
        self._running: list[Negotiation] = []
        self._requests_today = np.zeros(n, dtype=np.int64)
        # negotiation requests made during init/before_step wait here (section 7.2.1)
        self._held_requests: list[signing.HeldRequest] | None = None
        self.partners = self._partners()
        self.quota = self._quotas()
        # accounting
        self.money_created = 0
        self.money_destroyed = 0
        self.goods_created = np.zeros(self.n_products, dtype=np.int64)
        self.goods_destroyed = np.zeros(self.n_products, dtype=np.int64)
        self.n_due = np.zeros(n, dtype=np.int64)
        self.n_breaches = np.zeros(n, dtype=np.int64)
        self.breach_level_sum = np.zeros(n, dtype=np.float64)
        self._breached: set[tuple[int, str]] = set()
        self.traded_quantity = np.zeros(self.n_products, dtype=np.int64)
        self.traded_value = np.zeros(self.n_products, dtype=np.int64)
        self.bankruptcies: list[BankruptcyEvent] = []
        self.exceptions: list[tuple[int, str, str, str]] = []
        self.negotiation_log: list[tuple[int, str, str, bool]] = []
        # history (preallocated: no per-day growth)
        s = self.n_steps
        self.history_balance = np.zeros((s, n), dtype=np.int64)
        self.history_inventory = np.zeros((s, n, self.n_products), dtype=np.int64)
        self.history_prices = np.zeros((s, self.n_products), dtype=np.float64)
        self.history_signed = np.zeros(s, dtype=np.int64)
        self.history_breaches = np.zeros(s, dtype=np.int64)
        self.history_negotiations = np.zeros((s, 2), dtype=np.int64)  # started, succeeded
        self.spot_bought = np.zeros((s, n), dtype=np.int64)
        self.bb = self._bulletin_board()
        self.day = 0
        self._order = np.arange(n)
        self.phase = Phase.INIT
        self.on_day_end = on_day_end
        self._started = _time.perf_counter()
        self.ended_early = False
        from accord.leagues.scml.awi import AWI

        for i, agent in enumerate(self.agents):
            agent.name = self.names[i]
            agent.awi = AWI(self, i, np.random.default_rng(int(self._agent_seeds[i])))
        self._call_all_holding_requests("init")

    # -- construction helpers -----------------------------------------------------------
    def _partners(self) -> list[tuple[list[int], list[int]]]:
        """(suppliers, customers) of every factory."""
        out = []
        for i in range(self.n_agents):
            lv = int(self.level[i])
            sup = [int(k) for k in np.flatnonzero(self.level == lv - 1)]
            cus = [int(k) for k in np.flatnonzero(self.level == lv + 1)]
            out.append((sup, cus))
        return out

    def _quotas(self) -> np.ndarray:
        q = self.params.negotiation_quota
        if q is not None:
            return np.full(self.n_agents, q, dtype=np.int64)
        return np.array(
            [max(1, (len(s) + len(c)) * self.config.horizon) for s, c in self.partners],
            dtype=np.int64,
        )

    def _bulletin_board(self) -> BulletinBoard:
        settings: dict[str, Any] = dict(self.params.to_dict())
        settings.update(
            n_steps=self.n_steps,
            n_products=self.n_products,
            n_lines=self.config.n_lines,
            exogenous_contracts_horizon=self.config.horizon,
            inventory_valuation=self.config.inventory_valuation,
        )
        producers = {
            p: [nm for i, nm in enumerate(self.names) if self.level[i] + 1 == p]
            for p in range(self.n_products)
        }
        consumers = {
            p: [nm for i, nm in enumerate(self.names) if self.level[i] == p]
            for p in range(self.n_products)
        }
        catalog = [int(c) for c in self.config.catalog_prices]
        return BulletinBoard(settings, catalog, producers, consumers)

    def _new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}{self._ids}"

    # -- calling agents -------------------------------------------------------------------
    def _call(self, i: int, method: str, *args: Any, default: Any = None) -> Any:
        """Call an agent callback; an exception is recorded against it, never raised."""
        if self.bankrupt[i]:
            return default
        try:
            return getattr(self.agents[i], method)(*args)
        except Exception as exc:  # noqa: BLE001 - an agent's failure must not stop the world
            self.exceptions.append(
                (self.day, self.names[i], method, f"{type(exc).__name__}: {exc}")
            )
            return default

    def _agent_order(self) -> list[int]:
        return [int(i) for i in self._order]

    def _call_all_holding_requests(self, method: str) -> None:
        """Call ``method`` of every agent, then ask the partners of the requests made meanwhile.

        Section 7.2.1: ``before_step`` comes before any other call to an agent that day,
        so no agent is asked to negotiate before every agent's ``before_step`` (``init``)
        has run. The requests are answered in the order they were made.
        """
        held: list[signing.HeldRequest] = []
        self._held_requests = held
        try:
            for i in self._agent_order():
                self._call(i, method)
        finally:
            self._held_requests = None
        if held:
            signing.deliver_held_requests(self, held)

    # -- steps 1-3 (in signing.py and execution.py) ------------------------------------------
    def _reveal_exogenous(self, d: int) -> None:
        signing.reveal_exogenous(self, d)

    def _negotiate(self, d: int) -> None:
        signing.negotiate(self, d)

    def _sign(self, d: int) -> None:
        signing.sign(self, d)

    def _execute_day(self, d: int) -> None:
        execution.execute_day(self, d)

    def _register_negotiation(
        self, requester: int, partner: int, agenda: Agenda, negs: tuple[Negotiator, Negotiator]
    ) -> Negotiation:
        return signing.register_negotiation(self, requester, partner, agenda, negs)

    # -- the day --------------------------------------------------------------------------
    def run(self, callback: Callable[[World], None] | None = None) -> World:
        """Run all remaining days (or until the total time limit)."""
        limit = self.params.time_limit
        while self.day < self.n_steps:
            self.step()
            if callback is not None:
                callback(self)
            if limit is not None and _time.perf_counter() - self._started > limit:
                self.ended_early = True
                break
        self.phase = Phase.ENDED
        return self

    def step(self) -> None:
        """Simulate one day: the seven steps of section 6."""
        if self.day >= self.n_steps:
            raise RuntimeError(f"the world has ended: all {self.n_steps} days were simulated")
        d = self.day
        self._order = self.rng.permutation(self.n_agents)
        self._requests_today[:] = 0
        self.traded_quantity[:] = 0
        self.traded_value[:] = 0
        self._reveal_exogenous(d)
        self.phase = Phase.BEFORE_STEP
        self._call_all_holding_requests("before_step")
        self.phase = Phase.NEGOTIATION
        self._negotiate(d)
        self.phase = Phase.SIGNING
        self._sign(d)
        self.phase = Phase.EXECUTION
        self._execute_day(d)
        self.phase = Phase.AGENT_STEP
        for i in self._agent_order():
            self._call(i, "step")
        self.phase = Phase.PRICES
        self._update_prices(d)
        self.phase = Phase.PRODUCTION
        self._produce(d)
        self.phase = Phase.REPORTS
        if (d + 1) % self.params.reporting_period == 0:
            for i in range(self.n_agents):
                if not self.bankrupt[i]:
                    self._publish_report(i)
        self._record(d)
        self.day += 1
        if self.on_day_end is not None:
            self.on_day_end(self)

    def _update_prices(self, d: int) -> None:
        self.tp.update(self.traded_quantity, self.traded_value)
        self.penalties.close_day()
        ex = self.config.exogenous
        due = ex.delivery == d
        qty = np.bincount(ex.product[due], weights=ex.quantity[due], minlength=self.n_products)
        val = np.bincount(
            ex.product[due],
            weights=ex.quantity[due] * ex.unit_price[due],
            minlength=self.n_products,
        )
        # a float output: with no exogenous contract due today bincount returns int64
        mean = np.divide(val, qty, out=np.zeros(self.n_products), where=qty > 0)
        self.bb._publish_market(
            MarketStatus(
                d,
                tuple(int(x) for x in qty),
                tuple(float(x) for x in mean),
                tuple(float(x) for x in self.tp.prices),
            )
        )

    def _produce(self, d: int) -> None:
        cmds = self.commands[:, d, :]
        jobs = (cmds >= 0).sum(axis=1)
        jobs[self.bankrupt] = 0
        if not jobs.any():
            return
        rows = np.arange(self.n_agents)
        inp = self.level
        costs = self.config.costs
        stock = self.inventory[rows, inp]
        afford = self.balance // costs
        done = np.minimum(jobs, np.minimum(stock, afford))
        spent = done * costs
        self.balance -= spent
        self.money_destroyed += int(spent.sum())
        self.inventory[rows, inp] -= done
        self.inventory[rows, inp + 1] += done
        np.add.at(self.goods_destroyed, inp, done)
        np.add.at(self.goods_created, inp + 1, done)
        for i in np.flatnonzero(done < jobs):
            lines = [int(x) for x in np.flatnonzero(cmds[i] >= 0)][int(done[i]) :]
            reason = "insufficient inputs" if stock[i] < jobs[i] else "insufficient funds"
            self._call(int(i), "on_failure", d, lines, reason)

    def _publish_report(self, i: int) -> None:
        n = max(1, int(self.n_due[i]))
        value = int(self.inventory[i] @ self.config.catalog_prices)
        bal = int(self.reported_balance[i] if self.bankrupt[i] else self.balance[i])
        self.bb._publish_report(
            FinancialReport(
                self.names[i],
                self.day,
                bal,
                value,
                float(self.n_breaches[i]) / n,
                float(self.breach_level_sum[i]) / n,
                bool(self.bankrupt[i]),
            )
        )

    def _record(self, d: int) -> None:
        self.history_balance[d] = self.current_balances()
        self.history_inventory[d] = self.inventory
        self.history_prices[d] = self.tp.prices

    # -- results --------------------------------------------------------------------------
    def current_balances(self) -> np.ndarray:
        """Balances as reported: cash, or the final (negative) balance of bankrupt agents."""
        return np.where(self.bankrupt, self.reported_balance, self.balance)

    def scores(self) -> dict[str, float]:
        """Equation 3 for each factory on its own."""
        bal = self.current_balances()
        return {
            nm: profit(
                [bal[i]],
                [self.initial_balance[i]],
                self.inventory[i : i + 1],
                self.tp.prices,
                self.config.inventory_valuation,
            )
            for i, nm in enumerate(self.names)
        }

    def type_scores(self, factories: dict[str, list[int]] | None = None) -> dict[str, float]:
        """Equation 3 consolidated over all factories run by each agent type."""
        groups = factories
        if groups is None:
            groups = {}
            for i, t in enumerate(self.types):
                groups.setdefault(t, []).append(i)
        bal = self.current_balances()
        return {
            t: profit(
                bal[idx],
                self.initial_balance[idx],
                self.inventory[idx],
                self.tp.prices,
                self.config.inventory_valuation,
            )
            for t, idx in groups.items()
        }

    def check_invariants(self) -> None:
        """Raise AssertionError if money or goods were not conserved or went negative."""
        active = ~self.bankrupt
        money = int(self.balance[active].sum()) + int(self.estate_cash.sum())
        expected = int(self.initial_balance.sum()) + self.money_created - self.money_destroyed
        if money != expected:
            raise AssertionError(f"money not conserved on day {self.day}: {money} != {expected}")
        goods = self.inventory.sum(axis=0)
        if not np.array_equal(goods, self.goods_created - self.goods_destroyed):
            raise AssertionError(
                f"goods not conserved on day {self.day}: {goods.tolist()} != "
                f"{(self.goods_created - self.goods_destroyed).tolist()}"
            )
        if (self.inventory < 0).any():
            raise AssertionError(f"negative inventory on day {self.day}: {self.inventory.tolist()}")
        if (self.balance < 0).any() or (self.estate_cash < 0).any():
            raise AssertionError(f"negative cash on day {self.day}")
        if (self.inventory[self.bankrupt] != 0).any():
            raise AssertionError("a bankrupt agent holds inventory")

    @property
    def simulator_name(self) -> str:
        return SIMULATOR_NAME
