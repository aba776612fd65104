"""Random operation sequences on the SQLite store and on the in-memory store,
checked step by step against the networkx reference model (validity, records,
links, exact search trees)."""

from graphmem import GraphMemory
from graphmem.testing.machine import GraphMemoryMachine
from graphmem.testing.memory_store import MemoryStore

TestGraphMemoryMachine = GraphMemoryMachine.TestCase


class MemoryStoreMachine(GraphMemoryMachine):
    """The same machine over ``GraphMemory(MemoryStore())``."""

    def make_memory(self) -> GraphMemory:
        return GraphMemory(MemoryStore(), clock=self.clock)


TestMemoryStoreMachine = MemoryStoreMachine.TestCase
from graphmem.testing.machine_dba import SqliteDbaMachine  # noqa: E402

TestSqliteDbaMachine = SqliteDbaMachine.TestCase
"""The same machine with DBA DML (REPLACE included, foreign keys on or off)."""
