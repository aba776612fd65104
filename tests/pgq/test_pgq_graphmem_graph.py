"""The graph DDL graphmem ships for Oracle parses, and its linked-memory query lowers to SQLite."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from graphmem.pgq import EdgeEnd, PropertyGraph, lower, parse_property_graph

GRAPHMEM_DDL = """
CREATE PROPERTY GRAPH IF NOT EXISTS graphmem_graph
  VERTEX TABLES (
    graphmem_memory AS memory KEY (record_id)
      LABEL memory PROPERTIES (record_id, record_type, status, user_id, agent_id, thread_id, metadata, created_at, expires_at)
  )
  EDGE TABLES (
    graphmem_link AS memory_link KEY (relation_id)
      SOURCE KEY (source_id) REFERENCES memory (record_id)
      DESTINATION KEY (target_id) REFERENCES memory (record_id)
      LABEL memory_link PROPERTIES (relation_id, relation_type, opposite_relation_type, created_at)
  )
"""  # noqa: E501 - kept exactly as shipped

NEIGHBOURS = """
SELECT * FROM GRAPH_TABLE (graphmem_graph
  MATCH (p IS memory) -[e IS memory_link]- (c IS memory)
  WHERE p.record_id = :node_id AND c.status = 'valid'
  COLUMNS (p.record_id AS parent_id, c.record_id AS node_id,
           e.relation_id AS relation_id, e.created_at AS link_created_at)) g
"""

SCHEMA = """
CREATE TABLE graphmem_memory (
  record_id TEXT PRIMARY KEY, record_type TEXT, status TEXT, user_id TEXT, agent_id TEXT,
  thread_id TEXT, metadata TEXT, created_at TEXT, expires_at TEXT);
CREATE TABLE graphmem_link (
  relation_id TEXT PRIMARY KEY, source_id TEXT, target_id TEXT, relation_type TEXT,
  opposite_relation_type TEXT, created_at TEXT);
INSERT INTO graphmem_memory (record_id, status) VALUES
  ('m1', 'valid'), ('m2', 'valid'), ('m3', 'invalid'), ('m4', 'valid');
INSERT INTO graphmem_link VALUES
  ('r1', 'm1', 'm2', 'supports', 'is_supported_by', 't1'),
  ('r2', 'm3', 'm1', 'supersedes', 'is_superseded_by', 't2'),
  ('r3', 'm4', 'm1', 'refines', 'is_refined_by', 't3'),
  ('r4', 'm2', 'm4', 'supports', 'is_supported_by', 't4');
"""


@pytest.fixture
def graphmem_graph() -> PropertyGraph:
    return parse_property_graph(GRAPHMEM_DDL)


@pytest.fixture
def graphmem_db() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.executescript(SCHEMA)
    yield connection
    connection.close()


def test_graphmem_ddl_parses(graphmem_graph: PropertyGraph) -> None:
    (memory,) = graphmem_graph.vertex_tables
    (link,) = graphmem_graph.edge_tables
    assert (graphmem_graph.name, graphmem_graph.if_not_exists) == ("graphmem_graph", True)
    assert (memory.alias, memory.table, memory.key) == ("memory", "graphmem_memory", ("record_id",))
    assert memory.labels["memory"].column_for("expires_at") == "expires_at"
    assert (link.alias, link.table, list(link.labels)) == (
        "memory_link",
        "graphmem_link",
        ["memory_link"],
    )
    assert link.source == EdgeEnd(("source_id",), "memory", ("record_id",))
    assert link.destination == EdgeEnd(("target_id",), "memory", ("record_id",))


def test_graphmem_neighbours_cover_both_orientations(
    graphmem_graph: PropertyGraph, graphmem_db: sqlite3.Connection
) -> None:
    sql = lower(NEIGHBOURS, graphmem_graph, "sqlite")
    got = sorted(graphmem_db.execute(sql, {"node_id": "m1"}).fetchall())
    # m1 -> m2 (outgoing), m4 -> m1 (incoming); m3 -> m1 is dropped, m3 is invalid.
    assert got == [("m1", "m2", "r1", "t1"), ("m1", "m4", "r3", "t3")]


def test_graphmem_neighbours_lower_for_oracle_too(graphmem_graph: PropertyGraph) -> None:
    sql = lower(NEIGHBOURS, graphmem_graph, "oracle")
    assert sql.count("UNION ALL") == 1
    assert "p.record_id" not in sql
    assert ":node_id" in sql
