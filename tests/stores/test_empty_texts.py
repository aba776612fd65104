"""An empty optional text is stored and read back as ``None`` on every store.

Oracle stores ``''`` as NULL, so graphmem turns ``''`` into ``None`` before any
store sees it (graphmem.core.texts): a user's or agent's information, a thread's
summary, a memory block's summary and error, an API key's label and a job's last
error. These tests run on the embedded store and the in-memory test store, which
would otherwise keep the empty string.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.service.keys import create_key, list_keys
from graphmem.stores.job_base import StoredJob
from graphmem.stores.service_base import StoredBlock
from graphmem.testing.memory_store import MemoryStore

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(params=["sqlite", "memory"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphMemory]:
    store = MemoryStore() if request.param == "memory" else tmp_path / "s.db"
    with GraphMemory(store, embedder=HashingEmbedder(dim=8)) as memory:
        memory.create_thread("t", user_id="u")
        yield memory


def test_empty_texts_user_and_agent_information_read_back_as_none(memory: GraphMemory) -> None:
    memory.add_user("u1", information="")
    memory.add_agent("a1", information="")
    assert [u.information for u in memory.list_users()] == [None]
    assert [a.information for a in memory.list_agents()] == [None]


def test_empty_texts_thread_summary_reads_back_as_none(memory: GraphMemory) -> None:
    store = memory._store
    info = store.get_thread("t")
    assert info is not None
    # model_copy skips validation: the store itself must not keep the empty text
    store.update_thread(info.model_copy(update={"summary": "", "summarized_count": 0}))
    found = store.get_thread("t")
    assert found is not None and found.summary is None


def test_empty_texts_api_key_label_reads_back_as_none(memory: GraphMemory) -> None:
    _, row = create_key(memory._store, "read", "")
    assert row.label is None
    assert [k.label for k in list_keys(memory._store)] == [None]


def test_empty_texts_block_summary_and_error_read_back_as_none(memory: GraphMemory) -> None:
    store = memory._store
    content = {"messages": [], "facts": ["f"]}
    block = StoredBlock(
        "b", "t", "failed", content, None, None, None, False, "", [], "", T0, T0
    )  # fmt: skip
    with store.transaction():
        store.insert_block(block)
        found = store.get_block("b")
    assert found is not None and (found.summary, found.error) == (None, None)


def test_empty_texts_job_error_reads_back_as_none(memory: GraphMemory) -> None:
    store = memory._store
    job = StoredJob(
        "j", "extract", "t", "queued", 0, 0, None, None, T0, None, {"upto": 1}, None, T0, T0
    )
    with store.transaction():
        store.insert_job(job)
        assert store.claim_job("o", T0, T0 + timedelta(minutes=1), None) is not None
        assert store.fail_job("j", "o", status="failed", error="", not_before=T0, now=T0)
        found = store.get_job("j")
    assert found is not None and found.last_error is None
