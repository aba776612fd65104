"""Schema version 7: the link write triggers do less per write, with the same results.

The rules they keep (validity, adjacency, orientation, endpoints, REPLACE) are
checked against any DML elsewhere (tests/test_links.py, tests/stores/test_adjacency.py,
property_tests/test_state_machine.py); these tests pin down what version 7 changed:
no temporary b-tree on the common path, rare work only when it is needed, the
upgrade of a version 6 file, and the Python side of a link write; and the upgrade
of a version 10 file to the REPLACE triggers of version 11.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import uuid
from collections import Counter
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.relations import BUILTIN_OPPOSITES
from graphmem.errors import BackendError, ConflictError
from graphmem.link_writes import new_relation_id
from graphmem.sqlfiles import load_script
from graphmem.stores.sqlite_schema import SCHEMA_VERSION, script_statements

_V6_INSTALL = Path(__file__).parent / "data" / "sqlite_install_v6.sql"
_V10_INSTALL = Path(__file__).parent / "data" / "sqlite_install_v10.sql"
_CREATED = "2026-01-01T00:00:00.000000+00:00"

_INSERT = (
    "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
    "opposite_relation_type, relation_timestamp, metadata, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE = (
    "UPDATE graphmem_link SET relation_type = ?, opposite_relation_type = ?, "
    "relation_timestamp = ?, metadata = ? WHERE relation_id = ?"
)
_DELETE = "DELETE FROM graphmem_link WHERE relation_id = ?"

# Triggers whose work is rare (a key of the new row that another link holds, a
# REPLACE note): their temporary b-trees are behind a WHEN clause that is false for
# a new link and for an update that meets no other link's key (the update side:
# schema version 11).
_GUARDED = {
    "graphmem_link_replace_bi",
    "graphmem_link_replaced_ai",
    "graphmem_link_replace_bu",
    "graphmem_link_replaced_au",
}


def _temp_btree_programs(conn: sqlite3.Connection, sql: str) -> dict[str, int]:
    """OpenEphemeral opcodes (a temporary b-tree, built each time the program runs
    them) per program of ``sql``: the statement ("") and each trigger it may fire."""
    rows = conn.execute("EXPLAIN " + sql, [None] * sql.count("?")).fetchall()
    counts: Counter[str] = Counter()
    name = ""
    for _, opcode, _, _, _, p4, _, _ in rows:
        if opcode == "Init" and isinstance(p4, str) and p4.startswith("-- TRIGGER "):
            name = p4.removeprefix("-- TRIGGER ")
        counts[name] += opcode == "OpenEphemeral"
    return dict(counts)


@pytest.mark.parametrize("sql", [_INSERT, _UPDATE, _DELETE], ids=["insert", "update", "delete"])
def test_link_writes_build_no_temporary_btree_on_the_common_path(tmp_path: Path, sql: str) -> None:
    path = tmp_path / "plan.db"
    GraphMemory(path).close()
    conn = sqlite3.connect(path)
    try:
        programs = _temp_btree_programs(conn, sql)
    finally:
        conn.close()
    assert "graphmem_memory_status_bu" in programs  # the nested triggers are listed too
    opening = {name for name, count in programs.items() if count}
    assert opening <= _GUARDED, opening


def _dba(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def test_update_without_a_lifecycle_change_writes_only_the_link(tmp_path: Path) -> None:
    path = tmp_path / "changes.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        for rid in ("a", "b"):
            memory.add_memory(f"memory {rid}", memory_id=rid)
        rid = memory.link_records("a", "memory", "b", "memory", "supersedes")
    conn = _dba(path)
    try:
        # total_changes counts the rows that triggers write too.
        for new_type, opposite, target_status in (
            ("supersedes", "is_superseded_by", "invalid"),  # metadata only
            ("refines", "is_refined_by", "invalid"),  # lifecycle to lifecycle
            ("supports", "is_supported_by", "valid"),  # the target's status changes
        ):
            before = conn.total_changes
            conn.execute(_UPDATE, (new_type, opposite, None, '{"k": 1}', rid))
            written = conn.total_changes - before
            status = conn.execute("SELECT status FROM graphmem_memory WHERE record_id = 'b'")
            assert status.fetchone() == (target_status,)
            # the link row; on a status change also the memory row and its vector log entry
            assert written == (1 if target_status == "invalid" else 3), new_type
    finally:
        conn.close()


def test_status_write_to_its_current_value_is_not_rechecked_but_a_change_is(
    tmp_path: Path,
) -> None:
    path = tmp_path / "status.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        for rid in ("a", "b"):
            memory.add_memory(f"memory {rid}", memory_id=rid)
        memory.link_records("a", "memory", "b", "memory", "refines")
    conn = _dba(path)
    try:
        conn.execute("UPDATE graphmem_memory SET status = 'invalid' WHERE record_id = 'b'")
        with pytest.raises(sqlite3.IntegrityError, match="status is derived"):
            conn.execute("UPDATE graphmem_memory SET status = 'valid' WHERE record_id = 'b'")
        with pytest.raises(sqlite3.IntegrityError, match="status is derived"):
            conn.execute("UPDATE graphmem_memory SET status = 'invalid' WHERE record_id = 'a'")
    finally:
        conn.close()


def _v6_store(path: Path) -> None:
    """A store made by version 6's script: three memories and two links towards b."""
    conn = sqlite3.connect(path)
    conn.executescript(_V6_INSTALL.read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(rid, f"memory {rid}", _CREATED) for rid in ("a", "b", "c")],
    )
    conn.executemany(
        _INSERT,
        [
            ("r1", "a", "b", "supersedes", "is_superseded_by", None, "{}", _CREATED),
            ("r2", "c", "b", "supports", "is_supported_by", None, "{}", _CREATED),
        ],
    )
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == ("6",)
    conn.close()


