"""Link numbers (schema version 8): every link has a number (graphmem_link.link_no,
its rowid), every adjacency row carries its link's number, and the linked-context
search reads the kept links back by that number. The returned links must be the
stored ones whatever happened to the numbers: a DBA renumbering a link, VACUUM,
a link replaced under the same id, and a store upgraded from version 6 or 7 (each
link numbered by its old rowid)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.core.validation import SearchFilters, format_time
from graphmem.sqlfiles import load_script
from graphmem.stores.sqlite_schema import SCHEMA_VERSION, script_statements

_DATA = Path(__file__).parents[1] / "data"
_T = "2026-01-01T00:00:0{}.000000+00:00"


def _chain(memory: GraphMemory) -> None:
    """a - b - c - d, one link per pair, and a later parallel link b - a."""
    memory.add_memories([{"content": f"memory {i}", "memory_id": i} for i in "abcd"])
    links: list[dict[str, Any]] = [
        {
            "source_record_id": s,
            "source_record_type": "memory",
            "target_record_id": t,
            "target_record_type": "memory",
            "relation_type": kind,
            "relation_id": rel,
            "metadata": {"n": rel},
        }
        for rel, s, t, kind in [
            ("r1", "a", "b", "supports"),
            ("r2", "c", "b", "supports"),
            ("r3", "c", "d", "contradicts"),
            ("r0", "b", "a", "contradicts"),
        ]
    ]
    memory.add_record_links(links)


def _tree(memory: GraphMemory) -> list[tuple[Any, ...]]:
    """The linked context of root a (capped and not): (node, parent, relation id,
    whether the returned link equals the stored link of that id)."""
    store = memory._store  # type: ignore[attr-defined]
    trees = []
    for cap in (None, 10):
        rows = []
        for item in store.linked_context(["a"], SearchFilters(), 3, cap):
            stored = memory.get_record_link(item.entry.relation_id)
            same = item.relation == stored and item.entry.created_at == format_time(
                stored.created_at
            )
            rows.append((item.entry.node, item.entry.parent, item.entry.relation_id, same))
        trees.append(rows)
    assert trees[0] == trees[1]
    return trees[0]


def _numbers(path: Path) -> tuple[dict[str, int], set[tuple[str, int]]]:
    """The link numbers by relation id, and the (relation id, number) pairs of the
    adjacency rows."""
    conn = sqlite3.connect(path)
    try:
        links = dict(conn.execute("SELECT relation_id, link_no FROM graphmem_link"))
        adjacency = set(conn.execute("SELECT relation_id, link_no FROM graphmem_adjacency"))
    finally:
        conn.close()
    return links, adjacency


EXPECTED = [
    ("b", "a", "r1", True),  # r1 was written before the parallel r0: the parent link
    ("c", "b", "r2", True),
    ("d", "c", "r3", True),
]


def _search_works(path: Path, expected: list[tuple[Any, ...]] = EXPECTED) -> None:
    with GraphMemory(path) as memory:
        assert _tree(memory) == expected


def _adjacency_numbers_match(path: Path) -> None:
    links, adjacency = _numbers(path)
    assert adjacency == set(links.items())


def test_search_reads_links_back_by_number(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with GraphMemory(path) as memory:
        _chain(memory)
        assert _tree(memory) == EXPECTED
    _adjacency_numbers_match(path)


def test_renumbered_links_are_read_back(tmp_path: Path) -> None:
    """A DBA swaps two links' numbers: the adjacency follows, and so does the search."""
    path = tmp_path / "m.db"
    with GraphMemory(path) as memory:
        _chain(memory)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE graphmem_link SET link_no = 1000 WHERE relation_id = 'r0'")
    conn.execute(
        "UPDATE graphmem_link SET link_no = (SELECT link_no FROM graphmem_link "
        "WHERE relation_id = 'r2') + 2000 WHERE relation_id = 'r2'"
    )
    conn.execute("UPDATE graphmem_link SET link_no = 7 WHERE relation_id = 'r3'")
    conn.commit()
    conn.close()
    _adjacency_numbers_match(path)
    _search_works(path)


