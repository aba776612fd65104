-- graphmem property graph: memories are the vertices, links the edges.
--
-- Oracle AI Database runs this text natively (sql/oracle/install.sql holds the
-- same statement); graphmem.pgq parses it to lower GRAPH_TABLE queries to plain
-- SQL for SQLite and for Oracle sessions that reject SQL/PGQ.
-- Used by graphmem.stores.sqlite.SqliteStore and graphmem.stores.oracle.OracleStore.

-- name: create-property-graph
-- Vertex table graphmem_memory (label memory), edge table graphmem_link (label
-- memory_link) from source_id to target_id. The traversal's view of the same
-- graph: vertex table graphmem_node (label node: a memory's number and search
-- filter columns) and edge table graphmem_adjacency (label adjacent: each link
-- once from each end, node_no to other_no, kept by triggers; link_no, since
-- version 8, is the link's number in graphmem_link; the other_* columns, since
-- version 9, are copies of the other_no node's search filter columns, so that a
-- traversal level tests a neighbour without reading its node row). OR REPLACE:
-- a store made before version 5 gets the new element tables when install.sql
-- runs again.
CREATE OR REPLACE PROPERTY GRAPH graphmem_graph
    VERTEX TABLES (
        graphmem_memory AS memory
            KEY (record_id)
            LABEL memory
            PROPERTIES (record_id, record_type, status, user_id, agent_id, thread_id,
                        created_at, expires_at),
        graphmem_node AS node
            KEY (node_no)
            LABEL node
            PROPERTIES (node_no, record_id, record_type, user_id, agent_id, thread_id,
                        expires_at)
    )
    EDGE TABLES (
        graphmem_link AS memory_link
            KEY (relation_id)
            SOURCE KEY (source_id) REFERENCES memory (record_id)
            DESTINATION KEY (target_id) REFERENCES memory (record_id)
            LABEL memory_link
            PROPERTIES (relation_id, source_id, target_id, relation_type,
                        opposite_relation_type, created_at),
        graphmem_adjacency AS adjacent
            KEY (node_no, created_at, relation_id)
            SOURCE KEY (node_no) REFERENCES node (node_no)
            DESTINATION KEY (other_no) REFERENCES node (node_no)
            LABEL adjacent
            PROPERTIES (node_no, other_no, created_at, relation_id, link_no,
                        other_record_type, other_user_id, other_agent_id,
                        other_thread_id, other_expires_at)
    );
