"""The SQLite schema on disk: shipped in the wheel, WAL mode, policies, shared files."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder, NotFoundError, SchemaError, SchemaPolicy
from graphmem.stores.sqlite import SqliteStore
from graphmem.stores.sqlite_schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_sql_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "graphmem", src / "graphmem", symlinks=True, ignore=ignore)
    shutil.copytree(ROOT / "sql", src / "sql", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    dist = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = dist.glob("graphmem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for script in ("install", "uninstall", "session", "memories", "links", "search", "traverse"):
        assert f"graphmem/sql/sqlite/{script}.sql" in names
    assert "graphmem/py.typed" in names
    shipped = {n for n in names if n.startswith("graphmem/sql/sqlite/")}
    on_disk = {f"graphmem/sql/sqlite/{p.name}" for p in (ROOT / "sql" / "sqlite").glob("*.sql")}
    assert shipped == on_disk


def _pragma(path: Path, name: str) -> object:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_file_store_created_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "new.db"
    path.parent.mkdir()
    assert not path.exists()
    GraphMemory(path).close()
    assert path.exists()


def test_file_store_uses_wal(db_path: Path) -> None:
    with GraphMemory(db_path) as store:
        store.add_memory("x")
        assert _pragma(db_path, "journal_mode") == "wal"


def test_file_store_maps_as_much_of_the_file_as_sqlite_allows(db_path: Path) -> None:
    """The map is asked for more than any store file, so SQLite grants its own
    maximum (SQLITE_MAX_MMAP_SIZE): a 3 GB store is not left half read by calls."""
    probe = sqlite3.connect(db_path)
    try:
        probe.execute("PRAGMA mmap_size = 1099511627776")
        most = probe.execute("PRAGMA mmap_size").fetchone()[0]
    finally:
        probe.close()
    store = SqliteStore(db_path, "graphmem")
    try:
        assert store._conn.execute("PRAGMA mmap_size").fetchone()[0] == most
    finally:
        store.close()


def test_file_store_wal_persists_after_close(db_path: Path) -> None:
    GraphMemory(db_path).close()
    assert _pragma(db_path, "journal_mode") == "wal"


def test_store_records_schema_version(db_path: Path) -> None:
    GraphMemory(db_path).close()
    conn = sqlite3.connect(db_path)
    try:
        row = conn.execute(
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        ).fetchone()
    finally:
        conn.close()
    assert row == (SCHEMA_VERSION,)


def test_store_records_embedding_dimension(db_path: Path) -> None:
    with GraphMemory(db_path) as store:
        store.add_memory("x")
        dim = store.embedder.embed(["x"]).shape[1]
    conn = sqlite3.connect(db_path)
    try:
        row = conn.execute(
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'embedding_dim'"
        ).fetchone()
    finally:
        conn.close()
    assert row == (str(dim),)


def test_require_existing_on_existing_store(db_path: Path) -> None:
    with GraphMemory(db_path) as store:
        store.add_memory("kept", memory_id="m")
    with GraphMemory(db_path, schema_policy=SchemaPolicy.REQUIRE_EXISTING) as store:
        assert store.get_memory("m").content == "kept"
        store.add_memory("more", memory_id="n")
        assert [m.id for m in store.list_memories()] == ["m", "n"]


def test_require_existing_on_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SchemaError):
        GraphMemory(tmp_path / "absent.db", schema_policy=SchemaPolicy.REQUIRE_EXISTING)


def test_require_existing_in_memory() -> None:
    with pytest.raises(SchemaError):
        GraphMemory(":memory:", schema_policy=SchemaPolicy.REQUIRE_EXISTING)


def test_create_if_necessary_twice_keeps_data(db_path: Path) -> None:
    with GraphMemory(db_path) as store:
        store.add_memory("kept", memory_id="m")
    with GraphMemory(db_path, schema_policy=SchemaPolicy.CREATE_IF_NECESSARY) as store:
        assert store.get_memory("m").content == "kept"


def test_two_connections_see_each_others_writes(db_path: Path) -> None:
    with GraphMemory(db_path) as one, GraphMemory(db_path) as two:
        one.add_memory("from one", memory_id="m1")
        assert two.get_memory("m1").content == "from one"
        two.link_records("m1", "memory", two.add_memory("from two"), "memory", "supports")
        assert len(one.list_record_links()) == 1


# several stores in one file -----------------------------------------------------


@pytest.fixture
def shared(db_path: Path):
    alpha = GraphMemory(db_path, memory_store_id="alpha")
    beta = GraphMemory(db_path, memory_store_id="beta")
    alpha.add_memory("alpha tea", memory_id="a1")
    alpha.add_memory("alpha coffee", memory_id="a2")
    alpha.link_records("a1", "memory", "a2", "memory", "supersedes")
    beta.add_memory("beta tea", memory_id="b1")
    yield alpha, beta
    alpha.close()
    beta.close()


def test_shared_file_lists_are_separate(shared) -> None:
    alpha, beta = shared
    assert [m.id for m in alpha.list_memories()] == ["a1", "a2"]
    assert [m.id for m in beta.list_memories()] == ["b1"]


def test_shared_file_links_are_separate(shared) -> None:
    alpha, beta = shared
    assert len(alpha.list_record_links()) == 1
    assert beta.list_record_links() == []


def test_shared_file_search_is_separate(shared) -> None:
    alpha, beta = shared
    assert [r.id for r in beta.search("tea", num_hops=2)] == ["b1"]
    assert {r.id for r in alpha.search("tea coffee", include_invalid_results=True)} == {"a1", "a2"}


def test_shared_file_get_is_separate(shared) -> None:
    _, beta = shared
    with pytest.raises(NotFoundError):
        beta.get_memory("a1")


def test_shared_file_same_ids_allowed(shared) -> None:
    alpha, beta = shared
    beta.add_memory("beta version", memory_id="a1")
    assert alpha.get_memory("a1").content == "alpha tea"
    assert beta.get_memory("a1").content == "beta version"
    assert beta.get_memory("a1").status == "valid"


def test_shared_file_no_cross_store_links(shared) -> None:
    _, beta = shared
    with pytest.raises(NotFoundError):
        beta.link_records("b1", "memory", "a1", "memory", "supports")


def test_shared_file_validity_is_separate(shared) -> None:
    alpha, beta = shared
    beta.add_memory("beta a2", memory_id="a2")
    assert alpha.get_memory("a2").status == "invalid"
    assert beta.get_memory("a2").status == "valid"


def test_shared_file_tables_prefixed(shared, db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()
    assert {"alpha__memory", "alpha__link", "alpha__meta", "beta__memory", "beta__link"} <= tables
    assert "graphmem_memory" not in tables


def test_shared_file_delete_does_not_cross(shared) -> None:
    alpha, beta = shared
    beta.add_memory("beta a1", memory_id="a1")
    beta.delete_memory("a1")
    assert alpha.get_memory("a1").content == "alpha tea"
    assert [link.source_record_id for link in alpha.list_record_links()] == ["a1"]


def test_shared_file_ids_differing_in_case_name_one_store(db_path: Path) -> None:
    # memory_store_id is an SQL identifier: case-insensitive in SQLite and, unquoted,
    # in Oracle, so "abc" and "ABC" name the same store on every backend.
    with (
        GraphMemory(db_path, memory_store_id="abc") as lower,
        GraphMemory(db_path, memory_store_id="ABC") as upper,
    ):
        lower.add_memory("from abc", memory_id="m")
        assert [m.id for m in upper.list_memories()] == ["m"]


def test_schema_older_version_is_upgraded_on_open(db_path: Path) -> None:
    with GraphMemory(db_path) as memory:
        memory.add_memory("kept", memory_id="m")
    conn = sqlite3.connect(db_path)
    conn.execute("DROP INDEX graphmem_adjacency_pair_ix")
    conn.execute("UPDATE graphmem_meta SET meta_value = '1' WHERE meta_key = 'schema_version'")
    conn.commit()
    with GraphMemory(db_path) as memory:
        assert memory.get_memory("m").content == "kept"
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "graphmem_adjacency_pair_ix" in names
    version = conn.execute(
        "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    ).fetchone()
    assert version == (SCHEMA_VERSION,)
    conn.close()


def test_schema_older_version_with_require_existing_raises(db_path: Path) -> None:
    GraphMemory(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE graphmem_meta SET meta_value = '1' WHERE meta_key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="schema version 1"):
        GraphMemory(db_path, schema_policy=SchemaPolicy.REQUIRE_EXISTING)


@pytest.mark.parametrize("policy", list(SchemaPolicy))
def test_schema_newer_version_is_refused_and_left_as_is(db_path: Path, policy) -> None:
    """A later graphmem's store (its version mark, and an object of its own) is
    refused under every policy, and neither re-installed nor marked back down."""
    with GraphMemory(db_path) as memory:
        memory.add_memory("kept", memory_id="m")
    newer = str(int(SCHEMA_VERSION) + 1)
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute(
        "UPDATE graphmem_meta SET meta_value = ? WHERE meta_key = 'schema_version'", (newer,)
    )
    conn.execute(
        "CREATE TRIGGER graphmem_later_ai AFTER INSERT ON graphmem_memory BEGIN SELECT 1; END"
    )
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    before = conn.execute(schema).fetchall()
    conn.close()
    with pytest.raises(SchemaError, match=f"schema version {newer} .*newer than this graphmem"):
        GraphMemory(db_path, schema_policy=policy)
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute(schema).fetchall() == before
        version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        assert conn.execute(version).fetchone() == (newer,)
    finally:
        conn.close()


# -- version 4: messages in the memory table ------------------------------------------

_V3_DUMP = Path(__file__).parent / "data" / "store_v3.sql"
_V4_DUMP = Path(__file__).parent / "data" / "store_v4_jobs.sql"


def _objects(path: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
    finally:
        conn.close()
    return {(str(t), str(n)) for t, n in rows}


def test_schema_v3_store_is_upgraded_to_hold_messages(tmp_path: Path) -> None:
    old = tmp_path / "v3.db"
    conn = sqlite3.connect(old)
    conn.executescript(_V3_DUMP.read_text(encoding="utf-8"))
    conn.close()
    with GraphMemory(old, embedder=HashingEmbedder(dim=8)) as memory:
        assert [m.id for m in memory.list_memories()] == ["old", "new", "f"]
        assert [m.id for m in memory.list_memories(include_invalid_results=False)] == ["new", "f"]
        assert memory.get_memory("old").status == "invalid"
        assert [m.id for m in memory.list_memories(metadata_filter={"k": 1})] == ["old"]
        assert {link.id for link in memory.list_record_links()} == {"r1", "r2"}
        # The triggers came back: a new lifecycle link still invalidates its target.
        memory.link_records("new", "preference", "f", "fact", "refines")
        assert memory.get_memory("f").status == "invalid"
        memory.delete_record_link(relation_id="r1")
        assert memory.get_memory("old").status == "valid"
        thread = memory.create_thread("t", user_id="u")
        thread.add_messages([{"role": "user", "content": "sourdough please"}])
        assert [m.content for m in thread.get_messages()] == ["sourdough please"]
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    assert _objects(old) == _objects(fresh)
    conn = sqlite3.connect(old)
    try:
        assert conn.execute(
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        ).fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(
                "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
                "VALUES ('x', 'message', 'no thread, role or position', 'now')"
            )
    finally:
        conn.close()


def test_schema_upgrade_turns_foreign_keys_back_on(tmp_path: Path) -> None:
    old = tmp_path / "v3.db"
    conn = sqlite3.connect(old)
    conn.executescript(_V3_DUMP.read_text(encoding="utf-8"))
    conn.close()
    with GraphMemory(old, embedder=HashingEmbedder(dim=8)) as memory:
        store = memory._store
        assert store._conn.execute("PRAGMA foreign_keys").fetchone() == (1,)  # type: ignore[attr-defined]


def test_schema_v4_store_is_upgraded_to_hold_extraction_jobs(tmp_path: Path) -> None:
    old = tmp_path / "v4.db"
    conn = sqlite3.connect(old)
    conn.executescript(_V4_DUMP.read_text(encoding="utf-8"))
    conn.close()
    with GraphMemory(old, embedder=HashingEmbedder(dim=8)) as memory:
        assert memory.get_memory("old").status == "invalid"
        assert {link.id for link in memory.list_record_links()} == {"r1"}
        thread = memory.get_thread("t")
        assert [m.content for m in thread.get_messages()] == ["I like tea."]
        stored = thread.settings.memory_extraction_config
        assert stored == {"memory_extraction_custom_instructions": "Keep food preferences."}
        assert memory.resolve_prompt("p").prompt == "Extract dates."
        assert memory.list_jobs() == []
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh).close()
    assert _objects(old) == _objects(fresh)
    conn = sqlite3.connect(old)
    try:
        version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT COUNT(*) FROM graphmem_job").fetchone() == (0,)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
