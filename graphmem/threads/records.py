"""The records in a thread's scope: memories written with the thread's user, agent
and thread ids, its searches, and links between them (mixed into
:class:`graphmem.threads.Thread`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from graphmem.asyncpool import async_twin
from graphmem.errors import NotFoundError
from graphmem.models import MemoryRecord, RecordRelation, SearchResult
from graphmem.thread_models import ThreadInfo
from graphmem.threads import context

if TYPE_CHECKING:
    from graphmem.memory import GraphMemory
    from graphmem.threads.handle import Thread

__all__ = ["ThreadRecords"]


class ThreadRecords:
    """Mixed into :class:`graphmem.threads.Thread`."""

    _memory: GraphMemory
    thread_id: str

    if TYPE_CHECKING:

        def info(self) -> ThreadInfo: ...

        def _still(self, seen: ThreadInfo) -> None: ...

    def add_memory(
        self,
        content: str,
        *,
        memory_type: str = "memory",
        memory_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
        ttl_days: float | None = None,
    ) -> str:
        """Store a memory-like record with this thread's user, agent and thread ids
        (see GraphMemory.add_memory); the thread is checked again inside the write,
        so a record never outlives a thread deleted meanwhile."""
        return self._add_memory(content, memory_type, memory_id, metadata, timestamp, ttl_days)

    def _add_memory(
        self,
        content: str,
        memory_type: str = "memory",
        memory_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
        ttl_days: float | None = None,
        inside: Callable[[str], object] | None = None,
        seen: ThreadInfo | None = None,
    ) -> str:
        """:meth:`add_memory`; ``inside(record_id)`` runs in the transaction that
        stores it, and its error stores nothing. ``seen``: the thread as the caller
        read and checked it (None: read now), which must still be stored then."""
        info = self.info() if seen is None else seen
        new = self._memory._new_memory(
            content,
            memory_id=memory_id,
            memory_type=memory_type,
            user_id=info.user_id,
            agent_id=info.agent_id,
            thread_id=self.thread_id,
            metadata=metadata,
            timestamp=timestamp,
            ttl_days=ttl_days,
        )

        def check() -> None:
            self._still(info)
            if inside is not None:
                inside(new.record_id)

        return self._memory._add_checked(new, check)

    def search(
        self,
        query: str,
        *,
        record_types: Iterable[str] | None = None,
        max_results: int | None = None,
        num_hops: int = 0,
        max_linked_results: int | None = 100,
        include_invalid_results: bool = False,
        thread_only: bool = False,
    ) -> list[SearchResult]:
        """Search memory-like records in this thread's user and agent scope (only
        those added in this thread when ``thread_only``) with the thread's search
        config (``max_results`` None: its ``max_results``); see GraphMemory.search.
        Messages are searched by :meth:`get_context_card`, within this thread."""
        info = self.info()
        return self._memory.search(
            query,
            user_id=info.user_id,
            agent_id=info.agent_id,
            thread_id=self.thread_id if thread_only else None,
            record_types=record_types,
            max_results=max_results,
            num_hops=num_hops,
            max_linked_results=max_linked_results,
            include_invalid_results=include_invalid_results,
            search_config=context.search_config(cast("Thread", self), info),
        )

    def _own(self, record_id: str) -> None:
        if self._memory.get_memory(record_id).thread_id != self.thread_id:
            raise NotFoundError(f"memory_id: no memory {record_id!r} in this thread")

    def update_memory(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
    ) -> MemoryRecord:
        """Change a memory of this thread (see GraphMemory.update_memory)."""
        self.info()
        self._own(memory_id)
        return self._memory.update_memory(
            memory_id, content=content, metadata=metadata, timestamp=timestamp
        )

    def delete_memory(self, memory_id: str) -> None:
        """Delete a memory of this thread; its links go too, validity is recomputed."""
        self.info()
        self._own(memory_id)
        self._memory.delete_memory(memory_id)

    def link_records(
        self,
        /,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        **options: Any,
    ) -> str:
        """Link two memory-like records (see GraphMemory.link_records; messages never link)."""
        self.info()
        return self._memory.link_records(
            source_record_id,
            source_record_type,
            target_record_id,
            target_record_type,
            relation_type,
            **options,
        )

    def update_record_link(self, /, relation_id: str, **changes: Any) -> RecordRelation:
        """See GraphMemory.update_record_link."""
        self.info()
        return self._memory.update_record_link(relation_id, **changes)

    def delete_record_link(self, /, relation_id: str | None = None, **triple: Any) -> None:
        """See GraphMemory.delete_record_link."""
        self.info()
        self._memory.delete_record_link(relation_id, **triple)

    # async twins, awaited on the GraphMemory's worker pool

    add_memory_async = async_twin(add_memory)
    search_async = async_twin(search)
    update_memory_async = async_twin(update_memory)
    delete_memory_async = async_twin(delete_memory)
    link_records_async = async_twin(link_records)
    update_record_link_async = async_twin(update_record_link)
    delete_record_link_async = async_twin(delete_record_link)
