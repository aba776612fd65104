-- Vector search candidates and store metadata (Oracle). Distances are computed
-- exactly by graphmem (numpy) over the rows selected here, as for SQLite, so
-- both backends rank with the same float arithmetic; VECTOR_DISTANCE would
-- rank in the database but could order near-ties differently.
-- Used by graphmem.stores.oracle.OracleStore.

-- name: select-search-candidates
-- Embeddings of the memories passing the search filters (docs/semantics.md section 1). Two
-- branches so that a user filter reads only that user's rows through the user
-- index; the branch whose bind test is false reads nothing.
SELECT m.record_id, m.embedding
FROM graphmem_memory m
WHERE m.user_id = :user_id
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (:record_type_1, :record_type_2, :record_type_3, :record_type_4)
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL
UNION ALL
SELECT m.record_id, m.embedding
FROM graphmem_memory m
WHERE :user_id IS NULL
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (:record_type_1, :record_type_2, :record_type_3, :record_type_4)
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL;

-- name: reset-filter
-- Forget the previous read's metadata filter (a session-private temporary table).
DELETE FROM graphmem_filter;

-- name: insert-filter
-- One (key, canonical value) pair of the current read's metadata filter.
INSERT INTO graphmem_filter (meta_key, meta_value) VALUES (:meta_key, :meta_value);

-- name: get-meta
-- One value of the store's metadata (schema version, embedding dimension).
SELECT meta_value FROM graphmem_meta WHERE meta_key = :meta_key;

-- name: put-meta
-- Record one value of the store's metadata.
MERGE INTO graphmem_meta t
USING (SELECT :meta_key AS meta_key, :meta_value AS meta_value FROM dual) s
ON (t.meta_key = s.meta_key)
WHEN MATCHED THEN UPDATE SET t.meta_value = s.meta_value
WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.meta_key, s.meta_value);

-- name: count-schema-tables
-- How many of the store's tables exist: the 4 tables and the 3 work tables
-- (the store requires all 7).
SELECT COUNT(*) FROM user_tables
WHERE table_name IN ('GRAPHMEM_META', 'GRAPHMEM_MEMORY', 'GRAPHMEM_MEMORY_META',
                     'GRAPHMEM_LINK', 'GRAPHMEM_REACHED', 'GRAPHMEM_ROOTS',
                     'GRAPHMEM_FILTER');
