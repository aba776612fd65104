"""Async twins of the public methods: the same sync code, run on a bounded worker pool.

``memory.search_async(...)`` awaits ``memory.search(...)`` run on one of
:data:`ASYNC_WORKERS` threads that the :class:`graphmem.GraphMemory` owns, so
the sync and async paths share every check, every statement and the store's
locking; the event loop never blocks on the database or the embedder.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from graphmem.errors import CLOSED_MESSAGE, ClosedError

__all__ = ["ASYNC_WORKERS", "WorkerPool", "async_twin"]

ASYNC_WORKERS = 4
"""Threads per GraphMemory that run async calls; more calls wait their turn."""

P = ParamSpec("P")
R = TypeVar("R")
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


def async_twin(
    method: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """The async twin of ``method``: same arguments, awaited on the object's pool."""

    async def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        call = functools.partial(method, self, *args, **kwargs)
        pool = cast(HasPool, self)._pool  # the class that holds the twin is a HasPool
        return await asyncio.get_running_loop().run_in_executor(pool.executor(), call)

    twin.__name__ = f"{method.__name__}_async"
    twin.__qualname__ = f"GraphMemory.{twin.__name__}"
    twin.__wrapped__ = method  # type: ignore[attr-defined]  # help() shows its arguments
    twin.__doc__ = f"Async twin of :meth:`{method.__name__}`: the same call, awaited."
    return twin
