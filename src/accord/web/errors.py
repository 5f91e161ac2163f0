"""The web layer's one error type and its one JSON body.

Every failure a client can meet, from any route of any Accord service, answers with the
same body (:class:`ErrorBody`)::

    {"status": "Failed", "code": "not_found", "error": "no participant 'p9'; ...",
     "fields": [{"loc": "body.age", "message": "...", "got": "..."}]}

``status`` is always ``"Failed"`` (the HUMAINE wire format's failure marker), ``code``
a stable machine name, ``error`` one readable line saying what was expected and what
arrived, and ``fields`` (only for invalid requests) one entry per wrong field.

Routes raise :class:`WebError`; :func:`install_error_handlers` turns it, FastAPI's
request-validation errors, Starlette's HTTP errors (404 route, 405 method), any other
:class:`~accord.core.errors.AccordError` (422) and unexpected exceptions (500, logged)
into that body.

    >>> e = WebError(404, "no participant 'p9'")
    >>> e.body().model_dump(exclude_none=True)
    {'status': 'Failed', 'code': 'not_found', 'error': "no participant 'p9'"}
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from accord.core.errors import AccordError

__all__ = [
    "CODES",
    "ErrorBody",
    "FieldError",
    "WebError",
    "explain",
    "field_errors",
    "install_error_handlers",
]

log = logging.getLogger("accord.web")

CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "too_many_requests",
    500: "internal",
    502: "bad_gateway",
    503: "unavailable",
    504: "gateway_timeout",
}
"""The default ``code`` of each HTTP status."""


class FieldError(BaseModel):
    """One wrong field of a request: where (``body.age``), what is wrong, what arrived."""

    loc: str
    message: str
    got: str | None = None


class ErrorBody(BaseModel):
    """The one error body of every Accord web service."""

    status: Literal["Failed"] = "Failed"
    code: str
    error: str
    fields: list[FieldError] | None = None


class WebError(AccordError):
    """A request a service refuses: HTTP ``status``, a readable ``message`` (what was
    expected, what arrived) and a stable ``code`` (default: from the status)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        fields: Sequence[FieldError] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or CODES.get(status, f"http_{status}")
        self.fields = list(fields) if fields is not None else None

    def body(self) -> ErrorBody:
        return ErrorBody(code=self.code, error=self.message, fields=self.fields)

    def response(self) -> JSONResponse:
        return error_response(self.status, self.body())


def error_response(status: int, body: ErrorBody) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, headers=headers)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def field_errors(errors: Sequence[Any]) -> list[FieldError]:
    """pydantic/FastAPI error dicts as :class:`FieldError` s."""
    out = []
    for e in errors:
        loc = ".".join(str(x) for x in e.get("loc", ())) or "body"
        kind = str(e.get("type", ""))
        if kind == "missing":
            out.append(FieldError(loc=loc, message="required field is missing"))
        elif kind == "json_invalid":
            reason = (e.get("ctx") or {}).get("error", "malformed JSON")
            out.append(FieldError(loc=loc, message=f"malformed JSON ({reason})"))
        elif kind in ("value_error", "assertion_error"):
            out.append(FieldError(loc=loc, message=str(e.get("msg", ""))))
        else:
            got = e.get("input")
            shown = f"{len(got)} characters" if kind.startswith("string_too_long") else _shown(got)
            out.append(FieldError(loc=loc, message=str(e.get("msg", "")), got=shown))
    return out


def explain(errors: Sequence[FieldError]) -> str:
    """One readable line for all wrong fields.

    >>> explain([FieldError(loc="body.age", message="Input should be a valid integer",
    ...                     got="'ten'")])
    "body.age: Input should be a valid integer (got 'ten')"
    """
    parts = [f"{f.loc}: {f.message}" + (f" (got {f.got})" if f.got else "") for f in errors]
    return "; ".join(parts)


def invalid(error: ValidationError | RequestValidationError, what: str = "request") -> WebError:
    """A 422 :class:`WebError` naming every wrong field of ``what``."""
    fields = field_errors(error.errors())
    status = 400 if any(f.message.startswith("malformed JSON") for f in fields) else 422
    return WebError(status, f"invalid {what}: {explain(fields)}", fields=fields)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def install_error_handlers(app: FastAPI) -> None:
    """Answer every failure of ``app`` with an :class:`ErrorBody`."""

    async def web_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, WebError)
        return exc.response()

    async def validation(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return invalid(exc).response()

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        return WebError(exc.status_code, str(exc.detail)).response()

    async def accord_error(_: Request, exc: Exception) -> JSONResponse:
        return WebError(422, str(exc), code=_snake(type(exc).__name__)).response()

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        message = f"internal error ({type(exc).__name__}); the server log has the details"
        return WebError(500, message).response()

    app.add_exception_handler(WebError, web_error)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(AccordError, accord_error)
    app.add_exception_handler(Exception, unexpected)
