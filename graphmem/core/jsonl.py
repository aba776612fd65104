"""The JSON Lines exchange format of ``export`` / ``import``: one object per line.

Each line has a ``kind``:

* ``memory``: the keyword arguments of ``GraphMemory.add_memory``;
* ``link``: the arguments of ``link_records`` by name;
* ``user`` / ``agent``: ``user_id`` (``agent_id``), ``information``, ``metadata``
  (as ``add_user`` / ``add_agent`` take them);
* ``thread``: ``thread_id``, ``user_id``, ``agent_id``, ``metadata``, the stored
  ``settings`` (an object), ``summary``, ``topics`` (a list of texts),
  ``message_count`` (messages ever added: the next position) and
  ``summarized_count``;
* ``message``: ``message_id``, ``thread_id``, ``role``, ``content``,
  ``position`` (its place in the thread), ``metadata``, ``timestamp``,
  ``ttl_days``; the thread's line comes first;
* ``prompt``: a registered prompt with all its versions: ``prompt_id``,
  ``description``, ``annotations``, ``current_vid``, ``next_vid`` (the vid the
  next text update takes), ``archived`` and ``versions``, a list of
  ``{"vid", "prompt", "archived"}``.

Exports add fields the library's calls do not take: ``status``, ``created_at``, ``updated_at`` and
``expires_at`` (and ``created_at`` in each prompt version). An import ignores
``status`` (it follows from the links) and ``updated_at``, keeps ``created_at``
(a memory's, link's, message's, user's, agent's and prompt version's: a
link's creation time orders the linked-context tree, so ties break as before;
a thread's line makes a new thread, created at the import) and keeps
``expires_at`` as it is (a memory's and a message's; a line's ``ttl_days``
counts from the import and wins over its ``expires_at``).

An export writes the expired memories that are an end of a link, with their
links: an expired memory is hidden from searches and lists but stays stored
with its links, and a lifecycle link keeps its target invalid after its source
expired. An import stores such a memory line as it is, expired, so the copy
answers as the original does. A message whose ``expires_at`` has passed is not
imported (it is counted as expired).
A file of only ``memory`` and ``link`` lines is the format of earlier versions.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphmem.core.bulk_keys import LINK_KEYS, MEMORY_KEYS
from graphmem.core.validation import check_timestamp, format_time
from graphmem.errors import InvalidArgumentError
from graphmem.models import MemoryRecord, RecordRelation

__all__ = ["KINDS", "Expired", "link_line", "memory_line", "parse_line"]

_READ_ONLY = frozenset({"status", "created_at", "updated_at", "expires_at"})
_PROFILE = frozenset({"information", "metadata"})
KINDS: dict[str, frozenset[str]] = {
    "memory": MEMORY_KEYS,
    "link": LINK_KEYS,
    "user": _PROFILE | {"user_id"},
    "agent": _PROFILE | {"agent_id"},
    "thread": frozenset(
        {
            "thread_id",
            "user_id",
            "agent_id",
            "metadata",
            "settings",
            "summary",
            "topics",
            "message_count",
            "summarized_count",
        }
    ),
    "message": frozenset(
        {"message_id", "thread_id", "role", "content", "position", "metadata", "timestamp"}
        | {"ttl_days"}
    ),
    "prompt": frozenset(
        {"prompt_id", "description", "annotations", "current_vid", "next_vid", "archived"}
        | {"versions"}
    ),
}
"""The keys each kind of line may hold (besides ``kind`` and the read-only fields)."""
_REQUIRED: dict[str, tuple[str, ...]] = {
    "memory": ("content",),
    "link": (
        "source_record_id",
        "source_record_type",
        "target_record_id",
        "target_record_type",
        "relation_type",
    ),
}
"""The keys a memory or link line cannot do without (other kinds check their own)."""
_EXPIRING = ("memory", "message")


class Expired(Exception):
    """A message line's ``expires_at`` has passed: there is nothing to import."""


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def memory_line(record: MemoryRecord) -> str:
    """One memory as a JSON line (no newline).

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> memory_line(MemoryRecord(id="m1", record_type="fact", content="x", status="valid",
    ...     timestamp=t, created_at=t))  # doctest: +NORMALIZE_WHITESPACE
    '{"kind":"memory","memory_id":"m1","memory_type":"fact","content":"x","metadata":{},"timestamp":"2026-01-01T00:00:00.000000+00:00","status":"valid","created_at":"2026-01-01T00:00:00.000000+00:00"}'
    """
    payload: dict[str, Any] = {
        "kind": "memory",
        "memory_id": record.id,
        "memory_type": record.record_type,
        "content": record.content,
    }
    for key in ("user_id", "agent_id", "thread_id"):
        if getattr(record, key) is not None:
            payload[key] = getattr(record, key)
    payload["metadata"] = record.metadata
    payload["timestamp"] = format_time(record.timestamp)
    payload["status"] = record.status
    payload["created_at"] = format_time(record.created_at)
    if record.expires_at is not None:
        payload["expires_at"] = format_time(record.expires_at)
    return _dump(payload)


