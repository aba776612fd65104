"""The async twins: every public method has one, they run on the worker pool, and
the conformance suite passes when driven through them."""

import asyncio
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from graphmem import GraphMemory
from graphmem.asyncpool import ASYNC_WORKERS
from graphmem.embedders import HashingEmbedder
from graphmem.testing.conformance import StoreConformance
from graphmem.testing.memory_store import MemoryStore


class ThroughAsync:
    """GraphMemory's sync API, each method call made through its async twin."""

    def __init__(self, memory: GraphMemory) -> None:
        self._memory = memory

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._memory, name)
        if not callable(value):
            return value
        twin = getattr(self._memory, f"{name}_async")  # a method without a twin fails here

        def call(*args: Any, **kwargs: Any) -> Any:
            return asyncio.run(twin(*args, **kwargs))

        return call


class TestSqliteThroughAsync(StoreConformance):
    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        return ThroughAsync(GraphMemory(":memory:", clock=clock))  # type: ignore[return-value]


class TestMemoryStoreThroughAsync(StoreConformance):
    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        return ThroughAsync(GraphMemory(MemoryStore(), clock=clock))  # type: ignore[return-value]


def test_async_every_public_method_has_a_twin() -> None:
    public = {
        name
        for name in dir(GraphMemory)
        if not name.startswith("_") and callable(getattr(GraphMemory, name))
    }
    sync = {name for name in public if not name.endswith("_async")}
    assert {f"{name}_async" for name in sync} <= public
    assert len(sync) >= 14


def test_async_calls_run_on_a_bounded_pool() -> None:
    threads: set[str] = set()
    active = peak = 0
    lock = threading.Lock()

    class SlowEmbedder:
        def embed(self, texts: Any) -> Any:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
                threads.add(threading.current_thread().name)
            threading.Event().wait(0.02)
            with lock:
                active -= 1
            return inner.embed(texts)

    inner = HashingEmbedder()

    async def main() -> list[Any]:
        async with GraphMemory(":memory:", embedder=SlowEmbedder()) as memory:
            calls = [memory.add_memory_async(f"note {i}", memory_id=f"m{i}") for i in range(12)]
            await asyncio.gather(*calls)
            return await memory.list_memories_async(limit=100)

    listed = asyncio.run(main())
    assert sorted(m.id for m in listed) == sorted(f"m{i}" for i in range(12))
    assert threads and all(name.startswith("graphmem") for name in threads)
    assert 1 < peak <= ASYNC_WORKERS
