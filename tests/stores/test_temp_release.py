"""After a large traversal the embedded store gives its work tables' pages back
(the temp database is emptied at the end of the outermost transaction), and the
next traversals and searches work as before."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

import graphmem.stores.sqlite as sqlite_store
from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.validation import SearchFilters
from graphmem.stores.sqlite_session import make_session, release_temp

_NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)
_LEAVES = 3000


def _star(path: Path) -> GraphMemory:
    memory = GraphMemory(path, embedder=HashingEmbedder(dim=8))
    memory.add_memories(
        {"memory_id": rid, "content": rid, "metadata": {"kind": "leaf" if rid != "hub" else "hub"}}
        for rid in ["hub", *(f"l{i}" for i in range(_LEAVES))]
    )
    memory.add_record_links(
        {
            "source_record_id": "hub",
            "source_record_type": "memory",
            "target_record_id": f"l{i}",
            "target_record_type": "memory",
            "relation_type": "supports",
        }
        for i in range(_LEAVES)
    )
    return memory


def _tree(memory: GraphMemory, **filters: object) -> list[tuple[str, str, int]]:
    store = memory._store  # type: ignore[attr-defined]
    found = store.linked_context(["hub"], SearchFilters(now=_NOW, **filters), 2, None)
    return [(n.root_id, n.entry.node, n.entry.depth) for n in found]


def _temp_pages(memory: GraphMemory) -> int:
    conn = memory._store._conn  # type: ignore[attr-defined]
    return int(conn.execute("PRAGMA temp.page_count").fetchone()[0])


def test_a_large_traversal_gives_its_pages_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _star(tmp_path / "kept.db") as memory:
        fresh = _temp_pages(memory)
        expected = _tree(memory)
        assert len(expected) == _LEAVES
        kept = _temp_pages(memory)  # below the threshold: the pages stay
        assert kept > fresh + 20
    monkeypatch.setattr(sqlite_store, "TEMP_RESET_ROWS", _LEAVES)
    with _star(tmp_path / "released.db") as memory:
        assert _tree(memory) == expected
        assert _temp_pages(memory) <= fresh
        # the work tables are back: the same tree again, and with a metadata filter
        assert _tree(memory) == expected
        assert _tree(memory, metadata_filter={"kind": "leaf"}) == expected
        assert _tree(memory, metadata_filter={"kind": "hub"}) == []
        hits = memory.search("hub", max_results=3, num_hops=1, max_linked_results=2)
        assert hits and all(len(h.linked_results) <= 2 for h in hits)


def test_the_release_waits_for_the_outermost_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "TEMP_RESET_ROWS", _LEAVES)
    with _star(tmp_path / "nested.db") as memory:
        fresh = _temp_pages(memory)
        store = memory._store  # type: ignore[attr-defined]
        with store.transaction(write=False):
            first = _tree(memory)
            grown = _temp_pages(memory)
            assert grown > fresh + 20  # still in the outer read transaction
            assert _tree(memory) == first  # and the work tables are usable
        assert _temp_pages(memory) <= fresh


def test_a_statement_reading_a_temp_table_keeps_the_tables() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        make_session(conn, "graphmem")
        conn.execute("INSERT INTO temp.graphmem_roots VALUES (1, 1), (2, 1)")
        reading = conn.execute("SELECT root_no FROM temp.graphmem_roots")
        assert reading.fetchone() == (1,)
        release_temp(conn, "graphmem")  # refused by SQLite, and let pass
        assert reading.fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM temp.graphmem_roots").fetchone() == (2,)
        reading.close()
        release_temp(conn, "graphmem")
        assert conn.execute("SELECT count(*) FROM temp.graphmem_roots").fetchone() == (0,)
    finally:
        conn.close()
