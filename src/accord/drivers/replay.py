"""The replay driver: golden playthroughs and the conformance check for any ``Rules``.

A :class:`Playthrough` is a play written down: the rules' id, the starting state (as
``serialize`` wrote it) and every action on the wire with the party and the time. It
replays exactly (:func:`replay`) and reads as text, one line per call of the rules
(:func:`transcript`), so a golden file is diffed line by line, as OpenSpiel does with
its playthroughs. :func:`random_playthrough` makes one from seeded random legal
actions, built from :meth:`Rules.legal` alone.

:func:`check_rules` is the conformance check, as PettingZoo's ``api_test``: it plays
the rules with random legal actions and checks at every step that

- the same seeds give the same play (states, events, results);
- ``serialize`` is JSON and ``restore`` gives back a state that serializes the same;
- ``observe`` is JSON for every party and a spectator; every event is an
  :class:`~accord.core.protocols.rules.Event` with JSON data;
- ``legal`` names actions for exactly the parties ``to_act`` names; each legal action
  survives ``action_from_json``/``action_to_json`` and is accepted by ``apply``;
- an action of a kind not allowed, with a bad argument, of a party not asked, or after
  the end raises :class:`~accord.core.protocols.rules.IllegalAction` and leaves the state
  as it was;
- ``result`` is None until nobody is asked to act, then not None; the play ends.

    >>> from accord.core.protocols.alternating import AOPRules
    >>> report = check_rules(AOPRules(), seeds=(0, 1))
    >>> report.ok, report.plays, report.steps > 0
    (True, 2, True)
"""

from __future__ import annotations

import copy
import json
import string
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.core.errors import AccordError
from accord.core.protocols.base import ProtocolInfo
from accord.core.protocols.rules import (
    ActionField,
    Event,
    FieldKind,
    IllegalAction,
    Legal,
    Rules,
)

__all__ = [
    "ConformanceError",
    "ConformanceReport",
    "Playthrough",
    "check_rules",
    "random_action",
    "random_playthrough",
    "replay",
    "transcript",
]

AnyRules = Rules[Any, Any, Any]


class ConformanceError(AccordError, AssertionError):
    """The rules broke the contract; the message lists every problem found."""


