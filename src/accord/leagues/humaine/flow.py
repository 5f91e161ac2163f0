"""A crowd study's way through the HUMAINE human UI: consent, instructions, the rounds, and
a completion code at the end (what a crowd platform's experimenter expects).

With a :class:`Flow` (``create_ui_app(flow=Flow(...))``) the person's link leads to
``consent.html`` first, then to ``instructions.html``, then to the chat (or immersive)
page for the rounds; once ``rounds`` rounds are over (totals received, or failed) the chat
page offers ``done.html``, which shows the completion code and the platform's return link.
Until the person has agreed and read the instructions, the person's routes of the chat
answer 403 ``consent_required``. Every step is an event in the server's SQLite log (stream
:data:`STREAM`), so a restart keeps where the person is, and the code never changes.

    >>> f = Flow(consent="You may stop at any time.", instructions="Buy the ingredients.")
    >>> f.rounds, f.consent_version
    (1, '1')
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from accord.core.errors import ConfigError
from accord.web.auth import new_completion_code
from accord.web.errors import WebError
from accord.web.store import EventLog

__all__ = ["STREAM", "Flow", "FlowService"]

STREAM = "accord:participant"
"""The event-log stream of the person's steps (a round id may not start ``accord:``)."""

DEFAULT_CONSENT = (
    "You are invited to a study of negotiation. You will buy ingredients from two "
    "sellers, Celia and Watson, by talking to them. It takes about 15 minutes. Your "
    "messages and decisions are recorded for research, without your name. You may stop "
    "at any time by closing the page."
)
DEFAULT_INSTRUCTIONS = (
    "You are the buyer. Your budget and the value of what you can bake are shown on the "
    "assistant page. Ask the sellers for prices, make offers, and accept the deals you "
    "like: an agent's accept is only bought when you confirm it. When the round ends, "
    "choose what to bake. Your pay depends on the value you make minus what you spend."
)


@dataclass(frozen=True)
class Flow:
    """The study's texts and its end: ``rounds`` rounds to play, the completion ``code``
    to show (None: one made once and kept in the server's file) and the platform's
    ``return_url`` (None: none)."""

    consent: str = DEFAULT_CONSENT
    instructions: str = DEFAULT_INSTRUCTIONS
    rounds: int = 1
    code: str | None = None
    return_url: str | None = None
    consent_version: str = "1"

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ConfigError(f"a study needs at least 1 round, got rounds={self.rounds}")
        if not self.consent.strip() or not self.instructions.strip():
            raise ConfigError("the consent and instructions texts must not be empty")
        if self.return_url is not None and not self.return_url.startswith(("https://", "http://")):
            raise ConfigError(f"return_url must be an http(s) address, got {self.return_url!r}")


class ConsentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agree: bool
    version: str = Field(max_length=40)


class FlowService:
    """The person's steps over ``log`` (see the module doc); ``rounds_over`` counts the
    rounds that are over; ``person`` is the dependency of the person's page session;
    ``rounds_page`` the page of the rounds (the chat, or the immersive page)."""

    def __init__(
        self,
        flow: Flow,
        log: EventLog,
        rounds_over: Callable[[], int],
        person: Any,
        rounds_page: Callable[[], str] = lambda: "chat.html",
    ) -> None:
        self.flow = flow
        self.rounds_page = rounds_page
        self.log = log
        self.rounds_over = rounds_over
        self.person = person
        self.lock = threading.Lock()
        self.steps: dict[str, dict[str, Any]] = {}
        for e in log.read(STREAM):
            self.steps[e.kind] = e.data
        if "code" not in self.steps:
            self._step("code", {"code": flow.code or new_completion_code()})

    def _step(self, kind: str, data: dict[str, Any]) -> None:
        with self.lock:
            if kind not in self.steps:
                self.log.append(STREAM, kind, data)
                self.steps[kind] = data

    @property
    def ready(self) -> bool:
        """The person agreed and read the instructions: the rounds may begin."""
        return "consented" in self.steps and "instructed" in self.steps

    def next_page(self, rounds_page: str | None = None) -> str:
        """Where the person's link leads now."""
        rounds_page = rounds_page or self.rounds_page()
        if "declined" in self.steps:
            return "done.html"
        if "consented" not in self.steps:
            return "consent.html"
        if "instructed" not in self.steps:
            return "instructions.html"
        return "done.html" if "finished" in self.steps else rounds_page

    def view(self) -> dict[str, Any]:
        over = min(self.rounds_over(), self.flow.rounds)
        out: dict[str, Any] = {
            "flow": True,
            "consent": {"text": self.flow.consent, "version": self.flow.consent_version},
            "instructions": self.flow.instructions,
            "consented": "consented" in self.steps,
            "declined": "declined" in self.steps,
            "instructed": "instructed" in self.steps,
            "rounds": {"required": self.flow.rounds, "over": over},
            "canFinish": self.ready and over >= self.flow.rounds,
            "finished": "finished" in self.steps,
            "roundsPage": self.rounds_page(),
        }
        if out["finished"]:
            out["code"] = self.steps["code"]["code"]
            out["returnUrl"] = self.flow.return_url
        return out

    def consent(self, body: ConsentIn) -> dict[str, Any]:
        if body.version != self.flow.consent_version:
            raise WebError(
                409,
                f"the consent text changed (version {self.flow.consent_version}, you saw "
                f"{body.version}); please read it again",
                code="consent_changed",
            )
        if "consented" in self.steps or "declined" in self.steps:
            raise WebError(409, "you already answered the consent form", code="answered")
        self._step("consented" if body.agree else "declined", {"version": body.version})
        return self.view()

    def instructed(self) -> dict[str, Any]:
        if "consented" not in self.steps:
            raise WebError(403, "please agree to take part first", code="consent_required")
        self._step("instructed", {})
        return self.view()

    def finish(self) -> dict[str, Any]:
        view = self.view()
        if not view["canFinish"] and not view["finished"]:
            need = self.flow.rounds - view["rounds"]["over"]
            raise WebError(
                409,
                f"the study is not over yet: {need} round(s) still to play",
                code="not_finished",
            )
        self._step("finished", {"rounds": view["rounds"]["over"]})
        return self.view()

    def router(self) -> APIRouter:
        r = APIRouter()
        deps = [self.person]
        r.add_api_route("/api/participant", self.view, methods=["GET"], dependencies=deps)
        r.add_api_route(
            "/api/participant/consent", self.consent, methods=["POST"], dependencies=deps
        )
        r.add_api_route(
            "/api/participant/instructions", self.instructed, methods=["POST"], dependencies=deps
        )
        r.add_api_route("/api/participant/finish", self.finish, methods=["POST"], dependencies=deps)
        return r


def require(flow: FlowService | None) -> Any:
    """A dependency refusing the person's chat routes before consent and instructions."""

    def check() -> None:
        if flow is not None and not flow.ready:
            raise WebError(
                403,
                "please agree to take part and read the instructions first",
                code="consent_required",
            )

    return Depends(check)
