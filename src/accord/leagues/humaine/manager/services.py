"""Clients of the services the manager drives: the utility generator and the orchestrator.

The utility generator answers ``GET /generateUtility/{seller|buyer}`` with a
``{currencyUnit, utility}`` object; the orchestrator takes generation-2 rounds:
``POST /initializeRound`` then ``POST /startRound {roundId}``.

Example:
    >>> src = local_utility_source(seed=1)
    >>> sorted(src("seller")["utility"])
    ['blueberry', 'chocolate', 'egg', 'flour', 'milk', 'sugar', 'vanilla']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from accord.core.errors import AccordError
from accord.leagues.humaine.admin import admin_headers
from accord.leagues.humaine.utility_generator import (
    generate_buyer_utility,
    generate_seller_utility,
)

UtilitySource = Callable[[str], dict[str, Any]]


class ServiceError(AccordError, RuntimeError):
    """A service the manager depends on failed or is unreachable; the message says which."""


def local_utility_source(seed: int | Sequence[int] | None = None) -> UtilitySource:
    """Draw utilities in-process (Appendix A ranges, cents) with the utility generator's
    own functions, from one seeded generator."""
    rng = np.random.default_rng(seed)

    def source(kind: str) -> dict[str, Any]:
        if kind == "seller":
            return generate_seller_utility(rng).to_wire()
        if kind == "buyer":
            return generate_buyer_utility(rng).to_wire()
        raise ValueError(f"utility kind must be 'seller' or 'buyer'; got {kind!r}")

    return source


def http_utility_source(base_url: str, timeout: float = 5.0) -> UtilitySource:
    """Ask a running utility generator (``GET {base_url}/generateUtility/{kind}``)."""
    base = base_url.rstrip("/")

    def source(kind: str) -> dict[str, Any]:
        url = f"{base}/generateUtility/{kind}"
        try:
            r = httpx.get(url, timeout=timeout)
            r.raise_for_status()
            body = r.json()
        except (httpx.HTTPError, ValueError) as e:
            raise ServiceError(f"utility generator at {url} failed: {e}") from e
        if not isinstance(body, dict) or not isinstance(body.get("utility"), dict):
            raise ServiceError(f"utility generator at {url} sent no 'utility' object: {body!r}")
        body.setdefault("currencyUnit", "USD")
        return body

    return source


class OrchestratorClient:
    """Starts generation-2 rounds on an environment orchestrator, with the operator's
    ``admin_secret`` in the ``X-Accord-Admin`` header (see :mod:`..admin`)."""

    def __init__(
        self, base_url: str, timeout: float = 10.0, admin_secret: str | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.headers = admin_headers(admin_secret)

    def _post(self, route: str, body: dict[str, Any]) -> Any:
        url = f"{self.base_url}{route}"
        try:
            r = httpx.post(url, json=body, timeout=self.timeout, headers=self.headers)
        except httpx.HTTPError as e:
            raise ServiceError(f"orchestrator unreachable at {url}: {e}") from e
        if r.status_code >= 400:
            raise ServiceError(f"orchestrator {route} answered {r.status_code}: {r.text[:500]}")
        try:
            return r.json()
        except ValueError:
            return {"text": r.text}

    def start_round(
        self,
        round_id: str,
        agents: list[dict[str, Any]],
        human: dict[str, Any],
        durations: dict[str, float],
        human_budget: float | None = None,
        human_uis: dict[str, str] | None = None,
    ) -> Any:
        """``/initializeRound`` with the whole round, then ``/startRound {roundId}``.

        ``human_uis`` (name -> base URL) replaces the orchestrator's default human UIs for
        this round; the manager lists itself there to receive the round totals.
        """
        body: dict[str, Any] = {
            "roundId": round_id,
            "agents": agents,
            "human": human,
            "durations": durations,
        }
        if human_budget is not None:
            body["humanBudget"] = {"currencyUnit": "USD", "value": human_budget}
        if human_uis:
            body["humanUIs"] = [{"name": n, "url": u} for n, u in human_uis.items()]
        self._post("/initializeRound", body)
        return self._post("/startRound", {"roundId": round_id})

    def round_state(self, round_id: str) -> dict[str, Any]:
        """``GET /rounds/{roundId}``: the round as the orchestrator describes it."""
        url = f"{self.base_url}/rounds/{round_id}"
        try:
            r = httpx.get(url, timeout=self.timeout)
        except httpx.HTTPError as e:
            raise ServiceError(f"orchestrator unreachable at {url}: {e}") from e
        if r.status_code >= 400:
            raise ServiceError(f"orchestrator GET /rounds/{round_id} answered {r.status_code}")
        state = r.json()
        if not isinstance(state, dict):
            raise ServiceError(f"orchestrator GET /rounds/{round_id} sent {state!r}")
        return state

    def round_results(self, round_id: str) -> dict[str, Any] | None:
        """The ``roundTotals`` of a finished round (``GET /rounds/{roundId}``), else None."""
        results = self.round_state(round_id).get("results")
        return results if isinstance(results, dict) else None
