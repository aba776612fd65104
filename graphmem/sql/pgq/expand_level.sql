-- One level of the linked-context tree (docs/semantics.md section 3), as SQL/PGQ.
--
-- Oracle runs expand-level and expand-level-uncapped, natively or lowered to
-- plain SQL by graphmem.pgq (for sessions that reject SQL/PGQ). The embedded
-- store runs bound-level and select-level-candidates (below), lowered, and keeps
-- the candidates with an upsert (expand-level-keep, sql/sqlite/traverse.sql):
-- SQLite cannot drive the adjacency key with the row-value IN of expand-level and
-- re-ran its bounded subquery for every row it selected. Each store runs its
-- level for depth 1..num_hops after loading the roots into graphmem_reached
-- (depth 0) and graphmem_roots, and the metadata filter into graphmem_filter;
-- see traverse.sql of each dialect for the statements around it.
--
-- Every statement tests the search filters on the adjacency row itself (its
-- other_* columns, copies of the neighbour's node row kept by triggers since
-- schema version 9), so a candidate link costs a read of the index range it is
-- in and no search of graphmem_node; the vertex n is used only for its key,
-- which the lowering takes from the edge (other_no). Only the metadata filter
-- needs the neighbour's record id: it looks the node row up by number, and only
-- when graphmem_filter holds a pair (an empty filter makes the outer NOT EXISTS
-- true without running the inner one).
-- Used by graphmem.stores.sqlite.SqliteStore and graphmem.stores.oracle.OracleStore.

-- name: expand-level
-- Reach the memories at distance :depth from each open root: the neighbours, over
-- links in either direction, of the nodes reached at :depth - 1, passing the
-- search filters and not reached before. The parent is the minimum (link
-- created_at, relation_id, parent). Nodes are numbered (graphmem_node), and a
-- node's links are the adjacency rows (label adjacent) that start at it, in the
-- tie order of their key (node_no, created_at, relation_id). The frontier comes
-- from the work table by a join, never as a list; each GRAPH_TABLE holds no
-- subquery (SQL/PGQ engines differ on those), so the metadata filter is applied
-- beside it, before a node can be reached or used as a stepping stone.
--
-- The work is bounded by :cap (max_linked_results; expand-level-uncapped below
-- serves None), not by the degree of a frontier node. A root keeps at most :cap nodes
-- and depth leads the rank, so a level can only contribute the first :cap new
-- nodes in the order (link created_at, relation_id, record_id) of their parent
-- link. A frontier node u therefore only needs its first :cap new neighbours in
-- link order: any later neighbour has :cap nodes ranked before it. Per u, the
-- FETCH FIRST subquery reads those from u's range of the adjacency key and
-- stops; a link is counted there only when it is the earliest link between u and
-- that neighbour (the pair index), so that :cap rows are :cap distinct
-- neighbours. The parent pick (pick = 1) then works on every candidate link of a
-- node, and each root keeps the first :cap of the level (place <= :cap). A root
-- thus writes at most :cap rows per level and reads about :cap links per frontier
-- node; the store trims the last level to the exact remainder
-- (trim-traversal-root).
INSERT INTO graphmem_reached (root_no, node_no, depth, parent_no, relation_id, link_created_at)
SELECT c.root_no, c.node_no, :depth, c.parent_no, c.relation_id, c.link_created_at
FROM (
    SELECT k.root_no, k.node_no, k.parent_no, k.relation_id, k.link_created_at,
           ROW_NUMBER() OVER (
               PARTITION BY k.root_no
               ORDER BY k.link_created_at, k.relation_id) AS place
    FROM (
        SELECT f.root_no, a.node_no AS parent_no, a.other_no AS node_no, a.relation_id,
               a.created_at AS link_created_at,
               ROW_NUMBER() OVER (
                   PARTITION BY f.root_no, a.other_no
                   ORDER BY a.created_at, a.relation_id) AS pick
        FROM graphmem_reached f
        JOIN graphmem_roots o ON o.root_no = f.root_no AND o.open = 1
        JOIN graphmem_adjacency a
          ON a.node_no = f.node_no
         AND (a.created_at, a.relation_id) IN (
                SELECT g.link_created_at, g.relation_id
                FROM GRAPH_TABLE (graphmem_graph
                    MATCH (p IS node) -[e IS adjacent]-> (n IS node)
                    WHERE (:user_id IS NULL OR e.other_user_id = :user_id)
                      AND (:agent_id IS NULL OR e.other_agent_id = :agent_id)
                      AND (:thread_id IS NULL OR e.other_thread_id = :thread_id)
                      AND INSTR(:record_types, '"' || e.other_record_type || '"') > 0
                      AND (e.other_expires_at IS NULL OR e.other_expires_at > :now)
                    COLUMNS (p.node_no AS parent_no, n.node_no AS node_no,
                             e.relation_id AS relation_id,
                             e.created_at AS link_created_at)
                ) g
                WHERE g.parent_no = f.node_no
                  AND NOT EXISTS (
                        SELECT 1 FROM graphmem_reached r
                        WHERE r.root_no = f.root_no AND r.node_no = g.node_no)
                  AND NOT EXISTS (
                        SELECT 1 FROM graphmem_adjacency y
                        WHERE y.node_no = g.parent_no AND y.other_no = g.node_no
                          AND (y.created_at < g.link_created_at
                               OR (y.created_at = g.link_created_at
                                   AND y.relation_id < g.relation_id)))
                  AND NOT EXISTS (
                        SELECT 1 FROM graphmem_filter mf
                        WHERE NOT EXISTS (
                            SELECT 1 FROM graphmem_node nn
                            JOIN graphmem_memory_meta x ON x.record_id = nn.record_id
                            WHERE nn.node_no = g.node_no
                              AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value))
                ORDER BY g.link_created_at, g.relation_id
                FETCH FIRST :cap ROWS ONLY)
        WHERE f.depth = :depth - 1
    ) k
    WHERE k.pick = 1
) c
WHERE c.place <= :cap;

