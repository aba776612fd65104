-- GRAPH_TABLE queries a DBA can run by hand (SQL*Plus, SQLcl, SQL Developer).
--
-- Replace :memory_id with a record id (or let the tool prompt for the bind).
-- graphmem itself does not send these; tests/test_dba_queries.py runs them lowered
-- by graphmem.pgq against the embedded store, so their results are checked.

-- name: show-supersession-history
-- The older memories that :memory_id replaces, directly or through a chain of up
-- to 5 supersedes/refines links (newest first in the chain), with their status.
SELECT DISTINCT h.older_id, h.older_status, h.older_type
FROM GRAPH_TABLE (graphmem_graph
    MATCH (newer IS memory)
          -[e IS memory_link WHERE e.relation_type IN ('supersedes', 'refines')]->{1,5}
          (older IS memory)
    WHERE newer.record_id = :memory_id
    COLUMNS (older.record_id AS older_id, older.status AS older_status,
             older.record_type AS older_type)
) h
ORDER BY h.older_id;

-- name: show-neighbourhood
-- Every memory within 2 links of :memory_id, links followed in either direction.
SELECT DISTINCT n.other_id, n.other_status
FROM GRAPH_TABLE (graphmem_graph
    MATCH (m IS memory) -[IS memory_link]-{1,2} (other IS memory)
    WHERE m.record_id = :memory_id AND other.record_id <> m.record_id
    COLUMNS (other.record_id AS other_id, other.status AS other_status)
) n
ORDER BY n.other_id;

-- name: show-invalid-memories
-- Invalid memories and why: each lifecycle link that targets them, oldest first.
SELECT i.invalid_id, i.reason, i.because_of, i.since
FROM GRAPH_TABLE (graphmem_graph
    MATCH (src IS memory) -[e IS memory_link]-> (tgt IS memory)
    WHERE tgt.status = 'invalid'
      AND e.relation_type IN ('supersedes', 'refines', 'duplicates')
    COLUMNS (tgt.record_id AS invalid_id, e.relation_type AS reason,
             src.record_id AS because_of, e.created_at AS since)
) i
ORDER BY i.invalid_id, i.since, i.because_of;
