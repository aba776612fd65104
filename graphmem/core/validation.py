"""Argument checks shared by every store: pure, raising InvalidArgumentError."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.core.metadata import filterable_entries
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.times import (
    check_timestamp,
    check_ttl_days,
    expiry,
    format_time,
    parse_time,
    utc_now,
)
from graphmem.core.tree import MAX_HOPS
from graphmem.errors import InvalidArgumentError

__all__ = [
    "MAX_CONTENT_LENGTH",
    "MAX_COUNT",
    "MAX_ID_LENGTH",
    "MAX_INFORMATION_LENGTH",
    "SearchFilters",
    "check_content",
    "check_flag",
    "check_hops",
    "check_id",
    "check_information",
    "check_metadata",
    "check_metadata_filter",
    "check_non_negative",
    "check_optional_id",
    "check_positive",
    "check_query",
    "check_record_type",
    "check_record_types",
    "check_text",
    "check_timestamp",
    "check_ttl_days",
    "expiry",
    "format_time",
    "parse_time",
    "utc_now",
    "validate_identifier",
]

MAX_ID_LENGTH = 128
MAX_CONTENT_LENGTH = 100_000
"""Characters of memory content and of a search query. Far above what an embedding
model reads (a few thousand tokens), and it keeps one call's embedding work and
memory small (10 MB of text took seconds and over a GB in the embedder)."""
MAX_INFORMATION_LENGTH = 100_000
"""Characters of a user's or agent's free-form information."""
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,29}")
_INT64 = 2**63


def validate_identifier(argument: str, value: object) -> str:
    """Check a store identifier (``memory_store_id``, the CLI's ``--prefix``).

    It must match ``^[A-Za-z][A-Za-z0-9_]{0,29}$``, and, because a store's objects
    are named ``<id>__<name>``, contain no double underscore and not end with
    ``_``: then the text before the first ``__`` of an object name is the store
    id, so two stores never share an object name.

    >>> validate_identifier("memory_store_id", "T_GRAPH_MEMORY")
    'T_GRAPH_MEMORY'

    Raises:
        InvalidArgumentError: when the value breaks one of these rules.
    """
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise InvalidArgumentError(
            argument,
            f"{value!r} is not an identifier: a letter, then at most 29 letters, "
            "digits or underscores",
        )
    if "__" in value or value.endswith("_"):
        raise InvalidArgumentError(
            argument,
            f"{value!r} contains '__' or ends with '_': object names are <id>__<name>, "
            "so such an id could share names with another store",
        )
    return value


def check_text(argument: str, value: str) -> str:
    """Text that can be stored: encodable as UTF-8 (no lone surrogates).

    >>> check_text("content", "ok")
    'ok'
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            argument, f"is not valid Unicode text (character {exc.start} is a lone surrogate)"
        ) from None
    return value


def check_id(argument: str, value: object) -> str:
    """A record or relation id: a string of at most 128 characters, not blank."""
    if not isinstance(value, str):
        raise InvalidArgumentError(argument, f"must be a string, not {type(value).__name__}")
    check_text(argument, value)
    if not value:
        raise InvalidArgumentError(argument, "must not be empty")
    if not value.strip():
        raise InvalidArgumentError(argument, "must not be blank (only whitespace)")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidArgumentError(argument, f"must be at most {MAX_ID_LENGTH} characters")
    if "\x00" in value:
        raise InvalidArgumentError(argument, "must not contain NUL characters")
    return value


def check_optional_id(argument: str, value: object) -> str | None:
    """A scope id (``user_id``, ``agent_id``, ``thread_id``) or ``None``."""
    return None if value is None else check_id(argument, value)


def check_content(value: object) -> str:
    """Memory content: a string with some non-whitespace text."""
    if not isinstance(value, str):
        raise InvalidArgumentError("content", f"must be a string, not {type(value).__name__}")
    _check_length("content", value)
    check_text("content", value)
    if not value.strip():
        raise InvalidArgumentError("content", "must contain some text")
    return value


def check_query(value: object) -> str:
    """A search query: a string with some text, at most MAX_CONTENT_LENGTH characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError("query", "must be a non-empty string")
    _check_length("query", value)
    return check_text("query", value)


def check_information(value: object) -> str | None:
    """A user's or agent's information: ``None``, or valid Unicode text of at most
    MAX_INFORMATION_LENGTH characters."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_INFORMATION_LENGTH:
        raise InvalidArgumentError(
            "information",
            f"must be None or a string of at most {MAX_INFORMATION_LENGTH} characters",
        )
    return check_text("information", value)


def _check_length(argument: str, value: str) -> None:
    if len(value) > MAX_CONTENT_LENGTH:
        raise InvalidArgumentError(
            argument, f"must be at most {MAX_CONTENT_LENGTH} characters; got {len(value)}"
        )


def check_record_type(argument: str, value: object) -> str:
    """One of the memory-like record types."""
    if not isinstance(value, str) or value not in MEMORY_TYPES:
        raise InvalidArgumentError(
            argument, f"must be one of {', '.join(MEMORY_TYPES)}; got {_short(value)}"
        )
    return str(value)


