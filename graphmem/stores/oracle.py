"""The Oracle store: Oracle AI Database 23ai/26ai through python-oracledb (thin mode).

Statements come from ``sql/oracle/`` and, for the graph, ``sql/pgq/`` (the
``expand-level`` GRAPH_TABLE query runs natively, or lowered to plain SQL by
:mod:`graphmem.pgq` when ``use_native_pgq=False``). Values are always bound; the
only text graphmem changes is the validated ``memory_store_id`` prefix.
Connections, transactions and error translation live in
:mod:`graphmem.stores.oracle_session`.

Types (see ``sql/oracle/install.sql``): times are the fixed-format UTC text that
SQLite stores, so binds are the same strings on both backends; metadata is
JSON text in a CLOB, fetched as ``str``; embeddings are ``VECTOR(*, FLOAT32)``,
bound and fetched as ``array.array('f')``. Distances are computed by graphmem
(numpy) over the candidates SQL selects, as for SQLite.
"""

from __future__ import annotations

import array
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.metadata import canonical_scalar, filterable_entries
from graphmem.core.validation import SearchFilters, format_time
from graphmem.errors import InvalidArgumentError, SchemaError
from graphmem.models import MemoryRecord, RecordRelation, SchemaPolicy
from graphmem.sqlfiles import DEFAULT_PREFIX, Statement, load_pgq_statement, load_statements
from graphmem.stores.base import (
    NewLink,
    NewMemory,
    Store,
    memory_from_row,
    relation_from_row,
)
from graphmem.stores.oracle_session import OracleSession, id_lists, vector_bind

__all__ = ["SCHEMA_TABLES", "OracleStore"]

SCHEMA_TABLES = 7
"""Tables and work tables that ``count-schema-tables`` finds in a complete schema."""


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _opt_time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def _meta_key(key: str) -> str:
    """Keys are stored as canonical JSON text: Oracle turns '' into NULL."""
    text = canonical_scalar(key)
    assert text is not None
    return text


