"""Memory extraction on :class:`graphmem.GraphMemory`: the client config, the job
queue and its worker pool, and the job methods (list, get, retry, run).

The thread side (``add_messages`` queuing jobs, ``extract_memories``,
``schedule_extraction``, ``wait_for_memory_extraction``) is on
:class:`graphmem.threads.Thread`, which calls the private helpers below.
"""

from __future__ import annotations

import time
import uuid
import warnings
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from graphmem.ai.protocols import LlmProtocol
from graphmem.core.validation import (
    check_id,
    check_non_negative,
    check_positive,
    format_time,
    utc_now,
)
from graphmem.errors import (
    CLOSED_MESSAGE,
    ClosedError,
    ConflictError,
    ExtractionError,
    ExtractionTimeoutError,
    InvalidArgumentError,
    NotFoundError,
)
from graphmem.extraction.config import (
    MemoryExtractionConfig,
    check_extraction_config,
    effective_config,
)
from graphmem.extraction.jobs import JobRunner
from graphmem.extraction.models import ExtractionResult, JobInfo
from graphmem.extraction.run import ExtractionRequest
from graphmem.handle import StoreHandle
from graphmem.stores.job_base import StoredJob
from graphmem.thread_models import ThreadInfo

__all__ = ["ExtractionOperations", "job_info"]

_STATUSES = ("queued", "running", "done", "failed")
_WAIT_POLL = 0.02
"""Seconds between two looks at a thread's jobs while waiting for them."""


def job_info(job: StoredJob) -> JobInfo:
    return JobInfo(
        job_id=job.job_id,
        kind=job.kind,
        thread_id=job.thread_id,
        status=job.status,
        attempts=job.attempts,
        failures=job.failures,
        last_error=job.last_error,
        payload=job.payload,
        result=None if not job.result else ExtractionResult.model_validate(job.result),
        not_before=job.not_before,
        created_at=job.created_at,
        updated_at=job.updated_at,
    )


