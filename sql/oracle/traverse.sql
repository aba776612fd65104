-- Linked context: the shortest-path tree of docs/semantics.md section 3, level by level (Oracle).
--
-- graphmem.stores.oracle.OracleStore runs, for one search: reset-traversal-*,
-- insert-traversal-root and open-traversal-root for every direct result, then
-- expand-level (sql/pgq/expand_level.sql; expand-level-uncapped
-- when max_linked_results is None: GRAPH_TABLE, run natively, or lowered
-- to plain SQL by graphmem.pgq when use_native_pgq=False) for depth 1..num_hops,
-- each followed by count-level (stopping early once every root holds
-- max_linked_results nodes or a level reaches nothing), trim-traversal-root and
-- close-traversal-root for roots that are full, then select-linked-context. Each level expands only
-- the nodes first reached at the previous level and anti-joins those already
-- reached, so the cost follows the part of the graph reached.
-- The work tables are global temporary tables (install.sql): rows are private to
-- the session, so concurrent searches do not see each other.

-- name: reset-traversal-reached
-- Forget the previous search's nodes.
DELETE FROM graphmem_reached;

-- name: reset-traversal-roots
-- Forget the previous search's roots.
DELETE FROM graphmem_roots;

-- name: insert-traversal-root
-- One direct result, reached at depth 0 from itself.
INSERT INTO graphmem_reached (root_id, node_id, depth) VALUES (:root_id, :root_id, 0);

-- name: open-traversal-root
-- Mark a root as still expanding.
INSERT INTO graphmem_roots (root_id, open) VALUES (:root_id, 1);

-- name: close-traversal-root
-- A root that holds max_linked_results nodes stops expanding.
UPDATE graphmem_roots SET open = 0 WHERE root_id = :root_id;

-- name: count-level
-- How many nodes each root reached at :depth (roots with none are absent).
SELECT root_id, COUNT(*) FROM graphmem_reached WHERE depth = :depth GROUP BY root_id;

-- name: trim-traversal-root
-- A root that reached max_linked_results nodes at :depth keeps only the first
-- :keep of that level in rank order (link created_at, relation_id, record_id);
-- the others can never be shown.
DELETE FROM graphmem_reached
WHERE root_id = :root_id AND depth = :depth
  AND node_id NOT IN (
        SELECT t.node_id FROM graphmem_reached t
        WHERE t.root_id = :root_id AND t.depth = :depth
        ORDER BY t.link_created_at, t.relation_id, t.node_id
        FETCH FIRST :keep ROWS ONLY);

-- name: select-linked-context
-- The kept tree of every root (trim-traversal-root has cut it to
-- max_linked_results), in rank order: depth, link created_at, relation_id,
-- record_id.
SELECT k.root_id, k.node_id, k.parent_id, k.depth, k.link_created_at,
       l.relation_id, l.source_id, s.record_type, l.target_id, t.record_type,
       l.relation_type, l.opposite_relation_type, l.relation_timestamp, l.metadata,
       l.created_at
FROM graphmem_reached k
JOIN graphmem_link l ON l.relation_id = k.relation_id
JOIN graphmem_memory s ON s.record_id = l.source_id
JOIN graphmem_memory t ON t.record_id = l.target_id
WHERE k.depth > 0
ORDER BY k.root_id, k.depth, k.link_created_at, k.relation_id, k.node_id;
