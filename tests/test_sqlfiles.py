"""graphmem.sqlfiles: named statements, prefixes, binds; the SQLite scripts as a DBA runs them."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sqlite3
from datetime import timedelta
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import sqlglot

from graphmem import (
    ConflictError,
    GraphMemory,
    InvalidArgumentError,
    ModelError,
    RerankResult,
    SchemaPolicy,
    TopKMemorySearchConfig,
)
from graphmem.core.validation import SearchFilters, utc_now
from graphmem.sqlfiles import (
    Statement,
    bind_names,
    load_script,
    load_statements,
    parse_statements,
    sql_root,
    validate_identifier,
)
from graphmem.stores import vector_cache
from graphmem.stores.sqlite import SqliteStore
from graphmem.transfer import ImportLineError

SQLITE_DIR = Path(__file__).resolve().parents[1] / "sql" / "sqlite"


# identifiers --------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a", "T_GRAPH_MEMORY", "x" * 30, "abc_123", "Z9"])
def test_validate_identifier_accepts(value: str) -> None:
    assert validate_identifier("memory_store_id", value) == value


@pytest.mark.parametrize(
    "value",
    ["", "1abc", "_a", "a-b", "a b", "x" * 31, "t; DROP TABLE x", "a\n", "é", "a.b", None, 1],
)
def test_validate_identifier_rejects(value: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        validate_identifier("memory_store_id", value)
    assert info.value.argument == "memory_store_id"


def test_validate_identifier_names_the_argument() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        validate_identifier("table_prefix", "1x")
    assert info.value.argument == "table_prefix"


# prefix substitution ------------------------------------------------------------


def test_prefix_default_leaves_text_unchanged() -> None:
    assert load_script("sqlite", "install") == (SQLITE_DIR / "install.sql").read_text("utf-8")


def test_prefix_replaces_every_object_name() -> None:
    text = load_script("sqlite", "install", "alpha")
    assert re.search(r"graphmem_[a-z]", text, re.IGNORECASE) is None
    for name in ("alpha__meta", "alpha__memory", "alpha__link", "alpha__link_validity_ai"):
        assert name in text


def test_prefix_keeps_messages() -> None:
    text = load_script("sqlite", "install", "alpha")
    assert "'graphmem: status is derived from lifecycle links'" in text


def test_prefix_applies_to_statements() -> None:
    statements = load_statements("sqlite", "Beta")
    assert "Beta__memory" in statements["insert-memory"].sql
    assert all("graphmem_" not in s.sql.lower() for s in statements.values())


def test_prefix_keeps_upper_case_names_upper() -> None:
    from graphmem.sqlfiles import _apply_prefix

    assert _apply_prefix("GRAPHMEM_LINK graphmem_link", "Ab") == "AB__LINK Ab__link"


def test_prefix_only_whole_word_prefix() -> None:
    from graphmem.sqlfiles import _apply_prefix

    assert _apply_prefix("xgraphmem_link graphmem_ graphmem_1", "p") == (
        "xgraphmem_link graphmem_ graphmem_1"
    )


@pytest.mark.parametrize("prefix", ["1abc", "a-b", "x" * 31, "t; DROP TABLE x"])
def test_prefix_validated_before_use(prefix: str) -> None:
    with pytest.raises(InvalidArgumentError):
        load_script("sqlite", "install", prefix)
    with pytest.raises(InvalidArgumentError):
        load_statements("sqlite", prefix)


# binds --------------------------------------------------------------------------


def test_bind_names_plain() -> None:
    assert bind_names("SELECT * FROM t WHERE a = :a AND b = :b_2") == {"a", "b_2"}


def test_bind_names_ignores_strings() -> None:
    assert bind_names("SELECT ':x', 'it''s :y', '12:30:00' FROM t WHERE a = :a") == {"a"}


def test_bind_names_ignores_quoted_identifiers() -> None:
    assert bind_names('SELECT ":x" FROM t WHERE a = :a') == {"a"}


def test_bind_names_ignores_comments() -> None:
    sql = "SELECT 1 -- :line\nFROM t /* :block\n :more */ WHERE a = :a"
    assert bind_names(sql) == {"a"}


def test_bind_names_ignores_casts() -> None:
    assert bind_names("SELECT a::text FROM t WHERE b = :b") == {"b"}


def test_bind_names_repeated_once() -> None:
    assert bind_names("SELECT :a, :a, :b") == {"a", "b"}


def test_check_binds_exact_match_passes() -> None:
    Statement("s", "SELECT :a", "", frozenset({"a"}), "f").check_binds({"a": 1})


@pytest.mark.parametrize("given", [{}, {"a": 1, "b": 2}, {"b": 1}])
def test_check_binds_mismatch_raises(given: dict[str, int]) -> None:
    stmt = Statement("s", "SELECT :a", "", frozenset({"a"}), "f.sql")
    with pytest.raises(AssertionError, match=r"f\.sql:s"):
        stmt.check_binds(given)


# parsing ------------------------------------------------------------------------


def test_parse_statements_names_docs_and_text() -> None:
    text = (
        "-- file header\n\n"
        "-- name: get-thing\n-- Read one thing.\n-- Second doc line.\n"
        "SELECT * FROM t WHERE id = :id;\n\n"
        "-- name: put-thing\nINSERT INTO t VALUES (:id);\n"
    )
    found = parse_statements(text, "x.sql")
    assert list(found) == ["get-thing", "put-thing"]
    assert found["get-thing"].doc == "Read one thing.\nSecond doc line."
    assert found["get-thing"].sql == "SELECT * FROM t WHERE id = :id"
    assert found["get-thing"].binds == {"id"}
    assert found["put-thing"].doc == ""


def test_parse_statements_duplicate_name_rejected() -> None:
    text = "-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;\n"
    with pytest.raises(ValueError, match="twice"):
        parse_statements(text, "x.sql")


def test_sql_root_ships_sqlite_folder() -> None:
    names = {entry.name for entry in (sql_root() / "sqlite").iterdir()}
    assert {"install.sql", "uninstall.sql", "session.sql"} <= names


def test_sqlite_statements_have_docs() -> None:
    undocumented = [n for n, s in load_statements("sqlite").items() if not s.doc.strip()]
    assert undocumented == []


def test_sqlite_statements_parse_with_sqlglot() -> None:
    for name, stmt in load_statements("sqlite").items():
        assert sqlglot.parse_one(stmt.sql, read="sqlite") is not None, name


def test_sqlite_statements_exclude_scripts() -> None:
    sources = {s.source for s in load_statements("sqlite").values()}
    assert not any(src.endswith(("install.sql", "uninstall.sql", "session.sql")) for src in sources)


# every statement is called by the store, with exactly its binds -----------------


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every statement the store checks binds for (the real check still runs)."""
    seen: list[str] = []
    original = Statement.check_binds

    def recording(self: Statement, binds) -> None:
        seen.append(self.name)
        original(self, binds)

    monkeypatch.setattr(Statement, "check_binds", recording)
    return seen


