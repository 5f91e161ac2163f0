"""Property tests of the alternating-offers protocol invariants (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core import Action, Deadline, EndReason, Negotiator, Response, Session
from accord.core.generate import random_linear_scenario

CODES = {"A": Response.ACCEPT, "R": Response.REJECT, "E": Response.END}


class FromScript(Negotiator):
    """Answers and offers drawn by hypothesis."""

    def __init__(self, answers: list[str], offers: list[int]):
        super().__init__("S")
        self.answers, self.offers = answers, offers
        self.k = 0

    def propose(self, view):
        self.k += 1
        return view.space.outcome_at(self.offers[self.k % len(self.offers)])

    def respond(self, view, offer):
        return CODES[self.answers[view.step % len(self.answers)]]


scripts = st.tuples(
    st.lists(st.sampled_from("AAARRRRRE"), min_size=1, max_size=30),
    st.lists(st.integers(0, 11), min_size=1, max_size=10),
)


@settings(max_examples=150, deadline=None)
@given(
    parties=st.lists(scripts, min_size=2, max_size=5),
    rounds=st.integers(1, 15),
    first=st.integers(0, 4),
    simultaneous=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_protocol_invariants(parties, rounds, first, simultaneous, seed):
    n = len(parties)
    first %= n
    s = random_linear_scenario(2, 4, n, seed=seed % 97)
    space, us = s.space, list(s.utilities)
    negotiators = [FromScript(a, [o % 16 for o in offers]) for a, offers in parties]
    r = Session(
        space,
        negotiators,
        us,
        Deadline(rounds=rounds),
        seed=seed,
        first=first,
        simultaneous_start=simultaneous,
    ).run()
    trace = r.trace

    # Termination by the deadline: never more than rounds * n actions.
    assert r.steps <= rounds * n
    assert r.steps == len(trace)
    if r.reason is EndReason.DEADLINE:
        assert r.steps == rounds * n and r.agreement is None

    # Turn order: one action per step, parties in cyclic order after the opening.
    start = n if simultaneous else 0
    if simultaneous:
        assert [e.party for e in trace[:n]] == list(range(min(n, len(trace))))[: len(trace[:n])]
    for prev, cur in zip(trace[start:], trace[start + 1 :], strict=False):
        assert cur.party == (prev.party + 1) % n
    if not simultaneous and trace:
        assert trace[0].party == first
    assert [e.step for e in trace] == list(range(len(trace)))

    # At most one standing offer: every acceptance is of the latest offer on the table,
    # and acceptances in a row come from distinct parties other than its proposer. In the
    # simultaneous opening the drawn proposal is the one whose proposer precedes the
    # first party to act after the opening.
    standing, proposer, acceptors = None, None, set()
    if simultaneous and len(trace) > n:
        proposer = (trace[n].party - 1) % n
        standing = trace[proposer].outcome
    for e in trace[start:]:
        if e.action is Action.OFFER:
            standing, proposer, acceptors = e.outcome, e.party, set()
        elif e.action is Action.ACCEPT:
            assert e.outcome == standing
            assert e.party != proposer and e.party not in acceptors
            acceptors.add(e.party)

    # Agreement only when every other party accepted it.
    if r.reason is EndReason.AGREEMENT:
        assert r.agreement == standing
        assert len(acceptors) == n - 1
        tail = trace[-(n - 1) :]
        assert all(e.action is Action.ACCEPT and e.outcome == r.agreement for e in tail)
        assert r.utilities == tuple(u.at(r.agreement, r.time) for u in us)
    else:
        assert r.agreement is None
        assert r.utilities == tuple(u.reservation_at(r.time) for u in us)
    if r.reason is EndReason.WALKAWAY:
        assert trace[-1].action is Action.END and trace[-1].party == r.ended_by