-- name: expand-level-uncapped
-- expand-level without max_linked_results (None): every reached node is kept, so
-- every link at the frontier must be read anyway, and one join over the
-- adjacency does it with less work per link than the bounded subquery. Reach the
-- memories at distance :depth from each open root: the neighbours, over links in
-- either direction, of the nodes reached at :depth - 1, passing the search
-- filters and not reached before. The parent is the minimum (link
-- created_at, relation_id, parent). The frontier comes from the work table by
-- a join, never as a list; the GRAPH_TABLE holds no subquery (SQL/PGQ engines
-- differ on those), so the metadata filter is applied beside it, before a node can
-- be reached or used as a stepping stone, and the record types, a JSON array of
-- names such as ["fact","memory"], are matched as text.
INSERT INTO graphmem_reached (root_no, node_no, depth, parent_no, relation_id, link_created_at)
SELECT c.root_no, c.node_no, :depth, c.parent_no, c.relation_id, c.link_created_at
FROM (
    SELECT f.root_no, g.node_no, g.parent_no, g.relation_id, g.link_created_at,
           ROW_NUMBER() OVER (
               PARTITION BY f.root_no, g.node_no
               ORDER BY g.link_created_at, g.relation_id) AS pick
    FROM graphmem_reached f
    JOIN graphmem_roots o ON o.root_no = f.root_no AND o.open = 1
    JOIN GRAPH_TABLE (graphmem_graph
        MATCH (p IS node) -[e IS adjacent]-> (n IS node)
        WHERE (:user_id IS NULL OR e.other_user_id = :user_id)
          AND (:agent_id IS NULL OR e.other_agent_id = :agent_id)
          AND (:thread_id IS NULL OR e.other_thread_id = :thread_id)
          AND INSTR(:record_types, '"' || e.other_record_type || '"') > 0
          AND (e.other_expires_at IS NULL OR e.other_expires_at > :now)
        COLUMNS (p.node_no AS parent_no, n.node_no AS node_no,
                 e.relation_id AS relation_id, e.created_at AS link_created_at)
    ) g ON g.parent_no = f.node_no
    WHERE f.depth = :depth - 1
      AND NOT EXISTS (
            SELECT 1 FROM graphmem_reached r
            WHERE r.root_no = f.root_no AND r.node_no = g.node_no)
      AND NOT EXISTS (
            SELECT 1 FROM graphmem_filter mf
            WHERE NOT EXISTS (
                SELECT 1 FROM graphmem_node nn
                JOIN graphmem_memory_meta x ON x.record_id = nn.record_id
                WHERE nn.node_no = g.node_no
                  AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value))
) c
WHERE c.pick = 1;

