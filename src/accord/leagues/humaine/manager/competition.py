"""The competition: settings, stage planning, starting rounds and the leaderboard.

Glue between the pure scheduling of :mod:`.schedule`, the SQLite :class:`.store.ManagerStore`
and the services (:mod:`.services`). Every state change goes through the store first, so
a restarted manager sees everything that happened.

Example:
    >>> c = Competition(ManagerStore(":memory:"))
    >>> for a in ("a", "b", "c"): c.store.add_agent(a, "127.0.0.1", 9000)
    >>> c.store.add_human("h")
    >>> c.update_settings({"nPools": 1, "seed": 3})["nPools"]
    1
    >>> len(c.plan_pools().rounds)
    6
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import numpy as np

from accord.leagues.humaine.credentials import new_secret
from accord.leagues.humaine.manager.schedule import (
    ScheduleError,
    StagePlan,
    is_dummy,
    match_winners,
    plan_knockout,
    plan_pool_play,
    qualifiers,
)
from accord.leagues.humaine.manager.scores import pool_standings, standings
from accord.leagues.humaine.manager.services import (
    OrchestratorClient,
    ServiceError,
    UtilitySource,
    local_utility_source,
)
from accord.leagues.humaine.manager.store import ManagerStore, RoundRow, StoreError

DEFAULT_SETTINGS: dict[str, Any] = {
    "nPools": 2,
    "seed": 0,
    "advance": 1,
    "roundsPerMatch": 2,
    "durations": {"warmUp": 30, "round": 300, "post": 120},
    "humanBudget": 50.0,
    "dummyAgent": None,
}


def _check_settings(s: dict[str, Any]) -> None:
    def whole(key: str, lo: int, hi: int) -> None:
        v = s[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise StoreError(f"setting {key} must be a whole number in {lo}..{hi}; got {v!r}")

    whole("nPools", 1, 26)
    whole("seed", 0, 2**32 - 1)
    whole("advance", 1, 2)
    whole("roundsPerMatch", 2, 20)
    if s["roundsPerMatch"] % 2:
        raise StoreError(f"setting roundsPerMatch must be even; got {s['roundsPerMatch']}")
    d = s["durations"]
    if not isinstance(d, dict) or set(d) != {"warmUp", "round", "post"}:
        raise StoreError(f"setting durations needs exactly warmUp, round, post; got {d!r}")
    for k, v in d.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 3600:
            raise StoreError(f"durations.{k} must be seconds in 0..3600; got {v!r}")
    b = s["humanBudget"]
    if isinstance(b, bool) or not isinstance(b, int | float) or not 0 < b <= 10_000:
        raise StoreError(f"setting humanBudget must be a positive amount <= 10000; got {b!r}")
    dummy = s["dummyAgent"]
    if dummy is not None and not (
        isinstance(dummy, dict) and isinstance(dummy.get("host"), str) and dummy.get("port")
    ):
        raise StoreError(f"setting dummyAgent must be null or {{host, port}}; got {dummy!r}")


class Competition:
    """One competition stored in ``store``."""

    def __init__(
        self,
        store: ManagerStore,
        utilities: UtilitySource | None = None,
        orchestrator: OrchestratorClient | None = None,
        human_uis: dict[str, str] | None = None,
    ) -> None:
        self.store = store
        self.utilities = utilities
        self.orchestrator = orchestrator
        self.human_uis = dict(human_uis or {})

    # -- settings --------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        return {k: self.store.setting(k, v) for k, v in DEFAULT_SETTINGS.items()}

    def update_settings(self, patch: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(patch) - set(DEFAULT_SETTINGS))
        if unknown:
            raise StoreError(f"unknown settings {unknown}; known: {sorted(DEFAULT_SETTINGS)}")
        merged = {**self.settings(), **patch}
        _check_settings(merged)
        for k in patch:
            self.store.set_setting(k, merged[k])
        return merged

    # -- planning --------------------------------------------------------------------------
    def _rng(self, stage_seq: int) -> np.random.Generator:
        return np.random.default_rng([int(self.settings()["seed"]), stage_seq])

    def _save(self, plan: StagePlan) -> StagePlan:
        source = self.utilities
        if source is None:  # in-process draws, reproducible from the seed and the stage
            seq = len(self.store.stages())
            source = local_utility_source((int(self.settings()["seed"]), seq, 1))
        seller = [source("seller") for _ in range(plan.n_seller_utilities)]
        buyer = [source("buyer") for _ in range(plan.n_buyer_utilities)]
        self.store.save_stage(plan, seller, buyer)
        return plan

    def plan_pools(self) -> StagePlan:
        """Draw pools and every pool round (each pair twice, utilities swapped)."""
        if self.store.stages():
            raise StoreError("pool play is already scheduled; reset the competition to redo it")
        agents = [a.name for a in self.store.agents()]
        humans = self.store.humans()
        plan = plan_pool_play(agents, humans, int(self.settings()["nPools"]), self._rng(0))
        return self._save(plan)

    def _stage_plan(self, stage: dict[str, Any]) -> StagePlan:
        rounds = tuple(self.store.rounds(stage["name"]))  # each RoundRow is a PlannedRound
        groups = {g: tuple(m) for g, m in stage["groups"].items()}
        return StagePlan(stage["name"], groups, rounds, 0, 0, {}, tuple(stage["byes"]))

    def next_players(self) -> list[str]:
        """Seeded players of the next knockout stage (one name: the champion)."""
        stages = self.store.stages()
        if not stages:
            raise ScheduleError("nothing to go on from: schedule pool play first")
        last = stages[-1]
        pending = [r.number for r in self.store.rounds(last["name"]) if r.status != "done"]
        if pending:
            raise ScheduleError(f"{last['name']} is not finished: rounds {pending} have no result")
        if last["name"] == "pool":
            ranked = pool_standings(self.store.outcomes(), last["groups"])
            return qualifiers(ranked, int(self.settings()["advance"]))
        results = {o.number: o.agent_utilities for o in self.store.outcomes()}
        return match_winners(self._stage_plan(last), results)

    def plan_next_stage(self) -> StagePlan:
        """Plan the next championship stage from the results of the last stage."""
        players = self.next_players()
        if len(players) == 1:
            raise ScheduleError(f"the competition is complete; the champion is {players[0]}")
        rows = self.store.rounds()
        first = (rows[-1].number + 1) if rows else 1
        seq = len(self.store.stages())
        plan = plan_knockout(
            players,
            self.store.humans(),
            self._rng(seq),
            int(self.settings()["roundsPerMatch"]),
            first_number=first,
        )
        return self._save(plan)

    def champion(self) -> str | None:
        stages = self.store.stages()
        if not stages or stages[-1]["name"] != "final":
            return None
        try:
            players = self.next_players()
        except ScheduleError:
            return None
        return players[0] if len(players) == 1 else None

    # -- rounds ----------------------------------------------------------------------------
    def _endpoint(self, agent: str) -> dict[str, Any]:
        """Where the agent listens, and its secret for the round (a fresh one, made here
        by the round's starter), or ``authenticated: false`` for an agent registered
        as written for the original platform."""
        if is_dummy(agent):
            dummy = self.settings()["dummyAgent"]
            if not dummy:
                raise StoreError(
                    f"round uses {agent}: set the dummyAgent setting to the {{host, port}} "
                    "of the organisers' dummy agent service"
                )
            return {"protocol": dummy.get("protocol", "http"), **dummy, "token": new_secret()}
        a = self.store.agent(agent)
        secret = {"token": new_secret()} if a.authenticated else {"authenticated": False}
        return {"protocol": a.protocol, "host": a.host, "port": a.port, **secret}

    def round_body(self, row: RoundRow) -> dict[str, Any]:
        """The agents, human and durations the orchestrator gets for ``row``."""
        agents = []
        for avatar, agent, uid in (
            ("Celia", row.celia, row.celia_utility),
            ("Watson", row.watson, row.watson_utility),
        ):
            agents.append(
                {
                    **self._endpoint(agent),
                    "name": avatar,
                    "utilityFunction": self.store.utility(uid)["body"],
                }
            )
        human = {
            "name": row.human,
            "utilityFunction": self.store.utility(row.buyer_utility)["body"],
            "token": new_secret(),  # the orchestrator gives it to the round's human UIs
        }
        return {"agents": agents, "human": human, "durations": self.settings()["durations"]}

    def start_round(self, number: int) -> RoundRow:
        """Send round ``number`` to the orchestrator; a failure is recorded on the round."""
        row = self.store.round(number)
        if row.status in ("running", "done"):
            raise StoreError(f"round {number} is already {row.status}")
        if self.orchestrator is None:
            raise ServiceError("no orchestrator configured: start the manager with its URL")
        body = self.round_body(row)
        round_id = str(uuid.uuid4())
        try:
            self.orchestrator.start_round(
                round_id,
                body["agents"],
                body["human"],
                body["durations"],
                float(self.settings()["humanBudget"]),
                self.human_uis or None,
            )
        except ServiceError as e:
            self.store.mark_failed(number, str(e))
            raise
        self.store.mark_started(number, round_id)
        return self.store.round(number)

    def sync_running(self, now: float | None = None) -> list[int]:
        """Ask the orchestrator for the totals of running rounds that should be over
        (in case the manager missed ``/receiveRoundTotals``, e.g. while restarting).
        Returns the numbers of the rounds it completed."""
        if self.orchestrator is None:
            return []
        now = time.time() if now is None else now
        d = self.settings()["durations"]
        length = float(d["warmUp"]) + float(d["round"]) + float(d["post"])
        done = []
        for row in self.store.rounds():
            if row.status != "running" or not row.round_id or (row.started or now) + length > now:
                continue
            try:
                totals = self.orchestrator.round_results(row.round_id)
            except ServiceError:
                continue
            if totals is not None:
                self.record_totals(row.number, totals)
                done.append(row.number)
        return done

    def record_totals(self, number: int, totals: dict[str, Any]) -> RoundRow:
        try:
            return self.store.record_totals(number, totals)
        except ValueError as e:
            raise StoreError(str(e)) from e

    # -- leaderboard -----------------------------------------------------------------------
    def leaderboard(self) -> dict[str, Any]:
        outcomes = self.store.outcomes()
        agents = [a.name for a in self.store.agents()]
        stages = self.store.stages()
        pool_groups: dict[str, list[str]] = next(
            (s["groups"] for s in stages if s["name"] == "pool"), {}
        )
        return {
            "agents": [vars(s) for s in standings(outcomes, "agent", names=agents)],
            "humans": [vars(s) for s in standings(outcomes, "human", names=self.store.humans())],
            "pools": pool_standings(outcomes, pool_groups) if pool_groups else {},
            "stages": [s["name"] for s in stages],
            "roundsDone": len(outcomes),
            "roundsTotal": len(self.store.rounds()),
            "champion": self.champion(),
        }
