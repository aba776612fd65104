"""The service's OpenAPI document, made to say what the service does.

FastAPI's generated document lists a 422 ``HTTPValidationError`` for every route
with parameters or a body; the service answers bad input with a 400 and its own
error body (``code``, ``message``, ``status``). The document here describes that
body once (``Error``), lists the 400, 401, 403 and 503 answers of every ``/v1``
route, the 404 of a route that names something (in its path, or a user,
session or memory in its body), the 409, 413 and 415 of a route with a body, the
502 of a route that calls a model, the 202 of the block routes that may queue
their work, and the bearer credential (an API key or a JWT), so that a
generated client or the ``/docs`` page can send it.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

__all__ = ["install_openapi"]

_ERROR = {
    "title": "Error",
    "type": "object",
    "required": ["code", "message", "status"],
    "properties": {
        "code": {"type": "string", "examples": ["INVALID_ARGUMENT"]},
        "message": {"type": "string", "examples": ["user_id: must not be empty"]},
        "status": {"type": "integer", "examples": [400]},
    },
}
_ERROR_REF = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
_ANSWERS = {
    "400": "Malformed body, wrong type, unknown field or bad value",
    "401": "No credential, or one that does not verify",
    "403": "The credential lacks the role this operation needs",
}
_MORE = {
    "404": "Not found: what the path (or the body) names does not exist",
    "409": "Conflict with what is stored (a duplicate id, a registry state)",
    "413": "The body is over the service's limit (--max-body-bytes)",
    "415": "The body is not application/json",
    "502": "A model server failed (MODEL_ERROR) or memory extraction did",
    "503": "The store failed, or the service is stopping",
}
_NAMES_IN_BODY = {("post", "/v1/memories"), ("post", "/v1/links"), ("post", "/v1/sessions")}
_CALLS_MODELS = {
    ("post", "/v1/search"),
    ("post", "/v1/memories"),
    ("post", "/v1/sessions/{session_id}/memory"),
    ("patch", "/v1/sessions/{session_id}/memory/{block_id}"),
    ("get", "/v1/sessions/{session_id}/context_card"),
}


def _statuses(method: str, path: str) -> list[str]:
    """The error statuses beyond 400, 401 and 403 that the route may answer."""
    found = ["503"]
    if "{" in path or (method, path) in _NAMES_IN_BODY:
        found.append("404")
    if method in ("post", "patch", "put"):
        found += ["409", "413", "415"]
    if (method, path) in _CALLS_MODELS:
        found.append("502")
    return sorted(found)


_QUEUED = {
    ("post", "/v1/sessions/{session_id}/memory"),
    ("patch", "/v1/sessions/{session_id}/memory/{block_id}"),
}


def _document(app: FastAPI) -> dict[str, Any]:
    doc = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["Error"] = _ERROR
    components["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key (graphmem keys create) or a JWT with a roles claim",
        }
    }
    for path, operations in doc.get("paths", {}).items():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            answers.pop("422", None)
            if not path.startswith("/v1/"):
                continue
            operation["security"] = [{"bearer": []}]
            for status, description in _ANSWERS.items():
                answers[status] = {"description": description, "content": _ERROR_REF}
            for status in _statuses(method, path):
                answers[status] = {"description": _MORE[status], "content": _ERROR_REF}
            if (method, path) in _QUEUED:
                accepted = dict(next(iter(v for k, v in answers.items() if k.startswith("2"))))
                accepted["description"] = "Accepted: the block is queued (async_processing)"
                answers["202"] = accepted
    return doc


def install_openapi(app: FastAPI) -> None:
    """Serve :func:`_document` (made once, on the first request) as ``/openapi.json``."""
    made: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not made:
            made.update(_document(app))
        return made

    app.openapi = openapi  # type: ignore[method-assign]