-- name: bound-level
-- The embedded store's capped level, hub guard: for each frontier node (reached
-- at :depth - 1 by an open root) with at least :quota links up to its current
-- bound (bound-level-root: its root's bound, or none), the link of its :quota-th
-- new neighbour in link order up to that bound, counted as expand-level counts
-- them (passing the filters, not reached before by that root, each neighbour once
-- by its earliest link). select-level-candidates reads that node's links only up
-- to this one; a later link has :quota new nodes ranked before it (the argument
-- of expand-level above). :quota is the largest remaining quota of the open roots
-- (reading more than a root needs is harmless). A node with fewer links below its
-- bound, or fewer such neighbours, keeps its bound (the aggregate over no row
-- gives NULL, and COALESCE the old bound; NULL: no bound, all its links are
-- read). The link is searched once for both columns (a row value set from an
-- aggregate over at most one row), and compared as a row value: SQLite's
-- (Oracle runs expand-level). The record types are tested as in
-- select-level-candidates (below).
UPDATE graphmem_reached
SET (bound_created_at, bound_relation_id) = (
        SELECT COALESCE(MAX(b.link_created_at), graphmem_reached.bound_created_at),
               COALESCE(MAX(b.relation_id), graphmem_reached.bound_relation_id)
        FROM (
            SELECT g.link_created_at, g.relation_id
            FROM GRAPH_TABLE (graphmem_graph
                MATCH (p IS node) -[e IS adjacent]-> (n IS node)
                WHERE (:user_id IS NULL OR e.other_user_id = :user_id)
                  AND (:agent_id IS NULL OR e.other_agent_id = :agent_id)
                  AND (:thread_id IS NULL OR e.other_thread_id = :thread_id)
                  AND (e.other_expires_at IS NULL OR e.other_expires_at > :now)
                COLUMNS (p.node_no AS parent_no, n.node_no AS node_no,
                         e.relation_id AS relation_id, e.created_at AS link_created_at,
                         e.other_record_type AS record_type)
            ) g
            WHERE g.parent_no = graphmem_reached.node_no
              AND g.record_type IN (SELECT value FROM json_each(:record_types))
              AND NOT EXISTS (
                    SELECT 1 FROM graphmem_reached r
                    WHERE r.root_no = graphmem_reached.root_no AND r.node_no = g.node_no)
              AND NOT EXISTS (
                    SELECT 1 FROM graphmem_adjacency y
                    WHERE y.node_no = g.parent_no AND y.other_no = g.node_no
                      AND (y.created_at < g.link_created_at
                           OR (y.created_at = g.link_created_at
                               AND y.relation_id < g.relation_id)))
              AND NOT EXISTS (
                    SELECT 1 FROM graphmem_filter mf
                    WHERE NOT EXISTS (
                        SELECT 1 FROM graphmem_node nn
                        JOIN graphmem_memory_meta x ON x.record_id = nn.record_id
                        WHERE nn.node_no = g.node_no
                          AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value))
              AND (g.link_created_at, g.relation_id)
                  <= (COALESCE(graphmem_reached.bound_created_at, '~'),
                      COALESCE(graphmem_reached.bound_relation_id, '~'))
            ORDER BY g.link_created_at, g.relation_id
            OFFSET :quota - 1 ROWS FETCH NEXT 1 ROWS ONLY) b)
WHERE depth = :depth - 1
  AND root_no IN (SELECT o.root_no FROM graphmem_roots o WHERE o.open = 1)
  AND EXISTS (
        SELECT 1 FROM graphmem_adjacency d
        WHERE d.node_no = graphmem_reached.node_no
          AND (d.created_at, d.relation_id)
              <= (COALESCE(graphmem_reached.bound_created_at, '~'),
                  COALESCE(graphmem_reached.bound_relation_id, '~'))
        ORDER BY d.created_at, d.relation_id
        OFFSET :quota - 1 ROWS FETCH NEXT 1 ROWS ONLY);

-- name: select-level-candidates
-- The embedded store's level (capped or not): every candidate parent link of
-- the level, i.e. each link from a node reached at :depth - 1 by an open root to
-- a neighbour passing the search filters and not reached before by that root,
-- read after the frontier node's read mark (bound-level-root, in a capped level's
-- second pass: the first pass kept the links up to it; NULL: nothing read yet)
-- and up to its bound (bound-level; NULL: no bound, and always so without a cap).
-- A neighbour appears once per candidate link; the store's wrapper
-- (expand-level-keep, sql/sqlite/traverse.sql) keeps the minimum (link
-- created_at, relation_id) per root and neighbour with an upsert, so no window
-- sort is needed and the result does not depend on the order rows arrive in.
-- link_no (the link's number) rides along for reading the link rows back.
-- The bound is one row-value comparison on the adjacency key, so that SQLite
-- reads exactly that key range (a hub whose links share one created_at would
-- otherwise be read whole); no bound is ('~', '~'), above every stored time ('~'
-- sorts after the digits of the time text). The mark is a test on each link
-- read, not a second end of the range: as one (COALESCE to ('', '')) it cost
-- every level 8% more instructions, where the test costs 1.5% and a second pass
-- drops the links up to the mark before its anti-join.
-- The record types are a lookup in the list that json_each makes of the JSON
-- array once per statement, tested beside the GRAPH_TABLE, not the text match
-- of expand-level: SQLite tests a condition on the link row before the
-- anti-join subquery, so on every candidate link, most of which lead to nodes
-- reached before in a deep level, and the text match builds a string each time
-- (schema version 9 made it 5.5% more instructions than version 8 for an
-- uncapped tree of 10 roots and 5 hops at 100k; the lookup 5.7% fewer).
-- Row-value inequalities and json_each are SQLite's (Oracle compares row values
-- only for equality): this statement and bound-level serve the embedded store,
-- Oracle runs expand-level.
SELECT f.root_no, g.node_no, g.parent_no, g.relation_id, g.link_created_at, g.link_no
FROM graphmem_reached f
JOIN graphmem_roots o ON o.root_no = f.root_no AND o.open = 1
JOIN GRAPH_TABLE (graphmem_graph
    MATCH (p IS node) -[e IS adjacent]-> (n IS node)
    WHERE (:user_id IS NULL OR e.other_user_id = :user_id)
      AND (:agent_id IS NULL OR e.other_agent_id = :agent_id)
      AND (:thread_id IS NULL OR e.other_thread_id = :thread_id)
      AND (e.other_expires_at IS NULL OR e.other_expires_at > :now)
    COLUMNS (p.node_no AS parent_no, n.node_no AS node_no,
             e.relation_id AS relation_id, e.created_at AS link_created_at,
             e.link_no AS link_no, e.other_record_type AS record_type)
) g ON g.parent_no = f.node_no
   AND (f.read_created_at IS NULL
        OR (g.link_created_at, g.relation_id) > (f.read_created_at, f.read_relation_id))
   AND (g.link_created_at, g.relation_id)
       <= (COALESCE(f.bound_created_at, '~'), COALESCE(f.bound_relation_id, '~'))
WHERE f.depth = :depth - 1
  AND g.record_type IN (SELECT value FROM json_each(:record_types))
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_reached r
        WHERE r.root_no = f.root_no AND r.node_no = g.node_no)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_filter mf
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_node nn
            JOIN graphmem_memory_meta x ON x.record_id = nn.record_id
            WHERE nn.node_no = g.node_no
              AND x.meta_key = mf.meta_key AND x.meta_value = mf.meta_value));
