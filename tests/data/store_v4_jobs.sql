-- A default store (graphmem_*) written by graphmem at schema version 4, before
-- extraction jobs: two preferences and a supersedes link, a thread (with a stored
-- extraction config) holding one message, a registry prompt; HashingEmbedder(dim=8)
-- vectors. Made with sqlite3's iterdump (the FTS5 index written as its CREATE
-- VIRTUAL TABLE and its rows, which reload; its shadow tables do not); tests/test_schema.py loads it (store_v4_jobs.sql) to check the
-- upgrade to version 5.
BEGIN TRANSACTION;
CREATE TABLE graphmem_link (
    relation_id            TEXT PRIMARY KEY CHECK (length(relation_id) BETWEEN 1 AND 128),
    source_id              TEXT NOT NULL
                           REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    target_id              TEXT NOT NULL
                           REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    relation_type          TEXT NOT NULL,
    opposite_relation_type TEXT NOT NULL,
    relation_timestamp     TEXT,
    metadata               TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at             TEXT NOT NULL,
    CHECK (source_id <> target_id),
    UNIQUE (source_id, target_id, relation_type)
);
INSERT INTO "graphmem_link" VALUES('r1','new','old','supersedes','is_superseded_by',NULL,'{}','2026-12-01T13:00:57.126502+00:00');
CREATE TABLE graphmem_link_recheck (
    target_id TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE graphmem_memory (
    record_id        TEXT PRIMARY KEY CHECK (length(record_id) BETWEEN 1 AND 128),
    record_type      TEXT NOT NULL
                     CHECK (record_type IN ('memory', 'fact', 'preference', 'guideline',
                                            'message')),
    content          TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'valid' CHECK (status IN ('valid', 'invalid')),
    user_id          TEXT,
    agent_id         TEXT,
    thread_id        TEXT,
    metadata         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    memory_timestamp TEXT,
    created_at       TEXT NOT NULL,
    expires_at       TEXT,
    embedding        BLOB,
    -- Messages only (record_type 'message'): the speaker, and the place in the
    -- thread (0, 1, 2, ... in the order added; never reused after a delete).
    message_role     TEXT CHECK (message_role IN ('user', 'assistant', 'system', 'tool')),
    message_position INTEGER,
    CHECK ((record_type = 'message' AND message_role IS NOT NULL
            AND message_position IS NOT NULL AND thread_id IS NOT NULL)
        OR (record_type <> 'message' AND message_role IS NULL AND message_position IS NULL))
);
INSERT INTO "graphmem_memory" VALUES('old','preference','Likes thin crust pizza.','invalid','u',NULL,NULL,'{}',NULL,'2026-12-01T13:00:57.123540+00:00',NULL,X'3ED19C3E9159953EFE16D1BD6715193FFE16513E10E5FD3EFE16D13D509FC93E',NULL,NULL);
INSERT INTO "graphmem_memory" VALUES('new','preference','Now prefers sourdough pizza.','valid','u',NULL,NULL,'{}',NULL,'2026-12-01T13:00:57.125529+00:00',NULL,X'F046B03EFF0CD6BE00000000F046B0BEF046B03DF046303E43FBA93E43FB293F',NULL,NULL);
INSERT INTO "graphmem_memory" VALUES('a9a3b21a-e48a-47bc-b1e9-11bda7f28459','message','I like tea.','valid','u','a','t','{}',NULL,'2026-12-01T13:00:57.128451+00:00',NULL,X'000000002CB4FEBE2CB47EBE2CB47E3E68EE353F2CB47E3E000000002CB47E3E','user',0);
CREATE VIRTUAL TABLE graphmem_memory_fts USING fts5(content);
INSERT INTO graphmem_memory_fts (rowid, content) VALUES(1,'Likes thin crust pizza.');
INSERT INTO graphmem_memory_fts (rowid, content) VALUES(2,'Now prefers sourdough pizza.');
INSERT INTO graphmem_memory_fts (rowid, content) VALUES(3,'I like tea.');
CREATE TABLE graphmem_memory_meta (
    record_id  TEXT NOT NULL REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    meta_key   TEXT NOT NULL,
    meta_value TEXT NOT NULL,
    PRIMARY KEY (record_id, meta_key)
) WITHOUT ROWID;
CREATE TABLE graphmem_memory_text (
    doc_id    INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL UNIQUE
);
INSERT INTO "graphmem_memory_text" VALUES(1,'old');
INSERT INTO "graphmem_memory_text" VALUES(2,'new');
INSERT INTO "graphmem_memory_text" VALUES(3,'a9a3b21a-e48a-47bc-b1e9-11bda7f28459');
CREATE TABLE graphmem_meta (
    meta_key   TEXT PRIMARY KEY,
    meta_value TEXT NOT NULL
);
INSERT INTO "graphmem_meta" VALUES('schema_version','4');
INSERT INTO "graphmem_meta" VALUES('embedding_dim','8');
INSERT INTO "graphmem_meta" VALUES('embedder_name','HashingEmbedder(ngram_weight=0.35)');
CREATE TABLE graphmem_profile (
    profile_kind TEXT NOT NULL CHECK (profile_kind IN ('user', 'agent')),
    profile_id   TEXT NOT NULL CHECK (length(profile_id) BETWEEN 1 AND 128),
    information  TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at   TEXT NOT NULL,
    PRIMARY KEY (profile_kind, profile_id)
) WITHOUT ROWID;
CREATE TABLE graphmem_prompt (
    prompt_id     TEXT PRIMARY KEY CHECK (length(prompt_id) BETWEEN 1 AND 128),
    description   TEXT NOT NULL,
    annotations   TEXT CHECK (annotations IS NULL OR json_valid(annotations)),
    current_vid   INTEGER NOT NULL,
    next_vid      INTEGER NOT NULL,
    archived      INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    purging_since TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
INSERT INTO "graphmem_prompt" VALUES('p','dates',NULL,0,1,0,NULL,'2026-12-01T13:00:57.134561+00:00','2026-12-01T13:00:57.134561+00:00');
CREATE TABLE graphmem_prompt_version (
    prompt_id   TEXT NOT NULL,
    vid         INTEGER NOT NULL CHECK (vid >= 0),
    prompt_text TEXT NOT NULL,
    archived    INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (prompt_id, vid)
) WITHOUT ROWID;
INSERT INTO "graphmem_prompt_version" VALUES('p',0,'Extract dates.',0,'2026-12-01T13:00:57.134561+00:00');
CREATE TABLE graphmem_thread (
    thread_id        TEXT PRIMARY KEY CHECK (length(thread_id) BETWEEN 1 AND 128),
    user_id          TEXT,
    agent_id         TEXT,
    metadata         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    settings         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    summary          TEXT,
    topics           TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(topics)),
    message_count    INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    summarized_count INTEGER NOT NULL DEFAULT 0 CHECK (summarized_count >= 0),
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);
INSERT INTO "graphmem_thread" VALUES('t','u','a','{}','{"memory_extraction_config":{"memory_extraction_custom_instructions":"Keep food preferences."},"search_config":null,"context_summary_update_frequency":-1,"enable_context_summary":true,"memory_extraction_window":-1,"memory_extraction_frequency":-1,"memory_extraction_token_limit":0,"context_card_token_limit":100000,"max_message_token_length":0,"message_shortening_input_token_limit":30000}','user: I like tea.','[]',1,1,'2026-12-01T13:00:57.127554+00:00','2026-12-01T13:00:57.130081+00:00');
CREATE TABLE graphmem_vector_log (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    record_id TEXT NOT NULL
);
INSERT INTO "graphmem_vector_log" VALUES(1,'old');
INSERT INTO "graphmem_vector_log" VALUES(2,'new');
INSERT INTO "graphmem_vector_log" VALUES(3,'old');
INSERT INTO "graphmem_vector_log" VALUES(4,'a9a3b21a-e48a-47bc-b1e9-11bda7f28459');
CREATE INDEX graphmem_memory_user_ix ON graphmem_memory (user_id, record_type);
CREATE INDEX graphmem_memory_agent_ix ON graphmem_memory (agent_id);
CREATE INDEX graphmem_memory_thread_ix ON graphmem_memory (thread_id);
CREATE INDEX graphmem_memory_message_ix
    ON graphmem_memory (thread_id, message_position);
CREATE INDEX graphmem_thread_user_ix ON graphmem_thread (user_id, agent_id);
CREATE INDEX graphmem_memory_meta_value_ix
    ON graphmem_memory_meta (meta_key, meta_value);
CREATE INDEX graphmem_link_target_ix ON graphmem_link (target_id, relation_type);
CREATE INDEX graphmem_link_source_walk_ix
    ON graphmem_link (source_id, created_at, relation_id, target_id);
CREATE INDEX graphmem_link_target_walk_ix
    ON graphmem_link (target_id, created_at, relation_id, source_id);
CREATE INDEX graphmem_link_pair_ix
    ON graphmem_link (source_id, target_id, created_at, relation_id);
CREATE INDEX graphmem_memory_filter_ix
    ON graphmem_memory (record_id, record_type, expires_at, user_id, agent_id, thread_id);
CREATE TRIGGER graphmem_link_orientation_bi
BEFORE INSERT ON graphmem_link
WHEN EXISTS (
    SELECT 1 FROM graphmem_link r
    WHERE r.source_id = NEW.target_id
      AND r.target_id = NEW.source_id
      AND r.relation_type = NEW.relation_type
)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: this relation type is already stored in the reverse orientation');
END;
CREATE TRIGGER graphmem_link_orientation_bu
BEFORE UPDATE OF source_id, target_id, relation_type ON graphmem_link
WHEN EXISTS (
    SELECT 1 FROM graphmem_link r
    WHERE r.source_id = NEW.target_id
      AND r.target_id = NEW.source_id
      AND r.relation_type = NEW.relation_type
)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: this relation type is already stored in the reverse orientation');
END;
CREATE TRIGGER graphmem_link_validity_ai
AFTER INSERT ON graphmem_link
WHEN NEW.relation_type IN ('supersedes', 'refines', 'duplicates')
BEGIN
    UPDATE graphmem_memory SET status = 'invalid'
    WHERE record_id = NEW.target_id AND status <> 'invalid';
END;
CREATE TRIGGER graphmem_link_validity_ad
AFTER DELETE ON graphmem_link
WHEN OLD.relation_type IN ('supersedes', 'refines', 'duplicates')
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = OLD.target_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id = OLD.target_id;
END;
CREATE TRIGGER graphmem_link_validity_au
AFTER UPDATE OF source_id, target_id, relation_type ON graphmem_link
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (OLD.target_id, NEW.target_id);
END;
CREATE TRIGGER graphmem_memory_status_bu
BEFORE UPDATE OF status ON graphmem_memory
WHEN NEW.status <> CASE WHEN EXISTS (
        SELECT 1 FROM graphmem_link l
        WHERE l.target_id = NEW.record_id
          AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
    ) THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;
CREATE TRIGGER graphmem_memory_status_bi
BEFORE INSERT ON graphmem_memory
WHEN NEW.status <> CASE WHEN EXISTS (
        SELECT 1 FROM graphmem_link l
        WHERE l.target_id = NEW.record_id
          AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
    ) THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;
CREATE TRIGGER graphmem_link_endpoints_bi
BEFORE INSERT ON graphmem_link
WHEN NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
  OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories');
END;
CREATE TRIGGER graphmem_link_endpoints_bu
BEFORE UPDATE OF source_id, target_id ON graphmem_link
WHEN NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
  OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories');
END;
CREATE TRIGGER graphmem_memory_cascade_ad
AFTER DELETE ON graphmem_memory
BEGIN
    DELETE FROM graphmem_link WHERE source_id = OLD.record_id;
    DELETE FROM graphmem_link WHERE target_id = OLD.record_id;
    DELETE FROM graphmem_memory_meta WHERE record_id = OLD.record_id;
END;
CREATE TRIGGER graphmem_memory_id_bu
BEFORE UPDATE OF record_id ON graphmem_memory
WHEN NEW.record_id IS NOT OLD.record_id
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a memory''s record_id cannot change');
END;
CREATE TRIGGER graphmem_memory_replace_ai
AFTER INSERT ON graphmem_memory
WHEN NEW.status = 'invalid'
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = NEW.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id = NEW.record_id;
END;
CREATE TRIGGER graphmem_link_replace_bi
BEFORE INSERT ON graphmem_link
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE l.relation_id = NEW.relation_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
END;
CREATE TRIGGER graphmem_link_replace_bu
BEFORE UPDATE OF relation_id ON graphmem_link
WHEN NEW.relation_id IS NOT OLD.relation_id
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE l.relation_id = NEW.relation_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
END;
CREATE TRIGGER graphmem_link_recheck_ai
AFTER INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_link_recheck)
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (SELECT target_id FROM graphmem_link_recheck);
    DELETE FROM graphmem_link_recheck;
