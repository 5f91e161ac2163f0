"""HUMAINE's immersive mode on the human UI server: the avatar controller and the ears.

The UI server is the orchestrator's human UI, so it hears every *permitted* message
(``/receiveMessage``) in the order the orchestrator permitted them, and nothing else
reaches the avatars: a blocked message (R0-R4) is never spoken nor shown. This module
adds, under ``/api/immersive/``:

- ``GET queue?round=``: the sellers' permitted messages of the round, in order, each
  with its display text (SSML tags removed), its gestures (the message's optional
  ``behavior``, see :mod:`.behaviour`), the URL of its speech and the speech's length.
  Speech is synthesised here, offline, with the speaker's voice (Celia female, Watson
  male; :mod:`.speech`), once per message. The page plays the queue one message at a
  time, so avatars never talk over each other.
- ``GET audio/{roundId}/{n}.wav``: that speech.
- ``POST listen?roundId=&focus=&focusBy=`` (body: a 16 kHz mono WAV from the page's
  microphone): transcribed offline in a worker process (:mod:`.listening`), the addressee
  chosen (the name said, else the avatar last clicked or looked at:
  :func:`.behaviour.choose_addressee`). The take is **not sent**: it comes back to the
  page as a pending take (``take``), which shows it to the buyer to send as heard, edit,
  or take back. Recognition mishears, and a misheard take sent as said could buy
  something (an issue measured 70.8 % word accuracy on voices not our own). Only an
  operator who sets ``auto_send_at`` explicitly has takes at or above that confidence
  sent at once; below it the buyer confirms. The confidence is graded, 0-1: how far the
  recogniser's two domain searches agree on the take's words
  (:func:`.speech.transcribe.confidence`, computed only when a threshold is set: it
  costs a second search). A take taken back costs no R0 time: nothing was sent.
- ``POST send {roundId, take, text, addressee}``: the buyer sends a pending take, as
  heard or edited, as the Human's message by exactly the path of a typed one
  (``UiService.say``: same page session, same secret, same rules).
- ``POST discard {roundId, take}``: the buyer takes a pending take back.
  Every take, and what became of it, is logged (``heard`` and ``take`` events in the UI
  server's SQLite log).
- ``POST look`` (body: a JPEG camera frame): a coarse head pose (:mod:`.headpose`),
  when OpenCV is installed; the page then treats the avatar looked at as clicked.
- ``GET config``: voices, gestures, whether speech and head pose are available.

Example::

    app = create_ui_app(orchestrator_url=..., immersive=True)  # the page: /immersive/
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import uuid
from collections import OrderedDict
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from accord.core.errors import ConfigError
from accord.leagues.humaine.behaviour import (
    ADDRESSEE_RULES,
    GESTURES,
    choose_addressee,
    display_text,
    gestures_of,
)
from accord.leagues.humaine.flow import require
from accord.leagues.humaine.listening import Listener, UnusableAudio
from accord.leagues.humaine.say import Say, TakeAnswer
from accord.web.errors import WebError

__all__ = ["MAX_LISTEN_BYTES", "ImmersiveService", "wav_seconds"]

log = logging.getLogger(__name__)


class UiHost(Protocol):
    """What the immersive routes need of the UI server's ``UiService``."""

    @property
    def names(self) -> list[str]: ...

    @property
    def rounds(self) -> Any: ...

    @property
    def log(self) -> Any: ...

    @property
    def lock(self) -> Any: ...

    @property
    def human_gap(self) -> Any: ...

    @property
    def auto_confirm(self) -> Any: ...

    @property
    def confirm_timeout(self) -> Any: ...

    def find(self, round_id: str | None) -> Any: ...

    def session(self, *roles: str) -> Any: ...

    @property
    def flow(self) -> Any: ...

    def record(self, round_id: str | None, route: str, body: dict[str, Any], at: float) -> str: ...

    async def say(self, body: Say) -> dict[str, Any]: ...


MAX_LISTEN_BYTES = 2 * 1024 * 1024
"""Largest utterance accepted (about 65 s of 16 kHz 16-bit mono)."""
MAX_LOOK_BYTES = 512 * 1024
EAGER_ITEMS = 8
"""The latest messages of a round synthesised when the queue is read."""
CACHE_ITEMS = 256
"""Synthesised messages kept in memory (older ones are made again when asked)."""


def _speech() -> Any:
    """The offline speech module (imported when first needed: it loads engines)."""
    return importlib.import_module("accord.leagues.humaine.speech")


