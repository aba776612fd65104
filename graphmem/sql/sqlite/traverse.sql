-- Linked context: the shortest-path tree of docs/semantics.md section 3, level by level (SQLite).
--
-- graphmem.stores.sqlite.SqliteStore runs, for one search: reset-traversal-*,
-- insert-traversal-root and open-traversal-root for every direct result, then for
-- depth 1..num_hops: with max_linked_results, from depth 2 on and for roots whose
-- frontier is wide against their quota, a first pass (probe-level,
-- expand-level-keep, bound-level-root), then bound-level (sql/pgq/
-- expand_level.sql); expand-level-keep (the candidates of select-level-candidates,
-- SQL/PGQ text lowered by graphmem.pgq, kept by an upsert); with
-- max_linked_results, count-level-nodes, then trim-level-root and
-- close-traversal-root for roots that reach their cap; move-level and
-- reset-traversal-level. It stops once every root holds max_linked_results nodes
-- or a level reaches nothing (without a cap: the level statement wrote no row).
-- Then select-linked-context, select-numbered-nodes and select-numbered-links
-- read the trees back (the last two given the node and link numbers of the first
-- one's rows; Oracle's select-linked-nodes and select-linked-links read them from
-- its work table).
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

-- name: reset-traversal-level
-- Empty the level table (after move-level, and before a search).
DELETE FROM temp.graphmem_level;

-- name: probe-level
-- A capped level's first pass reads only the first :probe links of each frontier
-- node of the root :root_no: the bound of such a node is its :probe-th link in key
-- order (NULL, no bound, when it has fewer). :probe = 0 leaves the root out of the
-- first pass (the bound ('', '') is below every link). The link is searched once
-- for both columns (an aggregate over at most one row: NULLs when there is none).
-- expand-level-keep then keeps those candidates, and bound-level-root bounds each
-- root by them (see there).
UPDATE temp.graphmem_reached
SET (bound_created_at, bound_relation_id) = (
        SELECT COALESCE(MAX(d.created_at), CASE WHEN :probe = 0 THEN '' END),
               COALESCE(MAX(d.relation_id), CASE WHEN :probe = 0 THEN '' END)
        FROM (SELECT a.created_at, a.relation_id FROM graphmem_adjacency a
              WHERE a.node_no = temp.graphmem_reached.node_no AND :probe > 0
              ORDER BY a.created_at, a.relation_id
              LIMIT 1 OFFSET :probe - 1) d)
WHERE root_no = :root_no AND depth = :depth - 1;

-- name: bound-level-root
-- After the first pass of a capped level: a root that already kept at least
-- :keep (its remaining quota) nodes needs no link ranked after its :keep-th kept
-- one, over all its frontier nodes: those :keep nodes rank before anything such a
-- link could reach (a node is ranked by its earliest parent link, and depth leads).
-- Every frontier node of the root is bounded by that link; a root with fewer gets
-- no bound (NULL; the subquery finds no row). bound-level then limits the frontier
-- nodes that still have many links below that bound. The first pass's bound
-- becomes the node's read mark (its links up to the mark are in the level table
-- already; NULL, no bound, becomes '~', above every link; '', below every link,
-- for a root left out of the first pass), so the second pass of
-- expand-level-keep keeps only the links after the mark, up to the new bound.
-- Every SET expression reads the row as it was before the update.
UPDATE temp.graphmem_reached
SET read_created_at = COALESCE(bound_created_at, '~'),
    read_relation_id = COALESCE(bound_relation_id, '~'),
    (bound_created_at, bound_relation_id) = (
        SELECT l.link_created_at, l.relation_id
        FROM temp.graphmem_level l
        WHERE l.root_no = :root_no
        ORDER BY l.link_created_at, l.relation_id
        LIMIT 1 OFFSET :keep - 1)
WHERE root_no = :root_no AND depth = :depth - 1;