END;
CREATE TRIGGER graphmem_link_recheck_au
AFTER UPDATE OF relation_id ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_link_recheck)
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (SELECT target_id FROM graphmem_link_recheck);
    DELETE FROM graphmem_link_recheck;
END;
CREATE TRIGGER graphmem_memory_text_ai
AFTER INSERT ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id);
    DELETE FROM graphmem_memory_text WHERE record_id = NEW.record_id;
    INSERT INTO graphmem_memory_text (record_id) VALUES (NEW.record_id);
    INSERT INTO graphmem_memory_fts (rowid, content)
    SELECT t.doc_id, NEW.content FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id;
END;
CREATE TRIGGER graphmem_memory_text_au
AFTER UPDATE OF content ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id);
    INSERT INTO graphmem_memory_fts (rowid, content)
    SELECT t.doc_id, NEW.content FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id;
END;
CREATE TRIGGER graphmem_memory_text_ad
AFTER DELETE ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = OLD.record_id);
    DELETE FROM graphmem_memory_text WHERE record_id = OLD.record_id;
END;
CREATE TRIGGER graphmem_vector_log_ai
AFTER INSERT ON graphmem_memory
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (NEW.record_id);
END;
CREATE TRIGGER graphmem_vector_log_au
AFTER UPDATE OF embedding, record_type, status, user_id, agent_id, thread_id,
    expires_at ON graphmem_memory
WHEN NEW.embedding IS NOT OLD.embedding OR NEW.record_type IS NOT OLD.record_type
  OR NEW.status IS NOT OLD.status OR NEW.user_id IS NOT OLD.user_id
  OR NEW.agent_id IS NOT OLD.agent_id OR NEW.thread_id IS NOT OLD.thread_id
  OR NEW.expires_at IS NOT OLD.expires_at
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (NEW.record_id);
END;
CREATE TRIGGER graphmem_vector_log_ad
AFTER DELETE ON graphmem_memory
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (OLD.record_id);
END;
CREATE TRIGGER graphmem_vector_log_trim
AFTER INSERT ON graphmem_vector_log
WHEN NEW.seq % 1024 = 0
BEGIN
    DELETE FROM graphmem_vector_log WHERE seq <= NEW.seq - 65536;
END;
CREATE INDEX graphmem_memory_search_ix
    ON graphmem_memory (user_id, record_type, status, expires_at, agent_id, thread_id,
                        record_id);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('graphmem_vector_log',4);
COMMIT;
