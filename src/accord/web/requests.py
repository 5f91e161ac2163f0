"""Typed request parsing: a body becomes a pydantic model or a clear :class:`WebError`.

Routes should declare their body as a pydantic model parameter (``def add(body: AddIn)``)
so that FastAPI validates it and OpenAPI shows its schema; the app's handler turns a
wrong body into the one error body. Routes that must read the raw body first (to accept
two shapes, say, or to answer in a wire format of their own) use :func:`read_json` and
then :func:`parse`, which is typed: it returns an instance of the model it is given;
such a route shows its models in OpenAPI with ``openapi_extra=json_body(Model, ...)``
(the app factory adds the models' schemas to ``components``).

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

from accord.core.errors import ConfigError, UsageError
from accord.web.errors import WebError, invalid

__all__ = ["DEFAULT_MAX_BODY", "body_models", "json_body", "parse", "read_json"]

DEFAULT_MAX_BODY = 256 * 1024
"""Bytes a request body may have unless an app says otherwise."""

M = TypeVar("M", bound=BaseModel)

_BODY_MODELS: dict[str, type[BaseModel]] = {}
"""Models named by :func:`json_body`, by their schema name (one class per name)."""


def json_body(*models: type[BaseModel], description: str = "") -> dict[str, Any]:
    """``openapi_extra`` for a route that reads its JSON body itself: OpenAPI shows the
    body as ``models`` (one of them when several), each a schema in ``components``.

        >>> from pydantic import BaseModel
        >>> class Hello(BaseModel):
        ...     name: str
        >>> json_body(Hello)["requestBody"]["content"]["application/json"]["schema"]
        {'$ref': '#/components/schemas/Hello'}
    """
    if not models:
        raise UsageError("json_body needs at least one model")
    refs = []
    for model in models:
        known = _BODY_MODELS.setdefault(model.__name__, model)
        if known is not model:
            raise ConfigError(
                f"two request models are named {model.__name__!r} "
                f"({known.__module__} and {model.__module__}); rename one"
            )
        refs.append({"$ref": f"#/components/schemas/{model.__name__}"})
    schema = refs[0] if len(refs) == 1 else {"oneOf": refs}
    body: dict[str, Any] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if description:
        body["description"] = description
    return {"requestBody": body}


def body_models(openapi: dict[str, Any]) -> dict[str, Any]:
    """``openapi`` with the schemas of every model :func:`json_body` named in it added
    to ``components.schemas`` (with the schemas they refer to)."""
    from pydantic.json_schema import models_json_schema

    text = json.dumps(openapi.get("paths", {}))
    wanted = [m for name, m in _BODY_MODELS.items() if f'"#/components/schemas/{name}"' in text]
    if not wanted:
        return openapi
    _, top = models_json_schema(
        [(m, "validation") for m in wanted], ref_template="#/components/schemas/{model}"
    )
    schemas = openapi.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in top.get("$defs", {}).items():
        schemas.setdefault(name, schema)
    return openapi


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
