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
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.validation import SearchFilters
from graphmem.errors import CLOSED_MESSAGE, BackendError, ClosedError, ConflictError, SchemaError
from graphmem.models import RecordRelation, SchemaPolicy
from graphmem.sqlfiles import (
    Statement,
    bind_names,
    load_pgq_statement,
    load_statements,
)
from graphmem.stores.base import CONFLICT_MESSAGE
from graphmem.stores.rows import relation_from_row
from graphmem.stores.sql_store import SqlStore
from graphmem.stores.sqlite_checkpoint import WAL_BOUND_PAGES, Checkpointer, shut
from graphmem.stores.sqlite_keyword import SqliteKeyword
from graphmem.stores.sqlite_schema import SCHEMA_TABLES, SCHEMA_VERSION, install, refuse_newer
from graphmem.stores.sqlite_session import TEMP_RESET_ROWS, Transaction, make_session
from graphmem.stores.vector_cache import VectorCache

__all__ = ["SCHEMA_TABLES", "SqliteStore"]

BUSY_TIMEOUT_S = 30.0

MMAP_BYTES = 1 << 40
"""How much of the database file SQLite reads through a memory map (``PRAGMA
mmap_size``) instead of a ``read`` call per page: as much as SQLite allows, which
clamps this to its compile-time maximum (``SQLITE_MAX_MMAP_SIZE``, 2 GB less 64 KiB
in common builds). The traversal probes the adjacency and node tables at random;
with the default 2 MB page cache and no map, each probe of a large store was a
system call (bench/traverse.py measured the capped 5-hop level 2x faster mapped),
and a map of 1 GiB left two thirds of a 3 GB store (1M memories, 3M links) to
those calls. Mapped pages are the operating system's file cache, shared and
reclaimable, not the process's heap; writes still go through SQLite's journal."""


