"""The SCM world: one simulation, run day by day in the order of spec section 6.

The world holds its state in a few explicit objects (:mod:`.state`: roster, clock,
ledger, contract book, market, history, negotiation queue) and changes them in the
steps of the day (:mod:`.signing`, :mod:`.execution`, production and reports here). It
calls agents only through :class:`~accord.leagues.scml.state.AgentCalls` and knows them
only as :class:`Manager` objects: it imports no agent module (named agent types are
loaded through :mod:`.registry`), so the agent interface sits above it.

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> cfg = generate_config(n_steps=5, factories_per_level=[2, 2], seed=1)
    >>> world = World(cfg, ["donothing"] * 4, seed=1)
    >>> world.run().day
    5
    >>> sorted(world.scores())[:1]
    ['00DoN@0']
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from accord.core import Negotiator
from accord.core.errors import ConfigError
from accord.leagues.scml import execution, signing
from accord.leagues.scml.bulletin import BulletinBoard, MarketStatus
from accord.leagues.scml.contracts import SIMULATOR_NAME, Agenda, FinancialReport
from accord.leagues.scml.formulas import profit
from accord.leagues.scml.generate import WorldConfig
from accord.leagues.scml.negotiation import NegotiationRunner
from accord.leagues.scml.registry import load_agent_type
from accord.leagues.scml.state import (
    AgentCalls,
    Clock,
    ContractBook,
    History,
    Ledger,
    Market,
    NegotiationQueue,
    Phase,
    Roster,
    WorldState,
)

__all__ = ["AgentSpec", "Manager", "Phase", "World", "make_manager"]


@runtime_checkable
class Manager(Protocol):
    """What the world needs of a factory manager (an ``SCMLAgent`` or a stand-in for one).

    ``bind`` connects it to its factory (the world calls it once, before ``init``);
    the callbacks of section 7 are called by name through the world's
    :class:`~accord.leagues.scml.state.AgentCalls`; ``unbind`` is called when the world
    ends (an isolated agent stops its process there).
    """

    name: str

    @property
    def short_type(self) -> str: ...

    @property
    def type_name(self) -> str: ...

    def bind(self, world: World, index: int, rng: np.random.Generator) -> None: ...

    def unbind(self) -> None: ...


AgentSpec = Manager | Callable[[], Manager] | str


def make_manager(spec: AgentSpec) -> Manager:
    """A manager from an instance, a class (called without arguments) or a type name."""
    if isinstance(spec, str):
        spec = load_agent_type(spec)
    if isinstance(spec, type) or not isinstance(spec, Manager):
        if not callable(spec):
            raise ConfigError(
                f"expected an SCML agent, an agent class or a type name; got {spec!r}"
            )
        spec = spec()
    if not isinstance(spec, Manager):
        raise ConfigError(
            f"expected an SCML agent (with name, short_type, type_name, bind, unbind); "
            f"got {type(spec).__name__}"
        )
    return spec


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
            raise ConfigError(
                f"expected {config.n_factories} agents (one per factory), got {len(agents)}"
            )
        self.config = config
        self.params = p = config.params
        self.n_steps = config.n_steps
        self.n_agents = n = config.n_factories
        self.n_products = config.n_products
        seed = config.seed if seed is None else seed
        self.rng = np.random.default_rng(seed)
        agent_seeds = self.rng.integers(2**63, size=n)
        self.agents: list[Manager] = [make_manager(a) for a in agents]
        level = config.factory_level
        self.roster = Roster.build(
            [f"{i:02d}{ag.short_type}@{int(level[i])}" for i, ag in enumerate(self.agents)],
            level,
        )
        self.types = [a.type_name for a in self.agents]
        self.clock = Clock(0, Phase.INIT, np.arange(n))
        self.ledger = Ledger.new(config)
        self.book = ContractBook(n, self.n_steps)
        self.market = Market.new(config)
        self.history = History(self.n_steps, n, self.n_products)
        runner = NegotiationRunner(p, lambda: int(self.rng.integers(2**63)))
        self.negotiations = NegotiationQueue(runner, self._quotas())
        self.bb = self._bulletin_board()
        self.calls = AgentCalls(self.agents, self.roster, self.ledger, self.history, self.clock)
        self.state = WorldState(
            config,
            p,
            self.rng,
            self.roster,
            self.clock,
            self.ledger,
            self.book,
            self.market,
            self.history,
            self.negotiations,
            self.bb,
            self.calls,
            self._publish_report,
        )
        self.on_day_end = on_day_end
        self._started = _time.perf_counter()
        self.ended_early = False
        for i, agent in enumerate(self.agents):
            agent.name = self.roster.names[i]
            agent.bind(self, i, np.random.default_rng(int(agent_seeds[i])))
        self._call_all_holding_requests("init")

    # -- names and time -------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return self.roster.names

    @property
    def level(self) -> np.ndarray:
        return self.roster.level

    @property
    def day(self) -> int:
        return self.clock.day

    @day.setter
    def day(self, value: int) -> None:
        self.clock.day = value

    @property
    def phase(self) -> Phase:
        return self.clock.phase

    @phase.setter
    def phase(self, value: Phase) -> None:
        self.clock.phase = value

    @property
    def simulator_name(self) -> str:
        return SIMULATOR_NAME

    # -- construction helpers -----------------------------------------------------------
    def _quotas(self) -> np.ndarray:
        q = self.params.negotiation_quota
        if q is not None:
            return np.full(self.n_agents, q, dtype=np.int64)
        return np.array(
            [max(1, (len(s) + len(c)) * self.config.horizon) for s, c in self.roster.partners],
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
        names, level = self.roster.names, self.roster.level
        producers = {
            p: [nm for i, nm in enumerate(names) if level[i] + 1 == p]
            for p in range(self.n_products)
        }
        consumers = {
            p: [nm for i, nm in enumerate(names) if level[i] == p] for p in range(self.n_products)
        }
        catalog = [int(c) for c in self.config.catalog_prices]
        return BulletinBoard(settings, catalog, producers, consumers)

    # -- what an agent's AWI asks of the world --------------------------------------------
    def first_negotiation_day(self) -> int:
        """The day a negotiation requested now runs (today from init/before_step)."""
        early = self.phase in (Phase.INIT, Phase.BEFORE_STEP)
        return self.day if early else self.day + 1

    def first_production_day(self) -> int:
        """Today, or tomorrow once today's production has run (today's slots are gone)."""
        ran = self.phase in (Phase.PRODUCTION, Phase.REPORTS)
        return self.day + 1 if ran else self.day

    def request_negotiation(
        self, requester: int, partner: int, agenda: Agenda, negotiator: Negotiator
    ) -> bool:
        """Register a request of ``requester`` (its AWI checked the agenda)."""
        return signing.request_negotiation(self.state, requester, partner, agenda, negotiator)

    # -- calling agents -------------------------------------------------------------------
    def _call_all_holding_requests(self, method: str) -> None:
        """Call ``method`` of every agent, then ask the partners of the requests made meanwhile.

        Section 7.2.1: ``before_step`` comes before any other call to an agent that day,
        so no agent is asked to negotiate before every agent's ``before_step`` (``init``)
        has run. The requests are answered in the order they were made.
        """
        held: list[Any] = []
        self.negotiations.held = held
        try:
            self.calls.all(method)
        finally:
            self.negotiations.held = None
        if held:
            signing.deliver_held_requests(self.state, held)

    # -- the day --------------------------------------------------------------------------
    def run(self, callback: Callable[[World], None] | None = None) -> World:
        """Run all remaining days (or until the total time limit), then unbind the agents."""
        limit = self.params.time_limit
        try:
            while self.day < self.n_steps:
                self.step()
                if callback is not None:
                    callback(self)
                if limit is not None and _time.perf_counter() - self._started > limit:
                    self.ended_early = True
                    break
        finally:
            self.phase = Phase.ENDED
            self.close()
        return self

    def close(self) -> None:
        """Unbind every agent (stops isolated agents' processes); idempotent."""
        for i, agent in enumerate(self.agents):
            try:
                agent.unbind()
            except Exception as exc:  # noqa: BLE001 - closing must reach every agent
                self.calls.record(i, "unbind", f"{type(exc).__name__}: {exc}")

    def step(self) -> None:
        """Simulate one day: the seven steps of section 6."""
        if self.day >= self.n_steps:
            raise ConfigError(f"the world has ended: all {self.n_steps} days were simulated")
        d = self.day
        s = self.state
        self.clock.order = self.rng.permutation(self.n_agents)
        self.negotiations.requests_today[:] = 0
        self.market.new_day()
        signing.reveal_exogenous(s, d)
        self.phase = Phase.BEFORE_STEP
        self._call_all_holding_requests("before_step")
        self.phase = Phase.NEGOTIATION
        signing.negotiate(s, d)
        self.phase = Phase.SIGNING
        signing.sign(s, d)
        self.phase = Phase.EXECUTION
        execution.execute_day(s, d)
        self.phase = Phase.AGENT_STEP
        self.calls.all("step")
        self.phase = Phase.PRICES
        self._update_prices(d)
        self.phase = Phase.PRODUCTION
        self._produce(d)
        self.phase = Phase.REPORTS
        if (d + 1) % self.params.reporting_period == 0:
            for i in range(self.n_agents):
                if not self.ledger.bankrupt[i]:
                    self._publish_report(i)
        self._record(d)
        self.day += 1
        if self.on_day_end is not None:
            self.on_day_end(self)

    def _update_prices(self, d: int) -> None:
        self.market.close_day()
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
        self.bb.publish_market(
            MarketStatus(
                d,
                tuple(int(x) for x in qty),
                tuple(float(x) for x in mean),
                tuple(float(x) for x in self.market.tp.prices),
            )
        )

    def _produce(self, d: int) -> None:
        L = self.ledger
        cmds = L.commands[:, d, :]
        jobs = (cmds >= 0).sum(axis=1)
        jobs[L.bankrupt] = 0
        if not jobs.any():
            return
        rows = np.arange(self.n_agents)
        inp = self.roster.level
        costs = self.config.costs
        stock = L.inventory[rows, inp]
        afford = L.balance // costs
        done = np.minimum(jobs, np.minimum(stock, afford))
        spent = done * costs
        L.balance -= spent
        L.money_destroyed += int(spent.sum())
        L.inventory[rows, inp] -= done
        L.inventory[rows, inp + 1] += done
        np.add.at(L.goods_destroyed, inp, done)
        np.add.at(L.goods_created, inp + 1, done)
        for i in np.flatnonzero(done < jobs):
            lines = [int(x) for x in np.flatnonzero(cmds[i] >= 0)][int(done[i]) :]
            reason = "insufficient inputs" if stock[i] < jobs[i] else "insufficient funds"
            self.calls.call(int(i), "on_failure", d, lines, reason)

    def _publish_report(self, i: int) -> None:
        h, L = self.history, self.ledger
        n = max(1, int(h.n_due[i]))
        value = int(L.inventory[i] @ self.config.catalog_prices)
        self.bb.publish_report(
            FinancialReport(
                self.names[i],
                self.day,
                L.balance_of(i),
                value,
                float(h.n_breaches[i]) / n,
                float(h.breach_level_sum[i]) / n,
                bool(L.bankrupt[i]),
            )
        )

    def _record(self, d: int) -> None:
        h = self.history
        h.balance[d] = self.ledger.current_balances()
        h.inventory[d] = self.ledger.inventory
        h.prices[d] = self.market.tp.prices

    # -- results --------------------------------------------------------------------------
    def current_balances(self) -> np.ndarray:
        """Balances as reported: cash, or the final (negative) balance of bankrupt agents."""
        return self.ledger.current_balances()

    def scores(self) -> dict[str, float]:
        """Equation 3 for each factory on its own."""
        L = self.ledger
        bal = L.current_balances()
        return {
            nm: profit(
                [bal[i]],
                [L.initial_balance[i]],
                L.inventory[i : i + 1],
                self.market.tp.prices,
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
        L = self.ledger
        bal = L.current_balances()
        return {
            t: profit(
                bal[idx],
                L.initial_balance[idx],
                L.inventory[idx],
                self.market.tp.prices,
                self.config.inventory_valuation,
            )
            for t, idx in groups.items()
        }

    def check_invariants(self) -> None:
        """Raise AssertionError if money or goods were not conserved or went negative."""
        self.ledger.check_invariants(self.day)