class _SameOrder:
    """A reranker that keeps the order."""

    def rerank(self, query: str, documents: list[str]) -> list[RerankResult]:
        return [RerankResult(i, -float(i)) for i in range(len(documents))]


def _workload(store: GraphMemory) -> None:
    store.add_memory("old tea", memory_id="a", user_id="u", metadata={"k": "v"})
    store.add_memory("new tea", memory_id="b", user_id="u", metadata={"k": "v"}, ttl_days=3)
    store.add_memory("side tea", memory_id="c", memory_type="fact", user_id="u")
    store.add_memory("far tea", memory_id="d", user_id="u")
    link = store.link_records("b", "memory", "a", "memory", "supersedes")
    store.link_records("c", "fact", "b", "memory", "supports")
    store.link_records("d", "memory", "c", "fact", "contradicts")
    with pytest.raises(ConflictError, match="already exists"):  # named after the refusal
        store.link_records("a", "memory", "b", "memory", "supersedes")
    store.get_memory("a")
    store.get_record_link(link)
    store.list_memories(user_id="u", record_types=["memory", "fact"], metadata_filter={"k": "v"})
    store.list_memories(include_invalid_results=False, limit=2)
    store.update_memory("c", content="side tea, edited")
    store.update_memory("c", metadata={"x": 1})
    store.update_record_link(link, relation_type="refines", metadata={"m": 1})
    store.list_record_links()
    store.list_record_links("b", "supports")
    assert store.count_record_links() == 3
    assert store.count_record_links("b", "supports") == 1
    assert (store.stats().memories, store.stats().links) == (4, 3)
    store.export_jsonl(io.StringIO(), threads=False, prompts=False)
    # b's second level (d through c, e through a) exceeds its last place: trim-level-root
    store.add_memory("end tea", memory_id="e", user_id="u")
    store.link_records("e", "memory", "a", "memory", "supports")
    for hops, cap in ((0, 100), (1, 1), (3, None), (5, 2), (2, 3)):
        store.search("tea", user_id="u", num_hops=hops, max_linked_results=cap)
    store.search("tea", metadata_filter={"k": "v"}, record_types=["memory"], num_hops=2)
    store.search("tea", include_invalid_results=True, num_hops=2, max_linked_results=0)
    store.search("side tea", strategy="keyword", metadata_filter={"k": "v"})
    store.search("side tea", strategy="keyword")  # no scope: every hit of the store
    store.search("side thé", strategy="keyword")  # a word FTS5 tokenizes (not ASCII)
    # with a reranker, the hits are read again after it ran (select-passing-ids)
    store.search("tea", user_id="u", search_config=TopKMemorySearchConfig(reranker=_SameOrder()))
    store.search("tea", strategy="hybrid", user_id="u", num_hops=1)
    store.update_memory("a", content="old tea, edited")  # the next search reads the log
    store.search("tea", user_id="u", num_hops=0)
    store.delete_record_link(
        source_record_id="d",
        source_record_type="memory",
        target_record_id="c",
        target_record_type="fact",
        relation_type="contradicts",
    )
    store.delete_record_link(link)
    store.delete_memory("d")
    _registry_workload(store)


