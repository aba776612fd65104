"""Every write that reads a thread's row to decide that row's update locks the row
first, in the same transaction (``lock-thread``): on Oracle, whose reads are READ
COMMITTED, two such writes would otherwise each write back what it read before the
other committed. SQLite serializes writers already; the order of the calls is the
same on both, and is checked here on a real file, the statement itself statically."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.service.blocks import BlockService
from graphmem.service.schemas import AddMemoryBody, UpdateMemoryBody
from graphmem.sqlfiles import load_statements
from graphmem.stores.job_base import StoredJob


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[tuple[GraphMemory, list[tuple[str, int]]]]:
    memory = GraphMemory(tmp_path / "locks.db", embedder=HashingEmbedder(dim=8))
    store: Any = memory._store
    calls: list[tuple[str, int]] = []
    for name in (
        "lock_thread",
        "get_thread",
        "update_thread",
        "insert_block",
        "lock_block",
        "get_block",
        "update_block",
    ):
        method = getattr(store, name)

        def spy(*args: Any, _name: str = name, _method: Any = method) -> Any:
            calls.append((_name, store._depth))
            return _method(*args)

        setattr(store, name, spy)
    yield memory, calls
    memory.close()


def _writes(calls: list[tuple[str, int]]) -> list[str]:
    """The calls made inside the caller's write transaction (depth 1 or more) that
    read or change a thread row; get_thread opens a nested read in there."""
    return [name for name, depth in calls if depth >= 1]


def test_update_thread_locks_before_it_reads(traced: Any) -> None:
    memory, calls = traced
    memory.create_thread("t", user_id="u")
    calls.clear()
    memory.update_thread("t", metadata={"k": 1})
    assert _writes(calls)[:3] == ["lock_thread", "get_thread", "update_thread"]


def test_the_summary_is_stored_under_the_lock(traced: Any) -> None:
    memory, calls = traced
    thread = memory.create_thread(
        "t", user_id="u", enable_context_summary=True, context_summary_update_frequency=2
    )
    calls.clear()
    thread.add_messages([{"role": "user", "content": "Hi."}, {"role": "user", "content": "Tea."}])
    written = _writes(calls)
    at = written.index("update_thread")
    assert written[at - 2 : at] == ["lock_thread", "get_thread"]


def test_an_edit_under_the_summary_forgets_it_under_the_lock(traced: Any) -> None:
    memory, calls = traced
    thread = memory.create_thread(
        "t", user_id="u", enable_context_summary=True, context_summary_update_frequency=1
    )
    thread.add_messages([{"role": "user", "content": "Hi."}])
    message = thread.get_messages()[0]
    calls.clear()
    thread.update_message(message.id, content="Hello.")
    written = _writes(calls)
    at = written.index("update_thread")
    assert written[at - 2 : at] == ["lock_thread", "get_thread"]


def test_a_block_is_accepted_under_its_sessions_lock(traced: Any) -> None:
    memory, calls = traced
    memory.create_thread("s", user_id="u")
    blocks = BlockService(memory, None)
    calls.clear()
    blocks.add("s", AddMemoryBody(facts=["One."], context_required=False))
    written = _writes(calls)
    assert written.index("lock_thread") < written.index("insert_block")


@pytest.mark.parametrize("prompt_change", [False, True])
def test_a_blocks_holder_locks_it_before_each_read_that_decides_a_write(
    traced: Any, prompt_change: bool
) -> None:
    """Its kept record ids, its extraction state, its outcome, a change of prompt:
    each update of the block follows a lock and a read of it in the same write."""
    memory, calls = traced
    memory.create_thread("s", user_id="u")
    blocks = BlockService(memory, None)
    body = AddMemoryBody(facts=["One."], context_required=False, async_processing=False)
    block = blocks.add("s", body)
    assert block.status == "ready" and block.record_ids
    if prompt_change:
        calls.clear()
        change = UpdateMemoryBody(prompt_id="default", async_processing=False)
        assert blocks.update("s", block.block_id, change).status == "ready"
    written = [name for name in _writes(calls) if name.endswith("_block")]
    updates = [at for at, name in enumerate(written) if name == "update_block"]
    assert updates
    for at in updates:
        assert written[at - 2 : at] == ["lock_block", "get_block"], written


@pytest.mark.parametrize("statement", ["lock-thread", "lock-block"])
def test_oracle_locks_the_row_and_sqlite_reads_the_key(statement: str) -> None:
    oracle, sqlite = load_statements("oracle"), load_statements("sqlite")
    assert oracle[statement].sql.rstrip().upper().endswith("FOR UPDATE")
    assert "FOR UPDATE" not in sqlite[statement].sql.upper()
    key = statement.split("-")[1] + "_id"
    assert oracle[statement].binds == sqlite[statement].binds == {key}


def _statements(memory: GraphMemory) -> list[str]:
    """The names of the statements the store runs from now on."""
    store: Any = memory._store
    names: list[str] = []
    run = store._run

    def spy(name: str, **binds: Any) -> Any:
        names.append(name)
        return run(name, **binds)

    store._run = spy
    return names


def _job(job_id: str, status: str) -> StoredJob:
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return StoredJob(job_id, "extract", "t", status, 0, 0, None, None, at, None, {}, None, at, at)


def test_a_job_is_claimed_under_its_threads_lock(tmp_path: Path) -> None:
    with GraphMemory(
        tmp_path / "j.db", embedder=HashingEmbedder(dim=8), extraction_workers=0
    ) as memory:
        store: Any = memory._store
        memory.create_thread("t")
        with store.transaction():
            store.insert_job(_job("j", "queued"))
        names = _statements(memory)
        now = datetime(2026, 1, 2, tzinfo=timezone.utc)
        with store.transaction():
            assert store.claim_job("me", now, now + timedelta(minutes=1), None).job_id == "j"
        assert names == ["next-job", "lock-thread", "claim-job", "get-job"]


def test_a_job_is_retried_under_its_threads_lock(tmp_path: Path) -> None:
    with GraphMemory(
        tmp_path / "j.db", embedder=HashingEmbedder(dim=8), extraction_workers=0
    ) as memory:
        memory.create_thread("t")
        with memory._store.transaction():
            memory._store.insert_job(_job("j", "failed"))
        names = _statements(memory)
        assert memory.retry_job("j").status == "queued"
        assert names.index("lock-thread") < names.index("retry-job")
