-- graphmem Oracle store: schema for Oracle AI Database 23ai (23.4 or newer) / 26ai.
--
-- Run as is in SQL*Plus or SQLcl, connected as the schema owner:
--     sqlplus graphmem/graphmem@localhost:1521/FREEPDB1 @sql/oracle/install.sql
-- (from a checkout; from an installed package, save this script first:
--     graphmem sql --dialect oracle > install.sql, then @install.sql)
-- or let graphmem.stores.oracle.OracleStore run it (SchemaPolicy.CREATE_IF_NECESSARY;
-- it splits the script at `;` line ends and at the `/` lines after PL/SQL blocks).
-- Object names start with GRAPHMEM_; a store created with memory_store_id=X uses
-- X__ instead (graphmem.sqlfiles substitutes the validated identifier). Every
-- statement is idempotent (IF NOT EXISTS, CREATE OR REPLACE, MERGE), so the
-- script can be re-run. Needs CREATE TABLE, CREATE TRIGGER and CREATE PROPERTY
-- GRAPH and a quota on the default tablespace (whether DB_DEVELOPER_ROLE holds all
-- three is unverified: see docs/dba.md).
--
-- Type choices (the same behaviour as sql/sqlite/install.sql):
-- * Times are fixed-format UTC text 'YYYY-MM-DDTHH:MM:SS.ffffff+00:00'
--   (graphmem.core.validation.format_time), not TIMESTAMP columns: the store
--   binds the very strings SQLite stores, the search's :now included, so every
--   comparison and the tie rule (link created_at, then relation_id) order the
--   same bytes on both backends, with no NLS date format involved. The store's
--   session script (session.sql) pins NLS_SORT and NLS_COMP to BINARY.
-- * Metadata is CLOB with a CHECK (... IS JSON), not the native JSON type:
--   graphmem writes compact json.dumps text and must read back exactly that text
--   (native JSON stores numbers as Oracle NUMBER/OSON and may change them, e.g.
--   integers beyond 38 digits or floats near 1e308). Metadata filters never
--   parse JSON in SQL: they use GRAPHMEM_MEMORY_META.
-- * Ids are VARCHAR2(128 CHAR), like the 128-character ids graphmem accepts.
-- * Embeddings are VECTOR(*, FLOAT32): any dimension; graphmem keeps one
--   dimension per store (GRAPHMEM_META 'embedding_dim').
--
-- Validity (docs/semantics.md section 2): a memory is 'invalid' exactly when a supersedes,
-- refines or duplicates link targets it. The compound trigger on GRAPHMEM_LINK
-- keeps this for any DML on the link table, a DBA's included: each row only
-- records the affected target ids (no table access, so no ORA-04091), and the
-- statement end recomputes those targets alone through the target index.

CREATE TABLE IF NOT EXISTS GRAPHMEM_META (
    meta_key   VARCHAR2(128 CHAR) NOT NULL,
    meta_value VARCHAR2(4000) NOT NULL,
    CONSTRAINT GRAPHMEM_META_PK PRIMARY KEY (meta_key)
);

CREATE TABLE IF NOT EXISTS GRAPHMEM_MEMORY (
    record_id        VARCHAR2(128 CHAR) NOT NULL,
    record_type      VARCHAR2(16) NOT NULL,
    content          CLOB NOT NULL,
    status           VARCHAR2(8) DEFAULT 'valid' NOT NULL,
    user_id          VARCHAR2(128 CHAR),
    agent_id         VARCHAR2(128 CHAR),
    thread_id        VARCHAR2(128 CHAR),
    metadata         CLOB DEFAULT '{}' NOT NULL,
    memory_timestamp VARCHAR2(32),
    created_at       VARCHAR2(32) NOT NULL,
    expires_at       VARCHAR2(32),
    embedding        VECTOR(*, FLOAT32),
    message_role     VARCHAR2(16),
    message_position NUMBER(19),
    CONSTRAINT GRAPHMEM_MEMORY_PK PRIMARY KEY (record_id),
    CONSTRAINT GRAPHMEM_MEMORY_ID_CK CHECK (LENGTH(record_id) BETWEEN 1 AND 128),
    CONSTRAINT GRAPHMEM_MEMORY_TYPE_CK
        CHECK (record_type IN ('memory', 'fact', 'preference', 'guideline', 'message')),
    CONSTRAINT GRAPHMEM_MEMORY_MESSAGE_CK
        CHECK ((record_type = 'message' AND message_role IN ('user', 'assistant', 'system', 'tool')
                AND message_position IS NOT NULL AND thread_id IS NOT NULL)
            OR (record_type <> 'message' AND message_role IS NULL AND message_position IS NULL)),
    CONSTRAINT GRAPHMEM_MEMORY_STATUS_CK CHECK (status IN ('valid', 'invalid')),
    CONSTRAINT GRAPHMEM_MEMORY_JSON_CK CHECK (metadata IS JSON)
);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_USER_IX ON GRAPHMEM_MEMORY (user_id, record_type);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_AGENT_IX ON GRAPHMEM_MEMORY (agent_id);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_THREAD_IX ON GRAPHMEM_MEMORY (thread_id);

-- Keyword search (search strategy "keyword" and "hybrid"): an Oracle Text CONTEXT
-- index on the content, synchronised at each commit, so a memory is found by
-- its words once the transaction that wrote it commits. Created only where
-- Oracle Text is installed (the CTXSYS.CONTEXT indextype exists; gvenzl's "slim"
-- container images remove it): without it the rest of the schema still
-- installs, and OracleStore raises SchemaError for a keyword or hybrid search
-- (count-text-index in search.sql). Installing Oracle Text later and re-running
-- this script adds the index; so does re-running it on a store installed before
-- keyword search (every statement is idempotent). (Written from Oracle's
-- documentation; not run against a server here.)
BEGIN
    FOR t IN (SELECT 1 FROM all_indextypes
              WHERE owner = 'CTXSYS' AND indextype_name = 'CONTEXT') LOOP
        EXECUTE IMMEDIATE 'CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_TEXT_IX '
            || 'ON GRAPHMEM_MEMORY (content) INDEXTYPE IS CTXSYS.CONTEXT '
            || 'PARAMETERS (''SYNC (ON COMMIT)'')';
    END LOOP;
END;
/

