-- graphmem embedded store: schema for SQLite 3.35 or newer.
--
-- Run as is with the sqlite3 shell (`sqlite3 -bail memories.db < install.sql`) on
-- a new file or a store of this version, or let graphmem.stores.sqlite.SqliteStore
-- run it (SchemaPolicy.CREATE_IF_NECESSARY). Object names start with `graphmem_`;
-- a store created with memory_store_id=X uses `X__` (two underscores) instead
-- (graphmem.sqlfiles substitutes the validated identifier). Every statement is
-- idempotent; graphmem runs the script in one transaction.
--
-- A store made by an older version is upgraded by graphmem on open, not by this
-- script alone: SQLite cannot add a primary key or a NOT NULL column to a table,
-- nor change a CHECK, so graphmem first copies the tables of an older shape
-- (graphmem.stores.sqlite_schema), then runs the script. Fed to the shell on such
-- a store, the script fails at the first statement that needs a new column (or
-- runs through, when only the block table is older), and its last statement, the
-- version mark, leaves the store's older version in place: graphmem then upgrades
-- the store on its next open.
--
-- The validity invariant is kept by the triggers below, so it also holds for
-- DML that a DBA runs directly: a memory is 'invalid' exactly when a
-- supersedes/refines/duplicates link targets it. Each trigger touches only the
-- endpoints of the changed link (index lookups). The triggers hold on a stock
-- sqlite3 connection too: they do not rely on `PRAGMA foreign_keys` (off by
-- default in SQLite) nor on `PRAGMA recursive_triggers` (off by default, and
-- without it the REPLACE conflict resolution deletes rows without firing DELETE
-- triggers: https://www.sqlite.org/lang_conflict.html).

PRAGMA foreign_keys = ON;

CREATE TABLE IF NOT EXISTS graphmem_meta (
    meta_key   TEXT PRIMARY KEY,
    meta_value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS graphmem_memory (
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

CREATE INDEX IF NOT EXISTS graphmem_memory_user_ix ON graphmem_memory (user_id, record_type);
CREATE INDEX IF NOT EXISTS graphmem_memory_agent_ix ON graphmem_memory (agent_id);
CREATE INDEX IF NOT EXISTS graphmem_memory_thread_ix ON graphmem_memory (thread_id);
CREATE INDEX IF NOT EXISTS graphmem_memory_message_ix
    ON graphmem_memory (thread_id, message_position);

-- Threads: a conversation's scope, its persisted settings (JSON, validated by
-- graphmem.threads.settings), and the summary and topics the LLM maintains.
-- message_count counts the messages ever added (the next message's position);
-- summarized_count is the message_count when the summary was last rewritten.
CREATE TABLE IF NOT EXISTS graphmem_thread (
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

CREATE INDEX IF NOT EXISTS graphmem_thread_user_ix ON graphmem_thread (user_id, agent_id);

-- Users and agents, with free-form information about each.
CREATE TABLE IF NOT EXISTS graphmem_profile (
    profile_kind TEXT NOT NULL CHECK (profile_kind IN ('user', 'agent')),
    profile_id   TEXT NOT NULL CHECK (length(profile_id) BETWEEN 1 AND 128),
    information  TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at   TEXT NOT NULL,
    PRIMARY KEY (profile_kind, profile_id)
) WITHOUT ROWID;

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

-- link_no and the unique indexes: schema version 8 (see its block at the end).
CREATE TABLE IF NOT EXISTS graphmem_link (
    link_no                INTEGER PRIMARY KEY,
    relation_id            TEXT NOT NULL CHECK (length(relation_id) BETWEEN 1 AND 128),
    source_id              TEXT NOT NULL
                           REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    target_id              TEXT NOT NULL
                           REFERENCES graphmem_memory (record_id) ON DELETE CASCADE,
    relation_type          TEXT NOT NULL,
    opposite_relation_type TEXT NOT NULL,
    relation_timestamp     TEXT,
    metadata               TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    created_at             TEXT NOT NULL,
    CHECK (source_id <> target_id)
);

-- The unique key on (source_id, target_id, relation_type) serves lookups by
-- source (version 8 block at the end); this one serves lookups by target
-- (traversal towards sources, and the validity recompute).
CREATE INDEX IF NOT EXISTS graphmem_link_target_ix ON graphmem_link (target_id, relation_type);

-- The search filters of a memory, readable without its row (which holds the
-- content and the embedding).
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

-- Without foreign keys (a stock sqlite3 connection) nothing else stops a link to a
-- missing memory, so the triggers check both ends; with them on, the foreign key
-- would refuse the same rows.
CREATE TRIGGER IF NOT EXISTS graphmem_link_endpoints_bi
BEFORE INSERT ON graphmem_link
WHEN NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
  OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_link_endpoints_bu
BEFORE UPDATE OF source_id, target_id ON graphmem_link
WHEN NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
  OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories');
END;

-- Deleting a memory deletes its links and metadata rows, as ON DELETE CASCADE
-- does when foreign keys are on (then these deletes find nothing left). The
-- link deletes fire graphmem_link_validity_ad, which recomputes their targets.
CREATE TRIGGER IF NOT EXISTS graphmem_memory_cascade_ad
AFTER DELETE ON graphmem_memory
BEGIN
    DELETE FROM graphmem_link WHERE source_id = OLD.record_id;
    DELETE FROM graphmem_link WHERE target_id = OLD.record_id;
    DELETE FROM graphmem_memory_meta WHERE record_id = OLD.record_id;
END;

-- Links and metadata rows refer to a memory by its id, so the id never changes
-- (delete the memory and insert it again instead).
CREATE TRIGGER IF NOT EXISTS graphmem_memory_id_bu
BEFORE UPDATE OF record_id ON graphmem_memory
WHEN NEW.record_id IS NOT OLD.record_id
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a memory''s record_id cannot change');
END;

-- REPLACE. `INSERT OR REPLACE` (or `REPLACE`) of a memory deletes the old row;
-- with foreign keys on, that cascades into its links, so the new row may claim
-- 'invalid' (checked against the links before the delete) with no lifecycle link
-- left: recompute it once the row is in.
CREATE TRIGGER IF NOT EXISTS graphmem_memory_replace_ai
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

-- A link row that REPLACE deletes fires no DELETE trigger. A row replaced for the
-- same (source, target, type) has the new row's target, which the triggers above
-- recompute; a row replaced for the same relation_id may target another memory.
-- Before each insert (and each change of relation_id), the target of a lifecycle
-- link holding the new relation_id is noted here; after the row is written, the
-- noted targets are recomputed from the links left, and the notes deleted. If
-- the statement fails instead, its rollback removes the note; if the row is
-- skipped (OR IGNORE), the note stays until the next write consumes it, and
-- recomputing a status that is right changes nothing.
CREATE TABLE IF NOT EXISTS graphmem_link_recheck (
    target_id TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS graphmem_link_replace_bi
BEFORE INSERT ON graphmem_link
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE l.relation_id = NEW.relation_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_link_replace_bu
BEFORE UPDATE OF relation_id ON graphmem_link
WHEN NEW.relation_id IS NOT OLD.relation_id
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE l.relation_id = NEW.relation_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_link_recheck_ai
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

CREATE TRIGGER IF NOT EXISTS graphmem_link_recheck_au
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

-- Keyword search (FTS5). graphmem_memory_text gives each memory a stable integer
-- doc_id (an INTEGER PRIMARY KEY, which VACUUM keeps, unlike a plain rowid);
-- graphmem_memory_fts indexes the content under that doc_id. The triggers below
-- keep both in step with graphmem_memory for any DML, a DBA's included: the insert
-- trigger first drops what a REPLACE of the same id left behind (REPLACE deletes
-- the old row without firing DELETE triggers). Words are matched without regard
-- to case, or to the accent of a Latin letter carrying one (FTS5's default
-- unicode61 tokenizer; a keyword search tokenizes its words with the same one,
-- session.sql: keep the two declarations alike).
CREATE TABLE IF NOT EXISTS graphmem_memory_text (
    doc_id    INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL UNIQUE
);

CREATE VIRTUAL TABLE IF NOT EXISTS graphmem_memory_fts USING fts5(content);

CREATE TRIGGER IF NOT EXISTS graphmem_memory_text_ai
AFTER INSERT ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id);
    DELETE FROM graphmem_memory_text WHERE record_id = NEW.record_id;
    INSERT INTO graphmem_memory_text (record_id) VALUES (NEW.record_id);
    INSERT INTO graphmem_memory_fts (rowid, content)
    SELECT t.doc_id, NEW.content FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_text_au
AFTER UPDATE OF content ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id);
    INSERT INTO graphmem_memory_fts (rowid, content)
    SELECT t.doc_id, NEW.content FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_text_ad
AFTER DELETE ON graphmem_memory
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = OLD.record_id);
    DELETE FROM graphmem_memory_text WHERE record_id = OLD.record_id;
END;

-- Index the memories of a store created before keyword search (schema version 3
-- or older); on a new or up-to-date store these find nothing to add.
INSERT INTO graphmem_memory_text (record_id)
SELECT m.record_id FROM graphmem_memory m
WHERE NOT EXISTS (SELECT 1 FROM graphmem_memory_text t WHERE t.record_id = m.record_id);

INSERT INTO graphmem_memory_fts (rowid, content)
SELECT t.doc_id, m.content
FROM graphmem_memory_text t JOIN graphmem_memory m ON m.record_id = t.record_id
WHERE NOT EXISTS (SELECT 1 FROM graphmem_memory_fts f WHERE f.rowid = t.doc_id);
-- ---------------------------------------------------------------------------
-- Schema version 4, vector search: the vector log and the candidate index.
--
-- The vector log. graphmem keeps a copy of the embeddings and search-filter
-- columns in each process (graphmem.stores.vector_cache) and must see every
-- change to them, whoever makes it: these triggers append a memory's id
-- whenever a memory row is inserted (REPLACE included), deleted, or has one of
-- those columns changed (status too, which the link triggers above write), and
-- the copy re-reads the ids logged since it last looked. Every 1024th entry
-- trims the log to its last 65536 entries (a copy that is further behind than
-- that reloads every embedding). Version 6 (below) rebuilds this table without
-- AUTOINCREMENT and keeps its numbers rising another way.
CREATE TABLE IF NOT EXISTS graphmem_vector_log (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    record_id TEXT NOT NULL
);

CREATE TRIGGER IF NOT EXISTS graphmem_vector_log_ai
AFTER INSERT ON graphmem_memory
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (NEW.record_id);
END;

CREATE TRIGGER IF NOT EXISTS graphmem_vector_log_au
AFTER UPDATE OF embedding, record_type, status, user_id, agent_id, thread_id,
    expires_at ON graphmem_memory
WHEN NEW.embedding IS NOT OLD.embedding OR NEW.record_type IS NOT OLD.record_type
  OR NEW.status IS NOT OLD.status OR NEW.user_id IS NOT OLD.user_id
  OR NEW.agent_id IS NOT OLD.agent_id OR NEW.thread_id IS NOT OLD.thread_id
  OR NEW.expires_at IS NOT OLD.expires_at
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (NEW.record_id);
END;

CREATE TRIGGER IF NOT EXISTS graphmem_vector_log_ad
AFTER DELETE ON graphmem_memory
BEGIN
    INSERT INTO graphmem_vector_log (record_id) VALUES (OLD.record_id);
END;

-- The ids of the memories passing the search filters, read from this index
-- alone (select-search-candidate-ids): a user's rows are one range of it.
CREATE INDEX IF NOT EXISTS graphmem_memory_search_ix
    ON graphmem_memory (user_id, record_type, status, expires_at, agent_id, thread_id,
                        record_id);
-- End of schema version 4, vector search.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 5, traversal adjacency: integer node numbers and a stored
-- both-directions adjacency list, which the linked-context level statements
-- (sql/pgq/expand_level.sql) walk instead of the link table.
--
-- graphmem_node numbers every memory (node_no never changes for a record id, also
-- across VACUUM and REPLACE) and copies the columns the search filters read.
-- graphmem_adjacency holds two rows per link, one from each end: (node_no,
-- created_at, relation_id) is the tie order of docs/semantics.md section 3, so a
-- node's links are one range of the primary key in that order, and other_no is
-- the far end. The triggers below keep both in step with graphmem_memory and
-- graphmem_link for any DML, a DBA's included; the statements at the end fill
-- them for the rows of a store made before version 5.
CREATE TABLE IF NOT EXISTS graphmem_node (
    node_no     INTEGER PRIMARY KEY,
    record_id   TEXT NOT NULL UNIQUE,
    record_type TEXT NOT NULL,
    user_id     TEXT,
    agent_id    TEXT,
    thread_id   TEXT,
    expires_at  TEXT
);

-- link_no: schema version 8; the other_* columns (the search filter columns of
-- the other_no node): schema version 9 (see their blocks at the end).
CREATE TABLE IF NOT EXISTS graphmem_adjacency (
    node_no           INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    relation_id       TEXT NOT NULL,
    other_no          INTEGER NOT NULL,
    link_no           INTEGER NOT NULL,
    other_record_type TEXT NOT NULL,
    other_user_id     TEXT,
    other_agent_id    TEXT,
    other_thread_id   TEXT,
    other_expires_at  TEXT,
    PRIMARY KEY (node_no, created_at, relation_id)
) WITHOUT ROWID;

-- The earliest link between two given nodes (the capped level counts a
-- neighbour once, by its earliest link), without walking a hub's other links.
CREATE INDEX IF NOT EXISTS graphmem_adjacency_pair_ix
    ON graphmem_adjacency (node_no, other_no, created_at, relation_id);

-- The links that a REPLACE into graphmem_link may delete without firing a DELETE
-- trigger (same relation_id, or same source, target and type), noted before each
-- insert; after the row is written, the adjacency rows of a noted link that is
-- gone or changed are removed, and the notes deleted. A skipped row (OR IGNORE)
-- leaves its note to the next insert, which finds the link unchanged.
CREATE TABLE IF NOT EXISTS graphmem_adjacency_recheck (
    relation_id TEXT PRIMARY KEY,
    source_no   INTEGER NOT NULL,
    target_no   INTEGER NOT NULL,
    created_at  TEXT NOT NULL
) WITHOUT ROWID;

-- The walk and pair indexes of versions 3-4 on graphmem_link served the
-- traversal, which now reads graphmem_adjacency.
DROP INDEX IF EXISTS graphmem_link_source_walk_ix;
DROP INDEX IF EXISTS graphmem_link_target_walk_ix;
DROP INDEX IF EXISTS graphmem_link_pair_ix;

CREATE TRIGGER IF NOT EXISTS graphmem_node_ai
AFTER INSERT ON graphmem_memory
BEGIN
    INSERT INTO graphmem_node (record_id, record_type, user_id, agent_id, thread_id, expires_at)
    VALUES (NEW.record_id, NEW.record_type, NEW.user_id, NEW.agent_id, NEW.thread_id,
            NEW.expires_at)
    ON CONFLICT (record_id) DO UPDATE SET
        record_type = excluded.record_type, user_id = excluded.user_id,
        agent_id = excluded.agent_id, thread_id = excluded.thread_id,
        expires_at = excluded.expires_at;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_node_au
AFTER UPDATE OF record_type, user_id, agent_id, thread_id, expires_at ON graphmem_memory
BEGIN
    UPDATE graphmem_node
    SET record_type = NEW.record_type, user_id = NEW.user_id, agent_id = NEW.agent_id,
        thread_id = NEW.thread_id, expires_at = NEW.expires_at
    WHERE record_id = NEW.record_id;
END;

-- The memory's links go first (their delete triggers find its number), whichever
-- of this trigger and graphmem_memory_cascade_ad runs first.
CREATE TRIGGER IF NOT EXISTS graphmem_node_ad
AFTER DELETE ON graphmem_memory
BEGIN
    DELETE FROM graphmem_link WHERE source_id = OLD.record_id;
    DELETE FROM graphmem_link WHERE target_id = OLD.record_id;
    DELETE FROM graphmem_adjacency WHERE node_no IN (
        SELECT n.node_no FROM graphmem_node n WHERE n.record_id = OLD.record_id);
    DELETE FROM graphmem_node WHERE record_id = OLD.record_id;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_bi
BEFORE INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_link l WHERE l.relation_id = NEW.relation_id)
  OR EXISTS (SELECT 1 FROM graphmem_link l
             WHERE l.source_id = NEW.source_id AND l.target_id = NEW.target_id
               AND l.relation_type = NEW.relation_type)
BEGIN
    INSERT OR REPLACE INTO graphmem_adjacency_recheck (relation_id, source_no, target_no, created_at)
    SELECT l.relation_id, s.node_no, t.node_no, l.created_at
    FROM graphmem_link l
    JOIN graphmem_node s ON s.record_id = l.source_id
    JOIN graphmem_node t ON t.record_id = l.target_id
    WHERE l.relation_id = NEW.relation_id
       OR (l.source_id = NEW.source_id AND l.target_id = NEW.target_id
           AND l.relation_type = NEW.relation_type);
END;

-- graphmem_adjacency_ai, which writes both rows of a new link: version 6 below.

CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_ad
AFTER DELETE ON graphmem_link
BEGIN
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT n.node_no FROM graphmem_node n
                      WHERE n.record_id IN (OLD.source_id, OLD.target_id))
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_au
AFTER UPDATE OF relation_id, source_id, target_id, created_at ON graphmem_link
BEGIN
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT n.node_no FROM graphmem_node n
                      WHERE n.record_id IN (OLD.source_id, OLD.target_id))
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id
    UNION ALL
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;