@dataclass
class ConformanceReport:
    """What :func:`check_rules` checked: plays, steps, and the problems (none if ok)."""

    protocol: str
    plays: int = 0
    steps: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True if no problem was found."""
        return not self.problems


@dataclass(frozen=True)
class Playthrough:
    """A play written down: start state, then ``(party, wire action, now)`` per action."""

    protocol: str
    start: Mapping[str, Any]
    actions: tuple[tuple[int, Mapping[str, Any], float], ...]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "protocol": self.protocol,
            "start": self.start,
            "actions": [[p, a, t] for p, a, t in self.actions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Playthrough:
        """The playthrough :meth:`to_json` wrote."""
        acts = tuple((int(p), a, float(t)) for p, a, t in data["actions"])
        return cls(data["protocol"], data["start"], acts)


def _field_value(f: ActionField, rng: np.random.Generator) -> Any:
    if f.kind is FieldKind.CHOICE:
        return f.options[int(rng.integers(len(f.options)))]
    if f.kind is FieldKind.TEXT:
        n = int(rng.integers(0, min(f.max_length or 12, 12) + 1))
        return "".join(rng.choice(list(string.ascii_letters), n)) if n else ""
    lo = f.low if f.low is not None else -100
    hi = f.high if f.high is not None else 100
    if f.kind is FieldKind.INTEGER:
        return int(rng.integers(int(lo), int(hi) + 1))
    return float(rng.uniform(lo, hi))


RARE = ("end", "quit", "opt-out")
"""Kinds of action a random player picks rarely (ending at once leaves little to check)."""


def random_action(
    legal: Legal, rng: np.random.Generator, rare: Sequence[str] = RARE, rare_p: float = 0.05
) -> dict[str, Any]:
    """A random wire action among those ``legal`` allows (kinds in ``rare`` together
    with probability ``rare_p`` when there are others)."""
    common = [a for a in legal.actions if a.kind not in rare]
    scarce = [a for a in legal.actions if a.kind in rare]
    pool = scarce if scarce and (not common or rng.random() < rare_p) else common
    spec = pool[int(rng.integers(len(pool)))]
    return {"kind": spec.kind, "args": {f.name: _field_value(f, rng) for f in spec.fields}}


def random_playthrough(
    rules: AnyRules,
    setup: Any = None,
    seed: int = 0,
    policy_seed: int = 0,
    max_steps: int = 10_000,
    dt: float = 0.0,
) -> Playthrough:
    """Play ``rules`` with random legal actions (``dt`` seconds between actions)."""
    setup = rules.example() if setup is None else setup
    state = rules.initial(setup, seed)
    start = rules.serialize(state)
    rng = np.random.default_rng(policy_seed)
    actions: list[tuple[int, Mapping[str, Any], float]] = []
    now = 0.0
    for _ in range(max_steps):
        state, _ = rules.tick(state, now)
        parties = rules.to_act(state)
        if not parties:
            break
        party = parties[0]
        data = random_action(rules.legal(state, party), rng)
        state, _ = rules.apply(state, party, rules.action_from_json(state, party, data), now)
        actions.append((party, data, now))
        now += dt
    return Playthrough(rules.info.id, start, tuple(actions))


def _dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def replay(rules: AnyRules, play: Playthrough) -> Iterator[tuple[str, Any]]:
    """Replay ``play``: yields ``(line, state)`` after each call of the rules."""
    if play.protocol != rules.info.id:
        raise ConformanceError(f"a playthrough of {play.protocol!r}, not {rules.info.id!r}")
    state = rules.restore(play.start)
    for party, data, now in play.actions:
        state, events = rules.tick(state, now)
        if list(events):
            yield f"tick {now:g}: " + _dump([e.to_json() for e in events]), state
        action = rules.action_from_json(state, party, data)
        state, events = rules.apply(state, party, action, now)
        line = f"{party} {_dump(data)} @{now:g}: " + _dump([e.to_json() for e in events])
        yield line, state
    state, events = rules.tick(state, play.actions[-1][2] if play.actions else 0.0)
    if list(events):
        yield "tick: " + _dump([e.to_json() for e in events]), state
    result = rules.result(state)
    to_dict = getattr(result, "to_dict", None)
    shown = to_dict() if callable(to_dict) else result
    if isinstance(shown, dict):
        shown.pop("elapsed", None)
    yield "result " + _dump(shown), state


def transcript(rules: AnyRules, play: Playthrough) -> list[str]:
    """The text of a replay, one line per call (what a golden file holds)."""
    return [line for line, _ in replay(rules, play)]


# -- the conformance check ---------------------------------------------------------------
def _json_ok(what: str, data: Any, problems: list[str]) -> None:
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"{what} is not JSON: {exc}")


def _bad_actions(legal: Legal) -> list[dict[str, Any]]:
    """Wire actions ``legal`` must refuse: a kind not allowed, bad arguments."""
    bad: list[dict[str, Any]] = [{"kind": "no-such-kind-of-action", "args": {}}]
    for spec in legal.actions:
        if spec.fields:
            f = spec.fields[0]
            wrong: Any = {"nested": "object"}
            rest = {g.name: None for g in spec.fields[1:]}
            bad.append({"kind": spec.kind, "args": {f.name: wrong, **rest}})
            bad.append({"kind": spec.kind, "args": {}})
        else:
            bad.append({"kind": spec.kind, "args": {"unexpected": 1}})
    return bad


class _Garbage:
    def __repr__(self) -> str:
        return "<not an action>"


class _Checker:
    def __init__(self, rules: AnyRules, report: ConformanceReport, n_parties: int) -> None:
        self.rules = rules
        self.report = report
        self.n = n_parties

    def problem(self, text: str) -> None:
        if len(self.report.problems) < 50:
            self.report.problems.append(text)

    def refused(
        self, state: Any, party: int, call: Any, what: str, before: str | None = None
    ) -> None:
        """``call()`` must raise IllegalAction and leave the state as it was (``before``:
        the state's dump, when the caller has it; each refusal is checked against it)."""
        rules = self.rules
        if before is None:
            before = _dump(rules.serialize(state))
        try:
            call()
        except IllegalAction:
            pass
        except Exception as exc:  # noqa: BLE001 - a wrong exception is a finding
            self.problem(f"{what}: raised {type(exc).__name__}: {exc} (not IllegalAction)")
        else:
            self.problem(f"{what}: accepted (party {party})")
        if _dump(rules.serialize(state)) != before:
            self.problem(f"{what}: changed the state although refused")

    def step_checks(self, state: Any, step: int) -> None:
        rules = self.rules
        at = f"step {step}"
        data = rules.serialize(state)
        _json_ok(f"{at}: serialize()", data, self.report.problems)
        dumped = _dump(data)  # every refusal below must leave exactly this
        try:
            again = rules.serialize(rules.restore(copy.deepcopy(data)))
        except Exception as exc:  # noqa: BLE001 - a failing restore is a finding
            self.problem(f"{at}: restore(serialize(state)) raised {type(exc).__name__}: {exc}")
        else:
            if _dump(again) != dumped:
                self.problem(f"{at}: restore(serialize(state)) serializes differently")
        to_act = rules.to_act(state)
        if not isinstance(to_act, tuple) or not all(type(p) is int for p in to_act):
            self.problem(f"{at}: to_act() must be a tuple of party indices; got {to_act!r}")
        over = not to_act
        if (rules.result(state) is None) != (not over):
            self.problem(
                f"{at}: result() must be None exactly while someone is to act "
                f"(to_act {to_act}, result {rules.result(state)!r})"
            )
        for party in [*range(self.n), None]:
            _json_ok(f"{at}: observe({party})", rules.observe(state, party), self.report.problems)
        for party in range(self.n):
            legal = rules.legal(state, party)
            if not isinstance(legal, Legal) or legal.party != party:
                self.problem(f"{at}: legal({party}) must be a Legal for party {party}")
                continue
            if bool(legal.actions) != (party in to_act):
                self.problem(
                    f"{at}: legal({party}) allows {list(legal.kinds)} but to_act is {to_act}"
                )
            _json_ok(f"{at}: legal({party}).schema()", legal.schema(), self.report.problems)
            if party not in to_act:
                probe = {"kind": "offer", "args": {}}
                self.refused(
                    state,
                    party,
                    lambda p=party, d=probe: rules.action_from_json(state, p, d),
                    f"{at}: an action of party {party}, who is not asked",
                    dumped,
                )
            else:
                for bad in _bad_actions(legal):
                    self.refused(
                        state,
                        party,
                        lambda p=party, b=bad: rules.action_from_json(state, p, b),
                        f"{at}: wire action {bad} of party {party}",
                        dumped,
                    )
                self.refused(
                    state,
                    party,
                    lambda p=party: rules.apply(state, p, _Garbage(), 0.0),
                    f"{at}: apply() of an object that is no action",
                    dumped,
                )

    def wrong_party(self, state: Any, party: int, action: Any, step: int) -> None:
        """A legal action of ``party`` played by a party not asked must be refused."""
        others = [p for p in range(self.n) if p not in self.rules.to_act(state)]
        for other in others[:1]:
            self.refused(
                state,
                other,
                lambda o=other: self.rules.apply(state, o, action, 0.0),
                f"step {step}: party {party}'s action played by party {other}, who is not asked",
            )


def _events_ok(events: Sequence[Event], where: str, problems: list[str]) -> list[Any]:
    out = []
    for e in list(events):
        if not isinstance(e, Event):
            problems.append(f"{where}: an event is {type(e).__name__}, not Event")
            continue
        out.append(e.to_json())
    _json_ok(f"{where}: events", out, problems)
    return out


def _play(
    rules: AnyRules, setup: Any, seed: int, checker: _Checker | None, max_steps: int
) -> list[Any]:
    """One random play; the record compared for determinism."""
    state = rules.initial(setup, seed)
    rng = np.random.default_rng(seed + 7919)
    record: list[Any] = [_dump(rules.serialize(state))]
    problems = checker.report.problems if checker is not None else []
    now = 0.0
    for step in range(max_steps):
        state, events = rules.tick(state, now)
        record.append(_events_ok(events, f"tick {step}", problems))
        if checker is not None:
            checker.step_checks(state, step)
        parties = rules.to_act(state)
        if not parties:
            break
        party = parties[0]
        data = random_action(rules.legal(state, party), rng)
        action = rules.action_from_json(state, party, data)
        if rules.action_to_json(state, action) != data and checker is not None:
            checker.problem(
                f"step {step}: action_to_json(action_from_json({data})) is "
                f"{rules.action_to_json(state, action)}"
            )
        if checker is not None:
            checker.wrong_party(state, party, action, step)
        try:
            state, events = rules.apply(state, party, action, now)
        except IllegalAction as exc:
            if checker is not None:
                checker.problem(f"step {step}: legal action {data} refused: {exc.reason}")
            break
        record.append([party, data, _events_ok(events, f"apply {step}", problems)])
        record.append(_dump(rules.serialize(state)))
        if checker is not None:
            checker.report.steps += 1
        now += 0.001
    else:
        if checker is not None:
            checker.problem(f"the play did not end within {max_steps} actions")
    if not rules.to_act(state):
        if checker is not None:
            checker.refused(
                state,
                0,
                lambda: rules.action_from_json(state, 0, {"kind": "offer", "args": {}}),
                "an action after the end",
            )
        result = rules.result(state)
        record.append(repr(result.to_dict() if hasattr(result, "to_dict") else result))
    return record


def check_rules(
    rules: AnyRules,
    setup: Any = None,
    seeds: Sequence[int] = tuple(range(10)),
    max_steps: int = 2_000,
    n_parties: int | None = None,
    raise_on_problem: bool = False,
) -> ConformanceReport:
    """Check ``rules`` against the contract (see the module); ``setup`` defaults to
    ``rules.example()``, ``n_parties`` to what ``observe``'s ``names`` or the info say.

    Raises :class:`ConformanceError` listing the problems when ``raise_on_problem``.
    """
    info = getattr(rules, "info", None)
    if not isinstance(info, ProtocolInfo):
        raise ConformanceError(f"rules need a ProtocolInfo 'info'; got {info!r}")
    report = ConformanceReport(info.id)
    setup = rules.example() if setup is None else setup
    if n_parties is None:
        try:
            names = rules.observe(rules.initial(setup, 0), None).get("names")
        except Exception:  # noqa: BLE001 - the plays below report it
            names = None
        n_parties = len(names) if isinstance(names, list) else info.min_parties
    checker = _Checker(rules, report, n_parties)
    for seed in seeds:
        try:
            first = _play(rules, setup, seed, checker, max_steps)
            second = _play(rules, setup, seed, None, max_steps)
        except Exception as exc:  # noqa: BLE001 - a crash of the rules is a finding
            where = traceback.extract_tb(exc.__traceback__)[-1]
            report.problems.append(
                f"seed {seed}: {type(exc).__name__}: {exc} "
                f"(in {where.name}, {where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
            )
            report.plays += 1
            continue
        if first != second:
            report.problems.append(f"seed {seed}: two plays with the same seed differ")
        report.plays += 1
    if raise_on_problem and report.problems:
        raise ConformanceError(
            f"{info.id}: {len(report.problems)} problem(s):\n- " + "\n- ".join(report.problems)
        )
    return report
