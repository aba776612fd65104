"""One error tree for graphmem.

Every error graphmem raises derives from :class:`GraphMemError`. The specific
classes also derive from the built-in exception a Python user would already
catch, so ``except LookupError`` and ``except ValueError`` keep working.
"""

from __future__ import annotations

__all__ = [
    "CLOSED_MESSAGE",
    "BackendError",
    "ClosedError",
    "ConflictError",
    "ExtractionError",
    "ExtractionTimeoutError",
    "GraphMemError",
    "InvalidArgumentError",
    "ModelError",
    "NotFoundError",
    "PgqSyntaxError",
    "SchemaError",
]


class GraphMemError(Exception):
    """Root of every error graphmem raises."""


class InvalidArgumentError(GraphMemError, ValueError):
    """An argument is malformed or out of range. The message names the argument.

    Attributes:
        argument: the name of the offending argument.
        detail: the message without the argument's name (to re-raise it under
            another name, such as ``memories[3].memory_type``).
    """

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.detail = message

    def within(self, outer: str) -> InvalidArgumentError:
        """The same error about a part of argument ``outer``: named
        ``outer.argument`` (``outer[2]`` for an item of a list), e.g.
        ``search_config.max_results`` for a field of a config given as ``search_config``."""
        joiner = "" if self.argument.startswith("[") else "."
        return InvalidArgumentError(f"{outer}{joiner}{self.argument}", self.detail)


class NotFoundError(GraphMemError, LookupError):
    """A record or link that the call names does not exist."""


class ConflictError(GraphMemError):
    """The call would create a duplicate: an existing id, or an existing link."""


CLOSED_MESSAGE = "this GraphMemory is closed; open a new one to use the store"


class ClosedError(GraphMemError):
    """The :class:`graphmem.GraphMemory` handle (or a service client) was closed;
    open a new one."""


class SchemaError(GraphMemError):
    """The store's schema is missing or does not match what graphmem expects."""


class BackendError(GraphMemError):
    """The database driver failed in a way graphmem cannot attribute to the caller."""


class PgqSyntaxError(GraphMemError, ValueError):
    """SQL/PGQ text is malformed or uses a construct graphmem does not lower.

    Attributes:
        line: 1-based line of the offending token in the original text.
        column: 1-based column of the offending token in the original text.
    """

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} (line {line}, column {column})")
        self.line = line
        self.column = column


class ModelError(GraphMemError):
    """A model provider (embedder, LLM or reranker) failed or answered wrongly.

    Raised after the bounded retries are spent, or at once for an answer that
    retrying cannot fix (a 4xx status, malformed JSON, wrong vector count or
    dimension). The message names the operation, the status and the provider's
    own message; it never contains the API key.

    Attributes:
        status: the HTTP status, or None when no HTTP answer arrived (timeout,
            refused connection) or the answer was unusable despite a 2xx status.
        provider_message: what the provider said (or what was wrong with its answer).
        api_base: the address of the model server that failed, when the message
            names it (the memory service leaves it out of what it answers).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        provider_message: str,
        api_base: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.provider_message = provider_message
        self.api_base = api_base


class ExtractionError(GraphMemError):
    """Memory extraction jobs failed (their records were not written).

    Attributes:
        job_ids: the failed jobs; ``GraphMemory.list_jobs(status="failed")``
            lists them with their last error, ``retry_job`` queues one again.
    """

    def __init__(self, message: str, *, job_ids: list[str]) -> None:
        super().__init__(message)
        self.job_ids = job_ids


class ExtractionTimeoutError(GraphMemError, TimeoutError):
    """Waiting for memory extraction jobs took longer than the timeout given."""
