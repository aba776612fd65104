-- One level of the linked-context tree (docs/semantics.md section 3), as SQL/PGQ.
--
-- Oracle runs this text natively; the embedded store runs it lowered to plain
-- SQL by graphmem.pgq (so do Oracle sessions that reject SQL/PGQ). The store
-- runs it for depth 1..num_hops after loading the roots into graphmem_reached
-- (depth 0) and graphmem_roots, and the metadata filter into graphmem_filter;
-- see traverse.sql of each dialect for the statements around it.
-- Used by graphmem.stores.sqlite.SqliteStore and graphmem.stores.oracle.OracleStore.

-- name: expand-level
-- Reach the memories at distance :depth from each open root: the neighbours, over
-- links in either direction, of the nodes reached at :depth - 1, passing the
-- search filters and not reached before. The parent is the minimum (link
-- created_at, relation_id, parent id). The frontier comes from the work table by
-- a join, never as a list; the GRAPH_TABLE holds no subquery (SQL/PGQ engines
-- differ on those), so the metadata filter is applied beside it, before a node can
-- be reached or used as a stepping stone.
INSERT INTO graphmem_reached (root_id, node_id, depth, parent_id, relation_id, link_created_at)
SELECT c.root_id, c.node_id, :depth, c.parent_id, c.relation_id, c.link_created_at
FROM (
    SELECT f.root_id, g.node_id, g.parent_id, g.relation_id, g.link_created_at,
           ROW_NUMBER() OVER (
               PARTITION BY f.root_id, g.node_id
               ORDER BY g.link_created_at, g.relation_id, g.parent_id) AS pick
    FROM graphmem_reached f
    JOIN graphmem_roots o ON o.root_id = f.root_id AND o.open = 1
    JOIN GRAPH_TABLE (graphmem_graph
        MATCH (p IS memory) -[e IS memory_link]- (n IS memory)
        WHERE (:user_id IS NULL OR n.user_id = :user_id)
          AND (:agent_id IS NULL OR n.agent_id = :agent_id)
          AND (:thread_id IS NULL OR n.thread_id = :thread_id)
          AND n.record_type IN (:record_type_1, :record_type_2, :record_type_3, :record_type_4)
          AND (n.expires_at IS NULL OR n.expires_at > :now)
        COLUMNS (p.record_id AS parent_id, n.record_id AS node_id,
                 e.relation_id AS relation_id, e.created_at AS link_created_at)
    ) g ON g.parent_id = f.node_id
    WHERE f.depth = :depth - 1
      AND NOT EXISTS (
            SELECT 1 FROM graphmem_reached r
            WHERE r.root_id = f.root_id AND r.node_id = g.node_id)
      AND NOT EXISTS (
            SELECT 1 FROM graphmem_filter mf
            WHERE NOT EXISTS (
                SELECT 1 FROM graphmem_memory_meta x
                WHERE x.record_id = g.node_id
                  AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value))
) c
WHERE c.pick = 1;
