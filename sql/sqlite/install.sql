-- graphmem embedded store: schema for SQLite 3.35 or newer.
--
-- Run as is with the sqlite3 shell (`sqlite3 memories.db < install.sql`), or let
-- graphmem.stores.sqlite.SqliteStore run it (SchemaPolicy.CREATE_IF_NECESSARY).
-- Table names start with `graphmem_`; a store created with memory_store_id=X uses
-- `X_` instead (graphmem.sqlfiles substitutes the validated identifier).
-- Every statement is idempotent.
--
-- The validity invariant (docs/semantics.md section 2) is kept by the triggers below, so it
-- also holds for DML that a DBA runs directly on graphmem_link: a memory is
-- 'invalid' exactly when a supersedes/refines/duplicates link targets it. Each
-- trigger touches only the endpoints of the changed link (index lookups).

PRAGMA foreign_keys = ON;

CREATE TABLE IF NOT EXISTS graphmem_meta (
    meta_key   TEXT PRIMARY KEY,
    meta_value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS graphmem_memory (
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

CREATE INDEX IF NOT EXISTS graphmem_memory_user_ix ON graphmem_memory (user_id, record_type);
CREATE INDEX IF NOT EXISTS graphmem_memory_agent_ix ON graphmem_memory (agent_id);
CREATE INDEX IF NOT EXISTS graphmem_memory_thread_ix ON graphmem_memory (thread_id);

-- One row per top-level scalar metadata entry, for metadata filters: the value is
-- graphmem's canonical JSON text of the scalar (graphmem.core.metadata), so the
-- same filter gives the same answer in every dialect. Written by graphmem with
-- the memory; a DBA who edits graphmem_memory.metadata by hand rewrites these rows.
CREATE TABLE IF NOT EXISTS graphmem_memory_meta (
    record_id  TEXT NOT NULL REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    meta_key   TEXT NOT NULL,
    meta_value TEXT NOT NULL,
    PRIMARY KEY (record_id, meta_key)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS graphmem_memory_meta_value_ix
    ON graphmem_memory_meta (meta_key, meta_value);

CREATE TABLE IF NOT EXISTS graphmem_link (
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

-- The unique key serves lookups by source; this one serves lookups by target
-- (traversal towards sources, and the validity recompute).
CREATE INDEX IF NOT EXISTS graphmem_link_target_ix ON graphmem_link (target_id, relation_type);

-- Covering indexes for the traversal: one level reads the other end, created_at
-- and relation_id of every link at a frontier node from these alone, in the
-- order of the tie rule, without visiting the link rows.
CREATE INDEX IF NOT EXISTS graphmem_link_source_walk_ix
    ON graphmem_link (source_id, created_at, relation_id, target_id);
CREATE INDEX IF NOT EXISTS graphmem_link_target_walk_ix
    ON graphmem_link (target_id, created_at, relation_id, source_id);

-- The search filters of a reached memory, readable without its row (which holds
-- the content and the embedding).
CREATE INDEX IF NOT EXISTS graphmem_memory_filter_ix
    ON graphmem_memory (record_id, record_type, expires_at, user_id, agent_id, thread_id);

-- A type is stored in one orientation only (docs/semantics.md section 2).
CREATE TRIGGER IF NOT EXISTS graphmem_link_orientation_bi
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

CREATE TRIGGER IF NOT EXISTS graphmem_link_orientation_bu
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

-- Validity: recompute the target of every inserted, deleted or changed link.
-- Memory deletes cascade into link deletes, which fire graphmem_link_validity_ad.
CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_ai
AFTER INSERT ON graphmem_link
WHEN NEW.relation_type IN ('supersedes', 'refines', 'duplicates')
BEGIN
    UPDATE graphmem_memory SET status = 'invalid'
    WHERE record_id = NEW.target_id AND status <> 'invalid';
END;

CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_ad
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

CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_au
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

-- Status is derived: refuse a direct write that would break the invariant.
CREATE TRIGGER IF NOT EXISTS graphmem_memory_status_bu
BEFORE UPDATE OF status ON graphmem_memory
WHEN NEW.status <> CASE WHEN EXISTS (
        SELECT 1 FROM graphmem_link l
        WHERE l.target_id = NEW.record_id
          AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
    ) THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_status_bi
BEFORE INSERT ON graphmem_memory
WHEN NEW.status <> CASE WHEN EXISTS (
        SELECT 1 FROM graphmem_link l
        WHERE l.target_id = NEW.record_id
          AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
    ) THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;

-- The version of this script; graphmem re-runs it on a store with an older one.
INSERT INTO graphmem_meta (meta_key, meta_value) VALUES ('schema_version', '2')
ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value;