-- Fill the node numbers and the adjacency of a store made before version 5. Each
-- table is filled only while it is empty (the triggers keep it complete after
-- that): the one-row table `unfilled`, first in the join, holds no row on an
-- up-to-date store, so that an upgrade of a larger store skips the scans.
INSERT INTO graphmem_node (record_id, record_type, user_id, agent_id, thread_id, expires_at)
SELECT m.record_id, m.record_type, m.user_id, m.agent_id, m.thread_id, m.expires_at
FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM graphmem_node)) AS unfilled
CROSS JOIN graphmem_memory m
WHERE NOT EXISTS (SELECT 1 FROM graphmem_node n WHERE n.record_id = m.record_id)
ORDER BY m.rowid;

INSERT INTO graphmem_adjacency (node_no, created_at, relation_id, other_no, link_no,
                                other_record_type, other_user_id, other_agent_id,
                                other_thread_id, other_expires_at)
SELECT s.node_no, l.created_at, l.relation_id, t.node_no, l.link_no,
       t.record_type, t.user_id, t.agent_id, t.thread_id, t.expires_at
FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM graphmem_adjacency)) AS unfilled
CROSS JOIN graphmem_link l
JOIN graphmem_node s ON s.record_id = l.source_id
JOIN graphmem_node t ON t.record_id = l.target_id
WHERE NOT EXISTS (SELECT 1 FROM graphmem_adjacency a
                  WHERE a.node_no = s.node_no AND a.created_at = l.created_at
                    AND a.relation_id = l.relation_id)
