"""Row conversions shared by the SQL stores: statement columns to records and relations."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from graphmem.core.validation import parse_time
from graphmem.errors import BackendError
from graphmem.models import MemoryRecord, RecordRelation
from graphmem.thread_models import Message, Profile, ThreadInfo

__all__ = [
    "memory_from_row",
    "message_from_row",
    "profile_from_row",
    "relation_from_row",
    "relations_by_key",
    "thread_from_row",
]


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    try:  # graphmem's own text, read on every row of a read-back: the direct parse first
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):  # a DBA's other ISO form (Python 3.10), or no time
        try:
            return parse_time(str(value))
        except ValueError:
            raise BackendError(f"a stored time is not ISO 8601 text: {str(value)[:60]!r}") from None
    if parsed.tzinfo is timezone.utc:
        return parsed
    return parse_time(value)  # another offset, or none (UTC)


def _json(value: Any) -> dict[str, Any]:
    if value is None or value == "{}":
        return {}
    if isinstance(value, dict):
        return value
    loaded = json.loads(value)
    return loaded if isinstance(loaded, dict) else {}


_RELATION_FIELDS = tuple(RecordRelation.model_fields)
_RELATION_FIELD_SET = frozenset(_RELATION_FIELDS)
_set_attr = object.__setattr__
_new = object.__new__
_RELATION_PLAIN = (
    _RELATION_FIELDS
    == (
        "id",
        "source_record_id",
        "source_record_type",
        "target_record_id",
        "target_record_type",
        "relation_type",
        "opposite_relation_type",
        "timestamp",
        "metadata",
        "created_at",
    )
    and not RecordRelation.__pydantic_post_init__
    and RecordRelation.model_config.get("extra") != "allow"
    and all(
        f.alias is None and f.validation_alias is None for f in RecordRelation.model_fields.values()
    )
)
"""RecordRelation has exactly these fields, no aliases, no extra, no post-init: the
fields can be set as ``model_construct`` sets them, without its per-field loop."""


def relation_from_row(row: Sequence[Any]) -> RecordRelation:
    """Columns: relation_id, source id and type, target id and type, relation type,
    opposite, timestamp, metadata, created_at."""
    created_at = _time(row[9])
    assert created_at is not None
    values = {
        "id": row[0],
        "source_record_id": row[1],
        "source_record_type": row[2],
        "target_record_id": row[3],
        "target_record_type": row[4],
        "relation_type": row[5],
        "opposite_relation_type": row[6],
        "timestamp": _time(row[7]),
        "metadata": _json(row[8]),
        "created_at": created_at,
    }
    # Rows come from the store's own constraint-checked tables: skip re-validation
    # (this runs once per linked memory of every search).
    if not _RELATION_PLAIN:
        return RecordRelation.model_construct(**values)
    return _plain_relation(values)


def _plain_relation(values: dict[str, Any]) -> RecordRelation:
    """A relation with these field values set as ``model_construct`` would set
    them (only while ``_RELATION_PLAIN``)."""
    relation = _new(RecordRelation)
    _set_attr(relation, "__dict__", values)
    _set_attr(relation, "__pydantic_fields_set__", set(_RELATION_FIELD_SET))
    _set_attr(relation, "__pydantic_extra__", None)
    _set_attr(relation, "__pydantic_private__", None)
    return relation


def relations_by_key(
    links: Iterable[Sequence[Any]], types: Mapping[str, str]
) -> dict[Any, tuple[Any, RecordRelation]]:
    """The link rows of a traversal's read-back as ``{key: (created_at as stored,
    relation)}``. Columns: key, relation_id, source id, target id, relation type,
    opposite, timestamp, metadata, created_at; the endpoints' types from ``types``.

    As :func:`relation_from_row` row by row, without its intermediate row
    (it runs once per distinct link of every search)."""
    if not _RELATION_PLAIN:
        return {
            r[0]: (r[8], relation_from_row((r[1], r[2], types[r[2]], r[3], types[r[3]], *r[4:])))
            for r in links
        }
    out: dict[Any, tuple[Any, RecordRelation]] = {}
    for key, relation_id, source, target, kind, opposite, stamp, metadata, created in links:
        out[key] = (
            created,
            _plain_relation(
                {
                    "id": relation_id,
                    "source_record_id": source,
                    "source_record_type": types[source],
                    "target_record_id": target,
                    "target_record_type": types[target],
                    "relation_type": kind,
                    "opposite_relation_type": opposite,
                    "timestamp": None if stamp is None else _time(stamp),
                    "metadata": {} if metadata == "{}" else _json(metadata),
                    "created_at": _time(created),
                }
            ),
        )
    return out


def memory_from_row(
    row: Sequence[Any], invalidated_by: Sequence[RecordRelation] = ()
) -> MemoryRecord:
    """Columns: record_id, record_type, content, status, user_id, agent_id,
    thread_id, metadata, memory_timestamp, created_at, expires_at."""
    created_at = _time(row[9])
    assert created_at is not None
    return MemoryRecord(
        id=row[0],
        record_type=row[1],
        content=row[2],
        status=row[3],
        user_id=row[4],
        agent_id=row[5],
        thread_id=row[6],
        metadata=_json(row[7]),
        timestamp=_time(row[8]) or created_at,
        created_at=created_at,
        expires_at=_time(row[10]),
        invalidated_by=tuple(invalidated_by),
    )


def _topics(value: Any) -> tuple[str, ...]:
    loaded = json.loads(value) if isinstance(value, str) else (value or [])
    return tuple(str(t) for t in loaded)


def thread_from_row(row: Sequence[Any]) -> ThreadInfo:
    """Columns: thread_id, user_id, agent_id, metadata, settings, summary, topics,
    message_count, summarized_count, created_at, updated_at."""
    created_at, updated_at = _time(row[9]), _time(row[10])
    assert created_at is not None and updated_at is not None
    return ThreadInfo(
        thread_id=row[0],
        user_id=row[1],
        agent_id=row[2],
        metadata=_json(row[3]),
        settings=_json(row[4]),
        summary=row[5],
        topics=_topics(row[6]),
        message_count=int(row[7]),
        summarized_count=int(row[8]),
        created_at=created_at,
        updated_at=updated_at,
    )


def message_from_row(row: Sequence[Any]) -> Message:
    """The columns of :func:`memory_from_row`, then message_role, message_position."""
    created_at = _time(row[9])
    assert created_at is not None
    return Message(
        id=row[0],
        thread_id=row[6],
        role=row[11],
        content=row[2],
        position=int(row[12]),
        user_id=row[4],
        agent_id=row[5],
        metadata=_json(row[7]),
        timestamp=_time(row[8]) or created_at,
        created_at=created_at,
        expires_at=_time(row[10]),
    )


def profile_from_row(row: Sequence[Any]) -> Profile:
    """Columns: profile_kind, profile_id, information, metadata, created_at."""
    created_at = _time(row[4])
    assert created_at is not None
    return Profile(
        kind=row[0], id=row[1], information=row[2], metadata=_json(row[3]), created_at=created_at
    )