def _registry_workload(store: GraphMemory) -> None:
    store.create_prompt("p", "Extract dates.", "dates", annotations={"team": "t"})
    store.update_prompt("p", prompt="Extract amounts.")
    store.update_prompt("p", prompt="Extract names.")
    store.get_prompt("p", vid=0)
    store.list_prompts(limit=5)
    store.list_prompt_versions("p", limit=5)
    store.resolve_prompt("p")
    store.archive_prompt("p", vid=0)
    store.purge_prompt("p", vid=1)
    store.purge_prompt("p")
    _thread_workload(store)


def _thread_workload(store: GraphMemory) -> None:
    thread = store.create_thread("t", user_id="u2", agent_id="a2")
    store.list_threads(user_id="u2")
    assert store.count_threads(user_id="u2") == 1
    first, _ = thread.add_messages(
        [{"role": "user", "content": "tea?"}, {"role": "assistant", "content": "green tea"}]
    )
    thread.get_messages(-1)  # read backwards from the end
    thread.get_messages(1)  # counted, then offset
    taken = {"kind": "message", "message_id": "m", "thread_id": "t", "role": "user"}
    line = json.dumps({**taken, "content": "tea!", "position": 1}).encode()
    with pytest.raises(ImportLineError, match="is held by"):  # reads the thread's places
        store.import_jsonl(io.BytesIO(line))
    thread.update_message(first, content="black tea?")
    thread.get_context_card(min_relevant_results_by_type={"message": 1})
    store.update_thread("t", metadata={"x": 1})
    thread.delete_message(first)
    store.add_user("u2", "likes tea")
    store.list_users()
    assert store.count_users() == 1
    store.delete_user("u2")
    _service_workload(store)


