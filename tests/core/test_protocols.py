"""Protocols through the registry: capability records, checks, the ultimatum game."""

from __future__ import annotations

import hashlib
import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from accord.agents.simple import Hardliner
from accord.agents.timebased import Boulware, Conceder
from accord.core import (
    CapabilityError,
    ConfigError,
    Deadline,
    Negotiator,
    OptsOut,
    Response,
    Session,
)
from accord.core.protocols import (
    AOP,
    AOP_SIMULTANEOUS,
    Action,
    EndReason,
    Mechanism,
    Phase,
    ProtocolInfo,
    TurnStyle,
    Ultimatum,
    check_protocol_agents,
    known_protocols,
    make_session,
    protocol_info,
    register_protocol,
    unregister_protocol,
)
from accord.scenarios import load_bundled
from accord.tournament import TournamentConfig, run_tournament
from accord.tournament.results import Results

LUNCH = load_bundled("lunch")


def _session(protocol: str, agents: list[Negotiator], **params: object) -> Mechanism:
    return make_session(
        protocol, LUNCH.space, agents, list(LUNCH.utilities), Deadline(rounds=20), **params
    )


def test_built_in_protocols_are_registered_with_versioned_ids() -> None:
    infos = known_protocols()
    # Leagues add their own protocols when imported (genius-partial-v1, ...); the core's are:
    assert {"aop-simultaneous-v1", "aop-v1", "ultimatum-v1"} <= set(infos)
    assert list(infos) == sorted(infos)
    assert protocol_info("AOP") is AOP and protocol_info("saop") is AOP
    assert protocol_info("simultaneous_start") is AOP_SIMULTANEOUS
    assert infos["ultimatum-v1"].actions == {
        Action.OFFER,
        Action.ACCEPT,
        Action.REJECT,
        Action.END,
    }
    assert AOP.turns is TurnStyle.SEQUENTIAL and AOP.max_parties is None
    with pytest.raises(FrozenInstanceError):
        AOP.id = "aop-v2"  # type: ignore[misc]


def test_make_session_gives_the_same_session_as_the_direct_constructor() -> None:
    direct = Session(
        LUNCH.space, [Boulware(), Conceder()], list(LUNCH.utilities), Deadline(rounds=20)
    ).run()
    via = _session("aop", [Boulware(), Conceder()]).run()
    assert [e[:4] for e in via.trace] == [e[:4] for e in direct.trace]
    assert via.agreement == direct.agreement and via.utilities == direct.utilities


def test_simultaneous_start_has_every_party_propose_first() -> None:
    s = _session("aop-simultaneous-v1", [Boulware(), Conceder()])
    assert isinstance(s, Session) and s.info is AOP_SIMULTANEOUS
    assert s.step() is None
    assert [(e.party, e.action) for e in s.run().trace[:2]] == [
        (0, Action.OFFER),
        (1, Action.OFFER),
    ]


class _Taker(Negotiator):
    """Accepts anything at least as good as its reservation value."""

    def respond(self, view, offer):  # type: ignore[no-untyped-def]
        ok = view.utility(offer) >= view.reservation
        return Response.ACCEPT if ok else Response.REJECT


def test_ultimatum_agreement_needs_every_responder_to_accept() -> None:
    # Conceder proposes its best outcome; Hardliner accepts only its own best.
    rejected = _session("ultimatum", [Conceder(), Hardliner()]).run()
    assert rejected.reason is EndReason.REJECTED and rejected.ended_by == 1
    assert [e.action for e in rejected.trace] == [Action.OFFER, Action.REJECT]
    assert rejected.agreement is None
    assert rejected.utilities == tuple(u.reservation_at(rejected.time) for u in LUNCH.utilities)
    accepted = _session("ultimatum", [Hardliner(), _Taker()]).run()
    assert [e.action for e in accepted.trace] == [Action.OFFER, Action.ACCEPT]
    assert accepted.agreement == accepted.trace[0].outcome
    assert accepted.steps == 2 and accepted.rounds == 1


