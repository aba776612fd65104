"""Threads, messages, users and agents over named statements (``sql/<dialect>/threads.sql``).

Mixed into :class:`~graphmem.stores.sql_store.SqlStore`, so both SQL dialects
share it; the in-memory store has its own (graphmem.testing.thread_memory).
Messages live in the memory table as records of type ``message`` with two more
columns, ``message_role`` and ``message_position``; no memory statement selects
them, and every memory read filters on the memory-like types.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.texts import optional_text
from graphmem.core.validation import format_time
from graphmem.stores.base import NewMessage, Store
from graphmem.stores.rows import message_from_row, profile_from_row, thread_from_row
from graphmem.thread_models import Message, Profile, ThreadInfo

__all__ = ["SqlThreads"]


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


class SqlThreads(Store):
    """The thread and message methods of :class:`~graphmem.stores.base.Store`, in SQL."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement; returns a cursor."""

    @abstractmethod
    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Execute one named statement once per row of binds."""

    @abstractmethod
    def _id_binds(self, ids: list[str]) -> list[str]:
        """``ids`` as one or more JSON-array binds."""

    @abstractmethod
    def _vector_bind(self, vector: npt.NDArray[np.float32]) -> Any:
        """How an embedding is bound."""

    # threads ----------------------------------------------------------------------

    def insert_thread(self, thread: ThreadInfo) -> None:
        with self.transaction():
            self._run(
                "insert-thread",
                thread_id=thread.thread_id,
                user_id=thread.user_id,
                agent_id=thread.agent_id,
                metadata=_dump(thread.metadata),
                settings=_dump(thread.settings),
                summary=optional_text(thread.summary),
                topics=_dump(list(thread.topics)),
                created_at=format_time(thread.created_at),
            )

    def lock_thread(self, thread_id: str) -> None:
        with self.transaction():  # the caller's, which the lock lasts for
            self._run("lock-thread", thread_id=thread_id).fetchall()

    def get_thread(self, thread_id: str) -> ThreadInfo | None:
        with self.transaction(write=False):
            row = self._run("get-thread", thread_id=thread_id).fetchone()
        return None if row is None else thread_from_row(row)

    def list_threads(
        self, user_id: str | None, agent_id: str | None, limit: int, offset: int
    ) -> list[ThreadInfo]:
        with self.transaction(write=False):
            rows = self._run(
                "list-threads", user_id=user_id, agent_id=agent_id, limit=limit, offset=offset
            ).fetchall()
        return [thread_from_row(r) for r in rows]

    def count_threads(self, user_id: str | None, agent_id: str | None) -> int:
        with self.transaction(write=False):
            row = self._run("count-threads", user_id=user_id, agent_id=agent_id).fetchone()
        return int(row[0])

    def update_thread(self, thread: ThreadInfo) -> None:
        with self.transaction():
            self._run(
                "update-thread",
                thread_id=thread.thread_id,
                metadata=_dump(thread.metadata),
                settings=_dump(thread.settings),
                summary=optional_text(thread.summary),
                topics=_dump(list(thread.topics)),
                summarized_count=thread.summarized_count,
                updated_at=format_time(thread.updated_at),
            )

    # messages ---------------------------------------------------------------------

    def reserve_message_positions(self, thread_id: str, count: int) -> int:
        with self.transaction():
            self._run("reserve-message-positions", thread_id=thread_id, count=count)
            total = self._run("get-message-count", thread_id=thread_id).fetchone()[0]
        return int(total) - count

    def insert_messages(self, messages: Sequence[NewMessage]) -> None:
        rows = [
            {
                "record_id": m.record_id,
                "content": m.content,
                "user_id": m.user_id,
                "agent_id": m.agent_id,
                "thread_id": m.thread_id,
                "metadata": _dump(m.metadata),
                "memory_timestamp": _time(m.timestamp),
                "created_at": format_time(m.created_at),
                "expires_at": _time(m.expires_at),
                "embedding": self._vector_bind(m.embedding),
                "message_role": m.role,
                "message_position": m.position,
            }
            for m in messages
        ]
        with self.transaction():
            self._run_many("insert-message", rows)

    def count_messages(self, thread_id: str, now: datetime) -> int:
        with self.transaction(write=False):
            row = self._run("count-messages", thread_id=thread_id, now=format_time(now))
            return int(row.fetchone()[0])

    def list_messages(
        self, thread_id: str, now: datetime, limit: int, offset: int
    ) -> list[Message]:
        with self.transaction(write=False):
            rows = self._run(
                "list-messages",
                thread_id=thread_id,
                now=format_time(now),
                limit=limit,
                offset=offset,
            ).fetchall()
        return [message_from_row(r) for r in rows]

    def window_messages(self, thread_id: str, now: datetime, upto: int, size: int) -> list[Message]:
        with self.transaction(write=False):
            rows = self._run(
                "list-window-messages",
                thread_id=thread_id,
                now=format_time(now),
                upto=upto,
                window_size=size,
            ).fetchall()
        return [message_from_row(r) for r in reversed(rows)]

    def get_messages(self, record_ids: Sequence[str]) -> dict[str, Message]:
        rows: list[Any] = []
        with self.transaction(write=False):
            for ids in self._id_binds(list(record_ids)):
                rows += self._run("get-messages", record_ids=ids).fetchall()
        return {r[0]: message_from_row(r) for r in rows}

    def message_places(self, thread_id: str, low: int, high: int) -> dict[int, str]:
        with self.transaction(write=False):
            rows = self._run(
                "list-message-places", thread_id=thread_id, low=low, high=high
            ).fetchall()
        return {int(r[0]): r[1] for r in rows}

    def delete_scope(self, thread_id: str | None, user_id: str | None, agent_id: str | None) -> int:
        scope = {"thread_id": thread_id, "user_id": user_id, "agent_id": agent_id}
        with self.transaction():
            self._run("delete-scope-links", **scope)
            deleted = int(self._run("delete-scope-records", **scope).rowcount)
            self._run("delete-scope-threads", **scope)
        return deleted

    # users and agents -------------------------------------------------------------

    def insert_profile(self, profile: Profile) -> None:
        with self.transaction():
            self._run(
                "insert-profile",
                profile_kind=profile.kind,
                profile_id=profile.id,
                information=optional_text(profile.information),
                metadata=_dump(profile.metadata),
                created_at=format_time(profile.created_at),
            )

    def get_profile(self, kind: str, profile_id: str) -> Profile | None:
        with self.transaction(write=False):
            row = self._run("get-profile", profile_kind=kind, profile_id=profile_id).fetchone()
        return None if row is None else profile_from_row(row)

    def list_profiles(self, kind: str, limit: int, offset: int) -> list[Profile]:
        with self.transaction(write=False):
            rows = self._run(
                "list-profiles", profile_kind=kind, limit=limit, offset=offset
            ).fetchall()
        return [profile_from_row(r) for r in rows]

    def count_profiles(self, kind: str) -> int:
        with self.transaction(write=False):
            row = self._run("count-profiles", profile_kind=kind).fetchone()
        return int(row[0])

    def delete_profile(self, kind: str, profile_id: str) -> bool:
        with self.transaction():
            cursor = self._run("delete-profile", profile_kind=kind, profile_id=profile_id)
            return bool(cursor.rowcount > 0)
