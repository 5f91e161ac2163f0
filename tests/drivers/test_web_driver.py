"""The web driver: a person plays alternating offers against a built-in agent through
``accord.web`` (HTTP and real Chromium), with nothing written for the protocol beyond its
rules; the play resumes from its event log."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from accord.commands.play import build_game
from accord.core.negotiator import Negotiator
from accord.core.protocols.alternating import AOPRules
from accord.core.protocols.offers import NegotiatorSeat, negotiation_views
from accord.tournament.sqlite import SqliteFile
from accord.web.app import create_app
from accord.web.clock import VirtualClock
from accord.web.driver import PLAY_PAGE, RulesGame
from accord.web.store import EventLog
from accord.web.testing import ServerThread, read_sse


def _client(game: RulesGame) -> TestClient:
    return TestClient(create_app("play", game, static={"/": PLAY_PAGE}))


def _q(game: RulesGame, party: int = 0) -> str:
    return f"party={party}&token={game.tokens[party]}"


def test_state_shows_the_typed_actions_of_the_party() -> None:
    game = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())
    with _client(game) as client:
        view = client.get(f"/api/state?{_q(game)}").json()
    assert view["protocol"] == "aop-v1"
    assert view["observation"]["names"] == ["you", "Boulware"]
    assert [a["kind"] for a in view["legal"]["actions"]] == ["offer", "end"]
    food = view["legal"]["actions"][0]["fields"][0]
    assert (food["name"], food["kind"], food["options"]) == (
        "Food",
        "choice",
        ["Hamburger", "Pizza"],
    )
    offer_schema = view["schema"]["oneOf"][0]["properties"]["args"]["properties"]
    assert offer_schema["Drink"] == {"title": "Drink", "enum": ["Cola", "Beer"]}


def test_an_illegal_action_is_refused_with_the_reason_and_changes_nothing() -> None:
    game = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())
    with _client(game) as client:
        before = client.get(f"/api/state?{_q(game)}").json()
        r = client.post(f"/api/act?{_q(game)}", json={"kind": "accept", "args": {}})
        assert r.status_code == 422
        assert r.json() == {
            "status": "Failed",
            "code": "illegal_action",
            "error": "'accept' is not allowed now; allowed: offer, end",
        }
        bad = {"kind": "offer", "args": {"Food": "Sushi", "Drink": "Beer"}}
        r = client.post(f"/api/act?{_q(game)}", json=bad)
        assert r.status_code == 422
        assert r.json()["error"] == "Food must be one of ['Hamburger', 'Pizza']; got 'Sushi'"
        assert client.get(f"/api/state?{_q(game)}").json() == before


def test_a_wrong_token_or_party_is_refused() -> None:
    game = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())
    with _client(game) as client:
        assert client.get("/api/state?party=0&token=guess").status_code == 403
        r = client.get(f"/api/state?party=1&token={game.tokens[0]}")
        assert r.status_code == 403
        assert r.json()["error"] == "no seat for party 1 with this token"


def test_the_live_route_streams_the_view_and_refuses_a_wrong_seat() -> None:
    game = build_game("aop", "lunch", "boulware", rounds=10)
    app = create_app("play", game, static={"/": PLAY_PAGE})
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        wrong = c.get(f"/api/live?party=1&token={game.tokens[0]}")
        assert (wrong.status_code, wrong.json()["code"]) == (403, "forbidden")
        assert c.get("/api/live?party=x&token=t").status_code == 422
        with c.stream("GET", f"/api/live?{_q(game)}") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            assert r.headers["content-security-policy"].startswith("default-src 'self'")
            ((event, view),) = read_sse(r, 1)
        now = c.get(f"/api/state?{_q(game)}").json()
    assert event == "state" and (view["version"], view["legal"]) == (0, now["legal"])


def test_the_agent_answers_after_the_person_and_the_play_ends_in_agreement() -> None:
    game = build_game("aop", "lunch", "boulware", rounds=10, clock=VirtualClock())
    with _client(game) as client:
        offer = {"kind": "offer", "args": {"Food": "Pizza", "Drink": "Beer"}}
        client.post(f"/api/act?{_q(game)}", json=offer)  # the agent acts in the background
        view = client.get(f"/api/state?{_q(game)}").json()
        assert view["observation"]["to_act"] == [0]
        assert [o["party"] for o in view["observation"]["offers"]] == [0, 1]
        assert [a["kind"] for a in view["legal"]["actions"]] == ["accept", "offer", "end"]
        assert view["version"] == 2  # two changes: the person's offer, the agent's
        done = client.post(f"/api/act?{_q(game)}", json={"kind": "accept", "args": {}}).json()
    assert done["over"] is True
    result = done["observation"]["result"]
    assert result["reason"] == "agreement"
    assert result["agreement"] == list(view["observation"]["standing"].values())
    assert [e["kind"] for e in done["events"]] == ["offer", "offer", "accept", "over"]


def test_the_play_resumes_from_its_event_log(tmp_path: Path) -> None:
    path = tmp_path / "play.sqlite"
    game = build_game("aop", "lunch", "boulware", rounds=10, log_path=path, clock=VirtualClock())
    game.act(0, {"kind": "offer", "args": {"Food": "Pizza", "Drink": "Beer"}})
    game.run_agents()
    before = game.view(0)
    tokens = game.tokens
    game.log.file.close()
    again = build_game(
        "aop", "lunch", "boulware", rounds=10, log_path=path, clock=VirtualClock(), tokens=tokens
    )
    assert again.view(0) == before
    assert again.rules.serialize(again.state) == game.rules.serialize(game.state)


class Broken(Negotiator):
    def respond(self, view: Any, offer: Any) -> Any:
        raise RuntimeError("agent bug")


def test_a_failing_agent_is_recorded_not_crashing_the_server() -> None:
    rules = AOPRules()
    setup = rules.example()
    log = EventLog(SqliteFile(":memory:"))

    def seats(state: Any) -> dict[int, NegotiatorSeat]:
        view = negotiation_views(state)[1]
        return {1: NegotiatorSeat(Broken(), view, rules, setup.space)}

    game = RulesGame(rules, setup, [0], seats, log, clock=VirtualClock(), names=["me", "bot"])
    with _client(game) as client:
        offer = {"kind": "offer", "args": {"food": "pizza", "price": 3}}
        client.post(f"/api/act?{_q(game)}", json=offer)
        view = client.get(f"/api/state?{_q(game)}").json()
    result = view["observation"]["result"]
    assert (result["reason"], result["failure"]["party"]) == ("failure", 1)
    assert result["failure"]["message"] == "RuntimeError: agent bug"
    assert [e["kind"] for e in view["events"]] == ["offer", "failure", "over"]


@pytest.mark.browser
def test_a_person_plays_alternating_offers_in_chromium(web_page: Any) -> None:
    from playwright.sync_api import expect

    game = build_game("aop", "lunch", "boulware", rounds=10)
    page = web_page
    with ServerThread(create_app("play", game, static={"/": PLAY_PAGE})) as server:
        page.goto(f"{server.url}/?{_q(game)}")
        expect(page.locator("#status")).to_have_text("Your turn.")
        expect(page.locator("#title")).to_have_text("aop-v1: you are you")
        form = page.locator("form[data-kind=offer]")
        form.locator("select[name=Food]").select_option(label="Pizza")
        form.locator("select[name=Drink]").select_option(label="Beer")
        form.get_by_role("button").click()
        # The state the next click needs: the agent's counter-offer shown, the person's
        # turn again (a page never goes back to an older state: answers may overtake).
        expect(page.locator("#offers tr")).to_have_count(2)
        expect(page.locator("#status")).to_have_text("Your turn.")
        cells = page.locator("#offers tr").nth(0).locator("td")
        expect(cells.nth(2)).to_have_text("Food: Pizza, Drink: Beer")
        page.locator("form[data-kind=accept] button").click()
        expect(page.locator("#status")).to_have_text("The negotiation is over.")
        expect(page.locator("#result-text")).to_have_text(re.compile(r"^agreement: agreement on "))
        expect(page.locator("#result")).to_be_visible()
    assert game.rules.result(game.state).reason.value == "agreement"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["play", "colored-trails-oneshot"],
            "error: protocol 'colored-trails-oneshot-v1' has no Rules yet, so it cannot be played here",
        ),
        (["play", "aop", "--as", "2"], "error: --as must be 0 or 1; got 2"),
        (["play", "nosuch"], "error: unknown protocol 'nosuch'."),
        (["play", "aop", "--port", "70000"], "error: cannot listen on 127.0.0.1:70000: a port"),
    ],
)
def test_accord_play_says_what_is_wrong_before_serving(args: list[str], error: str) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip().startswith(error)


def test_accord_play_refuses_a_log_that_is_not_sqlite(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    result = CliRunner().invoke(app, ["play", "aop", "--log", str(notes), "--port", "0"])
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"error: --log {str(notes)!r} is not a SQLite file")
    assert notes.read_text() == "not a database\n" * 100  # untouched


def test_the_ultimatum_game_is_playable_from_its_rules_alone() -> None:
    game = build_game("ultimatum", "lunch", "hardliner", rounds=10, clock=VirtualClock())
    with _client(game) as client:
        view = client.get(f"/api/state?{_q(game)}").json()
        assert [a["kind"] for a in view["legal"]["actions"]] == ["offer", "end"]
        offer = {"kind": "offer", "args": {"Food": "Pizza", "Drink": "Beer"}}
        client.post(f"/api/act?{_q(game)}", json=offer)
        done = client.get(f"/api/state?{_q(game)}").json()
    assert done["over"] is True
    assert done["observation"]["result"]["reason"] in {"agreement", "rejected"}
    assert [e["kind"] for e in done["events"]][0] == "offer"
    assert [e["kind"] for e in done["events"]][-1] == "over"


def test_pages_are_answered_while_an_agent_thinks() -> None:
    import threading

    rules = AOPRules()
    setup = rules.example()
    thinking, release = threading.Event(), threading.Event()

    class Slow:
        name = "slow"

        def start(self, state: Any) -> None: ...

        def act(self, state: Any, party: int) -> Any:
            thinking.set()
            assert release.wait(30), "the test never released the agent"
            return ("tacos", 1)

        def end(self, result: Any) -> None: ...

    log = EventLog(SqliteFile(":memory:"))
    game = RulesGame(rules, setup, [0], lambda state: {1: Slow()}, log, clock=VirtualClock())
    game.act(0, {"kind": "offer", "args": {"food": "pizza", "price": 3}})
    agent = threading.Thread(target=game.run_agents)
    agent.start()
    assert thinking.wait(30)
    view = game.view(0)  # answered although the agent has not
    assert view["observation"]["to_act"] == [1]
    r = _client(game).post(f"/api/act?{_q(game)}", json={"kind": "end", "args": {}})
    assert r.status_code == 422  # not the person's turn: nothing changes
    release.set()
    agent.join(30)
    after = game.view(0)["observation"]
    assert after["to_act"] == [0]
    assert after["standing"] == {"food": "tacos", "price": 1}
