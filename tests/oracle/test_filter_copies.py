"""Schema version 9 on Oracle, without a server: the neighbour's filter columns.

Each GRAPHMEM_ADJACENCY row carries a copy of the GRAPHMEM_NODE columns of its
other_no node, written by the link trigger and the fills, rewritten by the node
trigger when a memory's filter columns change, and exposed by the edge table
adjacent of the property graph. The statements are read from install.sql; the
ones that move rows are translated by sqlglot and run on SQLite tables of the
same columns, which checks which node each copy comes from (the PL/SQL around
them and Oracle itself are not run here).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from graphmem import pgq
from graphmem.sqlfiles import load_script, load_statements
from graphmem.stores.oracle_session import split_script

FILTERS = ("record_type", "user_id", "agent_id", "thread_id", "expires_at")
COPIES = tuple(f"other_{c}" for c in FILTERS)
PGQ = load_statements("pgq")
# Oracle runs the first two; the embedded store the other two (same graph).
LEVELS = ("expand-level", "expand-level-uncapped", "bound-level", "select-level-candidates")
T1, T2 = "2026-01-01T00:00:01.000000+00:00", "2026-01-01T00:00:02.000000+00:00"


def _install() -> list[str]:
    return split_script(load_script("oracle", "install"))


def _columns(table: str) -> dict[str, tuple[str, bool]]:
    """column -> (Oracle type, NOT NULL) of a CREATE TABLE in install.sql."""
    sql = next(s for s in _install() if f"TABLE IF NOT EXISTS {table} (" in s)
    parsed = sqlglot.parse_one(sql.replace(") ORGANIZATION INDEX", ")"), read="oracle")
    return {
        c.name: (c.args["kind"].sql("oracle"), any(
            isinstance(k.kind, exp.NotNullColumnConstraint) for k in c.constraints))
        for c in parsed.find_all(exp.ColumnDef)
    }  # fmt: skip


def _trigger(name: str) -> str:
    return next(s for s in _install() if s.startswith(f"CREATE OR REPLACE TRIGGER {name}\n"))


def _upgrade() -> str:
    blocks = [s for s in _install() if s.startswith("BEGIN") and "OTHER_RECORD_TYPE" in s]
    assert len(blocks) == 1
    return blocks[0]


def _dynamic(block: str, start: str) -> str:
    """The text of the EXECUTE IMMEDIATE whose literal starts with ``start``."""
    for call in re.findall(r"EXECUTE IMMEDIATE (.*?);\n", block, re.DOTALL):
        text = "".join(s.replace("''", "'") for s in re.findall(r"'((?:[^']|'')*)'", call))
        if text.startswith(start):
            return text
    raise AssertionError(f"no EXECUTE IMMEDIATE {start}...")


def _sqlite(oracle_sql: str) -> str:
    """The statement for SQLite, which names SET targets without the table alias."""
    tree = sqlglot.parse_one(oracle_sql, read="oracle")
    if isinstance(tree, exp.Update):
        for target in tree.expressions:
            for column in target.this.find_all(exp.Column):
                column.set("table", None)
    return tree.sql("sqlite")


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    """Nodes 1..3 (node 2 with NULL scope columns), links 1->2 and 3->1, no adjacency."""
    node, adjacency = _columns("GRAPHMEM_NODE"), _columns("GRAPHMEM_ADJACENCY")
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE GRAPHMEM_NODE ({', '.join(node)})")
    conn.execute(f"CREATE TABLE GRAPHMEM_ADJACENCY ({', '.join(adjacency)})")
    conn.execute("CREATE TABLE GRAPHMEM_LINK (relation_id, source_id, target_id, created_at, "
                 "link_no)")  # fmt: skip
    conn.executemany(
        "INSERT INTO GRAPHMEM_NODE (node_no, record_id, record_type, user_id, agent_id, "
        "thread_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (1, "m1", "fact", "u1", "a1", "t1", None),
            (2, "m2", "memory", None, None, None, T2),
            (3, "m3", "preference", "u3", "a3", "t3", T1),
        ],
    )
    conn.executemany(
        "INSERT INTO GRAPHMEM_LINK VALUES (?, ?, ?, ?, ?)",
        [("r1", "m1", "m2", T1, 10), ("r2", "m3", "m1", T2, 11)],
    )
    yield conn
    conn.close()


def _copies(conn: sqlite3.Connection) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """(node_no, relation_id, other_no) -> the row's five copies."""
    rows = conn.execute(
        f"SELECT node_no, relation_id, other_no, {', '.join(COPIES)} FROM GRAPHMEM_ADJACENCY"
    )
    return {tuple(r[:3]): tuple(r[3:]) for r in rows}