UNION ALL
SELECT t.node_no, l.created_at, l.relation_id, s.node_no, l.link_no,
       s.record_type, s.user_id, s.agent_id, s.thread_id, s.expires_at
FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM graphmem_adjacency)) AS unfilled
CROSS JOIN graphmem_link l
JOIN graphmem_node s ON s.record_id = l.source_id
JOIN graphmem_node t ON t.record_id = l.target_id
WHERE NOT EXISTS (SELECT 1 FROM graphmem_adjacency a
                  WHERE a.node_no = t.node_no AND a.created_at = l.created_at
                    AND a.relation_id = l.relation_id)
ORDER BY 1, 2, 3;
-- End of schema version 5, traversal adjacency.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 6, cheaper link writes: each write transaction appends every
-- b-tree page it changes to the WAL, so two pages that every link write changed
-- for nothing are gone.
--
-- (a) The vector log loses AUTOINCREMENT, which rewrote the sqlite_sequence page
-- in every transaction that logged a memory (every lifecycle link change). A
-- plain INTEGER PRIMARY KEY numbers a new entry one past the largest left, so
-- the numbers keep rising as long as the newest entry stays: the trim never
-- deletes it, and graphmem_vector_log_newest_bd refuses any other delete of it.
-- The rebuild keeps every entry and its number; when AUTOINCREMENT had counted
-- past the largest entry left, an entry with an empty id (which names no
-- memory, so the copies skip it) holds that number.
CREATE TEMP TABLE graphmem_vector_log_copy AS
SELECT seq, record_id FROM graphmem_vector_log;

INSERT INTO temp.graphmem_vector_log_copy (seq, record_id)
SELECT s.seq, '' FROM sqlite_sequence s
WHERE s.name = 'graphmem_vector_log'
  AND s.seq > (SELECT IFNULL(MAX(c.seq), 0) FROM temp.graphmem_vector_log_copy c);

DROP TABLE graphmem_vector_log;

CREATE TABLE graphmem_vector_log (
    seq       INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL
);

INSERT INTO graphmem_vector_log (seq, record_id)
SELECT seq, record_id FROM temp.graphmem_vector_log_copy ORDER BY seq;

DROP TABLE temp.graphmem_vector_log_copy;

DELETE FROM sqlite_sequence WHERE name = 'graphmem_vector_log';

CREATE TRIGGER IF NOT EXISTS graphmem_vector_log_trim
AFTER INSERT ON graphmem_vector_log
WHEN NEW.seq % 1024 = 0
BEGIN
    DELETE FROM graphmem_vector_log WHERE seq <= NEW.seq - 65536;
END;

CREATE TRIGGER IF NOT EXISTS graphmem_vector_log_newest_bd
BEFORE DELETE ON graphmem_vector_log
WHEN OLD.seq >= (SELECT MAX(l.seq) FROM graphmem_vector_log l)
BEGIN
    SELECT RAISE(ABORT, 'graphmem: the newest vector log entry stays (it numbers the next ones)');
END;

-- (b) Both adjacency rows of a new link, after dropping those of the noted links
-- that are gone (in this order: a replaced link may share an end and a key with
-- the new one). The notes are cleared with a WHERE clause: a DELETE without one
-- empties the table by rewriting its root page, even when it holds nothing.
DROP TRIGGER IF EXISTS graphmem_adjacency_ai;

CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_ai
AFTER INSERT ON graphmem_link
BEGIN
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT d.source_no FROM graphmem_adjacency_recheck d
                      UNION ALL SELECT d.target_no FROM graphmem_adjacency_recheck d)
      AND EXISTS (
        SELECT 1 FROM graphmem_adjacency_recheck d
        WHERE d.relation_id = graphmem_adjacency.relation_id
          AND d.created_at = graphmem_adjacency.created_at
          AND graphmem_adjacency.node_no IN (d.source_no, d.target_no)
          AND NOT EXISTS (
                SELECT 1 FROM graphmem_link l
                JOIN graphmem_node s ON s.record_id = l.source_id
                JOIN graphmem_node t ON t.record_id = l.target_id
                WHERE l.relation_id = d.relation_id AND l.created_at = d.created_at
                  AND s.node_no = d.source_no AND t.node_no = d.target_no));
    DELETE FROM graphmem_adjacency_recheck WHERE relation_id IS NOT NULL;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id
    UNION ALL
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;
-- End of schema version 6, cheaper link writes.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 7, keyword documents numbered by user: a user's memories hold
-- one range of doc_ids, so a keyword search under a user filter hands FTS5 that
-- range (a rowid range: FTS5 seeks each word's postings to its start and stops
-- at its end) instead of walking every user's hits and testing each one.
--
-- graphmem_keyword_user numbers each user_id once (user_no, from 1; memories
-- without a user_id use 0). Range user_no of doc_ids runs from user_no * 2^32 to
-- user_no * 2^32 + 2^32 - 1; a new document gets one past the largest in its
-- range (the first: range start + 1). BM25 is unchanged: FTS5 computes its
-- statistics over all documents, whatever their numbers.
CREATE TABLE IF NOT EXISTS graphmem_keyword_user (
    user_no INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL UNIQUE
);

