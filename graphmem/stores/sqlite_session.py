"""The embedded store's connection: its transactions, and its temp database.

Each SQLite connection has a temp database of its own, in memory (``session.sql``:
``PRAGMA temp_store = MEMORY``), which holds the traversal's work tables. Deleted
rows leave their pages on the temp database's free list, never returned: after a
traversal of 358,000 rows (1M memories, 10 roots, 5 hops, no cap) it held 16,800
pages (66 MiB) for the rest of the connection's life, and every later commit of
the connection took 0.5 ms instead of 0.03 (a commit's cost grows with the temp
database's pages). So after a traversal that read back at least
:data:`TEMP_RESET_ROWS` rows, the outermost transaction's end empties the temp
database (changing ``temp_store`` drops it whole) and ``session.sql`` makes the
work tables again: about 5 ms, once, after a traversal of a second or more.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from graphmem.errors import BackendError
from graphmem.sqlfiles import load_script

if TYPE_CHECKING:
    from graphmem.stores.sqlite import SqliteStore

__all__ = ["TEMP_RESET_ROWS", "Transaction", "make_session", "release_temp"]

TEMP_RESET_ROWS = 50_000
"""Tree rows read back by one traversal from which the temp database is emptied
afterwards (about 2,200 pages of work tables, 9 MiB, at 1M memories)."""


def make_session(conn: sqlite3.Connection, prefix: str) -> None:
    """Make the connection's work tables (``session.sql``; idempotent)."""
    conn.executescript(load_script("sqlite", "session", prefix))


def release_temp(conn: sqlite3.Connection, prefix: str) -> None:
    """Empty the connection's temp database, then make the work tables again.

    Outside any transaction only. SQLite refuses the change of ``temp_store``
    while a statement still reads a temp table (and then changes nothing): that
    refusal is let pass, the tables stay as they are.
    """
    try:
        conn.execute("PRAGMA temp_store = DEFAULT")  # drops every temp object
    except sqlite3.Error:
        return
    try:
        make_session(conn, prefix)
    except sqlite3.Error as exc:
        raise BackendError(f"cannot make the work tables again: {exc}") from exc


class Transaction:
    """``SqliteStore.transaction()``: one atomic unit, joined by nested uses.

    It holds no state of its own (the depth is the store's), so each store keeps
    one for writes and one for reads. A class rather than a generator-based
    context manager: every link write enters it two or three times, nested, and
    this costs a fraction of ``contextlib.contextmanager``'s per-use work.
    """

    __slots__ = ("_begin_sql", "_store", "_write")

    def __init__(self, store: SqliteStore, begin_sql: str, write: bool) -> None:
        self._store = store
        self._begin_sql = begin_sql
        self._write = write

    def __enter__(self) -> None:
        store = self._store
        store._lock.acquire()
        if store._depth:
            store._depth += 1
            return
        try:
            store._begin(self._begin_sql)
        except BaseException:
            store._lock.release()
            raise
        store._depth = 1

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        store = self._store
        try:
            if store._depth > 1:
                store._depth -= 1
                return
            try:
                if exc_type is None:
                    store._execute("COMMIT", {})
                    if self._write and store._checkpointer is not None:
                        store._checkpointer.committed(store._conn)
            finally:
                # a failed body or a failed COMMIT leaves nothing behind
                if store._conn.in_transaction:
                    store._conn.rollback()
                store._depth = 0
            if store._temp_grown:  # a large traversal ran: give its pages back
                store._temp_grown = False
                release_temp(store._conn, store._prefix)
        finally:
            store._lock.release()
