"""The immersive routes over real services on loopback (no browser): the speech queue
holds the permitted seller messages only, in the orchestrator's order, with their
gestures; an utterance goes the typed path; bad input is refused clearly."""

from __future__ import annotations

import io
import time
import wave
from typing import Any

import httpx
import pytest
from hui_kit import join
from imm_kit import CELIA_SSML, WATSON_BLOCKED, WATSON_TEXT

from accord.leagues.humaine.behaviour import display_text
from accord.web.testing import wait_until

# Bounds are generous (waits return as soon as the condition holds): speech is
# synthesised and transcribed on the CPU, which a loaded machine shares.
pytestmark = pytest.mark.timeout(600)


def start_round(c: httpx.Client) -> str:
    r = c.post("/api/admin/start", json={"warmUp": 0, "round": 600, "post": 5})
    assert r.status_code == 200, r.text
    rid = str(r.json()["roundId"])
    wait_until(lambda: c.get("/api/state").json()["phase"] == "active", "the round's start")
    return rid


def wait_queue(c: httpx.Client, rid: str, n: int, timeout: float = 120.0) -> dict[str, Any]:
    return dict(
        wait_until(
            lambda: (
                (q := c.get("/api/immersive/queue", params={"round": rid}).json())
                and len(q["items"]) >= n
                and q
            ),
            f"{n} items in the queue",
            timeout=timeout,
        )
    )


def blocked_seen(orch: str, rid: str, text: str, timeout: float = 60.0) -> dict[str, Any]:

    def decided() -> list[dict[str, Any]]:
        decisions = httpx.get(f"{orch}/rounds/{rid}", trust_env=False).json()["decisions"]
        return [d for d in decisions if d.get("text") == text]

    return dict(wait_until(decided, f"a decision on {text!r}", timeout=timeout)[0])


