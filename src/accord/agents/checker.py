"""A conformance check for negotiators written outside Accord.

:func:`check_negotiator` plays a negotiator against a few built-in opponents, in both
role orders and in a three-party session, and raises
:class:`~accord.core.errors.ProtocolViolation` naming the session and what went wrong if
it ever raises an exception, returns something that is not an outcome of the space or
a :class:`~accord.core.negotiator.Response`, or takes longer than ``time_limit`` seconds
for one answer. It also checks that the same seed gives the same session.

    >>> from accord.agents.timebased import Boulware
    >>> report = check_negotiator(Boulware)
    >>> report.sessions, report.agreements > 0
    (9, True)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from accord.agents.simple import Hardliner, RandomNegotiator
from accord.agents.timebased import Boulware, Conceder
from accord.core.errors import ProtocolViolation
from accord.core.negotiator import Negotiator
from accord.core.outcomes import CategoricalIssue, IntegerIssue, OutcomeSpace
from accord.core.protocols import DEFAULT_PROTOCOL, SessionResult, make_session, protocol_info
from accord.core.scenario import Scenario
from accord.core.time import Deadline
from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator, UtilityFunction


@dataclass(frozen=True)
class CheckReport:
    """What a passed check saw: sessions run, agreements and per-session summaries."""

    sessions: int
    agreements: int
    results: list[tuple[str, SessionResult]] = field(default_factory=list, repr=False)


def default_scenario() -> Scenario:
    """A small three-party scenario (integer and categorical issues) used by the check."""
    space = OutcomeSpace(
        [
            IntegerIssue("price", 1, 6),
            CategoricalIssue("delivery", ["slow", "normal", "fast"]),
            CategoricalIssue("colour", ["red", "green", "blue", "black"]),
        ]
    )
    colours = ("red", "green", "blue", "black")

    def profile(
        weights: list[float],
        slope: float,
        delivery: list[float],
        colour: list[float],
        reservation: float,
    ) -> LinearAdditiveUtility:
        return LinearAdditiveUtility(
            space,
            weights,
            [
                LinearEvaluator(slope, 7.0 if slope < 0 else 0.0),
                dict(zip(("slow", "normal", "fast"), delivery, strict=True)),
                dict(zip(colours, colour, strict=True)),
            ],
            reservation=reservation,
        )

    return Scenario(
        "conformance",
        space,
        (
            profile([0.6, 0.3, 0.1], 1.0, [1.0, 0.6, 0.1], [0.2, 1.0, 0.5, 0.3], 0.2),
            profile([0.5, 0.2, 0.3], -1.0, [0.1, 0.5, 1.0], [1.0, 0.3, 0.6, 0.2], 0.1),
            profile([0.2, 0.4, 0.4], -1.0, [0.4, 1.0, 0.6], [0.5, 0.5, 1.0, 0.0], 0.3),
        ),
        ("seller", "buyer", "shipper"),
    )


def _make(subject: type[Negotiator] | Negotiator | Callable[[], Negotiator]) -> Negotiator:
    if isinstance(subject, Negotiator):
        return copy.deepcopy(subject)
    agent = subject()
    if not isinstance(agent, Negotiator):
        raise ProtocolViolation(
            f"check_negotiator needs a Negotiator subclass, instance or factory; "
            f"{subject!r} built a {type(agent).__name__}"
        )
    return agent


def check_negotiator(
    subject: type[Negotiator] | Negotiator | Callable[[], Negotiator],
    scenario: Scenario | None = None,
    rounds: int = 30,
    time_limit: float = 2.0,
    seed: int = 0,
    protocol: str = DEFAULT_PROTOCOL,
) -> CheckReport:
    """Play ``subject`` against built-in opponents; raise on any protocol failure.

    Args:
        subject: a negotiator class (built with no arguments), a factory, or an instance
            (deep-copied for every session).
        scenario: where to negotiate (default :func:`default_scenario`); its first two
            profiles are used for the bilateral sessions, all of them for a multilateral
            one when it has three or more.
        rounds: the deadline of every session.
        time_limit: seconds one ``propose``/``respond`` call may take.
        seed: seeds every session.
        protocol: the protocol to play (a registered name or id); the multilateral
            session runs only if it takes three or more parties.

    Raises:
        ProtocolViolation: naming the session, the failure kind and the negotiator's message
            (its subclass InvalidOffer for an offer outside the space, NegotiatorTimeout
            for an answer slower than ``time_limit``).
        CapabilityError: the negotiator lacks a capability the protocol needs.
    """
    if isinstance(subject, type) and not issubclass(subject, Negotiator):
        raise ProtocolViolation(
            f"{subject.__name__} is not a subclass of accord.core.negotiator.Negotiator"
        )
    s = scenario if scenario is not None else default_scenario()
    opponents: list[tuple[str, Callable[[], Negotiator]]] = [
        ("Boulware", Boulware),
        ("Conceder", Conceder),
        ("Hardliner", Hardliner),
        ("Random", RandomNegotiator),
    ]
    results: list[tuple[str, SessionResult]] = []
    two = list(s.utilities[:2])

    def play(
        label: str, negotiators: list[Negotiator], utilities: list[UtilityFunction], me: int
    ) -> SessionResult:
        result = make_session(
            protocol,
            s.space,
            negotiators,
            utilities,
            Deadline(rounds=rounds),
            seed=seed,
            time_limit=time_limit,
        ).run()
        if result.failure is not None and result.failure.party == me:
            context = f"{label} on scenario {s.name!r}, at step {result.steps}"
            raise result.failure.error(context)
        if result.failure is not None:
            raise ProtocolViolation(f"{label}: the opponent failed: {result.failure.message}")
        results.append((label, result))
        return result

    for name, opponent in opponents:
        play(f"first vs {name}", [_make(subject), opponent()], two, 0)
        play(f"second vs {name}", [opponent(), _make(subject)], two, 1)
    info = protocol_info(protocol)
    if s.n_parties >= 3 and (info.max_parties is None or info.max_parties >= s.n_parties):
        others = [Boulware() for _ in range(s.n_parties - 1)]
        play("multilateral", [_make(subject), *others], list(s.utilities), 0)
    again = play("first vs Random (repeat)", [_make(subject), RandomNegotiator()], two, 0)
    first = next(r for label, r in results if label == "first vs Random")
    if [e[:4] for e in first.trace] != [e[:4] for e in again.trace]:
        raise ProtocolViolation(
            "the same seed gave two different sessions against Random: draw random numbers "
            "from view.rng, not from a global generator"
        )
    results.pop()
    agreements = sum(1 for _, r in results if r.agreement is not None)
    return CheckReport(len(results), agreements, results)
