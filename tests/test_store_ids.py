"""Store ids: object names that cannot collide, rejected ids, atomic setup, and the
rename of stores created before schema version 3 (names ``<id>_<name>``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphmem import GraphMemory, InvalidArgumentError, SchemaError, SchemaPolicy
from graphmem.errors import BackendError
from graphmem.stores.sqlite_schema import SCHEMA_VERSION

V2_INSTALL = (Path(__file__).parent / "data" / "sqlite_install_v2.sql").read_text("utf-8")
"""sql/sqlite/install.sql as it was at schema version 2, when a store with id X
named its objects X_<name> (the default store: graphmem_<name>, unchanged since)."""


def _schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name FROM sqlite_master ORDER BY type, name").fetchall()
    finally:
        conn.close()


def _use(store: GraphMemory, tag: str) -> None:
    store.add_memory(f"{tag} new", memory_id="n", metadata={"store": tag})
    store.add_memory(f"{tag} old", memory_id="o", metadata={"store": tag})
    store.link_records("n", "memory", "o", "memory", "supersedes")


def _check(store: GraphMemory, tag: str) -> None:
    assert [m.content for m in store.list_memories(include_invalid_results=True)] == [
        f"{tag} new",
        f"{tag} old",
    ]
    assert store.get_memory("o").status == "invalid"
    hits = store.search(tag, metadata_filter={"store": tag}, include_invalid_results=True)
    assert {r.id for r in hits} == {"n", "o"}


# names that used to collide ------------------------------------------------------


@pytest.mark.parametrize("ids", [("a_memory", "a"), ("a", "a_memory"), ("x", "x_link")])
def test_store_ids_that_once_shared_names_are_separate(db_path: Path, ids) -> None:
    first, second = (GraphMemory(db_path, memory_store_id=i) for i in ids)
    with first, second:
        _use(first, "first")
        _use(second, "second")
        _check(first, "first")
        _check(second, "second")


@pytest.mark.parametrize("store_id", ["a__b", "a__", "ab_", "x_y_", "T__GRAPH"])
def test_store_id_that_could_collide_rejected(tmp_path: Path, store_id: str) -> None:
    path = tmp_path / "m.db"
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(path, memory_store_id=store_id)
    assert info.value.argument == "memory_store_id"
    assert not path.exists() or _schema(path) == []


def test_store_objects_named_with_double_underscore(db_path: Path) -> None:
    GraphMemory(db_path, memory_store_id="T_GRAPH").close()
    tables = {name for kind, name in _schema(db_path) if kind == "table"}
    assert tables == {
        "T_GRAPH__meta",
        "T_GRAPH__memory",
        "T_GRAPH__memory_meta",
        "T_GRAPH__link",
        "T_GRAPH__link_recheck",
        "T_GRAPH__prompt",
        "T_GRAPH__prompt_version",
        "T_GRAPH__memory_text",
        "T_GRAPH__memory_fts",
        # FTS5's own tables behind the keyword index
        "T_GRAPH__memory_fts_data",
        "T_GRAPH__memory_fts_idx",
        "T_GRAPH__memory_fts_content",
        "T_GRAPH__memory_fts_docsize",
        "T_GRAPH__memory_fts_config",
        "T_GRAPH__thread",
        "T_GRAPH__profile",
        "T_GRAPH__vector_log",
        "T_GRAPH__api_key",
        "T_GRAPH__memory_block",
        "T_GRAPH__job",
        "sqlite_sequence",  # SQLite's own, for the vector log's AUTOINCREMENT
        "T_GRAPH__node",
        "T_GRAPH__adjacency",
        "T_GRAPH__adjacency_recheck",
        "T_GRAPH__keyword_user",
    }


def test_rejected_setup_leaves_no_objects(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    # A DBA's own tables under the names the store's link table would take, in the
    # old layout and the new one: the store's link index cannot be created.
    conn.execute("CREATE TABLE t_link (note TEXT)")
    conn.execute("CREATE TABLE t__link (note TEXT)")
    conn.commit()
    conn.close()
    before = _schema(db_path)
    with pytest.raises(BackendError):
        GraphMemory(db_path, memory_store_id="t")
    assert _schema(db_path) == before


# files created at schema version 2 -------------------------------------------------


def _v2_file(path: Path, store_id: str | None) -> None:
    """A file made by the version 2 script, with memories and links written by hand."""
    script = V2_INSTALL if store_id is None else V2_INSTALL.replace("graphmem_", f"{store_id}_")
    prefix = "graphmem_" if store_id is None else f"{store_id}_"
    conn = sqlite3.connect(path)
    conn.executescript(script)
    stamp = "2026-01-01T00:00:00.000000+00:00"
    for record_id in ("n", "o"):
        conn.execute(
            f"INSERT INTO {prefix}memory (record_id, record_type, content, metadata, created_at) "
            "VALUES (?, 'memory', ?, '{\"v\": 2}', ?)",
            (record_id, f"version two {record_id}", stamp),
        )
        conn.execute(
            f"INSERT INTO {prefix}memory_meta (record_id, meta_key, meta_value) "
            "VALUES (?, 'v', '2')",
            (record_id,),
        )
    conn.execute(
        f"INSERT INTO {prefix}link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES ('r', 'n', 'o', 'supersedes', "
        "'is_superseded_by', ?)",
        (stamp,),
    )
    conn.commit()
    conn.close()


def _version(path: Path, meta_table: str) -> str:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            f"SELECT meta_value FROM {meta_table} WHERE meta_key = 'schema_version'"
        ).fetchone()
    finally:
        conn.close()
    return str(row[0])


def _check_v2_data(store: GraphMemory) -> None:
    assert [m.id for m in store.list_memories(include_invalid_results=True)] == ["n", "o"]
    assert store.get_memory("o").status == "invalid"
    assert [m.id for m in store.list_memories(metadata_filter={"v": 2})] == ["n", "o"]
    assert [link.id for link in store.list_record_links()] == ["r"]


def test_v2_default_store_opens_and_is_upgraded(db_path: Path) -> None:
    _v2_file(db_path, None)
    assert _version(db_path, "graphmem_meta") == "2"
    with GraphMemory(db_path) as store:
        _check_v2_data(store)
    assert _version(db_path, "graphmem_meta") == SCHEMA_VERSION
    assert ("trigger", "graphmem_link_replace_bi") in _schema(db_path)


def test_v2_prefixed_store_opens_under_new_names(db_path: Path) -> None:
    _v2_file(db_path, "T_GRAPH_MEMORY")
    with GraphMemory(db_path, memory_store_id="T_GRAPH_MEMORY") as store:
        _check_v2_data(store)
        store.add_memory("after the upgrade", memory_id="m", metadata={"v": 3})
        store.delete_record_link(relation_id="r")
        assert store.get_memory("o").status == "valid"
    names = [name for _, name in _schema(db_path)]
    assert not [n for n in names if n.startswith("T_GRAPH_MEMORY_") and "__" not in n]
    assert _version(db_path, "T_GRAPH_MEMORY__meta") == SCHEMA_VERSION
    with GraphMemory(
        db_path, memory_store_id="t_graph_memory", schema_policy=SchemaPolicy.REQUIRE_EXISTING
    ) as store:
        assert [m.id for m in store.list_memories()] == ["n", "o", "m"]


def test_v2_prefixed_store_with_require_existing_raises(db_path: Path) -> None:
    _v2_file(db_path, "old")
    before = _schema(db_path)
    with pytest.raises(SchemaError, match="no schema"):
        GraphMemory(db_path, memory_store_id="old", schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert _schema(db_path) == before


def test_v2_stores_of_a_name_collision(db_path: Path) -> None:
    # Version 2 stores 'a_memory' then 'a': store a's metadata table was a_memory's
    # meta table. 'a_memory' is renamed; 'a' cannot be, and is refused untouched.
    _v2_file(db_path, "a_memory")
    conn = sqlite3.connect(db_path)
    conn.executescript(V2_INSTALL.replace("graphmem_", "a_"))
    conn.close()
    with GraphMemory(db_path, memory_store_id="a_memory") as store:
        _check_v2_data(store)
    before = _schema(db_path)
    with pytest.raises(SchemaError, match="another store"):
        GraphMemory(db_path, memory_store_id="a")
    assert _schema(db_path) == before
