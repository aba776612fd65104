-- Threads, messages, users and agents (Oracle).
-- Used by graphmem.stores.oracle.OracleStore through graphmem.stores.thread_store;
-- binds as for SQLite (install.sql).

-- name: insert-thread
-- Store one thread; a duplicate thread_id violates the primary key (ORA-00001).
INSERT INTO graphmem_thread (
    thread_id, user_id, agent_id, metadata, settings, summary, topics,
    message_count, summarized_count, created_at, updated_at
) VALUES (
    :thread_id, :user_id, :agent_id, :metadata, :settings, :summary, :topics,
    0, 0, :created_at, :created_at
);

-- name: lock-thread
-- Lock the thread's row until the transaction ends, before a read of the row
-- that decides its update (reads are READ COMMITTED: two such updates would
-- otherwise each write back what it read before the other committed).
SELECT thread_id FROM graphmem_thread WHERE thread_id = :thread_id FOR UPDATE;

-- name: get-thread
-- One thread by id.
SELECT t.thread_id, t.user_id, t.agent_id, t.metadata, t.settings, t.summary, t.topics,
       t.message_count, t.summarized_count, t.created_at, t.updated_at
FROM graphmem_thread t
WHERE t.thread_id = :thread_id;

-- name: list-threads
-- Threads of a user and/or an agent (NULL: any), oldest first (ties by id),
-- :limit rows after the first :offset. One branch per way in, as in
-- sql/sqlite/threads.sql: a user's threads (GRAPHMEM_THREAD_USER_IX), else an
-- agent's (GRAPHMEM_THREAD_AGENT_IX), else every thread
-- (GRAPHMEM_THREAD_CREATED_IX); the branches whose bind tests are false read
-- nothing. Ordered by position (10, 1: created_at, thread_id).
SELECT t.thread_id, t.user_id, t.agent_id, t.metadata, t.settings, t.summary, t.topics,
       t.message_count, t.summarized_count, t.created_at, t.updated_at
FROM graphmem_thread t
WHERE t.user_id = :user_id
  AND (:agent_id IS NULL OR t.agent_id = :agent_id)
UNION ALL
SELECT t.thread_id, t.user_id, t.agent_id, t.metadata, t.settings, t.summary, t.topics,
       t.message_count, t.summarized_count, t.created_at, t.updated_at
FROM graphmem_thread t
WHERE :user_id IS NULL AND t.agent_id = :agent_id
UNION ALL
SELECT t.thread_id, t.user_id, t.agent_id, t.metadata, t.settings, t.summary, t.topics,
       t.message_count, t.summarized_count, t.created_at, t.updated_at
FROM graphmem_thread t
WHERE :user_id IS NULL AND :agent_id IS NULL
ORDER BY 10, 1
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: count-threads
-- How many threads list-threads pages through for the same :user_id and
-- :agent_id (NULL: any), counted through the index of the same branch.
SELECT (SELECT COUNT(*) FROM graphmem_thread t
        WHERE t.user_id = :user_id AND (:agent_id IS NULL OR t.agent_id = :agent_id))
     + (SELECT COUNT(*) FROM graphmem_thread t
        WHERE :user_id IS NULL AND t.agent_id = :agent_id)
     + (SELECT COUNT(*) FROM graphmem_thread t
        WHERE :user_id IS NULL AND :agent_id IS NULL)
FROM dual;

-- name: update-thread
-- Overwrite a thread's mutable fields; the caller passes the current value of
-- each field it does not change.
UPDATE graphmem_thread
SET metadata = :metadata, settings = :settings, summary = :summary, topics = :topics,
    summarized_count = :summarized_count, updated_at = :updated_at
WHERE thread_id = :thread_id;

-- name: reserve-message-positions
-- Count :count new messages into a thread; the new positions are the :count
-- below the updated message_count. The row lock orders concurrent writers.
UPDATE graphmem_thread
SET message_count = message_count + :count
WHERE thread_id = :thread_id;

-- name: get-message-count
-- How many messages were ever added to a thread (the next position).
SELECT t.message_count FROM graphmem_thread t WHERE t.thread_id = :thread_id;

-- name: insert-message
-- Store one message: a record of type 'message' with its role and position.
INSERT INTO graphmem_memory (
    record_id, record_type, content, user_id, agent_id, thread_id,
    metadata, memory_timestamp, created_at, expires_at, embedding,
    message_role, message_position
) VALUES (
    :record_id, 'message', :content, :user_id, :agent_id, :thread_id,
    :metadata, :memory_timestamp, :created_at, :expires_at, :embedding,
    :message_role, :message_position
);

-- name: count-messages
-- How many unexpired messages a thread holds.
SELECT COUNT(*) FROM graphmem_memory m
WHERE m.thread_id = :thread_id AND m.record_type = 'message'
  AND (m.expires_at IS NULL OR m.expires_at > :now);

