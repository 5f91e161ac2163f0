"""Sessions with people: stored after every change, resumed after a restart, bad input refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.core.errors import ConfigError, ProtocolViolation
from accord.leagues.genius.live import LiveSession
from accord.leagues.genius.protocol import Action, Rules, VirtualClock
from accord.leagues.genius.store import GeniusStore

PEOPLE = ("person:ann", "person:bob")


def _create(tmp_path: Path, names: tuple[str, str] = PEOPLE, sid: str = "s1"):
    clock = VirtualClock(5000.0)
    store = GeniusStore(tmp_path / "genius.sqlite")
    live = LiveSession.create(
        store, sid, "job_candidate", (0, 2), Rules(turn_seconds=120), names, clock=clock
    )
    return live, store, clock


def test_two_people_reach_an_agreement_and_it_is_stored(tmp_path: Path) -> None:
    live, store, clock = _create(tmp_path)
    full = {i.name: i.values[1] for i in live.session.domain.issues}
    e = live.submit_json(0, {"kind": "offer", "values": full})
    clock.advance(130)
    end = live.submit_json(1, {"kind": "accept", "offer": e.offer})
    assert end.result is not None and end.result.full and end.result.turn == 1
    row = store.session("s1")
    assert row is not None and row["status"] == "ended" and row["reason"] == "agreement"
    assert [ev["kind"] for ev in store.events("s1")] == ["offer", "accept"]
    assert store.events("s1")[1]["elapsed"] == 130.0
    state = live.state(1)
    assert state["status"] == "ended" and state["result"]["utility"] == end.result.utilities[1]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "offer", "values": "Salary=high"}, "an offer needs 'values'"),
        ({"kind": "offer", "values": {"Bonus": "yes"}}, "unknown issue 'Bonus'"),
        ({"kind": "offer", "values": {"Salary": "1 NIS"}}, "issue 'Salary' has no value '1 NIS'"),
        ({"kind": "shout"}, "unknown action kind 'shout'"),
        ("accept", "an action must be a JSON object"),
    ],
)
def test_bad_input_is_refused_clearly_and_nothing_is_stored_wrongly(
    tmp_path: Path, data: object, message: str
) -> None:
    live, store, _ = _create(tmp_path)
    event = live.submit_json(0, data)
    assert not event.ok and message in (event.error or "")
    # refused, not punished: nothing stored, nothing counted against the person
    assert store.events("s1") == [] and live.session.events == []
    assert live.session.offers == [] and store.session("s1")["invalid0"] == 0  # type: ignore[index]


def test_a_persons_invalid_action_changes_nothing_an_agents_is_recorded(tmp_path: Path) -> None:
    from accord.leagues.genius.agent import GeniusAgent, PartyView

    live, store, clock = _create(tmp_path, ("person:ann", "agent:conceder"))
    before = live.state(0)
    bad = live.submit(0, Action.accept(999))
    assert not bad.ok and bad.error == "no offer 999 to answer; open offers of the other side: 0"
    assert live.state(0) == before and live.session.invalid == [0, 0]

    class Wrong(GeniusAgent):
        name = "wrong"

        def act(self, view: PartyView) -> list[Action]:
            return [Action.accept(999)]

    live.agents[1].act = Wrong().act  # type: ignore[method-assign]
    live.submit(0, Action.comment(1))
    # asked after the comment while it answers with actions (3 times at most): each
    # invalid answer is recorded against the agent, and the session goes on
    wrong = [e for e in live.session.events if not e.ok]
    assert live.session.invalid == [0, 3] and live.session.phase.value == "running"
    assert [(e.party, e.kind) for e in wrong] == [(1, "accept")] * 3
    assert all("no offer 999" in (e.error or "") for e in wrong)
    assert store.session("s1")["invalid1"] == 3  # type: ignore[index]


def test_an_action_after_the_end_is_refused(tmp_path: Path) -> None:
    live, store, _ = _create(tmp_path)
    live.submit(0, Action.opt_out())
    late = live.submit_json(1, {"kind": "offer", "values": {"Salary": "7,000 NIS"}})
    assert not late.ok and "the session has ended" in (late.error or "")
    assert store.session("s1")["reason"] == "opt_out"  # type: ignore[index]


def test_with_people_the_kbagent_answers_after_a_scheduled_delay(tmp_path: Path) -> None:
    live, store, clock = _create(tmp_path, ("person:ann", "agent:kbagent"))
    assert live.session.offers == []  # it is "thinking": nothing sent, nothing blocked
    live.submit(0, Action.comment(0))  # the person can act meanwhile
    waited = 0
    while not live.session.offers:
        clock.advance(1)
        waited += 1
        live.poll()
        assert waited <= 30  # Gaussian (5 s, sd 2 s), at most a quarter of the turn
    assert [o.party for o in live.session.offers] == [1]


def test_a_person_against_the_kbagent_opts_out(tmp_path: Path) -> None:
    live, store, clock = _create(tmp_path, ("person:ann", "agent:kbagent-instant"))
    assert [o.party for o in live.session.offers] == [1]  # the agent opened
    clock.advance(250)
    live.poll()
    assert len(live.session.offers) == 2  # a new turn, a new offer
    end = live.submit(0, Action.opt_out())
    assert end.result is not None and end.result.ended_by == 0
    assert end.result.utilities == pytest.approx((210.0 - 6 * 2, 80.0 - 8 * 2))


def test_a_restarted_server_resumes_a_running_session(tmp_path: Path) -> None:
    live, store, clock = _create(tmp_path, ("person:ann", "agent:conceder"))
    a = live.submit(0, Action.make_offer({"Salary": "12,000 NIS"}))
    live.submit(0, Action.comment(2))
    live.submit(0, Action.accept(999))  # invalid: refused, nothing recorded
    clock.advance(130)
    live.poll()
    before = live.state(0)
    store.close()
    # restart: a new store object on the same file, a later wall clock
    store2 = GeniusStore(tmp_path / "genius.sqlite")
    again = LiveSession.resume(store2, "s1", clock=clock)
    after = again.state(0)
    for key in ("turn", "agreement", "offers", "messages"):
        assert after[key] == before[key], key
    assert again.session.invalid == [0, 0]
    assert again.session.offers[a.offer or 0].values == {"Salary": "12,000 NIS"}
    clock.advance(120 * 14)
    again.poll()
    row = store2.session("s1")
    assert row is not None and row["status"] == "ended" and row["reason"] == "deadline"


def test_a_person_leaving_is_recorded_and_the_session_takes_no_more_actions(tmp_path: Path) -> None:
    live, store, _ = _create(tmp_path)
    live.leave(1)
    assert store.session("s1")["status"] == "abandoned"  # type: ignore[index]
    with pytest.raises(ProtocolViolation, match="the session is abandoned"):
        live.submit(0, Action.opt_out())


def test_a_session_id_cannot_be_reused(tmp_path: Path) -> None:
    live, store, clock = _create(tmp_path)
    with pytest.raises(ConfigError, match="session 's1' already exists"):
        LiveSession.create(store, "s1", "job_candidate", (0, 0), Rules(), PEOPLE, clock=clock)


def test_the_kbagent_opponent_learns_from_the_stores_finished_sessions(tmp_path: Path) -> None:
    from accord.leagues.genius.evaluate import evaluate
    from accord.leagues.genius.loading import load_domain
    from accord.leagues.genius.match import Match
    from accord.leagues.genius.pdas import make_agent

    store = GeniusStore(tmp_path / "genius.sqlite")
    d = load_domain("job_candidate")
    for k in range(3):
        m = Match(d, [make_agent("fair"), make_agent("bayes")], (k, 2 - k), seed=k)
        m.run()
        store.save(m.session, f"past{k}", ("person:x", "person:y"), population="people")
    live = LiveSession.create(
        store,
        "now",
        d,
        (0, 0),
        Rules(turn_seconds=60),
        ("person:ann", "agent:kbagent"),
        clock=VirtualClock(0.0),
    )
    assert live.agents[1].model.sessions == 3  # type: ignore[attr-defined]
    recs = evaluate("kbagent", [d], pool=["conceder"], type_pairs=[(0, 0)], knowledge=store)
    assert len(recs) == 2


def test_the_play_log_holds_changes_only(tmp_path: Path) -> None:
    """The session is a play of the web driver: a person's refused action and an agent
    that lets a poll pass (the KBAgent waiting out its delay) write nothing."""
    from accord.leagues.genius.live import plays_log, stream_of

    live, store, clock = _create(tmp_path, ("person:ann", "agent:kbagent"))
    log = plays_log(store)
    live.submit(0, Action.accept(999))  # refused
    for _ in range(3):
        live.poll()  # the agent is "thinking": no answer yet
    assert [e.kind for e in log.read(stream_of("s1"))] == ["start"]
    live.submit(0, Action.comment(0))
    acts = log.read(stream_of("s1"), kinds=("act",))
    assert [(e.data["party"], e.data["action"]) for e in acts] == [
        (0, {"kind": "comment", "args": {"index": 0}})
    ]


def test_a_session_stored_before_the_web_driver_resumes_from_its_events(tmp_path: Path) -> None:
    """A session kept only in the store (no play yet) is replayed from its stored events
    once and moved onto its play; the time the server was down counts."""
    live, store, clock = _create(tmp_path, ("person:ann", "agent:conceder"))
    live.submit(0, Action.make_offer({"Salary": "12,000 NIS"}))
    clock.advance(30)
    live.poll()
    before = live.state(0)
    store.close()
    (tmp_path / "genius.sqlite.plays").unlink()  # as a server before the change left it
    clock.advance(100)  # down for 100 s: the session is in its second turn
    store2 = GeniusStore(tmp_path / "genius.sqlite")
    again = LiveSession.resume(store2, "s1", clock=clock)
    after = again.state(0)
    assert [o["values"] for o in after["offers"]] == [o["values"] for o in before["offers"]]
    assert after["turn"] == 1 and again.session.elapsed == pytest.approx(130.0)
    store2.close()
