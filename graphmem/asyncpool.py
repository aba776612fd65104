"""Async twins of the public methods: the same sync code, run on a bounded worker pool.

``memory.search_async(...)`` awaits ``memory.search(...)`` run on one of
:data:`ASYNC_WORKERS` threads that the :class:`graphmem.GraphMemory` owns, so
the sync and async paths share every check, every statement and the store's
locking; the event loop never blocks on the database or the embedder. The call
runs in a copy of the caller's :mod:`contextvars` context, as in
:func:`asyncio.to_thread`, so an embedder or LLM reading a context variable (a
request id, a tracing span) sees the caller's value.

Cancelling an awaited twin (``task.cancel()``, the timeout of
:func:`asyncio.wait_for`) raises :class:`asyncio.CancelledError` in the caller
at once, but a thread cannot be interrupted: a call that a worker has started
runs to its end, writes included, and holds that worker until then; a call
still waiting for a free worker is dropped and never runs. The caller cannot
tell which of the two happened, so a write retried after a cancellation should
be idempotent: ``add_memory(..., memory_id=..., if_exists="skip")`` stores the
memory once however often it is sent. ``Thread.wait_for_memory_extraction_async``
is the exception: it awaits one short check at a time, with
:func:`asyncio.sleep` between them, so cancelling it ends the wait and it holds
no worker while it waits.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import types
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

from graphmem.errors import CLOSED_MESSAGE, ClosedError

__all__ = ["ASYNC_WORKERS", "AsyncTwin", "WorkerPool", "async_twin", "on_pool"]

ASYNC_WORKERS = 4
"""Threads per GraphMemory that run async calls; more calls wait their turn."""

P = ParamSpec("P")
Q = ParamSpec("Q")
R = TypeVar("R")
T = TypeVar("T")
S = TypeVar("S")


class WorkerPool:
    """A thread pool started on first use and shut down by :meth:`shutdown`."""

    def __init__(self, workers: int = ASYNC_WORKERS) -> None:
        self._workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def executor(self) -> ThreadPoolExecutor:
        """The pool's executor, started on first use.

        Raises:
            ClosedError: the pool was closed (its handle was).
        """
        with self._lock:
            if self._closed:
                raise ClosedError(CLOSED_MESSAGE)
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self._workers, thread_name_prefix="graphmem"
                )
            return self._executor

    def shutdown(self, *, close: bool = False) -> None:
        """Wait for running calls, then stop the threads (a later call starts new
        ones, unless ``close``: then it raises ClosedError and starts none)."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._closed = self._closed or close
        if executor is not None:
            executor.shutdown(wait=True)


class HasPool:
    """An object whose async twins run on ``_pool``."""

    _pool: WorkerPool


async def on_pool(
    pool: WorkerPool, call: Callable[Q, T], /, *args: Q.args, **kwargs: Q.kwargs
) -> T:
    """``call(*args, **kwargs)`` awaited on ``pool``, in a copy of the caller's context.

    Raises:
        ClosedError: the pool was closed; ``call`` does not run.
    """
    context = contextvars.copy_context()
    executor = pool.executor()
    return await asyncio.get_running_loop().run_in_executor(
        executor, lambda: context.run(call, *args, **kwargs)
    )


class AsyncTwin(Generic[S, P, R]):
    """A class attribute holding the async twin of ``method``: same arguments,
    awaited on the object's pool. It names itself after the class and attribute
    it is assigned to (``Thread.add_messages_async``), like a method defined there."""

    def __init__(self, method: Callable[Concatenate[S, P], R]) -> None:
        async def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            pool = cast(HasPool, self)._pool  # the class that holds the twin is a HasPool
            return await on_pool(pool, method, self, *args, **kwargs)

        twin.__name__ = twin.__qualname__ = f"{method.__name__}_async"
        twin.__wrapped__ = method  # type: ignore[attr-defined]  # help() shows its arguments
        twin.__doc__ = f"Async twin of :meth:`{method.__name__}`: the same call, awaited."
        self._twin = twin

    def __set_name__(self, owner: type, name: str) -> None:
        self._twin.__name__ = name
        self._twin.__qualname__ = f"{owner.__qualname__}.{name}"
        self._twin.__module__ = owner.__module__

    @overload
    def __get__(
        self, instance: None, owner: type | None = None
    ) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]: ...

    @overload
    def __get__(
        self, instance: S, owner: type | None = None
    ) -> Callable[P, Coroutine[Any, Any, R]]: ...

    def __get__(self, instance: S | None, owner: type | None = None) -> Callable[..., Any]:
        if instance is None:
            return self._twin
        return types.MethodType(self._twin, instance)


def async_twin(method: Callable[Concatenate[S, P], R]) -> AsyncTwin[S, P, R]:
    """The async twin of ``method``, to assign to a class attribute ``<name>_async``."""
    return AsyncTwin(method)