INSERT INTO graphmem_keyword_user (user_id)
SELECT DISTINCT m.user_id FROM graphmem_memory m
WHERE m.user_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM graphmem_keyword_user u WHERE u.user_id = m.user_id)
ORDER BY m.user_id;

-- Upgrade: every document outside its user's range (all of a version 6 store's
-- documents that have a user) moves to the end of it, in doc_id order; the
-- memories' ids go to the vector log, whose copies re-read the doc_ids. On an
-- up-to-date store nothing moves.
CREATE TEMP TABLE graphmem_keyword_move (
    record_id TEXT PRIMARY KEY,
    old_doc   INTEGER NOT NULL,
    new_doc   INTEGER NOT NULL
);

INSERT INTO temp.graphmem_keyword_move (record_id, old_doc, new_doc)
SELECT c.record_id, c.doc_id,
       c.lo + IFNULL((SELECT MAX(x.doc_id) FROM graphmem_memory_text x
                      WHERE x.doc_id BETWEEN c.lo AND c.lo + 4294967295) - c.lo, 0)
       + row_number() OVER (PARTITION BY c.lo ORDER BY c.doc_id)
FROM (SELECT t.record_id, t.doc_id, IFNULL(u.user_no, 0) * 4294967296 AS lo
      FROM graphmem_memory_text t
      JOIN graphmem_memory m ON m.record_id = t.record_id
      LEFT JOIN graphmem_keyword_user u ON u.user_id = m.user_id) c
WHERE c.doc_id NOT BETWEEN c.lo AND c.lo + 4294967295;

DELETE FROM graphmem_memory_fts
WHERE rowid IN (SELECT v.old_doc FROM temp.graphmem_keyword_move v);

UPDATE graphmem_memory_text
SET doc_id = (SELECT v.new_doc FROM temp.graphmem_keyword_move v
              WHERE v.record_id = graphmem_memory_text.record_id)
WHERE record_id IN (SELECT v.record_id FROM temp.graphmem_keyword_move v);

INSERT INTO graphmem_memory_fts (rowid, content)
SELECT v.new_doc, m.content
FROM temp.graphmem_keyword_move v JOIN graphmem_memory m ON m.record_id = v.record_id
ORDER BY v.new_doc;

-- Merge the index into one segment after a move (it rewrote most of it).
INSERT INTO graphmem_memory_fts (graphmem_memory_fts)
SELECT 'optimize' WHERE EXISTS (SELECT 1 FROM temp.graphmem_keyword_move);

INSERT INTO graphmem_vector_log (record_id)
SELECT v.record_id FROM temp.graphmem_keyword_move v ORDER BY v.new_doc;

DROP TABLE temp.graphmem_keyword_move;

-- Filing a memory's document: inserting (record_id, user_id, content) into the
-- view graphmem_keyword_filing drops the memory's document, if any, and files
-- the content under the next number of the user's range. A full range refuses
-- the write rather than spill into the next user's. A new memory is filed, and
-- so is a memory whose user_id changes (it moves to the new user's range).
CREATE VIEW IF NOT EXISTS graphmem_keyword_filing AS
SELECT record_id, user_id, content FROM graphmem_memory WHERE 0;

CREATE TRIGGER IF NOT EXISTS graphmem_keyword_filing_ii
INSTEAD OF INSERT ON graphmem_keyword_filing
BEGIN
    DELETE FROM graphmem_memory_fts WHERE rowid IN (
        SELECT t.doc_id FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id);
    DELETE FROM graphmem_memory_text WHERE record_id = NEW.record_id;
    INSERT INTO graphmem_keyword_user (user_id)
    SELECT NEW.user_id WHERE NEW.user_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM graphmem_keyword_user u WHERE u.user_id = NEW.user_id);
    INSERT INTO graphmem_memory_text (doc_id, record_id)
    SELECT CASE WHEN b.last < b.lo + 4294967295 THEN b.last + 1
                ELSE RAISE(ABORT, 'graphmem: this user''s keyword document range is full') END,
           NEW.record_id
    FROM (SELECT r.lo, IFNULL((SELECT MAX(x.doc_id) FROM graphmem_memory_text x
                               WHERE x.doc_id BETWEEN r.lo AND r.lo + 4294967295), r.lo) AS last
          FROM (SELECT IFNULL((SELECT u.user_no FROM graphmem_keyword_user u
                               WHERE u.user_id = NEW.user_id), 0) * 4294967296 AS lo) r) b;
    INSERT INTO graphmem_memory_fts (rowid, content)
    SELECT t.doc_id, NEW.content FROM graphmem_memory_text t WHERE t.record_id = NEW.record_id;
END;

DROP TRIGGER IF EXISTS graphmem_memory_text_ai;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_text_ai
AFTER INSERT ON graphmem_memory
BEGIN
    INSERT INTO graphmem_keyword_filing (record_id, user_id, content)
    VALUES (NEW.record_id, NEW.user_id, NEW.content);
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_text_user_au
AFTER UPDATE OF user_id ON graphmem_memory
WHEN NEW.user_id IS NOT OLD.user_id
BEGIN
    INSERT INTO graphmem_keyword_filing (record_id, user_id, content)
    VALUES (NEW.record_id, NEW.user_id, NEW.content);
END;
-- End of schema version 7, keyword documents numbered by user.
-- ---------------------------------------------------------------------------