-- Stores created before messages were stored (schema version 4): add the message
-- columns (a message's role, and its place in its thread) and let the record-type
-- check list 'message'. Existing rows are memories, so both checks hold for them.
BEGIN
    FOR t IN (SELECT table_name FROM user_tables
              WHERE table_name = 'GRAPHMEM_MEMORY'
                AND NOT EXISTS (SELECT 1 FROM user_tab_columns c
                                WHERE c.table_name = 'GRAPHMEM_MEMORY'
                                  AND c.column_name = 'MESSAGE_ROLE')) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_MEMORY ADD '
            || '(message_role VARCHAR2(16), message_position NUMBER(19))';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_MEMORY DROP CONSTRAINT GRAPHMEM_MEMORY_TYPE_CK';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_MEMORY ADD CONSTRAINT GRAPHMEM_MEMORY_TYPE_CK '
            || 'CHECK (record_type IN (''memory'', ''fact'', ''preference'', ''guideline'', '
            || '''message''))';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_MEMORY ADD CONSTRAINT GRAPHMEM_MEMORY_MESSAGE_CK '
            || 'CHECK ((record_type = ''message'' AND message_role IN (''user'', ''assistant'', '
            || '''system'', ''tool'') AND message_position IS NOT NULL AND thread_id IS NOT NULL) '
            || 'OR (record_type <> ''message'' AND message_role IS NULL '
            || 'AND message_position IS NULL))';
    END LOOP;
END;
/

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_MESSAGE_IX
    ON GRAPHMEM_MEMORY (thread_id, message_position);

-- Threads (see sql/sqlite/install.sql): scope, persisted settings (JSON text),
-- the LLM-maintained summary and topics, and the message counters.
CREATE TABLE IF NOT EXISTS GRAPHMEM_THREAD (
    thread_id        VARCHAR2(128 CHAR) NOT NULL,
    user_id          VARCHAR2(128 CHAR),
    agent_id         VARCHAR2(128 CHAR),
    metadata         CLOB DEFAULT '{}' NOT NULL,
    settings         CLOB DEFAULT '{}' NOT NULL,
    summary          CLOB,
    topics           CLOB DEFAULT '[]' NOT NULL,
    message_count    NUMBER(19) DEFAULT 0 NOT NULL,
    summarized_count NUMBER(19) DEFAULT 0 NOT NULL,
    created_at       VARCHAR2(32) NOT NULL,
    updated_at       VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_THREAD_PK PRIMARY KEY (thread_id),
    CONSTRAINT GRAPHMEM_THREAD_JSON_CK
        CHECK (metadata IS JSON AND settings IS JSON AND topics IS JSON),
    CONSTRAINT GRAPHMEM_THREAD_COUNT_CK CHECK (message_count >= 0 AND summarized_count >= 0)
);

CREATE INDEX IF NOT EXISTS GRAPHMEM_THREAD_USER_IX ON GRAPHMEM_THREAD (user_id, agent_id);

-- Users and agents, with free-form information about each.
CREATE TABLE IF NOT EXISTS GRAPHMEM_PROFILE (
    profile_kind VARCHAR2(8) NOT NULL,
    profile_id   VARCHAR2(128 CHAR) NOT NULL,
    information  CLOB,
    metadata     CLOB DEFAULT '{}' NOT NULL,
    created_at   VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_PROFILE_PK PRIMARY KEY (profile_kind, profile_id),
    CONSTRAINT GRAPHMEM_PROFILE_KIND_CK CHECK (profile_kind IN ('user', 'agent')),
    CONSTRAINT GRAPHMEM_PROFILE_JSON_CK CHECK (metadata IS JSON)
);