def _short(value: object) -> str:
    """``repr`` of a rejected value, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_flag(argument: str, value: object) -> bool:
    """``True`` or ``False`` (a numpy bool too); anything else is an error, not a truth test.

    >>> check_flag("include_invalid_results", False)
    False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidArgumentError(argument, f"must be True or False; got {_short(value)}")


def check_record_types(value: object) -> tuple[str, ...] | None:
    """A non-empty collection of record types, or ``None`` for all."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    try:
        items = list(value) if isinstance(value, Iterable) else None
    except TypeError:  # an iterable that cannot iterate, such as a 0-d numpy array
        items = None
    if items is None:
        raise InvalidArgumentError("record_types", "must be a list of record types")
    types = tuple(sorted({check_record_type("record_types", v) for v in items}))
    if not types:
        raise InvalidArgumentError("record_types", "must not be empty (use None for all types)")
    return types


def _check_json(argument: str, value: Any, depth: int = 0) -> None:
    if depth > 32:
        raise InvalidArgumentError(argument, "is nested too deeply")
    if isinstance(value, str):
        check_text(argument, value)
        return
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise InvalidArgumentError(argument, "integers must fit in 64 bits")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgumentError(argument, "numbers must be finite")
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_json(argument, item, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidArgumentError(argument, "keys must be strings")
            check_text(argument, key)
            _check_json(argument, item, depth + 1)
        return
    raise InvalidArgumentError(argument, f"{type(value).__name__} is not JSON")


def check_metadata(argument: str, value: object) -> dict[str, Any]:
    """JSON metadata: a mapping with string keys and JSON values."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(argument, "must be a mapping of string keys to JSON values")
    _check_json(argument, value)
    result: dict[str, Any] = json.loads(json.dumps(_plain(value)))
    return result


def _plain(value: object) -> object:
    """``value`` with every mapping a ``dict`` and every sequence a ``list``
    (``json`` writes only those; a ``UserDict`` or ``ChainMap`` is a mapping too)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def check_metadata_filter(value: object) -> dict[str, Any] | None:
    """Equality filters on top-level metadata keys; values are JSON scalars."""
    if value is None:
        return None
    filt = check_metadata("metadata_filter", value)
    for key, item in filt.items():
        if isinstance(item, (list, dict)):
            raise InvalidArgumentError(
                "metadata_filter", f"the value of {key!r} must be a string, number, bool or None"
            )
    return filt or None


MAX_COUNT = 2**31 - 1
"""The largest count (limit, max_results, max_linked_results) a call may ask for."""


def check_non_negative(argument: str, value: object) -> int:
    """An integer from 0 to :data:`MAX_COUNT`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise InvalidArgumentError(
            argument, f"must be an integer from 0 to {MAX_COUNT}; got {value!r}"
        )
    return value


def check_positive(argument: str, value: object) -> int:
    """An integer from 1 to :data:`MAX_COUNT`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise InvalidArgumentError(
            argument, f"must be an integer from 1 to {MAX_COUNT}; got {value!r}"
        )
    return value


def check_hops(value: object) -> int:
    """``num_hops`` in 0..5."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_HOPS:
        raise InvalidArgumentError(
            "num_hops", f"must be an integer from 0 to {MAX_HOPS}; got {value!r}"
        )
    return value


@dataclass(frozen=True)
class SearchFilters:
    """The filters of docs/semantics.md section 1, applied to direct results and linked context."""

    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    record_types: tuple[str, ...] | None = None
    metadata_filter: dict[str, Any] | None = None
    now: datetime | None = None
    """The time against which expiry is judged (``None``: when the binds are made)."""
    without_user: bool = False
    """With ``user_id`` None: only the records that have no user (not those of any
    user). Honoured by :meth:`~graphmem.stores.base.Store.nearest` only (the link
    candidates of a new record are exactly its owner's)."""
    without_agent: bool = False
    """The same for ``agent_id``."""

    def binds(self) -> dict[str, Any]:
        """Bind values shared by every filtered statement.

        The record types are one bind, a JSON array (all memory-like types when
        the filter has none), so no statement depends on how many types exist.
        """
        now = self.now or utc_now()
        return {
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "thread_id": self.thread_id,
            "record_types": json.dumps(list(self.record_types or MEMORY_TYPES)),
            "now": format_time(now),
        }

    def owner_binds(self) -> dict[str, int]:
        """The binds of the nearest-records statements that keep only records without
        a user or an agent (:attr:`without_user`, :attr:`without_agent`)."""
        return {
            "without_user": int(self.without_user and self.user_id is None),
            "without_agent": int(self.without_agent and self.agent_id is None),
        }

    def metadata_pairs(self) -> list[tuple[str, str]]:
        """The metadata filter as ``(key, canonical value)`` pairs, sorted by key."""
        return sorted(filterable_entries(self.metadata_filter or {}))