def _service_workload(store: GraphMemory) -> None:
    from graphmem.service.blocks import BlockService
    from graphmem.service.keys import create_key, list_keys, revoke_key, verify_key
    from graphmem.service.schemas import AddMemoryBody, UpdateMemoryBody

    text, row = create_key(store._store, "read")
    assert verify_key(store._store, text) == "read"
    assert [k.key_id for k in list_keys(store._store)] == [row.key_id]
    revoke_key(store._store, row.key_id)
    store.create_thread("s", user_id="u3")
    blocks = BlockService(store, None)
    block = blocks.add("s", AddMemoryBody(facts=["tea at five"], async_processing=False))
    change = UpdateMemoryBody(prompt_id="default", async_processing=False)
    blocks.update("s", block.block_id, change)  # processed: a later block may be claimed
    assert blocks.list_blocks("s", 10, 0)[1] == 1
    queued = blocks.add("s", AddMemoryBody(facts=["tea at six"], async_processing=True))
    assert blocks._claim(queued.block_id) is not None
    assert blocks.renew_leases() == 1
    blocks.start()  # looks for blocks to take over and queue
    blocks.stop()  # hands back what it holds
    store.delete_thread("s")


class _FlakyLlm:
    """Fails its first extraction, then extracts one fact (no network)."""

    model = "flaky"

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: object, *, json_schema: object = None) -> str:
        self.calls += 1
        if self.calls == 1:
            raise ModelError("scripted failure", status=500, provider_message="down")
        record = {"record_type": "fact", "content": "The user drinks tea.", "source_messages": [1]}
        return json.dumps({"records": [record]})


def _job_workload(path: Path, store_id: str) -> None:
    with GraphMemory(
        path,
        memory_store_id=store_id,
        llm=_FlakyLlm(),
        extraction_workers=0,
        extraction_max_attempts=1,
    ) as memory:
        config = {"memory_extraction_frequency": 1, "memory_link_extraction_mode": "DISABLED"}
        thread = memory.create_thread(
            "tj", user_id="u3", memory_extraction_config=config, enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "I drink tea."}])
        assert memory.run_jobs() == 1
        (failed,) = memory.list_jobs(status="failed")
        memory.retry_job(failed.job_id)
        thread.wait_for_memory_extraction(timeout=30)
        assert memory.get_job(failed.job_id).status == "done"
        # a job left running by an owner that is gone (this pid, no longer open)
        left = thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
        store, now = memory._store, utc_now()
        with store.transaction():
            gone = f"{socket.gethostname()}:{os.getpid()}:gone"
            assert store.claim_job(gone, now, now + timedelta(seconds=600), None) is not None
            assert store.renew_job_lease(left, gone, now, now + timedelta(seconds=900))
        assert memory._jobs.recover(force=True) == 1
        assert memory.get_job(left).status == "queued"


def _search_without_vector_cache(path: Path, store_id: str) -> None:
    store = SqliteStore(path, store_id, vector_cache=False)
    try:
        dim = store.stored_embedder()[1] or 1
        store.nearest(SearchFilters(), np.ones(dim, np.float32), 3, False)
        # without the copy, a user's keyword doc ids are read in SQL
        store.keyword(SearchFilters(user_id="u"), ["tea"], 3, False)
    finally:
        store.close()


def _search_with_doc_ids_far_apart(path: Path, store_id: str) -> None:
    store = SqliteStore(path, store_id)
    try:
        # doc ids too far apart for a byte map go to SQL as a JSON array
        with (
            mock.patch.object(vector_cache, "MAP_BYTES_PER_DOC", 0),
            mock.patch.object(vector_cache, "MAP_MIN_BYTES", 0),
        ):
            store.keyword(SearchFilters(user_id="u"), ["tea"], 3, False)
    finally:
        store.close()


