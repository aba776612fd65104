"""Checks for messages and message ranges: pure, raising InvalidArgumentError."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graphmem.core.validation import MAX_CONTENT_LENGTH, check_text
from graphmem.errors import InvalidArgumentError
from graphmem.thread_models import MESSAGE_ROLES

__all__ = ["CheckedMessage", "check_messages", "slice_bounds"]


@dataclass(frozen=True)
class CheckedMessage:
    """One message of an ``add_messages`` call, checked."""

    role: str
    content: str


def _check_one(index: int, item: object) -> CheckedMessage:
    where = f"messages[{index}]"
    if not isinstance(item, Mapping):
        raise InvalidArgumentError(
            where, f"must be a mapping with 'role' and 'content', not {type(item).__name__}"
        )
    extra = sorted(set(item) - {"role", "content"}, key=str)
    if extra:
        raise InvalidArgumentError(where, f"unknown key {extra[0]!r} (only 'role' and 'content')")
    for key in ("role", "content"):
        if key not in item:
            raise InvalidArgumentError(where, f"is missing {key!r}")
    role, content = item["role"], item["content"]
    if not isinstance(role, str) or role not in MESSAGE_ROLES:
        raise InvalidArgumentError(
            f"{where}.role", f"must be one of {', '.join(MESSAGE_ROLES)}; got {role!r:.60}"
        )
    if not isinstance(content, str):
        raise InvalidArgumentError(
            f"{where}.content", f"must be a string, not {type(content).__name__}"
        )
    if len(content) > MAX_CONTENT_LENGTH:
        raise InvalidArgumentError(
            f"{where}.content",
            f"must be at most {MAX_CONTENT_LENGTH} characters; got {len(content)}",
        )
    check_text(f"{where}.content", content)
    if not content.strip():
        raise InvalidArgumentError(f"{where}.content", "must contain some text")
    return CheckedMessage(role, content)


def check_messages(messages: object) -> list[CheckedMessage]:
    """A non-empty list of ``{"role", "content"}`` mappings.

    >>> check_messages([{"role": "user", "content": "hi"}])
    [CheckedMessage(role='user', content='hi')]
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidArgumentError("messages", "must be a list of {'role', 'content'} mappings")
    checked = [_check_one(i, item) for i, item in enumerate(messages)]
    if not checked:
        raise InvalidArgumentError("messages", "must not be empty")
    return checked


def _check_index(argument: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(argument, f"must be an integer or None; got {value!r:.60}")
    return value


# Above every message position: a read backwards from it starts at the thread's end.
NO_END = 2**62


def tail_bounds(start: object, end: object) -> tuple[int, int] | None:
    """``(size, drop)`` when ``messages[start:end]`` is ``messages[-size:]`` without
    its last ``drop`` (a negative ``start``, and no ``end`` or a negative one), so
    it can be read backwards from the thread's end; otherwise None.

    >>> tail_bounds(-3, None), tail_bounds(-5, -2), tail_bounds(-2, 4), tail_bounds(1, None)
    ((3, 0), (5, 2), None, None)
    """
    first, stop = _check_index("start", start), _check_index("end", end)
    if first is None or first >= 0 or (stop is not None and stop >= 0):
        return None
    return -first, 0 if stop is None else -stop


def slice_bounds(start: object, end: object, count: int) -> tuple[int, int]:
    """``(offset, limit)`` of ``messages[start:end]`` over ``count`` messages, as
    Python slices (negative indexes count from the end).

    >>> slice_bounds(-2, None, 5), slice_bounds(1, 3, 5), slice_bounds(4, 1, 5)
    ((3, 2), (1, 2), (4, 0))
    """
    first, stop, _ = slice(_check_index("start", start), _check_index("end", end)).indices(count)
    return first, max(0, stop - first)
