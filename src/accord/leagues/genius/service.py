"""The study service behind ``accord genius serve``: studies, links, pairing, sessions.

An experimenter creates a *study* (domain, the people's side, the opponent: an agent or
``person``, the number of participants, turns and turn length) and gets one link per
participant. A link is claimed by the first browser that opens it (it receives a secret
key as a cookie); any other browser opening it later is refused ("already used"). Against
an agent, each participant gets a session of their own when they open their link; against
``person``, participants ``2k`` and ``2k+1`` share a session, which starts when both are
there. Each session draws one type per side from the study's seed. Everything lives in
the :class:`GeniusStore`; on start the service resumes every running session.

A participant who leaves (the page's "leave" button, closing the page, or no sign of life
for ``leave_after`` seconds) is recorded as ``left`` and the session as ``abandoned``.
"""

from __future__ import annotations

import csv
import io
import json
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from accord.core.errors import AccordError, ConfigError, ProtocolViolation
from accord.leagues.genius.live import AGENT_PREFIX, LiveSession
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.pdas import agent_names
from accord.leagues.genius.protocol import Clock, Event, Phase, Rules
from accord.leagues.genius.store import GeniusStore

__all__ = [
    "GeniusService",
    "LinkError",
    "StudyConfig",
]


class LinkError(AccordError):
    """A participant link that is unknown, already used by another browser, or closed."""


@dataclass(frozen=True)
class StudyConfig:
    """What an experimenter chooses for a study."""

    domain: str = "job_candidate"
    side: int = 0
    opponent: str = "kbagent"
    participants: int = 2
    turns: int = 14
    turn_seconds: float = 120.0
    seed: int = 0

    def check(self) -> None:
        """Refuse a bad configuration with what was expected."""
        load_domain(self.domain)
        if self.side not in (0, 1):
            raise ConfigError(f"side must be 0 or 1, got {self.side!r}")
        if self.opponent != "person" and self.opponent not in agent_names():
            raise ConfigError(
                f"unknown opponent {self.opponent!r}; expected 'person' or one of {agent_names()}"
            )
        if not 1 <= self.participants <= 1000:
            raise ConfigError(f"participants must be 1..1000, got {self.participants}")
        if self.opponent == "person" and self.participants % 2:
            raise ConfigError(
                f"people negotiate in pairs: participants must be even, got {self.participants}"
            )
        Rules(turns=self.turns, turn_seconds=self.turn_seconds)


