"""The traversal's node numbers and adjacency rows follow every kind of DML on the
memory and link tables, a DBA's included (the triggers of install.sql, schema
version 5): after each statement, graphmem_adjacency holds exactly two rows per
link (one from each end, keyed by the ends' node numbers, with the link's number
since version 8 and the far end's filter columns since version 9) and
graphmem_node one row per memory with its filter columns."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import GraphMemory

T = "2026-01-01T00:00:0{}.000000+00:00"
IDS = ["a", "b", "c", "d"]


def _expected(conn: sqlite3.Connection) -> tuple[set[tuple], set[tuple]]:
    nodes = set(
        conn.execute(
            "SELECT record_id, record_type, user_id, agent_id, thread_id, expires_at "
            "FROM graphmem_memory"
        )
    )
    number = dict(conn.execute("SELECT record_id, node_no FROM graphmem_node"))
    filters = {node[0]: node[1:] for node in nodes}
    rows = set()
    for rel, src, tgt, created, link_no in conn.execute(
        "SELECT relation_id, source_id, target_id, created_at, link_no FROM graphmem_link"
    ):
        rows.add((number[src], created, rel, number[tgt], link_no, *filters[tgt]))
        rows.add((number[tgt], created, rel, number[src], link_no, *filters[src]))
    return nodes, rows


def _actual(conn: sqlite3.Connection) -> tuple[set[tuple], set[tuple]]:
    nodes = set(
        conn.execute(
            "SELECT record_id, record_type, user_id, agent_id, thread_id, expires_at "
            "FROM graphmem_node"
        )
    )
    rows = set(
        conn.execute(
            "SELECT node_no, created_at, relation_id, other_no, link_no, other_record_type, "
            "other_user_id, other_agent_id, other_thread_id, other_expires_at "
            "FROM graphmem_adjacency"
        )
    )
    return nodes, rows


_ID = st.sampled_from(IDS)
_REL = st.sampled_from(["r1", "r2", "r3"])
_TYPE = st.sampled_from(["supports", "supersedes", "contradicts"])
_SEC = st.integers(0, 3)

_DML = st.one_of(
    st.tuples(st.just("insert-memory"), _ID, st.sampled_from(["fact", "memory"])),
    st.tuples(st.just("replace-memory"), _ID, st.sampled_from(["fact", "memory"])),
    st.tuples(st.just("delete-memory"), _ID),
    st.tuples(
        st.just("update-memory"),
        _ID,
        st.sampled_from(["user_id", "agent_id", "thread_id", "expires_at", "record_type"]),
        st.sampled_from(["u1", None, "fact", "memory", T.format(9)]),
    ),
    st.tuples(st.just("insert-link"), _REL, _ID, _ID, _TYPE, _SEC),
    st.tuples(st.just("replace-link"), _REL, _ID, _ID, _TYPE, _SEC),
    st.tuples(st.just("ignore-link"), _REL, _ID, _ID, _TYPE, _SEC),
    st.tuples(st.just("delete-link"), _REL),
    st.tuples(st.just("retime-link"), _REL, _SEC),
    st.tuples(st.just("move-link"), _REL, _ID),
    st.tuples(st.just("rename-link"), _REL, _REL),
    st.tuples(st.just("renumber-link"), _REL, st.integers(1, 6)),
    # REPLACE on each of a link's three keys (schema version 11)
    st.tuples(st.just("move-link-or-replace"), _REL, _ID),
    st.tuples(st.just("retype-link-or-replace"), _REL, _TYPE),
    st.tuples(st.just("rename-link-or-replace"), _REL, _REL),
    st.tuples(st.just("renumber-link-or-replace"), _REL, st.integers(1, 6)),
    st.tuples(st.just("replace-link-number"), st.integers(1, 6), _REL, _ID, _ID, _TYPE, _SEC),
)


_OPPOSITE = {"supports": "is_supported_by", "supersedes": "is_superseded_by"}
_OPPOSITE["contradicts"] = "contradicts"


def _apply(conn: sqlite3.Connection, op: tuple) -> None:
    kind, *args = op
    link = (
        "INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)"
    )
    memory = (
        "INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, ?, 'text', '2026-01-01T00:00:00.000000+00:00')"
    )

    def link_row() -> list:
        return [*args[:4], _OPPOSITE[args[3]], T.format(args[4])]

    statements = {
        "insert-memory": lambda: ("INSERT " + memory, args),
        "replace-memory": lambda: ("INSERT OR REPLACE " + memory, args),
        "delete-memory": lambda: ("DELETE FROM graphmem_memory WHERE record_id = ?", args),
        "update-memory": lambda: (
            f"UPDATE graphmem_memory SET {args[1]} = ? WHERE record_id = ?",
            [args[2], args[0]],
        ),
        "insert-link": lambda: ("INSERT " + link, link_row()),
        "replace-link": lambda: ("INSERT OR REPLACE " + link, link_row()),
        "ignore-link": lambda: ("INSERT OR IGNORE " + link, link_row()),
        "delete-link": lambda: ("DELETE FROM graphmem_link WHERE relation_id = ?", args),
        "retime-link": lambda: (
            "UPDATE graphmem_link SET created_at = ? WHERE relation_id = ?",
            [T.format(args[1]), args[0]],
        ),
        "move-link": lambda: (
            "UPDATE graphmem_link SET target_id = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "rename-link": lambda: (
            "UPDATE graphmem_link SET relation_id = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "renumber-link": lambda: (
            "UPDATE graphmem_link SET link_no = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "move-link-or-replace": lambda: (
            "UPDATE OR REPLACE graphmem_link SET target_id = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "retype-link-or-replace": lambda: (
            "UPDATE OR REPLACE graphmem_link SET relation_type = ?, opposite_relation_type = ? "
            "WHERE relation_id = ?",
            [args[1], _OPPOSITE[args[1]], args[0]],
        ),
        "rename-link-or-replace": lambda: (
            "UPDATE OR REPLACE graphmem_link SET relation_id = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "renumber-link-or-replace": lambda: (
            "UPDATE OR REPLACE graphmem_link SET link_no = ? WHERE relation_id = ?",
            args[::-1],
        ),
        "replace-link-number": lambda: (
            "INSERT OR REPLACE INTO graphmem_link (link_no, relation_id, source_id, target_id, "
            "relation_type, opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [*args[:5], _OPPOSITE[args[4]], T.format(args[5])],
        ),
    }
    sql, binds = statements[kind]()
    # refused by a constraint or a trigger: the statement changed nothing
    with contextlib.suppress(sqlite3.IntegrityError):
        conn.execute(sql, binds)


@pytest.mark.parametrize("foreign_keys", [True, False])
@settings(max_examples=60, deadline=None)
@given(ops=st.lists(_DML, max_size=25))
def test_adjacency_follows_any_dml(tmp_path_factory, foreign_keys: bool, ops: list) -> None:
    path = Path(tmp_path_factory.mktemp("adj")) / "m.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
    try:
        for record_id in IDS:  # so that most link statements find both ends
            _apply(conn, ("insert-memory", record_id, "fact"))
        for op in ops:
            _apply(conn, op)
            assert _actual(conn) == _expected(conn), op
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("op", "links_left"),
    [
        # r2 moved onto r1's ends and type: UPDATE OR REPLACE deletes r1
        (("move-link-or-replace", "r2", "b"), {"r2", "r3"}),
        # r3 given r1's type, between the same ends
        (("retype-link-or-replace", "r3", "supports"), {"r2", "r3"}),
        # r2 takes r1's relation_id, then r1's number
        (("rename-link-or-replace", "r2", "r1"), {"r1", "r3"}),
        (("renumber-link-or-replace", "r2", 1), {"r2", "r3"}),
        # a new link under r1's number
        (("replace-link-number", 1, "r9", "c", "d", "supports", 3), {"r2", "r3", "r9"}),
    ],
)
def test_replace_on_any_key_leaves_no_row_of_the_replaced_link(
    tmp_path: Path, op: tuple, links_left: set[str]
) -> None:
    path = tmp_path / "m.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for record_id in IDS:
            _apply(conn, ("insert-memory", record_id, "fact"))
        _apply(conn, ("insert-link", "r1", "a", "b", "supports", 0))
        _apply(conn, ("insert-link", "r2", "a", "c", "supports", 1))
        _apply(conn, ("insert-link", "r3", "a", "b", "contradicts", 2))
        _apply(conn, op)
        assert {r[0] for r in conn.execute("SELECT relation_id FROM graphmem_link")} == links_left
        assert _actual(conn) == _expected(conn)
    finally:
        conn.close()


def test_stale_replace_note_keeps_a_moved_links_rows(tmp_path: Path) -> None:
    """An ignored insert (INSERT OR IGNORE that meets r2's ends and type) leaves its
    note on r2 behind; r2 then moves to another target. The next insert consumes the
    note and must drop only the rows that no current link explains: r2's row at its
    source is still its own."""
    path = tmp_path / "m.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for record_id in IDS:
            _apply(conn, ("insert-memory", record_id, "fact"))
        for op in [
            ("insert-link", "r2", "a", "b", "supports", 0),
            ("ignore-link", "r1", "a", "b", "supports", 0),
            ("move-link", "r2", "c"),
            ("insert-link", "r1", "a", "b", "supports", 0),
        ]:
            _apply(conn, op)
            assert _actual(conn) == _expected(conn), op
    finally:
        conn.close()