def test_numbers_survive_vacuum_and_replace(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with GraphMemory(path) as memory:
        _chain(memory)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DELETE FROM graphmem_link WHERE relation_id = 'r1'")  # a gap in the rowids
    before = _numbers(path)[0]
    conn.execute("VACUUM")
    assert _numbers(path)[0] == before
    # the same id written again: the row is replaced and gets a new number
    conn.execute(
        "INSERT OR REPLACE INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, metadata, created_at) "
        "SELECT relation_id, source_id, target_id, relation_type, opposite_relation_type, "
        "metadata, created_at FROM graphmem_link WHERE relation_id = 'r2'"
    )
    conn.close()
    after = _numbers(path)[0]
    assert after["r2"] != before["r2"] and after["r0"] == before["r0"]
    _adjacency_numbers_match(path)
    _search_works(path, [("b", "a", "r0", True), *EXPECTED[1:]])


@pytest.mark.parametrize("older", ["6", "7"])
def test_older_store_is_upgraded_numbering_links_by_rowid(tmp_path: Path, older: str) -> None:
    old = tmp_path / f"v{older}.db"
    conn = sqlite3.connect(old)
    conn.executescript((_DATA / f"sqlite_install_v{older}.sql").read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(i, f"memory {i}", _T.format(0)) for i in "abcd"],
    )
    links = [
        ("gone", "a", "d", "supports", "is_supported_by", 0),
        ("r0", "b", "a", "contradicts", "contradicts", 1),
        ("r1", "a", "b", "supports", "is_supported_by", 2),
        ("r2", "c", "b", "supports", "is_supported_by", 3),
        ("r3", "c", "d", "contradicts", "contradicts", 4),
    ]
    conn.executemany(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [(*link[:5], _T.format(link[5])) for link in links],
    )
    conn.execute("DELETE FROM graphmem_link WHERE relation_id = 'gone'")
    conn.execute("UPDATE graphmem_link SET metadata = json_object('n', relation_id)")
    rowids = dict(conn.execute("SELECT relation_id, rowid FROM graphmem_link"))
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == (older,)
    conn.close()
    assert rowids == {"r0": 2, "r1": 3, "r2": 4, "r3": 5}

    _search_works(old, [("b", "a", "r0", True), *EXPECTED[1:]])  # r0 is the older here
    assert _numbers(old)[0] == rowids
    _adjacency_numbers_match(old)
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    conn = sqlite3.connect(old)
    try:
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        # the same objects as a new store's, made by the same statements
        objects = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        fresh_conn = sqlite3.connect(fresh)
        assert set(conn.execute(objects)) == set(fresh_conn.execute(objects))
        fresh_conn.close()
        # the upgraded store keeps numbering after its largest link
        conn.execute(
            "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
            "opposite_relation_type, created_at) VALUES ('r4', 'a', 'd', 'supports', "
            "'is_supported_by', ?)",
            (_T.format(5),),
        )
        assert conn.execute(
            "SELECT link_no FROM graphmem_link WHERE relation_id = 'r4'"
        ).fetchone() == (6,)
        conn.commit()
    finally:
        conn.close()
    _adjacency_numbers_match(old)


def test_lost_traversal_tables_are_filled_again(tmp_path: Path) -> None:
    """The two fill statements of install.sql skip a store whose tables hold rows
    (an upgrade does not scan every link), and fill them again, link numbers
    included, once a DBA has emptied both (the repair that dba.md describes)."""
    path = tmp_path / "m.db"
    with GraphMemory(path) as memory:
        _chain(memory)
    script = load_script("sqlite", "install", "graphmem")
    fills = [s for s in script_statements(script) if "AS unfilled" in s]
    assert len(fills) == 2
    conn = sqlite3.connect(path)
    query = "SELECT * FROM graphmem_adjacency ORDER BY 1, 2, 3"
    before = conn.execute(query).fetchall()
    nodes = conn.execute("SELECT * FROM graphmem_node ORDER BY 1").fetchall()
    conn.execute("DELETE FROM graphmem_adjacency WHERE node_no = ?", (before[0][0],))
    for fill in fills:
        conn.execute(fill)
    assert len(conn.execute(query).fetchall()) < len(before)  # not empty: left alone
    conn.execute("DELETE FROM graphmem_adjacency")
    conn.execute("DELETE FROM graphmem_node")
    for fill in fills:
        conn.execute(fill)
    assert conn.execute("SELECT * FROM graphmem_node ORDER BY 1").fetchall() == nodes
    assert conn.execute(query).fetchall() == before
    conn.commit()
    conn.close()
    _adjacency_numbers_match(path)
    _search_works(path)