class OracleStore(Store):
    """A graphmem store in an Oracle AI Database 23ai/26ai schema.

    Args:
        connection: an ``oracledb.ConnectionPool`` (a connection is acquired per
            transaction), an ``oracledb.Connection`` (shared under a lock), or a
            DSN ``user/password@host:port/service`` (the store opens and closes
            its own connection).
        prefix: the validated ``memory_store_id`` that prefixes every object name.
        schema_policy: create missing objects (``install.sql``), or require them.
        use_native_pgq: send ``GRAPH_TABLE`` as written (default); ``False`` sends
            the plain SQL that :func:`graphmem.pgq.lower` produces, for sessions
            that reject SQL/PGQ.

    Raises:
        BackendError: python-oracledb is missing or the connection fails.
        SchemaError: the server is older than 23.4, or the schema is missing
            under ``REQUIRE_EXISTING``.
    """

    dialect = "oracle"

    def __init__(
        self,
        connection: Any,
        prefix: str = DEFAULT_PREFIX,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        *,
        use_native_pgq: bool = True,
    ) -> None:
        self._sql = load_statements("oracle", prefix)
        self._pgq = load_statements("pgq", prefix)
        self._prefix = prefix
        self._use_native_pgq = use_native_pgq
        self._dim: int | None = None
        self._session = OracleSession(connection, prefix)
        try:
            self._setup(schema_policy)
        except BaseException:
            self._session.close()
            raise

    # connection and schema -------------------------------------------------

    def _setup(self, schema_policy: SchemaPolicy) -> None:
        with self.transaction(write=False):
            tables = int(self._run("count-schema-tables").fetchone()[0])
        if tables < SCHEMA_TABLES:
            if schema_policy is SchemaPolicy.REQUIRE_EXISTING:
                raise SchemaError(
                    f"the store {self._prefix!r} has no complete schema ({tables} of "
                    f"{SCHEMA_TABLES} tables; schema_policy=REQUIRE_EXISTING); run "
                    "sql/oracle/install.sql or use SchemaPolicy.CREATE_IF_NECESSARY"
                )
            self._session.run_script("install")
        with self.transaction(write=False):
            row = self._run("get-meta", meta_key="embedding_dim").fetchone()
        self._dim = None if row is None else int(row[0])

    def uninstall(self) -> None:
        """Drop the graph and every table of this store (``uninstall.sql``), data included.

        Other sessions that used the store's temporary work tables must have
        disconnected first (else ORA-14452, raised as :class:`graphmem.BackendError`).
        """
        self._session.run_script("uninstall")

    def close(self) -> None:
        self._session.close()

    def transaction(self, write: bool = True) -> AbstractContextManager[None]:
        # Oracle reads are consistent per statement (READ COMMITTED); a read-only
        # transaction would forbid the work-table DML that searches need.
        return self._session.transaction()

    # statements -------------------------------------------------------------

    def _statement(self, name: str) -> tuple[Statement, str]:
        if name in self._sql:
            stmt = self._sql[name]
            return stmt, stmt.sql
        stmt = self._pgq[name]
        if self._use_native_pgq:
            return stmt, stmt.sql
        lowered = load_pgq_statement(name, self._prefix, lower_to="oracle")
        return stmt, lowered.sql

    def _run(self, name: str, **binds: Any) -> Any:
        """Execute inside the current transaction; fetch before it ends."""
        stmt, sql = self._statement(name)
        stmt.check_binds(binds)
        return self._session.execute(sql, binds)

    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        stmt, sql = self._statement(name)
        for row in rows:
            stmt.check_binds(row)
        self._session.executemany(sql, rows)

    # memories ---------------------------------------------------------------

    def _check_dim(self, vector: npt.NDArray[np.float32]) -> array.array[float]:
        dim = int(vector.shape[-1])
        if self._dim is None:
            self._run("put-meta", meta_key="embedding_dim", meta_value=str(dim))
            self._dim = dim
        elif dim != self._dim:
            raise InvalidArgumentError(
                "embedder",
                f"produced {dim}-dimensional vectors; the store holds {self._dim} dimensions",
            )
        return vector_bind(vector)

    def insert_memory(self, memory: NewMemory) -> None:
        with self.transaction():
            self._run(
                "insert-memory",
                record_id=memory.record_id,
                record_type=memory.record_type,
                content=memory.content,
                user_id=memory.user_id,
                agent_id=memory.agent_id,
                thread_id=memory.thread_id,
                metadata=_dump(memory.metadata),
                memory_timestamp=_opt_time(memory.timestamp),
                created_at=format_time(memory.created_at),
                expires_at=_opt_time(memory.expires_at),
                embedding=self._check_dim(memory.embedding),
            )
            self._write_meta(memory.record_id, memory.metadata)

    def _write_meta(self, record_id: str, metadata: dict[str, Any]) -> None:
        rows = [
            {"record_id": record_id, "meta_key": _meta_key(key), "meta_value": value}
            for key, value in filterable_entries(metadata)
        ]
        if rows:
            self._run_many("insert-memory-meta", rows)

    def _use_filter(self, filters: SearchFilters) -> dict[str, Any]:
        """Load the metadata filter into the work table; returns the other binds."""
        self._run("reset-filter")
        pairs = [{"meta_key": _meta_key(k), "meta_value": v} for k, v in filters.metadata_pairs()]
        if pairs:
            self._run_many("insert-filter", pairs)
        return filters.binds()

    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        rows: list[Any] = []
        reasons: dict[str, list[RecordRelation]] = {}
        with self.transaction(write=False):
            for ids in id_lists(list(record_ids)):
                rows += self._run("get-memories", record_ids=ids).fetchall()
            invalid = [r[0] for r in rows if r[3] == "invalid"]
            for ids in id_lists(invalid):
                for row in self._run("get-lifecycle-links-to", record_ids=ids).fetchall():
                    rel = relation_from_row(row)
                    reasons.setdefault(rel.target_record_id, []).append(rel)
        return {r[0]: memory_from_row(r, reasons.get(r[0], ())) for r in rows}

    def list_memories(
        self, filters: SearchFilters, include_invalid: bool, limit: int
    ) -> list[MemoryRecord]:
        with self.transaction(write=False):
            rows = self._run(
                "list-memories",
                include_invalid=int(include_invalid),
                limit=limit,
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
                vector = self._check_dim(embedding)
            self._run(
                "update-memory",
                record_id=record_id,
                content=content,
                metadata=_dump(metadata),
                memory_timestamp=_opt_time(timestamp),
                embedding=vector,
            )
            self._run("delete-memory-meta", record_id=record_id)
            self._write_meta(record_id, metadata)

    def delete_memory(self, record_id: str) -> bool:
        # Delete the links explicitly first: the link trigger then recomputes
        # validity for plain link DML, never inside a cascade (see install.sql).
        with self.transaction():
            links = self._run("list-links-of-record", record_id=record_id, relation_type=None)
            doomed = [{"relation_id": r[0]} for r in links.fetchall()]
            if doomed:
                self._run_many("delete-link", doomed)
            return bool(self._run("delete-memory", record_id=record_id).rowcount > 0)

    # links ------------------------------------------------------------------

    def insert_link(self, link: NewLink) -> None:
        with self.transaction():
            self._run(
                "insert-link",
                relation_id=link.relation_id,
                source_id=link.source_id,
                target_id=link.target_id,
                relation_type=link.relation_type,
                opposite_relation_type=link.opposite_relation_type,
                relation_timestamp=_opt_time(link.timestamp),
                metadata=_dump(link.metadata),
                created_at=format_time(link.created_at),
            )

    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]:
        rows: list[Any] = []
        with self.transaction(write=False):
            for ids in id_lists(list(relation_ids)):
                rows += self._run("get-links", relation_ids=ids).fetchall()
        return {r[0]: relation_from_row(r) for r in rows}

    def find_link_conflict(
        self, source_id: str, target_id: str, relation_type: str, exclude_relation_id: str
    ) -> str | None:
        with self.transaction(write=False):
            row = self._run(
                "find-link-conflict",
                source_id=source_id,
                target_id=target_id,
                relation_type=relation_type,
                exclude_relation_id=exclude_relation_id,
            ).fetchone()
        return None if row is None else str(row[0])

    def find_link(self, source_id: str, target_id: str, relation_type: str) -> str | None:
        with self.transaction(write=False):
            row = self._run(
                "find-link-by-triple",
                source_id=source_id,
                target_id=target_id,
                relation_type=relation_type,
            ).fetchone()
        return None if row is None else str(row[0])

    def update_link(
        self,
        relation_id: str,
        relation_type: str,
        opposite_relation_type: str,
        timestamp: datetime | None,
        metadata: dict[str, Any],
    ) -> None:
        with self.transaction():
            self._run(
                "update-link",
                relation_id=relation_id,
                relation_type=relation_type,
                opposite_relation_type=opposite_relation_type,
                relation_timestamp=_opt_time(timestamp),
                metadata=_dump(metadata),
            )

    def delete_link(self, relation_id: str) -> bool:
        with self.transaction():
            return bool(self._run("delete-link", relation_id=relation_id).rowcount > 0)

    def list_links(self, record_id: str | None, relation_type: str | None) -> list[RecordRelation]:
        with self.transaction(write=False):
            if record_id is None:
                cursor = self._run("list-links", relation_type=relation_type)
            else:
                cursor = self._run(
                    "list-links-of-record", record_id=record_id, relation_type=relation_type
                )
            return [relation_from_row(r) for r in cursor.fetchall()]

    # search -----------------------------------------------------------------

    def search_candidates(
        self, filters: SearchFilters, include_invalid: bool
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        with self.transaction(write=False):
            binds = self._use_filter(filters)
            rows = self._run(
                "select-search-candidates", include_invalid=int(include_invalid), **binds
            ).fetchall()
        if not rows:
            return [], np.zeros((0, self._dim or 0), dtype=np.float32)
        matrix = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        return [r[0] for r in rows], matrix
