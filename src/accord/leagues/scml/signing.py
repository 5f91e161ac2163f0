"""Steps 1 and 2 of the day: negotiations, exogenous contracts and signing.

Functions of a :class:`~accord.leagues.scml.state.WorldState`.
"""

from __future__ import annotations

from accord.core import Negotiator
from accord.leagues.scml.contracts import SIMULATOR_NAME, Agenda, Contract, ContractStatus
from accord.leagues.scml.negotiation import Negotiation
from accord.leagues.scml.state import HeldRequest, WorldState

__all__ = [
    "ask_partner",
    "deliver_held_requests",
    "negotiate",
    "register_negotiation",
    "request_negotiation",
    "reveal_exogenous",
    "sign",
]


# -- step 1 -------------------------------------------------------------------------
def reveal_exogenous(s: WorldState, d: int) -> None:
    ex = s.config.exogenous
    sl = ex.revealed_on(d)
    names = s.roster.names
    for k in range(sl.start, sl.stop):
        a = int(ex.agent[k])
        if s.ledger.bankrupt[a]:
            continue
        sell = bool(ex.is_sell[k])
        c = Contract(
            id=s.book.new_id("x"),
            seller=names[a] if sell else SIMULATOR_NAME,
            buyer=SIMULATOR_NAME if sell else names[a],
            product=int(ex.product[k]),
            unit_price=int(ex.unit_price[k]),
            quantity=int(ex.quantity[k]),
            delivery=int(ex.delivery[k]),
            concluded_at=d,
            exogenous=True,
        )
        s.book.agree(c, sign_on=d)


def register_negotiation(
    s: WorldState,
    requester: int,
    partner: int,
    agenda: Agenda,
    negs: tuple[Negotiator, Negotiator],
) -> Negotiation:
    neg = Negotiation(s.book.new_id("n"), agenda, requester, partner, negs, s.day)
    s.negotiations.register(neg)
    return neg


def request_negotiation(
    s: WorldState, requester: int, partner: int, agenda: Agenda, negotiator: Negotiator
) -> bool:
    """An agent's request (checked by its AWI): held during init/before_step, else asked."""
    q = s.negotiations
    if s.ledger.bankrupt[requester] or q.quota_left(requester) <= 0:
        return False
    if s.ledger.bankrupt[partner]:
        return False
    s.history.count_negotiation(s.day, "requested")
    if q.held is not None:
        q.held.append((requester, partner, agenda, negotiator))
        q.requests_today[requester] += 1  # keeps its place in the quota until answered
        return True
    return ask_partner(s, requester, partner, agenda, negotiator)


def ask_partner(
    s: WorldState, requester: int, partner: int, agenda: Agenda, negotiator: Negotiator
) -> bool:
    """Section 3: the partner answers with a negotiator (accept) or None (refuse)."""
    theirs = s.calls.call(
        partner, "respond_to_negotiation_request", s.roster.names[requester], agenda
    )
    if theirs is None:
        return False
    if not isinstance(theirs, Negotiator):
        s.calls.record(
            partner,
            "respond_to_negotiation_request",
            f"expected a Negotiator or None, got {type(theirs).__name__}",
        )
        return False
    register_negotiation(s, requester, partner, agenda, (negotiator, theirs))
    return True


def deliver_held_requests(s: WorldState, held: list[HeldRequest]) -> None:
    """Ask the partners of the requests held during ``init``/``before_step``, in order.

    A held request kept a place in its requester's quota; the place is released and
    taken again only if the partner accepts (as for a request answered at once). The
    requester hears the answer through ``on_negotiation_request_answered``.
    """
    bankrupt = s.ledger.bankrupt
    for i, k, agenda, negotiator in held:
        s.negotiations.requests_today[i] -= 1
        ok = not (bankrupt[i] or bankrupt[k]) and ask_partner(s, i, k, agenda, negotiator)
        s.calls.call(i, "on_negotiation_request_answered", s.roster.names[k], agenda, ok)


