"""Steps 1 and 2 of the day: negotiations, exogenous contracts and signing.

Functions of the :class:`~accord.leagues.scml.world.World`.
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

__all__ = [
    "reveal_exogenous",
    "register_negotiation",
    "ask_partner",
    "deliver_held_requests",
    "HeldRequest",
    "negotiate",
    "sign",
    "drop_negotiations_of",
]

#: (requester, partner, agenda, the requester's negotiator) of a request held back
HeldRequest = tuple[int, int, Agenda, Negotiator]


# -- step 1 -------------------------------------------------------------------------
def reveal_exogenous(w: World, d: int) -> None:
    ex = w.config.exogenous
    sl = ex.revealed_on(d)
    for k in range(sl.start, sl.stop):
        a = int(ex.agent[k])
        if w.bankrupt[a]:
            continue
        sell = bool(ex.is_sell[k])
        name = w.names[a]
        c = Contract(
            id=w._new_id("x"),
            seller=name if sell else SIMULATOR_NAME,
            buyer=SIMULATOR_NAME if sell else name,
            product=int(ex.product[k]),
            unit_price=int(ex.unit_price[k]),
            quantity=int(ex.quantity[k]),
            delivery=int(ex.delivery[k]),
            concluded_at=d,
            exogenous=True,
        )
        w.contracts[c.id] = c
        w.status[c.id] = ContractStatus.AGREED
        w._to_sign.setdefault(d, []).append(c.id)


def register_negotiation(
    w: World,
    requester: int,
    partner: int,
    agenda: Agenda,
    negs: tuple[Negotiator, Negotiator],
) -> Negotiation:
    neg = Negotiation(w._new_id("n"), agenda, requester, partner, negs, w.day)
    w._pending.append(neg)
    w._requests_today[requester] += 1
    return neg


def ask_partner(
    w: World, requester: int, partner: int, agenda: Agenda, negotiator: Negotiator
) -> bool:
    """Section 3: the partner answers with a negotiator (accept) or None (refuse)."""
    theirs = w._call(partner, "respond_to_negotiation_request", w.names[requester], agenda)
    if theirs is None:
        return False
    if not isinstance(theirs, Negotiator):
        w.exceptions.append(
            (
                w.day,
                w.names[partner],
                "respond_to_negotiation_request",
                f"expected a Negotiator or None, got {type(theirs).__name__}",
            )
        )
        return False
    register_negotiation(w, requester, partner, agenda, (negotiator, theirs))
    return True


def deliver_held_requests(w: World, held: list[HeldRequest]) -> None:
    """Ask the partners of the requests held during ``init``/``before_step``, in order.

    A held request kept a place in its requester's quota; the place is released and
    taken again only if the partner accepts (as for a request answered at once). The
    requester hears the answer through ``on_negotiation_request_answered``.
    """
    for i, k, agenda, negotiator in held:
        w._requests_today[i] -= 1
        ok = not (w.bankrupt[i] or w.bankrupt[k]) and ask_partner(w, i, k, agenda, negotiator)
        w._call(i, "on_negotiation_request_answered", w.names[k], agenda, ok)


def negotiate(w: World, d: int) -> None:
    todo = w._running + w._pending
    w._pending = []
    if not todo:
        w._running = []
        return
    w.history_negotiations[d, 0] += sum(1 for n in todo if n.session is None)
    finished, w._running = w._runner.run_day(todo)
    for neg in finished:
        agreement = neg.agreement
        a, b = neg.requester, neg.partner
        ok = agreement is not None and not (w.bankrupt[a] or w.bankrupt[b])
        if ok and agreement is not None and int(agreement[2]) < d:
            ok = False
        w.negotiation_log.append((d, w.names[a], w.names[b], ok))
        if ok and agreement is not None:
            w.history_negotiations[d, 1] += 1
            c = Contract(
                id=w._new_id("c"),
                seller=w.names[neg.seller],
                buyer=w.names[neg.buyer],
                product=neg.agenda.product,
                unit_price=int(agreement[0]),
                quantity=int(agreement[1]),
                delivery=int(agreement[2]),
                concluded_at=d,
            )
            w.contracts[c.id] = c
            w.status[c.id] = ContractStatus.AGREED
            w._to_sign.setdefault(d + w.params.signing_delay, []).append(c.id)
            for i in (a, b):
                w._call(i, "on_negotiation_success", c, neg.agenda)
        else:
            reason = _failure_reason(neg)
            w._call(a, "on_negotiation_failure", w.names[b], neg.agenda, reason)
            w._call(b, "on_negotiation_failure", w.names[a], neg.agenda, reason)


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


def drop_negotiations_of(w: World, a: int) -> None:
    """A bankrupt agent negotiates no more: its registered negotiations are dropped."""
    keep_p = [n for n in w._pending if a not in (n.requester, n.partner)]
    keep_r = [n for n in w._running if a not in (n.requester, n.partner)]
    w._pending, w._running = keep_p, keep_r


# -- step 2 -------------------------------------------------------------------------
def sign(w: World, d: int) -> None:
    ids = w._to_sign.pop(d, [])
    if not ids:
        return
    per_agent: dict[int, list[str]] = {}
    for cid in ids:
        c = w.contracts[cid]
        for party in (c.seller, c.buyer):
            k = w.index.get(party, -1)
            if k >= 0:
                per_agent.setdefault(k, []).append(cid)
    refused: dict[str, list[str]] = {}
    for k in w._agent_order():
        mine = per_agent.get(k)
        if not mine:
            continue
        if w.bankrupt[k]:
            for cid in mine:
                refused.setdefault(cid, []).append(w.names[k])
            continue
        contracts = [w.contracts[c] for c in mine]
        answer = w._call(k, "sign_all_contracts", contracts, default=None)
        if not isinstance(answer, list | tuple) or len(answer) != len(mine):
            got = "an exception" if answer is None else repr(answer)[:80]
            w.exceptions.append(
                (
                    d,
                    w.names[k],
                    "sign_all_contracts",
                    f"expected a list of {len(mine)} booleans, got {got}; signed nothing",
                )
            )
            answer = [False] * len(mine)
        for cid, yes in zip(mine, answer, strict=True):
            if not yes:
                refused.setdefault(cid, []).append(w.names[k])
    signed: dict[int, list[Contract]] = {}
    cancelled: dict[int, list[tuple[Contract, list[str]]]] = {}
    for cid in ids:
        c = w.contracts[cid]
        parties = [w.index[p] for p in (c.seller, c.buyer) if p in w.index]
        if cid in refused or c.delivery >= w.n_steps or c.delivery < d:
            w.status[cid] = ContractStatus.CANCELLED
            w.closed_on[cid] = d
            for k in parties:
                cancelled.setdefault(k, []).append((c, refused.get(cid, [])))
            continue
        w.status[cid] = ContractStatus.SIGNED
        w.signed_on[cid] = d
        w.history_signed[d] += 1
        w._n_signed += 1
        w.signing_order[cid] = w._n_signed
        w._due[c.delivery].append(cid)
        for k in parties:
            w.agent_contracts[k].append(cid)
            signed.setdefault(k, []).append(c)
    for k in w._agent_order():
        s, x = signed.get(k, []), cancelled.get(k, [])
        if s or x:
            w._call(k, "on_contracts_finalized", s, [c for c, _ in x], [r for _, r in x])
