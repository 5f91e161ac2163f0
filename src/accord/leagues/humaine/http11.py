"""The keep-alive HTTP/1.1 JSON client of the orchestrator's fan-out; it lives in the web
layer now (:mod:`accord.web.http11`), shared by every league's servers."""

from __future__ import annotations

from accord.web.http11 import Connection, HttpError

__all__ = ["Connection", "HttpError"]
