-- Vector search candidates (SQLite). Distances are computed exactly by
-- graphmem.stores.sqlite over the rows selected here.

-- name: select-search-candidates
-- Embeddings of the memories passing the search filters (SPEC section 1).
SELECT m.record_id, m.embedding
FROM graphmem_memory m
WHERE (:user_id IS NULL OR m.user_id = :user_id)
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND (:record_types IS NULL OR m.record_type IN (SELECT value FROM json_each(:record_types)))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND (:metadata_filter IS NULL OR NOT EXISTS (
        SELECT 1 FROM json_each(:metadata_filter) f
        WHERE NOT EXISTS (
            SELECT 1 FROM json_each(m.metadata) x
            WHERE x.key = f.key AND x.atom IS f.atom
              AND (x.type = f.type
                   OR (x.type IN ('integer', 'real') AND f.type IN ('integer', 'real'))))))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL;

-- name: get-meta
-- One value of the store's metadata (schema version, embedding dimension).
SELECT meta_value FROM graphmem_meta WHERE meta_key = :meta_key;

-- name: put-meta
-- Record one value of the store's metadata.
INSERT INTO graphmem_meta (meta_key, meta_value) VALUES (:meta_key, :meta_value)
ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value;

-- name: count-schema-tables
-- How many of the store's tables exist (REQUIRE_EXISTING checks for 3).
SELECT COUNT(*) FROM sqlite_master
WHERE type = 'table' AND name IN ('graphmem_meta', 'graphmem_memory', 'graphmem_link');