class GeniusService:
    """Studies, participants and live sessions over one store (thread-safe)."""

    def __init__(
        self, store_path: str, clock: Clock = time.time, leave_after: float = 30.0
    ) -> None:
        self.store = GeniusStore(store_path)
        self.clock = clock
        self.leave_after = leave_after
        self.lock = threading.RLock()
        self.live: dict[str, LiveSession] = {}
        self.seen: dict[str, float] = {}
        for row in self.store.sessions():
            if row["status"] == "running" and row["started"] is not None:
                self.live[row["id"]] = LiveSession.resume(self.store, row["id"], clock=clock)

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    # -- experimenter -------------------------------------------------------------------
    def create_study(self, config: StudyConfig) -> dict[str, Any]:
        """A new study and its participant tokens."""
        config.check()
        sid = "st-" + secrets.token_hex(4)
        tokens = [secrets.token_urlsafe(12) for _ in range(config.participants)]
        with self.lock:
            self.store.add_study(sid, asdict(config), tokens)
        return {"id": sid, "config": asdict(config), "tokens": tokens}

    def studies(self) -> list[dict[str, Any]]:
        """Every study with its participants' progress."""
        with self.lock:
            out = []
            for st in self.store.studies():
                parts = self.store.participants(st["id"])
                counts: dict[str, int] = {}
                for p in parts:
                    counts[p["status"]] = counts.get(p["status"], 0) + 1
                out.append(
                    {
                        **st,
                        "progress": counts,
                        "participants": [
                            {k: p[k] for k in ("token", "idx", "status", "session", "side")}
                            for p in parts
                        ],
                    }
                )
            return out

    def csv(self, study: str) -> str:
        """Every action of every session of the study, with timestamps, as CSV."""
        with self.lock:
            if not any(s["id"] == study for s in self.store.studies()):
                raise ConfigError(f"no study {study!r}")
            buf = io.StringIO()
            w = csv.writer(buf)
            w.writerow(
                [
                    "study",
                    "session",
                    "status",
                    "domain",
                    "side",
                    "party",
                    "type",
                    "seq",
                    "turn",
                    "elapsed_s",
                    "time_utc",
                    "kind",
                    "offer",
                    "values",
                    "index",
                    "ok",
                    "error",
                    "reason",
                    "utility",
                ]
            )
            sessions = sorted(
                {p["session"] for p in self.store.participants(study) if p["session"]}
            )
            for sid in sessions:
                row = self.store.session(sid)
                if row is None:
                    continue
                d = load_domain(row["domain"])
                for e in self.store.events(sid):
                    side = int(e["party"])
                    payload = json.loads(e["payload"]) if e["payload"] else None
                    when = datetime.fromtimestamp(float(row["started"]) + e["elapsed"], UTC)
                    w.writerow(
                        [
                            study,
                            sid,
                            row["status"],
                            row["domain"],
                            d.sides[side],
                            row[f"party{side}"],
                            d.types[side][int(row[f"type{side}"])].name,
                            e["seq"],
                            e["turn"],
                            f"{e['elapsed']:.3f}",
                            when.isoformat(),
                            e["kind"],
                            e["offer"],
                            json.dumps(payload) if isinstance(payload, dict) else "",
                            payload if isinstance(payload, int) else "",
                            e["ok"],
                            e["error"] or "",
                            row["reason"] or "",
                            row[f"u{side}"] if row[f"u{side}"] is not None else "",
                        ]
                    )
            return buf.getvalue()

    # -- participants -------------------------------------------------------------------
    def claim(self, token: str, key: str | None) -> str:
        """Open a link: returns the browser's key (new on first use); refuses a reused link."""
        with self.lock:
            p = self._participant(token)
            if p["key"] is None:
                new = secrets.token_urlsafe(16)
                self.store.update_participant(token, key=new, status="joined")
                self.seen[token] = self.clock()
                self._start_if_ready(p["study"])
                return new
            if key is None or key != p["key"]:
                raise LinkError(
                    "this participant link was already used in another browser; "
                    "ask the experimenter for a new link"
                )
            return key

    def state(self, token: str, key: str | None) -> dict[str, Any]:
        """What the participant's page shows now."""
        with self.lock:
            p = self._checked(token, key)
            self.seen[token] = self.clock()
            if p["session"] is None:
                return {"status": "waiting", "message": "waiting for the other participant"}
            live = self._live(p["session"])
            live.poll()
            self._sync(p["study"])
            state = live.state(int(p["side"]))
            if p["status"] == "left":
                state["status"] = "left"
            return state

    def act(self, token: str, key: str | None, data: Any) -> Event:
        """A participant's action (JSON); invalid ones are recorded against them."""
        with self.lock:
            p = self._checked(token, key)
            self.seen[token] = self.clock()
            if p["session"] is None:
                raise ProtocolViolation(
                    "the session has not started: the other participant is not here yet"
                )
            if p["status"] in ("left", "done"):
                raise ProtocolViolation(f"this participant has {p['status']}; no action accepted")
            event = self._live(p["session"]).submit_json(int(p["side"]), data)
            self._sync(p["study"])
            return event

    def leave(self, token: str, key: str | None) -> None:
        """The participant left: recorded, and a running session becomes abandoned."""
        with self.lock:
            p = self._checked(token, key)
            self._leave(p)

    def poll_all(self) -> None:
        """Deadlines, agent moves and silent participants, for every running session."""
        with self.lock:
            now = self.clock()
            for live in list(self.live.values()):
                live.poll()
            for token, last in list(self.seen.items()):
                if now - last > self.leave_after:
                    p = self.store.participants(token=token)
                    if p and p[0]["status"] in ("joined", "playing"):
                        self._leave(p[0])
                    self.seen.pop(token, None)
            for st in self.store.studies():
                self._sync(st["id"])

    # -- internals -----------------------------------------------------------------------
    def _participant(self, token: str) -> dict[str, Any]:
        rows = self.store.participants(token=token)
        if not rows:
            raise LinkError("unknown participant link")
        return rows[0]

    def _checked(self, token: str, key: str | None) -> dict[str, Any]:
        p = self._participant(token)
        if p["key"] is None or key != p["key"]:
            raise LinkError("this link is not open in this browser; open the link first")
        return p

    def _live(self, sid: str) -> LiveSession:
        if sid not in self.live:
            self.live[sid] = LiveSession.resume(self.store, sid, clock=self.clock)
        return self.live[sid]

    def _config(self, study: str) -> StudyConfig:
        st = next(s for s in self.store.studies() if s["id"] == study)
        return StudyConfig(**st["config"])

    def _start_if_ready(self, study: str) -> None:
        cfg = self._config(study)
        parts = self.store.participants(study)
        d = load_domain(cfg.domain)
        rules = Rules(turns=cfg.turns, turn_seconds=cfg.turn_seconds)
        groups = (
            [[p] for p in parts]
            if cfg.opponent != "person"
            else [parts[k : k + 2] for k in range(0, len(parts), 2)]
        )
        for g in groups:
            if any(
                p["session"] is not None or p["key"] is None or p["status"] == "left" for p in g
            ):
                continue
            rng = np.random.default_rng((cfg.seed, g[0]["idx"]))
            types = (int(rng.integers(len(d.types[0]))), int(rng.integers(len(d.types[1]))))
            if cfg.opponent == "person":
                names = (f"person:{g[0]['token'][:6]}", f"person:{g[1]['token'][:6]}")
                sides = [0, 1]
            else:
                person = f"person:{g[0]['token'][:6]}"
                agent = AGENT_PREFIX + cfg.opponent
                names = (person, agent) if cfg.side == 0 else (agent, person)
                sides = [cfg.side]
            sid = f"{study}-{g[0]['idx']}"
            live = LiveSession.create(
                self.store,
                sid,
                d,
                types,
                rules,
                (names[0], names[1]),
                clock=self.clock,
                seed=cfg.seed * 1000 + g[0]["idx"],
                study=study,
            )
            self.live[sid] = live
            for p, side in zip(g, sides, strict=True):
                self.store.update_participant(p["token"], session=sid, side=side, status="playing")

    def _leave(self, p: dict[str, Any]) -> None:
        if p["status"] in ("left", "done"):
            return
        self.store.update_participant(p["token"], status="left")
        if p["session"] is not None:
            live = self._live(p["session"])
            if live.session.phase is Phase.RUNNING:
                live.leave(int(p["side"]))
                self.live.pop(p["session"], None)

    def _sync(self, study: str) -> None:
        for p in self.store.participants(study):
            if p["status"] == "playing" and p["session"] is not None:
                row = self.store.session(p["session"])
                if row is not None and row["status"] in ("ended", "abandoned"):
                    self.store.update_participant(p["token"], status="done")
                    if row["status"] == "ended":
                        self.live.pop(p["session"], None)
