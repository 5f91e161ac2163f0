"""Spec section 7.2.1: ``before_step`` is the first call to every agent each day.

Negotiation requests made in ``init``/``before_step`` are held until every agent's
``init``/``before_step`` has run; then each partner is asked in the order the requests
were made and the requester hears the answer in ``on_negotiation_request_answered``.
"""

from __future__ import annotations

from typing import Any

import pytest
from scml_spec_helpers import Fixed, bare_world

from accord.core import Negotiator
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.contracts import Agenda
from accord.leagues.scml.world import World

CATALOG = [10, 20, 40]
N_STEPS = 4
REFUSED = 1  # every partner refuses the requests of agent 1
STUBBORN = 3  # agent 3's negotiations never agree (both sides reject every offer)

Entry = tuple[Any, ...]


class OrderRecorder(SCMLAgent):
    """Appends ``(day, self, callback, other...)`` to a log shared by all agents.

    In ``before_step`` (and agent 0 in ``init``) it asks each of its partners for a
    one-unit negotiation due on the last day.
    """

    def __init__(self, index: int, log: list[Entry]) -> None:
        super().__init__()
        self.index = index
        self.log = log
        self.sent: list[bool] = []  # what request_negotiation returned

    def _rec(self, name: str, *rest: Any) -> None:
        self.log.append((self.awi.current_step, self.index, name, *rest))

    def _idx(self, name: str) -> int:
        return int(name[:2])  # names start with the factory index

    def _ask_partners(self, partners: tuple[str, ...]) -> None:
        awi = self.awi
        buy = awi.level == 1
        product = awi.my_input_product if buy else awi.my_output_product
        for p in partners:
            sent = awi.request_negotiation(
                buy, product, 1, 20, N_STEPS - 1, p, Fixed(None, self.index != STUBBORN)
            )
            self.sent.append(sent)

    def _partners(self) -> tuple[str, ...]:
        return self.awi.my_suppliers if self.awi.level == 1 else self.awi.my_consumers

    def init(self) -> None:
        self._rec("init")
        if self.index == 0:
            self._ask_partners(self._partners()[:1])

    def before_step(self) -> None:
        self._rec("before_step")
        self._ask_partners(self._partners())

    def step(self) -> None:
        self._rec("step")

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        k = self._idx(initiator)
        self._rec("respond", k)
        return None if k == REFUSED else Fixed(None, k != STUBBORN)

    def on_negotiation_request_answered(self, partner: str, agenda: Agenda, accepted: bool) -> None:
        self._rec("answered", self._idx(partner), accepted)

    def sign_all_contracts(self, contracts):
        self._rec("sign", len(contracts))
        return [True] * len(contracts)

    def on_negotiation_success(self, contract, agenda) -> None:
        other = contract.buyer if contract.seller == self.name else contract.seller
        self._rec("success", self._idx(other))

    def on_negotiation_failure(self, partner, agenda, reason) -> None:
        self._rec("failure", self._idx(partner), reason)

    def on_contracts_finalized(self, signed, cancelled, rejectors) -> None:
        self._rec("finalized", len(signed), len(cancelled))

    def on_agent_bankrupt(self, agent, nullified, reduced) -> None:
        self._rec("bankrupt")

    def on_failure(self, day, lines, reason) -> None:
        self._rec("on_failure")


def _run(days: int, seed: int = 0) -> tuple[World, list[Entry]]:
    log: list[Entry] = []
    agents = [OrderRecorder(i, log) for i in range(4)]
    w = bare_world(agents, [2, 2], [1000] * 4, [2, 2, 3, 3], N_STEPS, (), CATALOG, seed=seed)
    for _ in range(days):
        w.step()
    return w, log


PARTNERS = {0: [2, 3], 1: [2, 3], 2: [0, 1], 3: [0, 1]}


def _expected_day(order: list[int], earlier: list[tuple[int, int]]) -> list[Entry]:
    """The exact calls of one day, given its agent order and negotiations registered earlier."""
    out: list[Entry] = [(i, "before_step") for i in order]
    registered = list(earlier)
    for a in order:
        for p in PARTNERS[a]:
            ok = a != REFUSED
            out += [(p, "respond", a), (a, "answered", p, ok)]
            if ok:
                registered.append((a, p))
    # agreements come in the first pass, in registration order; stubborn ones hit the deadline
    for a, p in registered:
        if a != STUBBORN:
            out += [(a, "success", p), (p, "success", a)]
    for a, p in registered:
        if a == STUBBORN:
            out += [(a, "failure", p, "deadline"), (p, "failure", a, "deadline")]
    agreed = [(a, p) for a, p in registered if a != STUBBORN]
    per_agent = {i: sum(i in pair for pair in agreed) for i in order}
    out += [(i, "sign", per_agent[i]) for i in order if per_agent[i]]
    out += [(i, "finalized", per_agent[i], 0) for i in order if per_agent[i]]
    out += [(i, "step") for i in order]
    return out


