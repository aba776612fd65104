"""SQLite keyword documents are numbered by user (schema version 7): each user's
memories hold one range of doc_ids, whatever writes them, and a version 6 store
is renumbered on open without changing any search's results."""

import random
import sqlite3
from pathlib import Path

import pytest

from graphmem import ConflictError, GraphMemory, NotFoundError
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.testing.model import ManualClock

RANGE = 1 << 32
WORDS = ["kestrel", "heron", "finch", "wren", "owl", "lark", "crow", "rook", "swift", "tern"]
V6_INSTALL = Path(__file__).parents[1] / "data" / "sqlite_install_v6.sql"


def assert_ranges_hold(path: Path) -> None:
    """Every memory has one document, in its user's range, holding its content."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT m.record_id, m.user_id, m.content, t.doc_id, u.user_no, f.content "
            "FROM graphmem_memory m "
            "LEFT JOIN graphmem_memory_text t ON t.record_id = m.record_id "
            "LEFT JOIN graphmem_keyword_user u ON u.user_id = m.user_id "
            "LEFT JOIN graphmem_memory_fts f ON f.rowid = t.doc_id"
        ).fetchall()
        texts = conn.execute("SELECT COUNT(*) FROM graphmem_memory_text").fetchone()[0]
        docs = conn.execute("SELECT COUNT(*) FROM graphmem_memory_fts").fetchone()[0]
    finally:
        conn.close()
    assert texts == docs == len(rows)
    for record_id, user_id, content, doc_id, user_no, indexed in rows:
        assert (user_no is None) == (user_id is None), record_id
        start = (user_no or 0) * RANGE
        assert start < doc_id < start + RANGE, (record_id, user_id, doc_id)
        assert indexed == content, record_id


def _rows(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [
        {
            "content": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))),
            "memory_id": f"m{i:03d}",
            "user_id": rng.choice(["u1", "u2", "u3", None]),
        }
        for i in range(count)
    ]


def test_every_write_keeps_documents_in_their_users_range(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    memory = GraphMemory(path, clock=ManualClock())
    memory.add_memories(_rows(60, 1))
    memory.add_memory("owl at dusk", memory_id="late", user_id="u9")
    memory.delete_memory("m004")
    assert_ranges_hold(path)
    conn = sqlite3.connect(path)
    statements = [
        "UPDATE graphmem_memory SET user_id = 'u2' WHERE record_id = 'm001'",
        "UPDATE graphmem_memory SET user_id = NULL WHERE record_id = 'm002'",
        "UPDATE graphmem_memory SET user_id = 'new', content = 'tern tern' "
        "WHERE record_id = 'm003'",
        "UPDATE graphmem_memory SET content = 'rook' WHERE record_id = 'm005'",
        "REPLACE INTO graphmem_memory (record_id, record_type, content, user_id, created_at) "
        "SELECT record_id, record_type, 'wren finch', 'u1', created_at "
        "FROM graphmem_memory WHERE record_id = 'm006'",
        "DELETE FROM graphmem_memory WHERE user_id = 'u3'",
    ]
    for statement in statements:
        conn.execute(statement)
        conn.commit()
        assert_ranges_hold(path)
    conn.close()
    # the user filter still finds exactly that user's matches, after DML by another connection
    found = memory.search("tern", strategy="keyword", user_id="new", max_results=10)
    assert [r.id for r in found] == ["m003"]
    everyone = memory.search("wren finch", strategy="keyword", max_results=100)
    scoped = memory.search("wren finch", strategy="keyword", user_id="u1", max_results=100)
    assert [r.id for r in scoped] == [r.id for r in everyone if r.record.user_id == "u1"]
    memory.close()


def test_a_full_range_refuses_the_write(tmp_path: Path) -> None:
    path = tmp_path / "f.db"
    memory = GraphMemory(path, clock=ManualClock())
    memory.add_memory("kestrel", memory_id="a", user_id="u")
    conn = sqlite3.connect(path)
    user_no = conn.execute("SELECT user_no FROM graphmem_keyword_user").fetchone()[0]
    last = user_no * RANGE + RANGE - 1
    conn.execute("UPDATE graphmem_memory_fts SET rowid = ?", (last,))
    conn.execute("UPDATE graphmem_memory_text SET doc_id = ?", (last,))
    conn.commit()
    with pytest.raises(ConflictError):
        memory.add_memory("heron", memory_id="b", user_id="u")
    with pytest.raises(NotFoundError):
        memory.get_memory("b")
    # another user's range is not full
    memory.add_memory("heron", memory_id="c", user_id="v")
    assert [r.id for r in memory.search("heron", strategy="keyword", user_id="v")] == ["c"]
    conn.close()
    memory.close()


def _v6_store(path: Path, rows: list[dict]) -> None:
    """A version 6 store holding ``rows`` (written as main's version 6 code writes them)."""
    conn = sqlite3.connect(path)
    conn.executescript(V6_INSTALL.read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, created_at) "
        "VALUES (:memory_id, 'memory', :content, :user_id, '2026-01-01T00:00:00.000000+00:00')",
        rows,
    )
    conn.commit()
    conn.close()


def test_a_version_6_store_is_renumbered_on_open(tmp_path: Path) -> None:
    rows = _rows(80, 2)
    old, fresh = tmp_path / "v6.db", tmp_path / "v7.db"
    _v6_store(old, rows)
    _v6_store(fresh, [])
    conn = sqlite3.connect(old)
    before = dict(conn.execute("SELECT record_id, doc_id FROM graphmem_memory_text").fetchall())
    logged = conn.execute("SELECT MAX(seq) FROM graphmem_vector_log").fetchone()[0]
    conn.close()
    assert max(before.values()) < RANGE  # version 6 numbered them 1, 2, 3, ...
    upgraded = GraphMemory(old, clock=ManualClock())
    assert_ranges_hold(old)
    conn = sqlite3.connect(old)
    moved = conn.execute(
        "SELECT DISTINCT record_id FROM graphmem_vector_log WHERE seq > ?", (logged,)
    ).fetchall()
    conn.close()
    # every memory with a user moved, and went to the vector log; the others kept their number
    assert {r for (r,) in moved} == {r["memory_id"] for r in rows if r["user_id"]}
    # the same rows written at version 7 give the same results, scores included
    reference = GraphMemory(fresh, clock=ManualClock())
    reference.add_memories(rows)
    for query in ("kestrel", "heron owl", "wren tern swift"):
        for user in (None, "u1", "u2", "u3"):
            got = upgraded.search(query, strategy="keyword", user_id=user, max_results=50)
            want = reference.search(query, strategy="keyword", user_id=user, max_results=50)
            assert [(r.id, r.distance) for r in got] == [(r.id, r.distance) for r in want]
    assert upgraded._store._schema_version() == SCHEMA_VERSION
    upgraded.close()
    reference.close()