def _node(conn: sqlite3.Connection, node_no: int) -> tuple[Any, ...]:
    sql = f"SELECT {', '.join(FILTERS)} FROM GRAPHMEM_NODE WHERE node_no = ?"
    return tuple(conn.execute(sql, (node_no,)).fetchone())


def _assert_copies_of_other_end(conn: sqlite3.Connection, rows: int) -> None:
    copies = _copies(conn)
    assert len(copies) == rows
    for (_, _, other_no), values in copies.items():
        assert values == _node(conn, other_no)


# -- the table and its upgrade ----------------------------------------------------------


def test_adjacency_copies_have_the_node_columns_types() -> None:
    node, adjacency = _columns("GRAPHMEM_NODE"), _columns("GRAPHMEM_ADJACENCY")
    assert list(adjacency)[-5:] == list(COPIES)
    for column in FILTERS:
        assert adjacency[f"other_{column}"] == node[column]
    assert adjacency["other_record_type"][1] and not adjacency["other_user_id"][1]


def test_upgrade_adds_each_missing_copy_with_the_table_type() -> None:
    block = _upgrade()
    listed = dict(re.findall(r"SELECT '(OTHER_\w+)'[^']*'([^']+)'", block))
    table = _columns("GRAPHMEM_ADJACENCY")
    assert listed == {c.upper(): table[c][0] for c in COPIES}
    assert re.search(
        r"NOT EXISTS \(SELECT 1 FROM user_tab_columns t\s+WHERE t.table_name = "
        r"'GRAPHMEM_ADJACENCY'\s+AND t.column_name = w.column_name\)", block)  # fmt: skip
    assert re.search(
        r"EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_ADJACENCY ADD \('\s+"
        r"\|\| c\.column_name \|\| ' ' \|\| c\.column_type \|\| '\)';", block)  # fmt: skip


def test_upgrade_fills_once_then_makes_the_record_type_not_null() -> None:
    block = _upgrade()
    guarded = block.split("AND column_name = 'OTHER_RECORD_TYPE' AND nullable = 'Y') LOOP", 1)
    assert len(guarded) == 2, "the fill runs only while other_record_type is nullable"
    fill = guarded[1].index("EXECUTE IMMEDIATE 'UPDATE GRAPHMEM_ADJACENCY")
    modify = guarded[1].index("MODIFY (other_record_type NOT NULL)")
    assert fill < modify < guarded[1].index("END LOOP")


def test_upgrade_fill_copies_the_node_of_other_no(db: sqlite3.Connection) -> None:
    # a version 8 adjacency: the links' rows without copies
    db.executemany(
        "INSERT INTO GRAPHMEM_ADJACENCY (node_no, created_at, relation_id, other_no, link_no) "
        "VALUES (?, ?, ?, ?, ?)",
        [(1, T1, "r1", 2, 10), (2, T1, "r1", 1, 10), (3, T2, "r2", 1, 11), (1, T2, "r2", 3, 11)],
    )
    db.execute(_sqlite(_dynamic(_upgrade(), "UPDATE GRAPHMEM_ADJACENCY")))
    _assert_copies_of_other_end(db, 4)


# -- the writes -------------------------------------------------------------------------


def test_link_trigger_writes_the_copies_of_each_rows_other_end(db: sqlite3.Connection) -> None:
    trigger = _trigger("GRAPHMEM_ADJACENCY_SYNC")
    insert = re.search(r"INSERT INTO GRAPHMEM_ADJACENCY .*?;", trigger, re.DOTALL)
    assert insert is not None
    sql = re.sub(r"added\(i\)\.(\w+)", r":\1", insert.group(0).rstrip(";"))
    for link in db.execute("SELECT * FROM GRAPHMEM_LINK").fetchall():
        names = ("relation_id", "source_id", "target_id", "created_at", "link_no")
        db.execute(_sqlite(sql), dict(zip(names, link, strict=True)))
    _assert_copies_of_other_end(db, 4)
    assert set(_copies(db)) == {(1, "r1", 2), (2, "r1", 1), (3, "r2", 1), (1, "r2", 3)}


def test_version_5_fill_writes_the_copies_of_each_rows_other_end(
    db: sqlite3.Connection,
) -> None:
    fill = [s for s in _install() if s.startswith("INSERT INTO GRAPHMEM_ADJACENCY")]
    assert len(fill) == 1
    db.execute(_sqlite(fill[0]))
    _assert_copies_of_other_end(db, 4)
    db.execute(_sqlite(fill[0]))  # idempotent: nothing more to add
    assert len(_copies(db)) == 4


