"""One start, one trust model: every league describes its entrants by an ``Interface``
(the host that runs them in the sandbox, and the check of every answer), and
:func:`accord.drivers.seats.start_entrant` starts them all. These tests need no sandbox:
they hold the descriptions to what they promise, with the answers a hostile entrant
would send."""

from __future__ import annotations

from typing import Any

import pytest

from accord.core.errors import ProtocolViolation, UsageError
from accord.core.imports import import_object
from accord.core.negotiator import Response
from accord.drivers.seats import SEAT, Interface
from accord.leagues.diplomacy.sandboxed import INTERFACE as DIPLOMACY
from accord.leagues.genius.sandboxed import INTERFACE as GENIUS
from accord.leagues.han.api import AgentError
from accord.leagues.han.events import InvalidEvent
from accord.leagues.han.isolation import INTERFACE as HAN
from accord.leagues.scml.isolation import INTERFACE as SCML
from accord.leagues.trails.engine import Propose
from accord.leagues.trails.sandboxed import INTERFACE as TRAILS
from accord.leagues.trails.sandboxed import AgentAnswer
from accord.sandbox import Host
from accord.tournament.isolation import OFFERS, IsolatedAgentError

ALL = {
    "offers": OFFERS,
    "seat": SEAT,
    "scml": SCML,
    "han": HAN,
    "diplomacy": DIPLOMACY,
    "genius": GENIUS,
    "trails": TRAILS,
}


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_interface_names_a_host_and_refuses_an_op_it_does_not_list(name: str) -> None:
    iface = ALL[name]
    host = import_object(iface.host, "host")
    assert isinstance(host, type) and issubclass(host, Host)
    with pytest.raises(UsageError, match=r"answers .*; not 'exec'$"):
        iface.check("exec", None)


def test_the_tournament_and_the_seats_share_one_offer_negotiator_host() -> None:
    assert OFFERS.host == SEAT.host == "accord.drivers.negotiator_host:OfferNegotiatorHost"


# (interface, op, a hostile answer, the error, its exact message)
REFUSED: list[tuple[Interface, str, Any, type[Exception], str]] = [
    (
        OFFERS,
        "propose",
        {"a": 1},
        IsolatedAgentError,
        "propose() returned {'a': 1}, not an outcome",
    ),
    (OFFERS, "propose", [[1]], IsolatedAgentError, "propose() returned [[1]], not an outcome"),
    (OFFERS, "respond", True, IsolatedAgentError, "respond() returned True, not a response"),
    (OFFERS, "respond", 7, IsolatedAgentError, "respond() returned 7, not a response"),
    (HAN, "event", "hi", AgentError, "on_event must return a list of events, got 'hi'"),
    (HAN, "event", [{}] * 1001, AgentError, "on_event must return a list of events, got [{}, "),
    (
        HAN,
        "event",
        [{"kind": "GAME_END"}],
        InvalidEvent,
        "GAME_END is sent by the platform, not by a player",
    ),
    (SCML, "call", {"ok": 3}, ProtocolViolation, "the agent sent a malformed answer {'ok': 3}"),
    (
        SCML,
        "neg",
        ["raise", 1],
        ProtocolViolation,
        "the agent sent a malformed answer ['raise', 1]",
    ),
    (DIPLOMACY, "negotiate", [], ProtocolViolation, "expected {'actions': [...]}, got []"),
    (
        DIPLOMACY,
        "negotiate",
        {"actions": "all"},
        ProtocolViolation,
        "expected {'actions': [...]}, got {'actions': 'all'}",
    ),
    (GENIUS, "act", "x", ProtocolViolation, "act returns a list of actions; got x"),
    (
        TRAILS,
        "propose",
        {"give": [1]},
        AgentAnswer,
        "propose answers {give, take} or null; got {'give': [1]}",
    ),
    (TRAILS, "respond", 1, AgentAnswer, "respond answers true or false; got 1"),
    (TRAILS, "move", [1.5], AgentAnswer, "expected a list of whole numbers; got [1.5]"),
    (TRAILS, "transfer", [True], AgentAnswer, "expected a list of whole numbers; got [True]"),
]


@pytest.mark.parametrize(
    ("iface", "op", "answer", "error", "message"),
    REFUSED,
    ids=[f"{i.host.rsplit(':', 1)[1]}-{op}-{n}" for n, (i, op, *_) in enumerate(REFUSED)],
)
def test_a_hostile_answer_is_refused_with_what_was_expected(
    iface: Interface, op: str, answer: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        iface.check(op, answer)
    assert str(caught.value).startswith(message)


def test_good_answers_come_out_as_the_organiser_uses_them() -> None:
    assert OFFERS.check("propose", [1, "a", 2.5, None]) == (1, "a", 2.5, None)
    assert OFFERS.check("propose", None) is None
    assert OFFERS.check("respond", 0) is Response.ACCEPT
    assert HAN.check("event", []) == []
    assert SCML.check("call", ["negotiator", 3]) == ("negotiator", 3)
    assert TRAILS.check("propose", {"give": [1, 0], "take": [0, 2]}) == Propose((1, 0), (0, 2))
    assert TRAILS.check("transfer", None) is None
    assert TRAILS.check("respond", False) is False
    # an item that is no action goes to the rules as sent: they record an invalid action
    assert GENIUS.check("act", [{"kind": "nonsense"}]) == [{"kind": "nonsense"}]
