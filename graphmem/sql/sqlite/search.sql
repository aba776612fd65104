-- Vector search candidates (SQLite). Distances are computed exactly by
-- graphmem.stores.sqlite over the rows selected here.

-- name: select-search-candidates
-- Embeddings of the memories passing the search filters (docs/semantics.md section 1). One
-- branch per way in, so that each reads only the rows it may return; the
-- branches whose bind tests are false read nothing: a user filter reads that
-- user's rows through the user index; without one, a metadata filter reads the
-- memories holding one of its (key, value) pairs through
-- graphmem_memory_meta_value_ix; without either, every memory is a candidate.
-- The last branch reads the filter's pair count once, in a one-row table joined
-- before the memory rows (CROSS JOIN keeps that order): SQLite would test a NOT
-- EXISTS on the filter table for every memory row, reading them all to return
-- none. :without_user = 1 (with :user_id NULL) keeps only the memories without a
-- user, read by the first branch (user_id IS NULL, through the same index), and
-- :without_agent = 1 (with :agent_id NULL) those without an agent: the link
-- candidates of a new memory are exactly its owner's (SearchFilters.owner_binds).
SELECT m.record_id, m.embedding
FROM graphmem_memory m
WHERE m.user_id IS :user_id AND (:user_id IS NOT NULL OR :without_user = 1)
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL
UNION ALL
SELECT m.record_id, m.embedding
FROM graphmem_memory m
WHERE :user_id IS NULL AND :without_user = 0
  AND m.record_id IN (
        SELECT x.record_id FROM temp.graphmem_filter f
        CROSS JOIN graphmem_memory_meta x
        WHERE x.meta_key = f.meta_key AND x.meta_value = f.meta_value)
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL
UNION ALL
SELECT m.record_id, m.embedding
FROM (SELECT COUNT(*) AS pairs FROM temp.graphmem_filter) g
CROSS JOIN graphmem_memory m
WHERE :user_id IS NULL AND :without_user = 0 AND g.pairs = 0
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
  AND m.embedding IS NOT NULL;

-- name: select-passing-ids
-- Of the memories whose ids are in the JSON array :record_ids, those passing the
-- search filters, and valid unless :include_invalid = 1: the tests of
-- select-keyword-hits. A search whose reranker or pruner ran outside any
-- transaction reads its hits again with it: a hit changed meanwhile (its
-- metadata, its scope, its validity, its expiry) is left out as a retrieval now
-- would leave it out.
SELECT m.record_id
FROM graphmem_memory m
WHERE m.record_id IN (SELECT value FROM json_each(:record_ids))
  AND (:user_id IS NULL OR m.user_id = :user_id)
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid');

-- name: select-keyword-hits
-- Full-text matches of :text_query (an FTS5 query: the search's words, each
-- quoted, joined by OR) among the memories passing the search filters, best
-- first by BM25 (FTS5's bm25() is lower for better matches; the score returned
-- is its negation, higher is better), ties by id; the first :k.
SELECT m.record_id, -h.score AS score
FROM (
    SELECT t.record_id, bm25(graphmem_memory_fts) AS score
    FROM graphmem_memory_fts
    JOIN graphmem_memory_text t ON t.doc_id = graphmem_memory_fts.rowid
    WHERE graphmem_memory_fts MATCH :text_query
) h
JOIN graphmem_memory m ON m.record_id = h.record_id
WHERE (:user_id IS NULL OR m.user_id = :user_id)
  AND (:agent_id IS NULL OR m.agent_id = :agent_id)
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
ORDER BY h.score, m.record_id
LIMIT :k;

