"""Users, agents, threads, messages and prompts read from import JSON Lines.

An import checks each such line with :func:`check_extra` as it reads it
(nothing is stored yet), then :func:`graphmem.transfer_extras.write_extras`
writes a batch's checked items inside the batch's transaction, with the vectors
of its messages embedded before. The line format is described in
:mod:`graphmem.core.jsonl`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.core.validation import (
    check_content,
    check_flag,
    check_id,
    check_information,
    check_metadata,
    check_non_negative,
    check_optional_id,
    check_text,
    check_timestamp,
    check_ttl_days,
    expiry,
)
from graphmem.errors import InvalidArgumentError
from graphmem.registry_checks import (
    check_annotations,
    check_description,
    check_prompt_id,
    check_prompt_text,
)
from graphmem.stores.base import NewMessage
from graphmem.stores.registry_base import StoredPrompt, StoredVersion
from graphmem.thread_models import MESSAGE_ROLES, Profile, ThreadInfo
from graphmem.threads.settings import ThreadSettings

__all__ = [
    "EXTRA_KINDS",
    "Extra",
    "LineProblem",
    "check_extra",
    "check_repeats",
]

EXTRA_KINDS = ("user", "agent", "thread", "message", "prompt")
"""The kinds of line besides memories and links, in the order they are written."""
_NO_VECTOR = np.zeros(0, dtype=np.float32)


# import: checks ---------------------------------------------------------------


@dataclass(frozen=True)
class Extra:
    """One checked line: its number, kind, id and the row to store."""

    number: int
    kind: str
    key: str
    value: Any


class LineProblem(Exception):
    """A checked line cannot be stored (turned into an ImportLineError by the import)."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(message)
        self.number = number


def _created(item: Mapping[str, Any], now: datetime) -> datetime:
    """The creation time the line carries (parsed by the line's reader), else ``now``."""
    created = item.get("created_at")
    return created if isinstance(created, datetime) else now


def _expires(item: Mapping[str, Any], now: datetime) -> datetime | None:
    """The expiry the line carries (parsed by the line's reader, kept exactly), else
    its ``ttl_days`` from ``now``."""
    expires = item.get("expires_at")
    if isinstance(expires, datetime):
        return expires
    return expiry(now, check_ttl_days(item.get("ttl_days")))


def _profile(kind: str, item: Mapping[str, Any], now: datetime) -> tuple[str, Any]:
    pid = check_id(f"{kind}_id", item.get(f"{kind}_id"))
    information = check_information(item.get("information"))
    metadata = check_metadata("metadata", item.get("metadata"))
    return pid, Profile(
        kind=kind,
        id=pid,
        information=information,
        metadata=metadata,
        created_at=_created(item, now),
    )


def _settings(value: object) -> dict[str, Any]:
    if value is None:
        return ThreadSettings().to_json()
    if not isinstance(value, Mapping):
        raise InvalidArgumentError("settings", "must be a JSON object")
    known = {f.name for f in fields(ThreadSettings)}
    return ThreadSettings.checked(None, **{k: v for k, v in value.items() if k in known}).to_json()


