"""The job methods every store implements (durable extraction jobs)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.core.texts import optional_text

__all__ = ["JobStore", "StoredJob", "abandoned_error"]


def abandoned_error(limit: int) -> str:
    """The last error of a job failed because its process stopped ``limit`` times."""
    return (
        f"abandoned: the process running this job stopped (or its lease ran out) {limit} "
        "times before it finished; retry_job queues it again"
    )


@dataclass(frozen=True)
class StoredJob:
    """A job row."""

    job_id: str
    kind: str
    thread_id: str
    status: str
    attempts: int
    failures: int
    owner: str | None
    lease_until: datetime | None
    not_before: datetime
    last_error: str | None
    payload: dict[str, Any]
    result: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime

    def __post_init__(self) -> None:
        # An empty error is none (graphmem.core.texts): Oracle stores '' as NULL.
        object.__setattr__(self, "last_error", optional_text(self.last_error))


class JobStore(ABC):
    """Jobs: queued -> running (one owner, until a lease) -> done | failed.

    Every method runs inside the caller's transaction.
    """

    @abstractmethod
    def insert_job(self, job: StoredJob) -> None:
        """Insert a new job (status, attempts, payload, result, not_before and created_at
        are used)."""

    @abstractmethod
    def get_job(self, job_id: str) -> StoredJob | None:
        """The job, or None."""

    @abstractmethod
    def list_jobs(
        self, thread_id: str | None, status: str | None, limit: int, offset: int
    ) -> list[StoredJob]:
        """Jobs of a thread and/or a status (None: any), oldest first."""

    @abstractmethod
    def claim_job(
        self, owner: str, now: datetime, lease_until: datetime, thread_id: str | None
    ) -> StoredJob | None:
        """Mark the next queued job due at ``now`` (of ``thread_id``, or of any
        thread) running for ``owner``; None if none. A job is not claimed while its
        thread has a running job whose lease has not run out at ``now``, or an older
        queued job (by ``created_at``, then id): a thread's jobs run one at a time,
        in order. Among the others: by ``not_before``, ``created_at``, id."""

    @abstractmethod
    def finish_job(self, job_id: str, owner: str, result: dict[str, Any], now: datetime) -> bool:
        """Mark the owner's running job done; False when the owner no longer holds it."""

    @abstractmethod
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
        """Record a failed attempt (status ``queued`` or ``failed``); False when not held."""

    @abstractmethod
    def renew_job_lease(
        self, job_id: str, owner: str, now: datetime, lease_until: datetime
    ) -> bool:
        """Extend the lease of the owner's running job; False when not held."""

    @abstractmethod
    def running_job_owners(self) -> list[str]:
        """The owners of running jobs."""

    @abstractmethod
    def release_jobs(self, owner: str | None, now: datetime, abandon_limit: int) -> int:
        """Queue again the running jobs of ``owner``, a process that is gone, or (None)
        those whose lease expired; a job claimed ``abandon_limit`` times more than it
        failed (its attempts keep stopping its process) is ``failed`` instead, with
        :func:`abandoned_error` as its last error."""

    @abstractmethod
    def delete_thread_jobs(self, thread_id: str) -> int:
        """Delete the jobs of ``thread_id`` that are not running; how many."""

    @abstractmethod
    def hand_back_jobs(self, owner: str, now: datetime) -> int:
        """Queue again the running jobs of ``owner``, which is closing, taking back
        the attempt their claim counted (a clean close is not an abandonment)."""

    @abstractmethod
    def retry_job(self, job_id: str, now: datetime) -> bool:
        """Queue a failed job again; False when it is not failed."""