def _closed(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` was closed (by another thread closing the handle)."""
    try:
        conn.total_changes  # noqa: B018  (raises on a closed connection)
    except sqlite3.ProgrammingError:
        return True
    return False


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return bool(code & 0xFF in (5, 6))  # SQLITE_BUSY, SQLITE_LOCKED
    return "locked" in str(exc) or "busy" in str(exc)


def _keep_level(wrapper: Statement, prefix: str) -> Statement:
    """``expand-level-keep`` (traverse.sql) with the lowered SQL/PGQ candidates of
    ``select-level-candidates`` in place of its ``level_candidates`` placeholder."""
    candidates = load_pgq_statement("select-level-candidates", prefix, "sqlite")
    sql = wrapper.sql.replace("level_candidates", f"({candidates.sql})", 1)
    return Statement(wrapper.name, sql, wrapper.doc, bind_names(sql), candidates.source)


class SqliteStore(SqliteKeyword, SqlStore):
    """A graphmem store in one SQLite database file (or ``:memory:``).

    Args:
        path: the database file, created on first use, or ``":memory:"``.
        prefix: the validated ``memory_store_id`` that prefixes every object name.
        schema_policy: create missing objects, or require them.
        vector_cache: score searches over an in-process copy of the embeddings
            (:mod:`graphmem.stores.vector_cache`, kept exact through the vector
            log) instead of reading every candidate's embedding from the file.
    """

    dialect = "sqlite"
    _level_upsert = True
    _numbered_read_back = True

    def __init__(
        self,
        path: str | Path,
        prefix: str,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        vector_cache: bool = True,
    ) -> None:
        self._sql = load_statements("sqlite", prefix)
        # The traversal level is SQL/PGQ text shared with Oracle, run here lowered.
        self._pgq = {
            name: load_pgq_statement(name, prefix, "sqlite")
            for name in ("expand-level", "expand-level-uncapped", "bound-level")
        }
        # expand-level-keep: run as assembled here, never as written in traverse.sql.
        self._pgq["expand-level-keep"] = _keep_level(self._sql["expand-level-keep"], prefix)
        self._prefix = prefix
        self._vectors = VectorCache() if vector_cache else None
        self._term_counts: tuple[object, int, dict[str, int]] = (None, 0, {})
        """(keyword index version, memories indexed, {word: memories holding it})."""
        self._word_tokens: dict[str, tuple[str, ...]] = {}
        """{non-ASCII query word: the keyword index's tokens of it} (sqlite_keyword)."""
        self._lock = threading.RLock()
        self._depth = 0
        self._write_tx = Transaction(self, "BEGIN IMMEDIATE", write=True)
        self._read_tx = Transaction(self, "BEGIN DEFERRED", write=False)
        self._temp_grown = False
        """A traversal read back TEMP_RESET_ROWS rows or more: empty the temp
        database at the end of the outermost transaction (sqlite_session)."""
        self._checkpointer: Checkpointer | None = None
        self._shut: Any = None
        self.path = str(path)
        if schema_policy is SchemaPolicy.REQUIRE_EXISTING and self.path != ":memory:":
            # Connecting would create a missing file (and WAL mode would rewrite an
            # empty one): a rejected open must leave the file system as it was.
            target = Path(self.path)
            if not target.is_file() or target.stat().st_size == 0:
                raise SchemaError(
                    f"the store {prefix!r} has no schema in {self.path!r}: the file is "
                    f"{'empty' if target.is_file() else 'missing'} "
                    "(schema_policy=REQUIRE_EXISTING)"
                )
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

    def _traversal_rows(self, count: int) -> None:
        if count >= TEMP_RESET_ROWS:
            self._temp_grown = True

    # connection and schema -------------------------------------------------

    def _setup(self, schema_policy: SchemaPolicy) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            version = self._schema_version()
            refuse_newer(version, self._prefix, self.path)
            if version != SCHEMA_VERSION and schema_policy is SchemaPolicy.REQUIRE_EXISTING:
                found = "no schema" if version is None else f"schema version {version}"
                # install.sql alone makes a store, but cannot reshape an older one's tables
                how = (
                    "create it with SchemaPolicy.CREATE_IF_NECESSARY or `graphmem sql "
                    "--dialect sqlite`"
                    if version is None
                    else "upgrade it by opening it with SchemaPolicy.CREATE_IF_NECESSARY"
                )
                raise SchemaError(
                    f"the store {self._prefix!r} has {found} in {self.path!r}, graphmem "
                    f"needs version {SCHEMA_VERSION} (schema_policy=REQUIRE_EXISTING); {how}"
                )
            # WAL is set only once the store is known to be wanted here (setting it
            # rewrites the file header).
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                # Checkpoints run on a thread of the store (sqlite_checkpoint); the
                # commit's own, at a higher bound, only caps the WAL.
                conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_BOUND_PAGES}")
                self._checkpointer = Checkpointer(self.path)
                self._shut = weakref.finalize(self, shut, self._checkpointer, conn, self._lock)
            if version != SCHEMA_VERSION:
                with self._lock:
                    install(conn, self._prefix)
            make_session(conn, self._prefix)
        except sqlite3.Error as exc:
            raise BackendError(f"cannot prepare the store in {self.path!r}: {exc}") from exc

    def _schema_version(self) -> str | None:
        """The store's schema version; None unless all its tables exist."""
        if self._run("count-schema-tables").fetchone()[0] < SCHEMA_TABLES:
            return None
        row = self._run("get-meta", meta_key="schema_version").fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        with self._lock:
            if self._checkpointer is None:
                self._conn.close()
            else:  # the thread, then the connection (which copies the WAL back)
                self._shut()

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
            except sqlite3.ProgrammingError as exc:  # another thread closed the handle
                raise ClosedError(CLOSED_MESSAGE) from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def transaction(self, write: bool = True) -> Any:
        return self._write_tx if write else self._read_tx

    def _execute(self, sql: str, binds: dict[str, Any]) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, binds)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(CONFLICT_MESSAGE) from exc
        except sqlite3.ProgrammingError as exc:
            if _closed(self._conn):
                raise ClosedError(CLOSED_MESSAGE) from exc
            raise BackendError(f"sqlite3 refused the call: {exc}") from exc
        except OverflowError as exc:
            raise BackendError(f"sqlite3 refused the call: {exc}") from exc
        except sqlite3.Error as exc:
            code = getattr(exc, "sqlite_errorname", "")
            raise BackendError(f"SQLite failed: {exc} ({code}) in {sql[:60]!r}") from exc

    def _run(self, name: str, **binds: Any) -> sqlite3.Cursor:
        stmt = self._pgq[name] if name in self._pgq else self._sql[name]
        stmt.check_binds(binds)
        return self._execute(stmt.sql, binds)

    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        stmt = self._sql[name]
        for row in rows[:1]:
            stmt.check_binds(row)
        try:
            self._conn.executemany(stmt.sql, rows)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(CONFLICT_MESSAGE) from exc
        except sqlite3.Error as exc:
            raise BackendError(f"SQLite failed: {exc}") from exc

    # single-row lookups of the link write path -----------------------------------
    # get-links and get-record-types take a JSON array (json_each per call); one
    # link write needs one link or two memories, read here by point lookups.

    def get_link(self, relation_id: str) -> RecordRelation | None:
        with self.transaction(write=False):
            row = self._run("get-link", relation_id=relation_id).fetchone()
        return None if row is None else relation_from_row(row)

    def get_endpoint_types(self, source_id: str, target_id: str) -> tuple[str | None, str | None]:
        with self.transaction(write=False):
            source_type, target_type = self._run(
                "get-endpoint-types", source_id=source_id, target_id=target_id
            ).fetchone()
        return source_type, target_type

    # encodings ----------------------------------------------------------------

    def _id_binds(self, ids: list[str]) -> list[str]:
        return [json.dumps(ids)]

    def _vector_bind(self, vector: npt.NDArray[np.float32]) -> bytes:
        return np.ascontiguousarray(vector, dtype=np.float32).tobytes()

    # search -------------------------------------------------------------------

    def nearest(
        self,
        filters: SearchFilters,
        vector: npt.NDArray[np.float32],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        # Exact distances in numpy over every candidate: on SQLite this measures
        # faster than scoring inside the database (bench/search.py, sqlite-vec).
        with self.transaction(write=False):
            binds = {**self._use_filter(filters), **filters.owner_binds()}
            if self._vectors is None:
                rows = self._run(
                    "select-search-candidates", include_invalid=int(include_invalid), **binds
                ).fetchall()
                return self._rank_rows(rows, vector, k)
            cache = self._vectors
            self._refresh_vectors(cache)
            if filters.metadata_filter or cache.odd:
                ids = self._run(
                    "select-search-candidate-ids", include_invalid=int(include_invalid), **binds
                ).fetchone()[0]
                slots = cache.slots_of(json.loads(ids))
            else:
                slots = cache.select(binds, include_invalid)
            return cache.nearest(slots, vector, k)

    def _refresh_vectors(self, cache: VectorCache) -> None:
        """Bring the copy of the embeddings up to this read's snapshot (vector_cache)."""
        seen = cache.seen
        last, unread = self._run("get-vector-log-unread", seen=seen or 0).fetchone()
        last = 0 if last is None else int(last)
        # an entry not read yet is gone when fewer are left than numbers since seen
        if seen is None or seen > last or int(unread) < last - seen:
            cache.reset(last, int(self._run("count-memories").fetchone()[0]))
            cursor = self._run("select-all-embeddings")
            while chunk := cursor.fetchmany(4096):
                cache.load(chunk)
        elif last > seen:
            cache.put_many(self._run("select-logged-embeddings", seen=seen).fetchall())
            cache.seen = last