def test_queue_holds_permitted_seller_messages_in_order_with_gestures(stage) -> None:
    ui, orch = stage["urls"]["ui"], stage["urls"]["orch"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        assert c.get("/api/immersive/queue").status_code == 401  # the page session first
        join(c)
        rid = start_round(c)
        said = c.post("/api/say", json={"text": "Celia, two eggs and two cups of flour?"})
        assert said.json()["reply"]["permitted"] is True
        q = wait_queue(c, rid, 2)
        blocked = blocked_seen(orch, rid, WATSON_BLOCKED)
        assert blocked["permitted"] is False and blocked["rule"] == "R3"
        time.sleep(0.3)  # a negative check: the blocked message had every chance to appear
        q = c.get("/api/immersive/queue", params={"round": rid}).json()
    items = q["items"]
    assert [i["speaker"] for i in items] == ["Celia", "Watson"]
    assert items[0]["text"] == display_text(CELIA_SSML)
    assert "<" not in items[0]["text"] and items[0]["ssml"] == CELIA_SSML
    assert items[0]["gestures"] == ["smile", "wave"]
    assert items[1]["gestures"] == ["thinking", "shrug"] and items[1]["text"] == WATSON_TEXT
    assert all(WATSON_BLOCKED not in i["text"] for i in items)
    # the orchestrator's order of permission is the queue's order
    decisions = httpx.get(f"{orch}/rounds/{rid}", trust_env=False).json()["decisions"]
    permitted = [d["speaker"] for d in decisions if d["permitted"] and d["speaker"] != "Human"]
    assert permitted == ["Celia", "Watson"]


def test_take_answers_refuse_hostile_bodies_and_send_nothing(stage) -> None:
    """Answers to takes that were never heard, forged, oversized or from the admin's
    page: refused with the reason, and nothing reaches the orchestrator."""
    ui, orch = stage["urls"]["ui"], stage["urls"]["orch"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        assert c.post("/api/immersive/send", json={"take": "x"}).status_code == 401
        join(c, roles=("admin",))
        rid = start_round(c)
        answer = {"roundId": rid, "take": "abc"}
        assert c.post("/api/immersive/send", json=answer).status_code == 401  # admin only
        join(c, roles=("person",))
        for body, status in (
            (answer, 409),  # never heard here
            (answer | {"text": "Celia, I accept"}, 409),  # a forged take cannot speak
            ({"roundId": rid, "take": "a" * 65}, 422),
            (answer | {"text": "x" * 1001}, 422),
            (answer | {"price": 1}, 422),  # unknown fields are refused
            ({"roundId": rid}, 422),
        ):
            r = c.post("/api/immersive/send", json=body)
            assert r.status_code == status, (body, r.text)
            assert r.json()["status"] == "Failed" and r.json()["error"]
        assert c.post("/api/immersive/discard", json=answer).status_code == 409
    decisions = httpx.get(f"{orch}/rounds/{rid}", trust_env=False).json()["decisions"]
    assert [d for d in decisions if d["speaker"] == "Human"] == []


def test_listen_refuses_what_is_not_a_wav_and_needs_the_person(stage) -> None:
    ui = stage["urls"]["ui"]
    with httpx.Client(base_url=ui, trust_env=False, timeout=30) as c:
        r = c.post("/api/immersive/listen", content=b"RIFF....WAVE")
        assert r.status_code == 401
        join(c, roles=("admin",))
        r = c.post("/api/immersive/listen", content=b"RIFF....WAVE")
        assert r.status_code == 401, "the admin may not speak for the buyer"
        join(c, roles=("person",))
        r = c.post("/api/immersive/listen", content=b"webm-bytes" * 10)
        assert r.status_code == 422
        assert "expected a WAV file" in r.json()["error"]
        big = b"RIFF" + b"\0" * (3 * 1024 * 1024)
        assert c.post("/api/immersive/listen", content=big).status_code == 413


def wav_of(text: str, voice: Any, rate: float = 1.0) -> bytes:
    from accord.leagues.humaine import speech

    return bytes(speech.speak(text, voice, rate=rate).wav)


@pytest.mark.parametrize("stage", [5.0], indirect=True)  # the spec's R0 gap
def test_spoken_take_waits_for_the_buyer_then_goes_the_typed_path(stage, needs_speech) -> None:
    from accord.leagues.humaine import speech

    ui, orch = stage["urls"]["ui"], stage["urls"]["orch"]
    buyer = speech.BUYER_VOICES["buyer-f2"]
    # both utterances synthesised first: only the second's transcription lies between the
    # two sends that R0's 5 s gap must span
    first_wav = wav_of("Celia, I want two eggs and two cups of flour", buyer)
    second_wav = wav_of("I want three cups of milk", buyer)
    with httpx.Client(
        base_url=ui, trust_env=False, timeout=300
    ) as c:  # a generous bound: decoding on a loaded machine
        join(c)
        rid = start_round(c)
        r = c.post(
            "/api/immersive/listen",
            params={"roundId": rid, "focus": "Watson", "focusBy": "click"},
            content=first_wav,
        )
        assert r.status_code == 200, r.text
        heard = r.json()
        assert heard["addressee"] == "Celia" and heard["rule"] == "name in utterance"
        assert "two eggs" in heard["text"] and "flour" in heard["text"]
        assert heard["pending"] is True and heard["sent"] is False  # shown, not sent

        def human() -> list[dict[str, Any]]:
            state = httpx.get(f"{orch}/rounds/{rid}", trust_env=False).json()
            return [d for d in state["decisions"] if d["speaker"] == "Human"]

        assert human() == []
        sent = c.post("/api/immersive/send", json={"roundId": rid, "take": heard["take"]})
        assert sent.status_code == 200 and sent.json()["permitted"] is True, sent.text
        # as a typed message: the orchestrator logged the Human's message to Celia
        assert [(d["addressee"], d["text"]) for d in human()] == [("Celia", heard["text"])]
        again = c.post("/api/immersive/send", json={"roundId": rid, "take": heard["take"]})
        assert again.status_code == 409  # a take is sent once
        # R0 holds for speech: a second utterance within the gap is blocked, once sent
        r = c.post(
            "/api/immersive/listen",
            params={"roundId": rid, "focus": "Watson", "focusBy": "click"},
            content=second_wav,
        )
        second = r.json()
        assert second["addressee"] == "Watson" and second["rule"] == "last avatar clicked"
        answer = {"roundId": rid, "take": second["take"]}
        r = c.post("/api/immersive/send", json=answer)
        assert r.status_code == 200, r.text
        blocked = r.json()
        assert blocked["permitted"] is False and blocked["reply"]["rule"] == "R0"
        assert blocked["notice"].startswith("Not sent: please wait 5 seconds")
        # the rule applied is logged: "heard" events in the UI server's SQLite log
        log = stage["ui"].state.immersive.ui.log
        logged = [b for r, route, b, _ in log.replay() if route == "heard" and r == rid]
        assert [(b["addressee"], b["rule"], b["sent"], b.get("permitted")) for b in logged] == [
            ("Celia", "name in utterance", False, None),
            ("Celia", "name in utterance", True, True),
            ("Watson", "last avatar clicked", False, None),
            ("Watson", "last avatar clicked", True, False),
        ]
        assert logged[0]["speechSeconds"] <= logged[0]["audioSeconds"]
        q = wait_queue(c, rid, 2)
        for item in q["items"]:
            assert item["seconds"] > 0.5
            audio = c.get(f"/immersive/{item['audio']}")
            assert audio.status_code == 200 and audio.headers["content-type"] == "audio/wav"
            with wave.open(io.BytesIO(audio.content)) as w:
                assert abs(w.getnframes() / w.getframerate() - item["seconds"]) < 0.01


def test_up_immersive_serves_the_page_and_says_what_runs(tmp_path) -> None:
    from fastapi.testclient import TestClient
    from typer.testing import CliRunner

    from accord.leagues.humaine.cli import app, build_stack

    args = ["up", "--port-base", "0", "--data", str(tmp_path), "--no-agents", "--immersive"]
    result = CliRunner().invoke(app, [*args, "--exit-after", "1.5", "--check"])
    assert result.exit_code == 0, result.output
    assert "immersive mode: the buyer's link opens the avatars' page" in result.output
    assert "check human UIs: ok" in result.output
    assert "speech" in result.output and "head pose" in result.output
    services, _ = build_stack(
        "127.0.0.1", 0, tmp_path / "b", "strong", "regex", False, True, 1, immersive=True
    )
    ui = next(s for s in services if s.name == "human UIs")
    for s in services:
        s.sock.close()
    with TestClient(ui.app) as c:
        joined = c.get(ui.page, follow_redirects=False)
        assert joined.status_code == 303 and joined.headers["location"] == "immersive/"
        page = c.get("/immersive/")
        assert page.status_code == 200 and 'id="talk-btn"' in page.text
        config = c.get("/api/immersive/config").json()
        assert config["gestures"] == ["smile", "wave", "nod", "shake_head", "shrug", "thinking"]
        assert config["voices"] == {"Celia": "Celia", "Watson": "Watson"}
