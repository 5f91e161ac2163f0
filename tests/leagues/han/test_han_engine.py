"""The game model: points, deals, timeouts, quits, the equal-totals rule, the property."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import InvalidScenario
from accord.core.protocols.result import EndReason
from accord.leagues.han.domain import EXAMPLE_1, EXAMPLE_2, GameSpec, Offer, domain
from accord.leagues.han.engine import Game
from accord.leagues.han.events import Event, EventKind, SubClass, preset

ACCEPT_A = Event(EventKind.FORMAL_ACCEPT, "agent")
ACCEPT_P = Event(EventKind.FORMAL_ACCEPT, "person")


def offer(owner: str, rows: list[tuple[int, int, int]]) -> Event:
    return Event(EventKind.SEND_OFFER, owner, offer=Offer.of(rows))  # type: ignore[arg-type]


def test_example_domains_have_equal_totals_and_the_2017_numbers() -> None:
    assert EXAMPLE_1.max_points("agent") == EXAMPLE_1.max_points("person") == 50
    assert EXAMPLE_2.max_points("agent") == EXAMPLE_2.max_points("person") == 56
    assert (EXAMPLE_1.agent_batna, EXAMPLE_1.person_batna, EXAMPLE_1.total_time) == (4, 4, 600.0)
    assert (EXAMPLE_2.agent_batna, EXAMPLE_2.person_batna) == (20, 20)
    assert domain("example-2") is EXAMPLE_2 and domain("1") is EXAMPLE_1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {
                "issues": ("a", "b"),
                "quantities": (1, 1),
                "agent_points": (1, 1),
                "person_points": (1, 1),
            },
            "3 to 5 issues; got 2",
        ),
        (
            {
                "issues": tuple("abcdef"),
                "quantities": (1,) * 6,
                "agent_points": (1,) * 6,
                "person_points": (1,) * 6,
            },
            "3 to 5 issues; got 6",
        ),
        (
            {
                "issues": ("a", "b", "c"),
                "quantities": (20, 1, 1),
                "agent_points": (1, 1, 1),
                "person_points": (1, 1, 1),
            },
            "fewer than 20",
        ),
        (
            {
                "issues": ("a", "b", "c"),
                "quantities": (2, 2, 2),
                "agent_points": (1, 2, 3),
                "person_points": (1, 1, 1),
            },
            "agent 12 != person 6",
        ),
        (
            {
                "issues": ("a", "a", "c"),
                "quantities": (2, 2, 2),
                "agent_points": (1, 1, 1),
                "person_points": (1, 1, 1),
            },
            "must differ",
        ),
    ],
)
def test_a_bad_spec_is_refused_with_the_reason(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidScenario, match=match):
        GameSpec(name="bad", agent_batna=0, person_batna=0, **kwargs)


def test_full_deal_scores_the_last_offer_on_example_1() -> None:
    g = Game(EXAMPLE_1)
    # agent: Oil 1, Iron 2, Food 4, Lumber 3; person: Oil 4, Iron 3, Food 1, Lumber 2
    g.apply(offer("person", [(0, 0, 5), (1, 0, 4), (5, 0, 0), (3, 0, 2)]), 10.0)
    g.apply(ACCEPT_A, 11.0)
    assert not g.ended
    g.apply(ACCEPT_P, 12.0)
    r = g.result
    assert r.reason is EndReason.AGREEMENT
    assert r.points == {"agent": 0 + 2 + 20 + 9, "person": 20 + 12 + 0 + 4}  # 31, 36
    assert r.end_time == 12.0


def test_full_deal_scores_the_last_offer_on_example_2() -> None:
    g = Game(EXAMPLE_2)
    g.apply(offer("agent", [(2, 0, 4), (6, 0, 0), (0, 0, 1)]), 5.0)
    g.apply(ACCEPT_P, 6.0)
    g.apply(ACCEPT_A, 7.0)
    assert g.result.points == {"agent": 10 + 18, "person": 24 + 8}


@pytest.mark.parametrize("spec", [EXAMPLE_1, EXAMPLE_2])
def test_timeout_gives_both_batnas_even_with_a_full_offer_accepted_by_one(spec: GameSpec) -> None:
    g = Game(spec)
    rows = [(q, 0, 0) for q in spec.quantities]
    g.apply(offer("agent", rows), 1.0)  # type: ignore[arg-type]
    g.apply(ACCEPT_A, 2.0)
    g.tick(599.9)
    assert g.warned and not g.ended
    g.tick(600.0)
    r = g.result
    assert r.reason is EndReason.DEADLINE and r.offer is None
    assert r.points == {"agent": spec.agent_batna, "person": spec.person_batna}
    assert r.end_time == 600.0


def test_the_warning_comes_at_one_minute_left() -> None:
    g = Game(EXAMPLE_1)
    g.tick(539.9)
    assert not g.warned
    g.tick(540.0)
    assert g.warned


@pytest.mark.parametrize("spec", [EXAMPLE_1, EXAMPLE_2])
def test_quit_by_both_gives_batnas_and_a_threat_counts_as_a_warning(spec: GameSpec) -> None:
    g = Game(spec)
    g.apply(Event(EventKind.FORMAL_QUIT, "agent"), 3.0)
    assert not g.ended
    g.apply(preset(7), 4.0)  # "This is the last offer. Take it or leave it." (THREAT_POS)
    r = g.result
    assert r.reason is EndReason.WALKAWAY
    assert r.points == {"agent": spec.agent_batna, "person": spec.person_batna}


def test_a_new_offer_withdraws_quit_warnings_and_acceptances() -> None:
    g = Game(EXAMPLE_1)
    full = [(5, 0, 0), (5, 0, 0), (0, 0, 5), (0, 0, 5)]
    g.apply(offer("agent", full), 1.0)  # type: ignore[arg-type]
    g.apply(ACCEPT_A, 2.0)
    g.apply(Event(EventKind.FORMAL_QUIT, "agent"), 3.0)
    g.apply(offer("person", full), 4.0)  # type: ignore[arg-type]
    assert g.accepted == set() and g.quit_warned == set()
    g.apply(ACCEPT_P, 5.0)
    assert not g.ended  # the agent's acceptance was for the earlier offer
    g.apply(ACCEPT_A, 6.0)
    assert g.result.points == {"agent": 5 + 10, "person": 5 + 10}


def test_formal_accept_without_a_full_offer_is_recorded_and_the_game_goes_on() -> None:
    g = Game(EXAMPLE_1)
    g.apply(ACCEPT_P, 1.0)
    g.apply(offer("agent", [(5, 0, 0), (0, 5, 0), (0, 0, 5), (0, 0, 5)]), 2.0)
    g.apply(ACCEPT_P, 3.0)
    assert [v.reason for v in g.violations] == [
        "FORMAL_ACCEPT needs a full offer on the table; there is no offer",
        "FORMAL_ACCEPT needs a full offer on the table; there is an offer with undecided items",
    ]
    assert all(v.side == "person" for v in g.violations) and not g.ended


def test_an_offer_of_more_items_than_exist_is_refused() -> None:
    g = Game(EXAMPLE_2)
    g.apply(offer("agent", [(7, 0, 0), (0, 6, 0), (0, 1, 0)]), 1.0)
    assert g.last_offer is None
    assert "issue 'Luxury cars' has 6 items; the offer places [7, 0, 0]" in g.violations[0].reason
    g.apply(offer("agent", [(6, 0, 0)]), 2.0)
    assert "one row per issue (3); got 1" in g.violations[1].reason


def test_a_person_may_not_send_free_text_but_an_agent_may() -> None:
    g = Game(EXAMPLE_1)
    g.apply(Event(EventKind.SEND_MESSAGE, "person", text="hello"), 1.0)
    g.apply(Event(EventKind.SEND_MESSAGE, "agent", text="hello"), 1.0)
    assert [v.side for v in g.violations] == ["person"]
    assert g.counts["VHMsg"] == 1 and g.counts["UserMsg"] == 0


def test_lies_are_counted_from_the_senders_true_values() -> None:
    from accord.leagues.han.events import Preference, Relation

    g = Game(EXAMPLE_1)
    lie = Event(
        EventKind.SEND_MESSAGE,
        "agent",
        subclass=SubClass.PREF_INFO,
        preference=Preference(0, Relation.BEST),
    )
    truth = Event(
        EventKind.SEND_MESSAGE,
        "agent",
        subclass=SubClass.PREF_INFO,
        preference=Preference(2, Relation.BEST),
    )
    batna = Event(EventKind.SEND_MESSAGE, "person", subclass=SubClass.BATNA_INFO, value=9)
    for e in (lie, truth, batna):
        g.apply(e, 1.0)
    assert (
        g.counts["VHLie"],
        g.counts["VHPref"],
        g.counts["UserBATNALies"],
        g.counts["UserLie"],
    ) == (1, 2, 1, 1)


# -- the property: nothing binds without both formal accepts of the same full offer ------

ROWS1 = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 5)).map(
        lambda t: (min(t), max(t) - min(t), 5 - max(t))
    ),
    min_size=4,
    max_size=4,
)
EVENT = st.one_of(
    st.builds(
        lambda o, r: Event(EventKind.SEND_OFFER, o, offer=Offer.of(r)),
        st.sampled_from(["agent", "person"]),
        ROWS1,
    ),
    st.builds(lambda o: Event(EventKind.FORMAL_ACCEPT, o), st.sampled_from(["agent", "person"])),
    st.builds(lambda o: Event(EventKind.FORMAL_QUIT, o), st.sampled_from(["agent", "person"])),
    st.builds(lambda o, n: preset(n, o), st.sampled_from(["agent", "person"]), st.integers(1, 11)),
    st.builds(
        lambda o, e: Event(EventKind.SEND_EXPRESSION, o, emotion=e),
        st.sampled_from(["agent", "person"]),
        st.sampled_from(["happy", "angry"]),
    ),
    st.builds(
        lambda o: Event(EventKind.OFFER_IN_PROGRESS, o), st.sampled_from(["agent", "person"])
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(EVENT, max_size=40))
def test_random_streams_never_bind_without_both_formal_accepts_of_the_same_full_offer(
    events: list[Event],
) -> None:
    g = Game(EXAMPLE_1)
    for i, e in enumerate(events):
        g.apply(e, float(i))
    if not g.ended or g.result.reason is not EndReason.AGREEMENT:
        if g.ended:
            assert g.result.points == {"agent": 4, "person": 4}
        return
    deal = g.result.offer
    assert deal is not None and deal.full
    # since the last applied offer, each side sent a formal accept, and that offer is the deal
    hist = [e for _, e in g.history]
    last = max(i for i, e in enumerate(hist) if e.kind is EventKind.SEND_OFFER)
    assert hist[last].offer == deal
    after = {e.owner for e in hist[last + 1 :] if e.kind is EventKind.FORMAL_ACCEPT}
    assert after == {"agent", "person"}
    assert g.result.points == {
        "agent": EXAMPLE_1.points(deal, "agent"),
        "person": EXAMPLE_1.points(deal, "person"),
    }


def test_the_league_is_registered_as_han_v1_and_make_session_points_elsewhere() -> None:
    from accord.core.errors import ConfigError
    from accord.core.protocols import known_protocols, protocol_info, resolve_protocol

    assert protocol_info("iago").id == "han-v1" and "han-v1" in known_protocols()
    with pytest.raises(ConfigError, match="run through accord.leagues.han"):
        resolve_protocol("han").factory()
