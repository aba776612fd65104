"""Async twins under cancellation and close: a cancelled or timed-out await holds
no worker it does not need, closing never waits for a wait on extraction, a call
that never started is dropped; the twins keep the caller's context and name."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import graphmem.memory as memory_module
from graphmem import (
    ClosedError,
    ExtractionTimeoutError,
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    MemoryExtractionConfig,
    Thread,
)
from graphmem.asyncpool import ASYNC_WORKERS

GUARD = 30.0
"""Seconds after which a call that should return at once counts as hung."""
HELD = 10 * GUARD
"""Seconds a gated model call blocks at most (far past the guard, never forever)."""


class GatedLlm:
    """Each extraction call blocks until ``gate`` is set; ``started`` tells one began."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def chat(self, messages: Any, *, json_schema: Any = None) -> str:
        self.started.set()
        self.gate.wait(HELD)
        return json.dumps({"records": []})


@pytest.fixture
def llm() -> Iterator[GatedLlm]:
    gated = GatedLlm()
    yield gated
    gated.gate.set()  # a worker thread still blocked in chat() ends


def _memory(llm: GatedLlm, workers: int = 1) -> GraphMemory:
    return GraphMemory(
        ":memory:",
        embedder=HashingEmbedder(dim=16),
        llm=llm,
        extraction_workers=workers,
        memory_extraction_config=MemoryExtractionConfig(memory_extraction_frequency=1),
    )


async def _extracting(memory: GraphMemory, llm: GatedLlm) -> Thread:
    """A thread whose one extraction job is running, blocked in the LLM."""
    thread = await memory.create_thread_async("t", enable_context_summary=False)
    await thread.add_messages_async([{"role": "user", "content": "I like tea."}])
    assert await asyncio.to_thread(llm.started.wait, GUARD)
    return thread


async def _guarded(awaitable: Any, what: str) -> Any:
    try:
        return await asyncio.wait_for(awaitable, GUARD)
    except asyncio.TimeoutError:
        pytest.fail(f"{what} did not return within {GUARD} s")


async def _close_or_fail(memory: GraphMemory) -> None:
    closer = asyncio.ensure_future(memory.close_async())
    done, _ = await asyncio.wait({closer}, timeout=GUARD)
    if not done:
        store = memory._open
        if store is not None:
            store.close()  # ends whatever keeps close() waiting, so the test can end
        await asyncio.wait({closer}, timeout=GUARD)
        pytest.fail(f"close_async() did not return within {GUARD} s")
    await closer


def test_async_wait_raises_closed_as_soon_as_close_begins(
    llm: GatedLlm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_module, "CLOSE_TIMEOUT", 4 * GUARD)  # close waits for the job

    async def scenario() -> None:
        memory = _memory(llm)
        thread = await _extracting(memory, llm)
        waiter = asyncio.ensure_future(thread.wait_for_memory_extraction_async())
        await asyncio.sleep(0.05)  # the wait is polling
        closer = asyncio.ensure_future(memory.close_async())
        try:
            with pytest.raises(ClosedError):
                await _guarded(waiter, "the wait, once close() began,")
            assert not closer.done()  # close() still waits for the running job
        finally:
            llm.gate.set()  # the job ends, and with it close()
        await _guarded(closer, "close_async()")

    asyncio.run(scenario())


def test_async_sync_wait_raises_closed_as_soon_as_close_begins(
    llm: GatedLlm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_module, "CLOSE_TIMEOUT", 4 * GUARD)
    memory = _memory(llm)
    thread = memory.create_thread("t", enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "I like tea."}])
    assert llm.started.wait(GUARD)
    raised: list[BaseException] = []

    def wait() -> None:
        try:
            thread.wait_for_memory_extraction()
        except BaseException as error:
            raised.append(error)

    waiter = threading.Thread(target=wait)
    waiter.start()
    closer = threading.Thread(target=memory.close)
    closer.start()
    waiter.join(GUARD)
    llm.gate.set()
    closer.join(GUARD)
    assert not waiter.is_alive() and not closer.is_alive()
    assert [type(e) for e in raised] == [ClosedError]


@pytest.mark.parametrize("ended_by", ["wait_for", "cancel"])
def test_async_close_after_a_cancelled_wait_returns(
    llm: GatedLlm, monkeypatch: pytest.MonkeyPatch, ended_by: str
) -> None:
    monkeypatch.setattr(memory_module, "CLOSE_TIMEOUT", 0.1)  # the job is given back

    async def scenario() -> None:
        memory = _memory(llm)
        thread = await _extracting(memory, llm)
        if ended_by == "wait_for":
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(thread.wait_for_memory_extraction_async(), 0.05)
        else:
            waiter = asyncio.ensure_future(thread.wait_for_memory_extraction_async())
            await asyncio.sleep(0.05)
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
        await _close_or_fail(memory)
        assert memory.closed

    asyncio.run(scenario())


def test_async_cancelled_waits_leave_the_pool_free(llm: GatedLlm) -> None:
    async def scenario() -> None:
        async with _memory(llm) as memory:
            memory_id = await memory.add_memory_async("hello")
            thread = await _extracting(memory, llm)
            for _ in range(ASYNC_WORKERS):
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(thread.wait_for_memory_extraction_async(), 0.05)
            try:
                found = await _guarded(memory.get_memory_async(memory_id), "get_memory_async")
            finally:
                llm.gate.set()
            assert found.content == "hello"

    asyncio.run(scenario())


