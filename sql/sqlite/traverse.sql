-- Linked context: the shortest-path tree of docs/semantics.md section 3, level by level (SQLite).
--
-- graphmem.stores.sqlite.SqliteStore runs, for one search: reset-traversal-*,
-- insert-traversal-root for every direct result, then expand-level
-- (sql/pgq/expand_level.sql; expand-level-uncapped
-- when max_linked_results is None, the SQL/PGQ text lowered by graphmem.pgq) for depth
-- 1..num_hops, each followed by count-level (stopping early once every root
-- holds max_linked_results nodes or a level reaches nothing) and
-- trim-traversal-root and close-traversal-root for roots that are full, then
-- select-linked-context.
-- Each level expands only the nodes first reached at the previous level and
-- anti-joins those already reached, so the cost follows the part of the graph
-- reached; no path is ever enumerated.
-- The work tables (session.sql) live in the connection's temp schema: readers
-- never take the database write lock.

-- name: reset-traversal-reached
-- Forget the previous search's nodes.
DELETE FROM temp.graphmem_reached;

-- name: reset-traversal-roots
-- Forget the previous search's roots.
DELETE FROM temp.graphmem_roots;

-- name: insert-traversal-root
-- One direct result, reached at depth 0 from itself (by its node number).
INSERT INTO temp.graphmem_reached (root_no, node_no, depth)
SELECT n.node_no, n.node_no, 0 FROM graphmem_node n WHERE n.record_id = :root_id;

-- name: open-traversal-root
-- Mark a root as still expanding.
INSERT INTO temp.graphmem_roots (root_no, open)
SELECT n.node_no, 1 FROM graphmem_node n WHERE n.record_id = :root_id;

-- name: close-traversal-root
-- A root that holds max_linked_results nodes stops expanding.
UPDATE temp.graphmem_roots SET open = 0 WHERE root_no = :root_no;

-- name: count-level
-- How many nodes each root reached at :depth (roots with none are absent).
SELECT root_no, COUNT(*) FROM temp.graphmem_reached WHERE depth = :depth GROUP BY root_no;

-- name: trim-traversal-root
-- A root that reached max_linked_results nodes at :depth keeps only the first
-- :keep of that level in rank order (link created_at, relation_id; two nodes of
-- one root's level never share a parent link, so record_id never decides);
-- the others can never be shown.
DELETE FROM temp.graphmem_reached
WHERE root_no = :root_no AND depth = :depth
  AND node_no NOT IN (
        SELECT t.node_no FROM temp.graphmem_reached t
        WHERE t.root_no = :root_no AND t.depth = :depth
        ORDER BY t.link_created_at, t.relation_id
        LIMIT :keep);

-- name: select-linked-context
-- The kept tree of every root (trim-traversal-root has cut it to
-- max_linked_results), in rank order: root id, depth, link created_at,
-- relation_id (two nodes of one root's level never share a parent link, so
-- record_id never decides). Nodes are numbers here: select-linked-nodes gives
-- their ids, select-linked-links the link rows, each once however many trees
-- share it.
SELECT k.root_no, k.node_no, k.parent_no, k.depth, k.link_created_at, k.relation_id
FROM temp.graphmem_reached k
JOIN graphmem_node r ON r.node_no = k.root_no
WHERE k.depth > 0
ORDER BY r.record_id, k.depth, k.link_created_at, k.relation_id;

-- name: select-linked-nodes
-- The id and type of every node of the kept trees, roots included.
SELECT n.node_no, n.record_id, n.record_type
FROM graphmem_node n
WHERE n.node_no IN (SELECT k.node_no FROM temp.graphmem_reached k);

-- name: select-linked-links
-- Each link of the kept trees once, as stored.
SELECT l.relation_id, l.source_id, l.target_id, l.relation_type,
       l.opposite_relation_type, l.relation_timestamp, l.metadata, l.created_at
FROM graphmem_link l
WHERE l.relation_id IN (SELECT k.relation_id FROM temp.graphmem_reached k WHERE k.depth > 0);
