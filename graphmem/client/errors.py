"""The service's JSON errors raised as :class:`graphmem.GraphMemError` subclasses.

Every raised error has ``.code`` and ``.status``. Prompt registry codes raise the
same classes as the embedded registry (``PromptNotFoundError``,
``PromptConflictError``, ...), so code written against one works with the other.
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import ConflictError, GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.registry_errors import STATUS, PromptArgumentError, PromptError, prompt_error

__all__ = [
    "ApiArgumentError",
    "ApiConflictError",
    "ApiError",
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
}


def _prompt_argument_error(code: str, message: str) -> PromptError:
    argument, _, detail = message.partition(": ")
    err = PromptArgumentError(argument, detail or message, code=code)
    err.args = (message,)
    return err


def error_from_response(status: int, body: Any) -> GraphMemError:
    """The exception for an error answer (``body``: its parsed JSON, or anything)."""
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        code, message = body["code"], str(body.get("message", ""))
    else:
        code, message = "HTTP_ERROR", f"the service answered HTTP {status}"
    if code in STATUS and code.startswith("PROMPT_"):
        if STATUS[code] == 400:
            return _prompt_argument_error(code, message)
        return prompt_error(code, message)
    cls = _BY_STATUS.get(status, ApiError)
    return cls(message, code=code, status=status)