-- name: list-messages
-- A thread's unexpired messages by position, :limit rows after the first :offset.
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at,
       m.message_role, m.message_position
FROM graphmem_memory m
WHERE m.thread_id = :thread_id AND m.record_type = 'message'
  AND (m.expires_at IS NULL OR m.expires_at > :now)
ORDER BY m.message_position
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: list-window-messages
-- The last :window_size unexpired messages of a thread before position :upto, newest
-- first (an extraction's window): read backwards from :upto through
-- GRAPHMEM_MEMORY_MESSAGE_IX, so the work does not grow with the thread.
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at,
       m.message_role, m.message_position
FROM graphmem_memory m
WHERE m.thread_id = :thread_id AND m.record_type = 'message'
  AND m.message_position < :upto
  AND (m.expires_at IS NULL OR m.expires_at > :now)
ORDER BY m.message_position DESC
FETCH FIRST :window_size ROWS ONLY;

-- name: get-messages
-- The messages whose ids are in the JSON array :record_ids.
SELECT m.record_id, m.record_type, m.content, m.status, m.user_id, m.agent_id,
       m.thread_id, m.metadata, m.memory_timestamp, m.created_at, m.expires_at,
       m.message_role, m.message_position
FROM graphmem_memory m
WHERE m.record_id IN (SELECT j.id
        FROM JSON_TABLE(:record_ids, '$[*]' COLUMNS (id VARCHAR2(128 CHAR) PATH '$')) j)
  AND m.record_type = 'message';

-- name: list-message-places
-- The ids of a thread's messages (expired ones too) at the positions from :low
-- to :high, by position: an import refuses a message whose place is taken.
SELECT m.message_position, m.record_id
FROM graphmem_memory m
WHERE m.thread_id = :thread_id AND m.record_type = 'message'
  AND m.message_position BETWEEN :low AND :high
ORDER BY m.message_position;

-- name: delete-scope-links
-- The links of every record in a scope: a thread (:thread_id), or a user's or an
-- agent's records and threads (a NULL bind matches nothing). Plain link DML, so
-- the link triggers recompute the validity of each deleted link's target.
DELETE FROM graphmem_link
WHERE source_id IN (SELECT m.record_id FROM graphmem_memory m
                    WHERE m.thread_id = :thread_id OR m.user_id = :user_id
                       OR m.agent_id = :agent_id
                       OR m.thread_id IN (SELECT t.thread_id FROM graphmem_thread t
                                          WHERE t.user_id = :user_id
                                             OR t.agent_id = :agent_id))
   OR target_id IN (SELECT m.record_id FROM graphmem_memory m
                    WHERE m.thread_id = :thread_id OR m.user_id = :user_id
                       OR m.agent_id = :agent_id
                       OR m.thread_id IN (SELECT t.thread_id FROM graphmem_thread t
                                          WHERE t.user_id = :user_id
                                             OR t.agent_id = :agent_id));

-- name: delete-scope-records
-- The records (memories and messages) of the same scope; their metadata rows go
-- with them.
DELETE FROM graphmem_memory
WHERE thread_id = :thread_id OR user_id = :user_id OR agent_id = :agent_id
   OR thread_id IN (SELECT t.thread_id FROM graphmem_thread t
                    WHERE t.user_id = :user_id OR t.agent_id = :agent_id);

-- name: delete-scope-threads
-- The threads of the same scope.
DELETE FROM graphmem_thread
WHERE thread_id = :thread_id OR user_id = :user_id OR agent_id = :agent_id;

-- name: insert-profile
-- Store a user or an agent; a duplicate (kind, id) violates the primary key (ORA-00001).
INSERT INTO graphmem_profile (profile_kind, profile_id, information, metadata, created_at)
VALUES (:profile_kind, :profile_id, :information, :metadata, :created_at);

-- name: get-profile
-- One user or agent.
SELECT p.profile_kind, p.profile_id, p.information, p.metadata, p.created_at
FROM graphmem_profile p
WHERE p.profile_kind = :profile_kind AND p.profile_id = :profile_id;

-- name: list-profiles
-- Users or agents, oldest first (ties by id), :limit rows after the first :offset.
SELECT p.profile_kind, p.profile_id, p.information, p.metadata, p.created_at
FROM graphmem_profile p
WHERE p.profile_kind = :profile_kind
ORDER BY p.created_at, p.profile_id
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: count-profiles
-- How many users or agents (:profile_kind) list-profiles pages through.
SELECT COUNT(*) FROM graphmem_profile p
WHERE p.profile_kind = :profile_kind;

-- name: delete-profile
-- Forget one user or agent (its records go through the delete-scope-* statements).
DELETE FROM graphmem_profile
WHERE profile_kind = :profile_kind AND profile_id = :profile_id;
