"""A study as a service: participant links, consent, rounds, live progress, CSV export.

:class:`Study` owns the study's SQLite file (participants, the append-only event log,
the experimenter's password and the participants' tokens) and a live channel; its
router gives the participant's and the experimenter's API, and the pages in
``accord/web/static/study`` (consent, done, experimenter) call it. A league adds its
task page and, if it needs one, its own service that calls :meth:`Study.record`,
:meth:`Study.set_state`, :meth:`Study.complete`, :meth:`Study.withdraw` and
:meth:`Study.notify`.

A participant's way through a study::

    GET /s/<link>            a landing page with a Start button (looking uses nothing:
                             mail systems fetch links to check them)
    POST /s/<link>           Start: single use; sets the participant's cookie; the link
                             from another browser afterwards is refused (409 link_used)
    /study/consent.html      agree or decline (POST /api/participant/consent)
    <design.task_path>       the league's page, one round per condition of the plan
                             (POST /api/participant/events, PUT .../state, POST .../complete)
    /study/done.html         thanks

The experimenter logs in at ``/study/admin.html``, makes links, watches progress live
(``GET /api/study/live``, server-sent events) and downloads every event as CSV
(``GET /api/study/events.csv``). Everything is in SQLite: a restarted server resumes
the study where it was, links and cookies included.
"""

from __future__ import annotations

import html
import io
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.responses import Response as PlainResponse
from pydantic import BaseModel, ConfigDict, Field

from accord.web.auth import PARTICIPANT_COOKIE, Auth, token_hash
from accord.web.clock import Clock, RealClock
from accord.web.errors import WebError
from accord.web.live import Live, Message
from accord.web.store import EventLog, iso
from accord.web.study.design import Consent, StudyDesign
from accord.web.study.store import Participant, Status, StudyStore

__all__ = ["STATIC", "Invite", "Study"]

STATIC = Path(__file__).resolve().parent.parent / "static" / "study"
"""The study's pages (mounted at ``/study``)."""
PAGES = "/study"
EXPERIMENTER = "experimenter"
PARTICIPANT_DAYS = 30
_KIND = r"^[a-z][a-z0-9_.-]{0,39}$"


@dataclass(frozen=True)
class Invite:
    """A new participant and its personal link (shown once: only its hash is stored)."""

    pid: str
    token: str

    @property
    def path(self) -> str:
        return f"/s/{self.token}"


class ParticipantView(BaseModel):
    """What a participant's page knows of itself."""

    pid: str
    study: str
    title: str
    status: str
    round: int
    rounds: int
    condition: str | None
    params: dict[str, Any]
    state: dict[str, Any]
    consent: Consent
    next: str
    instructions: str = ""
    completion_code: str | None = None
    return_url: str | None = None
    released: str | None = None


class ConsentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agree: bool
    version: str = Field(max_length=40)


class EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = Field(pattern=_KIND)
    data: dict[str, Any] = Field(default_factory=dict)


class StateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: dict[str, Any]


class CompleteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    result: dict[str, Any] = Field(default_factory=dict)


class InvitesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(default=1, ge=1, le=1000)
    label: str = Field(default="", max_length=80)


class InviteOut(BaseModel):
    pid: str
    link: str