-- prompt registry ---------------------------------------------------------------
-- Named, versioned extraction prompts (graphmem.registry). A prompt row holds
-- what is not versioned (description, annotations) and which version is
-- current; next_vid only grows, so a purged version's number is never reused.
-- An archived prompt's row stays after a purge of its versions: the id stays
-- reserved. purging_since marks a whole-prompt purge under way.
CREATE TABLE IF NOT EXISTS graphmem_prompt (
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

CREATE TABLE IF NOT EXISTS graphmem_prompt_version (
    prompt_id   TEXT NOT NULL,
    vid         INTEGER NOT NULL CHECK (vid >= 0),
    prompt_text TEXT NOT NULL,
    archived    INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (prompt_id, vid)
) WITHOUT ROWID;

-- memory service (graphmem serve) ------------------------------------------------
-- API keys (only a SHA-256 hash of each secret is kept) and memory blocks: one
-- add-memory call's messages and facts, its prompt reference and its processing
-- state. A block goes with its thread.
CREATE TABLE IF NOT EXISTS graphmem_api_key (
    key_id     TEXT PRIMARY KEY CHECK (length(key_id) BETWEEN 1 AND 64),
    key_hash   TEXT NOT NULL,
    key_role   TEXT NOT NULL CHECK (key_role IN ('read', 'admin')),
    label      TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS graphmem_memory_block (
    block_id         TEXT PRIMARY KEY CHECK (length(block_id) BETWEEN 1 AND 128),
    thread_id        TEXT NOT NULL REFERENCES graphmem_thread (thread_id) ON DELETE CASCADE,
    status           TEXT NOT NULL
                     CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
    content          TEXT NOT NULL CHECK (json_valid(content)),
    prompt_id        TEXT,
    prompt_vid       INTEGER CHECK (prompt_vid IS NULL OR prompt_vid >= 0),
    resolved_vid     INTEGER,
    context_required INTEGER NOT NULL CHECK (context_required IN (0, 1)),
    summary          TEXT,
    record_ids       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(record_ids)),
    extraction       TEXT CHECK (extraction IS NULL OR json_valid(extraction)),
    error            TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    owner            TEXT,
    lease_until      TEXT
);

CREATE INDEX IF NOT EXISTS graphmem_memory_block_thread_ix
    ON graphmem_memory_block (thread_id, created_at);
CREATE INDEX IF NOT EXISTS graphmem_memory_block_status_ix ON graphmem_memory_block (status);
-- Schema version 10: a block being processed names its holder (owner,
-- host:pid:token) and a lease (lease_until), which the holder renews while it
-- works; another server takes the block over only when that process is gone or
-- the lease ran out. A store made before gets the two columns on open (the table
-- is copied into this shape, graphmem.stores.sqlite_schema).
-- End of the memory service's tables (schema version 5, leases version 10).

-- extraction jobs ---------------------------------------------------------------
-- Schema version 5: durable memory-extraction jobs (graphmem.extraction). A job
-- moves queued -> running -> done | failed; a failed attempt with attempts left
-- goes back to queued with not_before pushed back. owner and lease_until name
-- the process holding a running job: a job whose owner died, or whose lease ran
-- out, is queued again. Times are format_time text (fixed width, sorts as time).
CREATE TABLE IF NOT EXISTS graphmem_job (
    job_id      TEXT PRIMARY KEY CHECK (length(job_id) BETWEEN 1 AND 128),
    kind        TEXT NOT NULL,
    thread_id   TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    failures    INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    owner       TEXT,
    lease_until TEXT,
    not_before  TEXT NOT NULL,
    last_error  TEXT,
    payload     TEXT NOT NULL CHECK (json_valid(payload)),
    result      TEXT CHECK (result IS NULL OR json_valid(result)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

-- The next queued job (next-job) and a thread's jobs (list-jobs, thread-job-counts).
CREATE INDEX IF NOT EXISTS graphmem_job_queue_ix ON graphmem_job (status, not_before, created_at);
CREATE INDEX IF NOT EXISTS graphmem_job_thread_ix ON graphmem_job (thread_id, status);
-- End of schema version 5, extraction jobs.

-- ---------------------------------------------------------------------------
-- Schema version 7, link write triggers: the same rules as before, in programs
-- that do less per link insert, update and delete.
--
-- (a) No `IN (...)` list in a trigger that runs on every link write: SQLite
-- builds a temporary b-tree for a list of three or more values each time a
-- trigger program evaluates it (and for an IN list or subquery that drives an
-- index lookup). The lifecycle test is written as three comparisons, and the
-- lookup of a lifecycle link towards a memory as three point probes of the
-- (target_id, relation_type) index.
-- (b) A trigger whose work is rare says so in its WHEN clause: the REPLACE notes
-- are taken only when the relation id is already stored; a link update
-- recomputes validity only when its target or its lifecycle effect changes; a
-- status write is checked only when the status changes.
-- (c) The adjacency rows of a new link are written by two point inserts, and a
-- deleted link's two rows go by two point deletes. The REPLACE bookkeeping
-- (notes before an insert, their consumption after it) runs in one trigger on
-- each side instead of two: each trigger costs its program's set-up on every
-- insert, whatever its WHEN clause decides.
DROP TRIGGER IF EXISTS graphmem_link_validity_ai;
CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_ai
AFTER INSERT ON graphmem_link
WHEN NEW.relation_type = 'supersedes' OR NEW.relation_type = 'refines'
  OR NEW.relation_type = 'duplicates'
BEGIN
    UPDATE graphmem_memory SET status = 'invalid'
    WHERE record_id = NEW.target_id AND status <> 'invalid';
END;

DROP TRIGGER IF EXISTS graphmem_link_validity_ad;
CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_ad
AFTER DELETE ON graphmem_link
WHEN OLD.relation_type = 'supersedes' OR OLD.relation_type = 'refines'
  OR OLD.relation_type = 'duplicates'
BEGIN
    UPDATE graphmem_memory
    SET status = CASE
        WHEN EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'supersedes')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'refines')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'duplicates')
        THEN 'invalid' ELSE 'valid' END
    WHERE record_id = OLD.target_id;
END;

DROP TRIGGER IF EXISTS graphmem_link_validity_au;
CREATE TRIGGER IF NOT EXISTS graphmem_link_validity_au
AFTER UPDATE OF source_id, target_id, relation_type ON graphmem_link
WHEN OLD.target_id IS NOT NEW.target_id
  OR (OLD.relation_type = 'supersedes' OR OLD.relation_type = 'refines'
      OR OLD.relation_type = 'duplicates')
     <> (NEW.relation_type = 'supersedes' OR NEW.relation_type = 'refines'
         OR NEW.relation_type = 'duplicates')
BEGIN
    UPDATE graphmem_memory
    SET status = CASE
        WHEN EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.target_id AND l.relation_type = 'supersedes')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.target_id AND l.relation_type = 'refines')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.target_id AND l.relation_type = 'duplicates')
        THEN 'invalid' ELSE 'valid' END
    WHERE record_id = NEW.target_id;
    UPDATE graphmem_memory
    SET status = CASE
        WHEN EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'supersedes')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'refines')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = OLD.target_id AND l.relation_type = 'duplicates')
        THEN 'invalid' ELSE 'valid' END
    WHERE record_id = OLD.target_id AND OLD.target_id IS NOT NEW.target_id;
END;

DROP TRIGGER IF EXISTS graphmem_memory_status_bu;
CREATE TRIGGER IF NOT EXISTS graphmem_memory_status_bu
BEFORE UPDATE OF status ON graphmem_memory
WHEN NEW.status IS NOT OLD.status
 AND NEW.status <> CASE
        WHEN EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'supersedes')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'refines')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'duplicates')
        THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;

DROP TRIGGER IF EXISTS graphmem_memory_status_bi;
CREATE TRIGGER IF NOT EXISTS graphmem_memory_status_bi
BEFORE INSERT ON graphmem_memory
WHEN NEW.status <> CASE
        WHEN EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'supersedes')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'refines')
          OR EXISTS (SELECT 1 FROM graphmem_link l
                     WHERE l.target_id = NEW.record_id AND l.relation_type = 'duplicates')
        THEN 'invalid' ELSE 'valid' END
BEGIN
    SELECT RAISE(ABORT, 'graphmem: status is derived from lifecycle links');
END;

-- The REPLACE bookkeeping of versions 2-6 ran in four triggers per insert (two
-- taking notes, two consuming them), each invoked even when its WHEN clause is
-- false; version 7 runs it in two, one on each side of the insert.
DROP TRIGGER IF EXISTS graphmem_adjacency_bi;
DROP TRIGGER IF EXISTS graphmem_link_replace_bi;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replace_bi
BEFORE INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_link l WHERE l.relation_id = NEW.relation_id)
  OR EXISTS (SELECT 1 FROM graphmem_link l
             WHERE l.source_id = NEW.source_id AND l.target_id = NEW.target_id
               AND l.relation_type = NEW.relation_type)
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE l.relation_id = NEW.relation_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
    INSERT OR REPLACE INTO graphmem_adjacency_recheck (relation_id, source_no, target_no, created_at)
    SELECT l.relation_id, s.node_no, t.node_no, l.created_at
    FROM graphmem_link l
    JOIN graphmem_node s ON s.record_id = l.source_id
    JOIN graphmem_node t ON t.record_id = l.target_id
    WHERE l.relation_id = NEW.relation_id
       OR (l.source_id = NEW.source_id AND l.target_id = NEW.target_id
           AND l.relation_type = NEW.relation_type);
END;

DROP TRIGGER IF EXISTS graphmem_adjacency_ai;
CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_ai
AFTER INSERT ON graphmem_link
BEGIN
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;