-- name: expand-level-keep
-- One level of the tree: the candidates of select-level-candidates
-- (sql/pgq/expand_level.sql, lowered by graphmem.pgq), which the store puts in
-- place of level_candidates below (a placeholder, never a table), each kept as
-- its root's node unless the node already holds an earlier parent link: an
-- upsert keeping the minimum (link created_at, relation_id), whatever the order
-- the candidates arrive in. The parent is then the node's earliest link from the
-- frontier; two links with the same key are one link, so the parent id never
-- decides. WHERE true: SQLite needs it before ON CONFLICT after a SELECT with
-- joins. Oracle's MERGE cannot update one row twice in a statement, so Oracle
-- keeps expand-level (ROW_NUMBER) instead.
INSERT INTO temp.graphmem_level (root_no, node_no, parent_no, relation_id, link_created_at,
                                  link_no)
SELECT c.root_no, c.node_no, c.parent_no, c.relation_id, c.link_created_at, c.link_no
FROM level_candidates c
WHERE true
ON CONFLICT (root_no, node_no) DO UPDATE
SET parent_no = excluded.parent_no, relation_id = excluded.relation_id,
    link_created_at = excluded.link_created_at, link_no = excluded.link_no
WHERE (excluded.link_created_at, excluded.relation_id)
      < (graphmem_level.link_created_at, graphmem_level.relation_id);

-- name: count-level-nodes
-- How many nodes each root reached in the level (roots with none are absent).
SELECT root_no, COUNT(*) FROM temp.graphmem_level GROUP BY root_no;

-- name: trim-level-root
-- A root that reached more than its remaining quota in the level keeps only the
-- first :keep in rank order (link created_at, relation_id; two nodes of one
-- root's level never share a parent link, so record_id never decides); the
-- others can never be shown.
DELETE FROM temp.graphmem_level
WHERE root_no = :root_no
  AND node_no NOT IN (
        SELECT t.node_no FROM temp.graphmem_level t
        WHERE t.root_no = :root_no
        ORDER BY t.link_created_at, t.relation_id
        LIMIT :keep);

-- name: move-level
-- The kept nodes of the level join the tree at :depth (and become the frontier).
INSERT INTO temp.graphmem_reached (root_no, node_no, depth, parent_no, relation_id,
                                    link_created_at, link_no)
SELECT l.root_no, l.node_no, :depth, l.parent_no, l.relation_id, l.link_created_at, l.link_no
FROM temp.graphmem_level l;

-- name: select-linked-context
-- The kept tree of every root (cut to max_linked_results), in rank order per
-- root: depth, link created_at, relation_id (two nodes of one root's level never
-- share a parent link, so record_id never decides). Nodes and links are numbers
-- here: the store orders the roots by id itself (a join with graphmem_node to
-- sort by record_id let the planner walk the whole node index),
-- select-numbered-nodes gives the ids, select-numbered-links the link rows (their
-- relation_id and created_at included), each once however many trees share it.
-- The last column is the key of the tree row's link in select-numbered-links.
SELECT k.root_no, k.node_no, k.parent_no, k.depth, k.link_no
FROM temp.graphmem_reached k
WHERE k.depth > 0
ORDER BY k.root_no, k.depth, k.link_created_at, k.relation_id;

-- name: select-numbered-nodes
-- The id and type of every node of the kept trees, roots included: :node_nos is
-- the JSON array of their numbers, each once, which the store takes from the rows
-- of select-linked-context (the roots are the parents at depth 1). A join driven
-- by the list, one search of the node table's rowid b-tree per number; the
-- earlier IN (SELECT ... FROM graphmem_reached) first read the work table again
-- through its depth index and built a temporary b-tree of the numbers.
SELECT n.node_no, n.record_id, n.record_type
FROM json_each(:node_nos) j
CROSS JOIN graphmem_node n ON n.node_no = j.value;

-- name: select-numbered-links
-- Each link of the kept trees once, as stored, after its key (its number: one
-- search of the link table's rowid b-tree, where the text relation_id took two,
-- the key index and then the table). :link_nos is the JSON array of the tree
-- rows' link numbers, each once (as select-numbered-nodes).
SELECT l.link_no, l.relation_id, l.source_id, l.target_id, l.relation_type,
       l.opposite_relation_type, l.relation_timestamp, l.metadata, l.created_at
FROM json_each(:link_nos) j
CROSS JOIN graphmem_link l ON l.link_no = j.value;
