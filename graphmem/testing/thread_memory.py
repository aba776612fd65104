"""Threads, messages, users and agents of :class:`~graphmem.testing.memory_store.MemoryStore`.

Messages are kept in the reference model as records of type ``message`` (so
validity, scope filters and nearest-neighbour search treat them exactly as the
model says); their role and position are kept here, beside the threads and
profiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.core.texts import optional_text
from graphmem.errors import ConflictError
from graphmem.stores.base import NewMessage, Store
from graphmem.testing.model import ModelMemory
from graphmem.thread_models import Message, Profile, ThreadInfo

__all__ = ["MemoryThreads"]


class MemoryThreads(Store):
    """Threads, messages and profiles in dictionaries (state of a MemoryStore)."""

    _threads: dict[str, ThreadInfo]
    _message_info: dict[str, tuple[str, int]]
    _profiles: dict[tuple[str, str], Profile]

    def _init_threads(self) -> None:
        self._threads = {}
        self._message_info = {}
        self._profiles = {}

    def _thread_state(self) -> tuple[Any, ...]:
        return dict(self._threads), dict(self._message_info), dict(self._profiles)

    def _restore_threads(self, state: tuple[Any, ...]) -> None:
        self._threads, self._message_info, self._profiles = state

    # threads ----------------------------------------------------------------------

    def insert_thread(self, thread: ThreadInfo) -> None:
        with self.transaction():
            if thread.thread_id in self._threads:
                raise ConflictError(f"thread_id {thread.thread_id!r} exists")
            counters = {"message_count": 0, "summarized_count": 0, "updated_at": thread.created_at}
            counters["summary"] = optional_text(thread.summary)  # model_copy does not validate
            self._threads[thread.thread_id] = thread.model_copy(update=counters)

    def lock_thread(self, thread_id: str) -> None:
        pass  # one writer at a time already (the store's transaction lock)

    def get_thread(self, thread_id: str) -> ThreadInfo | None:
        with self.transaction(write=False):
            return self._threads.get(thread_id)

    def list_threads(
        self, user_id: str | None, agent_id: str | None, limit: int, offset: int
    ) -> list[ThreadInfo]:
        chosen = self._threads_of(user_id, agent_id)
        return chosen[offset : offset + limit]

    def count_threads(self, user_id: str | None, agent_id: str | None) -> int:
        return len(self._threads_of(user_id, agent_id))

    def _threads_of(self, user_id: str | None, agent_id: str | None) -> list[ThreadInfo]:
        with self.transaction(write=False):
            chosen = [
                t
                for t in self._threads.values()
                if (user_id is None or t.user_id == user_id)
                and (agent_id is None or t.agent_id == agent_id)
            ]
        return sorted(chosen, key=lambda t: (t.created_at, t.thread_id))

    def update_thread(self, thread: ThreadInfo) -> None:
        with self.transaction():
            stored = self._threads.get(thread.thread_id)
            if stored is not None:
                self._threads[thread.thread_id] = thread.model_copy(
                    update={
                        "message_count": stored.message_count,
                        "summary": optional_text(thread.summary),  # model_copy does not validate
                    }
                )

    # messages ---------------------------------------------------------------------

    def reserve_message_positions(self, thread_id: str, count: int) -> int:
        with self.transaction():
            stored = self._threads[thread_id]
            first = stored.message_count
            self._threads[thread_id] = stored.model_copy(update={"message_count": first + count})
            return first

    def insert_messages(self, messages: Sequence[NewMessage]) -> None:
        memories = self._memories()
        with self.transaction():
            for m in messages:
                if m.record_id in memories.model.memories:
                    raise ConflictError(f"record_id {m.record_id!r} exists")
                embedding = memories._check_dim(m.embedding)
                memories.model.add_memory(
                    ModelMemory(
                        m.record_id,
                        "message",
                        m.content,
                        m.user_id,
                        m.agent_id,
                        m.thread_id,
                        m.metadata,
                        m.created_at,
                        m.expires_at,
                    )
                )
                memories._put_extra(m.record_id, m.timestamp, embedding)
                self._message_info[m.record_id] = (m.role, m.position)

    def _message(self, record_id: str) -> Message:
        memories = self._memories()
        m = memories.model.memories[record_id]
        role, position = self._message_info[record_id]
        assert m.thread_id is not None
        return Message(
            id=record_id,
            thread_id=m.thread_id,
            role=role,
            content=m.content,
            position=position,
            user_id=m.user_id,
            agent_id=m.agent_id,
            metadata=dict(m.metadata),
            timestamp=memories._timestamp(record_id) or m.created_at,
            created_at=m.created_at,
            expires_at=m.expires_at,
        )

    def _thread_messages(self, thread_id: str, now: datetime) -> list[str]:
        model = self._memories().model
        found = [
            i
            for i in self._message_info
            if model.memories[i].thread_id == thread_id
            and (model.memories[i].expires_at is None or model.memories[i].expires_at > now)
        ]
        return sorted(found, key=lambda i: self._message_info[i][1])

    def count_messages(self, thread_id: str, now: datetime) -> int:
        with self.transaction(write=False):
            return len(self._thread_messages(thread_id, now))

    def list_messages(
        self, thread_id: str, now: datetime, limit: int, offset: int
    ) -> list[Message]:
        with self.transaction(write=False):
            ids = self._thread_messages(thread_id, now)[offset : offset + limit]
            return [self._message(i) for i in ids]

    def window_messages(self, thread_id: str, now: datetime, upto: int, size: int) -> list[Message]:
        with self.transaction(write=False):
            ids = [
                i for i in self._thread_messages(thread_id, now) if self._message_info[i][1] < upto
            ]
            return [self._message(i) for i in ids[max(0, len(ids) - size) :]]

    def get_messages(self, record_ids: Sequence[str]) -> dict[str, Message]:
        with self.transaction(write=False):
            return {i: self._message(i) for i in record_ids if i in self._message_info}

    def message_places(self, thread_id: str, low: int, high: int) -> dict[int, str]:
        with self.transaction(write=False):
            model = self._memories().model
            return {
                position: i
                for i, (_, position) in self._message_info.items()
                if model.memories[i].thread_id == thread_id and low <= position <= high
            }

    def delete_scope(self, thread_id: str | None, user_id: str | None, agent_id: str | None) -> int:
        memories = self._memories()
        with self.transaction():
            threads = {
                t.thread_id
                for t in self._threads.values()
                if t.thread_id == thread_id
                or (user_id is not None and t.user_id == user_id)
                or (agent_id is not None and t.agent_id == agent_id)
            }
            doomed = [
                m.record_id
                for m in memories.model.memories.values()
                if (
                    m.thread_id is not None and (m.thread_id == thread_id or m.thread_id in threads)
                )
                or (user_id is not None and m.user_id == user_id)
                or (agent_id is not None and m.agent_id == agent_id)
            ]
            for record_id in doomed:
                memories.delete_memory(record_id)
            for t in threads:
                del self._threads[t]
            return len(doomed)

    # users and agents -------------------------------------------------------------

    def insert_profile(self, profile: Profile) -> None:
        with self.transaction():
            key = (profile.kind, profile.id)
            if key in self._profiles:
                raise ConflictError(f"{profile.kind} {profile.id!r} exists")
            self._profiles[key] = profile

    def get_profile(self, kind: str, profile_id: str) -> Profile | None:
        with self.transaction(write=False):
            return self._profiles.get((kind, profile_id))

    def list_profiles(self, kind: str, limit: int, offset: int) -> list[Profile]:
        with self.transaction(write=False):
            chosen = [p for p in self._profiles.values() if p.kind == kind]
        chosen.sort(key=lambda p: (p.created_at, p.id))
        return chosen[offset : offset + limit]

    def count_profiles(self, kind: str) -> int:
        with self.transaction(write=False):
            return sum(1 for p in self._profiles.values() if p.kind == kind)

    def delete_profile(self, kind: str, profile_id: str) -> bool:
        with self.transaction():
            return self._profiles.pop((kind, profile_id), None) is not None

    # the MemoryStore this mixin is part of ------------------------------------------

    def _memories(self) -> Any:
        """``self`` as the MemoryStore (typed loosely: the mixin cannot import it)."""
        return self
