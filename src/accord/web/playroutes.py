"""The routes of a page that plays: written once, for the web driver and the leagues.

A page that plays a game asks three things of its server: the state it shows, one
action, and a live stream of that state. :func:`play_routes` adds them to a router,
over what the server says about one caller (``who``: the seat a FastAPI dependency
finds from the request, a participant's cookie or a party's token):

- ``GET {prefix}/state``: ``site.state(who)``;
- ``POST {prefix}/act``: ``site.act(who, body)`` with the body a pydantic model
  (:class:`WireAction` by default: the web driver's ``{"kind", "args"}``) or, with
  ``body=None``, the raw JSON (:func:`~accord.web.requests.read_json`) for rules that
  check it themselves; it runs in a worker thread, never on the event loop, and an
  :class:`~accord.core.protocols.rules.IllegalAction` is a 422 ``illegal_action``
  naming why (nothing changed);
- ``GET {prefix}/live``: ``site.follow(who)``, the state as server-sent ``state``
  events (:meth:`accord.web.live.Live.follow`: woken after each committed change, when
  due and every heartbeat).

The app's safety baseline (body limits, bounds, idempotent actions, the one error body,
the headers) applies to them as to every route. A site is any object with the three
methods (:class:`PlaySite`); :class:`~accord.web.driver.RulesGame` is one, and so are the
study services of Colored Trails and GENIUS.

    >>> from fastapi import APIRouter, Depends
    >>> class Echo:
    ...     def state(self, who): return {"who": who}
    ...     def act(self, who, body): return {"did": body.kind}
    ...     def follow(self, who): raise NotImplementedError
    >>> r = play_routes(APIRouter(prefix="/api/echo"), Depends(lambda: "me"), Echo())
    >>> sorted(route.path for route in r.routes)
    ['/api/echo/act', '/api/echo/live', '/api/echo/state']
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from fastapi import APIRouter, BackgroundTasks, Request, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from accord.core.protocols.rules import IllegalAction
from accord.web.errors import WebError
from accord.web.live import stream_response
from accord.web.requests import read_json

__all__ = ["PlaySite", "WireAction", "play_routes"]


class WireAction(BaseModel):
    """One action on the wire; ``GET /api/state`` gives the JSON Schema of those
    allowed now."""

    kind: str = Field(max_length=64, description="the kind of action (offer, accept, ...)")
    args: dict[str, Any] = Field(default_factory=dict, description="its arguments by name")


class PlaySite(Protocol):
    """What :func:`play_routes` asks of a server (``who``: the caller's seat)."""

    def state(self, who: Any) -> dict[str, Any]:
        """What the caller's page shows now."""
        ...

    def act(self, who: Any, body: Any) -> dict[str, Any]:
        """One action of the caller's (raise ``IllegalAction`` or a ``WebError`` to refuse)."""
        ...

    def follow(self, who: Any) -> AsyncIterator[str]:
        """The caller's state as server-sent events (see :meth:`Live.follow`)."""
        ...


def play_routes(
    router: APIRouter,
    who: Any,
    site: PlaySite,
    *,
    body: type[BaseModel] | None = WireAction,
    act_path: str = "/act",
    after: Callable[[Any], None] | None = None,
) -> APIRouter:
    """Add the ``state``, ``act`` and ``live`` routes of ``site`` to ``router`` (see the
    module); ``who`` is the dependency (``Depends(...)``) that finds the caller's seat;
    ``after(who)`` runs once an accepted action's answer is sent (the agents' turn)."""

    @router.get("/state", summary="what the caller's page shows now")
    def state(seat: Any = who) -> dict[str, Any]:
        return site.state(seat)

    def act(seat: Any, data: Any, background: BackgroundTasks) -> dict[str, Any]:
        try:
            out = site.act(seat, data)
        except IllegalAction as exc:
            raise WebError(422, exc.reason, code="illegal_action") from None
        if after is not None:
            background.add_task(after, seat)
        return out

    if body is None:

        @router.post(act_path, summary="one action")  # its body: the rules' own JSON
        async def act_raw(
            request: Request, background: BackgroundTasks, seat: Any = who
        ) -> dict[str, Any]:
            data = await read_json(request)
            out: dict[str, Any] = await run_in_threadpool(act, seat, data, background)
            return out

    else:

        def act_typed(
            data: BaseModel, background: BackgroundTasks, seat: Any = who
        ) -> dict[str, Any]:
            return act(seat, data, background)

        act_typed.__annotations__["data"] = body  # the route's body: this model
        router.post(act_path, summary="one action")(act_typed)

    @router.get("/live", summary="server-sent events: the state after every change")
    def live(seat: Any = who) -> Response:
        return stream_response(site.follow(seat))

    return router