-- The noted targets' validity is recomputed, and the adjacency rows of noted
-- links that are gone or changed are dropped; the new link's rows are written
-- again after that delete, so the order in which this trigger and
-- graphmem_adjacency_ai fire does not matter.
DROP TRIGGER IF EXISTS graphmem_link_recheck_ai;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replaced_ai
AFTER INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_adjacency_recheck)
  OR EXISTS (SELECT 1 FROM graphmem_link_recheck)
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (SELECT target_id FROM graphmem_link_recheck);
    DELETE FROM graphmem_link_recheck WHERE target_id IS NOT NULL;
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT d.source_no FROM graphmem_adjacency_recheck d
                      UNION ALL SELECT d.target_no FROM graphmem_adjacency_recheck d)
      AND EXISTS (
        SELECT 1 FROM graphmem_adjacency_recheck d
        WHERE d.relation_id = graphmem_adjacency.relation_id
          AND d.created_at = graphmem_adjacency.created_at
          AND graphmem_adjacency.node_no IN (d.source_no, d.target_no)
          AND NOT EXISTS (
                SELECT 1 FROM graphmem_link l
                JOIN graphmem_node s ON s.record_id = l.source_id
                JOIN graphmem_node t ON t.record_id = l.target_id
                WHERE l.relation_id = d.relation_id AND l.created_at = d.created_at
                  AND s.node_no = d.source_no AND t.node_no = d.target_no));
    DELETE FROM graphmem_adjacency_recheck WHERE relation_id IS NOT NULL;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no)
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;

DROP TRIGGER IF EXISTS graphmem_adjacency_ad;
CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_ad
AFTER DELETE ON graphmem_link
BEGIN
    DELETE FROM graphmem_adjacency
    WHERE node_no = (SELECT n.node_no FROM graphmem_node n WHERE n.record_id = OLD.source_id)
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
    DELETE FROM graphmem_adjacency
    WHERE node_no = (SELECT n.node_no FROM graphmem_node n WHERE n.record_id = OLD.target_id)
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
END;
-- End of schema version 7, link write triggers.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 8, traversal link numbers: graphmem_link numbers its links
-- (link_no, an INTEGER PRIMARY KEY: an alias of the rowid, which VACUUM keeps),
-- and every adjacency row carries the number of its link, so the traversal reads
-- a kept link back with one search of the link table's b-tree instead of two
-- (the relation_id key index, then the table). Both columns are in the CREATE
-- TABLE statements above; the link table's two unique keys are the indexes
-- below (relation_id was the table's primary key before), made after the rows
-- are in place, so that an upgrade builds them by one sort each.
--
-- SQLite cannot add a primary key to a table: on a store made before version 8,
-- graphmem.stores.sqlite_schema copies graphmem_link into a table of the new
-- shape in rowid order (each link keeps its rowid as its number) and the
-- adjacency rows into one with the link_no column, in their key order (each
-- row's number found through its relation_id), before this script runs; the
-- script then makes the indexes and triggers again. A store made before version
-- 5 gets its adjacency from the version 5 statements above, link_no included.
CREATE UNIQUE INDEX IF NOT EXISTS graphmem_link_id_ux ON graphmem_link (relation_id);

CREATE UNIQUE INDEX IF NOT EXISTS graphmem_link_ends_ux
    ON graphmem_link (source_id, target_id, relation_type);

-- The adjacency triggers of versions 5-7 again, each writing its rows' link_no
-- (graphmem_adjacency_au also fires when a DBA changes a link's number) and,
-- since version 9, the filter columns of each row's other end, copied from the
-- node rows that the insert reads for the numbers anyway.
-- graphmem_link_replaced_ai drops a noted row only when no link of that
-- relation_id and created_at has the row's node as an end (before, when the
-- noted link's ends had changed: a note that an ignored insert left behind
-- dropped the row of a link moved since then at its end that stayed).
DROP TRIGGER IF EXISTS graphmem_adjacency_au;
CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_au
AFTER UPDATE OF relation_id, source_id, target_id, created_at, link_no ON graphmem_link
BEGIN
    DELETE FROM graphmem_adjacency
    WHERE node_no = (SELECT n.node_no FROM graphmem_node n WHERE n.record_id = OLD.source_id)
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
    DELETE FROM graphmem_adjacency
    WHERE node_no = (SELECT n.node_no FROM graphmem_node n WHERE n.record_id = OLD.target_id)
      AND created_at = OLD.created_at AND relation_id = OLD.relation_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no, NEW.link_no,
           t.record_type, t.user_id, t.agent_id, t.thread_id, t.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no, NEW.link_no,
           s.record_type, s.user_id, s.agent_id, s.thread_id, s.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;

DROP TRIGGER IF EXISTS graphmem_adjacency_ai;
CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_ai
AFTER INSERT ON graphmem_link
BEGIN
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no, NEW.link_no,
           t.record_type, t.user_id, t.agent_id, t.thread_id, t.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no, NEW.link_no,
           s.record_type, s.user_id, s.agent_id, s.thread_id, s.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;

DROP TRIGGER IF EXISTS graphmem_link_replaced_ai;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replaced_ai
AFTER INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_adjacency_recheck)
  OR EXISTS (SELECT 1 FROM graphmem_link_recheck)
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (SELECT target_id FROM graphmem_link_recheck);
    DELETE FROM graphmem_link_recheck WHERE target_id IS NOT NULL;
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT d.source_no FROM graphmem_adjacency_recheck d
                      UNION ALL SELECT d.target_no FROM graphmem_adjacency_recheck d)
      AND EXISTS (
        SELECT 1 FROM graphmem_adjacency_recheck d
        WHERE d.relation_id = graphmem_adjacency.relation_id
          AND d.created_at = graphmem_adjacency.created_at
          AND graphmem_adjacency.node_no IN (d.source_no, d.target_no)
          AND NOT EXISTS (
                SELECT 1 FROM graphmem_link l
                JOIN graphmem_node s ON s.record_id = l.source_id
                JOIN graphmem_node t ON t.record_id = l.target_id
                WHERE l.relation_id = d.relation_id AND l.created_at = d.created_at
                  AND (s.node_no = graphmem_adjacency.node_no
                       OR t.node_no = graphmem_adjacency.node_no)));
    DELETE FROM graphmem_adjacency_recheck WHERE relation_id IS NOT NULL;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT s.node_no, NEW.created_at, NEW.relation_id, t.node_no, NEW.link_no,
           t.record_type, t.user_id, t.agent_id, t.thread_id, t.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
    INSERT OR REPLACE INTO graphmem_adjacency (node_no, created_at, relation_id, other_no,
                                               link_no, other_record_type, other_user_id,
                                               other_agent_id, other_thread_id,
                                               other_expires_at)
    SELECT t.node_no, NEW.created_at, NEW.relation_id, s.node_no, NEW.link_no,
           s.record_type, s.user_id, s.agent_id, s.thread_id, s.expires_at
    FROM graphmem_node s, graphmem_node t
    WHERE s.record_id = NEW.source_id AND t.record_id = NEW.target_id;
END;
-- End of schema version 8, traversal link numbers.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 9, the neighbour's filters in the adjacency: each adjacency row
-- carries the search filter columns (record type, user, agent, thread, expiry)
-- of its other_no node (other_record_type, other_user_id, other_agent_id,
-- other_thread_id, other_expires_at: columns of the CREATE TABLE above), so a
-- traversal level tests its candidate links on the index range it reads and
-- searches no graphmem_node row (sql/pgq/expand_level.sql). A link write copies
-- them (the version 8 triggers above); a change of one of them in graphmem_node,
-- which follows each change of the memory (graphmem_node_au), rewrites them
-- below, DBA DML included.
--
-- SQLite cannot add a NOT NULL column without a default: on a store made before
-- version 9, graphmem.stores.sqlite_schema copies the adjacency rows into a
-- table of the new shape, in key order, with the columns of each row's other
-- node, before this script runs. A store made before version 5 gets them from
-- the version 5 fill statement above.

-- A node's filter columns changed: the rows whose other_no is that node are the
-- mirrors of the node's own rows (node_no, created_at, relation_id, other_no):
-- the primary-key points (other_no, created_at, relation_id), one each (an
-- UPDATE ... FROM: a row-value IN list would search only by node_no, reading
-- every link of a neighbour that is a hub). Only when one of the five columns
-- changed (an update writing the same values, as a memory update does for the
-- columns it does not change, touches no adjacency row).
CREATE TRIGGER IF NOT EXISTS graphmem_adjacency_other_au
AFTER UPDATE OF record_type, user_id, agent_id, thread_id, expires_at ON graphmem_node
WHEN NEW.record_type IS NOT OLD.record_type OR NEW.user_id IS NOT OLD.user_id
  OR NEW.agent_id IS NOT OLD.agent_id OR NEW.thread_id IS NOT OLD.thread_id
  OR NEW.expires_at IS NOT OLD.expires_at
