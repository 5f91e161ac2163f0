"""The web layer: what every Accord service with people or agents on the wire shares.

It sits above the tournament layer and below the leagues (it imports no league):

- :mod:`~accord.web.app`: the app factory (services with routers, one error body,
  body-size limit, static pages);
- :mod:`~accord.web.errors`: :class:`WebError`, the one error type, and its body;
- :mod:`~accord.web.requests`: typed request parsing;
- :mod:`~accord.web.auth`: passwords, cookie sessions, participant and service tokens;
- :mod:`~accord.web.store`: the append-only event log (on the one SQLite base,
  :class:`accord.tournament.sqlite.SqliteFile`);
- :mod:`~accord.web.delivery`: ordered per-party delivery with timeouts;
- :mod:`~accord.web.clock`: the real clock and a virtual one;
- :mod:`~accord.web.runner`: uvicorn in a thread on loopback, as a context manager;
- :mod:`~accord.web.live`: the live channel to pages (server-sent events);
- :mod:`~accord.web.study`: studies (design, links, consent, progress, CSV);
- :mod:`~accord.web.testing`: the test kit (servers, Playwright fixtures).

``docs/web-layer.md`` shows a league building its study server on it.
"""

from __future__ import annotations

from accord.web.app import Service, create_app
from accord.web.auth import Auth
from accord.web.clock import Clock, RealClock, VirtualClock
from accord.web.delivery import Delivery, DeliveryError, HttpTransport, Outbox
from accord.web.errors import ErrorBody, FieldError, WebError
from accord.web.live import Live
from accord.web.requests import parse, read_json
from accord.web.runner import BackgroundServer, bound_socket, serve
from accord.web.store import Event, EventLog

__all__ = [
    "Auth",
    "BackgroundServer",
    "Clock",
    "Delivery",
    "DeliveryError",
    "ErrorBody",
    "Event",
    "EventLog",
    "FieldError",
    "HttpTransport",
    "Live",
    "Outbox",
    "RealClock",
    "Service",
    "VirtualClock",
    "WebError",
    "bound_socket",
    "create_app",
    "parse",
    "read_json",
    "serve",
]
