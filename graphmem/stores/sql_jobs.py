"""The job methods, once for every SQL dialect (statements in ``sql/<dialect>/jobs.sql``)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.core.texts import optional_text
from graphmem.core.validation import format_time, parse_time
from graphmem.stores.job_base import JobStore, StoredJob, abandoned_error

__all__ = ["SqlJobs"]


def _json(value: Any) -> Any:
    if value is None or isinstance(value, dict):
        return value
    text = value.read() if hasattr(value, "read") else value
    return json.loads(text)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return str(value.read() if hasattr(value, "read") else value)


def _time(value: Any) -> datetime | None:
    return None if value is None else parse_time(str(value))


def job_from_row(row: Sequence[Any]) -> StoredJob:
    not_before, created, updated = _time(row[8]), _time(row[12]), _time(row[13])
    assert not_before is not None and created is not None and updated is not None
    return StoredJob(
        job_id=row[0],
        kind=row[1],
        thread_id=row[2],
        status=row[3],
        attempts=int(row[4]),
        failures=int(row[5]),
        owner=row[6],
        lease_until=_time(row[7]),
        not_before=not_before,
        last_error=_text(row[9]),
        payload=_json(row[10]) or {},
        result=_json(row[11]),
        created_at=created,
        updated_at=updated,
    )


def _dump(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class SqlJobs(JobStore):
    """Job methods over the named statements of ``jobs.sql``."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement (see :class:`~graphmem.stores.sql_store.SqlStore`)."""

    @abstractmethod
    def lock_thread(self, thread_id: str) -> None:
        """See :meth:`~graphmem.stores.thread_base.ThreadStore.lock_thread`."""

    def insert_job(self, job: StoredJob) -> None:
        self._run(
            "insert-job",
            job_id=job.job_id,
            kind=job.kind,
            thread_id=job.thread_id,
            status=job.status,
            attempts=job.attempts,
            not_before=format_time(job.not_before),
            payload=_dump(job.payload),
            result=_dump(job.result),
            created_at=format_time(job.created_at),
        )

    def get_job(self, job_id: str) -> StoredJob | None:
        row = self._run("get-job", job_id=job_id).fetchone()
        return None if row is None else job_from_row(row)

    def list_jobs(
        self, thread_id: str | None, status: str | None, limit: int, offset: int
    ) -> list[StoredJob]:
        rows = self._run(
            "list-jobs", thread_id=thread_id, status=status, limit=limit, offset=offset
        ).fetchall()
        return [job_from_row(r) for r in rows]

    def claim_job(
        self, owner: str, now: datetime, lease_until: datetime, thread_id: str | None
    ) -> StoredJob | None:
        row = self._run("next-job", now=format_time(now), thread_id=thread_id).fetchone()
        if row is None:
            return None
        # claim-job tests again what next-job chose by; the lock makes the claims and
        # retries of the thread's jobs take turns where reads do not (Oracle)
        self.lock_thread(row[1])
        claimed = self._run(
            "claim-job",
            job_id=row[0],
            owner=owner,
            lease_until=format_time(lease_until),
            now=format_time(now),
        )
        return self.get_job(row[0]) if claimed.rowcount == 1 else None

    def finish_job(self, job_id: str, owner: str, result: dict[str, Any], now: datetime) -> bool:
        done = self._run(
            "finish-job", job_id=job_id, owner=owner, result=_dump(result), now=format_time(now)
        )
        return bool(done.rowcount == 1)

    def renew_job_lease(
        self, job_id: str, owner: str, now: datetime, lease_until: datetime
    ) -> bool:
        renewed = self._run(
            "renew-job-lease",
            job_id=job_id,
            owner=owner,
            lease_until=format_time(lease_until),
            now=format_time(now),
        )
        return bool(renewed.rowcount == 1)

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
        failed = self._run(
            "fail-job",
            job_id=job_id,
            owner=owner,
            status=status,
            last_error=optional_text(error),
            not_before=format_time(not_before),
            now=format_time(now),
        )
        return bool(failed.rowcount == 1)

    def running_job_owners(self) -> list[str]:
        return [str(r[0]) for r in self._run("running-job-owners").fetchall() if r[0] is not None]

    def release_jobs(self, owner: str | None, now: datetime, abandon_limit: int) -> int:
        released = self._run(
            "release-jobs",
            owner=owner,
            now=format_time(now),
            abandon_limit=abandon_limit,
            abandoned_error=abandoned_error(abandon_limit),
        )
        return int(released.rowcount)

    def hand_back_jobs(self, owner: str, now: datetime) -> int:
        return int(self._run("hand-back-jobs", owner=owner, now=format_time(now)).rowcount)

    def retry_job(self, job_id: str, now: datetime) -> bool:
        return bool(self._run("retry-job", job_id=job_id, now=format_time(now)).rowcount == 1)

    def delete_thread_jobs(self, thread_id: str) -> int:
        return int(self._run("delete-thread-jobs", thread_id=thread_id).rowcount)
