"""The waiting room of person-vs-person games: pairing, the odd one out, leaving, a second tab."""

from __future__ import annotations

import pytest

from accord.core.errors import ConfigError, StateError
from accord.leagues.han.pairing import WaitingRoom


def test_the_first_two_present_pair_in_order_of_arrival() -> None:
    room = WaitingRoom(timeout=120.0)
    assert room.join("p1", 0.0) is None and room.status("p1") == "waiting"
    pair = room.join("p2", 5.0)
    assert pair is not None
    assert (pair.id, pair.sides, pair.formed) == ("pair-001", {"person": "p1", "agent": "p2"}, 5.0)
    assert pair.role_of("p2") == "agent" and pair.partner_of("p2") == "p1"
    assert room.join("p1", 6.0) is pair and room.status("p2") == "paired"
    assert room.join("p3", 7.0) is None
    assert room.join("p4", 8.0).sides == {"person": "p3", "agent": "p4"}  # type: ignore[union-attr]
    with pytest.raises(StateError, match="p9 is not in pair-001"):
        pair.role_of("p9")


def test_the_odd_one_out_is_released_at_the_timeout_exactly() -> None:
    room = WaitingRoom(timeout=120.0, presence=15.0)
    for i, pid in enumerate(("p1", "p2", "p3")):
        room.join(pid, float(i))
    assert room.status("p3") == "waiting" and room.deadline("p3") == 122.0
    for t in range(10, 122, 10):  # the page asks every 10 s: present, still waiting
        assert room.join("p3", float(t)) is None
    assert room.expire(121.9) == [] and room.status("p3") == "waiting"
    assert room.expire(122.0) == [("p3", "released")]
    assert room.status("p3") == "released" and room.deadline("p3") is None
    with pytest.raises(StateError, match="left the waiting room \\(released\\)"):
        room.join("p3", 130.0)
    # a newcomer is not paired with the one who was released
    assert room.join("p4", 130.0) is None


def test_a_waiter_whose_page_stopped_asking_is_gone_and_never_paired() -> None:
    room = WaitingRoom(timeout=300.0, presence=15.0)
    room.join("p1", 0.0)
    room.join("p1", 10.0)  # last sign of life at 10
    assert room.join("p2", 25.0) is not None  # 15 s since: still present, paired
    room2 = WaitingRoom(timeout=300.0, presence=15.0)
    room2.join("p1", 0.0)
    room2.join("p1", 10.0)
    assert room2.join("p2", 25.5) is None  # 15.5 s: p1 has gone; p2 waits alone
    assert room2.status("p1") == "gone" and room2.status("p2") == "waiting"


def test_leaving_the_room_and_leaving_a_pair() -> None:
    room = WaitingRoom()
    room.join("p1", 0.0)
    assert room.leave("p1") is None and room.status("p1") == "left"
    assert room.join("p2", 1.0) is None  # p1 is not there to pair with
    pair = room.join("p3", 2.0)
    assert pair is not None and room.leave("p3") is pair  # the caller ends their game
    assert room.leave("nobody") is None and room.status("nobody") == "new"


def test_a_second_tab_of_the_same_participant_never_pairs_with_itself() -> None:
    room = WaitingRoom()
    assert room.join("p1", 0.0) is None
    assert room.join("p1", 1.0) is None  # the link's second tab: same participant
    assert list(room.waiting) == ["p1"] and room.count == 0
    pair = room.join("p2", 2.0)
    assert pair is not None and set(pair.sides.values()) == {"p1", "p2"}


def test_a_restored_pair_keeps_its_id_and_numbering_goes_on() -> None:
    room = WaitingRoom()
    room.join("a", 0.0)
    pair = room.join("b", 1.0)
    assert pair is not None
    again = WaitingRoom()
    again.restore(pair)
    again.join("c", 3.0)
    assert again.join("a", 4.0) is pair
    assert again.join("d", 5.0).id == "pair-002"  # type: ignore[union-attr]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="positive timeout and presence window; got 0.0, 15.0"):
        WaitingRoom(timeout=0.0)
