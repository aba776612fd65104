"""Structured JSON errors: every failure answers ``{"code", "message", "status"}``.

Library errors map to codes by class (the prompt registry's carry their own code
and status); request errors (malformed JSON, wrong types, unknown fields, a body
over the limit) are 4xx; anything unexpected is a 500 ``INTERNAL_ERROR`` whose
message gives no internals.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from graphmem.errors import (
    BackendError,
    ClosedError,
    ConflictError,
    ExtractionError,
    ExtractionTimeoutError,
    GraphMemError,
    InvalidArgumentError,
    ModelError,
    NotFoundError,
    SchemaError,
)
from graphmem.registry_errors import PromptError

__all__ = [
    "ServiceError",
    "as_session",
    "client_text",
    "error_response",
    "install_error_handlers",
    "named_as",
    "status_of",
]

_log = logging.getLogger("graphmem.service")

_BY_CLASS: tuple[tuple[type[GraphMemError], str, int], ...] = (
    (InvalidArgumentError, "INVALID_ARGUMENT", 400),
    (NotFoundError, "NOT_FOUND", 404),
    (ConflictError, "CONFLICT", 409),
    (ModelError, "MODEL_ERROR", 502),
    (ExtractionTimeoutError, "EXTRACTION_TIMEOUT", 504),
    (ExtractionError, "EXTRACTION_ERROR", 502),
    (BackendError, "BACKEND_ERROR", 503),
    (ClosedError, "UNAVAILABLE", 503),
    (SchemaError, "SCHEMA_ERROR", 500),
)

_HTTP_CODES = {
    400: "MALFORMED_BODY",  # the framework's own 400: a body it could not parse
    401: "UNAUTHENTICATED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}


@contextmanager
def named_as(names: Mapping[str, str]) -> Iterator[None]:
    """Errors that name a library argument (``source_record_id``) name the request's
    field (``source_id``) instead, so that a caller finds it in its own body."""
    try:
        yield
    except InvalidArgumentError as exc:
        if type(exc) is not InvalidArgumentError or exc.argument not in names:
            raise
        raise InvalidArgumentError(names[exc.argument], exc.detail) from None
    except (NotFoundError, ConflictError) as exc:
        head, sep, rest = str(exc).partition(": ")
        if type(exc) not in (NotFoundError, ConflictError) or not sep or head not in names:
            raise
        raise type(exc)(f"{names[head]}: {rest}") from None


@contextmanager
def as_session(session_id: str) -> Iterator[None]:
    """:func:`named_as` for the service's word for a thread: errors about
    ``thread_id`` name ``session_id``, a missing thread is a missing session and an
    existing one an existing session."""
    try:
        with named_as({"thread_id": "session_id"}):
            yield
    except NotFoundError as exc:
        if type(exc) is not NotFoundError or not str(exc).startswith("session_id:"):
            raise
        raise NotFoundError(f"session_id: no session {session_id!r}") from None
    except ConflictError as exc:
        if type(exc) is not ConflictError or not str(exc).startswith("session_id:"):
            raise
        raise ConflictError(f"session_id: a session {session_id!r} exists already") from None


class ServiceError(GraphMemError):
    """An error the service raises itself, with its code and HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def status_of(exc: GraphMemError) -> tuple[str, int]:
    """The code and HTTP status of a library error."""
    if isinstance(exc, PromptError | ServiceError):
        return exc.code, exc.status
    for cls, code, status in _BY_CLASS:
        if isinstance(exc, cls):
            return code, status
    return "ERROR", 500


def client_text(exc: BaseException) -> str:
    """What the service tells its caller about ``exc``: its message, with the
    address of every model server that failed behind it replaced by a name (a
    caller need not learn the service's own network; its log keeps the address)."""
    text = str(exc)
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ModelError) and cause.api_base:
            text = text.replace(cause.api_base, "the model server")
        cause = cause.__cause__ or cause.__context__
    return text


def error_response(code: str, message: str, status: int, **headers: str) -> JSONResponse:
    body = {"code": code, "message": message, "status": status}
    return JSONResponse(body, status_code=status, headers=headers or None)


_PLACES = frozenset({"body", "query", "path", "header", "cookie"})
"""Where FastAPI found a value (the first element of an error's location)."""


def _location(parts: list[Any]) -> str:
    """A field's place as the library and the docs name it: ``messages[0].user_content``
    (pydantic's ``messages.0.user_content``)."""
    text = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _validation_message(errors: list[Any]) -> tuple[str, str]:
    first = errors[0] if errors else {}
    kind = str(first.get("type", ""))
    loc = list(first.get("loc", ()))
    if loc and loc[0] in _PLACES:  # "limit", not "query.limit": named as the caller sent it
        loc = loc[1:]
    where = _location(loc) or "body"
    if kind == "json_invalid":
        return "MALFORMED_BODY", f"the body is not valid JSON: {first.get('msg', '')}"
    if kind == "extra_forbidden":
        return "INVALID_ARGUMENT", f"{where}: unknown field"
    return "INVALID_ARGUMENT", f"{where}: {first.get('msg', 'invalid value')}"


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error as structured JSON."""

    @app.exception_handler(GraphMemError)
    async def _library(request: Request, exc: GraphMemError) -> JSONResponse:
        code, status = status_of(exc)
        if status >= 500:
            _log.warning("%s %s failed: %s", request.method, request.url.path, exc)
        return error_response(code, client_text(exc), status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        code, message = _validation_message(list(exc.errors()))
        return error_response(code, message, 400)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        headers = dict(exc.headers or {})
        return error_response(code, str(exc.detail), exc.status_code, **headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        _log.exception("%s %s failed", request.method, request.url.path)
        return error_response("INTERNAL_ERROR", "the server failed to answer", 500)
