"""Schema version 6: what a link write changes on disk, and the upgrade of a version 5 store.

A write transaction appends every b-tree page it changed to the WAL; the frames'
page numbers, mapped to their b-trees through the dbstat table, show which
structures one link write touched.
"""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.stores.sqlite_schema import SCHEMA_VERSION

_V5_INSTALL = Path(__file__).parent / "data" / "sqlite_install_v5.sql"
_CREATED = "2026-01-01T00:00:00.000000+00:00"


def _wal_pages(wal: Path, start: int, page_size: int) -> tuple[list[int], int]:
    """Page numbers of the WAL frames from byte ``start`` on, and the end offset."""
    data = wal.read_bytes()
    offset, pages = max(start, 32), []
    while offset + 24 + page_size <= len(data):
        pages.append(struct.unpack(">I", data[offset : offset + 4])[0])
        offset += 24 + page_size
    return pages, offset


def _btrees_written(memory: GraphMemory, path: Path, write: object) -> set[str]:
    conn = memory._store._conn  # type: ignore[attr-defined]
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    wal = Path(f"{path}-wal")
    _, start = _wal_pages(wal, 0, page_size)
    assert callable(write)
    write()
    pages, _ = _wal_pages(wal, start, page_size)
    owner = dict(conn.execute("SELECT pageno, name FROM dbstat").fetchall())
    return {str(owner.get(p, "?")) for p in pages}


def test_link_writes_leave_the_sequence_and_the_notes_alone(tmp_path: Path) -> None:
    path = tmp_path / "pages.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        for rid in ("a", "b"):
            memory.add_memory(f"memory {rid}", memory_id=rid)
        touched = _btrees_written(
            memory, path, lambda: memory.link_records("a", "memory", "b", "memory", "supersedes")
        )
        assert memory.get_memory("b").status == "invalid"
        # The link, its indexes, both adjacency rows, the target's row and its log entry:
        assert {"graphmem_link", "graphmem_adjacency", "graphmem_memory"} <= touched
        assert "graphmem_vector_log" in touched
        # ... but not AUTOINCREMENT's counter, nor the empty REPLACE notes.
        assert "sqlite_sequence" not in touched
        assert "graphmem_adjacency_recheck" not in touched
        rid = memory.list_record_links("a")[0].id
        touched = _btrees_written(
            memory, path, lambda: memory.update_record_link(rid, relation_type="supports")
        )
        assert memory.get_memory("b").status == "valid"
        assert "sqlite_sequence" not in touched


def test_newest_vector_log_entry_stays_so_numbers_keep_rising(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        for rid in ("a", "b", "c"):
            memory.add_memory(f"memory {rid}", memory_id=rid)
    conn = sqlite3.connect(path)
    try:
        newest = conn.execute("SELECT MAX(seq) FROM graphmem_vector_log").fetchone()[0]
        with pytest.raises(sqlite3.IntegrityError, match="newest vector log entry stays"):
            conn.execute("DELETE FROM graphmem_vector_log")
        conn.execute("DELETE FROM graphmem_vector_log WHERE seq < ?", (newest,))
        conn.commit()
        assert conn.execute("SELECT seq FROM graphmem_vector_log").fetchall() == [(newest,)]
    finally:
        conn.close()
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        memory.add_memory("memory d", memory_id="d")
        assert [r.id for r in memory.search("memory d", max_results=1)] == ["d"]
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq, record_id FROM graphmem_vector_log").fetchall()
        assert rows[0][0] == newest and rows[-1] == (newest + 1, "d")
    finally:
        conn.close()


def _v5_store(path: Path) -> None:
    """A store made by version 5's script: three memories, a supersedes link, and
    a vector log whose newest entries a DBA deleted (AUTOINCREMENT counted past them)."""
    conn = sqlite3.connect(path)
    conn.executescript(_V5_INSTALL.read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(rid, f"memory {rid}", _CREATED) for rid in ("a", "b", "c")],
    )
    conn.execute(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES ('r1', 'a', 'b', 'supersedes', "
        "'is_superseded_by', ?)",
        (_CREATED,),
    )
    conn.execute("DELETE FROM graphmem_vector_log WHERE seq > 2")
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == ("5",)
    assert conn.execute("SELECT seq FROM sqlite_sequence").fetchall() == [(4,)]
    conn.close()


def _objects(path: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        return {(str(t), str(n)) for t, n in rows.fetchall()}
    finally:
        conn.close()


def _adjacency(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        # the columns of version 5 (version 8 adds each row's link number)
        return conn.execute(
            "SELECT node_no, created_at, relation_id, other_no FROM graphmem_adjacency "
            "ORDER BY 1, 2, 3"
        ).fetchall()
    finally:
        conn.close()


def test_v5_store_is_upgraded_keeping_the_log_numbers(tmp_path: Path) -> None:
    old = tmp_path / "v5.db"
    _v5_store(old)
    adjacency = _adjacency(old)
    assert len(adjacency) == 2
    with GraphMemory(old) as memory:
        assert _adjacency(old) == adjacency
        assert memory.get_memory("b").status == "invalid"
        assert [r.id for r in memory.list_record_links("a")] == ["r1"]
        memory.delete_record_link("r1")
        assert memory.get_memory("b").status == "valid"
        assert _adjacency(old) == []
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    assert _objects(old) == _objects(fresh)
    conn = sqlite3.connect(old)
    try:
        version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,)
        log = conn.execute("SELECT seq, record_id FROM graphmem_vector_log").fetchall()
        # Entries 1-2 kept, 4 holds AUTOINCREMENT's count, 5 is the status change above.
        assert log == [(1, "a"), (2, "b"), (4, ""), (5, "b")]
        assert conn.execute("SELECT COUNT(*) FROM sqlite_sequence").fetchone() == (0,)
        table = "SELECT sql FROM sqlite_master WHERE name = 'graphmem_vector_log'"
        assert "AUTOINCREMENT" not in conn.execute(table).fetchone()[0].upper()
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
