"""Memory extraction on a thread handle: run one now, queue one, wait for the queue."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from graphmem.asyncpool import async_twin, on_pool
from graphmem.core.validation import check_id, format_time
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.extraction.config import check_extraction_config
from graphmem.extraction.models import ExtractionResult
from graphmem.extraction.resolving import PromptChoice, referenced_at
from graphmem.extraction.run import ExtractionRequest, plan_extraction, write_extraction
from graphmem.registry_checks import check_prompt_id, check_vid
from graphmem.thread_models import ThreadInfo

if TYPE_CHECKING:
    from graphmem.ai.protocols import LlmProtocol
    from graphmem.asyncpool import WorkerPool
    from graphmem.memory import GraphMemory

__all__ = ["ThreadExtraction"]


def _check_timeout(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise InvalidArgumentError("timeout", f"must be None or a number >= 0; got {value!r}")
    return float(value)


class ThreadExtraction:
    """Mixed into :class:`graphmem.threads.Thread`."""

    _memory: GraphMemory
    thread_id: str
    llm: LlmProtocol | None

    @property
    def _pool(self) -> WorkerPool:
        return self._memory._pool

    if TYPE_CHECKING:

        def info(self) -> ThreadInfo: ...

    def _message_ids(self, message_ids: object) -> tuple[str, ...] | None:
        if message_ids is None:
            return None
        if isinstance(message_ids, (str, bytes)) or not isinstance(message_ids, Iterable):
            raise InvalidArgumentError("message_ids", "must be an iterable of message ids")
        ids = tuple(check_id(f"message_ids[{i}]", m) for i, m in enumerate(message_ids))
        if not ids:
            raise InvalidArgumentError("message_ids", "must name at least one message")
        found = self._memory._store.get_messages(list(ids))
        for index, mid in enumerate(ids):
            if mid not in found or found[mid].thread_id != self.thread_id:
                raise NotFoundError(f"message_ids[{index}]: no message {mid!r} in this thread")
        return ids

    def _request(
        self,
        message_ids: object,
        prompt_id: object,
        prompt_vid: object,
        config: object,
        *,
        job_id: str | None = None,
        in_flight: bool = False,
    ) -> tuple[ExtractionRequest, ThreadInfo]:
        """Every argument checked (the prompt resolved as a new reference, unless
        the work is already ``in_flight``) before any model call or write."""
        memory = self._memory
        memory._check_open()
        info = self.info()
        ids = self._message_ids(message_ids)
        call = check_extraction_config("config", config)
        if prompt_id is None and prompt_vid is not None:
            raise InvalidArgumentError("prompt_vid", "needs a prompt_id")
        pid = None if prompt_id is None else check_prompt_id(prompt_id)
        vid = check_vid(prompt_vid, "prompt_vid")
        born = None
        if pid is not None and not in_flight:
            born = referenced_at(memory.resolve_prompt(pid, vid))
        return (
            ExtractionRequest(
                job_id=job_id or str(uuid.uuid4()),
                thread_id=self.thread_id,
                config=memory._thread_config(info, call).model_dump(mode="json"),
                upto=info.message_count if ids is None else None,
                message_ids=ids,
                prompt_id=pid,
                prompt_vid=vid,
                thread_born=format_time(info.created_at),
                prompt_born=born,
            ),
            info,
        )

    def extract_memories(
        self,
        message_ids: Iterable[str] | None = None,
        *,
        prompt_id: str | None = None,
        prompt_vid: int | None = None,
        config: Any = None,
    ) -> ExtractionResult:
        """Extract memories now, from ``message_ids`` (default: the window of the
        thread's last messages), and return what was written.

        The same work as a queued job, run in the calling thread: one extraction
        call, one more for ``POST_EXTRACTION`` links, then records and links in
        one transaction; a job row with status ``done`` records it. It runs even
        when the config's ``extract_memories`` is False (the call asks for it).

        Args:
            message_ids: messages of this thread to read (in thread order).
            prompt_id: a registry prompt whose text steers extraction (injected
                into the base prompt as delimited, untrusted text).
            prompt_vid: its version; None: the current one.
            config: a :class:`~graphmem.MemoryExtractionConfig` (or mapping) whose
                set fields override the thread's for this call.

        Raises:
            InvalidArgumentError: a bad argument; nothing is called or written.
            NotFoundError: a message is not in this thread.
            PromptNotFoundError, PromptConflictError: the prompt cannot be newly used.
            ExtractionError: no LLM is set.
            ModelError: the LLM or the embedder failed or answered out of schema;
                nothing is written.
        """
        return self._extract(message_ids, prompt_id, prompt_vid, config)

    def _extract(
        self,
        message_ids: object,
        prompt_id: object,
        prompt_vid: object,
        config: object,
        *,
        job_id: str | None = None,
        in_flight: bool = False,
        inside: Callable[[], object] | None = None,
        prompt: PromptChoice | None = None,
    ) -> ExtractionResult:
        """:meth:`extract_memories`, also for work already under way (a memory
        block: ``in_flight`` resolves an archived prompt and falls back to the base
        prompt when it was purged) under a ``job_id`` fixed by the caller, so that a
        retry finds the job row of work already written; ``inside()`` runs in the
        transaction that writes the records, and its error writes nothing. A
        ``prompt`` the caller resolved already runs as it is (not resolved again)."""
        request, info = self._request(
            message_ids, prompt_id, prompt_vid, config, job_id=job_id, in_flight=in_flight
        )
        memory = self._memory
        plan = plan_extraction(
            memory, request, self.llm or memory._extraction_llm(self.thread_id), info, prompt
        )

        def record(result: ExtractionResult) -> bool:
            if inside is not None:
                inside()
            # a thread deleted meanwhile (maybe made again) took its jobs along: none
            # is left behind, as write_extraction writes no record for it either
            thread = memory._store.get_thread(self.thread_id)
            if thread is not None and thread.created_at == info.created_at:
                memory._store.insert_job(request.job_row("done", result.model_dump(mode="json")))
            return True

        return write_extraction(memory, plan, record)

    def schedule_extraction(
        self,
        message_ids: Iterable[str] | None = None,
        *,
        prompt_id: str | None = None,
        prompt_vid: int | None = None,
        config: Any = None,
    ) -> str:
        """Queue the work of :meth:`extract_memories` as a durable job; returns its
        id (``GraphMemory.get_job(job_id)`` reads its status and result).

        The job resolves its prompt when it runs: an archived prompt still
        resolves; a purged one falls back to the base prompt
        (``prompt_fallback=True``), and so does one registered under the id
        after a whole purge (the job keeps the ``created_at`` of the prompt it
        was queued for)."""
        request, _ = self._request(message_ids, prompt_id, prompt_vid, config)
        memory = self._memory
        memory._extraction_llm(self.thread_id)  # no LLM: refused now, not later
        with memory._store.transaction():
            memory._queue(request)
        memory._jobs.notify()
        return request.job_id

    def wait_for_memory_extraction(self, timeout: float | None = None) -> None:
        """Wait until none of this thread's extraction jobs is queued or running.

        With ``extraction_workers=0`` the jobs run here, in the calling thread.

        Raises:
            ExtractionTimeoutError: jobs are still pending after ``timeout`` seconds.
            ExtractionError: some of the thread's jobs failed (``job_ids``); they
                stay listed by ``GraphMemory.list_jobs(status="failed")`` until
                queued again by ``GraphMemory.retry_job(job_id)``.
            ClosedError: the handle was closed, or began closing, meanwhile.
        """
        wait, deadline = self._wait_start(timeout)
        step = self._memory._wait_step
        while (pause := step(self.thread_id, deadline, wait)) is not None:
            time.sleep(pause)

    def _wait_start(self, timeout: object) -> tuple[float | None, float | None]:
        """The checked timeout and the deadline of a wait."""
        self._memory._check_open()
        wait = _check_timeout(timeout)
        self.info()
        return wait, self._memory._wait_start(wait)

    async def wait_for_memory_extraction_async(self, timeout: float | None = None) -> None:
        """Async twin of :meth:`wait_for_memory_extraction`: the same checks, each
        awaited on the worker pool, with :func:`asyncio.sleep` between them, so the
        wait holds no worker while it waits and cancelling it ends it (a job it was
        running itself, with ``extraction_workers=0``, still finishes)."""
        pool, step = self._pool, self._memory._wait_step
        wait, deadline = await on_pool(pool, self._wait_start, timeout)
        while (pause := await on_pool(pool, step, self.thread_id, deadline, wait)) is not None:
            await asyncio.sleep(pause)

    extract_memories_async = async_twin(extract_memories)
    schedule_extraction_async = async_twin(schedule_extraction)
