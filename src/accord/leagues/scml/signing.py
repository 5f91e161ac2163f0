"""Steps 1 and 2 of the day: negotiations, exogenous contracts and signing.

A mixin of :class:`~accord.leagues.scml.world.World`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord.core import Negotiator
from accord.leagues.scml.contracts import (
    SIMULATOR_NAME,
    Agenda,
    Contract,
    ContractStatus,
)
from accord.leagues.scml.negotiation import Negotiation

if TYPE_CHECKING:
    from accord.leagues.scml.world import World

__all__ = ["SigningMixin"]


class SigningMixin:
    """Negotiation registration, exogenous reveal, agreements and signing."""

    # -- step 1 -------------------------------------------------------------------------
    def _reveal_exogenous(self: World, d: int) -> None:
        ex = self.config.exogenous
        sl = ex.revealed_on(d)
        for k in range(sl.start, sl.stop):
            a = int(ex.agent[k])
            if self.bankrupt[a]:
                continue
            sell = bool(ex.is_sell[k])
            name = self.names[a]
            c = Contract(
                id=self._new_id("x"),
                seller=name if sell else SIMULATOR_NAME,
                buyer=SIMULATOR_NAME if sell else name,
                product=int(ex.product[k]),
                unit_price=int(ex.unit_price[k]),
                quantity=int(ex.quantity[k]),
                delivery=int(ex.delivery[k]),
                concluded_at=d,
                exogenous=True,
            )
            self.contracts[c.id] = c
            self.status[c.id] = ContractStatus.AGREED
            self._to_sign.setdefault(d, []).append(c.id)

    def _register_negotiation(
        self: World,
        requester: int,
        partner: int,
        agenda: Agenda,
        negs: tuple[Negotiator, Negotiator],
    ) -> Negotiation:
        neg = Negotiation(self._new_id("n"), agenda, requester, partner, negs, self.day)
        self._pending.append(neg)
        self._requests_today[requester] += 1
        return neg

    def _negotiate(self: World, d: int) -> None:
        todo = self._running + self._pending
        self._pending = []
        if not todo:
            self._running = []
            return
        self.history_negotiations[d, 0] += sum(1 for n in todo if n.session is None)
        finished, self._running = self._runner.run_day(todo)
        for neg in finished:
            agreement = neg.agreement
            a, b = neg.requester, neg.partner
            ok = agreement is not None and not (self.bankrupt[a] or self.bankrupt[b])
            if ok and agreement is not None and int(agreement[2]) < d:
                ok = False
            self.negotiation_log.append((d, self.names[a], self.names[b], ok))
            if ok and agreement is not None:
                self.history_negotiations[d, 1] += 1
                c = Contract(
                    id=self._new_id("c"),
                    seller=self.names[neg.seller],
                    buyer=self.names[neg.buyer],
                    product=neg.agenda.product,
                    unit_price=int(agreement[0]),
                    quantity=int(agreement[1]),
                    delivery=int(agreement[2]),
                    concluded_at=d,
                )
                self.contracts[c.id] = c
                self.status[c.id] = ContractStatus.AGREED
                self._to_sign.setdefault(d + self.params.signing_delay, []).append(c.id)
                for i in (a, b):
                    self._call(i, "on_negotiation_success", c, neg.agenda)
            else:
                reason = self._failure_reason(neg)
                self._call(a, "on_negotiation_failure", self.names[b], neg.agenda, reason)
                self._call(b, "on_negotiation_failure", self.names[a], neg.agenda, reason)

    @staticmethod
    def _failure_reason(neg: Negotiation) -> str:
        if neg.timed_out:
            return "timeout"
        if neg.result is None:
            return "cancelled"
        if neg.result.agreement is not None:
            return "a party went bankrupt or the delivery day passed"
        if neg.result.failure is not None:
            return f"failure: {neg.result.failure.message}"
        return neg.result.reason.value

    def _drop_negotiations_of(self: World, a: int) -> None:
        """A bankrupt agent negotiates no more: its registered negotiations are dropped."""
        keep_p = [n for n in self._pending if a not in (n.requester, n.partner)]
        keep_r = [n for n in self._running if a not in (n.requester, n.partner)]
        self._pending, self._running = keep_p, keep_r

    # -- step 2 -------------------------------------------------------------------------
    def _sign(self: World, d: int) -> None:
        ids = self._to_sign.pop(d, [])
        if not ids:
            return
        per_agent: dict[int, list[str]] = {}
        for cid in ids:
            c = self.contracts[cid]
            for party in (c.seller, c.buyer):
                k = self.index.get(party, -1)
                if k >= 0:
                    per_agent.setdefault(k, []).append(cid)
        refused: dict[str, list[str]] = {}
        for k in self._agent_order():
            mine = per_agent.get(k)
            if not mine:
                continue
            if self.bankrupt[k]:
                for cid in mine:
                    refused.setdefault(cid, []).append(self.names[k])
                continue
            contracts = [self.contracts[c] for c in mine]
            answer = self._call(k, "sign_all_contracts", contracts, default=None)
            if not isinstance(answer, list | tuple) or len(answer) != len(mine):
                got = "an exception" if answer is None else repr(answer)[:80]
                self.exceptions.append(
                    (
                        d,
                        self.names[k],
                        "sign_all_contracts",
                        f"expected a list of {len(mine)} booleans, got {got}; signed nothing",
                    )
                )
                answer = [False] * len(mine)
            for cid, yes in zip(mine, answer, strict=True):
                if not yes:
                    refused.setdefault(cid, []).append(self.names[k])
        signed: dict[int, list[Contract]] = {}
        cancelled: dict[int, list[tuple[Contract, list[str]]]] = {}
        for cid in ids:
            c = self.contracts[cid]
            parties = [self.index[p] for p in (c.seller, c.buyer) if p in self.index]
            if cid in refused or c.delivery >= self.n_steps or c.delivery < d:
                self.status[cid] = ContractStatus.CANCELLED
                for k in parties:
                    cancelled.setdefault(k, []).append((c, refused.get(cid, [])))
                continue
            self.status[cid] = ContractStatus.SIGNED
            self.history_signed[d] += 1
            self._n_signed += 1
            self.signing_order[cid] = self._n_signed
            self._due[c.delivery].append(cid)
            for k in parties:
                self.agent_contracts[k].append(cid)
                signed.setdefault(k, []).append(c)
        for k in self._agent_order():
            s, x = signed.get(k, []), cancelled.get(k, [])
            if s or x:
                self._call(k, "on_contracts_finalized", s, [c for c, _ in x], [r for _, r in x])
