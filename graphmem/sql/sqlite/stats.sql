-- Store counts: memories and links grouped for GraphMemory.stats (SQLite).
-- Used by graphmem.stores.sqlite.SqliteStore (graphmem.stores.sql_scans).

-- name: count-memory-groups
-- How many memories of :record_types unexpired at :now (those list-memories
-- lists) there are of each record type, status and user (NULL: no user): one
-- row per group, which the caller adds up per type, per status and per user.
SELECT m.record_type, m.status, m.user_id, COUNT(*)
FROM graphmem_memory m
WHERE m.record_type IN (SELECT value FROM json_each(:record_types))
  AND (m.expires_at IS NULL OR m.expires_at > :now)
GROUP BY m.record_type, m.status, m.user_id;

-- name: count-link-types
-- How many links of each relation type join two memories unexpired at :now
-- (those between the memories of count-memory-groups: a link to an expired
-- memory is not counted).
SELECT l.relation_type, COUNT(*)
FROM graphmem_link l
WHERE l.source_id NOT IN (SELECT m.record_id FROM graphmem_memory m WHERE m.expires_at <= :now)
  AND l.target_id NOT IN (SELECT m.record_id FROM graphmem_memory m WHERE m.expires_at <= :now)
GROUP BY l.relation_type;