def test_before_step_precedes_every_other_call_of_the_day_exactly():
    days = N_STEPS - 1  # the agreed contracts are due on the last day: nothing executes
    w, log = _run(days)
    # init: all four, then agent 0's held request to agent 2 is answered
    first = next(k for k, e in enumerate(log) if e[2] == "before_step")
    assert all(e[0] == 0 for e in log[:first])
    init = [e[1:] for e in log[:first]]
    assert init == [(0, "init"), (1, "init"), (2, "init"), (3, "init")] + [
        (2, "respond", 0),
        (0, "answered", 2, True),
    ]
    start = len(init)
    for d in range(days):
        today = [e[1:] for e in log[start:] if e[0] == d]
        start += len(today)
        order = [e[0] for e in today[:4]]
        assert sorted(order) == [0, 1, 2, 3] and all(e[1] == "before_step" for e in today[:4])
        # the property itself, per agent: its first call of the day is before_step
        for i in range(4):
            mine = [e[1] for e in today if e[0] == i]
            assert mine[0] == "before_step" and mine.count("before_step") == 1
            assert mine[-1] == "step"
        # and the whole day, call by call
        assert today == _expected_day(order, [(0, 2)] if d == 0 else [])
    assert start == len(log)
    orders = {tuple(e[1] for e in log if e[0] == d and e[2] == "before_step") for d in range(days)}
    assert len(orders) > 1  # the agent order really changes from day to day
    assert w.history.exceptions == []
    # held requests say "sent" whatever the partner answers later
    assert [ag.sent for ag in w.agents] == [[True] * (1 + 2 * days)] + [[True] * 2 * days] * 3


def test_same_seed_same_callback_order_and_another_seed_another_order():
    _, a = _run(3, seed=5)
    _, b = _run(3, seed=5)
    _, c = _run(3, seed=6)
    assert a == b
    assert [e for e in a if e[2] == "before_step"] != [e for e in c if e[2] == "before_step"]


def test_held_requests_keep_their_quota_place_until_refused():
    seen: list[tuple[str, int]] = []

    class Asker(SCMLAgent):
        def before_step(self) -> None:
            awi = self.awi
            if awi.current_step != 0:
                return
            for _ in range(3):
                awi.request_negotiation(False, 1, 1, 20, 3, awi.my_consumers[0], Fixed(None))
            seen.append(("after requests", awi.quota_left))

        def on_negotiation_request_answered(self, partner, agenda, accepted) -> None:
            seen.append((f"answered {accepted}", self.awi.quota_left))

    class HalfRefuser(SCMLAgent):
        n = 0

        def respond_to_negotiation_request(self, initiator, agenda):
            self.n += 1
            return Fixed(None) if self.n % 2 else None

    a = Asker()
    w = bare_world(
        [a, HalfRefuser()], [1, 1], [1000] * 2, [2, 3], 6, (), CATALOG, negotiation_quota=2
    )
    w.step()
    # two requests fit the quota (the third is refused at once); the partner accepts the
    # first and refuses the second, whose place in the quota is given back
    assert seen == [("after requests", 0), ("answered True", 0), ("answered False", 1)]
    assert len(w.history.negotiation_log) == 1 and w.history.negotiations[0, 1:3].tolist() == [1, 1]


def test_a_bad_negotiator_is_refused_at_once_and_a_bad_answer_is_the_partners_fault():
    class Odd(SCMLAgent):
        def respond_to_negotiation_request(self, initiator, agenda):
            return "yes"

    a = SCMLAgent()
    w = bare_world([a, Odd()], [1, 1], [1000] * 2, [2, 3], 6, (), CATALOG)
    with pytest.raises(TypeError, match="negotiator must be an accord.core.Negotiator, got str"):
        a.awi.request_negotiation(False, 1, 1, 20, 3, w.names[1], "me")  # type: ignore[arg-type]
    assert a.awi.request_negotiation(False, 1, 1, 20, 3, w.names[1], Fixed(None)) is False
    assert [e[:4] for e in w.history.exceptions] == [
        (0, w.names[1], "respond_to_negotiation_request", "expected a Negotiator or None, got str")
    ]
