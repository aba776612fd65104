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
                                   created_at, updated_at, extraction, owner, lease_until)
VALUES (:block_id, :thread_id, :status, :content, :prompt_id, :prompt_vid,
        :resolved_vid, :context_required, :summary, :record_ids, :error,
        :created_at, :updated_at, :extraction, :owner, :lease_until);

-- name: lock-block
-- Oracle's twin locks the block's row until the transaction ends; here
-- BEGIN IMMEDIATE serializes writers already, and this only reads the key.
SELECT block_id FROM graphmem_memory_block WHERE block_id = :block_id;

-- name: get-block
-- One memory block.
SELECT block_id, thread_id, status, content, prompt_id, prompt_vid, resolved_vid,
       context_required, summary, record_ids, error, created_at, updated_at, extraction,
       owner, lease_until
FROM graphmem_memory_block
WHERE block_id = :block_id;

-- name: update-block
-- Overwrite a block's mutable fields.
UPDATE graphmem_memory_block
SET status = :status, content = :content, prompt_id = :prompt_id, prompt_vid = :prompt_vid,
    resolved_vid = :resolved_vid, context_required = :context_required, summary = :summary,
    record_ids = :record_ids, error = :error, updated_at = :updated_at,
    extraction = :extraction, owner = :owner, lease_until = :lease_until
WHERE block_id = :block_id;

-- name: list-blocks
-- A thread's blocks, oldest first, one page.
SELECT block_id, thread_id, status, content, prompt_id, prompt_vid, resolved_vid,
       context_required, summary, record_ids, error, created_at, updated_at, extraction,
       owner, lease_until
FROM graphmem_memory_block
WHERE thread_id = :thread_id
ORDER BY created_at, block_id
LIMIT :limit OFFSET :offset;

-- name: count-blocks
-- How many blocks a thread has.
SELECT COUNT(*) FROM graphmem_memory_block WHERE thread_id = :thread_id;

-- name: claim-block
-- Take a pending block for processing: it names its holder and a lease. Only one
-- caller's claim changes the row (the others find it no longer pending), and only
-- while no block of the same session accepted before it (created_at, then
-- block_id) is pending or being processed: a session's blocks write their
-- messages in the order they were accepted. The earlier ones are looked for among
-- the unfinished blocks, through graphmem_memory_block_status_ix (the `+` keeps
-- SQLite off the session's index, which holds its finished blocks too).
UPDATE graphmem_memory_block
SET status = 'processing', owner = :owner, lease_until = :lease_until, updated_at = :updated_at
WHERE block_id = :block_id AND status = 'pending'
  AND NOT EXISTS (
      SELECT 1 FROM graphmem_memory_block o
      WHERE o.status IN ('pending', 'processing')
        AND +o.thread_id = graphmem_memory_block.thread_id
        AND (o.created_at < graphmem_memory_block.created_at
             OR (o.created_at = graphmem_memory_block.created_at
                 AND o.block_id < graphmem_memory_block.block_id)));

-- name: renew-block-lease
-- Extend the lease of a block that :owner is still processing (updated_at, the
-- claim's mark, stays).
UPDATE graphmem_memory_block
SET lease_until = :lease_until
WHERE block_id = :block_id AND status = 'processing' AND owner = :owner;

-- name: processing-block-owners
-- The holders of the blocks being processed (to find those whose process is gone).
SELECT DISTINCT owner FROM graphmem_memory_block
WHERE status = 'processing' AND owner IS NOT NULL;

-- name: release-blocks
-- Make pending again the blocks that :owner is processing (an owner that is gone,
-- or one handing its work back), or (:owner NULL) those whose lease ran out or
-- that name none (written before leases). The new updated_at fences the earlier
-- holder's writes out.
UPDATE graphmem_memory_block
SET status = 'pending', owner = NULL, lease_until = NULL, updated_at = :now
WHERE status = 'processing'
  AND (owner = :owner OR (:owner IS NULL AND (lease_until IS NULL OR lease_until < :now)));

-- name: pending-block-ids
-- The ids of the pending blocks, oldest first (for a worker to queue).
SELECT block_id FROM graphmem_memory_block
WHERE status = 'pending'
ORDER BY created_at, block_id
LIMIT :limit;

-- name: unfinished-blocks
-- The id and status of a session's blocks that are pending or being processed and
-- were accepted before (:created_at, :block_id) (NULL: any), oldest first: the
-- blocks whose messages come first. Read as claim-block's check reads them.
SELECT block_id, status FROM graphmem_memory_block
WHERE status IN ('pending', 'processing') AND +thread_id = :thread_id
  AND (:created_at IS NULL OR created_at < :created_at
       OR (created_at = :created_at AND block_id < :block_id))
ORDER BY created_at, block_id
LIMIT :limit;