def test_ultimatum_with_three_parties_and_a_later_proposer() -> None:
    sc = load_bundled("holiday")
    agents: list[Negotiator] = [_Taker(), _Taker(), Hardliner()]
    s = make_session(
        "ultimatum", sc.space, agents, list(sc.utilities), Deadline(rounds=10), first=2
    )
    assert s.phase is Phase.CREATED
    r = s.run()
    assert s.phase is Phase.ENDED
    assert [e.party for e in r.trace] == [2, 0, 1]
    assert [e.action for e in r.trace] == [Action.OFFER, Action.ACCEPT, Action.ACCEPT]
    assert r.agreement == r.trace[0].outcome and r.reason is EndReason.AGREEMENT


def test_ultimatum_records_a_bad_answer_against_the_responder() -> None:
    class Shrug(Negotiator):
        def respond(self, view, offer):  # type: ignore[no-untyped-def]
            return "maybe"

    r = _session("ultimatum", [Hardliner(), Shrug()]).run()
    assert r.reason is EndReason.FAILURE and r.failure is not None
    assert r.failure.party == 1 and "must return a Response" in r.failure.message


def test_unknown_protocol_and_bad_parameters_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown protocol 'ultimatm'. Did you mean 'ultimatum'"):
        protocol_info("ultimatm")
    with pytest.raises(ConfigError, match="does not take parameters {'speed': 3}"):
        _session("aop", [Boulware(), Conceder()], speed=3)
    with pytest.raises(ConfigError, match="must be a Mechanism class"):
        protocol_info("pathlib:Path")
    with pytest.raises(ConfigError, match="'aop-v1' like|like 'aop-v1'"):
        ProtocolInfo("AOP", "x", TurnStyle.SEQUENTIAL, frozenset())


class _ExitInfo:
    info = ProtocolInfo(
        "exit-v1",
        "exit game",
        TurnStyle.SEQUENTIAL,
        frozenset({Action.OFFER, Action.END}),
        max_parties=2,
        needs=(OptsOut,),
    )


class Leaver(Negotiator, OptsOut):
    def opt_out(self, view):  # type: ignore[no-untyped-def]
        return True


def test_capabilities_are_checked_by_class_and_by_instance_naming_what_is_missing() -> None:
    info = _ExitInfo.info
    check_protocol_agents(info, {"L": Leaver, "L2": Leaver()})
    with pytest.raises(CapabilityError) as err:
        check_protocol_agents(info, {"L": Leaver, "Plain": Boulware})
    assert str(err.value) == (
        "protocol 'exit-v1' needs negotiators with OptsOut (opt_out); Plain lacks OptsOut (opt_out)"
    )
    with pytest.raises(CapabilityError, match=r"'Boulware' \(Boulware\) lacks OptsOut"):
        info.check_negotiators([Leaver(), Boulware()])
    with pytest.raises(ConfigError, match="isolated agents do not carry"):
        check_protocol_agents(info, {"L": Leaver}, isolated=True)
    with pytest.raises(ConfigError, match="takes 2 parties; got 3"):
        info.check_parties(3)


def test_registering_and_unregistering_a_protocol() -> None:
    register_protocol(Ultimatum, names=["last-word"])
    try:
        assert protocol_info("last_word").id == "ultimatum-v1"
    finally:
        unregister_protocol("last-word")
    with pytest.raises(ConfigError, match="unknown protocol"):
        protocol_info("last-word")
    assert protocol_info("ultimatum").id == "ultimatum-v1"


