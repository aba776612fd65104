"""The store protocol: what :class:`graphmem.GraphMemory` needs from any backend.

It is stated in domain terms (records, links, :meth:`Store.nearest`,
:meth:`Store.expand`, :meth:`Store.transaction`), so a backend need not speak
SQL: :class:`~graphmem.stores.sql_store.SqlStore` implements it over named
statements for SQLite and Oracle, and :class:`graphmem.testing.memory_store.MemoryStore`
over the in-memory reference model.

A store validates nothing a caller passes: :class:`graphmem.GraphMemory` does
that before calling, inside :meth:`Store.transaction` where reads must see the
same state as the write that follows.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from graphmem.core.assemble import LinkedNode
from graphmem.core.validation import SearchFilters
from graphmem.models import MemoryRecord, RecordRelation
from graphmem.stores.job_base import JobStore
from graphmem.stores.registry_base import RegistryStore
from graphmem.stores.service_base import ServiceStore
from graphmem.stores.thread_base import NewMessage, ThreadStore

__all__ = ["CONFLICT_MESSAGE", "LinkedNode", "NewLink", "NewMemory", "NewMessage", "Store"]

CONFLICT_MESSAGE = (
    "the change conflicts with what the store holds (an id or a link that already "
    "exists); nothing was written"
)
"""The message of a ConflictError raised from a database constraint.

