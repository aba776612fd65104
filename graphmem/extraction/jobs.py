"""Durable extraction jobs: a bounded pool of worker threads over the store's job table.

A worker claims the oldest due queued job whose thread runs no other job and
has no older one queued (a conditional update, so two workers or two processes
never hold the same job, and one thread's jobs run one at a time, in the order
they were queued: overlapping windows see each other's records), runs it
(:func:`~graphmem.extraction.run.plan_extraction`, then
:func:`~graphmem.extraction.run.write_extraction`, whose transaction also marks
the job done), and on an error records the failure: the job is queued again
after a backoff of ``BACKOFF_BASE * 2 ** (failures - 1)`` seconds (at most
``BACKOFF_CAP``) until ``max_attempts`` failures make it ``failed``.

A running job names its owner (``host:pid:token``) and a lease, which the
runner renews every third of ``LEASE_SECONDS`` for as long as it runs the job
(an extraction that takes longer than one lease keeps its job). A job whose
owner's process is gone (same host, no such pid), or whose lease expired, is
queued again by :meth:`JobRunner.recover`, which every runner calls when it
starts and then every ``RECOVER_EVERY`` seconds; once it has been left so
``ABANDON_LIMIT`` times (it keeps killing its process, say), it is ``failed``
instead, so one poisonous job cannot crash every worker forever. A runner that
closes hands its unfinished jobs back without holding it against them. A job's
writes are fenced: it is marked done only by the owner holding it, in the
transaction that writes the records, so an attempt that lost its job writes
nothing.
"""

from __future__ import annotations

import threading
import time
import weakref
from datetime import timedelta
from typing import TYPE_CHECKING

from graphmem.core.validation import utc_now
from graphmem.errors import CLOSED_MESSAGE, ClosedError, GraphMemError
from graphmem.extraction.run import ExtractionRequest, JobLost, plan_extraction, write_extraction
from graphmem.owners import LeaseKeeper, new_owner, owner_gone, retire_owner
from graphmem.stores.job_base import StoredJob

if TYPE_CHECKING:
    from graphmem.memory import GraphMemory
    from graphmem.stores.base import Store

__all__ = [
    "ABANDON_LIMIT",
    "BACKOFF_BASE",
    "BACKOFF_CAP",
    "LEASE_SECONDS",
    "JobRunner",
    "backoff",
]

BACKOFF_BASE = 1.0
BACKOFF_CAP = 60.0
LEASE_SECONDS = 900.0
"""How long a claimed job stays with its owner before another process may take it,
unless the owner renews the lease (every third of it, while it runs the job)."""
RECOVER_EVERY = 5.0
ABANDON_LIMIT = 10
"""A job whose claims exceed its failed attempts by this many (its process stopped
or its lease ran out while it ran) is ``failed`` when found abandoned again."""
_POLL = 0.5


def backoff(failures: int) -> float:
    """Seconds before a job that failed ``failures`` times runs again.

    >>> [backoff(n) for n in (1, 2, 3)]
    [1.0, 2.0, 4.0]
    """
    return float(min(BACKOFF_CAP, BACKOFF_BASE * 2 ** max(0, failures - 1)))


