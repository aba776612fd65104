"""The threads part of the store protocol (:class:`~graphmem.stores.base.Store`).

Threads with their messages (records of type ``message`` that also carry a role
and a position), and users and agents (profiles). :class:`graphmem.GraphMemory`
checks what it passes and calls these methods inside :meth:`Store.transaction`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.thread_models import Message, Profile, ThreadInfo

__all__ = ["NewMessage", "ThreadStore"]


@dataclass(frozen=True)
class NewMessage:
    """A validated message with its position, ready to insert."""

    record_id: str
    thread_id: str
    role: str
    position: int
    content: str
    user_id: str | None
    agent_id: str | None
    metadata: dict[str, Any]
    timestamp: datetime | None
    created_at: datetime
    expires_at: datetime | None
    embedding: npt.NDArray[np.float32]


class ThreadStore(ABC):
    """The thread, message and profile methods every store implements."""

    # threads and messages

    @abstractmethod
    def insert_thread(self, thread: ThreadInfo) -> None:
        """Insert a thread (message counters start at 0); ConflictError when the id exists."""

    @abstractmethod
    def lock_thread(self, thread_id: str) -> None:
        """Inside a write: keep other writers off the thread's row until the
        transaction ends, before reading the row to decide its update (a store
        whose writers are serialized already has nothing to do)."""

    @abstractmethod
    def get_thread(self, thread_id: str) -> ThreadInfo | None:
        """The thread, or None."""

    @abstractmethod
    def list_threads(
        self, user_id: str | None, agent_id: str | None, limit: int, offset: int
    ) -> list[ThreadInfo]:
        """Threads of ``user_id`` / ``agent_id`` (None: any), by ``(created_at, thread_id)``."""

    @abstractmethod
    def count_threads(self, user_id: str | None, agent_id: str | None) -> int:
        """How many threads :meth:`list_threads` pages through for the same filters."""

    @abstractmethod
    def update_thread(self, thread: ThreadInfo) -> None:
        """Overwrite metadata, settings, summary, topics, summarized_count and updated_at."""

    @abstractmethod
    def reserve_message_positions(self, thread_id: str, count: int) -> int:
        """Count ``count`` new messages into the thread; returns the first new position.

        Call it in the write transaction that inserts the messages: concurrent
        writers of one thread get disjoint positions.
        """

    @abstractmethod
    def insert_messages(self, messages: Sequence[NewMessage]) -> None:
        """Insert messages (records of type ``message``); ConflictError when an id exists."""

    @abstractmethod
    def count_messages(self, thread_id: str, now: datetime) -> int:
        """How many messages of the thread have not expired at ``now``."""

    @abstractmethod
    def list_messages(
        self, thread_id: str, now: datetime, limit: int, offset: int
    ) -> list[Message]:
        """The thread's unexpired messages by position: ``limit`` after the first ``offset``."""

    @abstractmethod
    def window_messages(self, thread_id: str, now: datetime, upto: int, size: int) -> list[Message]:
        """The last ``size`` messages of the thread unexpired at ``now`` whose
        position is below ``upto``, by position (an extraction's window)."""

    @abstractmethod
    def get_messages(self, record_ids: Sequence[str]) -> dict[str, Message]:
        """The existing messages among ``record_ids``."""

    @abstractmethod
    def message_places(self, thread_id: str, low: int, high: int) -> dict[int, str]:
        """The ids of the thread's messages, expired ones too, at the positions from
        ``low`` to ``high`` (both included), by position."""

    @abstractmethod
    def delete_scope(self, thread_id: str | None, user_id: str | None, agent_id: str | None) -> int:
        """Delete a scope: the thread ``thread_id``, or every thread and record of
        ``user_id`` / ``agent_id`` (records in those threads too); links first,
        validity recomputed. Returns the number of records (memories and messages)
        deleted."""

    # users and agents

    @abstractmethod
    def insert_profile(self, profile: Profile) -> None:
        """Insert a user or an agent; ConflictError when it exists."""

    @abstractmethod
    def get_profile(self, kind: str, profile_id: str) -> Profile | None:
        """The user or agent, or None."""

    @abstractmethod
    def list_profiles(self, kind: str, limit: int, offset: int) -> list[Profile]:
        """Users or agents by ``(created_at, id)``."""

    @abstractmethod
    def count_profiles(self, kind: str) -> int:
        """How many users or agents :meth:`list_profiles` pages through."""

    @abstractmethod
    def delete_profile(self, kind: str, profile_id: str) -> bool:
        """Forget a user or agent (not its records); False when it did not exist."""