-- name: select-keyword-hits-scoped
-- select-keyword-hits for a search with a user_id, shaped for a filter that
-- keeps few memories: FTS5 reads only the user's range of doc_ids (install.sql,
-- schema version 7), the ids of the memories passing the filters come from
-- graphmem_memory_search_ix (a user's rows are one range of it) as doc_ids, the
-- match tests each hit's doc_id against that set (the unary + keeps FTS5 from
-- looking the set up one rowid at a time, which is far slower), and BM25 is
-- computed for the hits in the set only. Same result as select-keyword-hits.
SELECT t.record_id, -h.score AS score
FROM (
    SELECT graphmem_memory_fts.rowid AS doc_id, bm25(graphmem_memory_fts) AS score
    FROM graphmem_memory_fts
    WHERE graphmem_memory_fts MATCH :text_query
      AND graphmem_memory_fts.rowid BETWEEN
            (SELECT u.user_no * 4294967296 FROM graphmem_keyword_user u
             WHERE u.user_id = :user_id)
        AND (SELECT u.user_no * 4294967296 + 4294967295 FROM graphmem_keyword_user u
             WHERE u.user_id = :user_id)
      AND +graphmem_memory_fts.rowid IN (
        SELECT d.doc_id
        FROM graphmem_memory m
        JOIN graphmem_memory_text d ON d.record_id = m.record_id
        WHERE m.user_id = :user_id
          AND (:agent_id IS NULL OR m.agent_id = :agent_id)
          AND (:thread_id IS NULL OR m.thread_id = :thread_id)
          AND m.record_type IN (SELECT value FROM json_each(:record_types))
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM temp.graphmem_filter f
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = m.record_id
                      AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
          AND (:include_invalid = 1 OR m.status = 'valid'))
) h
JOIN graphmem_memory_text t ON t.doc_id = h.doc_id
ORDER BY h.score, t.record_id
LIMIT :k;

-- name: select-keyword-hits-in-docs
-- select-keyword-hits for a search with a user_id when the in-process copy of the
-- embeddings holds every memory: the doc_ids of the memories passing the filters
-- come from that copy (:doc_ids, a JSON array), which saves reading them through
-- graphmem_memory_search_ix and graphmem_memory_text; otherwise as
-- select-keyword-hits-scoped. Same result as select-keyword-hits.
SELECT t.record_id, -h.score AS score
FROM (
    SELECT graphmem_memory_fts.rowid AS doc_id, bm25(graphmem_memory_fts) AS score
    FROM graphmem_memory_fts
    WHERE graphmem_memory_fts MATCH :text_query
      AND +graphmem_memory_fts.rowid IN (SELECT value FROM json_each(:doc_ids))
) h
JOIN graphmem_memory_text t ON t.doc_id = h.doc_id
ORDER BY h.score, t.record_id
LIMIT :k;

-- name: select-keyword-hits-in-map
-- select-keyword-hits-in-docs with the doc_ids as a byte map: byte d - :lo of
-- :doc_map (a BLOB; substr counts bytes in a BLOB, from 1) is 1 when doc_id d passes
-- the filters, for every d from :lo to :hi. Testing a hit is then one byte read
-- instead of a probe of the set json_each builds (measured in bench/hybrid.py).
-- The rowid range bounds FTS5's scan: a user's doc_ids are one range (install.sql,
-- schema version 7), so FTS5 reads only that user's postings. Same result as
-- select-keyword-hits.
SELECT t.record_id, -h.score AS score
FROM (
    SELECT graphmem_memory_fts.rowid AS doc_id, bm25(graphmem_memory_fts) AS score
    FROM graphmem_memory_fts
    WHERE graphmem_memory_fts MATCH :text_query
      AND graphmem_memory_fts.rowid BETWEEN :lo AND :hi
      AND substr(:doc_map, graphmem_memory_fts.rowid - :lo + 1, 1) = x'01'
) h
JOIN graphmem_memory_text t ON t.doc_id = h.doc_id
ORDER BY h.score, t.record_id
LIMIT :k;