def negotiate(s: WorldState, d: int) -> None:
    q = s.negotiations
    todo = q.running + q.pending
    q.pending = []
    if not todo:
        q.running = []
        return
    s.history.count_negotiation(d, "started", sum(1 for n in todo if n.session is None))
    finished, q.running = q.runner.run_day(todo)
    names, bankrupt, call = s.roster.names, s.ledger.bankrupt, s.calls.call
    for neg in finished:
        agreement = neg.agreement
        a, b = neg.requester, neg.partner
        ok = agreement is not None and not (bankrupt[a] or bankrupt[b])
        if ok and agreement is not None and int(agreement[2]) < d:
            ok = False
        s.history.negotiation_log.append((d, names[a], names[b], ok))
        if ok and agreement is not None:
            s.history.count_negotiation(d, "agreed")
            c = Contract(
                id=s.book.new_id("c"),
                seller=names[neg.seller],
                buyer=names[neg.buyer],
                product=neg.agenda.product,
                unit_price=int(agreement[0]),
                quantity=int(agreement[1]),
                delivery=int(agreement[2]),
                concluded_at=d,
            )
            s.book.agree(c, sign_on=d + s.params.signing_delay)
            for i in (a, b):
                call(i, "on_negotiation_success", c, neg.agenda)
        else:
            s.history.count_negotiation(d, "failed")
            reason = _failure_reason(neg)
            call(a, "on_negotiation_failure", names[b], neg.agenda, reason)
            call(b, "on_negotiation_failure", names[a], neg.agenda, reason)


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


# -- step 2 -------------------------------------------------------------------------
def sign(s: WorldState, d: int) -> None:
    ids = s.book.to_sign.pop(d, [])
    if not ids:
        return
    book, roster, bankrupt, calls = s.book, s.roster, s.ledger.bankrupt, s.calls
    per_agent: dict[int, list[str]] = {}
    for cid in ids:
        c = book.contracts[cid]
        for party in (c.seller, c.buyer):
            k = roster.party(party)
            if k >= 0:
                per_agent.setdefault(k, []).append(cid)
    refused: dict[str, list[str]] = {}
    for k in s.clock.agent_order():
        mine = per_agent.get(k)
        if not mine:
            continue
        if bankrupt[k]:
            for cid in mine:
                refused.setdefault(cid, []).append(roster.names[k])
            continue
        contracts = [book.contracts[c] for c in mine]
        answer = calls.call(k, "sign_all_contracts", contracts, default=None)
        if not isinstance(answer, list | tuple) or len(answer) != len(mine):
            got = "an exception" if answer is None else repr(answer)[:80]
            calls.record(
                k,
                "sign_all_contracts",
                f"expected a list of {len(mine)} booleans, got {got}; signed nothing",
            )
            answer = [False] * len(mine)
        for cid, yes in zip(mine, answer, strict=True):
            if not yes:
                refused.setdefault(cid, []).append(roster.names[k])
    signed: dict[int, list[Contract]] = {}
    cancelled: dict[int, list[tuple[Contract, list[str]]]] = {}
    hist = s.history
    for cid in ids:
        c = book.contracts[cid]
        parties = [roster.index[p] for p in (c.seller, c.buyer) if p in roster.index]
        if cid in refused or c.delivery >= s.n_steps or c.delivery < d:
            book.close(cid, ContractStatus.CANCELLED, d)
            hist.cancelled[d] += 1
            hist.cancelled_exogenous[d] += c.exogenous
            for k in parties:
                cancelled.setdefault(k, []).append((c, refused.get(cid, [])))
            continue
        book.sign(cid, d, parties)
        hist.signed[d] += 1
        hist.signed_exogenous[d] += c.exogenous
        for k in parties:
            signed.setdefault(k, []).append(c)
    for k in s.clock.agent_order():
        sg, x = signed.get(k, []), cancelled.get(k, [])
        if sg or x:
            calls.call(k, "on_contracts_finalized", sg, [c for c, _ in x], [r for _, r in x])
