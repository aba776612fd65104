"""The job part of :class:`~graphmem.testing.memory_store.MemoryStore`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from graphmem.errors import ConflictError
from graphmem.stores.job_base import JobStore, StoredJob, abandoned_error

__all__ = ["MemoryJobs"]


class MemoryJobs(JobStore):
    """Job rows in one dict (the store's transaction covers it)."""

    def _init_jobs(self) -> None:
        self._jobs: dict[str, StoredJob] = {}

    def _jobs_state(self) -> dict[str, StoredJob]:
        return dict(self._jobs)

    def _restore_jobs(self, state: dict[str, StoredJob]) -> None:
        self._jobs = state

    def insert_job(self, job: StoredJob) -> None:
        if job.job_id in self._jobs:
            raise ConflictError(f"the change violates a store constraint: {job.job_id}")
        self._jobs[job.job_id] = replace(
            job,
            failures=0,
            owner=None,
            lease_until=None,
            last_error=None,
            updated_at=job.created_at,
        )

    def get_job(self, job_id: str) -> StoredJob | None:
        return self._jobs.get(job_id)

    def list_jobs(
        self, thread_id: str | None, status: str | None, limit: int, offset: int
    ) -> list[StoredJob]:
        found = sorted(
            (
                j
                for j in self._jobs.values()
                if thread_id in (None, j.thread_id) and status in (None, j.status)
            ),
            key=lambda j: (j.created_at, j.job_id),
        )
        return found[offset : offset + limit]

    def claim_job(
        self, owner: str, now: datetime, lease_until: datetime, thread_id: str | None
    ) -> StoredJob | None:
        due = [
            j
            for j in self._jobs.values()
            if j.status == "queued"
            and j.not_before <= now
            and thread_id in (None, j.thread_id)
            and self._threads_turn(j, now)
        ]
        if not due:
            return None
        job = min(due, key=lambda j: (j.not_before, j.created_at, j.job_id))
        claimed = replace(
            job,
            status="running",
            owner=owner,
            lease_until=lease_until,
            attempts=job.attempts + 1,
            updated_at=now,
        )
        self._jobs[job.job_id] = claimed
        return claimed

    def _threads_turn(self, job: StoredJob, now: datetime) -> bool:
        """Whether ``job`` is its thread's next: no job of the thread runs (with a
        lease not run out) and none was queued before it."""
        for other in self._jobs.values():
            if other.thread_id != job.thread_id or other.job_id == job.job_id:
                continue
            if other.status == "running" and other.lease_until and other.lease_until >= now:
                return False
            if other.status == "queued" and (other.created_at, other.job_id) < (
                job.created_at,
                job.job_id,
            ):
                return False
        return True

    def _held(self, job_id: str, owner: str) -> StoredJob | None:
        job = self._jobs.get(job_id)
        return job if job is not None and job.status == "running" and job.owner == owner else None

    def finish_job(self, job_id: str, owner: str, result: dict[str, Any], now: datetime) -> bool:
        job = self._held(job_id, owner)
        if job is None:
            return False
        self._jobs[job_id] = replace(
            job, status="done", result=result, owner=None, lease_until=None, updated_at=now
        )
        return True

    def renew_job_lease(
        self, job_id: str, owner: str, now: datetime, lease_until: datetime
    ) -> bool:
        job = self._held(job_id, owner)
        if job is None:
            return False
        self._jobs[job_id] = replace(job, lease_until=lease_until, updated_at=now)
        return True

    def fail_job(
        self,
        job_id: str,
        owner: str,
        *,
        status: str,
        error: str,
        not_before: datetime,
        now: datetime,
    ) -> bool:
        job = self._held(job_id, owner)
        if job is None:
            return False
        self._jobs[job_id] = replace(
            job,
            status=status,
            failures=job.failures + 1,
            last_error=error,
            not_before=not_before,
            owner=None,
            lease_until=None,
            updated_at=now,
        )
        return True

    def running_job_owners(self) -> list[str]:
        return sorted({j.owner for j in self._jobs.values() if j.status == "running" and j.owner})

    def release_jobs(self, owner: str | None, now: datetime, abandon_limit: int) -> int:
        released = [
            j
            for j in self._jobs.values()
            if j.status == "running"
            and (
                j.owner == owner
                if owner is not None
                else j.lease_until is not None and j.lease_until < now
            )
        ]
        return self._requeue(released, now, abandon_limit)

    def delete_thread_jobs(self, thread_id: str) -> int:
        gone = [
            j.job_id
            for j in self._jobs.values()
            if j.thread_id == thread_id and j.status != "running"
        ]
        for job_id in gone:
            del self._jobs[job_id]
        return len(gone)

    def hand_back_jobs(self, owner: str, now: datetime) -> int:
        held = [j for j in self._jobs.values() if j.status == "running" and j.owner == owner]
        # the claim's attempt is taken back, as hand-back-jobs does
        return self._requeue([replace(j, attempts=max(0, j.attempts - 1)) for j in held], now, None)

    def _requeue(self, jobs: list[StoredJob], now: datetime, abandon_limit: int | None) -> int:
        """Queue ``jobs`` again; with ``abandon_limit``, fail those claimed that many
        times more than they failed (as release-jobs does)."""
        for job in jobs:
            gave_up = abandon_limit is not None and job.attempts - job.failures >= abandon_limit
            self._jobs[job.job_id] = replace(
                job,
                status="failed" if gave_up else "queued",
                last_error=abandoned_error(abandon_limit or 0) if gave_up else job.last_error,
                owner=None,
                lease_until=None,
                updated_at=now,
            )
        return len(jobs)

    def retry_job(self, job_id: str, now: datetime) -> bool:
        job = self._jobs.get(job_id)
        if job is None or job.status != "failed":
            return False
        self._jobs[job_id] = replace(
            job, status="queued", attempts=0, failures=0, not_before=now, updated_at=now
        )
        return True
