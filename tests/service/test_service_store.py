"""The memory service's tables: the v4 -> v5 upgrade, and the store methods on every store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
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
    assert store.pending_block_ids(10) == ["b1"]
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


def test_a_block_is_claimed_once_and_its_lease_kept_by_its_holder_only(store: Store) -> None:
    later, much_later = T0 + timedelta(seconds=900), T0 + timedelta(seconds=1800)
    with store.transaction():
        store.insert_block(_block("b1", "t1", at=1))
        store.insert_block(_block("b2", "t1", at=2))
        store.insert_block(_block("b3", "t2", status="ready", at=3))
    assert store.pending_block_ids(10) == ["b1", "b2"]
    assert store.pending_block_ids(1) == ["b1"]
    with store.transaction():
        assert store.claim_block("b1", "h:1:a", T0, later)
        assert not store.claim_block("b1", "h:1:b", T0, later)  # taken already
        assert not store.claim_block("b3", "h:1:b", T0, later)  # not pending
        assert not store.claim_block("nope", "h:1:b", T0, later)
    held = store.get_block("b1")
    assert held is not None
    assert (held.status, held.owner, held.lease_until, held.updated_at) == (
        "processing", "h:1:a", later, T0
    )  # fmt: skip
    assert store.pending_block_ids(10) == ["b2"]
    assert store.processing_block_owners() == ["h:1:a"]
    with store.transaction():
        assert not store.renew_block_lease("b1", "h:1:b", much_later)  # not its holder
        assert not store.renew_block_lease("b2", "h:1:a", much_later)  # not processing
        assert store.renew_block_lease("b1", "h:1:a", much_later)
    renewed = store.get_block("b1")
    assert renewed is not None
    assert (renewed.lease_until, renewed.updated_at) == (much_later, T0)  # the claim's mark
    # a lease still running is not released; another holder's release is not this one
    with store.transaction():
        assert store.release_blocks(None, later) == 0
        assert store.release_blocks("h:1:b", later) == 0
    assert store.get_block("b1") == renewed
    # once it ran out, the block is pending again, with a new mark
    gone_at = much_later + timedelta(seconds=1)
    with store.transaction():
        assert store.release_blocks(None, gone_at) == 1
    released = store.get_block("b1")
    assert released is not None
    assert (released.status, released.owner, released.lease_until, released.updated_at) == (
        "pending", None, None, gone_at
    )  # fmt: skip
    # a holder's release takes back its blocks whatever their lease
    with store.transaction():
        assert store.claim_block("b1", "h:1:a", T0, much_later)
        assert store.release_blocks("h:1:a", T0) == 1
    assert store.processing_block_owners() == []
    # a block processing without a holder (written before leases) is released
    with store.transaction():
        store.update_block(replace(_block("b2", "t1", at=2), status="processing"))
        assert store.release_blocks(None, T0) == 1
    assert store.get_block("b2").status == "pending"  # type: ignore[union-attr]


def test_a_block_is_claimed_only_after_the_earlier_blocks_of_its_thread(store: Store) -> None:
    later = T0 + timedelta(seconds=900)
    with store.transaction():
        store.insert_block(_block("b2", "t1", at=2))
        store.insert_block(_block("b1", "t1", at=1))
        store.insert_block(_block("b3", "t1", at=2))  # the same time as b2: by id after it
        store.insert_block(_block("done", "t1", status="ready", at=0))
        store.insert_block(_block("other", "t2", at=3))
    assert store.unfinished_blocks("t1", None, 10) == [
        ("b1", "pending"), ("b2", "pending"), ("b3", "pending")
    ]  # fmt: skip
    assert store.unfinished_blocks("t1", (T0 + timedelta(seconds=2), "b3"), 10) == [
        ("b1", "pending"), ("b2", "pending")
    ]  # fmt: skip
    assert store.unfinished_blocks("t1", (T0 + timedelta(seconds=2), "b2"), 1) == [
        ("b1", "pending")
    ]
    with store.transaction():
        assert not store.claim_block("b2", "h:1:a", T0, later)  # b1 first
        assert not store.claim_block("b3", "h:1:a", T0, later)
        assert store.claim_block("other", "h:1:a", T0, later)  # another thread's: free
        assert store.claim_block("b1", "h:1:a", T0, later)
        assert not store.claim_block("b2", "h:1:a", T0, later)  # b1 is processing
    assert store.unfinished_blocks("t1", None, 10)[0] == ("b1", "processing")
    assert store.pending_block_ids(10) == ["b2", "b3"]
    with store.transaction():
        store.update_block(replace(_block("b1", "t1", at=1), status="failed"))
        assert not store.claim_block("b3", "h:1:a", T0, later)  # b2 first
        assert store.claim_block("b2", "h:1:a", T0, later)
        store.update_block(replace(_block("b2", "t1", at=2), status="ready"))
        assert store.claim_block("b3", "h:1:a", T0, later)
    assert store.unfinished_blocks("t1", None, 10) == [("b3", "processing")]


def test_the_ordered_claim_reads_only_unfinished_blocks(tmp_path: Path) -> None:
    # SQLite's plans: the earlier blocks of the thread are found through the status
    # index (the unfinished ones), not by reading every block of the thread.
    with GraphMemory(tmp_path / "plans.db", embedder=HashingEmbedder(dim=8)) as memory:
        store = memory._store
        for name in ("claim-block", "unfinished-blocks"):
            statement = store._sql[name]  # type: ignore[attr-defined]
            binds = dict.fromkeys(statement.binds)
            plan = [
                row[3]
                for row in store._conn.execute(  # type: ignore[attr-defined]
                    "EXPLAIN QUERY PLAN " + statement.sql, binds
                )
            ]
            searches = [step for step in plan if step.startswith(("SEARCH", "SCAN"))]
            assert any("graphmem_memory_block_status_ix" in step for step in searches), plan
            assert not any("block_thread_ix" in s or s.startswith("SCAN") for s in searches)


def test_v9_store_gets_block_leases_on_open(tmp_path: Path) -> None:
    old = tmp_path / "v9.db"
    conn = sqlite3.connect(old)
    conn.executescript((_V4_DUMP.parent / "sqlite_install_v9.sql").read_text(encoding="utf-8"))
    stamp = "2026-01-01T00:00:00.000000+00:00"
    conn.execute(
        "INSERT INTO graphmem_thread (thread_id, user_id, created_at, updated_at) "
        "VALUES ('t', 'u', ?, ?)",
        (stamp, stamp),
    )
    for block_id, status in (("left", "processing"), ("done", "ready")):
        conn.execute(
            "INSERT INTO graphmem_memory_block (block_id, thread_id, status, content, "
            "context_required, created_at, updated_at) VALUES (?, 't', ?, ?, 1, ?, ?)",
            (block_id, status, '{"messages":[],"facts":["f"]}', stamp, stamp),
        )
    conn.commit()
    version = "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    assert conn.execute(version).fetchone() == ("9",)
    conn.close()

    with GraphMemory(old, embedder=HashingEmbedder(dim=8)) as memory:
        store = memory._store
        left = store.get_block("left")
        assert left is not None
        assert (left.status, left.owner, left.lease_until) == ("processing", None, None)
        assert left.content == {"messages": [], "facts": ["f"]}
        with store.transaction():  # no lease: a worker's look takes it over
            assert store.release_blocks(None, T0) == 1
        assert store.pending_block_ids(10) == ["left"]
        assert store.get_block("done").status == "ready"  # type: ignore[union-attr]
    fresh = tmp_path / "fresh.db"
    GraphMemory(fresh, embedder=HashingEmbedder(dim=8)).close()
    objects = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    conn, fresh_conn = sqlite3.connect(old), sqlite3.connect(fresh)
    try:
        assert conn.execute(version).fetchone() == (SCHEMA_VERSION,) == ("12",)
        assert set(conn.execute(objects)) == set(fresh_conn.execute(objects))
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
        fresh_conn.close()