def _topics(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise InvalidArgumentError("topics", "must be a list of texts")
    return tuple(check_text("topics", t) for t in value)


def _thread(item: Mapping[str, Any], now: datetime) -> tuple[str, Any]:
    tid = check_id("thread_id", item.get("thread_id"))
    summary = item.get("summary")
    if summary is not None and not isinstance(summary, str):
        raise InvalidArgumentError("summary", "must be None or a text")
    count = check_non_negative("message_count", item.get("message_count", 0))
    summarized = check_non_negative("summarized_count", item.get("summarized_count", 0))
    if summarized > count:
        raise InvalidArgumentError("summarized_count", f"must be at most message_count ({count})")
    info = ThreadInfo(
        thread_id=tid,
        user_id=check_optional_id("user_id", item.get("user_id")),
        agent_id=check_optional_id("agent_id", item.get("agent_id")),
        metadata=check_metadata("metadata", item.get("metadata")),
        settings=_settings(item.get("settings")),
        summary=None if summary is None else check_text("summary", summary),
        topics=_topics(item.get("topics")),
        message_count=count,
        summarized_count=summarized,
        # The import makes a new thread: its creation time tells it from an
        # earlier thread of the same id (whose queued extraction jobs skip it).
        created_at=now,
        updated_at=now,
    )
    return tid, info


def _message(item: Mapping[str, Any], now: datetime) -> tuple[str, Any]:
    if "message_id" not in item:  # needed by --resume, and a thread's own ids are kept
        raise InvalidArgumentError("message_id", "is required")
    mid = check_id("message_id", item["message_id"])
    role = item.get("role")
    if role not in MESSAGE_ROLES:
        raise InvalidArgumentError(
            "role", f"must be one of {', '.join(MESSAGE_ROLES)}; got {role!r:.60}"
        )
    if "position" not in item:
        raise InvalidArgumentError("position", "is required (the message's place in its thread)")
    message = NewMessage(
        record_id=mid,
        thread_id=check_id("thread_id", item.get("thread_id")),
        role=str(role),
        position=check_non_negative("position", item["position"]),
        content=check_content(item.get("content")),
        user_id=None,  # the thread's, when written
        agent_id=None,
        metadata=check_metadata("metadata", item.get("metadata")),
        timestamp=check_timestamp("timestamp", item.get("timestamp")),
        created_at=_created(item, now),
        expires_at=_expires(item, now),
        embedding=_NO_VECTOR,
    )
    return mid, message


def _version(pid: str, index: int, value: object, now: datetime) -> StoredVersion:
    where = f"versions[{index}]"
    if not isinstance(value, Mapping) or set(value) - {"vid", "prompt", "archived", "created_at"}:
        raise InvalidArgumentError(where, "must be an object of vid, prompt and archived")
    return StoredVersion(
        prompt_id=pid,
        vid=check_non_negative(f"{where}.vid", value.get("vid")),
        text=check_prompt_text(value.get("prompt"), f"{where}.prompt"),
        archived=check_flag(f"{where}.archived", value.get("archived", False)),
        created_at=check_timestamp(f"{where}.created_at", value.get("created_at")) or now,
    )


def _prompt(item: Mapping[str, Any], now: datetime) -> tuple[str, Any]:
    pid = check_prompt_id(item.get("prompt_id"))
    given = item.get("versions")
    if not isinstance(given, list) or not given:
        raise InvalidArgumentError("versions", "must be a non-empty list")
    versions = [_version(pid, i, v, now) for i, v in enumerate(given)]
    vids = [v.vid for v in versions]
    if len(set(vids)) != len(vids):
        raise InvalidArgumentError("versions", "repeat a vid")
    current = check_non_negative("current_vid", item.get("current_vid", max(vids)))
    if current not in vids:
        raise InvalidArgumentError("current_vid", f"{current} is not among the versions")
    following = check_non_negative("next_vid", item.get("next_vid", max(vids) + 1))
    if following <= max(vids):
        raise InvalidArgumentError("next_vid", f"must be above every vid (>{max(vids)})")
    head = StoredPrompt(
        prompt_id=pid,
        description=check_description(item.get("description")),
        annotations=check_annotations(item.get("annotations")),
        current_vid=current,
        next_vid=following,
        archived=check_flag("archived", item.get("archived", False)),
        purging_since=None,
        created_at=_created(item, now),
        updated_at=now,
        version_count=len(versions),
    )
    return pid, (head, sorted(versions, key=lambda v: v.vid))


def check_extra(number: int, kind: str, item: Mapping[str, Any], now: datetime) -> Extra:
    """The checked row of a user, agent, thread, message or prompt line.

    Raises:
        InvalidArgumentError: a bad value (named).
    """
    if kind in ("user", "agent"):
        key, value = _profile(kind, item, now)
    else:
        key, value = {"thread": _thread, "message": _message, "prompt": _prompt}[kind](item, now)
    return Extra(number, kind, key, value)


def check_repeats(extras: Sequence[Extra]) -> None:
    """No id twice among a batch's lines of one kind (users and agents apart)."""
    first: dict[tuple[str, str], int] = {}
    for extra in extras:
        kind = "record" if extra.kind == "message" else extra.kind
        seen = first.setdefault((kind, extra.key), extra.number)
        if seen != extra.number:
            raise LineProblem(extra.number, f"{extra.kind} {extra.key!r} repeats line {seen}")
