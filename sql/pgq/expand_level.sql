-- One level of the linked-context tree (SPEC section 3), as SQL/PGQ.
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
-- created_at, relation_id, parent id); the frontier is read from the work table,
-- never passed as a list.
INSERT INTO graphmem_reached (root_id, node_id, depth, parent_id, relation_id, link_created_at)
SELECT c.root_id, c.node_id, :depth, c.parent_id, c.relation_id, c.link_created_at
FROM (
    SELECT f.root_id, g.node_id, g.parent_id, g.relation_id, g.link_created_at,
           ROW_NUMBER() OVER (
               PARTITION BY f.root_id, g.node_id
               ORDER BY g.link_created_at, g.relation_id, g.parent_id) AS pick
    FROM GRAPH_TABLE (graphmem_graph
        MATCH (p IS memory) -[e IS memory_link]- (n IS memory)
        WHERE p.record_id IN (
                SELECT r.node_id
                FROM graphmem_reached r
                JOIN graphmem_roots o ON o.root_id = r.root_id AND o.open = 1
                WHERE r.depth = :depth - 1)
          AND (:user_id IS NULL OR n.user_id = :user_id)
          AND (:agent_id IS NULL OR n.agent_id = :agent_id)
          AND (:thread_id IS NULL OR n.thread_id = :thread_id)
          AND n.record_type IN (:record_type_1, :record_type_2, :record_type_3, :record_type_4)
          AND (n.expires_at IS NULL OR n.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM graphmem_filter mf
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = n.record_id
                      AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value))
        COLUMNS (p.record_id AS parent_id, n.record_id AS node_id,
                 e.relation_id AS relation_id, e.created_at AS link_created_at)
    ) g
    JOIN graphmem_reached f ON f.node_id = g.parent_id AND f.depth = :depth - 1
    JOIN graphmem_roots o ON o.root_id = f.root_id AND o.open = 1
    WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_reached r
            WHERE r.root_id = f.root_id AND r.node_id = g.node_id)
) c
WHERE c.pick = 1;
