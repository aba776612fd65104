"""An in-memory :class:`~graphmem.stores.base.Store` over the reference model.

It proves that the store protocol needs no SQL, and gives tests a fast backend:
``GraphMemory(MemoryStore())`` passes the same conformance suite and state
machine as the SQL stores. Memories, links, validity and linked-context trees
are the :class:`~graphmem.testing.model.ReferenceModel`'s; this module keeps only
what the model leaves out (embeddings, timestamps, link metadata) and the
transaction: one lock, and a copy of the state taken when the outermost
transaction starts and put back when it fails.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.embedding import check_same_embedder
from graphmem.core.validation import SearchFilters
from graphmem.errors import BackendError, ConflictError, InvalidArgumentError
from graphmem.models import MemoryRecord, RecordRelation
from graphmem.stores.base import NewLink, NewMemory
from graphmem.testing.memory_jobs import MemoryJobs
from graphmem.testing.memory_registry import MemoryRegistry
from graphmem.testing.memory_search import MemorySearch, model_filters
from graphmem.testing.memory_service import MemoryService
from graphmem.testing.model import (
    LIFECYCLE,
    ModelLink,
    ModelMemory,
    ReferenceModel,
)
from graphmem.testing.thread_memory import MemoryThreads

__all__ = ["MemoryStore"]


@dataclass(frozen=True)
class _Extra:
    """What a memory holds beyond the model: caller timestamp and embedding."""

    timestamp: datetime | None
    embedding: npt.NDArray[np.float32]


@dataclass(frozen=True)
class _LinkExtra:
    timestamp: datetime | None
    metadata: dict[str, Any]


def _conflict(what: str) -> ConflictError:
    return ConflictError(f"the change violates a store constraint: {what}")


class MemoryStore(MemorySearch, MemoryRegistry, MemoryService, MemoryThreads, MemoryJobs):
    """A store that lives in one Python process and is lost when it ends."""

    dialect = "memory"

    def __init__(self) -> None:
        MemoryRegistry.__init__(self)
        self.model = ReferenceModel()
        self._extra: dict[str, _Extra] = {}
        self._link_extra: dict[str, _LinkExtra] = {}
        self._dim: int | None = None
        self._embedder: str | None = None
        self._lock = threading.RLock()
        self._depth = 0
        self._closed = False
        self._init_threads()
        self._init_service()
        self._init_jobs()

    # transactions ---------------------------------------------------------------

    def _state(self) -> tuple[Any, ...]:
        m = self.model
        return (
            dict(m.memories),
            dict(m.links),
            m.graph.copy(),
            dict(self._extra),
            dict(self._link_extra),
            self._dim,
            self._embedder,
            self._registry_state(),
            self._thread_state(),
            self._service_state(),
            self._jobs_state(),
        )

    def _restore(self, state: tuple[Any, ...]) -> None:
        m = self.model
        m.memories, m.links, m.graph, self._extra, self._link_extra = state[:5]
        self._dim, self._embedder = state[5:7]
        self._restore_registry(state[7])
        self._restore_threads(state[8])
        self._restore_service(state[9])
        self._restore_jobs(state[10])

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise BackendError("the memory store is closed")
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            saved = self._state()
            self._depth = 1
            try:
                yield
            except BaseException:
                self._restore(saved)
                raise
            finally:
                self._depth = 0

    def transaction(self, write: bool = True) -> Any:
        return self._transaction()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    # memories -------------------------------------------------------------------

    def stored_embedder(self) -> tuple[str | None, int | None]:
        return self._embedder, self._dim

    def use_embedder(self, name: str, dim: int) -> None:
        with self._transaction():
            check_same_embedder(self._embedder, self._dim, name, dim)
            self._embedder, self._dim = name, dim

    def _check_dim(self, vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        dim = int(vector.shape[-1])
        if self._dim is None:
            self._dim = dim
        elif dim != self._dim:
            raise InvalidArgumentError(
                "embedder",
                f"produced {dim}-dimensional vectors; the store holds {self._dim} dimensions",
            )
        return np.asarray(vector, dtype=np.float32)

    def insert_memory(self, memory: NewMemory) -> None:
        self.insert_memories([memory])

    def insert_memories(self, memories: Sequence[NewMemory]) -> None:
        with self.transaction():
            for m in memories:
                if m.record_id in self.model.memories:
                    raise _conflict(f"record_id {m.record_id!r} exists")
                embedding = self._check_dim(m.embedding)
                self.model.add_memory(
                    ModelMemory(
                        m.record_id,
                        m.record_type,
                        m.content,
                        m.user_id,
                        m.agent_id,
                        m.thread_id,
                        m.metadata,
                        m.created_at,
                        m.expires_at,
                    )
                )
                self._extra[m.record_id] = _Extra(m.timestamp, embedding)

    def _put_extra(
        self, record_id: str, timestamp: datetime | None, embedding: npt.NDArray[np.float32]
    ) -> None:
        self._extra[record_id] = _Extra(timestamp, embedding)

    def _timestamp(self, record_id: str) -> datetime | None:
        return self._extra[record_id].timestamp

    def get_record_types(self, record_ids: Sequence[str]) -> dict[str, str]:
        with self.transaction(write=False):
            found = (self.model.memories.get(i) for i in record_ids)
            return {m.record_id: m.record_type for m in found if m is not None}

    def _record(self, record_id: str) -> MemoryRecord:
        m = self.model.memories[record_id]
        reasons = sorted(
            (
                link
                for link in self.model.links.values()
                if link.target == record_id and link.relation_type in LIFECYCLE
            ),
            key=lambda link: (link.created_at, link.relation_id),
        )
        return MemoryRecord(
            id=m.record_id,
            record_type=m.record_type,
            content=m.content,
            status="invalid" if reasons else "valid",
            user_id=m.user_id,
            agent_id=m.agent_id,
            thread_id=m.thread_id,
            metadata=dict(m.metadata),
            timestamp=self._extra[record_id].timestamp or m.created_at,
            created_at=m.created_at,
            expires_at=m.expires_at,
            invalidated_by=tuple(self._relation(link) for link in reasons),
        )

    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        with self.transaction(write=False):
            return {
                i: self._record(i) for i in dict.fromkeys(record_ids) if i in self.model.memories
            }

    def list_memories(
        self,
        filters: SearchFilters,
        include_invalid: bool,
        limit: int,
        offset: int = 0,
        include_expired: bool = False,
    ) -> list[MemoryRecord]:
        wanted = model_filters(filters)
        if include_expired:
            wanted = replace(wanted, now=datetime.min.replace(tzinfo=timezone.utc))
        with self.transaction(write=False):
            ids = self.model.candidates(wanted, include_invalid)
            ordered = sorted(ids, key=lambda i: (self.model.memories[i].created_at, i))
            return [self._record(i) for i in ordered[offset : offset + limit]]

    def update_memory(
        self,
        record_id: str,
        content: str,
        metadata: dict[str, Any],
        timestamp: datetime | None,
        embedding: npt.NDArray[np.float32] | None,
    ) -> None:
        with self.transaction():
            extra = self._extra[record_id]
            vector = extra.embedding if embedding is None else self._check_dim(embedding)
            self.model.update_memory(record_id, metadata)
            current = self.model.memories[record_id]
            self.model.memories[record_id] = replace(current, content=content)
            self._extra[record_id] = _Extra(timestamp, vector)

    def delete_memory(self, record_id: str) -> bool:
        with self.transaction():
            if record_id not in self.model.memories:
                return False
            for link in self.model.links_of(record_id):
                del self._link_extra[link.relation_id]
            self.model.delete_memory(record_id)
            del self._extra[record_id]
            self._message_info.pop(record_id, None)
            return True

    # links ------------------------------------------------------------------------

    def insert_link(self, link: NewLink) -> None:
        self.insert_links([link])

    def insert_links(self, links: Sequence[NewLink]) -> None:
        with self.transaction():
            for link in links:
                self._check_link(link)
                self.model.add_link(
                    ModelLink(
                        link.relation_id,
                        link.source_id,
                        link.target_id,
                        link.relation_type,
                        link.opposite_relation_type,
                        link.created_at,
                    )
                )
                self._link_extra[link.relation_id] = _LinkExtra(link.timestamp, link.metadata)

    def _check_link(self, link: NewLink) -> None:
        """The constraints a SQL schema enforces on a new link."""
        if link.relation_id in self.model.links:
            raise _conflict(f"relation_id {link.relation_id!r} exists")
        for end in (link.source_id, link.target_id):
            if end not in self.model.memories:
                raise _conflict(f"no memory {end!r}")
        if link.source_id == link.target_id:
            raise _conflict("a link joins two different memories")
        if self.model.link_conflict(link.source_id, link.target_id, link.relation_type):
            raise _conflict(f"a {link.relation_type!r} link joins these memories")

    def _relation(self, link: ModelLink) -> RecordRelation:
        extra = self._link_extra[link.relation_id]
        return RecordRelation(
            id=link.relation_id,
            source_record_id=link.source,
            source_record_type=self.model.memories[link.source].record_type,
            target_record_id=link.target,
            target_record_type=self.model.memories[link.target].record_type,
            relation_type=link.relation_type,
            opposite_relation_type=link.opposite,
            timestamp=extra.timestamp,
            metadata=dict(extra.metadata),
            created_at=link.created_at,
        )

    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]:
        with self.transaction(write=False):
            links = self.model.links
            return {i: self._relation(links[i]) for i in dict.fromkeys(relation_ids) if i in links}

    def find_link_conflict(
        self, source_id: str, target_id: str, relation_type: str, exclude_relation_id: str
    ) -> str | None:
        with self.transaction(write=False):
            ends = {(source_id, target_id), (target_id, source_id)}
            for link in self._ordered(self.model.links.values()):
                if (
                    link.relation_type == relation_type
                    and (link.source, link.target) in ends
                    and link.relation_id != exclude_relation_id
                ):
                    return link.relation_id
            return None

    def find_link(self, source_id: str, target_id: str, relation_type: str) -> str | None:
        with self.transaction(write=False):
            found = self.model.find_link(source_id, target_id, relation_type)
            return None if found is None else found.relation_id

    def update_link(
        self,
        relation_id: str,
        relation_type: str,
        opposite_relation_type: str,
        timestamp: datetime | None,
        metadata: dict[str, Any],
    ) -> None:
        with self.transaction():
            link = self.model.links.get(relation_id)
            if link is not None and self.model.link_conflict(
                link.source, link.target, relation_type, exclude=relation_id
            ):
                raise _conflict(f"a {relation_type!r} link joins these memories")
            self.model.update_link(relation_id, relation_type, opposite_relation_type)
            self._link_extra[relation_id] = _LinkExtra(timestamp, metadata)

    def delete_link(self, relation_id: str) -> bool:
        with self.transaction():
            if relation_id not in self.model.links:
                return False
            self.model.delete_link(relation_id)
            del self._link_extra[relation_id]
            return True

    @staticmethod
    def _ordered(links: Iterable[ModelLink]) -> list[ModelLink]:
        return sorted(links, key=lambda link: (link.created_at, link.relation_id))

    def list_links(
        self,
        record_id: str | None,
        relation_type: str | None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[RecordRelation]:
        with self.transaction(write=False):
            chosen = self._links_of(record_id, relation_type)
            end = None if limit is None else offset + limit
            return [self._relation(link) for link in chosen[offset:end]]

    def count_links(self, record_id: str | None, relation_type: str | None) -> int:
        with self.transaction(write=False):
            return len(self._links_of(record_id, relation_type))

    def _links_of(self, record_id: str | None, relation_type: str | None) -> list[ModelLink]:
        links = self.model.links.values() if record_id is None else self.model.links_of(record_id)
        return [
            link
            for link in self._ordered(links)
            if relation_type is None or link.relation_type == relation_type
        ]