def test_a_tournament_config_chooses_the_protocol_and_results_record_it(
    tmp_path: Path,
) -> None:
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text(
        "agents: [hardliner, conceder]\nscenarios: [lunch]\nprotocol: ultimatum\nrounds: 10\n"
    )
    cfg = TournamentConfig.from_yaml(yaml_file)
    assert cfg.protocol == "ultimatum-v1"
    assert cfg.fingerprint() != cfg.with_(protocol="aop").fingerprint()
    run = run_tournament(cfg, tmp_path / "t.sqlite")
    assert run.ran == run.total == 8
    results = Results(tmp_path / "t.sqlite")
    try:
        sessions, events = results.sessions, results.events
        assert results.config["protocol"] == "ultimatum-v1"
    finally:
        results.close()
    assert set(sessions["reason"]) <= {"agreement", "rejected"}
    assert "rejected" in set(sessions["reason"])
    assert set(sessions["steps"]) == {2}
    assert set(events["action"]) <= {"offer", "accept", "reject"}
    assert list(events["action"]).count("offer") == 8


def test_default_protocol_keeps_the_old_fingerprint() -> None:
    cfg = TournamentConfig(["boulware"], ["builtin:tiny"])
    assert cfg.protocol == "aop-v1" and cfg.to_dict()["protocol"] == "aop-v1"
    assert TournamentConfig(["boulware"], ["builtin:tiny"], protocol="saop") == cfg
    old = cfg.to_dict()  # what fingerprint() hashed before configs named a protocol
    del old["name"], old["protocol"]
    if old.get("discretize") is None:  # a later setting, left out when unused
        old.pop("discretize", None)
    old.pop("sandbox")  # where agents run (issue 22) is never part of the fingerprint
    old.pop("sessions_per_sandbox")  # nor how many sessions a sandbox holds at once
    text = json.dumps(old, sort_keys=True, default=str)
    assert cfg.fingerprint() == hashlib.sha256(text.encode()).hexdigest()[:16]


def test_a_tournament_with_a_protocol_its_agents_cannot_play_fails_before_it_starts(
    tmp_path: Path,
) -> None:
    register_protocol(Ultimatum, _ExitInfo.info)
    try:
        cfg = TournamentConfig(["boulware"], ["lunch"], protocol="exit")
        with pytest.raises(CapabilityError, match="(?i)boulware lacks OptsOut"):
            run_tournament(cfg, tmp_path / "t.sqlite")
    finally:
        unregister_protocol("exit-v1")
    assert not (tmp_path / "t.sqlite").exists()


def test_a_protocol_that_rejects_the_scenarios_party_count_fails_early(tmp_path: Path) -> None:
    bilateral = ProtocolInfo(
        "bilateral-v1", "AOP for two", TurnStyle.SEQUENTIAL, AOP.actions, max_parties=2
    )
    register_protocol(Session, bilateral)
    try:
        cfg = TournamentConfig(["boulware"], ["holiday"], protocol="bilateral")
        with pytest.raises(ConfigError, match="scenario 'holiday': .*takes 2 parties; got 3"):
            run_tournament(cfg, tmp_path / "t.sqlite")
    finally:
        unregister_protocol("bilateral-v1")
    assert not (tmp_path / "t.sqlite").exists()


def test_the_scml_variant_runs_from_a_tournament_config(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        ["boulware", "conceder"], ["lunch"], protocol="simultaneous-start", rounds=10
    )
    assert cfg.protocol == "aop-simultaneous-v1"
    run = run_tournament(cfg, tmp_path / "s.sqlite")
    assert run.ran == 8
    results = Results(tmp_path / "s.sqlite")
    try:
        events = results.events
        firsts = events[events["step"] < 2]
    finally:
        results.close()
    # Every session opens with both parties' offers, in party order.
    assert len(firsts) == 16 and set(firsts["action"]) == {"offer"}


def test_the_agent_checker_plays_the_chosen_protocol() -> None:
    from accord.agents.checker import check_negotiator

    report = check_negotiator(Conceder, protocol="ultimatum", rounds=10)
    assert report.sessions == 9
    assert all(len(r.trace) <= 3 for _, r in report.results)
    assert {r.reason.value for _, r in report.results} <= {"agreement", "rejected"}