def _check_count(argument: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(
            argument, f"must be an integer from {low} to {high}; got {value!r}"
        )
    return value


class ExtractionOperations(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`."""

    llm: LlmProtocol | None

    def _init_extraction(self, config: object, workers: object, max_attempts: object) -> None:
        given = check_extraction_config("memory_extraction_config", config)
        self._extraction_config = (
            config
            if isinstance(config, MemoryExtractionConfig)
            else effective_config(MemoryExtractionConfig(), None, {}, given)
        )
        self._thread_llms: dict[str, LlmProtocol] = {}
        self._jobs = JobRunner(
            self,  # type: ignore[arg-type]  # the mixin's only host is GraphMemory
            _check_count("extraction_workers", workers, 0, 32),
            _check_count("extraction_max_attempts", max_attempts, 1, 100),
        )

    def _resume_jobs(self) -> None:
        """At open: with workers and an LLM, start the workers when jobs are left
        queued or running (a running one whose process died is claimed again)."""
        if not self._jobs.workers or self.llm is None:
            return
        store = self._store
        with store.transaction(write=False):
            left = store.list_jobs(None, "queued", 1, 0) or store.list_jobs(None, "running", 1, 0)
        if left:
            self._jobs.notify()

    @property
    def memory_extraction_config(self) -> MemoryExtractionConfig:
        """The client-level extraction config (threads and calls override fields of it)."""
        return self._extraction_config

    # helpers for threads ------------------------------------------------------------

    def _thread_config(
        self, info: ThreadInfo, call: Mapping[str, Any] | None = None
    ) -> MemoryExtractionConfig:
        settings = info.settings
        return effective_config(
            self._extraction_config, settings.get("memory_extraction_config"), settings, call
        )

    def _extraction_llm(self, thread_id: str) -> LlmProtocol:
        llm = self._thread_llms.get(thread_id) or self.llm
        if llm is None:
            raise ExtractionError(
                f"thread {thread_id!r}: memory extraction needs an LLM (GraphMemory(llm=...) "
                "or the thread handle's llm)",
                job_ids=[],
            )
        return llm

    def _queue(self, request: ExtractionRequest, now: datetime | None = None) -> bool:
        """Insert the job, created ``now`` (None: now), unless it exists (inside the
        caller's transaction)."""
        store = self._store
        if store.get_job(request.job_id) is not None:
            return False
        store.insert_job(request.job_row("queued", now=now))
        return True

    def _queue_for_messages(self, info: ThreadInfo, before: int, after: int) -> int:
        """The jobs due after the message count went from ``before`` to ``after``:
        one at each multiple of the frequency (one per call with ``-1``). Runs
        inside the transaction that stores the messages; job ids derive from the
        thread and the count, so queuing twice is harmless."""
        if self.llm is None and info.thread_id not in self._thread_llms:
            return 0
        try:
            config = self._thread_config(info)
        except InvalidArgumentError as error:  # a config stored by an older version
            warnings.warn(
                f"thread {info.thread_id!r}: no extraction queued ({error})",
                RuntimeWarning,
                stacklevel=4,
            )
            return 0
        if not config.extract_memories:
            return 0
        every = config.memory_extraction_frequency
        marks = (
            [after] if every == -1 else [n for n in range(before + 1, after + 1) if n % every == 0]
        )
        born = format_time(info.created_at)
        queued = 0
        start = utc_now()
        for index, upto in enumerate(marks):
            name = f"graphmem-extract\0{info.thread_id}\0{born}\0{upto}"
            request = ExtractionRequest(
                job_id=str(uuid.uuid5(uuid.NAMESPACE_URL, name)),
                thread_id=info.thread_id,
                config=config.model_dump(mode="json"),
                upto=upto,
                thread_born=born,
            )
            # a thread's jobs run in the order of their creation times: one apart each
            queued += self._queue(request, start + timedelta(microseconds=index))
        return queued

    def _wait_start(self, timeout: float | None) -> float | None:
        """Before waiting for a thread's jobs (``Thread.wait_for_memory_extraction``
        and its async twin, which then call :meth:`_wait_step` until it returns
        None): queue again the jobs of gone owners; the deadline."""
        self._jobs.recover(force=True)
        return None if timeout is None else time.monotonic() + timeout

    def _wait_step(
        self, thread_id: str, deadline: float | None, timeout: float | None
    ) -> float | None:
        """One look at the thread's jobs while waiting for them: None when none is
        queued or running, else the seconds to pause before the next look (0 after
        running one job here, with no workers).

        Raises:
            ClosedError: the handle is closing (its jobs will not run any more).
            ExtractionTimeoutError: jobs still pending after the deadline.
            ExtractionError: none pending, but some of the thread's jobs failed.
        """
        store, runner = self._store, self._jobs
        if runner.stopping:
            raise ClosedError(CLOSED_MESSAGE)
        with store.transaction(write=False):
            pending = store.list_jobs(thread_id, "queued", 1, 0) or store.list_jobs(
                thread_id, "running", 1, 0
            )
        if not pending:
            self._raise_failed(thread_id)
            return None
        if deadline is not None and time.monotonic() > deadline:
            raise ExtractionTimeoutError(
                f"thread {thread_id!r}: extraction jobs still pending after {timeout} s"
            )
        if runner.workers == 0 and runner.run_one(thread_id):
            return 0.0  # no workers: the waiter runs them, one at a time
        runner.notify()
        runner.recover()
        return _WAIT_POLL

    def _raise_failed(self, thread_id: str) -> None:
        failed = self._store.list_jobs(thread_id, "failed", 100, 0)
        if failed:
            shown = "; ".join(f"{j.job_id}: {j.last_error}" for j in failed[:3])
            raise ExtractionError(
                f"thread {thread_id!r}: {len(failed)} extraction job(s) failed ({shown}); "
                "see list_jobs(status='failed'), retry_job(job_id) queues one again",
                job_ids=[j.job_id for j in failed],
            )

    # public job methods -------------------------------------------------------------

    def list_jobs(
        self,
        *,
        thread_id: str | None = None,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[JobInfo]:
        """Extraction jobs (of a thread, in a status), oldest first; ``offset`` pages.

        Raises:
            InvalidArgumentError: an unknown status or a bad page.
        """
        self._check_open()
        tid = None if thread_id is None else check_id("thread_id", thread_id)
        if status is not None and status not in _STATUSES:
            raise InvalidArgumentError("status", f"must be one of {', '.join(_STATUSES)}")
        page = check_positive("limit", limit), check_non_negative("offset", offset)
        with self._store.transaction(write=False):
            return [job_info(j) for j in self._store.list_jobs(tid, status, *page)]

    def get_job(self, job_id: str) -> JobInfo:
        """One job with its status, attempts, last error and result.

        Raises:
            NotFoundError: no such job.
        """
        self._check_open()
        found = self._store.get_job(check_id("job_id", job_id))
        if found is None:
            raise NotFoundError(f"job_id: no job {job_id!r}")
        return job_info(found)

    def retry_job(self, job_id: str) -> JobInfo:
        """Queue a failed job again (its failure count starts over).

        Raises:
            NotFoundError: no such job.
            ConflictError: the job is not ``failed``.
        """
        self._check_open()
        check_id("job_id", job_id)
        with self._store.transaction():
            current = self.get_job(job_id)
            self._store.lock_thread(current.thread_id)  # claims of its thread wait (Oracle)
            if not self._store.retry_job(job_id, utc_now()):
                raise ConflictError(f"job_id: job {job_id!r} is {current.status}, not failed")
        self._jobs.notify()
        return self.get_job(job_id)

    def run_jobs(self, max_jobs: int | None = None) -> int:
        """Run due queued jobs in the calling thread, one after another, and return
        how many ran (done or failed an attempt). With ``extraction_workers=0``
        this (or ``wait_for_memory_extraction``) is what runs jobs; a service or a
        scheduled task can call it too. Jobs left running by a process that died
        are queued again first.
        """
        self._check_open()
        limit = None if max_jobs is None else check_positive("max_jobs", max_jobs)
        self._jobs.recover(force=True)
        ran = 0
        while (limit is None or ran < limit) and self._jobs.run_one():
            ran += 1
        return ran
