"""The store interface every backend implements, and row conversions they share.

A store executes named statements from ``sql/<dialect>/`` and converts rows to
records. It validates nothing a caller passes: :class:`graphmem.GraphMemory` does
that before calling, inside :meth:`Store.transaction` where reads must see the
same state as the write that follows.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.assemble import LinkedNode
from graphmem.core.tree import TreeEntry
from graphmem.core.validation import SearchFilters, parse_time
from graphmem.models import MemoryRecord, RecordRelation

__all__ = ["LinkedNode", "NewLink", "NewMemory", "Store", "memory_from_row", "relation_from_row"]


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


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    return parse_time(str(value))


def _json(value: Any) -> dict[str, Any]:
    if value is None or value == "{}":
        return {}
    if isinstance(value, dict):
        return value
    loaded = json.loads(value)
    return loaded if isinstance(loaded, dict) else {}


def relation_from_row(row: Sequence[Any]) -> RecordRelation:
    """Columns: relation_id, source id and type, target id and type, relation type,
    opposite, timestamp, metadata, created_at."""
    created_at = _time(row[9])
    assert created_at is not None
    # Rows come from the store's own constraint-checked tables: skip re-validation
    # (this runs once per linked memory of every search).
    return RecordRelation.model_construct(
        id=row[0],
        source_record_id=row[1],
        source_record_type=row[2],
        target_record_id=row[3],
        target_record_type=row[4],
        relation_type=row[5],
        opposite_relation_type=row[6],
        timestamp=_time(row[7]),
        metadata=_json(row[8]),
        created_at=created_at,
    )


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


class Store(ABC):
    """What :class:`graphmem.GraphMemory` needs from a backend."""

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
        self, filters: SearchFilters, include_invalid: bool, limit: int
    ) -> list[MemoryRecord]:
        """Memories passing ``filters``, oldest first."""

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
        """Insert; raises ConflictError when the relation id exists."""

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
        """Overwrite the mutable fields of a link."""

    @abstractmethod
    def delete_link(self, relation_id: str) -> bool:
        """Delete one link; False when it did not exist."""

    @abstractmethod
    def list_links(self, record_id: str | None, relation_type: str | None) -> list[RecordRelation]:
        """Links touching ``record_id`` and of ``relation_type`` (None: any), oldest first."""

    # search
    @abstractmethod
    def search_candidates(
        self, filters: SearchFilters, include_invalid: bool
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Ids and embeddings of the memories passing the filters."""

    # traversal: the level loop is the same for every store --------------------

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement (dialect folder or sql/pgq/); returns a cursor."""

    @abstractmethod
    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Execute one named statement once per row of binds."""

    @abstractmethod
    def _use_filter(self, filters: SearchFilters) -> dict[str, Any]:
        """Load the metadata filter into its work table; returns the other filter binds."""

    def linked_context(
        self,
        root_ids: Sequence[str],
        filters: SearchFilters,
        num_hops: int,
        max_linked_results: int | None,
    ) -> Iterator[LinkedNode]:
        """The kept nodes of every root's tree (docs/semantics.md section 3), in rank order
        per root."""
        if not root_ids or num_hops == 0 or max_linked_results == 0:
            return iter(())
        with self.transaction(write=False):
            binds = self._use_filter(filters)
            self._grow_trees(root_ids, binds, num_hops, max_linked_results)
            rows = self._run("select-linked-context").fetchall()
        return (
            LinkedNode(
                root_id=r[0],
                entry=TreeEntry(
                    node=r[1], parent=r[2], relation_id=r[5], created_at=r[4], depth=int(r[3])
                ),
                relation=relation_from_row(r[5:]),
            )
            for r in rows
        )

    def _grow_trees(
        self, root_ids: Sequence[str], binds: dict[str, Any], num_hops: int, cap: int | None
    ) -> None:
        """Fill the work tables one level per ``expand-level`` (see traverse.sql).

        Depth leads the rank, so a root stops expanding at the level where it
        reaches ``cap`` nodes; that level is trimmed to the nodes that fit, and the
        loop ends when every root is full or a level reaches nothing.
        """
        self._run("reset-traversal-reached")
        self._run("reset-traversal-roots")
        roots = [{"root_id": r} for r in root_ids]
        self._run_many("insert-traversal-root", roots)
        self._run_many("open-traversal-root", roots)
        counts = dict.fromkeys(root_ids, 0)
        open_roots = len(roots)
        for depth in range(1, num_hops + 1):
            self._run("expand-level", depth=depth, **binds)
            reached = self._run("count-level", depth=depth).fetchall()
            if not reached:
                return
            full: list[dict[str, Any]] = []
            for root_id, count in sorted(reached):
                before = counts[root_id]
                counts[root_id] = before + int(count)
                if cap is not None and counts[root_id] >= cap:
                    full.append({"root_id": root_id, "depth": depth, "keep": cap - before})
            if full:
                self._run_many("trim-traversal-root", full)
                self._run_many("close-traversal-root", [{"root_id": f["root_id"]} for f in full])
                open_roots -= len(full)
            if open_roots == 0:
                return
