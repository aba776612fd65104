"""The in-memory store passes the conformance suite that the SQL stores pass."""

from collections.abc import Callable
from datetime import datetime

from graphmem import GraphMemory
from graphmem.testing.conformance import StoreConformance
from graphmem.testing.memory_store import MemoryStore


class TestMemoryStoreConformance(StoreConformance):
    """``GraphMemory(MemoryStore())``: the reference model behind the store protocol."""

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        return GraphMemory(MemoryStore(), clock=clock)
