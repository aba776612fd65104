"""The service's JSON errors raised as :class:`graphmem.GraphMemError` subclasses.

Every raised error has ``.code`` and ``.status``. Prompt registry codes raise the
same classes as the embedded registry (``PromptNotFoundError``,
``PromptConflictError``, ...), so code written against one works with the other.
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import (
    BackendError,
    ConflictError,
    GraphMemError,
    InvalidArgumentError,
    ModelError,
    NotFoundError,
)
from graphmem.registry_errors import STATUS, PromptArgumentError, PromptError, prompt_error

__all__ = [
    "ApiArgumentError",
    "ApiBackendError",
    "ApiConflictError",
    "ApiError",
    "ApiModelError",
    "ApiNotFoundError",
    "AuthenticationError",
    "PermissionDeniedError",
    "error_from_response",
]


class ApiError(GraphMemError):
    """An error answer of the memory service (or no usable answer: ``status`` 0)."""

    def __init__(self, message: str, *, code: str, status: int) -> None:
        Exception.__init__(self, message)  # not cooperative: subclasses mix in other errors
        self.code = code
        self.status = status


class ApiArgumentError(ApiError, InvalidArgumentError):
    """A 400: the request was malformed or an argument was refused."""

    def __init__(self, message: str, *, code: str, status: int) -> None:
        ApiError.__init__(self, message, code=code, status=status)
        self.argument = message.split(":", 1)[0]
        self.detail = message


class ApiNotFoundError(ApiError, NotFoundError):
    """A 404."""


class ApiConflictError(ApiError, ConflictError):
    """A 409."""


class ApiModelError(ApiError, ModelError):  # type: ignore[misc]  # status: the HTTP one
    """A 502: a model server behind the service failed (``MODEL_ERROR``), or memory
    extraction did (``EXTRACTION_ERROR``)."""

    def __init__(self, message: str, *, code: str, status: int) -> None:
        ApiError.__init__(self, message, code=code, status=status)
        self.provider_message = message
        self.api_base = None


class ApiBackendError(ApiError, BackendError):
    """A 503: the service's store failed, or the service is shutting down."""


class AuthenticationError(ApiError):
    """A 401: no credential, or one that does not verify."""


class PermissionDeniedError(ApiError):
    """A 403: the credential lacks the role the operation needs."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: ApiArgumentError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: ApiNotFoundError,
    409: ApiConflictError,
    413: ApiArgumentError,
    502: ApiModelError,
    503: ApiBackendError,
}


def _prompt_argument_error(code: str, message: str) -> PromptError:
    argument, _, detail = message.partition(": ")
    err = PromptArgumentError(argument, detail or message, code=code)
    err.args = (message,)
    return err


def error_from_response(status: int, body: Any, *, registry: bool = False) -> GraphMemError:
    """The exception for an error answer (``body``: its parsed JSON, or anything).

    A refused argument of the prompt registry (a call of ``registry`` routes, or an
    argument named ``prompt_...``) is a ``PromptArgumentError``, as embedded.
    """
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        code, message = body["code"], str(body.get("message", ""))
    else:
        code, message = "HTTP_ERROR", f"the service answered HTTP {status}"
    if code in STATUS and code.startswith("PROMPT_"):
        if STATUS[code] == 400:
            return _prompt_argument_error(code, message)
        return prompt_error(code, message)
    if code == "INVALID_ARGUMENT" and (registry or message.startswith("prompt_")):
        return _prompt_argument_error(code, message)
    cls = _BY_STATUS.get(status, ApiError)
    return cls(message, code=code, status=status)
