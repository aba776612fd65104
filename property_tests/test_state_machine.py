"""Random operation sequences on the SQLite store, checked step by step against
the networkx reference model (validity, records, links, exact search trees)."""

from graphmem.testing.machine import GraphMemoryMachine

TestGraphMemoryMachine = GraphMemoryMachine.TestCase

from graphmem.testing.machine_dba import SqliteDbaMachine  # noqa: E402

TestSqliteDbaMachine = SqliteDbaMachine.TestCase
"""The same machine with DBA DML (REPLACE included, foreign keys on or off)."""
