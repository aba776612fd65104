-- graphmem embedded store: the memory service's rows (graphmem.service): API keys
-- and memory blocks. Rules live in Python; these statements read and write rows.

-- name: insert-api-key
-- A new API key (its secret is kept only as a hash).
INSERT INTO graphmem_api_key (key_id, key_hash, key_role, label, created_at, revoked_at)
VALUES (:key_id, :key_hash, :key_role, :label, :created_at, NULL);

-- name: get-api-key
-- One API key.
SELECT key_id, key_hash, key_role, label, created_at, revoked_at
FROM graphmem_api_key
WHERE key_id = :key_id;

-- name: list-api-keys
-- Every API key, oldest first.
SELECT key_id, key_hash, key_role, label, created_at, revoked_at
FROM graphmem_api_key
ORDER BY created_at, key_id;

-- name: revoke-api-key
-- Mark a key revoked (once).
UPDATE graphmem_api_key SET revoked_at = :revoked_at
WHERE key_id = :key_id AND revoked_at IS NULL;

-- name: insert-block
-- A new memory block.
INSERT INTO graphmem_memory_block (block_id, thread_id, status, content, prompt_id, prompt_vid,
                                   resolved_vid, context_required, summary, record_ids, error,
                                   created_at, updated_at, extraction)
VALUES (:block_id, :thread_id, :status, :content, :prompt_id, :prompt_vid,
        :resolved_vid, :context_required, :summary, :record_ids, :error,
        :created_at, :updated_at, :extraction);

-- name: get-block
-- One memory block.
SELECT block_id, thread_id, status, content, prompt_id, prompt_vid, resolved_vid,
       context_required, summary, record_ids, error, created_at, updated_at, extraction
FROM graphmem_memory_block
WHERE block_id = :block_id;

-- name: update-block
-- Overwrite a block's mutable fields.
UPDATE graphmem_memory_block
SET status = :status, content = :content, prompt_id = :prompt_id, prompt_vid = :prompt_vid,
    resolved_vid = :resolved_vid, context_required = :context_required, summary = :summary,
    record_ids = :record_ids, error = :error, updated_at = :updated_at,
    extraction = :extraction
WHERE block_id = :block_id;

-- name: list-blocks
-- A thread's blocks, oldest first, one page.
SELECT block_id, thread_id, status, content, prompt_id, prompt_vid, resolved_vid,
       context_required, summary, record_ids, error, created_at, updated_at, extraction
FROM graphmem_memory_block
WHERE thread_id = :thread_id
ORDER BY created_at, block_id
LIMIT :limit OFFSET :offset;

-- name: count-blocks
-- How many blocks a thread has.
SELECT COUNT(*) FROM graphmem_memory_block WHERE thread_id = :thread_id;

-- name: unfinished-blocks
-- Blocks not yet ready or failed (to resume after a restart), oldest first.
SELECT block_id, thread_id, status, content, prompt_id, prompt_vid, resolved_vid,
       context_required, summary, record_ids, error, created_at, updated_at, extraction
FROM graphmem_memory_block
WHERE status IN ('pending', 'processing')
ORDER BY created_at, block_id
LIMIT :limit;
