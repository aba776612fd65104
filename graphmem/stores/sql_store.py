"""What the SQL stores share: every store method written once over named statements.

A dialect store (:class:`~graphmem.stores.sqlite.SqliteStore`,
:class:`~graphmem.stores.oracle.OracleStore`) supplies the connection, the
transaction, ``_run`` / ``_run_many`` and a few encodings (how an id list, a
metadata key and a vector are bound); the statements have the same names and
binds in every dialect, so the methods below serve both.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.embedding import EMBEDDER_NAME_KEY, EMBEDDING_DIM_KEY, check_same_embedder
from graphmem.core.metadata import filterable_entries
from graphmem.core.validation import MAX_COUNT, SearchFilters, format_time
from graphmem.core.vector import cosine_distances, top_k
from graphmem.errors import InvalidArgumentError, SchemaError
from graphmem.models import MemoryRecord, RecordRelation
from graphmem.stores.base import NewMemory
from graphmem.stores.rows import memory_from_row, relation_from_row
from graphmem.stores.sql_jobs import SqlJobs
from graphmem.stores.sql_links import SqlLinks, dump_json, link_binds, optional_time
from graphmem.stores.sql_registry import SqlRegistry
from graphmem.stores.sql_scans import SqlScans
from graphmem.stores.sql_service import SqlService
from graphmem.stores.sql_traversal import SqlTraversal
from graphmem.stores.thread_store import SqlThreads

__all__ = ["SqlStore", "dump_json", "link_binds", "optional_time"]


class SqlStore(SqlLinks, SqlScans, SqlTraversal, SqlRegistry, SqlService, SqlThreads, SqlJobs):
    """A store whose every operation is a named statement of ``sql/<dialect>/``."""

    # dialect hooks ------------------------------------------------------------

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement (dialect folder or sql/pgq/); returns a cursor."""

    @abstractmethod
    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Execute one named statement once per row of binds."""

    @abstractmethod
    def _id_binds(self, ids: list[str]) -> list[str]:
        """``ids`` as one or more JSON-array binds for the ``*_ids`` statements."""

    def _meta_key(self, key: str) -> str:
        """How a metadata key is stored in the metadata side table."""
        return key

    @abstractmethod
    def _vector_bind(self, vector: npt.NDArray[np.float32]) -> Any:
        """How an embedding is bound."""

    # the embedder ---------------------------------------------------------------
    # Read from the store on every use, never cached: another handle may have
    # recorded it, and a rolled-back first write takes its record with it.

    def stored_embedder(self) -> tuple[str | None, int | None]:
        with self.transaction(write=False):
            row = self._run(
                "get-embedder-meta", name_key=EMBEDDER_NAME_KEY, dim_key=EMBEDDING_DIM_KEY
            ).fetchone()
        name, dim = (None, None) if row is None else row
        if dim is not None and not str(dim).isdigit():
            raise SchemaError(f"the store records an unreadable embedding dimension {dim!r}")
        return (None if name is None else str(name)), (None if dim is None else int(dim))

    def use_embedder(self, name: str, dim: int) -> None:
        with self.transaction():
            stored_name, stored_dim = self.stored_embedder()
            if stored_name is None:
                # First vector (or a store from before names were recorded): wait
                # for any other first writer, then read again (lock-meta).
                self._run("lock-meta")
                stored_name, stored_dim = self.stored_embedder()
            check_same_embedder(stored_name, stored_dim, name, dim)
            if stored_dim is None:
                self._run("put-meta", meta_key=EMBEDDING_DIM_KEY, meta_value=str(dim))
            if stored_name is None:
                self._run("put-meta", meta_key=EMBEDDER_NAME_KEY, meta_value=name)

    # memories -------------------------------------------------------------------

    def _memory_binds(self, memory: NewMemory) -> dict[str, Any]:
        return {
            "record_id": memory.record_id,
            "record_type": memory.record_type,
            "content": memory.content,
            "user_id": memory.user_id,
            "agent_id": memory.agent_id,
            "thread_id": memory.thread_id,
            "metadata": dump_json(memory.metadata),
            "memory_timestamp": optional_time(memory.timestamp),
            "created_at": format_time(memory.created_at),
            "expires_at": optional_time(memory.expires_at),
            "embedding": self._vector_bind(memory.embedding),
        }

    def _meta_rows(self, record_id: str, metadata: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"record_id": record_id, "meta_key": self._meta_key(key), "meta_value": value}
            for key, value in filterable_entries(metadata)
        ]

    def insert_memory(self, memory: NewMemory) -> None:
        self.insert_memories([memory])

    def insert_memories(self, memories: Sequence[NewMemory]) -> None:
        with self.transaction():
            self._run_many("insert-memory", [self._memory_binds(m) for m in memories])
            meta = [row for m in memories for row in self._meta_rows(m.record_id, m.metadata)]
            if meta:
                self._run_many("insert-memory-meta", meta)

    def _use_filter(self, filters: SearchFilters) -> dict[str, Any]:
        self._run("reset-filter")
        pairs = [
            {"meta_key": self._meta_key(k), "meta_value": v} for k, v in filters.metadata_pairs()
        ]
        if pairs:
            self._run_many("insert-filter", pairs)
        return filters.binds()

    def get_record_types(self, record_ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        with self.transaction(write=False):
            for ids in self._id_binds(list(record_ids)):
                found.update(self._run("get-record-types", record_ids=ids).fetchall())
        return found

    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        rows: list[Any] = []
        reasons: dict[str, list[RecordRelation]] = {}
        with self.transaction(write=False):
            for ids in self._id_binds(list(record_ids)):
                rows += self._run("get-memories", record_ids=ids).fetchall()
            invalid = [r[0] for r in rows if r[3] == "invalid"]
            for ids in self._id_binds(invalid) if invalid else []:
                for row in self._run("get-lifecycle-links-to", record_ids=ids).fetchall():
                    rel = relation_from_row(row)
                    reasons.setdefault(rel.target_record_id, []).append(rel)
        return {r[0]: memory_from_row(r, reasons.get(r[0], ())) for r in rows}

    def list_memories(
        self,
        filters: SearchFilters,
        include_invalid: bool,
        limit: int,
        offset: int = 0,
        include_expired: bool = False,
    ) -> list[MemoryRecord]:
        with self.transaction(write=False):
            rows = self._run(
                "list-memories",
                include_invalid=int(include_invalid),
                include_expired=int(include_expired),
                limit=limit,
                offset=offset,
                **self._use_filter(filters),
            ).fetchall()
            found = self.get_memories([r[0] for r in rows])
        return [found[r[0]] for r in rows]

    def update_memory(
        self,
        record_id: str,
        content: str,
        metadata: dict[str, Any],
        timestamp: datetime | None,
        embedding: npt.NDArray[np.float32] | None,
    ) -> None:
        with self.transaction():
            if embedding is None:
                vector = self._run("get-memory-embedding", record_id=record_id).fetchone()[0]
            else:
                vector = self._vector_bind(embedding)
            self._run(
                "update-memory",
                record_id=record_id,
                content=content,
                metadata=dump_json(metadata),
                memory_timestamp=optional_time(timestamp),
                embedding=vector,
            )
            self._run("delete-memory-meta", record_id=record_id)
            meta = self._meta_rows(record_id, metadata)
            if meta:
                self._run_many("insert-memory-meta", meta)

    def delete_memory(self, record_id: str) -> bool:
        # The links go first, one by one: the link triggers recompute their targets
        # on plain link DML on every backend, never inside a cascade (install.sql).
        with self.transaction():
            links = self._run(
                "list-links-of-record",
                record_id=record_id,
                relation_type=None,
                limit=MAX_COUNT,
                offset=0,
            )
            doomed = [{"relation_id": r[0]} for r in links.fetchall()]
            if doomed:
                self._run_many("delete-link", doomed)
            return bool(self._run("delete-memory", record_id=record_id).rowcount > 0)

    # search -----------------------------------------------------------------------

    def _rank_rows(
        self, rows: Sequence[Any], vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]]:
        """Exact top ``k`` of ``(record_id, embedding)`` rows by cosine distance."""
        if not rows:
            return []
        blobs = [bytes(r[1]) for r in rows]
        width = len(blobs[0])
        odd = next((i for i, b in enumerate(blobs) if len(b) != width), None)
        if odd is not None:  # written by hand, or by a graphmem that did not check
            raise SchemaError(
                f"the store holds embeddings of different dimensions: memory {rows[0][0]!r} "
                f"has {width // 4}, memory {rows[odd][0]!r} has {len(blobs[odd]) // 4}"
            )
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(rows), width // 4)
        if matrix.shape[1] != vector.shape[0]:
            raise InvalidArgumentError(
                "embedder",
                f"query vector has {vector.shape[0]} dimensions, store has {matrix.shape[1]}",
            )
        return top_k([r[0] for r in rows], cosine_distances(matrix, vector), k)

    def _match_terms(self, terms: Sequence[str]) -> list[list[str]]:
        """The term lists to match, in turn (inside the keyword read): the next is
        tried when one finds fewer than ``k`` records. Here one list, every term."""
        return [list(terms)]

    def _keyword_statement(self, filters: SearchFilters) -> str:
        """The statement of a keyword read under ``filters``."""
        return "select-keyword-hits"

    def _text_query(self, terms: Sequence[str]) -> str:
        """The dialect's full-text query matching any of ``terms`` (plain words)."""
        return " OR ".join(f'"{term}"' for term in terms)

    def keyword(
        self,
        filters: SearchFilters,
        terms: Sequence[str],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        if not terms or k == 0:
            return []
        rows: list[Any] = []
        with self.transaction(write=False):
            plans = self._match_terms(terms)
            if not plans:
                return []
            filter_binds = self._use_filter(filters)
            for matched in plans:
                binds = dict(filter_binds)
                binds.update(
                    text_query=self._text_query(matched), k=k, include_invalid=int(include_invalid)
                )
                name, binds = self._keyword_read(filters, binds)
                rows = self._run(name, **binds).fetchall()
                if len(rows) >= k:
                    break
        return [(str(r[0]), float(r[1])) for r in rows]

    def passing_ids(
        self, record_ids: Sequence[str], filters: SearchFilters, include_invalid: bool
    ) -> set[str]:
        found: set[str] = set()
        with self.transaction(write=False):
            binds = self._use_filter(filters)
            for ids in self._id_binds(list(record_ids)):
                rows = self._run(
                    "select-passing-ids",
                    record_ids=ids,
                    include_invalid=int(include_invalid),
                    **binds,
                ).fetchall()
                found.update(str(r[0]) for r in rows)
        return found

    def _keyword_read(
        self, filters: SearchFilters, binds: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """The statement of a keyword read under ``filters`` and its binds, given
        the filter binds, ``text_query``, ``k`` and ``include_invalid``."""
        return self._keyword_statement(filters), binds