def link_line(link: RecordRelation) -> str:
    """One link as a JSON line (no newline)."""
    payload: dict[str, Any] = {
        "kind": "link",
        "relation_id": link.id,
        "source_record_id": link.source_record_id,
        "source_record_type": link.source_record_type,
        "target_record_id": link.target_record_id,
        "target_record_type": link.target_record_type,
        "relation_type": link.relation_type,
        "opposite_relation_type": link.opposite_relation_type,
        "metadata": link.metadata,
        "created_at": format_time(link.created_at),
    }
    if link.timestamp is not None:
        payload["timestamp"] = format_time(link.timestamp)
    return _dump(payload)


def parse_line(text: str, now: datetime) -> tuple[str, dict[str, Any]]:
    """``(kind, keyword arguments)`` of one line (see :data:`KINDS`).

    Raises:
        InvalidArgumentError: not JSON, not an object (both named ``line``), an
            unknown kind or key, a memory without ``content``, a link without
            its ends' ids and types or its ``relation_type``.
        Expired: a message whose ``expires_at`` is not after ``now`` (a memory's
            is kept: the import stores it expired, with its links).

    A ``created_at`` and (of a memory or message without ``ttl_days``) an
    ``expires_at`` in the line come back as ``datetime`` values (UTC), which the
    import stores as they are.

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> parse_line('{"kind": "memory", "content": "x", "status": "valid"}', now)
    ('memory', {'content': 'x'})
    >>> _, item = parse_line('{"kind": "memory", "content": "x", '
    ...                      '"expires_at": "2025-12-31T00:00:00.000001Z"}', now)
    >>> item["expires_at"].isoformat()  # passed, kept: the memory is stored expired
    '2025-12-31T00:00:00.000001+00:00'
    """
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgumentError("line", f"is not JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(payload, dict):
        raise InvalidArgumentError("line", "must be a JSON object")
    kind = payload.pop("kind", None)
    if not isinstance(kind, str) or kind not in KINDS:
        names = ", ".join(map(repr, KINDS))
        raise InvalidArgumentError("kind", f"must be one of {names}; got {kind!r:.60}")
    unknown = set(payload) - KINDS[kind] - _READ_ONLY
    if unknown:
        raise InvalidArgumentError(kind, f"unknown keys {', '.join(sorted(map(repr, unknown)))}")
    missing = [key for key in _REQUIRED.get(kind, ()) if key not in payload]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise InvalidArgumentError(", ".join(missing), f"{verb} required")
    expires = payload.pop("expires_at", None)
    payload.pop("status", None)
    payload.pop("updated_at", None)
    created = payload.pop("created_at", None)
    if created is not None:
        payload["created_at"] = check_timestamp("created_at", created)
    if expires is not None and kind in _EXPIRING and "ttl_days" not in payload:
        at = check_timestamp("expires_at", expires)
        assert at is not None
        if kind == "message" and at <= now:
            raise Expired(str(expires))
        payload["expires_at"] = at
    return kind, payload
