"""A thread's settings: checked once, persisted as JSON with the thread, read back on reopen.

``context_card_type_search_concurrency`` is not among them: it belongs to one
handle (:class:`graphmem.threads.Thread`) and is never stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from graphmem.core.validation import MAX_COUNT, check_flag, check_metadata
from graphmem.errors import InvalidArgumentError
from graphmem.extraction.config import MemoryExtractionConfig, check_extraction_config

__all__ = [
    "DEFAULT_TYPE_SEARCH_CONCURRENCY",
    "MemoryExtractionConfig",
    "ThreadSettings",
    "check_concurrency",
    "check_config",
]

DEFAULT_TYPE_SEARCH_CONCURRENCY = 5
"""Per-type context-card searches that may run at once on one handle."""


def check_config(argument: str, value: object) -> dict[str, Any] | None:
    """A configuration object as JSON: ``None``, a mapping, or a pydantic model
    (``model_dump(mode="json")``); the result must be a JSON object."""
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        value = dump(mode="json")
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(
            argument, f"must be a mapping or a pydantic model, not {type(value).__name__}"
        )
    return check_metadata(argument, value)


def _check_every(argument: str, value: object) -> int:
    """``-1`` (once per ``add_messages`` call) or a positive count."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (value == -1 or 1 <= value <= MAX_COUNT)
    ):
        raise InvalidArgumentError(argument, f"must be -1 or an integer >= 1; got {value!r}")
    return value


def _check_limit(argument: str, value: object) -> int:
    """A token limit: any integer; 0 or less turns the limit off."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_COUNT:
        raise InvalidArgumentError(argument, f"must be an integer; got {value!r}")
    return value


def check_concurrency(value: object) -> int:
    """``context_card_type_search_concurrency``: an integer from 1 to 64."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
        raise InvalidArgumentError(
            "context_card_type_search_concurrency",
            f"must be an integer from 1 to 64; got {value!r}",
        )
    return value


@dataclass(frozen=True)
class ThreadSettings:
    """The persisted settings of a thread.

    Attributes:
        memory_extraction_config: the fields of a
            :class:`~graphmem.extraction.config.MemoryExtractionConfig` that the
            thread sets (JSON); the others come from the client's config.
        search_config: a JSON object stored as given and handed to the search
            stages of the thread's searches and context cards.
        context_summary_update_frequency: rewrite the summary every this many new
            messages; ``-1``: once per ``add_messages`` call.
        enable_context_summary: ``False`` keeps the deterministic summary even
            when an LLM is set.
        memory_extraction_window: overrides the extraction config's window
            when not ``-1``.
        memory_extraction_frequency: overrides its frequency when not ``-1``.
        memory_extraction_token_limit: overrides its token limit when not 0.
        max_message_token_length: likewise.
        message_shortening_input_token_limit: likewise.
        context_card_token_limit: the largest summary prompt, in tokens (about 4
            characters each); older messages are left out to fit; 0 or less: no limit.
    """

    memory_extraction_config: dict[str, Any] | None = None
    search_config: dict[str, Any] | None = None
    context_summary_update_frequency: int = -1
    enable_context_summary: bool = True
    memory_extraction_window: int = -1
    memory_extraction_frequency: int = -1
    memory_extraction_token_limit: int = 0
    context_card_token_limit: int = 100_000
    max_message_token_length: int = 0
    message_shortening_input_token_limit: int = 30_000

    @classmethod
    def checked(cls, base: ThreadSettings | None = None, **given: object) -> ThreadSettings:
        """``base`` (default settings when None) with the ``given`` values checked
        and applied; a value of ``None`` leaves that setting as it is."""
        changes: dict[str, Any] = {}
        for name, value in given.items():
            if value is None:
                continue
            if name == "memory_extraction_config":
                changes[name] = check_extraction_config(name, value)
            elif name == "search_config":
                changes[name] = check_config(name, value)
            elif name == "enable_context_summary":
                changes[name] = check_flag(name, value)
            elif name in (
                "context_summary_update_frequency",
                "memory_extraction_window",
                "memory_extraction_frequency",
            ):
                changes[name] = _check_every(name, value)
            elif name in {f.name for f in fields(cls)}:
                changes[name] = _check_limit(name, value)
            else:
                raise InvalidArgumentError(name, "is not a thread setting")
        return replace(base or cls(), **changes)

    def to_json(self) -> dict[str, Any]:
        """The settings as stored."""
        stored: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        return stored

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> ThreadSettings:
        """Settings read back from the store (unknown keys, from a newer version, ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in stored.items() if k in known})
