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
-- One direct result, reached at depth 0 from itself (by its node number).
INSERT INTO graphmem_reached (root_no, node_no, depth)
SELECT n.node_no, n.node_no, 0 FROM graphmem_node n WHERE n.record_id = :root_id;

-- name: open-traversal-root
-- Mark a root as still expanding.
INSERT INTO graphmem_roots (root_no, open)
SELECT n.node_no, 1 FROM graphmem_node n WHERE n.record_id = :root_id;

-- name: close-traversal-root
-- A root that holds max_linked_results nodes stops expanding.
UPDATE graphmem_roots SET open = 0 WHERE root_no = :root_no;

-- name: count-level
-- How many nodes each root reached at :depth (roots with none are absent).
SELECT root_no, COUNT(*) FROM graphmem_reached WHERE depth = :depth GROUP BY root_no;

-- name: trim-traversal-root
-- A root that reached max_linked_results nodes at :depth keeps only the first
-- :keep of that level in rank order (link created_at, relation_id; two nodes of
-- one root's level never share a parent link, so record_id never decides);
-- the others can never be shown.
DELETE FROM graphmem_reached
WHERE root_no = :root_no AND depth = :depth
  AND node_no NOT IN (
        SELECT t.node_no FROM graphmem_reached t
        WHERE t.root_no = :root_no AND t.depth = :depth
        ORDER BY t.link_created_at, t.relation_id
        FETCH FIRST :keep ROWS ONLY);

-- name: select-linked-context
-- The kept tree of every root (trim-traversal-root has cut it to
-- max_linked_results), in rank order: root id, depth, link created_at,
-- relation_id. Nodes are numbers here: select-linked-nodes gives their ids,
-- select-linked-links the link rows (their relation_id and created_at
-- included), each once however many trees share it. The last column is the key
-- of the tree row's link in select-linked-links (here its relation_id).
SELECT k.root_no, k.node_no, k.parent_no, k.depth, k.relation_id
FROM graphmem_reached k
JOIN graphmem_node r ON r.node_no = k.root_no
WHERE k.depth > 0
ORDER BY r.record_id, k.depth, k.link_created_at, k.relation_id;

-- name: select-linked-nodes
-- The id and type of every node of the kept trees, roots included.
SELECT n.node_no, n.record_id, n.record_type
FROM graphmem_node n
WHERE n.node_no IN (SELECT k.node_no FROM graphmem_reached k);

-- name: select-linked-links
-- Each link of the kept trees once, as stored, after its key (its relation_id).
SELECT l.relation_id AS link_key, l.relation_id, l.source_id, l.target_id, l.relation_type,
       l.opposite_relation_type, l.relation_timestamp, l.metadata, l.created_at
FROM graphmem_link l
WHERE l.relation_id IN (SELECT k.relation_id FROM graphmem_reached k WHERE k.depth > 0);
