"""SqliteStore turns driver errors into graphmem errors, and rolls back (SPEC section 5).

The states come from what a DBA may do to the file beside graphmem: reference
memories from a table of their own, or run the uninstall script while a store
is open. The calls are public API calls.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from graphmem import BackendError, ConflictError, GraphMemory
from graphmem.sqlfiles import load_script

Connect = Callable[[], sqlite3.Connection]


@pytest.fixture
def store(clocked_memory: GraphMemory) -> GraphMemory:
    """a -supersedes-> b, a -supports-> c; b is invalid."""
    m = clocked_memory
    for record_id in ("a", "b", "c"):
        m.add_memory(f"memory {record_id}", memory_id=record_id, metadata={"k": record_id})
    m.link_records("a", "memory", "b", "memory", "supersedes", relation_id="ab")
    m.link_records("a", "memory", "c", "memory", "supports", relation_id="ac")
    return m


def _state(connect: Connect) -> list[tuple[object, ...]]:
    conn = connect()
    return [
        *conn.execute("SELECT record_id, status, content FROM graphmem_memory ORDER BY 1"),
        *conn.execute("SELECT relation_id, source_id, target_id FROM graphmem_link ORDER BY 1"),
        *conn.execute("SELECT * FROM graphmem_memory_meta ORDER BY 1, 2"),
    ]


def test_sqlite_errors_foreign_key_of_dba_table_is_conflict(store: GraphMemory, dba) -> None:
    """The memory's links are deleted first; the refused memory delete brings them back."""
    conn = dba()
    conn.execute(
        "CREATE TABLE dba_review (record_id TEXT NOT NULL REFERENCES graphmem_memory (record_id))"
    )
    conn.execute("INSERT INTO dba_review VALUES ('a')")
    before = _state(dba)
    with pytest.raises(ConflictError):
        store.delete_memory("a")
    assert _state(dba) == before
    assert [r.id for r in store.get_memory("b").invalidated_by] == ["ab"]


def test_sqlite_errors_read_after_uninstall_is_backend_error(store: GraphMemory, dba) -> None:
    dba().executescript(load_script("sqlite", "uninstall", "graphmem"))
    with pytest.raises(BackendError):
        store.get_memory("a")


def test_sqlite_errors_batch_write_after_dropped_table_is_backend_error(
    store: GraphMemory, dba
) -> None:
    """The memory row is written, the metadata rows fail: neither is kept."""
    dba().execute("DROP TABLE graphmem_memory_meta")
    with pytest.raises(BackendError):
        store.add_memory("new", memory_id="n", metadata={"k": "n"})
    ids = [row[0] for row in dba().execute("SELECT record_id FROM graphmem_memory ORDER BY 1")]
    assert ids == ["a", "b", "c"]


def test_sqlite_errors_batch_unique_violation_is_conflict(store: GraphMemory, dba) -> None:
    """The first link is written before the second breaks the unique triple."""
    link = {
        "source_record_id": "b",
        "source_record_type": "memory",
        "target_record_id": "c",
        "target_record_type": "memory",
        "relation_type": "refines",
    }
    before = _state(dba)
    with pytest.raises(ConflictError):
        store.add_record_links([link, link])
    assert _state(dba) == before