-- One row per top-level scalar metadata entry, for metadata filters. Unlike
-- SQLite, meta_key holds graphmem's canonical JSON text of the key (a quoted
-- string, hashed beyond 512 characters: graphmem.core.metadata.canonical_scalar)
-- because Oracle stores '' as NULL and an empty metadata key is legal; the
-- value is the canonical text of the scalar, as in every dialect. Written by
-- graphmem with the memory; a DBA who edits GRAPHMEM_MEMORY.metadata by hand
-- rewrites these rows.
CREATE TABLE IF NOT EXISTS GRAPHMEM_MEMORY_META (
    record_id  VARCHAR2(128 CHAR) NOT NULL,
    meta_key   VARCHAR2(512 CHAR) NOT NULL,
    meta_value VARCHAR2(512 CHAR) NOT NULL,
    CONSTRAINT GRAPHMEM_MEMORY_META_PK PRIMARY KEY (record_id, meta_key),
    CONSTRAINT GRAPHMEM_MEMORY_META_FK FOREIGN KEY (record_id)
        REFERENCES GRAPHMEM_MEMORY (record_id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_META_VALUE_IX
    ON GRAPHMEM_MEMORY_META (meta_key, meta_value);

-- link_no: schema version 8 (see its block after GRAPHMEM_ADJACENCY).
CREATE TABLE IF NOT EXISTS GRAPHMEM_LINK (
    link_no                NUMBER(19) GENERATED BY DEFAULT AS IDENTITY,
    relation_id            VARCHAR2(128 CHAR) NOT NULL,
    source_id              VARCHAR2(128 CHAR) NOT NULL,
    target_id              VARCHAR2(128 CHAR) NOT NULL,
    relation_type          VARCHAR2(128 CHAR) NOT NULL,
    opposite_relation_type VARCHAR2(128 CHAR) NOT NULL,
    relation_timestamp     VARCHAR2(32),
    metadata               CLOB DEFAULT '{}' NOT NULL,
    created_at             VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_LINK_PK PRIMARY KEY (relation_id),
    CONSTRAINT GRAPHMEM_LINK_NO_UK UNIQUE (link_no),
    CONSTRAINT GRAPHMEM_LINK_ID_CK CHECK (LENGTH(relation_id) BETWEEN 1 AND 128),
    CONSTRAINT GRAPHMEM_LINK_SOURCE_FK FOREIGN KEY (source_id)
        REFERENCES GRAPHMEM_MEMORY (record_id) ON DELETE CASCADE,
    CONSTRAINT GRAPHMEM_LINK_TARGET_FK FOREIGN KEY (target_id)
        REFERENCES GRAPHMEM_MEMORY (record_id) ON DELETE CASCADE,
    CONSTRAINT GRAPHMEM_LINK_SELF_CK CHECK (source_id <> target_id),
    CONSTRAINT GRAPHMEM_LINK_TRIPLE_UK UNIQUE (source_id, target_id, relation_type),
    CONSTRAINT GRAPHMEM_LINK_JSON_CK CHECK (metadata IS JSON)
);

-- The unique key's index (source_id first) serves lookups by source and the
-- source foreign key; this one serves lookups by target (traversal towards
-- sources, the validity recompute, and the target foreign key).
CREATE INDEX IF NOT EXISTS GRAPHMEM_LINK_TARGET_IX ON GRAPHMEM_LINK (target_id, relation_type);

-- Work tables of one read (SQLite keeps them in its per-connection temp schema,
-- sql/sqlite/session.sql). Rows are private to the session and live until the
-- end of the transaction (ON COMMIT DELETE ROWS): graphmem fills and reads them
-- inside one transaction, with autocommit off (reset-traversal-*, reset-filter
-- start each read), so nothing needs to outlive it. For transaction-specific
-- temporary tables, Oracle's ORA-14452 action asks only that the transactions
-- using them end, not that sessions disconnect, so DROP (uninstall.sql) is not
-- blocked by an idle pool (https://docs.oracle.com/en/error-help/db/oci-14452).
-- Since schema version 5 the work tables hold node numbers (GRAPHMEM_NODE); the
-- text-keyed ones of an older install are dropped first (their rows never
-- outlive a transaction).
BEGIN
    FOR t IN (SELECT c.table_name FROM user_tab_columns c
              WHERE c.table_name IN ('GRAPHMEM_REACHED', 'GRAPHMEM_ROOTS')
                AND c.column_name = 'ROOT_ID') LOOP
        EXECUTE IMMEDIATE 'DROP TABLE "' || t.table_name || '"';
    END LOOP;
END;
/

CREATE GLOBAL TEMPORARY TABLE IF NOT EXISTS GRAPHMEM_REACHED (
    root_no         NUMBER(19) NOT NULL,
    node_no         NUMBER(19) NOT NULL,
    depth           NUMBER(2) NOT NULL,
    parent_no       NUMBER(19),
    relation_id     VARCHAR2(128 CHAR),
    link_created_at VARCHAR2(32),
    CONSTRAINT GRAPHMEM_REACHED_PK PRIMARY KEY (root_no, node_no)
) ON COMMIT DELETE ROWS;

CREATE INDEX IF NOT EXISTS GRAPHMEM_REACHED_DEPTH_IX ON GRAPHMEM_REACHED (depth, root_no);

CREATE GLOBAL TEMPORARY TABLE IF NOT EXISTS GRAPHMEM_ROOTS (
    root_no NUMBER(19) NOT NULL,
    open    NUMBER(1) NOT NULL,
    CONSTRAINT GRAPHMEM_ROOTS_PK PRIMARY KEY (root_no)
) ON COMMIT DELETE ROWS;

CREATE GLOBAL TEMPORARY TABLE IF NOT EXISTS GRAPHMEM_FILTER (
    meta_key   VARCHAR2(512 CHAR) NOT NULL,
    meta_value VARCHAR2(512 CHAR) NOT NULL,
    CONSTRAINT GRAPHMEM_FILTER_PK PRIMARY KEY (meta_key)
) ON COMMIT DELETE ROWS;

-- Validity and orientation for every statement on GRAPHMEM_LINK.
-- AFTER EACH ROW only copies :NEW/:OLD values into PL/SQL collections; it never
-- reads a table, so it cannot raise ORA-04091 (the mutating-table rule binds
-- row-level triggers: https://docs.oracle.com/cd/G11854_01/lnpls/trigger-restrictions.html).
-- AFTER STATEMENT then (1) rejects a link whose type is already stored in the
-- reverse orientation (ORA-20002) and (2) recomputes the status of the collected
-- targets only, through GRAPHMEM_LINK_TARGET_IX: cost independent of store size.
-- Since schema version 11 (of sql/sqlite/install.sql) the rows graphmem refuses
-- are refused for any DML too: the row section rejects a built-in relation type
-- written with another opposite or in another case (ORA-20004, from the :NEW
-- values alone), and AFTER STATEMENT a link with a message at either end
-- (ORA-20005). Links stored before are not checked.
-- Every variable is declared in the trigger's declaration section, where Oracle's
-- grammar puts them (COMPOUND TRIGGER [declare_section] timing_point_section...,
-- https://docs.oracle.com/cd/E96517_01/lnpls/img_text/compound_trigger_block.html);
-- a timing point section is `<timing point> IS BEGIN ... END <timing point>;`.
--
-- Memory deletes: deleting a memory cascades into its links, which fires this
-- trigger while GRAPHMEM_MEMORY itself is being changed by the DELETE. Current
-- Oracle documentation scopes the mutating-table rule to row-level triggers, so
-- the statement-level recompute should run; older releases also restricted
-- statement triggers fired by DELETE CASCADE, and ORA-04094 (constraining table)
-- may apply. Neither has been tried on a live server. If either error occurs
-- the trigger raises ORA-20003 and the whole DELETE rolls back (the invariant
-- still holds); delete the memory's links first, then the memory. graphmem never
-- relies on the cascade: OracleStore.delete_memory deletes the memory's links
-- explicitly (delete-link), then the memory, in one transaction.
CREATE OR REPLACE TRIGGER GRAPHMEM_LINK_VALIDITY
FOR INSERT OR UPDATE OR DELETE ON GRAPHMEM_LINK
COMPOUND TRIGGER
    TYPE id_set IS TABLE OF BOOLEAN INDEX BY VARCHAR2(512);
    TYPE link_key IS RECORD (
        source_id     VARCHAR2(512),
        target_id     VARCHAR2(512),
        relation_type VARCHAR2(512),
        new_ends      BOOLEAN);
    TYPE link_keys IS TABLE OF link_key INDEX BY PLS_INTEGER;
    targets  id_set;
    written  link_keys;
    new_key  link_key;
    k        VARCHAR2(512);
    n        PLS_INTEGER;
    v_status VARCHAR2(8);
    opposite VARCHAR2(512);
    mutating EXCEPTION;
    PRAGMA EXCEPTION_INIT(mutating, -4091);
    constraining EXCEPTION;
    PRAGMA EXCEPTION_INIT(constraining, -4094);
    --
    AFTER EACH ROW IS
    BEGIN
        -- Only what a write changes is checked, as in SQLite: a link stored before
        -- schema version 11 may still be updated in what the rules do not read.
        IF INSERTING OR UPDATING('relation_type') OR UPDATING('opposite_relation_type') THEN
            -- A built-in type carries its fixed opposite and is lower case (NULL:
            -- another case of a built-in type, in ASCII letters as SQLite's lower()
            -- and graphmem.core.relations compare them).
            opposite := CASE :NEW.relation_type
                WHEN 'supersedes' THEN 'is_superseded_by' WHEN 'refines' THEN 'is_refined_by'
                WHEN 'duplicates' THEN 'duplicates' WHEN 'supports' THEN 'is_supported_by'
                WHEN 'contradicts' THEN 'contradicts'
                ELSE CASE TRANSLATE(:NEW.relation_type, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
                                    'abcdefghijklmnopqrstuvwxyz')
                    WHEN 'supersedes' THEN NULL WHEN 'refines' THEN NULL
                    WHEN 'duplicates' THEN NULL WHEN 'supports' THEN NULL
                    WHEN 'contradicts' THEN NULL
                    ELSE :NEW.opposite_relation_type END
                END;
            IF opposite IS NULL OR opposite <> :NEW.opposite_relation_type THEN
                RAISE_APPLICATION_ERROR(-20004,
                    'graphmem: a built-in relation type is lower case, with its opposite');
            END IF;
        END IF;
        IF INSERTING OR UPDATING THEN
            IF :NEW.relation_type IN ('supersedes', 'refines', 'duplicates') THEN
                targets(:NEW.target_id) := TRUE;
            END IF;
            new_key.source_id := :NEW.source_id;
            new_key.target_id := :NEW.target_id;
            new_key.relation_type := :NEW.relation_type;
            -- the ends are read for the message rule only when they are new
            new_key.new_ends := INSERTING OR :NEW.source_id <> :OLD.source_id
                                OR :NEW.target_id <> :OLD.target_id;
            written(written.COUNT + 1) := new_key;
        END IF;
        IF DELETING OR UPDATING THEN
            IF :OLD.relation_type IN ('supersedes', 'refines', 'duplicates') THEN
                targets(:OLD.target_id) := TRUE;
            END IF;
        END IF;
    END AFTER EACH ROW;
    --
    AFTER STATEMENT IS
    BEGIN
        FOR i IN 1 .. written.COUNT LOOP
            SELECT COUNT(*) INTO n
            FROM GRAPHMEM_LINK r
            WHERE r.source_id = written(i).target_id
              AND r.target_id = written(i).source_id
              AND r.relation_type = written(i).relation_type;
            IF n > 0 THEN
                RAISE_APPLICATION_ERROR(-20002,
                    'graphmem: this relation type is already stored in the reverse orientation');
            END IF;
            IF written(i).new_ends THEN
                SELECT COUNT(*) INTO n
                FROM GRAPHMEM_MEMORY m
                WHERE m.record_id IN (written(i).source_id, written(i).target_id)
                  AND m.record_type = 'message';
                IF n > 0 THEN
                    RAISE_APPLICATION_ERROR(-20005,
                        'graphmem: a message cannot be a link''s source or target');
                END IF;
            END IF;
        END LOOP;
        k := targets.FIRST;
        WHILE k IS NOT NULL LOOP
            SELECT CASE WHEN EXISTS (
                       SELECT 1 FROM GRAPHMEM_LINK l
                       WHERE l.target_id = k
                         AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
                   ) THEN 'invalid' ELSE 'valid' END
            INTO v_status
            FROM dual;
            UPDATE GRAPHMEM_MEMORY SET status = v_status
            WHERE record_id = k AND status <> v_status;
            k := targets.NEXT(k);
        END LOOP;
    EXCEPTION
        WHEN mutating OR constraining THEN
            RAISE_APPLICATION_ERROR(-20003,
                'graphmem: delete the memory''s links before the memory (see install.sql)');
    END AFTER STATEMENT;
END GRAPHMEM_LINK_VALIDITY;
/

-- Status is derived: refuse an insert or a direct status write that breaks the
-- invariant (ORA-20001). Checked at statement end, so no ORA-04091 either.
-- Since schema version 11 (of sql/sqlite/install.sql) it also refuses a memory
-- with links that becomes a message (ORA-20005), as the link trigger refuses a
-- link to a message.
CREATE OR REPLACE TRIGGER GRAPHMEM_MEMORY_STATUS
FOR INSERT OR UPDATE OF status, record_type ON GRAPHMEM_MEMORY
COMPOUND TRIGGER
    TYPE id_set IS TABLE OF BOOLEAN INDEX BY VARCHAR2(512);
    changed id_set;
    became  id_set;
    k       VARCHAR2(512);
    n       PLS_INTEGER;
    --
    AFTER EACH ROW IS
    BEGIN
        changed(:NEW.record_id) := TRUE;
        -- a memory that becomes a message (the foreign keys keep a new row from
        -- having links already); a status write alone is not checked for this
        IF UPDATING('record_type') AND :NEW.record_type = 'message'
           AND :OLD.record_type <> 'message' THEN
            became(:NEW.record_id) := TRUE;
        END IF;
    END AFTER EACH ROW;
    --
    AFTER STATEMENT IS
    BEGIN
        k := changed.FIRST;
        WHILE k IS NOT NULL LOOP
            SELECT COUNT(*) INTO n
            FROM GRAPHMEM_MEMORY m
            WHERE m.record_id = k
              AND m.status <> CASE WHEN EXISTS (
                      SELECT 1 FROM GRAPHMEM_LINK l
                      WHERE l.target_id = m.record_id
                        AND l.relation_type IN ('supersedes', 'refines', 'duplicates')
                  ) THEN 'invalid' ELSE 'valid' END;
            IF n > 0 THEN
                RAISE_APPLICATION_ERROR(-20001,
                    'graphmem: status is derived from lifecycle links');
            END IF;
            k := changed.NEXT(k);
        END LOOP;
        k := became.FIRST;
        WHILE k IS NOT NULL LOOP
            SELECT COUNT(*) INTO n
            FROM GRAPHMEM_MEMORY m
            WHERE m.record_id = k AND m.record_type = 'message'
              AND (EXISTS (SELECT 1 FROM GRAPHMEM_LINK l WHERE l.source_id = m.record_id)
                   OR EXISTS (SELECT 1 FROM GRAPHMEM_LINK l WHERE l.target_id = m.record_id));
            IF n > 0 THEN
                RAISE_APPLICATION_ERROR(-20005,
                    'graphmem: a message cannot be a link''s source or target');
            END IF;
            k := became.NEXT(k);
        END LOOP;
    END AFTER STATEMENT;
END GRAPHMEM_MEMORY_STATUS;
/

-- ---------------------------------------------------------------------------
-- Schema version 5, traversal adjacency (as in sql/sqlite/install.sql): integer
-- node numbers and a stored both-directions adjacency list that the linked-context
-- level statements (sql/pgq/expand_level.sql) walk instead of GRAPHMEM_LINK.
-- GRAPHMEM_NODE numbers every memory and copies the search-filter columns;
-- GRAPHMEM_ADJACENCY holds two rows per link, one from each end, keyed in the tie
-- order (node_no, created_at, relation_id) and index-organized, so a node's links
-- are one key range in that order. Row triggers keep both in step with the
-- memory and link tables for any DML; they read and write only these two tables,
-- never the table that fired them (no ORA-04091). Whether a link delete cascaded
-- from a memory delete may read GRAPHMEM_NODE while the memory trigger changes it
-- has not been tried on a live server; graphmem deletes a memory's links first.
CREATE TABLE IF NOT EXISTS GRAPHMEM_NODE (
    node_no     NUMBER(19) GENERATED BY DEFAULT AS IDENTITY,
    record_id   VARCHAR2(128 CHAR) NOT NULL,
    record_type VARCHAR2(32) NOT NULL,
    user_id     VARCHAR2(512 CHAR),
    agent_id    VARCHAR2(512 CHAR),
    thread_id   VARCHAR2(512 CHAR),
    expires_at  VARCHAR2(32),
    CONSTRAINT GRAPHMEM_NODE_PK PRIMARY KEY (node_no),
    CONSTRAINT GRAPHMEM_NODE_ID_UK UNIQUE (record_id)
);

CREATE TABLE IF NOT EXISTS GRAPHMEM_ADJACENCY (
    node_no     NUMBER(19) NOT NULL,
    created_at  VARCHAR2(32) NOT NULL,
    relation_id VARCHAR2(128 CHAR) NOT NULL,
    other_no    NUMBER(19) NOT NULL,
    link_no     NUMBER(19) NOT NULL,
    other_record_type VARCHAR2(32) NOT NULL,
    other_user_id     VARCHAR2(512 CHAR),
    other_agent_id    VARCHAR2(512 CHAR),
    other_thread_id   VARCHAR2(512 CHAR),
    other_expires_at  VARCHAR2(32),
    CONSTRAINT GRAPHMEM_ADJACENCY_PK PRIMARY KEY (node_no, created_at, relation_id)
) ORGANIZATION INDEX;

-- ---------------------------------------------------------------------------
-- Schema version 8, traversal link numbers (as in sql/sqlite/install.sql): every
-- link has a number (GRAPHMEM_LINK.link_no, an identity column with a unique
-- key) and each adjacency row carries its link's number (the property link_no
-- of the edge table adjacent; GRAPHMEM_ADJACENCY_SYNC writes it). A store made
-- before gets both columns here: adding an identity column numbers the rows
-- already stored, and the adjacency rows take their link's number before the
-- column is made NOT NULL. (Written from Oracle's documentation; not run
-- against a server here.)
BEGIN
    FOR t IN (SELECT table_name FROM user_tables
              WHERE table_name = 'GRAPHMEM_LINK'
                AND NOT EXISTS (SELECT 1 FROM user_tab_columns c
                                WHERE c.table_name = 'GRAPHMEM_LINK'
                                  AND c.column_name = 'LINK_NO')) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_LINK ADD '
            || '(link_no NUMBER(19) GENERATED BY DEFAULT AS IDENTITY)';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_LINK ADD CONSTRAINT GRAPHMEM_LINK_NO_UK '
            || 'UNIQUE (link_no)';
    END LOOP;
    FOR t IN (SELECT table_name FROM user_tables
              WHERE table_name = 'GRAPHMEM_ADJACENCY'
                AND NOT EXISTS (SELECT 1 FROM user_tab_columns c
                                WHERE c.table_name = 'GRAPHMEM_ADJACENCY'
                                  AND c.column_name = 'LINK_NO')) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_ADJACENCY ADD (link_no NUMBER(19))';
        EXECUTE IMMEDIATE 'UPDATE GRAPHMEM_ADJACENCY a SET a.link_no = '
            || '(SELECT l.link_no FROM GRAPHMEM_LINK l WHERE l.relation_id = a.relation_id)';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_ADJACENCY MODIFY (link_no NOT NULL)';
    END LOOP;
END;
/
-- End of schema version 8, traversal link numbers.
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Schema version 9, the neighbour's search-filter columns in the adjacency (as in
-- sql/sqlite/install.sql): each GRAPHMEM_ADJACENCY row carries a copy of the
-- GRAPHMEM_NODE columns of its other_no node (other_record_type, other_user_id,
-- other_agent_id, other_thread_id, other_expires_at; properties of the edge
-- table adjacent), so that a level tests the filters on the adjacency key range
-- it reads and touches no node row. GRAPHMEM_ADJACENCY_SYNC writes them with a
-- link's rows; GRAPHMEM_NODE_SYNC rewrites them when a memory's filter columns
-- change. A store made before gets the columns here (each one only if missing),
-- filled from GRAPHMEM_NODE by other_no before other_record_type is made NOT NULL;
-- the fill runs only while that column is still nullable, so a re-run of an
-- upgraded store reads no row. Run it with no writer of the store at work: a link
-- written by the old trigger between the ADD and the fill would stop the NOT NULL.
-- (Written from Oracle's documentation; not run against a server here.)
BEGIN
    FOR c IN (SELECT w.column_name, w.column_type
              FROM (SELECT 'OTHER_RECORD_TYPE' AS column_name,
                           'VARCHAR2(32)' AS column_type FROM dual
                    UNION ALL SELECT 'OTHER_USER_ID', 'VARCHAR2(512 CHAR)' FROM dual
                    UNION ALL SELECT 'OTHER_AGENT_ID', 'VARCHAR2(512 CHAR)' FROM dual
                    UNION ALL SELECT 'OTHER_THREAD_ID', 'VARCHAR2(512 CHAR)' FROM dual
                    UNION ALL SELECT 'OTHER_EXPIRES_AT', 'VARCHAR2(32)' FROM dual) w
              WHERE NOT EXISTS (SELECT 1 FROM user_tab_columns t
                                WHERE t.table_name = 'GRAPHMEM_ADJACENCY'
                                  AND t.column_name = w.column_name)) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_ADJACENCY ADD ('
            || c.column_name || ' ' || c.column_type || ')';
    END LOOP;
    FOR t IN (SELECT column_name FROM user_tab_columns
              WHERE table_name = 'GRAPHMEM_ADJACENCY'
                AND column_name = 'OTHER_RECORD_TYPE' AND nullable = 'Y') LOOP
        EXECUTE IMMEDIATE 'UPDATE GRAPHMEM_ADJACENCY a SET (a.other_record_type, '
            || 'a.other_user_id, a.other_agent_id, a.other_thread_id, a.other_expires_at) = '
            || '(SELECT n.record_type, n.user_id, n.agent_id, n.thread_id, n.expires_at '
            || 'FROM GRAPHMEM_NODE n WHERE n.node_no = a.other_no)';
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_ADJACENCY MODIFY (other_record_type NOT NULL)';
    END LOOP;
END;
/
-- End of schema version 9, the neighbour's filter columns.
-- ---------------------------------------------------------------------------

-- The earliest link between two given nodes (the capped level counts a
-- neighbour once, by its earliest link).
CREATE INDEX IF NOT EXISTS GRAPHMEM_ADJACENCY_PAIR_IX
    ON GRAPHMEM_ADJACENCY (node_no, other_no, created_at, relation_id);

-- The walk and pair indexes of GRAPHMEM_LINK served the traversal before version 5.
DROP INDEX IF EXISTS GRAPHMEM_LINK_SOURCE_WALK_IX;

DROP INDEX IF EXISTS GRAPHMEM_LINK_TARGET_WALK_IX;

DROP INDEX IF EXISTS GRAPHMEM_LINK_PAIR_IX;

-- Both triggers follow GRAPHMEM_LINK_VALIDITY's pattern: AFTER EACH ROW only
-- copies :NEW/:OLD values into collections; AFTER STATEMENT writes the node and
-- adjacency rows of the collected memories and links.
-- Since version 9 an update that changes one of the five filter columns (noted in
-- `moved`; `unchanged` compares them one by one, two NULLs being equal) also
-- rewrites their copies in the adjacency rows that lead to the memory's node
-- (schema version 9 block above): each of the node's own rows
-- (node_no = X, created_at, relation_id, other_no = Y) names its mirror by the
-- key (Y, created_at, relation_id). An update that changes none of them (the
-- columns are only named in its SET) writes no adjacency row.
CREATE OR REPLACE TRIGGER GRAPHMEM_NODE_SYNC
FOR INSERT OR DELETE OR UPDATE OF record_type, user_id, agent_id, thread_id, expires_at
ON GRAPHMEM_MEMORY
COMPOUND TRIGGER
    TYPE id_list IS TABLE OF VARCHAR2(512) INDEX BY PLS_INTEGER;
    written id_list;
    removed id_list;
    moved   id_list;
    --
    -- NULLs equal; always TRUE or FALSE, never NULL (an IF would read NULL as FALSE)
    FUNCTION unchanged(old_value VARCHAR2, new_value VARCHAR2) RETURN BOOLEAN IS
    BEGIN
        RETURN (old_value IS NULL AND new_value IS NULL)
            OR (old_value IS NOT NULL AND new_value IS NOT NULL AND old_value = new_value);
    END unchanged;
    --
    AFTER EACH ROW IS
    BEGIN
        IF DELETING THEN
            removed(removed.COUNT + 1) := :OLD.record_id;
        ELSE
            written(written.COUNT + 1) := :NEW.record_id;
        END IF;
        IF UPDATING AND NOT (unchanged(:OLD.record_type, :NEW.record_type)
                             AND unchanged(:OLD.user_id, :NEW.user_id)
                             AND unchanged(:OLD.agent_id, :NEW.agent_id)
                             AND unchanged(:OLD.thread_id, :NEW.thread_id)
                             AND unchanged(:OLD.expires_at, :NEW.expires_at)) THEN
            moved(moved.COUNT + 1) := :NEW.record_id;
        END IF;
    END AFTER EACH ROW;
    --
    AFTER STATEMENT IS
    BEGIN
        FOR i IN 1 .. written.COUNT LOOP
            MERGE INTO GRAPHMEM_NODE n
            USING (SELECT m.record_id, m.record_type, m.user_id, m.agent_id, m.thread_id,
                          m.expires_at
                   FROM GRAPHMEM_MEMORY m WHERE m.record_id = written(i)) m
            ON (n.record_id = m.record_id)
            WHEN MATCHED THEN UPDATE SET n.record_type = m.record_type, n.user_id = m.user_id,
                n.agent_id = m.agent_id, n.thread_id = m.thread_id, n.expires_at = m.expires_at
            WHEN NOT MATCHED THEN INSERT (record_id, record_type, user_id, agent_id, thread_id,
                expires_at) VALUES (m.record_id, m.record_type, m.user_id, m.agent_id,
                m.thread_id, m.expires_at);
        END LOOP;
        -- the copies of a changed node's filter columns, in its neighbours' rows
        FOR i IN 1 .. moved.COUNT LOOP
            UPDATE GRAPHMEM_ADJACENCY a
            SET (a.other_record_type, a.other_user_id, a.other_agent_id, a.other_thread_id,
                 a.other_expires_at) = (SELECT n.record_type, n.user_id, n.agent_id,
                    n.thread_id, n.expires_at
                    FROM GRAPHMEM_NODE n WHERE n.record_id = moved(i))
            WHERE (a.node_no, a.created_at, a.relation_id) IN (SELECT b.other_no,
                    b.created_at, b.relation_id
                    FROM GRAPHMEM_ADJACENCY b JOIN GRAPHMEM_NODE n ON n.node_no = b.node_no
                    WHERE n.record_id = moved(i));
        END LOOP;
        -- the rows of each remaining link of a deleted memory, both ends, then its number
        FOR i IN 1 .. removed.COUNT LOOP
            DELETE FROM GRAPHMEM_ADJACENCY a
            WHERE (a.node_no, a.created_at, a.relation_id) IN (SELECT b.other_no,
                    b.created_at, b.relation_id
                    FROM GRAPHMEM_ADJACENCY b JOIN GRAPHMEM_NODE n ON n.node_no = b.node_no
                    WHERE n.record_id = removed(i));
            DELETE FROM GRAPHMEM_ADJACENCY a
            WHERE a.node_no IN (SELECT n.node_no FROM GRAPHMEM_NODE n
                                WHERE n.record_id = removed(i));
            DELETE FROM GRAPHMEM_NODE WHERE record_id = removed(i);
        END LOOP;
    END AFTER STATEMENT;
END GRAPHMEM_NODE_SYNC;
/

CREATE OR REPLACE TRIGGER GRAPHMEM_ADJACENCY_SYNC
FOR INSERT OR DELETE OR UPDATE OF relation_id, source_id, target_id, created_at, link_no
ON GRAPHMEM_LINK
COMPOUND TRIGGER
    TYPE link_end IS RECORD (
        relation_id VARCHAR2(512),
        source_id   VARCHAR2(512),
        target_id   VARCHAR2(512),
        created_at  VARCHAR2(32),
        link_no     NUMBER(19));
    TYPE link_ends IS TABLE OF link_end INDEX BY PLS_INTEGER;
    gone  link_ends;
    added link_ends;
    one   link_end;
    --
    AFTER EACH ROW IS
    BEGIN
        IF DELETING OR UPDATING THEN
            one.relation_id := :OLD.relation_id;
            one.source_id := :OLD.source_id;
            one.target_id := :OLD.target_id;
            one.created_at := :OLD.created_at;
            gone(gone.COUNT + 1) := one;
        END IF;
        IF INSERTING OR UPDATING THEN
            one.relation_id := :NEW.relation_id;
            one.source_id := :NEW.source_id;
            one.target_id := :NEW.target_id;
            one.created_at := :NEW.created_at;
            one.link_no := :NEW.link_no;
            added(added.COUNT + 1) := one;
        END IF;
    END AFTER EACH ROW;
    --
    AFTER STATEMENT IS
    BEGIN
        FOR i IN 1 .. gone.COUNT LOOP
            DELETE FROM GRAPHMEM_ADJACENCY a
            WHERE a.node_no IN (SELECT n.node_no FROM GRAPHMEM_NODE n
                                WHERE n.record_id IN (gone(i).source_id, gone(i).target_id))
              AND a.created_at = gone(i).created_at AND a.relation_id = gone(i).relation_id;
        END LOOP;
        FOR i IN 1 .. added.COUNT LOOP
            INSERT INTO GRAPHMEM_ADJACENCY (node_no, created_at, relation_id, other_no, link_no,
                other_record_type, other_user_id, other_agent_id, other_thread_id,
                other_expires_at)
            SELECT e.node_no, added(i).created_at, added(i).relation_id, e.other_no,
                   added(i).link_no, e.record_type, e.user_id, e.agent_id, e.thread_id,
                   e.expires_at
            FROM (SELECT s.node_no, t.node_no AS other_no, t.record_type, t.user_id,
                         t.agent_id, t.thread_id, t.expires_at
                  FROM GRAPHMEM_NODE s, GRAPHMEM_NODE t
                  WHERE s.record_id = added(i).source_id AND t.record_id = added(i).target_id
                  UNION ALL SELECT t.node_no, s.node_no, s.record_type, s.user_id, s.agent_id,
                         s.thread_id, s.expires_at
                  FROM GRAPHMEM_NODE s, GRAPHMEM_NODE t
                  WHERE s.record_id = added(i).source_id
                    AND t.record_id = added(i).target_id) e;
        END LOOP;
    END AFTER STATEMENT;
END GRAPHMEM_ADJACENCY_SYNC;
/

-- Fill the numbers and the adjacency of a store made before version 5 (on an
-- up-to-date store these find nothing to add).
INSERT INTO GRAPHMEM_NODE (record_id, record_type, user_id, agent_id, thread_id, expires_at)
SELECT m.record_id, m.record_type, m.user_id, m.agent_id, m.thread_id, m.expires_at
FROM GRAPHMEM_MEMORY m
WHERE NOT EXISTS (SELECT 1 FROM GRAPHMEM_NODE n WHERE n.record_id = m.record_id);

INSERT INTO GRAPHMEM_ADJACENCY (node_no, created_at, relation_id, other_no, link_no,
    other_record_type, other_user_id, other_agent_id, other_thread_id, other_expires_at)
SELECT e.node_no, e.created_at, e.relation_id, e.other_no, e.link_no, e.record_type,
       e.user_id, e.agent_id, e.thread_id, e.expires_at
FROM (
    SELECT s.node_no, l.created_at, l.relation_id, t.node_no AS other_no, l.link_no,
           t.record_type, t.user_id, t.agent_id, t.thread_id, t.expires_at
    FROM GRAPHMEM_LINK l
    JOIN GRAPHMEM_NODE s ON s.record_id = l.source_id
    JOIN GRAPHMEM_NODE t ON t.record_id = l.target_id
    UNION ALL
    SELECT t.node_no, l.created_at, l.relation_id, s.node_no, l.link_no,
           s.record_type, s.user_id, s.agent_id, s.thread_id, s.expires_at
    FROM GRAPHMEM_LINK l
    JOIN GRAPHMEM_NODE s ON s.record_id = l.source_id
    JOIN GRAPHMEM_NODE t ON t.record_id = l.target_id
) e
WHERE NOT EXISTS (SELECT 1 FROM GRAPHMEM_ADJACENCY a
                  WHERE a.node_no = e.node_no AND a.created_at = e.created_at
                    AND a.relation_id = e.relation_id);
-- End of schema version 5, traversal adjacency.
-- ---------------------------------------------------------------------------

MERGE INTO GRAPHMEM_META t
USING (SELECT 'schema_version' AS meta_key, '1' AS meta_value FROM dual) s
ON (t.meta_key = s.meta_key)
WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.meta_key, s.meta_value);

COMMIT;

-- The property graph: the same text as sql/pgq/graph.sql (a test checks it).
-- Metadata only: no data is copied, queries see the tables' current rows.
CREATE OR REPLACE PROPERTY GRAPH graphmem_graph
    VERTEX TABLES (
        graphmem_memory AS memory
            KEY (record_id)
            LABEL memory
            PROPERTIES (record_id, record_type, status, user_id, agent_id, thread_id,
                        created_at, expires_at),
        graphmem_node AS node
            KEY (node_no)
            LABEL node
            PROPERTIES (node_no, record_id, record_type, user_id, agent_id, thread_id,
                        expires_at)
    )
    EDGE TABLES (
        graphmem_link AS memory_link
            KEY (relation_id)
            SOURCE KEY (source_id) REFERENCES memory (record_id)
            DESTINATION KEY (target_id) REFERENCES memory (record_id)
            LABEL memory_link
            PROPERTIES (relation_id, source_id, target_id, relation_type,
                        opposite_relation_type, created_at),
        graphmem_adjacency AS adjacent
            KEY (node_no, created_at, relation_id)
            SOURCE KEY (node_no) REFERENCES node (node_no)
            DESTINATION KEY (other_no) REFERENCES node (node_no)
            LABEL adjacent
            PROPERTIES (node_no, other_no, created_at, relation_id, link_no,
                        other_record_type, other_user_id, other_agent_id, other_thread_id,
                        other_expires_at)
    );

-- prompt registry ---------------------------------------------------------------
-- Named, versioned extraction prompts (graphmem.registry), as in
-- sql/sqlite/install.sql. Prompt text is CLOB: 4000 characters may exceed
-- 4000 bytes. next_vid only grows, so a purged version's number is never reused;
-- an archived prompt's row outlives a purge of its versions (the id stays
-- reserved); purging_since marks a whole-prompt purge under way.
CREATE TABLE IF NOT EXISTS GRAPHMEM_PROMPT (
    prompt_id     VARCHAR2(128 CHAR) NOT NULL,
    description   VARCHAR2(200 CHAR) NOT NULL,
    annotations   CLOB,
    current_vid   NUMBER(10) NOT NULL,
    next_vid      NUMBER(10) NOT NULL,
    archived      NUMBER(1) DEFAULT 0 NOT NULL,
    purging_since VARCHAR2(32),
    created_at    VARCHAR2(32) NOT NULL,
    updated_at    VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_PROMPT_PK PRIMARY KEY (prompt_id),
    CONSTRAINT GRAPHMEM_PROMPT_ARCHIVED_CK CHECK (archived IN (0, 1)),
    CONSTRAINT GRAPHMEM_PROMPT_JSON_CK CHECK (annotations IS JSON)
);

CREATE TABLE IF NOT EXISTS GRAPHMEM_PROMPT_VERSION (
    prompt_id   VARCHAR2(128 CHAR) NOT NULL,
    vid         NUMBER(10) NOT NULL,
    prompt_text CLOB NOT NULL,
    archived    NUMBER(1) DEFAULT 0 NOT NULL,
    created_at  VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_PROMPT_VERSION_PK PRIMARY KEY (prompt_id, vid),
    CONSTRAINT GRAPHMEM_PROMPT_VERSION_CK CHECK (vid >= 0 AND archived IN (0, 1))
);

-- memory service (graphmem serve) ------------------------------------------------
-- API keys (a SHA-256 hash of each secret) and memory blocks, as in
-- sql/sqlite/install.sql (schema version 5). A block goes with its thread.
CREATE TABLE IF NOT EXISTS GRAPHMEM_API_KEY (
    key_id     VARCHAR2(64 CHAR) NOT NULL,
    key_hash   VARCHAR2(128) NOT NULL,
    key_role   VARCHAR2(16) NOT NULL,
    label      VARCHAR2(200 CHAR),
    created_at VARCHAR2(32) NOT NULL,
    revoked_at VARCHAR2(32),
    CONSTRAINT GRAPHMEM_API_KEY_PK PRIMARY KEY (key_id),
    CONSTRAINT GRAPHMEM_API_KEY_ROLE_CK CHECK (key_role IN ('read', 'admin'))
);

CREATE TABLE IF NOT EXISTS GRAPHMEM_MEMORY_BLOCK (
    block_id         VARCHAR2(128 CHAR) NOT NULL,
    thread_id        VARCHAR2(128 CHAR) NOT NULL,
    status           VARCHAR2(16) NOT NULL,
    content          CLOB NOT NULL,
    prompt_id        VARCHAR2(128 CHAR),
    prompt_vid       NUMBER(10),
    resolved_vid     NUMBER(10),
    context_required NUMBER(1) NOT NULL,
    summary          CLOB,
    record_ids       CLOB DEFAULT '[]' NOT NULL,
    extraction       CLOB,
    error            VARCHAR2(4000 CHAR),
    created_at       VARCHAR2(32) NOT NULL,
    updated_at       VARCHAR2(32) NOT NULL,
    owner            VARCHAR2(256 CHAR),
    lease_until      VARCHAR2(32),
    CONSTRAINT GRAPHMEM_MEMORY_BLOCK_PK PRIMARY KEY (block_id),
    CONSTRAINT GRAPHMEM_MEMORY_BLOCK_THREAD_FK FOREIGN KEY (thread_id)
        REFERENCES GRAPHMEM_THREAD (thread_id) ON DELETE CASCADE,
    CONSTRAINT GRAPHMEM_MEMORY_BLOCK_STATUS_CK
        CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
    CONSTRAINT GRAPHMEM_MEMORY_BLOCK_CK CHECK (context_required IN (0, 1)
        AND (prompt_vid IS NULL OR prompt_vid >= 0)),
    CONSTRAINT GRAPHMEM_MEMORY_BLOCK_JSON_CK CHECK (content IS JSON AND record_ids IS JSON
        AND extraction IS JSON)
);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_BLOCK_THREAD_IX
    ON GRAPHMEM_MEMORY_BLOCK (thread_id, created_at);

CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_BLOCK_STATUS_IX ON GRAPHMEM_MEMORY_BLOCK (status);

-- Block leases (schema version 10 of sql/sqlite/install.sql): a block being
-- processed names its holder (owner, host:pid:token) and a lease (lease_until),
-- renewed while it works; another server takes the block over only when that
-- process is gone or the lease ran out. A store made before gets the two
-- nullable columns here, each only if missing (no row is read or rewritten).
-- (Written from Oracle's documentation; not run against a server here.)
BEGIN
    FOR c IN (SELECT w.column_name, w.column_type
              FROM (SELECT 'OWNER' AS column_name, 'VARCHAR2(256 CHAR)' AS column_type
                    FROM dual
                    UNION ALL SELECT 'LEASE_UNTIL', 'VARCHAR2(32)' FROM dual) w
              WHERE NOT EXISTS (SELECT 1 FROM user_tab_columns t
                                WHERE t.table_name = 'GRAPHMEM_MEMORY_BLOCK'
                                  AND t.column_name = w.column_name)) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE GRAPHMEM_MEMORY_BLOCK ADD ('
            || c.column_name || ' ' || c.column_type || ')';
    END LOOP;
END;
/
-- End of the memory service's tables (schema version 5, leases version 10).

-- extraction jobs ---------------------------------------------------------------
-- Schema version 5: durable memory-extraction jobs (graphmem.extraction), as in
-- sql/sqlite/install.sql. Times are format_time text (fixed width, sorts as time).
CREATE TABLE IF NOT EXISTS GRAPHMEM_JOB (
    job_id      VARCHAR2(128 CHAR) NOT NULL,
    kind        VARCHAR2(32 CHAR) NOT NULL,
    thread_id   VARCHAR2(128 CHAR) NOT NULL,
    status      VARCHAR2(16) NOT NULL,
    attempts    NUMBER(10) DEFAULT 0 NOT NULL,
    failures    NUMBER(10) DEFAULT 0 NOT NULL,
    owner       VARCHAR2(256 CHAR),
    lease_until VARCHAR2(32),
    not_before  VARCHAR2(32) NOT NULL,
    last_error  CLOB,
    payload     CLOB NOT NULL,
    result      CLOB,
    created_at  VARCHAR2(32) NOT NULL,
    updated_at  VARCHAR2(32) NOT NULL,
    CONSTRAINT GRAPHMEM_JOB_PK PRIMARY KEY (job_id),
    CONSTRAINT GRAPHMEM_JOB_STATUS_CK CHECK (status IN ('queued', 'running', 'done', 'failed')),
    CONSTRAINT GRAPHMEM_JOB_COUNT_CK CHECK (attempts >= 0 AND failures >= 0),
    CONSTRAINT GRAPHMEM_JOB_PAYLOAD_CK CHECK (payload IS JSON),
    CONSTRAINT GRAPHMEM_JOB_RESULT_CK CHECK (result IS JSON)
);

CREATE INDEX IF NOT EXISTS GRAPHMEM_JOB_QUEUE_IX ON GRAPHMEM_JOB (status, not_before, created_at);
CREATE INDEX IF NOT EXISTS GRAPHMEM_JOB_THREAD_IX ON GRAPHMEM_JOB (thread_id, status);
-- End of schema version 5, extraction jobs.

-- listing indexes -----------------------------------------------------------------
-- Schema version 12 of sql/sqlite/install.sql: a page of a listing reads its rows
-- in the listing's order (oldest first, ties by id) from an index, up to the
-- page's end, instead of sorting every row for each page; a scope (an agent's
-- threads) is one range of its index. Indexes only, each made
-- only if missing, so a store made before gets them when the script runs again.
CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_CREATED_IX ON GRAPHMEM_MEMORY (created_at, record_id);

CREATE INDEX IF NOT EXISTS GRAPHMEM_LINK_CREATED_IX ON GRAPHMEM_LINK (created_at, relation_id);

CREATE INDEX IF NOT EXISTS GRAPHMEM_THREAD_CREATED_IX ON GRAPHMEM_THREAD (created_at, thread_id);

-- An agent's threads: list-threads and count-threads, and the delete-scope-*
-- statements of delete_agent and delete_user (their test of a thread's user or
-- agent can then use an index for each side of the OR).
CREATE INDEX IF NOT EXISTS GRAPHMEM_THREAD_AGENT_IX
    ON GRAPHMEM_THREAD (agent_id, created_at, thread_id);

CREATE INDEX IF NOT EXISTS GRAPHMEM_PROFILE_CREATED_IX
    ON GRAPHMEM_PROFILE (profile_kind, created_at, profile_id);

CREATE INDEX IF NOT EXISTS GRAPHMEM_JOB_CREATED_IX ON GRAPHMEM_JOB (created_at, job_id);
-- End of the listing indexes.
