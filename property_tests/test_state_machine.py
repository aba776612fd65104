"""Random operation sequences on the SQLite store, checked step by step against
the networkx reference model (validity, records, links, exact search trees)."""

from graphmem.testing.machine import GraphMemoryMachine

TestGraphMemoryMachine = GraphMemoryMachine.TestCase