def test_async_wait_keeps_the_sync_signature_and_checks() -> None:
    assert inspect.signature(Thread.wait_for_memory_extraction_async) == inspect.signature(
        Thread.wait_for_memory_extraction
    )

    async def scenario(memory: GraphMemory) -> None:
        thread = await memory.create_thread_async("t", enable_context_summary=False)
        with pytest.raises(InvalidArgumentError, match="timeout"):
            await thread.wait_for_memory_extraction_async(timeout=-1)
        await thread.add_messages_async([{"role": "user", "content": "I like tea."}])
        with pytest.raises(ExtractionTimeoutError):
            await thread.wait_for_memory_extraction_async(timeout=0.05)

    llm = GatedLlm()
    memory = _memory(llm)
    try:
        asyncio.run(scenario(memory))
    finally:
        llm.gate.set()
        memory.close()


def test_async_wait_runs_the_jobs_without_workers() -> None:
    llm = GatedLlm()
    llm.gate.set()

    async def scenario() -> list[str]:
        async with _memory(llm, workers=0) as memory:
            thread = await memory.create_thread_async("t", enable_context_summary=False)
            await thread.add_messages_async([{"role": "user", "content": f"m{i}"} for i in (1, 2)])
            await thread.wait_for_memory_extraction_async(timeout=GUARD)
            return [job.status for job in await memory.list_jobs_async()]

    assert asyncio.run(scenario()) == ["done", "done"]


def test_run_jobs_starts_no_job_once_close_began(llm: GatedLlm, tmp_path: Any) -> None:
    """Once close() began, run_jobs starts no job: the queued ones stay queued."""
    path = tmp_path / "jobs.db"

    async def scenario() -> int:
        memory = GraphMemory(
            path,
            embedder=HashingEmbedder(dim=16),
            llm=llm,
            extraction_workers=0,
            memory_extraction_config=MemoryExtractionConfig(memory_extraction_frequency=1),
        )
        thread = await memory.create_thread_async("t", enable_context_summary=False)
        for i in range(4):
            await thread.add_messages_async([{"role": "user", "content": f"I like tea {i}."}])
        running = asyncio.ensure_future(memory.run_jobs_async())
        assert await asyncio.to_thread(llm.started.wait, GUARD)
        closing = asyncio.ensure_future(_close_or_fail(memory))
        while not memory._jobs.stopping:
            await asyncio.sleep(0.01)
        llm.gate.set()
        ran: int = await _guarded(running, "run_jobs_async()")
        await closing
        return ran

    assert asyncio.run(scenario()) == 1
    with GraphMemory(path, embedder=HashingEmbedder(dim=16)) as memory:
        statuses = [job.status for job in memory.list_jobs()]
    # the three jobs not started stay queued (the one that was running is done, or
    # back in the queue when close() released it first)
    assert statuses.count("queued") >= 3 and "running" not in statuses, statuses


class GatedEmbedder:
    """Once ``armed``, each call blocks until ``gate`` is set; ``entered`` counts calls."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(dim=16)
        self.name = self.inner.name
        self.armed = False
        self.gate = threading.Event()
        self.entered = threading.Semaphore(0)

    def embed(self, texts: Any) -> Any:
        if self.armed:
            self.entered.release()
            self.gate.wait(HELD)
        return self.inner.embed(texts)


def test_async_cancelled_call_that_never_started_is_not_run() -> None:
    embedder = GatedEmbedder()

    async def scenario() -> set[str]:
        async with GraphMemory(":memory:", embedder=embedder) as memory:
            await memory.add_memory_async("first", memory_id="m0")  # the schema is made
            embedder.armed = True
            running = [
                asyncio.ensure_future(memory.add_memory_async(f"n{i}", memory_id=f"m{i}"))
                for i in range(1, ASYNC_WORKERS + 1)
            ]
            for _ in running:  # every worker is busy
                assert await asyncio.to_thread(embedder.entered.acquire, True, GUARD)
            queued = asyncio.ensure_future(memory.add_memory_async("late", memory_id="late"))
            for _ in range(3):
                await asyncio.sleep(0)  # handed to the pool, waiting for a worker
            queued.cancel()
            with pytest.raises(asyncio.CancelledError):
                await queued
            embedder.gate.set()
            await asyncio.gather(*running)
            return {m.id for m in await memory.list_memories_async()}

    try:
        stored = asyncio.run(scenario())
    finally:
        embedder.gate.set()
    assert stored == {f"m{i}" for i in range(ASYNC_WORKERS + 1)}


def test_async_twins_see_the_callers_context() -> None:
    request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
        "request_id", default=None
    )
    seen: list[str | None] = []
    inner = HashingEmbedder(dim=16)

    class TracingEmbedder:
        name = inner.name

        def embed(self, texts: Any) -> Any:
            seen.append(request_id.get())
            return inner.embed(texts)

    async def scenario(memory: GraphMemory) -> None:
        request_id.set("from-async")
        await memory.add_memory_async("hello")
        thread = await memory.create_thread_async("t", enable_context_summary=False)
        await thread.add_messages_async([{"role": "user", "content": "hi"}])

    with GraphMemory(":memory:", embedder=TracingEmbedder()) as memory:
        asyncio.run(scenario(memory))
    assert seen == ["from-async", "from-async"]


def test_async_twins_are_named_after_their_class() -> None:
    assert GraphMemory.get_memory_async.__qualname__ == "GraphMemory.get_memory_async"
    assert Thread.add_messages_async.__qualname__ == "Thread.add_messages_async"
    assert Thread.add_messages_async.__module__ == "graphmem.threads.handle"
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as memory:
        thread = memory.create_thread("t")
        assert repr(thread.get_messages_async).startswith(
            "<bound method Thread.get_messages_async of Thread('t')>"
        )
        assert repr(memory.search_async).startswith("<bound method GraphMemory.search_async of")
        assert inspect.iscoroutinefunction(thread.add_messages_async)
        assert inspect.signature(thread.add_messages_async) == inspect.signature(
            thread.add_messages
        )