:class:`graphmem.GraphMemory` checks ids and links before writing and names the
item; this is what is left for a concurrent writer that slipped in between, and
it never repeats the driver's text (the driver error stays as the ``__cause__``).
"""


@dataclass(frozen=True)
class NewMemory:
    """A validated memory, ready to insert."""

    record_id: str
    record_type: str
    content: str
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    metadata: dict[str, Any]
    timestamp: datetime | None
    created_at: datetime
    expires_at: datetime | None
    embedding: npt.NDArray[np.float32]


@dataclass(frozen=True)
class NewLink:
    """A validated link, ready to insert."""

    relation_id: str
    source_id: str
    target_id: str
    relation_type: str
    opposite_relation_type: str
    timestamp: datetime | None
    metadata: dict[str, Any]
    created_at: datetime


class Store(RegistryStore, ServiceStore, JobStore, ThreadStore, ABC):
    """What :class:`graphmem.GraphMemory` needs from a backend (the prompt registry's
    part: :class:`~graphmem.stores.registry_base.RegistryStore`; the memory service's:
    :class:`~graphmem.stores.service_base.ServiceStore`; threads, messages, users and
    agents: :class:`~graphmem.stores.thread_base.ThreadStore`)."""

    dialect: str

    @abstractmethod
    def transaction(self, write: bool = True) -> AbstractContextManager[None]:
        """One atomic unit: commits on success, rolls back on any exception.

        Nested use joins the outer transaction. ``write=False`` gives a consistent
        read snapshot.
        """

    @abstractmethod
    def close(self) -> None:
        """Release the connection (idempotent)."""

    # the embedder
    @abstractmethod
    def stored_embedder(self) -> tuple[str | None, int | None]:
        """The embedder name and dimension the store records (``None`` where unset)."""

    @abstractmethod
    def use_embedder(self, name: str, dim: int) -> None:
        """Check, in the caller's write transaction, that the store may take vectors of
        embedder ``name`` of ``dim`` dimensions; record both when it has none yet.

        Raises:
            SchemaError: the store records another embedder or dimension.
        """

    # memories
    @abstractmethod
    def insert_memory(self, memory: NewMemory) -> None:
        """Insert; raises ConflictError when the id exists."""

    @abstractmethod
    def get_record_types(self, record_ids: Sequence[str]) -> dict[str, str]:
        """The record type of each existing memory among ``record_ids``."""

    @abstractmethod
    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """The existing memories among ``record_ids``, with ``invalidated_by``."""

    @abstractmethod
    def list_memories(
        self,
        filters: SearchFilters,
        include_invalid: bool,
        limit: int,
        offset: int = 0,
        include_expired: bool = False,
    ) -> list[MemoryRecord]:
        """Memories passing ``filters``, by ``(created_at, record_id)``: ``limit``
        of them after the first ``offset``; expired ones too when ``include_expired``."""

    def scan_memories(self, now: datetime, page: int) -> Iterator[list[MemoryRecord]]:
        """Every memory unexpired at ``now``, and every expired one that is an end of
        a link (an export keeps the link), in the order of :meth:`list_memories`,
        about ``page`` at a time, for a caller that holds a read transaction around
        the whole scan (an export). Stores may override this paging by offsets."""
        filters = SearchFilters(now=now)
        for records in _pages(
            lambda limit, offset: self.list_memories(filters, True, limit, offset, True), page
        ):
            kept = [
                m
                for m in records
                if m.expires_at is None or m.expires_at > now or self.count_links(m.id, None)
            ]
            if kept:
                yield kept

    @abstractmethod
    def update_memory(
        self,
        record_id: str,
        content: str,
        metadata: dict[str, Any],
        timestamp: datetime | None,
        embedding: npt.NDArray[np.float32] | None,
    ) -> None:
        """Overwrite the mutable fields (``embedding=None`` keeps the stored one)."""

    @abstractmethod
    def delete_memory(self, record_id: str) -> bool:
        """Delete with its links; False when it did not exist."""

    # links
    @abstractmethod
    def insert_link(self, link: NewLink) -> None:
        """Insert; raises ConflictError when the relation id exists or the link would
        duplicate a stored one (the same triple, or the same type reversed)."""

    def insert_memories(self, memories: Sequence[NewMemory]) -> None:
        """Insert many memories in one transaction (stores override with batch DML)."""
        with self.transaction():
            for memory in memories:
                self.insert_memory(memory)

    def insert_links(self, links: Sequence[NewLink]) -> None:
        """Insert many links in one transaction; any conflict rolls back all of them."""
        with self.transaction():
            for link in links:
                self.insert_link(link)

    @abstractmethod
    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]:
        """The existing links among ``relation_ids``."""

    def get_link(self, relation_id: str) -> RecordRelation | None:
        """The link with this id, if any (stores may override with a cheaper lookup)."""
        return self.get_links([relation_id]).get(relation_id)

    def get_endpoint_types(self, source_id: str, target_id: str) -> tuple[str | None, str | None]:
        """The record types of two memories, None for a missing one (stores may
        override with a cheaper lookup than :meth:`get_record_types`)."""
        found = self.get_record_types([source_id, target_id])
        return found.get(source_id), found.get(target_id)

    @abstractmethod
    def find_link_conflict(
        self, source_id: str, target_id: str, relation_type: str, exclude_relation_id: str
    ) -> str | None:
        """The id of a link with the same triple, or the same type reversed."""

    @abstractmethod
    def find_link(self, source_id: str, target_id: str, relation_type: str) -> str | None:
        """The id of the link with exactly this directed triple."""

    @abstractmethod
    def update_link(
        self,
        relation_id: str,
        relation_type: str,
        opposite_relation_type: str,
        timestamp: datetime | None,
        metadata: dict[str, Any],
    ) -> None:
        """Overwrite the mutable fields of a link; ``ConflictError`` when the new type
        would duplicate another link (the same triple, or the type reversed)."""

    @abstractmethod
    def delete_link(self, relation_id: str) -> bool:
        """Delete one link; False when it did not exist."""

    @abstractmethod
    def list_links(
        self,
        record_id: str | None,
        relation_type: str | None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[RecordRelation]:
        """Links touching ``record_id`` and of ``relation_type`` (None: any), by
        ``(created_at, relation_id)``: ``limit`` of them (None: all) after the first ``offset``."""

    @abstractmethod
    def count_links(self, record_id: str | None, relation_type: str | None) -> int:
        """How many links :meth:`list_links` pages through for the same ``record_id``
        and ``relation_type``."""

    def scan_links(self, page: int) -> Iterator[list[RecordRelation]]:
        """Every link (both ends are memories of :meth:`scan_memories`), in the order
        of :meth:`list_links`, ``page`` links read at a time (as :meth:`scan_memories`)."""
        return _pages(lambda limit, offset: self.list_links(None, None, limit, offset), page)

    def count_memory_groups(self, now: datetime) -> dict[tuple[str, str, str | None], int]:
        """How many memories unexpired at ``now`` (those :meth:`list_memories` lists)
        there are of each ``(record_type, status, user_id)``, for a caller that
        holds a read transaction. Stores may override this scan with a grouped count."""
        filters = SearchFilters(now=now)
        pages = _pages(
            lambda limit, offset: self.list_memories(filters, True, limit, offset), _COUNT_PAGE
        )
        return dict(Counter((m.record_type, m.status, m.user_id) for page in pages for m in page))

    def count_link_types(self, now: datetime) -> dict[str, int]:
        """How many links of each relation type join two memories unexpired at
        ``now`` (a link to an expired memory is not counted), for a caller that
        holds a read transaction. Stores may override this scan with a grouped count."""
        counts: Counter[str] = Counter()
        for links in self.scan_links(_COUNT_PAGE):
            ends = {i for link in links for i in (link.source_record_id, link.target_record_id)}
            expired = {
                i
                for i, m in self.get_memories(sorted(ends)).items()
                if m.expires_at is not None and m.expires_at <= now
            }
            counts.update(
                link.relation_type
                for link in links
                if link.source_record_id not in expired and link.target_record_id not in expired
            )
        return dict(counts)

    # search
    @abstractmethod
    def nearest(
        self,
        filters: SearchFilters,
        vector: npt.NDArray[np.float32],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        """The ``k`` memories passing ``filters`` nearest to ``vector``, best first
        (``filters.without_user`` / ``without_agent``: only memories without one).

        Returns ``(record_id, cosine distance)`` pairs ordered by distance rounded
        as :func:`graphmem.core.vector.top_k` does, ties by id, so that every
        backend returns the same list. Invalid memories only when
        ``include_invalid``.

        Raises:
            InvalidArgumentError: ``vector`` has another dimension than the stored ones.
        """

    @abstractmethod
    def keyword(
        self,
        filters: SearchFilters,
        terms: Sequence[str],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        """The ``k`` memories passing ``filters`` whose content best matches any of
        ``terms`` (lower-case words, :func:`graphmem.core.fusion.keyword_terms`), best
        first: ``(record_id, score)`` pairs, higher scores better, ties by id.

        How matches are scored is the backend's full-text engine (SQLite: FTS5
        BM25; Oracle: Oracle Text SCORE), so keyword rankings may differ between
        backends. Invalid memories only when ``include_invalid``.
        """

    @abstractmethod
    def passing_ids(
        self, record_ids: Sequence[str], filters: SearchFilters, include_invalid: bool
    ) -> set[str]:
        """Those of ``record_ids`` that :meth:`nearest` and :meth:`keyword` may
        return now: memories passing ``filters``, valid unless ``include_invalid``.
        A search reads its hits again with it after its models ran outside any
        transaction."""

    @abstractmethod
    def expand(
        self,
        roots: Sequence[str],
        filters: SearchFilters,
        hops: int,
        cap: int | None,
    ) -> Iterable[LinkedNode]:
        """The kept nodes of every root's linked-context tree, in rank order per root.

        Each root's tree holds the memories passing ``filters`` within ``hops``
        links (either direction), at most ``cap`` of them (``None``: all), with
        the parent and rank that :func:`graphmem.core.tree.shortest_path_tree`
        defines. Empty when ``roots`` is empty, ``hops`` is 0 or ``cap`` is 0.
        """


_T = TypeVar("_T")
_COUNT_PAGE = 1000


def _pages(read: Callable[[int, int], list[_T]], page: int) -> Iterator[list[_T]]:
    """``read(limit, offset)`` page after page, until a page comes back short."""
    offset = 0
    while True:
        rows = read(page, offset)
        if rows:
            yield rows
        if len(rows) < page:
            return
        offset += len(rows)
