-- Links between memories (Oracle). Validity is recomputed by the compound
-- trigger of install.sql at the end of each statement here, in its transaction.
-- Used by graphmem.stores.oracle.OracleStore.

-- name: insert-link
-- Store one directed link source -> target.
INSERT INTO graphmem_link (
    relation_id, source_id, target_id, relation_type, opposite_relation_type,
    relation_timestamp, metadata, created_at
) VALUES (
    :relation_id, :source_id, :target_id, :relation_type, :opposite_relation_type,
    :relation_timestamp, :metadata, :created_at
);

-- name: get-links
-- The links whose ids are in the JSON array :relation_ids, with endpoint types.
SELECT l.relation_id, l.source_id, s.record_type, l.target_id, t.record_type,
       l.relation_type, l.opposite_relation_type, l.relation_timestamp, l.metadata,
       l.created_at
FROM graphmem_link l
JOIN graphmem_memory s ON s.record_id = l.source_id
JOIN graphmem_memory t ON t.record_id = l.target_id
WHERE l.relation_id IN (
        SELECT j.id
        FROM JSON_TABLE(:relation_ids, '$[*]' COLUMNS (id VARCHAR2(128 CHAR) PATH '$')) j);

-- name: find-link-conflict
-- A stored link that a new link source -> target of :relation_type would
-- duplicate: the same triple, or the same type in the reverse orientation.
SELECT l.relation_id, l.source_id, l.target_id
FROM graphmem_link l
WHERE l.relation_type = :relation_type
  AND ((l.source_id = :source_id AND l.target_id = :target_id)
       OR (l.source_id = :target_id AND l.target_id = :source_id))
  AND l.relation_id <> :exclude_relation_id;

-- name: find-link-by-triple
-- The id of the link with this exact directed triple.
SELECT l.relation_id FROM graphmem_link l
WHERE l.source_id = :source_id AND l.target_id = :target_id
  AND l.relation_type = :relation_type;

-- name: update-link
-- Replace the mutable fields of one link; the caller passes the current value
-- for each field it does not change.
UPDATE graphmem_link
SET relation_type = :relation_type, opposite_relation_type = :opposite_relation_type,
    relation_timestamp = :relation_timestamp, metadata = :metadata
WHERE relation_id = :relation_id;

-- name: delete-link
-- Delete one link by id.
DELETE FROM graphmem_link WHERE relation_id = :relation_id;

-- name: list-links
-- Every link, or those of :relation_type when it is not NULL; oldest first
-- (ties by id, a stable order), :limit rows after the first :offset. The links
-- are read in that order from GRAPHMEM_LINK_CREATED_IX (schema version 12) and
-- only up to the page's end; a type filter is tested on the way (no index of
-- its own: it would cost every link write a b-tree more, docs/performance.md),
-- so a page of a rare type reads the links older than it.
SELECT l.relation_id, l.source_id, s.record_type, l.target_id, t.record_type,
       l.relation_type, l.opposite_relation_type, l.relation_timestamp, l.metadata,
       l.created_at
FROM graphmem_link l
JOIN graphmem_memory s ON s.record_id = l.source_id
JOIN graphmem_memory t ON t.record_id = l.target_id
WHERE :relation_type IS NULL OR l.relation_type = :relation_type
ORDER BY l.created_at, l.relation_id
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: count-links
-- How many links list-links pages through: every link, or those of
-- :relation_type when it is not NULL. Both
-- ends of a link are memories (foreign keys), so the joins of list-links leave
-- none out.
SELECT (SELECT COUNT(*) FROM graphmem_link l WHERE l.relation_type = :relation_type)
     + (SELECT COUNT(*) FROM graphmem_link l WHERE :relation_type IS NULL)
FROM dual;

-- name: list-link-ids
-- The ids of every link, in the order of list-links: an export reads them page
-- by page, and each page's rows with get-links. Both ends are in the export
-- (list-memory-ids keeps an expired memory that is an end of a link).
SELECT l.relation_id
FROM graphmem_link l
ORDER BY l.created_at, l.relation_id;

-- name: list-links-of-record
-- Links with :record_id at either end (and of :relation_type when it is not
-- NULL); two index lookups, oldest first (ties by id), :limit rows after the
-- first :offset.
SELECT l.relation_id, l.source_id, s.record_type, l.target_id, t.record_type,
       l.relation_type, l.opposite_relation_type, l.relation_timestamp, l.metadata,
       l.created_at
FROM graphmem_link l
JOIN graphmem_memory s ON s.record_id = l.source_id
JOIN graphmem_memory t ON t.record_id = l.target_id
WHERE l.relation_id IN (
        SELECT relation_id FROM graphmem_link WHERE source_id = :record_id
        UNION ALL
        SELECT relation_id FROM graphmem_link WHERE target_id = :record_id)
  AND (:relation_type IS NULL OR l.relation_type = :relation_type)
ORDER BY l.created_at, l.relation_id
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: count-links-of-record
-- How many links list-links-of-record pages through: those with :record_id at
-- either end, of :relation_type when it is not NULL.
SELECT COUNT(*) FROM graphmem_link l
WHERE l.relation_id IN (
        SELECT relation_id FROM graphmem_link WHERE source_id = :record_id
        UNION ALL
        SELECT relation_id FROM graphmem_link WHERE target_id = :record_id)
  AND (:relation_type IS NULL OR l.relation_type = :relation_type);