BEGIN
    UPDATE graphmem_adjacency
    SET other_record_type = NEW.record_type, other_user_id = NEW.user_id,
        other_agent_id = NEW.agent_id, other_thread_id = NEW.thread_id,
        other_expires_at = NEW.expires_at
    FROM graphmem_adjacency AS a
    WHERE a.node_no = NEW.node_no AND graphmem_adjacency.node_no = a.other_no
      AND graphmem_adjacency.created_at = a.created_at
      AND graphmem_adjacency.relation_id = a.relation_id;
END;
-- End of schema version 9, the neighbour's filters in the adjacency.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 11, the link rows' keys and values.
--
-- (a) REPLACE on every key of a link: a link row has three keys
-- (relation_id, the ends and type, and link_no, its rowid), and a REPLACE on any
-- of them deletes the row holding it without firing a DELETE trigger. Before
-- version 11 the notes were taken on an insert for the first two keys only, and
-- on an update only for a new relation_id and only for validity: `UPDATE OR
-- REPLACE` onto another link's ends left that link's adjacency rows behind (a
-- traversal then met a link that no longer exists), and a REPLACE on link_no
-- left both its adjacency rows and its target's status.
--
-- Before an insert, and before an update of a key or of the type (the ends key
-- holds it), every other link that holds one of the new row's keys is noted:
-- its target, when it is a lifecycle link, in graphmem_link_recheck, and its
-- adjacency rows in graphmem_adjacency_recheck. After the insert
-- (graphmem_link_replaced_ai, version 8) or the update (graphmem_link_replaced_au,
-- below, which replaces graphmem_link_recheck_au) the noted targets are
-- recomputed and the noted rows that no link explains any more are dropped. A
-- statement that fails takes its notes back with it; a row that OR IGNORE skips
-- leaves notes that the next write consumes, as before. In a BEFORE INSERT
-- trigger NEW.link_no is -1 unless the insert names the number, and no link has
-- that number.
DROP TRIGGER IF EXISTS graphmem_link_replace_bi;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replace_bi
BEFORE INSERT ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_link l WHERE l.relation_id = NEW.relation_id)
  OR EXISTS (SELECT 1 FROM graphmem_link l
             WHERE l.source_id = NEW.source_id AND l.target_id = NEW.target_id
               AND l.relation_type = NEW.relation_type)
  OR EXISTS (SELECT 1 FROM graphmem_link l WHERE l.link_no = NEW.link_no)
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE (l.relation_id = NEW.relation_id OR l.link_no = NEW.link_no)
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
    INSERT OR REPLACE INTO graphmem_adjacency_recheck (relation_id, source_no, target_no, created_at)
    SELECT l.relation_id, s.node_no, t.node_no, l.created_at
    FROM graphmem_link l
    JOIN graphmem_node s ON s.record_id = l.source_id
    JOIN graphmem_node t ON t.record_id = l.target_id
    WHERE l.relation_id = NEW.relation_id OR l.link_no = NEW.link_no
       OR (l.source_id = NEW.source_id AND l.target_id = NEW.target_id
           AND l.relation_type = NEW.relation_type);
END;

DROP TRIGGER IF EXISTS graphmem_link_replace_bu;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replace_bu
BEFORE UPDATE OF relation_id, source_id, target_id, relation_type, link_no ON graphmem_link
WHEN (NEW.relation_id IS NOT OLD.relation_id
      AND EXISTS (SELECT 1 FROM graphmem_link l
                  WHERE l.relation_id = NEW.relation_id AND l.link_no <> OLD.link_no))
  OR ((NEW.source_id IS NOT OLD.source_id OR NEW.target_id IS NOT OLD.target_id
       OR NEW.relation_type IS NOT OLD.relation_type)
      AND EXISTS (SELECT 1 FROM graphmem_link l
                  WHERE l.source_id = NEW.source_id AND l.target_id = NEW.target_id
                    AND l.relation_type = NEW.relation_type AND l.link_no <> OLD.link_no))
  OR (NEW.link_no IS NOT OLD.link_no
      AND EXISTS (SELECT 1 FROM graphmem_link l WHERE l.link_no = NEW.link_no))
BEGIN
    INSERT OR IGNORE INTO graphmem_link_recheck (target_id)
    SELECT l.target_id FROM graphmem_link l
    WHERE (l.relation_id = NEW.relation_id OR l.link_no = NEW.link_no
           OR (l.source_id = NEW.source_id AND l.target_id = NEW.target_id
               AND l.relation_type = NEW.relation_type))
      AND l.link_no <> OLD.link_no
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates');
    INSERT OR REPLACE INTO graphmem_adjacency_recheck (relation_id, source_no, target_no, created_at)
    SELECT l.relation_id, s.node_no, t.node_no, l.created_at
    FROM graphmem_link l
    JOIN graphmem_node s ON s.record_id = l.source_id
    JOIN graphmem_node t ON t.record_id = l.target_id
    WHERE (l.relation_id = NEW.relation_id OR l.link_no = NEW.link_no
           OR (l.source_id = NEW.source_id AND l.target_id = NEW.target_id
               AND l.relation_type = NEW.relation_type))
      AND l.link_no <> OLD.link_no;
END;

-- After the update: the noted targets' validity, then the noted adjacency rows
-- that no link of their relation_id and created_at explains at their node (the
-- rule of graphmem_link_replaced_ai). The updated link's own rows are written by
-- graphmem_adjacency_au and are explained, so the order of the two does not
-- matter.
DROP TRIGGER IF EXISTS graphmem_link_recheck_au;
DROP TRIGGER IF EXISTS graphmem_link_replaced_au;
CREATE TRIGGER IF NOT EXISTS graphmem_link_replaced_au
AFTER UPDATE OF relation_id, source_id, target_id, relation_type, link_no ON graphmem_link
WHEN EXISTS (SELECT 1 FROM graphmem_adjacency_recheck)
  OR EXISTS (SELECT 1 FROM graphmem_link_recheck)
BEGIN
    UPDATE graphmem_memory
    SET status = CASE WHEN EXISTS (
            SELECT 1 FROM graphmem_link l
            WHERE l.target_id = graphmem_memory.record_id
              AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
        ) THEN 'invalid' ELSE 'valid' END
    WHERE record_id IN (SELECT target_id FROM graphmem_link_recheck);
    DELETE FROM graphmem_link_recheck WHERE target_id IS NOT NULL;
    DELETE FROM graphmem_adjacency
    WHERE node_no IN (SELECT d.source_no FROM graphmem_adjacency_recheck d
                      UNION ALL SELECT d.target_no FROM graphmem_adjacency_recheck d)
      AND EXISTS (
        SELECT 1 FROM graphmem_adjacency_recheck d
        WHERE d.relation_id = graphmem_adjacency.relation_id
          AND d.created_at = graphmem_adjacency.created_at
          AND graphmem_adjacency.node_no IN (d.source_no, d.target_no)
          AND NOT EXISTS (
                SELECT 1 FROM graphmem_link l
                JOIN graphmem_node s ON s.record_id = l.source_id
                JOIN graphmem_node t ON t.record_id = l.target_id
                WHERE l.relation_id = d.relation_id AND l.created_at = d.created_at
                  AND (s.node_no = graphmem_adjacency.node_no
                       OR t.node_no = graphmem_adjacency.node_no)));
    DELETE FROM graphmem_adjacency_recheck WHERE relation_id IS NOT NULL;
END;

