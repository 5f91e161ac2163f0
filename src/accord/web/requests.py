"""Typed request parsing: a body becomes a pydantic model or a clear :class:`WebError`.

Routes should declare their body as a pydantic model parameter (``def add(body: AddIn)``)
so that FastAPI validates it and OpenAPI shows its schema; the app's handler turns a
wrong body into the one error body. Routes that must read the raw body first (to accept
two shapes, say) use :func:`read_json` and then :func:`parse`, which is typed: it
returns an instance of the model it is given.

    >>> from pydantic import BaseModel
    >>> class Point(BaseModel):
    ...     x: int
    >>> parse(Point, {"x": 3}, "point").x
    3
    >>> parse(Point, [1], "point")
    Traceback (most recent call last):
    ...
    accord.web.errors.WebError: point must be a JSON object, got list
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

from accord.web.errors import WebError, invalid

__all__ = ["DEFAULT_MAX_BODY", "parse", "read_json"]

DEFAULT_MAX_BODY = 256 * 1024
"""Bytes a request body may have unless an app says otherwise."""

M = TypeVar("M", bound=BaseModel)


async def read_json(request: Request, limit: int = DEFAULT_MAX_BODY, empty: Any = ...) -> Any:
    """The request's JSON body; 413 when over ``limit`` bytes, 400 when empty (unless
    ``empty`` gives the value for an empty body) or malformed."""
    data = await request.body()
    if len(data) > limit:
        raise WebError(413, f"request body has {len(data)} bytes; the limit is {limit} bytes")
    if not data.strip():
        if empty is not ...:
            return empty
        raise WebError(400, "empty request body; expected a JSON object")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WebError(400, f"malformed JSON: {e}; expected a JSON object") from None
    except RecursionError:
        raise WebError(400, "JSON nested too deeply to read; expected a flat object") from None


def parse(model: type[M], raw: Any, what: str) -> M:
    """``raw`` (a parsed JSON value) validated as ``model``; a 422 naming every wrong field
    of ``what`` otherwise."""
    if not isinstance(raw, dict):
        raise WebError(422, f"{what} must be a JSON object, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        raise invalid(e, what) from None
