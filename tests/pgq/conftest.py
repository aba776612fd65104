"""A small property graph in SQLite for the lowering tests.

people: 1 alice (score 3), 2 bob (1), 3 carol (2); company: 10 acme (score 5).
knows: 100 alice->bob (since 2020), 101 bob->carol (2021), 102 carol->carol (2022).
works: 200 alice->acme.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graphmem.pgq import PropertyGraph, lower, parse_property_graph

DDL = """
CREATE PROPERTY GRAPH g
  VERTEX TABLES (
    person KEY (pid) LABEL person PROPERTIES (pid AS id, name, score) LABEL entity,
    company KEY (id) LABEL company PROPERTIES (id, name)
  )
  EDGE TABLES (
    knows KEY (kid)
      SOURCE KEY (src) REFERENCES person (pid)
      DESTINATION KEY (dst) REFERENCES person (pid)
      LABEL knows PROPERTIES (kid AS id, since),
    works KEY (wid)
      SOURCE KEY (p) REFERENCES person (pid)
      DESTINATION KEY (c) REFERENCES company (id)
      LABEL works PROPERTIES (wid AS id)
  )
"""

ROWS = """
CREATE TABLE person (pid INTEGER PRIMARY KEY, name TEXT, score INTEGER);
CREATE TABLE company (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
CREATE TABLE knows (kid INTEGER PRIMARY KEY, src INTEGER, dst INTEGER, since INTEGER);
CREATE TABLE works (wid INTEGER PRIMARY KEY, p INTEGER, c INTEGER);
INSERT INTO person VALUES (1, 'alice', 3), (2, 'bob', 1), (3, 'carol', 2);
INSERT INTO company VALUES (10, 'acme', 5);
INSERT INTO knows VALUES (100, 1, 2, 2020), (101, 2, 3, 2021), (102, 3, 3, 2022);
INSERT INTO works VALUES (200, 1, 10);
"""

Run = Callable[..., Counter[tuple[Any, ...]]]


@pytest.fixture
def graph() -> PropertyGraph:
    return parse_property_graph(DDL)


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.executescript(ROWS)
    yield connection
    connection.close()


@pytest.fixture
def run(graph: PropertyGraph, db: sqlite3.Connection) -> Run:
    """Lower a query for SQLite, run it, and return its rows as a multiset."""

    def run_query(sql: str, **binds: Any) -> Counter[tuple[Any, ...]]:
        return Counter(db.execute(lower(sql, graph, "sqlite"), binds).fetchall())

    return run_query


@pytest.fixture
def match(run: Run) -> Run:
    """Run ``SELECT * FROM GRAPH_TABLE (g MATCH <pattern> COLUMNS (<columns>))``."""

    def run_match(pattern: str, columns: str, **binds: Any) -> Counter[tuple[Any, ...]]:
        return run(f"SELECT * FROM GRAPH_TABLE (g MATCH {pattern} COLUMNS ({columns})) t", **binds)

    return run_match
