"""The world-readable bulletin board (spec sections 1 and 5.2).

Static: simulator settings and product information (producers, consumers, catalog
prices). Dynamic: the breach list, periodic financial reports and the daily market
status (exogenous-contract summary and trading prices). Agents get a read-only :class:`BulletinView`.

Example:
    >>> bb = BulletinBoard({"n_steps": 5}, [10, 20], {0: [], 1: ["a"]}, {0: ["a"], 1: []})
    >>> bb.catalog_prices, bb.settings["n_steps"]
    ((10, 20), 5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from accord.leagues.scml.contracts import BreachReport, FinancialReport

__all__ = ["BulletinBoard", "BulletinView", "MarketStatus"]


class MarketStatus(NamedTuple):
    """Per-day, per-product market statistics."""

    day: int
    exogenous_quantity: tuple[int, ...]
    exogenous_mean_price: tuple[float, ...]
    trading_prices: tuple[float, ...]


class BulletinBoard:
    """Public information. Only the world writes (``publish_*``)."""

    def __init__(
        self,
        settings: Mapping[str, Any],
        catalog_prices: Sequence[int],
        producers: Mapping[int, Sequence[str]],
        consumers: Mapping[int, Sequence[str]],
    ) -> None:
        self._settings = MappingProxyType(dict(settings))
        self._catalog = tuple(int(c) for c in catalog_prices)
        self._producers = {p: tuple(v) for p, v in producers.items()}
        self._consumers = {p: tuple(v) for p, v in consumers.items()}
        self._breaches: list[BreachReport] = []
        self._reports: list[FinancialReport] = []
        self._market: list[MarketStatus] = []
        self._bankrupt: set[str] = set()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_settings"] = dict(self._settings)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["_settings"] = MappingProxyType(state["_settings"])
        self.__dict__.update(state)

    # -- static -----------------------------------------------------------------------
    @property
    def settings(self) -> Mapping[str, Any]:
        """Simulator settings (Table 2 values, number of days, inventory valuation...)."""
        return self._settings

    @property
    def catalog_prices(self) -> tuple[int, ...]:
        return self._catalog

    def producers(self, product: int) -> tuple[str, ...]:
        """Agents that produce ``product`` (empty for the raw material)."""
        return self._producers.get(product, ())

    def consumers(self, product: int) -> tuple[str, ...]:
        """Agents that use ``product`` as input (empty for the final product)."""
        return self._consumers.get(product, ())

    # -- dynamic ----------------------------------------------------------------------
    @property
    def breaches(self) -> tuple[BreachReport, ...]:
        return tuple(self._breaches)

    def breaches_on(self, day: int) -> list[BreachReport]:
        return [b for b in self._breaches if b.day == day]

    @property
    def financial_reports(self) -> tuple[FinancialReport, ...]:
        return tuple(self._reports)

    def latest_reports(self) -> dict[str, FinancialReport]:
        """The most recent financial report of each agent."""
        return {r.agent: r for r in self._reports}

    @property
    def market(self) -> tuple[MarketStatus, ...]:
        return tuple(self._market)

    @property
    def trading_prices(self) -> tuple[float, ...]:
        """The latest published trading prices (catalog prices before day 0 ends)."""
        if not self._market:
            return tuple(float(c) for c in self._catalog)
        return self._market[-1].trading_prices

    def is_bankrupt(self, agent: str) -> bool:
        return agent in self._bankrupt

    # -- writers (the world's; agents get a :class:`BulletinView`) ---------------------
    def publish_breach(self, report: BreachReport) -> None:
        self._breaches.append(report)

    def publish_report(self, report: FinancialReport) -> None:
        self._reports.append(report)
        if report.bankrupt:
            self._bankrupt.add(report.agent)

    def publish_market(self, status: MarketStatus) -> None:
        self._market.append(status)

    @property
    def view(self) -> BulletinView:
        """The read-only view agents get."""
        return BulletinView(self)


class BulletinView:
    """What an agent reads of the bulletin board: every reader, no writer.

    In-process this is a convention (Python cannot hide the board it wraps); an isolated
    agent gets a copy in its own process, so nothing it does reaches the world's board.
    """

    __slots__ = ("_board",)

    def __init__(self, board: BulletinBoard) -> None:
        self._board = board

    @property
    def settings(self) -> Mapping[str, Any]:
        return self._board.settings

    @property
    def catalog_prices(self) -> tuple[int, ...]:
        return self._board.catalog_prices

    def producers(self, product: int) -> tuple[str, ...]:
        return self._board.producers(product)

    def consumers(self, product: int) -> tuple[str, ...]:
        return self._board.consumers(product)

    @property
    def breaches(self) -> tuple[BreachReport, ...]:
        return self._board.breaches

    def breaches_on(self, day: int) -> list[BreachReport]:
        return self._board.breaches_on(day)

    @property
    def financial_reports(self) -> tuple[FinancialReport, ...]:
        return self._board.financial_reports

    def latest_reports(self) -> dict[str, FinancialReport]:
        return self._board.latest_reports()

    @property
    def market(self) -> tuple[MarketStatus, ...]:
        return self._board.market

    @property
    def trading_prices(self) -> tuple[float, ...]:
        return self._board.trading_prices

    def is_bankrupt(self, agent: str) -> bool:
        return self._board.is_bankrupt(agent)
