-- graphmem Oracle store: durable extraction jobs (graphmem.extraction.jobs).
--
-- A job is claimed by a conditional UPDATE (status still 'queued'), and finished
-- or failed only by the owner holding it (status 'running' and the same owner),
-- so a job that another process re-queued meanwhile is never written twice.

-- name: insert-job
-- A new job.
INSERT INTO graphmem_job (job_id, kind, thread_id, status, attempts, failures, owner,
                          lease_until, not_before, last_error, payload, result,
                          created_at, updated_at)
VALUES (:job_id, :kind, :thread_id, :status, :attempts, 0, NULL, NULL, :not_before, NULL,
        :payload, :result, :created_at, :created_at);

-- name: get-job
-- One job.
SELECT job_id, kind, thread_id, status, attempts, failures, owner, lease_until,
       not_before, last_error, payload, result, created_at, updated_at
FROM graphmem_job
WHERE job_id = :job_id;

-- name: list-jobs
-- Jobs of one thread and/or one status (NULL: any), oldest first (ties by id),
-- one page. One branch per way in, as in sql/sqlite/jobs.sql: a thread's jobs
-- (GRAPHMEM_JOB_THREAD_IX), else one status's (GRAPHMEM_JOB_QUEUE_IX), else
-- every job (GRAPHMEM_JOB_CREATED_IX); the branches whose bind tests are false
-- read nothing. Ordered by position (13, 1: created_at, job_id).
SELECT job_id, kind, thread_id, status, attempts, failures, owner, lease_until,
       not_before, last_error, payload, result, created_at, updated_at
FROM graphmem_job
WHERE thread_id = :thread_id
  AND (:status IS NULL OR status = :status)
UNION ALL
SELECT job_id, kind, thread_id, status, attempts, failures, owner, lease_until,
       not_before, last_error, payload, result, created_at, updated_at
FROM graphmem_job
WHERE :thread_id IS NULL AND status = :status
UNION ALL
SELECT job_id, kind, thread_id, status, attempts, failures, owner, lease_until,
       not_before, last_error, payload, result, created_at, updated_at
FROM graphmem_job
WHERE :thread_id IS NULL AND :status IS NULL
ORDER BY 13, 1
OFFSET :offset ROWS FETCH FIRST :limit ROWS ONLY;

-- name: next-job
-- The queued job to claim next (of one thread, or of any when NULL): the first
-- due one whose thread has no job running now (claimed, its lease not run out)
-- and no older queued job, so that the jobs of one thread run one at a time, in
-- the order they were queued (created_at, then job_id; a job queued again after
-- a failed attempt keeps its place, and the thread's later jobs wait for it).
-- Both tests read the thread's jobs of one status through GRAPHMEM_JOB_THREAD_IX.
SELECT j.job_id, j.thread_id FROM graphmem_job j
WHERE j.status = 'queued' AND j.not_before <= :now
  AND (:thread_id IS NULL OR j.thread_id = :thread_id)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_job r
        WHERE r.thread_id = j.thread_id AND r.status = 'running'
          AND r.lease_until >= :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_job q
        WHERE q.thread_id = j.thread_id AND q.status = 'queued'
          AND (q.created_at < j.created_at
               OR (q.created_at = j.created_at AND q.job_id < j.job_id)))
ORDER BY j.not_before, j.created_at, j.job_id
FETCH FIRST 1 ROWS ONLY;

-- name: claim-job
-- Take the job picked by next-job for one owner, if it still may run: still queued
-- (another owner may have taken it first), due, no job of its thread running with
-- a lease, and no older job of its thread queued (a retry or a hand-back may have
-- come in since the pick). No row changes otherwise.
-- The caller runs lock-thread on the job's thread first: on Oracle, whose reads
-- are READ COMMITTED, that makes the claims, retries and claims of one thread's
-- jobs wait for each other, so these tests see the other's outcome.
UPDATE graphmem_job j
SET status = 'running', owner = :owner, lease_until = :lease_until,
    attempts = attempts + 1, updated_at = :now
WHERE job_id = :job_id AND status = 'queued' AND not_before <= :now
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_job r
        WHERE r.thread_id = j.thread_id AND r.status = 'running'
          AND r.lease_until >= :now)
  AND NOT EXISTS (
        SELECT 1 FROM graphmem_job q
        WHERE q.thread_id = j.thread_id AND q.status = 'queued'
          AND (q.created_at < j.created_at
               OR (q.created_at = j.created_at AND q.job_id < j.job_id)));

-- name: finish-job
-- The owner's running job is done, with its result.
UPDATE graphmem_job
SET status = 'done', result = :result, owner = NULL, lease_until = NULL, updated_at = :now
WHERE job_id = :job_id AND status = 'running' AND owner = :owner;

-- name: fail-job
-- The owner's running job failed an attempt: queued again (after not_before) or failed.
UPDATE graphmem_job
SET status = :status, failures = failures + 1, last_error = :last_error,
    not_before = :not_before, owner = NULL, lease_until = NULL, updated_at = :now
WHERE job_id = :job_id AND status = 'running' AND owner = :owner;

-- name: renew-job-lease
-- The owner still runs this job: its lease runs until :lease_until (no row
-- changes when the job was released or taken by another owner meanwhile).
UPDATE graphmem_job
SET lease_until = :lease_until, updated_at = :now
WHERE job_id = :job_id AND status = 'running' AND owner = :owner;

-- name: running-job-owners
-- The owners holding running jobs (to find the ones whose process died).
SELECT DISTINCT owner FROM graphmem_job WHERE status = 'running';

-- name: hand-back-jobs
-- An owner that is closing gives its running jobs back to the queue; the attempt
-- is not held against the job: the claim's count is taken back, so clean closes
-- never add up to release-jobs' :abandon_limit.
UPDATE graphmem_job
SET status = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
    owner = NULL, lease_until = NULL, updated_at = :now
WHERE status = 'running' AND owner = :owner;

-- name: release-jobs
-- Queue again the running jobs of :owner, an owner that is gone, or (:owner NULL)
-- those whose lease ran out. A job whose claims exceed its failed attempts by
-- :abandon_limit (its process stopped that many times while running it) is
-- failed instead, so a job that kills its process is not run forever.
UPDATE graphmem_job
SET status = CASE WHEN attempts - failures >= :abandon_limit THEN 'failed' ELSE 'queued' END,
    last_error = CASE WHEN attempts - failures >= :abandon_limit
                      THEN TO_CLOB(:abandoned_error) ELSE last_error END,
    owner = NULL, lease_until = NULL, updated_at = :now
WHERE status = 'running'
  AND (owner = :owner OR (:owner IS NULL AND lease_until < :now));

-- name: retry-job
-- A failed job, queued again with its attempts and failures forgotten.
UPDATE graphmem_job
SET status = 'queued', attempts = 0, failures = 0, not_before = :now, updated_at = :now
WHERE job_id = :job_id AND status = 'failed';

-- name: delete-thread-jobs
-- The jobs of a thread being deleted, except running ones (their owner finds the
-- thread gone and finishes them with nothing written).
DELETE FROM graphmem_job WHERE thread_id = :thread_id AND status <> 'running';
