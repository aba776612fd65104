"""The store-level conformance suite on every store this package ships."""

from graphmem.stores.base import Store
from graphmem.stores.sqlite import SqliteStore
from graphmem.testing.conformance_store import StoreTests
from graphmem.testing.memory_store import MemoryStore


class TestSqliteStore(StoreTests):
    def make_store(self) -> Store:
        return SqliteStore(":memory:", "graphmem")


class TestSqliteStoreWithoutVectorCache(StoreTests):
    """Every search read from SQL (select-search-candidates)."""

    def make_store(self) -> Store:
        return SqliteStore(":memory:", "graphmem", vector_cache=False)


class TestMemoryStore(StoreTests):
    def make_store(self) -> Store:
        return MemoryStore()
