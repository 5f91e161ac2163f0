"""``genius-partial-v1`` in the core protocol registry, for negotiators with capabilities."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import accord.leagues.genius  # noqa: F401 - registers genius-partial-v1
from accord.agents import Boulware
from accord.core.capabilities import OptsOut, ProposesPartial
from accord.core.errors import CapabilityError
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols import check_protocol_agents, make_session, protocol_info
from accord.core.time import Deadline
from accord.formats import load_scenario
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.mechanism import PartialConceder, PartialOffersSession


class IssueAtATime(Negotiator, ProposesPartial, OptsOut):
    """Offers one issue per turn (its best value); accepts every partial offer; opts out
    at ``leave_at`` of the time."""

    def __init__(self, leave_at: float = 2.0) -> None:
        super().__init__()
        self.leave_at = leave_at

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT

    def propose_partial(self, view: NegotiatorView) -> Mapping[str, Any] | None:
        k = view.round % len(view.space.issues)
        issue = view.space.issues[k]
        best = max(issue.values(), key=lambda v: view.utility.tables[k][issue.index_of(v)])  # type: ignore[attr-defined]
        return {issue.name: best}

    def opt_out(self, view: NegotiatorView) -> bool:
        return view.time >= self.leave_at


def test_the_protocol_is_registered_with_its_capabilities() -> None:
    info = protocol_info("genius-partial")
    assert info.id == "genius-partial-v1" and info.max_parties == 2
    assert set(info.needs) == {ProposesPartial, OptsOut}
    with pytest.raises(CapabilityError, match="Boulware lacks ProposesPartial"):
        check_protocol_agents("genius-partial-v1", {"Boulware": Boulware})


def test_partial_offers_build_the_agreement_issue_by_issue() -> None:
    sc = load_scenario("job_offer")
    s = make_session(
        "genius", sc.space, [IssueAtATime(), IssueAtATime()], sc.utilities, Deadline(rounds=10)
    )
    r = s.run()
    assert r.reason.value == "agreement" and r.agreement is not None
    assert isinstance(s, PartialOffersSession) and s.game.result is not None
    assert r.utilities == pytest.approx(tuple(u(r.agreement) for u in sc.utilities))
    assert {e.action.value for e in r.trace} == {"offer", "accept"}


def test_opting_out_gives_each_side_its_reservation_value_and_bad_offers_end_nothing() -> None:
    sc = load_scenario("job_offer")

    class Bad(IssueAtATime):
        def propose_partial(self, view: NegotiatorView) -> Mapping[str, Any] | None:
            return {"salary": "a million"}

    s = make_session(
        "genius", sc.space, [Bad(), IssueAtATime(0.1)], sc.utilities, Deadline(rounds=10)
    )
    r = s.run()
    assert r.reason.value == "walkaway" and r.ended_by == 1
    assert r.utilities == pytest.approx(tuple(u.reservation for u in sc.utilities))
    assert s.game.invalid[0] >= 1 and s.game.invalid[1] == 0  # type: ignore[attr-defined]


def test_a_bundled_domain_plays_through_the_registry_with_the_paper_utilities() -> None:
    d = load_domain("job_candidate")
    sc_space = d.space
    from accord.core.utilities import LinearAdditiveUtility

    utilities = [
        LinearAdditiveUtility(
            sc_space,
            [1.0] * 6,
            [dict(zip(i.values, [0.0] * len(i.values), strict=True)) for i in d.issues],
            normalize=False,
        )
        for _ in range(2)
    ]
    s = make_session(
        "genius-partial-v1",
        sc_space,
        [PartialConceder(), IssueAtATime()],
        utilities,
        Deadline(rounds=14),
        domain=d,
        types=(0, 1),
    )
    r = s.run()
    g = s.game  # type: ignore[attr-defined]
    assert g.result is not None and r.utilities == g.result.utilities
    assert g.profiles == (d.types[0][0], d.types[1][1])