-- (b) The rows of a link that graphmem itself refuses are refused for any DML
-- too, so that every stored link exports and imports back: an end that is a
-- message (links join memory-like records only), and a built-in relation type
-- written with another opposite, or in another case (graphmem.core.relations).
-- The checks join those of the endpoint triggers, which read both ends' memory
-- rows anyway: no more trigger programs per link write. A memory with links
-- cannot become a message either (an update of its record_type, or a REPLACE
-- of it, foreign keys on or off: delete the memory first), so an update that
-- keeps a link's ends does not read them again, and the update triggers look up
-- only the keys an update changes (a key it keeps is this row's alone). Rows stored before
-- version 11 are not checked (docs/dba.md has a query that finds them).
DROP TRIGGER IF EXISTS graphmem_link_endpoints_bi;
CREATE TRIGGER IF NOT EXISTS graphmem_link_endpoints_bi
BEFORE INSERT ON graphmem_link
WHEN NOT EXISTS (SELECT 1 FROM graphmem_memory m
                 WHERE m.record_id = NEW.source_id AND m.record_type <> 'message')
  OR NOT EXISTS (SELECT 1 FROM graphmem_memory m
                 WHERE m.record_id = NEW.target_id AND m.record_type <> 'message')
  OR CASE NEW.relation_type
         WHEN 'supersedes' THEN 'is_superseded_by' WHEN 'refines' THEN 'is_refined_by'
         WHEN 'duplicates' THEN 'duplicates' WHEN 'supports' THEN 'is_supported_by'
         WHEN 'contradicts' THEN 'contradicts'
         ELSE CASE lower(NEW.relation_type)
                  WHEN 'supersedes' THEN NULL WHEN 'refines' THEN NULL
                  WHEN 'duplicates' THEN NULL WHEN 'supports' THEN NULL
                  WHEN 'contradicts' THEN NULL
                  ELSE NEW.opposite_relation_type END
     END IS NOT NEW.opposite_relation_type
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories')
    WHERE NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
       OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id);
    SELECT RAISE(ABORT, 'graphmem: a message cannot be a link''s source or target')
    WHERE EXISTS (SELECT 1 FROM graphmem_memory m
                  WHERE m.record_id = NEW.source_id AND m.record_type = 'message')
       OR EXISTS (SELECT 1 FROM graphmem_memory m
                  WHERE m.record_id = NEW.target_id AND m.record_type = 'message');
    SELECT RAISE(ABORT, 'graphmem: a built-in relation type is lower case, with its opposite');
END;

DROP TRIGGER IF EXISTS graphmem_link_endpoints_bu;
CREATE TRIGGER IF NOT EXISTS graphmem_link_endpoints_bu
BEFORE UPDATE OF source_id, target_id, relation_type, opposite_relation_type ON graphmem_link
WHEN (NEW.source_id IS NOT OLD.source_id
      AND NOT EXISTS (SELECT 1 FROM graphmem_memory m
                      WHERE m.record_id = NEW.source_id AND m.record_type <> 'message'))
  OR (NEW.target_id IS NOT OLD.target_id
      AND NOT EXISTS (SELECT 1 FROM graphmem_memory m
                      WHERE m.record_id = NEW.target_id AND m.record_type <> 'message'))
  OR CASE NEW.relation_type
         WHEN 'supersedes' THEN 'is_superseded_by' WHEN 'refines' THEN 'is_refined_by'
         WHEN 'duplicates' THEN 'duplicates' WHEN 'supports' THEN 'is_supported_by'
         WHEN 'contradicts' THEN 'contradicts'
         ELSE CASE lower(NEW.relation_type)
                  WHEN 'supersedes' THEN NULL WHEN 'refines' THEN NULL
                  WHEN 'duplicates' THEN NULL WHEN 'supports' THEN NULL
                  WHEN 'contradicts' THEN NULL
                  ELSE NEW.opposite_relation_type END
     END IS NOT NEW.opposite_relation_type
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a link''s source and target must be existing memories')
    WHERE NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.source_id)
       OR NOT EXISTS (SELECT 1 FROM graphmem_memory m WHERE m.record_id = NEW.target_id);
    SELECT RAISE(ABORT, 'graphmem: a message cannot be a link''s source or target')
    WHERE EXISTS (SELECT 1 FROM graphmem_memory m
                  WHERE m.record_id = NEW.source_id AND m.record_type = 'message')
       OR EXISTS (SELECT 1 FROM graphmem_memory m
                  WHERE m.record_id = NEW.target_id AND m.record_type = 'message');
    SELECT RAISE(ABORT, 'graphmem: a built-in relation type is lower case, with its opposite');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_message_bi
BEFORE INSERT ON graphmem_memory
WHEN NEW.record_type = 'message'
 AND (EXISTS (SELECT 1 FROM graphmem_link l WHERE l.source_id = NEW.record_id)
      OR EXISTS (SELECT 1 FROM graphmem_link l WHERE l.target_id = NEW.record_id))
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a message cannot be a link''s source or target');
END;

CREATE TRIGGER IF NOT EXISTS graphmem_memory_message_bu
BEFORE UPDATE OF record_type ON graphmem_memory
WHEN NEW.record_type = 'message' AND OLD.record_type IS NOT 'message'
 AND (EXISTS (SELECT 1 FROM graphmem_link l WHERE l.source_id = NEW.record_id)
      OR EXISTS (SELECT 1 FROM graphmem_link l WHERE l.target_id = NEW.record_id))
BEGIN
    SELECT RAISE(ABORT, 'graphmem: a message cannot be a link''s source or target');
END;
-- End of schema version 11, the link rows' keys and values.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 12, listing indexes: a page of a listing reads its rows in the
-- listing's order (oldest first, ties by id) from an index and stops after
-- :offset + :limit rows, instead of sorting every row of the table for each
-- page; a scope (a user's, an agent's, a thread's rows, a job status) is read through its own index. No row is rewritten: a store of
-- version 11 gets the indexes when graphmem opens it (or when this script runs).
--
-- list-memories (and list-memory-ids, an export) without a scope.
CREATE INDEX IF NOT EXISTS graphmem_memory_created_ix
    ON graphmem_memory (created_at, record_id);
-- list-links: every link, or those of one relation type, tested on the way (an
-- index per type would cost every link write another b-tree).
CREATE INDEX IF NOT EXISTS graphmem_link_created_ix
    ON graphmem_link (created_at, relation_id);
-- list-threads without a scope, and an agent's threads (list-threads,
-- count-threads, and the delete-scope-* statements of delete_agent and
-- delete_user, whose test of the thread's user or agent is then a multi-index OR
-- instead of a scan of every thread).
CREATE INDEX IF NOT EXISTS graphmem_thread_created_ix
    ON graphmem_thread (created_at, thread_id);
CREATE INDEX IF NOT EXISTS graphmem_thread_agent_ix
    ON graphmem_thread (agent_id, created_at, thread_id);
-- list-profiles: the users or the agents, oldest first.
CREATE INDEX IF NOT EXISTS graphmem_profile_created_ix
    ON graphmem_profile (profile_kind, created_at, profile_id);
-- list-jobs without a thread or status.
CREATE INDEX IF NOT EXISTS graphmem_job_created_ix
    ON graphmem_job (created_at, job_id);
-- End of schema version 12, listing indexes.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- The version of this script, the last statement so that a run that stops
-- early does not claim it, and written only when the tables have this
-- version's shape (the columns that graphmem's copies add: message_role in
-- version 4, link_no in version 8, other_record_type in version 9, lease_until in
-- version 10). On an older store run by hand, whose tables the script cannot
-- reshape, the store keeps its version, and graphmem upgrades it on open.
INSERT INTO graphmem_meta (meta_key, meta_value)
SELECT 'schema_version', '12'
WHERE EXISTS (SELECT 1 FROM pragma_table_info('graphmem_memory') WHERE name = 'message_role')
  AND EXISTS (SELECT 1 FROM pragma_table_info('graphmem_link') WHERE name = 'link_no')
  AND EXISTS (SELECT 1 FROM pragma_table_info('graphmem_adjacency')
              WHERE name = 'other_record_type')
  AND EXISTS (SELECT 1 FROM pragma_table_info('graphmem_memory_block')
              WHERE name = 'lease_until')
ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value;
