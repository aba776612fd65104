-- Vector search and store metadata (Oracle). The database finds the top k by
-- VECTOR_DISTANCE, so only about k embeddings leave it; graphmem then ranks
-- those rows with the same float arithmetic as on SQLite (numpy), so both
-- backends order near-ties alike.
-- Used by graphmem.stores.oracle.OracleStore.

-- name: select-nearest
-- The :k memories passing the search filters (docs/semantics.md section 1) nearest to
-- :query by cosine VECTOR_DISTANCE, found in the database, plus any within
-- :slack of the k-th distance; graphmem ranks these rows exactly (numpy, ties
-- by id) so that near-ties order as on every other backend. A zero vector is at
-- distance 1, as in numpy (NULL or NaN from VECTOR_DISTANCE become 1). One
-- branch per way in, as sql/sqlite/search.sql's select-search-candidates: a
-- user filter reads that user's rows through the user index; without one, a
-- metadata filter reads the memories holding one of its pairs through
-- GRAPHMEM_MEMORY_META_VALUE_IX; the branches whose bind tests are false read
-- nothing. :without_user = 1 (with :user_id NULL) keeps only the memories without
-- a user, read through the user index in a branch of their own, and
-- :without_agent = 1 (with :agent_id NULL) those without an agent: the link
-- candidates of a new memory are exactly its owner's (SearchFilters.owner_binds).
WITH c AS (
    SELECT m.record_id, m.embedding,
           NVL(NANVL(VECTOR_DISTANCE(m.embedding, :query, COSINE), 1), 1) AS distance
    FROM graphmem_memory m
    WHERE m.user_id = :user_id
      AND (m.agent_id = :agent_id
           OR (:agent_id IS NULL AND (:without_agent = 0 OR m.agent_id IS NULL)))
      AND (:thread_id IS NULL OR m.thread_id = :thread_id)
      AND m.record_type IN (
        SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
            COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
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
    SELECT m.record_id, m.embedding,
           NVL(NANVL(VECTOR_DISTANCE(m.embedding, :query, COSINE), 1), 1) AS distance
    FROM graphmem_memory m
    WHERE :user_id IS NULL AND :without_user = 0
      AND m.record_id IN (
            SELECT x.record_id FROM graphmem_filter f
            JOIN graphmem_memory_meta x
              ON x.meta_key = f.meta_key AND x.meta_value = f.meta_value)
      AND (m.agent_id = :agent_id
           OR (:agent_id IS NULL AND (:without_agent = 0 OR m.agent_id IS NULL)))
      AND (:thread_id IS NULL OR m.thread_id = :thread_id)
      AND m.record_type IN (
        SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
            COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
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
    SELECT m.record_id, m.embedding,
           NVL(NANVL(VECTOR_DISTANCE(m.embedding, :query, COSINE), 1), 1) AS distance
    FROM graphmem_memory m
    WHERE :user_id IS NULL AND :without_user = 0
      AND NOT EXISTS (SELECT 1 FROM graphmem_filter)
      AND (m.agent_id = :agent_id
           OR (:agent_id IS NULL AND (:without_agent = 0 OR m.agent_id IS NULL)))
      AND (:thread_id IS NULL OR m.thread_id = :thread_id)
      AND m.record_type IN (
        SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
            COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
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
    SELECT m.record_id, m.embedding,
           NVL(NANVL(VECTOR_DISTANCE(m.embedding, :query, COSINE), 1), 1) AS distance
    FROM graphmem_memory m
    WHERE :user_id IS NULL AND :without_user = 1 AND m.user_id IS NULL
      AND (m.agent_id = :agent_id
           OR (:agent_id IS NULL AND (:without_agent = 0 OR m.agent_id IS NULL)))
      AND (:thread_id IS NULL OR m.thread_id = :thread_id)
      AND m.record_type IN (
        SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
            COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
      AND (m.expires_at IS NULL OR m.expires_at > :now)
      AND NOT EXISTS (
            SELECT 1 FROM graphmem_filter f
            WHERE NOT EXISTS (
                SELECT 1 FROM graphmem_memory_meta x
                WHERE x.record_id = m.record_id
                  AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
      AND (:include_invalid = 1 OR m.status = 'valid')
      AND m.embedding IS NOT NULL
), kth AS (
    SELECT MAX(n.distance) AS distance
    FROM (SELECT c.distance FROM c ORDER BY c.distance FETCH FIRST :k ROWS ONLY) n
)
SELECT c.record_id, c.embedding
FROM c CROSS JOIN kth
WHERE c.distance <= kth.distance + :slack;

-- name: select-passing-ids
-- Of the memories whose ids are in the JSON array :record_ids, those passing the
-- search filters, and valid unless :include_invalid = 1: the tests of
-- select-keyword-hits (as in sql/sqlite/search.sql), read again after a
-- search's reranker or pruner ran outside any transaction.
SELECT m.record_id
FROM graphmem_memory m
WHERE m.record_id IN (
        SELECT j.id
        FROM JSON_TABLE(:record_ids, '$[*]' COLUMNS (id VARCHAR2(128 CHAR) PATH '$')) j)
  AND (:user_id IS NULL OR m.user_id = :user_id)
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (
    SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
        COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid');

-- name: select-keyword-hits
-- Oracle Text matches of :text_query (the search's words, each in braces so
-- that none is read as an operator, joined by ACCUM: a memory matching more of
-- them scores higher) among the memories passing the search filters, best
-- first by SCORE, ties by id; the first :k. Uses GRAPHMEM_MEMORY_TEXT_IX.
SELECT m.record_id, SCORE(1) AS score
FROM graphmem_memory m
WHERE CONTAINS(m.content, :text_query, 1) > 0
  AND (:user_id IS NULL OR m.user_id = :user_id)
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (
    SELECT t.record_type FROM JSON_TABLE(:record_types, '$[*]'
        COLUMNS (record_type VARCHAR2(16) PATH '$')) t)
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
ORDER BY SCORE(1) DESC, m.record_id
FETCH FIRST :k ROWS ONLY;

-- name: reset-filter
-- Forget the previous read's metadata filter (a session-private temporary table).
DELETE FROM graphmem_filter;

-- name: insert-filter
-- One (key, canonical value) pair of the current read's metadata filter.
INSERT INTO graphmem_filter (meta_key, meta_value) VALUES (:meta_key, :meta_value);

-- name: get-embedder-meta
-- The embedder name and embedding dimension the store records (NULL for one not
-- recorded yet), both in one statement: every search checks them.
SELECT (SELECT m.meta_value FROM graphmem_meta m WHERE m.meta_key = :name_key),
       (SELECT m.meta_value FROM graphmem_meta m WHERE m.meta_key = :dim_key)
FROM dual;

-- name: put-meta
-- Record one value of the store's metadata.
MERGE INTO graphmem_meta t
USING (SELECT :meta_key AS meta_key, :meta_value AS meta_value FROM dual) s
ON (t.meta_key = s.meta_key)
WHEN MATCHED THEN UPDATE SET t.meta_value = s.meta_value
WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.meta_key, s.meta_value);

-- name: lock-meta
-- Make the first writers of a new store's embedder wait for each other before
-- they read again and record it: the schema_version row stays locked until the
-- transaction ends.
SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version' FOR UPDATE;

-- name: count-schema-tables
-- How complete the store's schema is, in one row: the tables found (the 8 tables,
-- the 3 work tables, the 2 prompt registry tables, the 2 memory service tables and the
-- job table: all 16 needed), the triggers
-- found VALID (all 4 needed: a trigger created with compilation errors is INVALID and every write on its
-- table then fails with ORA-04098), the property graphs found (1 needed), and the
-- columns that upgrades add (all 7 needed): the neighbour's filter columns of
-- GRAPHMEM_ADJACENCY (5, schema version 9; other_record_type once NOT NULL: a store
-- made before, or whose upgrade stopped before the fill, is completed by install.sql;
-- the level statements read them) and the lease of GRAPHMEM_MEMORY_BLOCK (2, version 10).
-- USER_ views: the store lives in the schema of the connected user.
SELECT
    (SELECT COUNT(*) FROM user_tables
     WHERE table_name IN ('GRAPHMEM_META', 'GRAPHMEM_MEMORY', 'GRAPHMEM_MEMORY_META',
                          'GRAPHMEM_LINK', 'GRAPHMEM_REACHED', 'GRAPHMEM_ROOTS',
                          'GRAPHMEM_FILTER', 'GRAPHMEM_PROMPT', 'GRAPHMEM_PROMPT_VERSION',
                          'GRAPHMEM_THREAD', 'GRAPHMEM_PROFILE', 'GRAPHMEM_API_KEY',
                          'GRAPHMEM_MEMORY_BLOCK', 'GRAPHMEM_JOB', 'GRAPHMEM_NODE',
                          'GRAPHMEM_ADJACENCY'))
        AS tables_found,
    (SELECT COUNT(*) FROM user_objects
     WHERE object_type = 'TRIGGER' AND status = 'VALID'
       AND object_name IN ('GRAPHMEM_LINK_VALIDITY', 'GRAPHMEM_MEMORY_STATUS',
                           'GRAPHMEM_NODE_SYNC', 'GRAPHMEM_ADJACENCY_SYNC'))
        AS valid_triggers,
    (SELECT COUNT(*) FROM user_property_graphs
     WHERE graph_name = 'GRAPHMEM_GRAPH') AS graphs_found,
    (SELECT COUNT(*) FROM user_tab_columns
     WHERE (table_name = 'GRAPHMEM_ADJACENCY'
            AND column_name IN ('OTHER_RECORD_TYPE', 'OTHER_USER_ID', 'OTHER_AGENT_ID',
                                'OTHER_THREAD_ID', 'OTHER_EXPIRES_AT')
            AND (column_name <> 'OTHER_RECORD_TYPE' OR nullable = 'N'))
        OR (table_name = 'GRAPHMEM_MEMORY_BLOCK'
            AND column_name IN ('OWNER', 'LEASE_UNTIL')))
        AS upgrade_columns_found
FROM dual;

-- name: count-text-index
-- Whether the store has its keyword index GRAPHMEM_MEMORY_TEXT_IX (1) or not (0):
-- install.sql creates it only where Oracle Text is installed (the CTXSYS.CONTEXT
-- indextype), and the keyword and hybrid searches need it. A domain index, so
-- INDEX_TYPE 'DOMAIN'. USER_ view: the store lives in the connected user's schema.
SELECT COUNT(*) FROM user_indexes
WHERE index_name = 'GRAPHMEM_MEMORY_TEXT_IX' AND index_type = 'DOMAIN';

-- name: count-legacy-tables
-- How many of a store's tables exist under the names used before schema version 3
-- (<id>_META, ...; now <id>__META): such a store is not installed over, see
-- docs/oracle.md.
SELECT COUNT(*) FROM user_tables
WHERE table_name IN (UPPER(:meta_table), UPPER(:memory_table), UPPER(:memory_meta_table),
                     UPPER(:link_table));
