"""The embedded store: SQLite through the standard library's ``sqlite3``.

Statements come from ``sql/sqlite/``. One connection per store, shared by the
store's threads under a lock; WAL mode lets other processes read while one writes,
and the busy timeout makes writers wait for each other instead of failing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.metadata import filterable_entries
from graphmem.core.validation import SearchFilters, format_time
from graphmem.errors import (
    BackendError,
    ConflictError,
    InvalidArgumentError,
    SchemaError,
)
from graphmem.models import MemoryRecord, RecordRelation, SchemaPolicy
from graphmem.sqlfiles import load_pgq_statement, load_script, load_statements
from graphmem.stores.base import (
    NewLink,
    NewMemory,
    Store,
    memory_from_row,
    relation_from_row,
)

__all__ = ["SqliteStore"]

BUSY_TIMEOUT_S = 30.0
SCHEMA_VERSION = "2"
"""The version install.sql writes; an older store is upgraded by re-running it."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return bool(code & 0xFF in (5, 6))  # SQLITE_BUSY, SQLITE_LOCKED
    return "locked" in str(exc) or "busy" in str(exc)


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _opt_time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


class SqliteStore(Store):
    """A graphmem store in one SQLite database file (or ``:memory:``).

    Args:
        path: the database file, created on first use, or ``":memory:"``.
        prefix: the validated ``memory_store_id`` that prefixes every object name.
        schema_policy: create missing objects, or require them.
    """

    dialect = "sqlite"

    def __init__(
        self,
        path: str | Path,
        prefix: str,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
    ) -> None:
        self._sql = load_statements("sqlite", prefix)
        # The traversal level is SQL/PGQ text shared with Oracle, run here lowered.
        self._pgq = {"expand-level": load_pgq_statement("expand-level", prefix, "sqlite")}
        self._prefix = prefix
        self._lock = threading.RLock()
        self._depth = 0
        self._dim: int | None = None
        self.path = str(path)
        try:
            self._conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise BackendError(f"cannot open {self.path!r}: {exc}") from exc
        try:
            self._setup(schema_policy)
        except BaseException:
            self._conn.close()
            raise

    # connection and schema -------------------------------------------------

    def _setup(self, schema_policy: SchemaPolicy) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
            tables = self._run("count-schema-tables").fetchone()[0]
            version = None
            if tables == 4:
                row = self._run("get-meta", meta_key="schema_version").fetchone()
                version = None if row is None else row[0]
            if version != SCHEMA_VERSION:
                if schema_policy is SchemaPolicy.REQUIRE_EXISTING:
                    found = "no schema" if tables < 4 else f"schema version {version}"
                    raise SchemaError(
                        f"the store {self._prefix!r} has {found} in {self.path!r}, graphmem "
                        f"needs version {SCHEMA_VERSION} (schema_policy=REQUIRE_EXISTING); "
                        "create or upgrade it with SchemaPolicy.CREATE_IF_NECESSARY or "
                        "`graphmem sql --dialect sqlite`"
                    )
                with self._lock:
                    conn.executescript(load_script("sqlite", "install", self._prefix))
            conn.executescript(load_script("sqlite", "session", self._prefix))
            row = self._run("get-meta", meta_key="embedding_dim").fetchone()
            self._dim = None if row is None else int(row[0])
        except sqlite3.Error as exc:
            raise BackendError(f"cannot prepare the store in {self.path!r}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._begin("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
            self._depth = 1
            try:
                yield
                self._execute("COMMIT", {})
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.rollback()
                raise
            finally:
                self._depth = 0

    def _begin(self, sql: str) -> None:
        """Start a transaction, waiting out SQLITE_BUSY up to the busy timeout.

        SQLite answers some lock conflicts with SQLITE_BUSY without calling its
        busy handler (for example while another connection resets the WAL); BEGIN
        has done nothing yet, so trying it again is safe.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        delay = 0.001
        while True:
            try:
                self._conn.execute(sql)
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise BackendError(f"SQLite failed: {exc} in {sql!r}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def transaction(self, write: bool = True) -> Any:
        return self._transaction(write)

    def _execute(self, sql: str, binds: dict[str, Any]) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, binds)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"the change violates a store constraint: {exc}") from exc
        except sqlite3.ProgrammingError as exc:
            raise BackendError(f"sqlite3 refused the call: {exc}") from exc
        except sqlite3.Error as exc:
            code = getattr(exc, "sqlite_errorname", "")
            raise BackendError(f"SQLite failed: {exc} ({code}) in {sql[:60]!r}") from exc

    def _run(self, name: str, **binds: Any) -> sqlite3.Cursor:
        stmt = self._sql[name] if name in self._sql else self._pgq[name]
        stmt.check_binds(binds)
        return self._execute(stmt.sql, binds)

    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        stmt = self._sql[name]
        for row in rows[:1]:
            stmt.check_binds(row)
        try:
            self._conn.executemany(stmt.sql, rows)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"the change violates a store constraint: {exc}") from exc
        except sqlite3.Error as exc:
            raise BackendError(f"SQLite failed: {exc}") from exc

    # memories ---------------------------------------------------------------

    def _check_dim(self, vector: npt.NDArray[np.float32]) -> bytes:
        dim = int(vector.shape[-1])
        if self._dim is None:
            self._run("put-meta", meta_key="embedding_dim", meta_value=str(dim))
            self._dim = dim
        elif dim != self._dim:
            raise InvalidArgumentError(
                "embedder",
                f"produced {dim}-dimensional vectors; the store holds {self._dim} dimensions",
            )
        return np.ascontiguousarray(vector, dtype=np.float32).tobytes()

    def _memory_binds(self, memory: NewMemory) -> dict[str, Any]:
        return {
            "record_id": memory.record_id,
            "record_type": memory.record_type,
            "content": memory.content,
            "user_id": memory.user_id,
            "agent_id": memory.agent_id,
            "thread_id": memory.thread_id,
            "metadata": _dump(memory.metadata),
            "memory_timestamp": _opt_time(memory.timestamp),
            "created_at": format_time(memory.created_at),
            "expires_at": _opt_time(memory.expires_at),
            "embedding": self._check_dim(memory.embedding),
        }

    def insert_memory(self, memory: NewMemory) -> None:
        self.insert_memories([memory])

    def insert_memories(self, memories: Sequence[NewMemory]) -> None:
        with self.transaction():
            self._run_many("insert-memory", [self._memory_binds(m) for m in memories])
            meta = [
                {"record_id": m.record_id, "meta_key": key, "meta_value": value}
                for m in memories
                for key, value in filterable_entries(m.metadata)
            ]
            if meta:
                self._run_many("insert-memory-meta", meta)

    def _write_meta(self, record_id: str, metadata: dict[str, Any]) -> None:
        rows = [
            {"record_id": record_id, "meta_key": key, "meta_value": value}
            for key, value in filterable_entries(metadata)
        ]
        if rows:
            self._run_many("insert-memory-meta", rows)

    def _use_filter(self, filters: SearchFilters) -> dict[str, Any]:
        """Load the metadata filter into the work table; returns the other binds."""
        self._run("reset-filter")
        pairs = [{"meta_key": k, "meta_value": v} for k, v in filters.metadata_pairs()]
        if pairs:
            self._run_many("insert-filter", pairs)
        return filters.binds()

    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        ids = json.dumps(list(record_ids))
        with self.transaction(write=False):
            rows = self._run("get-memories", record_ids=ids).fetchall()
            invalid = [r[0] for r in rows if r[3] == "invalid"]
            reasons: dict[str, list[RecordRelation]] = {}
            if invalid:
                for row in self._run("get-lifecycle-links-to", record_ids=json.dumps(invalid)):
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
                blob = self._run("get-memory-embedding", record_id=record_id).fetchone()[0]
            else:
                blob = self._check_dim(embedding)
            self._run(
                "update-memory",
                record_id=record_id,
                content=content,
                metadata=_dump(metadata),
                memory_timestamp=_opt_time(timestamp),
                embedding=blob,
            )
            self._run("delete-memory-meta", record_id=record_id)
            self._write_meta(record_id, metadata)

    def delete_memory(self, record_id: str) -> bool:
        with self.transaction():
            return self._run("delete-memory", record_id=record_id).rowcount > 0

    # links ------------------------------------------------------------------

    def insert_link(self, link: NewLink) -> None:
        self.insert_links([link])

    def insert_links(self, links: Sequence[NewLink]) -> None:
        rows = [
            {
                "relation_id": link.relation_id,
                "source_id": link.source_id,
                "target_id": link.target_id,
                "relation_type": link.relation_type,
                "opposite_relation_type": link.opposite_relation_type,
                "relation_timestamp": _opt_time(link.timestamp),
                "metadata": _dump(link.metadata),
                "created_at": format_time(link.created_at),
            }
            for link in links
        ]
        with self.transaction():
            self._run_many("insert-link", rows)

    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]:
        with self.transaction(write=False):
            rows = self._run("get-links", relation_ids=json.dumps(list(relation_ids))).fetchall()
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
            return self._run("delete-link", relation_id=relation_id).rowcount > 0

    def list_links(self, record_id: str | None, relation_type: str | None) -> list[RecordRelation]:
        with self.transaction(write=False):
            if record_id is None:
                cursor = self._run("list-links", relation_type=relation_type)
            else:
                cursor = self._run(
                    "list-links-of-record", record_id=record_id, relation_type=relation_type
                )
            rows = cursor.fetchall()
        return [relation_from_row(r) for r in rows]

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
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        return [r[0] for r in rows], matrix.reshape(len(rows), -1)