def test_node_trigger_rewrites_only_the_rows_that_lead_to_the_node(
    db: sqlite3.Connection,
) -> None:
    db.execute(_sqlite(next(s for s in _install() if s.startswith("INSERT INTO GRAPHMEM_ADJ"))))
    before = _copies(db)
    # the MERGE has given node 1 (m1) its memory's new values
    db.execute("UPDATE GRAPHMEM_NODE SET record_type = 'guideline', user_id = NULL, "
               "expires_at = ? WHERE node_no = 1", (T2,))  # fmt: skip
    update = re.search(r"UPDATE GRAPHMEM_ADJACENCY a\n.*?;", _trigger("GRAPHMEM_NODE_SYNC"),
                       re.DOTALL)  # fmt: skip
    assert update is not None
    db.execute(_sqlite(update.group(0).rstrip(";").replace("moved(i)", ":moved")), {"moved": "m1"})
    after = _copies(db)
    _assert_copies_of_other_end(db, 4)
    changed = {key for key in after if after[key] != before[key]}
    assert changed == {(2, "r1", 1), (3, "r2", 1)}  # the rows whose other_no is node 1


def test_node_trigger_notes_a_node_only_when_a_filter_column_changed() -> None:
    trigger = _trigger("GRAPHMEM_NODE_SYNC")
    assert "FOR INSERT OR DELETE OR UPDATE OF " + ", ".join(FILTERS) + "\n" in trigger
    row = trigger.split("AFTER EACH ROW IS", 1)[1].split("END AFTER EACH ROW", 1)[0]
    test = re.search(r"IF UPDATING AND NOT \((.*?)\) THEN\s+moved\(moved.COUNT \+ 1\)", row,
                     re.DOTALL)  # fmt: skip
    assert test is not None and not re.search(r"\bmoved\(", row[: test.start()])
    terms = [" ".join(t.split()) for t in test.group(1).split(" AND ")]
    assert terms == [f"unchanged(:OLD.{c}, :NEW.{c})" for c in FILTERS]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [(None, None, 1), ("a", "a", 1), (None, "a", 0), ("a", None, 0), ("a", "b", 0)],
)
def test_unchanged_is_true_or_false_never_null(old: Any, new: Any, expected: int) -> None:
    """SQL's three-valued AND/OR/IS NULL, as PL/SQL's BOOLEAN: run on SQLite."""
    body = re.search(r"FUNCTION unchanged\(old_value VARCHAR2, new_value VARCHAR2\) RETURN "
                     r"BOOLEAN IS\s+BEGIN\s+RETURN (.*?);\s+END unchanged;",
                     _trigger("GRAPHMEM_NODE_SYNC"), re.DOTALL)  # fmt: skip
    assert body is not None
    sql = re.sub(r"\b(old_value|new_value)\b", r":\1", body.group(1))
    row = sqlite3.connect(":memory:").execute(f"SELECT {sql}", {"old_value": old, "new_value": new})
    assert row.fetchone()[0] == expected


# -- the graph and the level statements -------------------------------------------------


def _install_graph() -> pgq.PropertyGraph:
    graph = next(s for s in _install() if "PROPERTY GRAPH graphmem_graph" in s[:60])
    return pgq.parse_property_graph(graph)


def test_install_graph_exposes_the_copies_on_adjacent() -> None:
    adjacent = next(t for t in _install_graph().edge_tables if t.alias == "adjacent")
    names = [name for name, _ in adjacent.labels["adjacent"].columns]
    assert names == ["node_no", "other_no", "created_at", "relation_id", "link_no", *COPIES]
    assert all(adjacent.labels["adjacent"].column_for(c) == c for c in COPIES)


@pytest.mark.parametrize("name", LEVELS)
def test_level_statement_resolves_against_the_install_graph(name: str) -> None:
    lowered = pgq.lower(PGQ[name].sql, _install_graph(), dialect="oracle", assume_integrity=True)
    assert not isinstance(sqlglot.parse_one(lowered, read="oracle"), exp.Command)


# Needs the version 9 text of sql/pgq/expand_level.sql (filters on e.other_*).
@pytest.mark.parametrize("name", LEVELS)
def test_level_statement_filters_on_the_copies_and_reads_no_node_row(name: str) -> None:
    # The filters name the copies, in the MATCH's WHERE or, for the record type of
    # the statements only SQLite runs, as a COLUMNS value tested beside it.
    match = re.search(r"GRAPH_TABLE \(graphmem_graph\n(.*?)\n\s*\) g\b", PGQ[name].sql, re.DOTALL)
    assert match is not None
    graph_table = match.group(1)
    for column in FILTERS:
        assert f"e.other_{column}" in graph_table
        assert not re.search(rf"\b[pn]\.{column}\b", graph_table), column
    lowered = pgq.lower(PGQ[name].sql, _install_graph(), dialect="oracle", assume_integrity=True)
    tables = [t.name.lower() for t in sqlglot.parse_one(lowered, read="oracle").find_all(exp.Table)]
    # graphmem_node only where the statement names it itself (the metadata filter)
    assert tables.count("graphmem_node") == len(re.findall(r"\bgraphmem_node\b", PGQ[name].sql))
