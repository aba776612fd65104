"""install.sql run by hand (the sqlite3 shell) on a store of an older version: the
script cannot reshape the older tables, so it must not mark the store with its
version, and graphmem must then upgrade the store on open. Its version mark is its
last statement, so a run that stops early claims nothing either."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder, SchemaError, SchemaPolicy
from graphmem.sqlfiles import load_script
from graphmem.stores import sqlite_schema
from graphmem.stores.sqlite_schema import SCHEMA_VERSION, script_statements

_DATA = Path(__file__).parents[1] / "data"
_T = "2026-01-01T00:00:0{}.000000+00:00"
_VERSION = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"


def _older_store(path: Path, version: int) -> None:
    """A store made by an older version's script: memories a, b, c, a link a -> b."""
    conn = sqlite3.connect(path)
    conn.executescript((_DATA / f"sqlite_install_v{version}.sql").read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', ?, ?)",
        [(rid, f"memory {rid}", _T.format(0)) for rid in "abc"],
    )
    conn.execute(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES ('r1', 'a', 'b', 'supports', "
        "'is_supported_by', ?)",
        (_T.format(1),),
    )
    conn.commit()
    assert conn.execute(_VERSION).fetchone() == (str(version),)
    conn.close()


def _version(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute(_VERSION).fetchone()[0])
    finally:
        conn.close()


def _run_like_the_shell(path: Path) -> list[str]:
    """Each statement on its own, going on past errors (the shell without -bail)."""
    conn = sqlite3.connect(path, isolation_level=None)
    errors = []
    try:
        for statement in script_statements(load_script("sqlite", "install")):
            try:
                conn.execute(statement)
            except sqlite3.Error as exc:
                errors.append(str(exc))
    finally:
        conn.close()
    return errors


def _upgraded_and_usable(path: Path) -> None:
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        results = memory.search("memory", strategy="keyword", num_hops=1)
        linked = {r.record.id: [rel.id for rel, _ in r.linked_results] for r in results}
        assert linked["a"] == ["r1"]
        memory.link_records("c", "memory", "b", "memory", "supersedes")
        assert memory.get_memory("b").status == "invalid"
        assert memory._store.processing_block_owners() == []  # type: ignore[attr-defined]
    assert _version(path) == SCHEMA_VERSION


def test_script_on_a_v9_store_leaves_its_version_for_graphmem_to_upgrade(tmp_path: Path) -> None:
    """On version 9 every statement runs, but the block table keeps its older shape."""
    path = tmp_path / "v9.db"
    _older_store(path, 9)
    conn = sqlite3.connect(path)
    conn.executescript(load_script("sqlite", "install"))
    conn.close()
    assert _version(path) == "9"
    with pytest.raises(SchemaError, match="schema version 9"):
        GraphMemory(path, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    _upgraded_and_usable(path)


def test_script_through_a_shell_going_past_errors_on_a_v7_store(tmp_path: Path) -> None:
    path = tmp_path / "v7.db"
    _older_store(path, 7)
    errors = _run_like_the_shell(path)
    assert errors and all("link_no" in e for e in errors)
    assert _version(path) == "7"
    _upgraded_and_usable(path)


def test_store_marked_by_the_version_10_script_past_its_shape_is_repaired(
    tmp_path: Path,
) -> None:
    """Version 10's script marked a version 9 store current without the block
    lease columns; graphmem decides each copy by the tables' shape, so opening
    the store now upgrades it all the same."""
    path = tmp_path / "v9.db"
    _older_store(path, 9)
    conn = sqlite3.connect(path)
    conn.executescript((_DATA / "sqlite_install_v10.sql").read_text(encoding="utf-8"))
    conn.close()
    assert _version(path) == "10"
    _upgraded_and_usable(path)


def test_script_on_a_current_store_marks_its_version(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    assert _run_like_the_shell(path) == []
    assert _version(path) == SCHEMA_VERSION
    assert _run_like_the_shell(path) == []
    GraphMemory(path, schema_policy=SchemaPolicy.REQUIRE_EXISTING).close()


def test_version_mark_is_the_scripts_last_statement() -> None:
    statements = list(script_statements(load_script("sqlite", "install")))
    assert [i for i, s in enumerate(statements) if "'schema_version'" in s] == [len(statements) - 1]


def test_upgrade_that_leaves_an_older_table_is_refused_and_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """graphmem's own upgrade checks the mark: a copy step missing (here, the block
    table's) fails the open with SchemaError and changes nothing."""
    path = tmp_path / "v9.db"
    _older_store(path, 9)
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    conn = sqlite3.connect(path)
    before = conn.execute(schema).fetchall()
    conn.close()
    monkeypatch.setattr(sqlite_schema, "_needs_block_leases", lambda conn, store_id: False)
    with pytest.raises(SchemaError, match=f"schema version {SCHEMA_VERSION}"):
        GraphMemory(path, embedder=HashingEmbedder(dim=8))
    conn = sqlite3.connect(path)
    try:
        assert conn.execute(schema).fetchall() == before
        assert conn.execute(_VERSION).fetchone() == ("9",)
    finally:
        conn.close()