def test_every_sqlite_statement_called_with_its_binds(tmp_path: Path, calls: list[str]) -> None:
    with GraphMemory(tmp_path / "w.db") as store:
        _workload(store)
    _job_workload(tmp_path / "w.db", "graphmem")
    _search_without_vector_cache(tmp_path / "w.db", "graphmem")
    _search_with_doc_ids_far_apart(tmp_path / "w.db", "graphmem")
    with GraphMemory(tmp_path / "w.db", schema_policy=SchemaPolicy.REQUIRE_EXISTING) as store:
        store.list_memories()
    # Only a store with another id can have tables of the older layout to look for
    # (the prefixed test below sends count-legacy-tables).
    assert set(load_statements("sqlite")) - set(calls) == {"count-legacy-tables"}


def test_every_sqlite_statement_called_with_prefix(tmp_path: Path, calls: list[str]) -> None:
    with GraphMemory(tmp_path / "w.db", memory_store_id="Other_Store") as store:
        _workload(store)
        assert [m.id for m in store.list_memories()] == ["a", "b", "c", "e"]
    _job_workload(tmp_path / "w.db", "Other_Store")
    _search_without_vector_cache(tmp_path / "w.db", "Other_Store")
    _search_with_doc_ids_far_apart(tmp_path / "w.db", "Other_Store")
    assert set(load_statements("sqlite")) - set(calls) == set()


# the scripts as a DBA runs them -------------------------------------------------


def _objects(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
    finally:
        conn.close()


def _run_file(path: Path, script: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(script.read_text("utf-8"))
    finally:
        conn.close()


def test_install_script_runs_as_is(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    _run_file(path, SQLITE_DIR / "install.sql")
    objects = _objects(path)
    assert ("table", "graphmem_memory") in objects
    assert ("table", "graphmem_link") in objects
    assert ("table", "graphmem_meta") in objects
    assert sum(1 for kind, _ in objects if kind == "trigger") >= 6


def test_install_script_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    _run_file(path, SQLITE_DIR / "install.sql")
    first = _objects(path)
    _run_file(path, SQLITE_DIR / "install.sql")
    assert _objects(path) == first


def test_install_script_keeps_data_when_rerun(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    with GraphMemory(path) as store:
        store.add_memory("kept", memory_id="m")
    _run_file(path, SQLITE_DIR / "install.sql")
    with GraphMemory(path, schema_policy=SchemaPolicy.REQUIRE_EXISTING) as store:
        assert store.get_memory("m").content == "kept"


def test_install_script_store_usable_with_require_existing(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    _run_file(path, SQLITE_DIR / "install.sql")
    with GraphMemory(path, schema_policy=SchemaPolicy.REQUIRE_EXISTING) as store:
        store.add_memory("new", memory_id="n")
        store.add_memory("old", memory_id="o")
        store.link_records("n", "memory", "o", "memory", "supersedes")
        assert store.get_memory("o").status == "invalid"


def test_install_script_matches_store_schema(tmp_path: Path) -> None:
    by_script = tmp_path / "script.db"
    by_store = tmp_path / "store.db"
    _run_file(by_script, SQLITE_DIR / "install.sql")
    GraphMemory(by_store).close()
    assert _objects(by_script) == _objects(by_store)


def test_uninstall_script_removes_everything(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    with GraphMemory(path) as store:
        store.add_memory("x")
    _run_file(path, SQLITE_DIR / "uninstall.sql")
    assert _objects(path) == []


def test_uninstall_script_leaves_other_store(tmp_path: Path) -> None:
    path = tmp_path / "dba.db"
    GraphMemory(path).close()
    with GraphMemory(path, memory_store_id="other") as store:
        store.add_memory("kept", memory_id="m")
    _run_file(path, SQLITE_DIR / "uninstall.sql")
    with GraphMemory(
        path, memory_store_id="other", schema_policy=SchemaPolicy.REQUIRE_EXISTING
    ) as store:
        assert store.get_memory("m").content == "kept"


def test_session_script_idempotent() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(load_script("sqlite", "session"))
        conn.executescript(load_script("sqlite", "session"))
        temp = conn.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'").fetchall()
        assert temp
    finally:
        conn.close()