class JobRunner:
    """The worker threads of one :class:`~graphmem.GraphMemory`."""

    def __init__(self, memory: GraphMemory, workers: int, max_attempts: int) -> None:
        # weak: running workers must not keep an unclosed handle alive (its
        # finalizer stops them, then the store's closes the file)
        self._ref = weakref.ref(memory)
        self.workers = workers
        self.max_attempts = max_attempts
        self.owner = new_owner()
        self._threads: list[threading.Thread] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._recovered_at = 0.0
        self._claimed = False  # close() has jobs to give back only if one was claimed
        self._leases = LeaseKeeper(
            "graphmem-extraction-lease", self._renew_jobs, lambda: LEASE_SECONDS / 3
        )

    @property
    def _memory(self) -> GraphMemory:
        memory = self._ref()
        if memory is None:
            raise ClosedError(CLOSED_MESSAGE)
        return memory

    # running jobs ---------------------------------------------------------------

    def start(self) -> None:
        """Start the worker threads (once; none when ``workers`` is 0)."""
        with self._lock:
            if self._threads or self._stop.is_set():
                return
            for index in range(self.workers):
                thread = threading.Thread(
                    target=self._loop, name=f"graphmem-extraction-{index}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        self._wake.set()

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called (the handle is closing): no job starts."""
        return self._stop.is_set()

    def notify(self) -> None:
        """New jobs were queued."""
        if self.workers:
            self.start()
            self._wake.set()

    def recover(self, force: bool = False) -> int:
        """Queue again the running jobs of gone owners and of expired leases."""
        now_mono = time.monotonic()
        if not force and now_mono - self._recovered_at < RECOVER_EVERY:
            return 0
        self._recovered_at = now_mono
        store, now = self._memory._store, utc_now()
        released = 0
        with store.transaction():
            for owner in store.running_job_owners():
                if owner_gone(owner):
                    released += store.release_jobs(owner, now, ABANDON_LIMIT)
            released += store.release_jobs(None, now, ABANDON_LIMIT)
        return released

    def run_one(self, thread_id: str | None = None) -> bool:
        """Claim and run one due job (of ``thread_id`` when given); False if none, or
        once the handle is closing (:attr:`stopping`: queued jobs stay queued)."""
        if self.stopping:
            return False
        now = utc_now()
        store = self._memory._store
        with store.transaction():
            job = store.claim_job(
                self.owner, now, now + timedelta(seconds=LEASE_SECONDS), thread_id
            )
        if job is None:
            return False
        self._claimed = True
        self._leases.hold(job.job_id)  # renewed while it runs
        try:
            self._execute(job)
        finally:
            self._leases.let_go(job.job_id)
        return True

    # leases -----------------------------------------------------------------------

    def renew_leases(self) -> int:
        """Extend the lease of every job this runner is executing now; how many."""
        return self._leases.renew()

    def _renew_jobs(self, job_ids: list[str]) -> int:
        store, now = self._memory._store, utc_now()
        until = now + timedelta(seconds=LEASE_SECONDS)
        with store.transaction():
            return sum(store.renew_job_lease(j, self.owner, now, until) for j in job_ids)

    def _execute(self, job: StoredJob) -> None:
        memory = self._memory
        request = ExtractionRequest.from_payload(job.job_id, job.thread_id, job.payload)
        try:
            llm = memory._extraction_llm(job.thread_id)
            info = memory._store.get_thread(job.thread_id)
            if info is None or not request.for_thread(info):
                # the thread was deleted (and maybe made again since): nothing to extract
                with memory._store.transaction():
                    memory._store.finish_job(job.job_id, self.owner, {}, utc_now())
                return
            plan = plan_extraction(memory, request, llm, info)
            write_extraction(
                memory,
                plan,
                lambda result: memory._store.finish_job(
                    job.job_id, self.owner, result.model_dump(mode="json"), utc_now()
                ),
            )
        except JobLost:
            return
        except Exception as error:  # recorded on the job, never lost
            if self._stop.is_set() and not isinstance(error, GraphMemError):
                return
            self._failed(job, error)

    def _failed(self, job: StoredJob, error: Exception) -> None:
        failures = job.failures + 1
        status = "failed" if failures >= self.max_attempts else "queued"
        now = utc_now()
        text = f"{type(error).__name__}: {error}"[:4000]
        store = self._memory._store
        with store.transaction():
            store.fail_job(
                job.job_id,
                self.owner,
                status=status,
                error=text,
                not_before=now + timedelta(seconds=backoff(failures)),
                now=now,
            )

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.recover()
                ran = self.run_one()
            except Exception:  # the store closed under us, or a transient error
                if self._stop.is_set():
                    return
                ran = False
            if not ran:
                self._wake.wait(_POLL)
                self._wake.clear()

    # closing --------------------------------------------------------------------

    def stop(self, timeout: float, store: Store) -> None:
        """Let running jobs finish (up to ``timeout`` seconds in all), then give the
        unfinished ones back to the queue of ``store`` (the handle's, still open);
        no new job starts."""
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        here = threading.current_thread()
        for thread in self._threads:
            if thread is not here:  # a finalizer may run on a worker: not waited for
                thread.join(max(0.0, deadline - time.monotonic()))
        self._leases.stop(max(0.0, deadline - time.monotonic()))
        retire_owner(self.owner)
        if not self._claimed:
            return
        try:
            with store.transaction():
                store.hand_back_jobs(self.owner, utc_now())
        except GraphMemError:
            pass  # the store is gone: the next open re-queues them (owner gone)