def wav_seconds(wav: bytes) -> float:
    """Length in seconds of a PCM WAV (from its header), 0.0 when unreadable.

    >>> import io, wave
    >>> buf = io.BytesIO()
    >>> with wave.open(buf, "wb") as w:
    ...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
    ...     w.writeframes(b"\\0\\0" * 8000)
    >>> wav_seconds(buf.getvalue())
    0.5
    """
    import io
    import wave

    try:
        with wave.open(io.BytesIO(wav), "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except (wave.Error, EOFError, ZeroDivisionError):
        return 0.0


class ImmersiveService:
    """The immersive routes over a :class:`~.ui_server.UiService` (see the module doc)."""

    def __init__(self, ui: UiHost, auto_send_at: float | None = None) -> None:
        if auto_send_at is not None and not 0.0 <= auto_send_at <= 1.0:
            raise ConfigError(f"auto_send_at must be in [0, 1] or None; got {auto_send_at!r}")
        self.ui = ui
        self.auto_send_at = auto_send_at
        """Send a take at once when its confidence is at least this (None: never)."""
        self.takes: dict[str, dict[str, Any]] = {}
        """Pending takes by id: heard, shown to the buyer, not sent."""
        self.cache: OrderedDict[tuple[str, int], tuple[bytes, float]] = OrderedDict()
        self.synth_lock = asyncio.Lock()
        self.listener = Listener(tuple(ui.names))
        self.heard: dict[str, list[dict[str, Any]]] = {}
        for rid, route, body, _at in ui.log.replay():
            if route == "heard":
                self.heard.setdefault(rid, []).append(body)

    # -- availability ------------------------------------------------------------------
    @staticmethod
    def speech_missing() -> str | None:
        """Why speech cannot run here (None when it can)."""
        try:
            speech = _speech()
        except ImportError as e:
            return f"the speech module cannot be loaded: {e}"
        why: str | None = speech.speech_available()
        return why

    @staticmethod
    def listening_missing() -> str | None:
        """Why speech input cannot run here (None when it can)."""
        try:
            speech = _speech()
        except ImportError as e:
            return f"the speech module cannot be loaded: {e}"
        why: str | None = speech.transcription_available()
        return why

    @staticmethod
    def headpose_missing() -> str | None:
        from accord.leagues.humaine.headpose import headpose_available

        return headpose_available()

    def router(self) -> APIRouter:
        r = APIRouter(prefix="/api/immersive")
        anyone = [self.ui.session("person", "admin")]
        person = [self.ui.session("person"), require(self.ui.flow)]  # after consent, if asked
        r.add_api_route("/config", self.config, methods=["GET"], dependencies=anyone)
        r.add_api_route("/queue", self.queue, methods=["GET"], dependencies=anyone)
        r.add_api_route(
            "/audio/{round_id}/{index}.wav", self.audio, methods=["GET"], dependencies=anyone
        )
        r.add_api_route("/listen", self.listen, methods=["POST"], dependencies=person)
        r.add_api_route("/send", self.send, methods=["POST"], dependencies=person)
        r.add_api_route("/discard", self.discard, methods=["POST"], dependencies=person)
        r.add_api_route("/look", self.look, methods=["POST"], dependencies=person)
        return r

    def config(self) -> dict[str, Any]:
        names = self.ui.names
        return {
            "agents": names,
            "gestures": list(GESTURES),
            "voices": {n: self.voice_name(n) for n in names},
            "speech": self.speech_missing(),
            "listening": self.listening_missing(),
            "headPose": self.headpose_missing(),
            "rules": ADDRESSEE_RULES,
            "humanGap": self.ui.human_gap,
            "confirmWithin": 0.0 if self.ui.auto_confirm else self.ui.confirm_timeout,
            "listenMode": "push-to-talk (ends on a click or after 0.9 s of silence)",
            "autoSendAt": self.auto_send_at,
        }

    # -- speech out --------------------------------------------------------------------
    def voice_name(self, speaker: str) -> str:
        """The voice of ``speaker``: its own (Celia, Watson), else by seat (first seller
        Celia's, second Watson's)."""
        known = ("Celia", "Watson")
        if speaker in known:
            return speaker
        seat = self.ui.names.index(speaker) if speaker in self.ui.names else 0
        return known[min(seat, 1)]

    def _spoken(self, rid: str) -> list[tuple[int, dict[str, Any]]]:
        r = self.ui.find(rid)
        with self.ui.lock:
            return [
                (i, dict(m))
                for i, m in enumerate(r.transcript)
                if m["permitted"] is True and m["speaker"] in self.ui.names
            ]

    async def _speech(self, rid: str, index: int, speaker: str, text: str) -> tuple[bytes, float]:
        key = (rid, index)
        async with self.synth_lock:
            if key in self.cache:
                self.cache.move_to_end(key)
                return self.cache[key]
            speech = _speech()
            voice = speech.VOICES[self.voice_name(speaker)]
            t0 = time.perf_counter()
            utt = await asyncio.to_thread(speech.speak, text, voice)
            log.info(
                "round %s: message %d of %s synthesised: %.2f s of speech in %.2f s",
                rid, index, speaker, utt.seconds, time.perf_counter() - t0,
            )  # fmt: skip
            self.cache[key] = (utt.wav, float(utt.seconds))
            while len(self.cache) > CACHE_ITEMS:
                self.cache.popitem(last=False)
            return self.cache[key]

    async def queue(
        self, round_id: Annotated[str | None, Query(alias="round")] = None
    ) -> dict[str, Any]:
        """The permitted seller messages, in order, with gestures and speech."""
        with self.ui.lock:
            empty = not self.ui.rounds
        if empty and not round_id:
            return {"roundId": None, "items": [], "heard": []}
        r = self.ui.find(round_id)
        rid = r.round_id
        speaks = self.speech_missing() is None
        items = []
        for i, m in self._spoken(rid):
            raw = str(m.get("text", ""))
            gestures, unknown = gestures_of({"behavior": m.get("behavior")})
            item: dict[str, Any] = {
                "id": i,
                "speaker": m["speaker"],
                "addressee": m.get("addressee", ""),
                "text": display_text(raw),
                "ssml": raw,
                "gestures": gestures,
                "unknownGestures": unknown,
                "bid": m.get("bid"),
                "audio": None,
                "seconds": None,
            }
            if speaks:
                item["audio"] = f"../api/immersive/audio/{rid}/{i}.wav"
            items.append(item)
        # the latest messages are synthesised now (the page is about to play them); older
        # ones when their audio is asked for (a page opened late does not replay them)
        for item in items[-EAGER_ITEMS:] if speaks else ():
            try:
                _wav, seconds = await self._speech(rid, item["id"], item["speaker"], item["ssml"])
            except Exception as e:  # an engine failing on one text: that message is mimed
                log.warning("round %s: message %d not synthesised: %s", rid, item["id"], e)
                item["audio"], item["speechError"] = None, f"{type(e).__name__}: {e}"
            else:
                item["seconds"] = round(seconds, 3)
        return {"roundId": rid, "items": items, "heard": self.heard.get(rid, [])}

    async def audio(self, round_id: str, index: int) -> Response:
        spoken = dict(self._spoken(round_id))
        if index not in spoken:
            raise WebError(
                404, f"no permitted seller message {index} in round {round_id!r} to speak"
            )
        if (why := self.speech_missing()) is not None:
            raise WebError(503, f"speech is not available here: {why}")
        m = spoken[index]
        wav, _ = await self._speech(round_id, index, str(m["speaker"]), str(m["text"]))
        return Response(wav, media_type="audio/wav", headers={"Cache-Control": "no-store"})

    # -- speech in ----------------------------------------------------------------------
    def open(self) -> None:
        """Start the speech-input worker process (when speech input can run here)."""
        if self.listening_missing() is None:
            self.listener.warm_up()

    def close(self) -> None:
        self.listener.close()

    async def listen(
        self,
        request: Request,
        roundId: str | None = None,
        focus: str = "",
        focusBy: str = "click",
    ) -> dict[str, Any]:
        """An utterance from the page's microphone, sent as the Human's message."""
        wav = await request.body()
        if len(wav) > MAX_LISTEN_BYTES:
            raise WebError(413, f"an utterance may have {MAX_LISTEN_BYTES} bytes; got {len(wav)}")
        if len(wav) < 44 or wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
            raise WebError(
                422,
                f"expected a WAV file (RIFF/WAVE, 16-bit PCM mono) as the body; got "
                f"{len(wav)} bytes starting {wav[:12]!r}",
            )
        if (why := self.listening_missing()) is not None:
            raise WebError(503, f"speech input is not available here: {why}")
        r = self.ui.find(roundId)
        t0 = time.perf_counter()
        try:
            heard = await self.listener.transcribe(wav, score=self.auto_send_at is not None)
        except UnusableAudio as e:
            raise WebError(422, f"the utterance's audio is unusable: {e}") from e
        stt = time.perf_counter() - t0
        text = str(heard["text"]).strip()
        entry: dict[str, Any] = {
            "text": text,
            "source": str(heard["source"]),
            "sttSeconds": round(stt, 3),
            "decodeSeconds": round(float(heard["seconds"]), 3),
            "audioSeconds": round(float(heard["audio_seconds"]), 3),
            "speechSeconds": round(float(heard["speech_seconds"]), 3),
            "focus": focus,
            "focusBy": focusBy,
            "at": time.time(),
        }
        if not text:
            entry |= {"addressee": None, "rule": None, "sent": False}
            entry["why"] = "nothing was recognised: speak again, a little closer"
            self._note(r.round_id, entry)
            return entry
        addressee, rule = choose_addressee(text, self.ui.names, focus=focus, focus_by=focusBy)
        graded = heard.get("confidence")
        confidence = float(graded) if graded is not None else None
        entry |= {"addressee": addressee, "rule": rule, "confidence": confidence}
        if self.auto_send_at is None or confidence is None or confidence < self.auto_send_at:
            take = uuid.uuid4().hex[:12]
            entry |= {"sent": False, "take": take, "pending": True}
            self.takes[take] = {
                "roundId": r.round_id, "text": text, "addressee": addressee, "rule": rule
            }  # fmt: skip
            while len(self.takes) > 64:  # a page that never answers keeps only the last ones
                self.takes.pop(next(iter(self.takes)))
            self._note(r.round_id, entry)
            return entry
        return await self._send(r.round_id, entry, text, addressee)

    async def _send(
        self, rid: str, entry: dict[str, Any], text: str, addressee: str
    ) -> dict[str, Any]:
        try:
            said = await self.ui.say(Say(roundId=rid, text=text, addressee=addressee))
        except WebError as e:
            entry |= {"sent": False, "why": e.message}
            self._note(rid, entry)
            raise
        reply = said.get("reply") or {}
        entry |= {
            "sent": True,
            "permitted": reply.get("permitted"),
            "rationale": reply.get("rationale"),
            "notice": said.get("notice"),
        }
        self._note(rid, entry)
        return entry | {"reply": reply}

    def _take(self, body: TakeAnswer) -> dict[str, Any]:
        take = self.takes.pop(body.take, None)
        if take is None or take["roundId"] != self.ui.find(body.roundId).round_id:
            raise WebError(409, "that take is no longer waiting: speak again or type it")
        return take

    async def send(self, body: TakeAnswer) -> dict[str, Any]:
        """The buyer sends a pending take, as heard or edited."""
        take = self._take(body)
        text = (body.text if body.text is not None else take["text"]).strip()
        if not text:
            raise WebError(422, "the message is empty: type what you meant, or take it back")
        addressee = take["addressee"] if body.addressee is None else body.addressee
        edited = text != take["text"] or addressee != take["addressee"]
        rule = take["rule"] if addressee == take["addressee"] else "chosen by the buyer"
        entry: dict[str, Any] = {
            "take": body.take, "heardText": take["text"], "text": text, "source": "take",
            "addressee": addressee, "rule": rule, "edited": edited, "confirmed": True,
            "audioSeconds": 0.0, "sttSeconds": 0.0, "at": time.time(),
        }  # fmt: skip
        return await self._send(take["roundId"], entry, text, addressee)

    def discard(self, body: TakeAnswer) -> dict[str, Any]:
        """The buyer takes a pending take back: nothing is sent, no R0 time is spent."""
        take = self._take(body)
        self.ui.record(take["roundId"], "take", {"take": body.take, "discarded": True}, time.time())
        return {"take": body.take, "sent": False, "discarded": True}

    def _note(self, rid: str, entry: dict[str, Any]) -> None:
        log.info(
            "round %s: heard %r (%s, %.2f s audio, %.2f s to transcribe) -> %s by rule %r",
            rid, entry["text"], entry["source"], entry["audioSeconds"], entry["sttSeconds"],
            entry.get("addressee") or "anyone", entry.get("rule"),
        )  # fmt: skip
        self.ui.record(rid, "heard", entry, time.time())
        self.heard.setdefault(rid, []).append(entry)

    # -- head pose ---------------------------------------------------------------------
    async def look(self, request: Request) -> dict[str, Any]:
        """A camera frame (JPEG/PNG): which avatar the person looks at, if any."""
        from accord.leagues.humaine.headpose import estimate, headpose_available

        if (why := headpose_available()) is not None:
            raise WebError(503, f"head pose is not available here: {why}")
        frame = await request.body()
        if not frame or len(frame) > MAX_LOOK_BYTES:
            raise WebError(422, f"expected one JPEG or PNG frame of at most "
                                f"{MAX_LOOK_BYTES} bytes; got {len(frame)} bytes")  # fmt: skip
        pose = await asyncio.to_thread(estimate, frame)
        names = self.ui.names
        looked = {"left": names[0], "right": names[-1]}.get(pose.yaw, "")
        return {"yaw": pose.yaw, "faces": pose.faces, "focus": looked, "why": pose.why}
