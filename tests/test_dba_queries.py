"""The GRAPH_TABLE queries of sql/pgq/dba.sql, run lowered against the embedded store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.sqlfiles import load_pgq_statement

PREFIX = "T_DBA"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A chain d -supersedes-> c -refines-> b -supports-> a, plus e -duplicates-> a."""
    path = tmp_path / "dba.db"
    with GraphMemory(path, memory_store_id=PREFIX) as memory:
        for name in "abcde":
            memory.add_memory(f"memory {name}", memory_id=name, memory_type="fact")
        memory.link_records("d", "fact", "c", "fact", "supersedes", relation_id="l1")
        memory.link_records("c", "fact", "b", "fact", "refines", relation_id="l2")
        memory.link_records("b", "fact", "a", "fact", "supports", relation_id="l3")
        memory.link_records("e", "fact", "a", "fact", "duplicates", relation_id="l4")
    conn = sqlite3.connect(path)
    yield conn
    conn.close()


def _run(conn: sqlite3.Connection, name: str, **binds: str) -> list[tuple[object, ...]]:
    statement = load_pgq_statement(name, PREFIX, lower_to="sqlite")
    statement.check_binds(binds)
    return conn.execute(statement.sql, binds).fetchall()


def test_dba_supersession_history_follows_lifecycle_chain(db: sqlite3.Connection) -> None:
    rows = _run(db, "show-supersession-history", memory_id="d")
    assert rows == [("b", "invalid", "fact"), ("c", "invalid", "fact")]


def test_dba_supersession_history_stops_at_non_lifecycle_links(db: sqlite3.Connection) -> None:
    assert _run(db, "show-supersession-history", memory_id="b") == []


def test_dba_neighbourhood_is_two_hops_both_directions(db: sqlite3.Connection) -> None:
    rows = _run(db, "show-neighbourhood", memory_id="a")
    assert [r[0] for r in rows] == ["b", "c", "e"]


def test_dba_neighbourhood_excludes_the_memory_itself(db: sqlite3.Connection) -> None:
    rows = _run(db, "show-neighbourhood", memory_id="c")
    assert "c" not in [r[0] for r in rows]
    assert [r[0] for r in rows] == ["a", "b", "d"]


def test_dba_invalid_memories_name_their_reason(db: sqlite3.Connection) -> None:
    rows = _run(db, "show-invalid-memories")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("a", "duplicates", "e"),
        ("b", "refines", "c"),
        ("c", "supersedes", "d"),
    ]
