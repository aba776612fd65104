"""The prompt registry's errors: each carries a stable ``code`` and an HTTP ``status``.

Every class derives from :class:`graphmem.GraphMemError` and from the graphmem
class a caller already catches (a missing prompt is a :class:`NotFoundError`,
so also a ``LookupError``; a refused state change is a :class:`ConflictError`).
"""

from __future__ import annotations

from graphmem.errors import ConflictError, GraphMemError, InvalidArgumentError, NotFoundError

__all__ = [
    "PromptArgumentError",
    "PromptConflictError",
    "PromptError",
    "PromptNotFoundError",
    "prompt_error",
]


class PromptError(GraphMemError):
    """A prompt registry failure (``PROMPT_ERROR``, 500, unless a subclass says more).

    Attributes:
        code: the registry's error code, such as ``PROMPT_NOT_FOUND``.
        status: the HTTP status the code maps to, such as 404.
    """

    code: str = "PROMPT_ERROR"
    status: int = 500

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
            self.status = STATUS[code]


class PromptNotFoundError(PromptError, NotFoundError):
    """``PROMPT_NOT_FOUND`` or ``PROMPT_VERSION_NOT_FOUND`` (404)."""

    code = "PROMPT_NOT_FOUND"
    status = 404


class PromptConflictError(PromptError, ConflictError):
    """A 409: the id exists, is archived or mid-purge, or the version is current."""

    code = "PROMPT_ALREADY_EXISTS"
    status = 409


class PromptArgumentError(PromptError, InvalidArgumentError):
    """A bad argument (``INVALID_ARGUMENT``, 400), or ``PROMPT_EXTRACTION_DISABLED`` (400).

    Raised for a malformed id, a field over its limit, or prompt text that the
    validation rules reject. The message names the argument.
    """

    code = "INVALID_ARGUMENT"
    status = 400

    def __init__(self, argument: str, message: str, *, code: str | None = None) -> None:
        InvalidArgumentError.__init__(self, argument, message)
        if code is not None:
            self.code = code
            self.status = STATUS[code]


STATUS = {
    "INVALID_ARGUMENT": 400,
    "PROMPT_NOT_FOUND": 404,
    "PROMPT_ALREADY_EXISTS": 409,
    "PROMPT_ERROR": 500,
    "PROMPT_VERSION_NOT_FOUND": 404,
    "PROMPT_EXTRACTION_DISABLED": 400,
    "PROMPT_ID_ARCHIVED": 409,
    "PROMPT_ALREADY_ARCHIVED": 409,
    "PROMPT_VERSION_ARCHIVED": 409,
    "PROMPT_VERSION_ALREADY_ARCHIVED": 409,
    "PROMPT_CURRENT_VERSION_PURGE": 409,
    "PROMPT_CURRENT_VERSION_ARCHIVE": 409,
    "PROMPT_ALREADY_PURGING": 409,
}
"""Every registry error code and its HTTP status."""

_CLASSES: dict[int, type[PromptError]] = {404: PromptNotFoundError, 409: PromptConflictError}


def prompt_error(code: str, message: str) -> PromptError:
    """The error for ``code`` (one of :data:`STATUS`, not a 400), with ``message``.

    >>> err = prompt_error("PROMPT_ID_ARCHIVED", "prompt_id: 'x' is archived")
    >>> type(err).__name__, err.code, err.status
    ('PromptConflictError', 'PROMPT_ID_ARCHIVED', 409)
    """
    cls = _CLASSES.get(STATUS[code], PromptError)
    return cls(message, code=code)
