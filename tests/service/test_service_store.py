"""The memory service's tables: the v4 -> v5 upgrade, and the store methods on every store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.errors import ConflictError
from graphmem.stores.base import Store
from graphmem.stores.service_base import StoredApiKey, StoredBlock
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.testing.memory_store import MemoryStore

_V4_DUMP = Path(__file__).parents[1] / "data" / "store_v4.sql"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_v4_store_is_upgraded_to_hold_keys_and_blocks(tmp_path: Path) -> None:
    old = tmp_path / "v4.db"
    conn = sqlite3.connect(old)
    conn.executescript(_V4_DUMP.read_text(encoding="utf-8"))
    assert conn.execute(
        "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    ).fetchone() == ("4",)
    conn.close()
    with GraphMemory(old, embedder=HashingEmbedder(dim=8)) as memory:
        assert memory.get_memory("a").content == "Likes tea."
        assert [m.content for m in memory.get_thread("t").get_messages()] == ["hello"]
        assert memory.get_prompt("p").prompt == "Extract numbers."
        assert [r.id for r in memory.search("tea", strategy="keyword")] == ["a"]
        store = memory._store
        with store.transaction():
            store.insert_block(_block("b1", "t"))
        assert store.get_block("b1") == _block("b1", "t")
    conn = sqlite3.connect(old)
    try:
        assert conn.execute(
            "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
        ).fetchone() == (SCHEMA_VERSION,)
    finally:
        conn.close()


def _block(block_id: str, thread_id: str, status: str = "pending", at: int = 0) -> StoredBlock:
    when = T0 + timedelta(seconds=at)
    content = {"messages": [{"user_content": "hi", "assistant_content": None}], "facts": ["f"]}
    return StoredBlock(
        block_id, thread_id, status, content, "p", None, None, True, None, [], None, when, when
    )


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        memory = GraphMemory(MemoryStore(), embedder=HashingEmbedder(dim=8))
    else:
        memory = GraphMemory(tmp_path / "s.db", embedder=HashingEmbedder(dim=8))
    memory.create_thread("t1", user_id="u")
    memory.create_thread("t2", user_id="u")
    yield memory._store
    memory.close()


def test_api_keys_insert_get_list_revoke(store: Store) -> None:
    key = StoredApiKey("k1", "ab" * 32, "read", "ci", T0)
    with store.transaction():
        store.insert_api_key(key)
        store.insert_api_key(StoredApiKey("k2", "cd" * 32, "admin", None, T0 + timedelta(1)))
    assert store.get_api_key("k1") == key
    assert store.get_api_key("nope") is None
    assert [k.key_id for k in store.list_api_keys()] == ["k1", "k2"]
    with pytest.raises(ConflictError), store.transaction():
        store.insert_api_key(key)
    with store.transaction():
        assert store.revoke_api_key("k1", T0 + timedelta(2)) is True
        assert store.revoke_api_key("k1", T0 + timedelta(3)) is False
        assert store.revoke_api_key("nope", T0) is False
    assert store.get_api_key("k1").revoked_at == T0 + timedelta(2)  # type: ignore[union-attr]


def test_blocks_insert_update_list_and_cascade(store: Store) -> None:
    with store.transaction():
        store.insert_block(_block("b1", "t1", at=1))
        store.insert_block(_block("b2", "t1", status="processing", at=2))
        store.insert_block(_block("b3", "t2", status="ready", at=3))
    with pytest.raises(ConflictError), store.transaction():
        store.insert_block(_block("b1", "t1"))
    assert [b.block_id for b in store.list_blocks("t1", 10, 0)] == ["b1", "b2"]
    assert [b.block_id for b in store.list_blocks("t1", 1, 1)] == ["b2"]
    assert store.count_blocks("t1") == 2
    assert [b.block_id for b in store.unfinished_blocks(10)] == ["b1", "b2"]
    done = StoredBlock(
        "b1",
        "t1",
        "ready",
        {"messages": [], "facts": ["g"]},
        None,
        None,
        4,
        True,
        "sum",
        ["r1", "r2"],
        None,
        T0,
        T0 + timedelta(9),
    )
    with store.transaction():
        store.update_block(done)
    got = store.get_block("b1")
    assert got is not None
    assert (got.status, got.summary, got.record_ids, got.resolved_vid) == (
        "ready",
        "sum",
        ["r1", "r2"],
        4,
    )
    assert got.created_at == T0 + timedelta(seconds=1)  # creation time is kept
    with store.transaction():
        store.delete_scope("t1", None, None)  # deleting a thread takes its blocks
    assert store.get_block("b1") is None
    assert store.list_blocks("t1", 10, 0) == []
    assert store.get_block("b3") is not None
