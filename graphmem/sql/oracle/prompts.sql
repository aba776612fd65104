-- graphmem Oracle store: the prompt registry (graphmem.registry), the statements of
-- sql/sqlite/prompts.sql with the same names and binds.
--
-- Rules (which change is allowed when) live in Python; these statements read and
-- write rows. Run inside graphmem's transactions.

-- name: lock-prompt
-- Lock the prompt row until the transaction ends, so that two updates do not both
-- take the same next_vid (reads are READ COMMITTED).
SELECT prompt_id FROM graphmem_prompt WHERE prompt_id = :prompt_id FOR UPDATE;

-- name: get-prompt
-- One prompt row with its number of versions.
SELECT p.prompt_id, p.description, p.annotations, p.current_vid, p.next_vid, p.archived,
       p.purging_since, p.created_at, p.updated_at,
       (SELECT COUNT(*) FROM graphmem_prompt_version v WHERE v.prompt_id = p.prompt_id)
FROM graphmem_prompt p
WHERE p.prompt_id = :prompt_id;

-- name: insert-prompt
-- A new prompt row.
INSERT INTO graphmem_prompt (prompt_id, description, annotations, current_vid, next_vid,
                             archived, purging_since, created_at, updated_at)
VALUES (:prompt_id, :description, :annotations, :current_vid, :next_vid,
        :archived, :purging_since, :created_at, :updated_at);

-- name: update-prompt
-- Overwrite a prompt row's mutable fields.
UPDATE graphmem_prompt
SET description = :description, annotations = :annotations, current_vid = :current_vid,
    next_vid = :next_vid, archived = :archived, purging_since = :purging_since,
    updated_at = :updated_at
WHERE prompt_id = :prompt_id;

-- name: delete-prompt
-- Delete a prompt row (its versions first: delete-prompt-versions).
DELETE FROM graphmem_prompt WHERE prompt_id = :prompt_id;

-- name: list-prompts
-- Prompts holding a version, by id, one page.
SELECT p.prompt_id, p.description, p.annotations, p.current_vid, p.next_vid, p.archived,
       p.purging_since, p.created_at, p.updated_at,
       (SELECT COUNT(*) FROM graphmem_prompt_version v WHERE v.prompt_id = p.prompt_id)
FROM graphmem_prompt p
WHERE EXISTS (SELECT 1 FROM graphmem_prompt_version v WHERE v.prompt_id = p.prompt_id)
ORDER BY p.prompt_id
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: count-prompts
-- How many prompts list-prompts pages through.
SELECT COUNT(*) FROM graphmem_prompt p
WHERE EXISTS (SELECT 1 FROM graphmem_prompt_version v WHERE v.prompt_id = p.prompt_id);

-- name: insert-prompt-version
-- A new version.
INSERT INTO graphmem_prompt_version (prompt_id, vid, prompt_text, archived, created_at)
VALUES (:prompt_id, :vid, :prompt_text, 0, :created_at);

-- name: get-prompt-version
-- One version.
SELECT prompt_id, vid, prompt_text, archived, created_at
FROM graphmem_prompt_version
WHERE prompt_id = :prompt_id AND vid = :vid;

-- name: archive-prompt-version
-- Mark one version archived.
UPDATE graphmem_prompt_version SET archived = 1 WHERE prompt_id = :prompt_id AND vid = :vid;

-- name: delete-prompt-version
-- Delete one version.
DELETE FROM graphmem_prompt_version WHERE prompt_id = :prompt_id AND vid = :vid;

-- name: delete-prompt-versions
-- Delete every version of a prompt.
DELETE FROM graphmem_prompt_version WHERE prompt_id = :prompt_id;

-- name: list-prompt-versions
-- A prompt's versions by vid, one page.
SELECT prompt_id, vid, prompt_text, archived, created_at
FROM graphmem_prompt_version
WHERE prompt_id = :prompt_id
ORDER BY vid
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;
