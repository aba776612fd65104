-- A default store (graphmem_*) written by graphmem at schema version 3, before
-- messages were stored: three memories, a supersedes link and a supports link,
-- HashingEmbedder(dim=8) vectors. Made with sqlite3's iterdump; tests/test_schema.py
-- loads it to check the upgrade to version 4.
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
INSERT INTO "graphmem_link" VALUES('r1','new','old','supersedes','is_superseded_by',NULL,'{}','2026-12-01T11:13:57.482921+00:00');
INSERT INTO "graphmem_link" VALUES('r2','f','new','supports','is_supported_by',NULL,'{}','2026-12-01T11:13:57.483959+00:00');
CREATE TABLE graphmem_link_recheck (
    target_id TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE graphmem_memory (
    record_id        TEXT PRIMARY KEY CHECK (length(record_id) BETWEEN 1 AND 128),
    record_type      TEXT NOT NULL
                     CHECK (record_type IN ('memory', 'fact', 'preference', 'guideline')),
    content          TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'valid' CHECK (status IN ('valid', 'invalid')),
    user_id          TEXT,
    agent_id         TEXT,
    thread_id        TEXT,
    metadata         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    memory_timestamp TEXT,
    created_at       TEXT NOT NULL,
    expires_at       TEXT,
    embedding        BLOB
);
INSERT INTO "graphmem_memory" VALUES('old','preference','likes thin crust','invalid','u',NULL,NULL,'{"k":1}',NULL,'2026-12-01T11:13:57.479039+00:00',NULL,X'FFBEE63D5281DE3EFFBEE6BD69F0283FFFBE663E89180C3F0000000000000000');
INSERT INTO "graphmem_memory" VALUES('new','preference','likes sourdough','valid','u',NULL,'t','{}',NULL,'2026-12-01T11:13:57.481079+00:00',NULL,X'305B6D3E305B6DBE305B6DBEF666DC3E00000000305BED3E478A293F00000000');
INSERT INTO "graphmem_memory" VALUES('f','fact','pizza on friday','valid','u',NULL,NULL,'{}',NULL,'2026-12-01T11:13:57.482001+00:00',NULL,X'25AC0BBE81F3223E81F322BE81F3223E81F3A2BE93C9E83E000000008ADE453F');
CREATE TABLE graphmem_memory_meta (
    record_id  TEXT NOT NULL REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    meta_key   TEXT NOT NULL,
    meta_value TEXT NOT NULL,
    PRIMARY KEY (record_id, meta_key)
) WITHOUT ROWID;
INSERT INTO "graphmem_memory_meta" VALUES('old','k','1');
CREATE TABLE graphmem_meta (
    meta_key   TEXT PRIMARY KEY,
    meta_value TEXT NOT NULL
);
INSERT INTO "graphmem_meta" VALUES('schema_version','3');
INSERT INTO "graphmem_meta" VALUES('embedding_dim','8');
INSERT INTO "graphmem_meta" VALUES('embedder_name','HashingEmbedder(ngram_weight=0.35)');
CREATE INDEX graphmem_memory_user_ix ON graphmem_memory (user_id, record_type);
CREATE INDEX graphmem_memory_agent_ix ON graphmem_memory (agent_id);
CREATE INDEX graphmem_memory_thread_ix ON graphmem_memory (thread_id);
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
COMMIT;