def _schema(path: Path) -> set[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
        return {(str(t), str(n), str(s)) for t, n, s in rows}
    finally:
        conn.close()


def test_v6_store_is_upgraded_to_the_version_7_triggers(tmp_path: Path) -> None:
    old = tmp_path / "v6.db"
    _v6_store(old)
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    assert _schema(old) != _schema(fresh)
    with GraphMemory(old) as memory:
        assert memory.get_memory("b").status == "invalid"
        memory.update_record_link("r1", relation_type="supports")
        assert memory.get_memory("b").status == "valid"
        memory.update_record_link("r2", relation_type="duplicates")
        assert memory.get_memory("b").status == "invalid"
        memory.delete_record_link("r2")
        assert memory.get_memory("b").status == "valid"
        assert [r.id for r in memory.list_record_links("b")] == ["r1"]
    assert _schema(old) == _schema(fresh)
    conn = sqlite3.connect(old)
    try:
        version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,)
        adjacency = conn.execute(
            "SELECT n.record_id, o.record_id, a.relation_id FROM graphmem_adjacency a "
            "JOIN graphmem_node n ON n.node_no = a.node_no "
            "JOIN graphmem_node o ON o.node_no = a.other_no ORDER BY 1"
        ).fetchall()
        assert adjacency == [("a", "b", "r1"), ("b", "a", "r1")]
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def test_new_relation_ids_are_version_4_uuids_in_text_form() -> None:
    ids = [new_relation_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for rid in ids[:200]:
        parsed = uuid.UUID(rid)
        assert str(parsed) == rid
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_a_failed_transaction_rolls_back_and_frees_the_store(tmp_path: Path) -> None:
    path = tmp_path / "tx.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        for rid in ("a", "b", "c"):
            memory.add_memory(f"memory {rid}", memory_id=rid)
        memory.link_records("a", "memory", "b", "memory", "supports", relation_id="r1")
        # the second insert conflicts: the nested write of the first is rolled back too
        store = memory._store  # type: ignore[attr-defined]
        with pytest.raises(ConflictError), store.transaction():
            memory.link_records("a", "memory", "c", "memory", "refines", relation_id="r2")
            memory.link_records("b", "memory", "a", "memory", "supports", relation_id="r3")
        assert [r.id for r in memory.list_record_links("a")] == ["r1"]
        assert memory.get_memory("c").status == "valid"
        # ... and the lock is free: another thread can write at once.
        done: list[str] = []
        worker = threading.Thread(
            target=lambda: done.append(
                memory.link_records("c", "memory", "b", "memory", "supports", relation_id="r4")
            )
        )
        worker.start()
        worker.join(timeout=10)
        assert done == ["r4"]
        with store.transaction(), store.transaction(write=False):
            memory.delete_record_link("r4")
        assert [r.id for r in memory.list_record_links("c")] == []


# -- version 11: REPLACE on every key of a link ----------------------------------------


def _v10_store(path: Path) -> None:
    """A store made by version 10's script: a, b, c, and r1 a -> b, r2 a -> c."""
    conn = sqlite3.connect(path)
    conn.executescript(_V10_INSTALL.read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(rid, f"memory {rid}", _CREATED) for rid in ("a", "b", "c")],
    )
    conn.executemany(
        _INSERT,
        [
            ("r1", "a", "b", "supersedes", "is_superseded_by", None, "{}", _CREATED),
            ("r2", "a", "c", "supersedes", "is_superseded_by", None, "{}", _CREATED),
        ],
    )
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == ("10",)
    conn.close()


