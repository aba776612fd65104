"""A job's window is the last ``memory_extraction_window`` messages before its mark
that are still there (deleted and expired messages left out, the window reaching
further back instead), read by position; the same messages as reading the
thread's whole message list and keeping the tail."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder, MemoryExtractionConfig
from graphmem.extraction.run import ExtractionRequest, _window
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock
from graphmem.thread_models import ThreadInfo


def _listed_window(memory: GraphMemory, info: ThreadInfo, upto: int, size: int) -> list[str]:
    """The window as the whole message list gives it: the unexpired messages by
    position, the tail that reaches back to ``size`` messages before the mark."""
    store, now = memory._store, memory._clock()
    after = max(0, info.message_count - upto)
    with store.transaction(write=False):
        count = store.count_messages(info.thread_id, now)
        page = store.list_messages(info.thread_id, now, size + after, max(0, count - after - size))
    return [m.id for m in page if m.position < upto][-size:]


@pytest.mark.parametrize("kind", ["sqlite", "memory store"])
def test_the_window_skips_deleted_and_expired_messages_as_the_message_list_does(
    tmp_path: Path, kind: str
) -> None:
    clock = ManualClock()
    where = tmp_path / "w.db" if kind == "sqlite" else MemoryStore()
    with GraphMemory(where, embedder=HashingEmbedder(dim=8), clock=clock) as memory:  # type: ignore[arg-type]
        thread = memory.create_thread(
            "t", enable_context_summary=False, memory_extraction_config={"extract_memories": False}
        )
        ids: list[str] = []
        for batch in range(6):
            said = [{"role": "user", "content": f"said {batch}.{i}"} for i in range(5)]
            ids += thread.add_messages(said, ttl_days=1 if batch in (1, 4) else None)
        for gone in (ids[0], ids[12], ids[13], ids[17], ids[29]):
            thread.delete_message(gone)
        clock.advance(days=2)  # batches 1 and 4 expire
        info = thread.info()
        assert info.message_count == 30
        kept = [m.id for m in thread.get_messages()]
        assert len(kept) == 30 - 10 - 5
        config = MemoryExtractionConfig().model_dump(mode="json")
        for size in (1, 3, 10, 40):
            config["memory_extraction_window"] = size
            for upto in range(info.message_count + 1):
                request = ExtractionRequest("j", "t", config, upto=upto)
                window = [m.record_id for m in _window(memory, request, info)]
                assert window == _listed_window(memory, info, upto, size), (size, upto)
                assert window == [i for i in kept if ids.index(i) < upto][-size:]