class Study:
    """One study in the SQLite file ``path`` (see the module doc).

    ``password`` (re)sets the experimenter's password; with none given and none stored,
    a random one is made and kept in :attr:`initial_password` for the operator to read.
    ``page_writes`` lets the participant's page log events, set its state and complete
    its rounds itself (``/api/participant/events``, ``state``, ``complete``); off by
    default: the league's server records and completes rounds, and a participant cannot
    skip or end one by calling the API.
    """

    def __init__(
        self,
        path: str | Path,
        design: StudyDesign,
        *,
        password: str | None = None,
        clock: Clock | None = None,
        secure_cookies: bool = False,
        page_writes: bool = False,
    ) -> None:
        self.design = design
        self.page_writes = page_writes
        self.clock: Clock = clock or RealClock()
        self.store = StudyStore(path, design)
        self.events = EventLog(self.store, self.clock)
        self.auth = Auth(self.store, self.clock, secure_cookies=secure_cookies)
        self.live = Live()
        self.initial_password: str | None = None
        if password is not None:
            self.auth.set_password(EXPERIMENTER, password, role="experimenter")
        elif not self.auth.has_users():
            self.initial_password = secrets.token_urlsafe(9)
            self.auth.set_password(EXPERIMENTER, self.initial_password, role="experimenter")

    def close(self) -> None:
        """End the live streams and close the file."""
        self.live.close()
        self.store.close()

    # -- the experimenter's side ---------------------------------------------------------
    def invite(self, count: int = 1, label: str = "") -> list[Invite]:
        """``count`` new participants, each with a single-use link."""
        out = []
        for _ in range(count):
            token = secrets.token_urlsafe(24)
            p = self.store.add(token_hash(token), label, self.clock.wall())
            self._event(p, "invited", {"label": label, "plan": p.plan})
            out.append(Invite(p.pid, token))
        self._changed(None)
        return out

    def progress(self) -> dict[str, Any]:
        """Counts by status and, per condition, rounds done and participants in it now."""
        people = self.store.all()
        by_status = {s.value: 0 for s in Status}
        conditions = {c.name: {"active": 0, "roundsDone": 0} for c in self.design.conditions}
        for p in people:
            by_status[p.status.value] += 1
            for name in p.plan[: p.round]:
                conditions[name]["roundsDone"] += 1
            if p.status is Status.CONSENTED and p.condition is not None:
                conditions[p.condition]["active"] += 1
        return {
            "study": self.design.id,
            "participants": len(people),
            "byStatus": by_status,
            "conditions": conditions,
            "events": self.events.last_seq(),
        }

    def write_csv(self, out: TextIO) -> int:
        """Every event of the study as CSV (see :data:`accord.web.store.CSV_COLUMNS`)."""
        return self.events.write_csv(out, self.design.id)

    # -- the participant's side ----------------------------------------------------------
    def _by_link(self, token: str) -> Participant:
        p = self.store.by_link(token_hash(token))
        if p is None:
            raise WebError(
                404,
                "this study link is not known here; check that it was copied whole",
                code="unknown_link",
            )
        return p

    def _refuse_reuse(self, p: Participant) -> WebError:
        self._event(p, "link_reused", {})
        return WebError(
            409,
            f"this study link was already used on {iso(p.opened or 0.0)}; each link works "
            "once, in the browser that first opened it. Go back to that browser, or ask the "
            "experimenter for a new link",
            code="link_used",
        )

    def look_at_link(self, token: str, cookie: str | None) -> tuple[Participant, bool]:
        """Look without using: (participant, whether this browser already holds it).
        A link used by another browser is refused (409 ``link_used``)."""
        p = self._by_link(token)
        if p.opened is None:
            return p, False
        if cookie and self.auth.subject(cookie, "participant") == p.pid:
            return p, True
        raise self._refuse_reuse(p)

    def open_link(self, token: str, cookie: str | None) -> tuple[Participant, str | None]:
        """Use a link: (participant, new cookie token, or None when this browser holds it
        already). A link used by another browser is refused (409 ``link_used``)."""
        p, mine = self.look_at_link(token, cookie)
        if mine:
            return p, None
        with self.store.lock:  # two clicks at once: one wins
            p = self._by_link(token)
            if p.opened is not None:
                raise self._refuse_reuse(p)
            p = self.store.update(p.pid, opened=self.clock.wall(), status=Status.OPENED)
        self._event(p, "link_opened", {})
        self._changed(p)
        return p, self.auth.issue(p.pid, "participant")

    def next_page(self, p: Participant) -> str:
        """Where participant ``p`` should be now."""
        if p.status in (Status.INVITED, Status.OPENED):
            return f"{PAGES}/consent.html"
        if p.status is Status.CONSENTED:
            if self.design.instructions and p.round == 0 and not self._read(p.pid):
                return f"{PAGES}/instructions.html"
            return self.design.task_path
        return f"{PAGES}/done.html"

    def _read(self, pid: str) -> bool:
        return bool(self.events.read(party=pid, kinds=("instructions_read",)))

    def read_instructions(self, pid: str) -> Participant:
        """Participant ``pid`` read the instructions (logged once); the task comes next."""
        p = self._active(pid)
        if not self._read(pid):
            self._event(p, "instructions_read", {})
        return p

    def release(self, pid: str, reason: str) -> Participant:
        """Participant ``pid`` waited alone too long for a partner: done (the rounds left
        are not played), logged with ``reason``; the last page shows the completion code."""
        p = self._active(pid)
        p = self.store.update(pid, status=Status.DONE, finished=self.clock.wall())
        self._event(p, "released", {"reason": reason})
        self._changed(p)
        return p

    def view(self, pid: str) -> ParticipantView:
        p = self.store.get(pid)
        params = self.design.condition(p.condition).params if p.condition else {}
        done = p.status is Status.DONE
        released = None
        if done:
            gone = self.events.read(party=pid, kinds=("released",))
            released = str(gone[-1].data.get("reason", "")) if gone else None
        return ParticipantView(
            pid=p.pid,
            study=self.design.id,
            title=self.design.title,
            status=p.status.value,
            round=p.round,
            rounds=len(p.plan),
            condition=p.condition,
            params=params,
            state=p.state,
            consent=self.design.consent,
            next=self.next_page(p),
            instructions=self.design.instructions,
            completion_code=(self.design.completion_code or None) if done else None,
            return_url=(self.design.return_url or None) if done else None,
            released=released,
        )

    def consent(self, pid: str, agree: bool, version: str) -> Participant:
        p = self.store.get(pid)
        if p.status is not Status.OPENED:
            raise WebError(409, f"consent is asked once; participant {pid} is {p.status.value}")
        if version != self.design.consent.version:
            raise WebError(
                409,
                f"the consent text changed (version {self.design.consent.version}, you saw "
                f"{version}); reload the page and read it again",
            )
        wall = self.clock.wall()
        if agree:
            p = self.store.update(pid, status=Status.CONSENTED, consented=wall)
        else:
            p = self.store.update(pid, status=Status.DECLINED, finished=wall)
        self._event(p, "consented" if agree else "declined", {"version": version})
        self._changed(p)
        return p

    def _active(self, pid: str) -> Participant:
        p = self.store.get(pid)
        if p.status is not Status.CONSENTED:
            raise WebError(
                409,
                f"participant {pid} is {p.status.value}; only a participant who consented "
                "and has rounds left can do this",
            )
        return p

    def record(self, pid: str, kind: str, data: dict[str, Any] | None = None) -> None:
        """Log what participant ``pid`` did (tagged with the round and condition)."""
        p = self._active(pid)
        self._event(p, kind, data or {})

    def note(self, pid: str, kind: str, data: dict[str, Any] | None = None) -> None:
        """Log an event about participant ``pid`` whatever their status (what the
        experimenter should see even when nothing changed: a refused action)."""
        self._event(self.store.get(pid), kind, data or {})

    def set_state(self, pid: str, state: dict[str, Any]) -> Participant:
        """Replace the league's state of participant ``pid`` (logged)."""
        p = self._active(pid)
        p = self.store.update(pid, state=state)
        self._event(p, "state", {"state": state})
        self._changed(p)
        return p

    def complete(self, pid: str, result: dict[str, Any] | None = None) -> Participant:
        """End participant ``pid``'s current round with ``result``; after the last round
        the participant is done."""
        p = self._active(pid)
        self._event(p, "round_done", {"result": result or {}})
        nxt = p.round + 1
        if nxt >= len(p.plan):
            p = self.store.update(pid, round=nxt, status=Status.DONE, finished=self.clock.wall())
            self._event(p, "finished", {})
        else:
            p = self.store.update(pid, round=nxt)
        self._changed(p)
        return p

    def withdraw(self, pid: str, reason: str = "") -> Participant:
        """Participant ``pid`` left before finishing (closed the page, pressed Leave):
        status ``withdrawn``, logged with ``reason``; nothing more is accepted from them."""
        p = self.store.get(pid)
        if p.status not in (Status.OPENED, Status.CONSENTED):
            raise WebError(
                409, f"participant {pid} is {p.status.value}; only one who has started can withdraw"
            )
        p = self.store.update(pid, status=Status.WITHDRAWN, finished=self.clock.wall())
        self._event(p, "withdrawn", {"reason": reason})
        self._changed(p)
        return p

    def notify(self, pid: str, event: str, data: Any) -> None:
        """Send ``event`` to participant ``pid``'s open pages (live channel)."""
        self.live.publish(f"participant:{pid}", event, data)

    # -- plumbing ------------------------------------------------------------------------
    def _event(self, p: Participant, kind: str, data: dict[str, Any]) -> None:
        tagged = {"round": p.round, "condition": p.condition, **data}
        self.events.append(self.design.id, kind, tagged, party=p.pid)

    def _changed(self, p: Participant | None) -> None:
        self.live.publish("progress", "progress", self.progress())
        if p is not None:
            self.notify(p.pid, "participant", self.view(p.pid).model_dump())

    # -- HTTP ----------------------------------------------------------------------------
    def router(self) -> APIRouter:
        """The study's routes (participant, experimenter, login)."""
        r = APIRouter()
        r.include_router(self.auth.router())
        r.include_router(self._participant_routes())
        r.include_router(self._experimenter_routes())
        return r

    def _participant_routes(self) -> APIRouter:
        r = APIRouter(tags=["participant"])
        participant = Depends(self.auth.participant)

        @r.get("/s/{token}", include_in_schema=False)
        def look(token: str, request: Request) -> Response:
            """A link's landing page; looking does not use the link (mail systems fetch
            links to check them), pressing Start does."""

            def page() -> Response:
                p, mine = self.look_at_link(token, request.cookies.get(PARTICIPANT_COOKIE))
                if mine:
                    return RedirectResponse(self.next_page(p), status_code=303)
                return _landing_page(self.design.title)

            return _for_browser(request, page)

        @r.post("/s/{token}", include_in_schema=False)
        def start(token: str, request: Request) -> Response:

            def page() -> Response:
                p, new = self.open_link(token, request.cookies.get(PARTICIPANT_COOKIE))
                response = RedirectResponse(self.next_page(p), status_code=303)
                if new is not None:
                    days = PARTICIPANT_DAYS * 86400
                    self.auth.set_cookie(response, PARTICIPANT_COOKIE, new, days)
                return response

            return _for_browser(request, page)

        @r.get("/api/participant")
        def me(pid: str = participant) -> ParticipantView:
            return self.view(pid)

        @r.post("/api/participant/consent")
        def consent(body: ConsentIn, pid: str = participant) -> ParticipantView:
            self.consent(pid, body.agree, body.version)
            return self.view(pid)

        @r.post("/api/participant/instructions")
        def instructions(pid: str = participant) -> ParticipantView:
            self.read_instructions(pid)
            return self.view(pid)

        @r.post("/api/participant/events")
        def record(body: EventIn, pid: str = participant) -> dict[str, bool]:
            self._page_may_write()
            self.record(pid, body.kind, body.data)
            return {"ok": True}

        @r.put("/api/participant/state")
        def state(body: StateIn, pid: str = participant) -> ParticipantView:
            self._page_may_write()
            self.set_state(pid, body.state)
            return self.view(pid)

        @r.post("/api/participant/complete")
        def complete(body: CompleteIn, pid: str = participant) -> ParticipantView:
            self._page_may_write()
            self.complete(pid, body.result)
            return self.view(pid)

        @r.get("/api/participant/live", response_class=PlainResponse)
        def live(pid: str = participant) -> Response:
            first = [Message("participant", self.view(pid).model_dump())]
            return self.live.response(f"participant:{pid}", first)

        return r

    def _page_may_write(self) -> None:
        if not self.page_writes:
            raise WebError(
                403,
                "in this study the server records your actions and ends your rounds; the "
                "page cannot do it",
                code="page_writes_off",
            )

    def _experimenter_routes(self) -> APIRouter:
        r = APIRouter(prefix="/api/study", tags=["experimenter"])
        user = Depends(self.auth.user)

        @r.get("")
        def study(_: str = user) -> dict[str, Any]:
            return {"design": self.design.model_dump(), "progress": self.progress()}

        @r.post("/invites", status_code=201)
        def invites(body: InvitesIn, request: Request, _: str = user) -> list[InviteOut]:
            base = str(request.base_url).rstrip("/")
            made = self.invite(body.count, body.label)
            return [InviteOut(pid=i.pid, link=base + i.path) for i in made]

        @r.get("/participants")
        def participants(_: str = user) -> list[dict[str, Any]]:
            return [p.to_json() for p in self.store.all()]

        @r.get("/events.csv", response_class=PlainResponse)
        def events_csv(_: str = user) -> Response:
            out = io.StringIO()
            self.write_csv(out)
            name = f"{self.design.id}-events.csv"
            return PlainResponse(
                out.getvalue(),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )

        @r.get("/live", response_class=PlainResponse)
        def live(_: str = user) -> Response:
            return self.live.response("progress", [Message("progress", self.progress())])

        return r


def _landing_page(title: str) -> HTMLResponse:
    page = (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>"
        '<link rel=stylesheet href="/study/study.css">'
        f"<main class=card><h1 id=title>{html.escape(title)}</h1>"
        "<p>This is your personal link to the study. It works once, in this browser.</p>"
        "<form method=post><button class=primary id=start type=submit>Start</button></form>"
        "</main></html>"
    )
    return HTMLResponse(page)


def _for_browser(request: Request, page: Callable[[], Response]) -> Response:
    """``page()``; a refusal is a page saying why for a browser, the error body for a
    program (it asks for no HTML)."""
    try:
        return page()
    except WebError as e:
        if "text/html" not in request.headers.get("accept", ""):
            raise
        return _error_page(e)


def _error_page(e: WebError) -> HTMLResponse:
    text = html.escape(e.message)
    page = (
        "<!doctype html><html lang=en><meta charset=utf-8><title>Study link</title>"
        '<link rel=stylesheet href="/study/study.css">'
        f'<main class=card><h1>This link cannot be used</h1><p id=error data-code="{e.code}">'
        f"{text}</p></main></html>"
    )
    return HTMLResponse(page, status_code=e.status)
