-- Memories: insert, read, list, update, delete (SQLite).
-- Used by graphmem.stores.sqlite.SqliteStore.

-- name: insert-memory
-- Store one memory; a duplicate record_id violates the primary key.
INSERT INTO graphmem_memory (
    record_id, record_type, content, user_id, agent_id, thread_id,
    metadata, memory_timestamp, created_at, expires_at, embedding
) VALUES (
    :record_id, :record_type, :content, :user_id, :agent_id, :thread_id,
    :metadata, :memory_timestamp, :created_at, :expires_at, :embedding
);

-- name: insert-memory-meta
-- One filterable metadata entry of a memory (canonical JSON text of a scalar).
INSERT INTO graphmem_memory_meta (record_id, meta_key, meta_value)
VALUES (:record_id, :meta_key, :meta_value);

-- name: delete-memory-meta
-- Forget a memory's filterable metadata entries (before rewriting them).
DELETE FROM graphmem_memory_meta WHERE record_id = :record_id;

-- name: get-record-types
-- The record type of each memory whose id is in the JSON array :record_ids
-- (endpoint checks of links; reads the memory index, not the rows).
SELECT m.record_id, m.record_type
FROM graphmem_memory m
WHERE m.record_id IN (SELECT value FROM json_each(:record_ids));

-- name: get-memories
-- The memories whose ids are in the JSON array :record_ids.
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE m.record_id IN (SELECT value FROM json_each(:record_ids));

-- name: list-memories
-- Memories passing the search filters, oldest first (ties by id, a stable
-- order), :limit rows after the first :offset; expired ones too when
-- :include_expired = 1. One branch per way in, as select-search-candidates
-- (search.sql), so that a page reads only the rows it may return: the user's
-- rows (through the user index), else the thread's, else the agent's, else the
-- memories holding one of the metadata filter's pairs (through
-- graphmem_memory_meta_value_ix), each sorted; without any of these, every
-- memory in the listing order (graphmem_memory_created_ix, schema version 12),
-- read only up to the page's end. The branches whose bind tests are false read
-- nothing. The last one is for no metadata filter: its test is a bound of the
-- index range, which SQLite computes once ('' when the filter table is empty:
-- every created_at, a text, passes; NULL otherwise: none does), where a NOT
-- EXISTS on the filter table would be tested on every row, reading them all to
-- return none.
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE m.user_id = :user_id
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (:include_expired = 1 OR m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE :user_id IS NULL AND m.thread_id = :thread_id
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (:include_expired = 1 OR m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE :user_id IS NULL AND :thread_id IS NULL AND m.agent_id = :agent_id
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (:include_expired = 1 OR m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE :user_id IS NULL AND :thread_id IS NULL AND :agent_id IS NULL
  AND m.record_id IN (
        SELECT x.record_id FROM temp.graphmem_filter f
        CROSS JOIN graphmem_memory_meta x
        WHERE x.meta_key = f.meta_key AND x.meta_value = f.meta_value)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (:include_expired = 1 OR m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at
FROM graphmem_memory m
WHERE :user_id IS NULL AND :thread_id IS NULL AND :agent_id IS NULL
  AND m.created_at >= (SELECT CASE WHEN EXISTS (SELECT 1 FROM temp.graphmem_filter)
                                   THEN NULL ELSE '' END)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (:include_expired = 1 OR m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
ORDER BY created_at, record_id
LIMIT :limit OFFSET :offset;

-- name: list-memory-ids
-- The ids of the memories of :record_types an export writes, in the order of
-- list-memories: those unexpired at :now, and the expired ones that are an end
-- of a link (the copy keeps the link and the validity it gives its target). An
-- export reads them page by page, and each page's rows with get-memories, so
-- that only the ids are sorted.
SELECT m.record_id
FROM graphmem_memory m
WHERE m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now
       OR EXISTS (SELECT 1 FROM graphmem_link l WHERE l.source_id = m.record_id)
       OR EXISTS (SELECT 1 FROM graphmem_link l WHERE l.target_id = m.record_id))
ORDER BY m.created_at, m.record_id;

-- name: update-memory
-- Replace content, metadata, timestamp and embedding of one memory; the caller
-- passes the current value for each field it does not change.
UPDATE graphmem_memory
SET content = :content, metadata = :metadata, memory_timestamp = :memory_timestamp,
    embedding = :embedding
WHERE record_id = :record_id;

-- name: get-memory-embedding
-- The stored embedding of one memory.
SELECT embedding FROM graphmem_memory WHERE record_id = :record_id;

-- name: delete-memory
-- Delete one memory; its links cascade and the link triggers recompute validity.
DELETE FROM graphmem_memory WHERE record_id = :record_id;

-- name: get-lifecycle-links-to
-- The lifecycle links that target the memories in the JSON array :record_ids
-- (why they are invalid), oldest first.
SELECT l.relation_id, l.source_id, s.record_type, l.target_id, t.record_type,
       l.relation_type, l.opposite_relation_type, l.relation_timestamp, l.metadata,
       l.created_at
FROM graphmem_link l
JOIN graphmem_memory s ON s.record_id = l.source_id
JOIN graphmem_memory t ON t.record_id = l.target_id
WHERE l.target_id IN (SELECT value FROM json_each(:record_ids))
  AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
ORDER BY l.target_id, l.created_at, l.relation_id;