-- name: select-keyword-hits-in-scope
-- select-keyword-hits for a search without a user_id but with a thread, an agent
-- or a metadata filter, shaped as select-keyword-hits-scoped: the doc_ids of the
-- memories passing the filters are read through the index of the narrowest
-- scope given (graphmem_memory_thread_ix, else graphmem_memory_agent_ix, else
-- graphmem_memory_meta_value_ix for the memories holding one of the metadata
-- filter's pairs), and the match tests each hit's doc_id against that set, so
-- the work grows with the scope and its hits, not with the store's hits. The
-- last branch (no thread, agent nor metadata filter) reads every memory; it
-- reads the filter's pair count once, as select-search-candidates does. Same
-- result as select-keyword-hits.
SELECT t.record_id, -h.score AS score
FROM (
    SELECT graphmem_memory_fts.rowid AS doc_id, bm25(graphmem_memory_fts) AS score
    FROM graphmem_memory_fts
    WHERE graphmem_memory_fts MATCH :text_query
      AND +graphmem_memory_fts.rowid IN (
        SELECT d.doc_id
        FROM graphmem_memory m
        JOIN graphmem_memory_text d ON d.record_id = m.record_id
        WHERE m.thread_id = :thread_id
          AND (:user_id IS NULL OR m.user_id = :user_id)
          AND (:agent_id IS NULL OR m.agent_id = :agent_id)
          AND (:thread_id IS NULL OR m.thread_id = :thread_id)
          AND m.record_type IN (SELECT value FROM json_each(:record_types))
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM temp.graphmem_filter f
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = m.record_id
                      AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
          AND (:include_invalid = 1 OR m.status = 'valid')
        UNION ALL
        SELECT d.doc_id
        FROM graphmem_memory m
        JOIN graphmem_memory_text d ON d.record_id = m.record_id
        WHERE :thread_id IS NULL AND m.agent_id = :agent_id
          AND (:user_id IS NULL OR m.user_id = :user_id)
          AND (:agent_id IS NULL OR m.agent_id = :agent_id)
          AND (:thread_id IS NULL OR m.thread_id = :thread_id)
          AND m.record_type IN (SELECT value FROM json_each(:record_types))
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM temp.graphmem_filter f
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = m.record_id
                      AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
          AND (:include_invalid = 1 OR m.status = 'valid')
        UNION ALL
        SELECT d.doc_id
        FROM graphmem_memory m
        JOIN graphmem_memory_text d ON d.record_id = m.record_id
        WHERE :thread_id IS NULL AND :agent_id IS NULL
          AND (:user_id IS NULL OR m.user_id = :user_id)
          AND m.record_id IN (
                SELECT x.record_id FROM temp.graphmem_filter f
                CROSS JOIN graphmem_memory_meta x
                WHERE x.meta_key = f.meta_key AND x.meta_value = f.meta_value)
          AND (:agent_id IS NULL OR m.agent_id = :agent_id)
          AND (:thread_id IS NULL OR m.thread_id = :thread_id)
          AND m.record_type IN (SELECT value FROM json_each(:record_types))
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM temp.graphmem_filter f
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = m.record_id
                      AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
          AND (:include_invalid = 1 OR m.status = 'valid')
        UNION ALL
        SELECT d.doc_id
        FROM (SELECT COUNT(*) AS pairs FROM temp.graphmem_filter) g
        CROSS JOIN graphmem_memory m
        JOIN graphmem_memory_text d ON d.record_id = m.record_id
        WHERE :thread_id IS NULL AND :agent_id IS NULL AND g.pairs = 0
          AND (:user_id IS NULL OR m.user_id = :user_id)
          AND (:agent_id IS NULL OR m.agent_id = :agent_id)
          AND (:thread_id IS NULL OR m.thread_id = :thread_id)
          AND m.record_type IN (SELECT value FROM json_each(:record_types))
          AND (m.expires_at IS NULL OR m.expires_at > :now)
          AND NOT EXISTS (
                SELECT 1 FROM temp.graphmem_filter f
                WHERE NOT EXISTS (
                    SELECT 1 FROM graphmem_memory_meta x
                    WHERE x.record_id = m.record_id
                      AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
          AND (:include_invalid = 1 OR m.status = 'valid'))
) h
JOIN graphmem_memory_text t ON t.doc_id = h.doc_id
ORDER BY h.score, t.record_id
LIMIT :k;

-- name: get-keyword-index-version
-- FTS5's structure record, which changes with every write to the keyword index:
-- SqliteStore keeps the word counts of select-term-counts while it is unchanged.
SELECT block FROM graphmem_memory_fts_data WHERE id = 10;

-- name: select-term-counts
-- How many memories hold each of the search's words (:terms, a JSON array of
-- words as the index holds them, from select-query-tokens), from FTS5's
-- vocabulary: SqliteStore leaves very common words out of the match. A word
-- that no memory holds has no row.
SELECT v.term, v.doc FROM temp.graphmem_memory_fts_vocab v
WHERE v.term IN (SELECT value FROM json_each(:terms));

-- name: reset-query-words
-- Forget the previous keyword search's words (session.sql, graphmem_query_fts).
INSERT INTO temp.graphmem_query_fts (graphmem_query_fts) VALUES ('delete-all');

-- name: insert-query-words
-- The keyword search's words (:words, a JSON array), each a row numbered by its
-- place in the array, tokenized by FTS5 as the keyword index tokenizes memories.
INSERT INTO temp.graphmem_query_fts (rowid, content)
SELECT key, value FROM json_each(:words);

-- name: select-query-tokens
-- The tokens of each word of insert-query-words, as the keyword index holds
-- them: (place of the word, token), in order within each word. A word FTS5
-- reads no token in (such as `___`) has no row; a word with `_` has several.
SELECT doc, term FROM temp.graphmem_query_fts_vocab ORDER BY doc, "offset";

-- name: count-keyword-documents
-- How many memories the keyword index holds.
SELECT COUNT(*) FROM graphmem_memory_text;

-- name: reset-filter
-- Forget the previous read's metadata filter.
DELETE FROM temp.graphmem_filter;

-- name: insert-filter
-- One (key, canonical value) pair of the current read's metadata filter.
INSERT INTO temp.graphmem_filter (meta_key, meta_value) VALUES (:meta_key, :meta_value);

-- name: get-embedder-meta
-- The embedder name and embedding dimension the store records (NULL for one not
-- recorded yet), both in one statement: every search checks them.
SELECT (SELECT m.meta_value FROM graphmem_meta m WHERE m.meta_key = :name_key),
       (SELECT m.meta_value FROM graphmem_meta m WHERE m.meta_key = :dim_key);

-- name: get-meta
-- One value of the store's metadata (schema version, embedding dimension,
-- embedder name).
SELECT meta_value FROM graphmem_meta WHERE meta_key = :meta_key;

-- name: put-meta
-- Record one value of the store's metadata.
INSERT INTO graphmem_meta (meta_key, meta_value) VALUES (:meta_key, :meta_value)
ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value;

-- name: lock-meta
-- Make the first writers of a new store's embedder wait for each other before
-- they read again and record it. BEGIN IMMEDIATE already serialises SQLite
-- writers, so this is a plain read here (Oracle locks the row).
SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version';

-- name: count-schema-tables
-- How many of the store's tables exist (a complete schema has all 17). Names compare
-- without regard to case, as SQLite resolves them.
SELECT COUNT(*) FROM sqlite_master
WHERE type = 'table'
  AND name COLLATE NOCASE IN ('graphmem_meta', 'graphmem_memory', 'graphmem_memory_meta',
                              'graphmem_link', 'graphmem_link_recheck',
                              'graphmem_memory_text', 'graphmem_memory_fts', 'graphmem_thread',
                              'graphmem_profile', 'graphmem_vector_log',
                              'graphmem_api_key', 'graphmem_memory_block',
                              'graphmem_job', 'graphmem_node', 'graphmem_adjacency',
                              'graphmem_adjacency_recheck', 'graphmem_keyword_user');

-- name: count-legacy-tables
-- How many of a store's tables exist under the names used before schema version 3
-- (<id>_meta, ...; now <id>__meta): SqliteStore renames such a store on open.
SELECT COUNT(*) FROM sqlite_master
WHERE type = 'table'
  AND name COLLATE NOCASE IN (:meta_table, :memory_table, :memory_meta_table, :link_table);

-- name: select-search-candidate-ids
-- The ids of the memories passing the search filters, for the in-process copy of
-- the embeddings (graphmem.stores.vector_cache; a memory without an embedding is
-- absent there). Same filters and branches as select-search-candidates: the
-- user's rows are one range of graphmem_memory_search_ix, read without visiting
-- the memory rows (the rows without a user too, for :without_user = 1); returned
-- as one JSON array, which Python decodes faster than one row per id.
SELECT json_group_array(c.record_id) FROM (
SELECT m.record_id
FROM graphmem_memory m
WHERE m.user_id IS :user_id AND (:user_id IS NOT NULL OR :without_user = 1)
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id
FROM graphmem_memory m
WHERE :user_id IS NULL AND :without_user = 0
  AND m.record_id IN (
        SELECT x.record_id FROM temp.graphmem_filter f
        CROSS JOIN graphmem_memory_meta x
        WHERE x.meta_key = f.meta_key AND x.meta_value = f.meta_value)
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
UNION ALL
SELECT m.record_id
FROM (SELECT COUNT(*) AS pairs FROM temp.graphmem_filter) g
CROSS JOIN graphmem_memory m
WHERE :user_id IS NULL AND :without_user = 0 AND g.pairs = 0
  AND (m.agent_id IS :agent_id OR (:agent_id IS NULL AND :without_agent = 0))
  AND (:thread_id IS NULL OR m.thread_id = :thread_id)
  AND m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
  AND NOT EXISTS (
        SELECT 1 FROM temp.graphmem_filter f
        WHERE NOT EXISTS (
            SELECT 1 FROM graphmem_memory_meta x
            WHERE x.record_id = m.record_id
              AND x.meta_key = f.meta_key AND x.meta_value = f.meta_value))
  AND (:include_invalid = 1 OR m.status = 'valid')
) c;

-- name: get-vector-log-unread
-- The last sequence number of the vector log (NULL when it is empty) and how many
-- entries follow sequence number :seen. The numbers rise by one per entry, so
-- fewer entries than numbers between the two means that entries not read since
-- :seen are gone (trimmed, or deleted by hand, the oldest or any other).
SELECT (SELECT MAX(seq) FROM graphmem_vector_log),
       (SELECT COUNT(*) FROM graphmem_vector_log WHERE seq > :seen);

-- name: count-memories
-- How many memories the store holds (the size of a fresh copy of the embeddings).
SELECT COUNT(*) FROM graphmem_memory;

-- name: select-all-embeddings
-- Every memory's embedding (NULL: none), search-filter columns and keyword
-- doc_id, to build the in-process copy.
SELECT m.record_id, m.embedding, m.record_type, m.status, m.user_id, m.agent_id,
       m.thread_id, m.expires_at, t.doc_id
FROM graphmem_memory m LEFT JOIN graphmem_memory_text t ON t.record_id = m.record_id;

-- name: select-logged-embeddings
-- The current embedding (NULL: none, or the memory is gone), search-filter
-- columns (NULL: the memory is gone) and keyword doc_id of every memory logged
-- after sequence number :seen (the vector log's triggers fire on every insert,
-- which is when a memory gets a new doc_id).
SELECT l.record_id, m.embedding, m.record_type, m.status, m.user_id, m.agent_id,
       m.thread_id, m.expires_at, t.doc_id
FROM (SELECT DISTINCT record_id FROM graphmem_vector_log WHERE seq > :seen) l
LEFT JOIN graphmem_memory m ON m.record_id = l.record_id
LEFT JOIN graphmem_memory_text t ON t.record_id = m.record_id;
