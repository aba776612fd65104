"""The neighbour's filter columns in the adjacency (schema version 9): every
adjacency row carries the record type, user, agent, thread and expiry of its
other_no node, kept by triggers through link writes, memory changes and a DBA's
DML, rewritten only when one of them changes, and filled in when a store made
at an older version is opened. The traversal levels filter on these copies
(tests/stores/test_adjacency.py checks them against any DML, at random)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.core.validation import SearchFilters
from graphmem.stores.sqlite_schema import SCHEMA_VERSION

_DATA = Path(__file__).parents[1] / "data"
_T = "2026-01-01T00:00:0{}.000000+00:00"
_LATER = "2030-01-01T00:00:00.000000+00:00"
_PAST = "2020-01-01T00:00:00.000000+00:00"

_STALE = (
    "SELECT count(*) FROM graphmem_adjacency a JOIN graphmem_node n ON n.node_no = a.other_no "
    "WHERE a.other_record_type IS NOT n.record_type OR a.other_user_id IS NOT n.user_id "
    "OR a.other_agent_id IS NOT n.agent_id OR a.other_thread_id IS NOT n.thread_id "
    "OR a.other_expires_at IS NOT n.expires_at"
)
# a hub b with links to and from a, c, d; filters set below by DBA statements
_MEMORIES = [("a", "fact", "u1"), ("b", "fact", "u1"), ("c", "memory", "u1"), ("d", "fact", "u2")]
_LINKS = [
    ("r1", "a", "b", "supports", 1),
    ("r2", "c", "b", "supports", 2),
    ("r3", "b", "d", "contradicts", 3),
]
_OPPOSITE = {"supports": "is_supported_by", "contradicts": "contradicts"}


def _fill(conn: sqlite3.Connection) -> None:
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, user_id, content, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(i, kind, user, f"memory {i}", _T.format(0)) for i, kind, user in _MEMORIES],
    )
    conn.executemany(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [(*link[:4], _OPPOSITE[link[3]], _T.format(link[4])) for link in _LINKS],
    )


def _check(conn: sqlite3.Connection, links: int) -> None:
    """Every adjacency row's copies equal its other node's columns (and there are
    rows to compare: two per link)."""
    assert conn.execute("SELECT count(*) FROM graphmem_adjacency").fetchone() == (2 * links,)
    assert conn.execute(_STALE).fetchone() == (0,)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    path = tmp_path / "m.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    _fill(conn)
    try:
        yield path, conn
    finally:
        conn.close()


def _reached(path: Path, filters: SearchFilters) -> set[str]:
    """The nodes that the linked context of root a reaches in 3 hops, capped and not
    (the two level paths of the embedded store must agree)."""
    with GraphMemory(path) as memory:
        store = memory._store  # type: ignore[attr-defined]
        found = [
            {item.entry.node for item in store.linked_context(["a"], filters, 3, cap)}
            for cap in (None, 10)
        ]
    assert found[0] == found[1]
    return found[0]


@pytest.mark.parametrize(
    ("column", "value", "original", "hidden"),
    [
        ("record_type", "memory", "fact", SearchFilters(record_types=("fact",))),
        ("user_id", "u2", "u1", SearchFilters(user_id="u1")),
        ("agent_id", "g2", "g1", SearchFilters(agent_id="g1")),
        ("thread_id", "t2", "t1", SearchFilters(thread_id="t1")),
        ("expires_at", _PAST, None, SearchFilters()),
    ],
)
def test_a_memory_filter_change_reaches_the_adjacency_and_the_search(
    store: tuple[Path, sqlite3.Connection],
    column: str,
    value: str,
    original: str | None,
    hidden: SearchFilters,
) -> None:
    path, conn = store
    conn.execute("UPDATE graphmem_memory SET agent_id = 'g1', thread_id = 't1'")
    conn.execute("UPDATE graphmem_memory SET expires_at = ? WHERE record_id = 'c'", (_LATER,))
    _check(conn, 3)
    reached = _reached(path, hidden)
    assert "b" in reached
    conn.execute(f"UPDATE graphmem_memory SET {column} = ? WHERE record_id = 'b'", (value,))
    _check(conn, 3)
    # b was the only way on from a: the tree stops at a once b fails the filter
    assert _reached(path, hidden) == set()
    conn.execute(f"UPDATE graphmem_memory SET {column} = ? WHERE record_id = 'b'", (original,))
    _check(conn, 3)
    assert _reached(path, hidden) == reached


def test_link_writes_copy_the_filters_of_both_ends(store: tuple[Path, sqlite3.Connection]) -> None:
    _path, conn = store
    conn.execute(
        "UPDATE graphmem_memory SET user_id = 'u9', expires_at = ? WHERE record_id = 'd'", (_LATER,)
    )
    conn.execute(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) "
        "VALUES ('r4', 'd', 'a', 'supports', 'is_supported_by', ?)",
        (_T.format(4),),
    )
    _check(conn, 4)
    conn.execute("UPDATE graphmem_link SET target_id = 'c' WHERE relation_id = 'r4'")  # move
    conn.execute(
        "UPDATE graphmem_link SET created_at = ? WHERE relation_id = 'r1'", (_T.format(7),)
    )
    _check(conn, 4)
    conn.execute(  # REPLACE under the same relation id, other ends
        "INSERT OR REPLACE INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) "
        "VALUES ('r2', 'd', 'b', 'supports', 'is_supported_by', ?)",
        (_T.format(5),),
    )
    _check(conn, 4)
    conn.execute("DELETE FROM graphmem_link WHERE relation_id = 'r3'")
    _check(conn, 3)
    # a memory written again by REPLACE with other filters: its node row is updated
    conn.execute(
        "INSERT OR REPLACE INTO graphmem_memory (record_id, record_type, user_id, content, "
        "created_at) VALUES ('b', 'preference', 'u7', 'again', ?)",
        (_T.format(0),),
    )
    links = conn.execute("SELECT count(*) FROM graphmem_link").fetchone()[0]
    _check(conn, links)
    conn.execute("DELETE FROM graphmem_memory WHERE record_id = 'd'")
    _check(conn, conn.execute("SELECT count(*) FROM graphmem_link").fetchone()[0])


def _count_adjacency_updates(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TEMP TABLE touched (node_no INTEGER)")
    conn.execute(
        "CREATE TEMP TRIGGER count_touched AFTER UPDATE ON main.graphmem_adjacency "
        "BEGIN INSERT INTO touched VALUES (NEW.node_no); END"
    )


def _touched(conn: sqlite3.Connection) -> list[int]:
    rows = [r[0] for r in conn.execute("SELECT node_no FROM touched ORDER BY 1")]
    conn.execute("DELETE FROM touched")
    return rows


def test_only_a_change_of_the_five_columns_rewrites_adjacency_rows(
    store: tuple[Path, sqlite3.Connection],
) -> None:
    path, conn = store
    _count_adjacency_updates(conn)
    number = dict(conn.execute("SELECT record_id, node_no FROM graphmem_node"))
    # the same values written again (a DBA's whole-row update): the node row is
    # written, no adjacency row
    before = conn.total_changes
    conn.execute(
        "UPDATE graphmem_memory SET record_type = record_type, user_id = user_id, "
        "agent_id = agent_id, thread_id = thread_id, expires_at = expires_at, "
        "content = 'new text' WHERE record_id = 'b'"
    )
    assert conn.total_changes > before
    assert _touched(conn) == []
    # the API's update of a memory (content) does not touch them either
    with GraphMemory(path) as memory:
        memory.update_memory("b", content="other text", metadata={"k": "v"})
    assert _touched(conn) == []
    # a change: exactly the mirror rows of b's three links, at b's neighbours
    conn.execute("UPDATE graphmem_memory SET thread_id = 't5' WHERE record_id = 'b'")
    assert _touched(conn) == sorted(number[n] for n in "acd")
    _check(conn, 3)


@pytest.mark.parametrize("older", ["4", "7", "8"])
def test_older_store_gets_the_neighbour_columns_on_open(tmp_path: Path, older: str) -> None:
    old = tmp_path / f"v{older}.db"
    conn = sqlite3.connect(old)
    conn.executescript((_DATA / f"sqlite_install_v{older}.sql").read_text(encoding="utf-8"))
    _fill(conn)
    conn.execute(
        "UPDATE graphmem_memory SET agent_id = 'g1', expires_at = ? WHERE record_id = 'b'",
        (_LATER,),
    )
    conn.execute("UPDATE graphmem_memory SET thread_id = 't1' WHERE record_id = 'd'")
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == (older,)
    conn.close()

    assert _reached(old, SearchFilters()) == {"b", "c", "d"}  # opening upgrades the file
    assert _reached(old, SearchFilters(user_id="u1")) == {"b", "c"}
    assert _reached(old, SearchFilters(record_types=("fact",))) == {"b", "d"}
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    conn = sqlite3.connect(old)
    try:
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        _check(conn, 3)
        objects = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        fresh_conn = sqlite3.connect(fresh)
        assert set(conn.execute(objects)) == set(fresh_conn.execute(objects))
        fresh_conn.close()
        # the triggers of the upgraded store keep the copies
        conn.execute("UPDATE graphmem_memory SET user_id = 'u3' WHERE record_id = 'c'")
        _check(conn, 3)
        conn.commit()
    finally:
        conn.close()