_MOVE_R2 = "UPDATE OR REPLACE graphmem_link SET target_id = 'b' WHERE relation_id = 'r2'"
_ADJACENCY = (
    "SELECT n.record_id, o.record_id, a.relation_id FROM graphmem_adjacency a "
    "JOIN graphmem_node n ON n.node_no = a.node_no "
    "JOIN graphmem_node o ON o.node_no = a.other_no ORDER BY 1, 2, 3"
)


def _linked(memory: GraphMemory) -> dict[str, list[str]]:
    results = memory.search("memory", strategy="keyword", num_hops=1, include_invalid_results=True)
    return {r.id: [rel.id for rel, _ in r.linked_results] for r in results}


def test_v10_store_is_upgraded_to_the_version_11_triggers(tmp_path: Path) -> None:
    old = tmp_path / "v10.db"
    _v10_store(old)
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    assert _schema(old) != _schema(fresh)
    GraphMemory(old).close()
    assert _schema(old) == _schema(fresh)
    conn = _dba(old)
    try:
        version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,) == ("12",)
        conn.execute(_MOVE_R2)
        assert conn.execute(_ADJACENCY).fetchall() == [("a", "b", "r2"), ("b", "a", "r2")]
    finally:
        conn.close()
    with GraphMemory(old) as memory:
        assert (memory.get_memory("b").status, memory.get_memory("c").status) == (
            "invalid",
            "valid",
        )
        assert _linked(memory) == {"a": ["r2"], "b": ["r2"], "c": []}


def test_adjacency_left_by_a_version_10_update_or_replace_is_reported_then_rebuilt(
    tmp_path: Path,
) -> None:
    """The upgrade does not mend rows that the version 10 triggers left behind: a
    search that meets one fails with BackendError (not a KeyError) naming the
    rebuild that dba.md describes, which mends the store."""
    path = tmp_path / "v10.db"
    _v10_store(path)
    conn = _dba(path)
    conn.execute(_MOVE_R2)  # version 10: r1's adjacency rows stay
    conn.close()
    with (
        GraphMemory(path) as memory,
        pytest.raises(BackendError, match=r"rebuild it as docs/dba\.md says"),
    ):
        _linked(memory)
    fills = [s for s in script_statements(load_script("sqlite", "install")) if "AS unfilled" in s]
    conn = _dba(path)
    try:
        conn.execute("DELETE FROM graphmem_adjacency")
        conn.execute("DELETE FROM graphmem_node")
        for fill in fills:
            conn.execute(fill)
        assert conn.execute(_ADJACENCY).fetchall() == [("a", "b", "r2"), ("b", "a", "r2")]
    finally:
        conn.close()
    with GraphMemory(path) as memory:
        assert _linked(memory) == {"a": ["r2"], "b": ["r2"], "c": []}


def test_link_triggers_know_every_builtin_opposite() -> None:
    """The checks of a link row (schema version 11) name each built-in type with
    its opposite, and refuse the type's other cases, as graphmem.core.relations."""
    for name in ("graphmem_link_endpoints_bi", "graphmem_link_endpoints_bu"):
        *_, trigger = [  # the last definition: version 11's
            s
            for s in script_statements(load_script("sqlite", "install"))
            if f"CREATE TRIGGER IF NOT EXISTS {name}\n" in s
        ]
        when = trigger.split("BEGIN", 1)[0]
        assert dict(re.findall(r"WHEN '(\w+)' THEN '(\w+)'", when)) == BUILTIN_OPPOSITES
        assert set(re.findall(r"WHEN '(\w+)' THEN NULL", when)) == set(BUILTIN_OPPOSITES)
