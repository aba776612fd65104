"""Shared plumbing of the conformance suite: fresh stores and error checks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from graphmem.errors import GraphMemError
from graphmem.memory import GraphMemory

__all__ = ["ConformanceBase", "store_snapshot"]


def store_snapshot(memory: GraphMemory) -> tuple[Any, ...]:
    """Every memory (expired or not, with status) and every link, as plain data."""
    links = sorted((r.model_dump() for r in memory.list_record_links()), key=lambda d: d["id"])
    ids = {d[key] for d in links for key in ("source_record_id", "target_record_id")}
    ids.update(m.id for m in memory.list_memories(limit=10_000))
    records = [memory.get_memory(i).model_dump() for i in sorted(ids)]
    return (records, links)


class ConformanceBase:
    """Opens stores through :meth:`make_memory` and closes them after each test."""

    _opened: list[GraphMemory]

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        """A fresh, empty store using ``clock``; subclasses override for their backend."""
        return GraphMemory(":memory:", clock=clock)

    def fresh(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        """A new store from :meth:`make_memory`, closed by ``teardown_method``."""
        memory = self.make_memory(clock)
        self.__dict__.setdefault("_opened", []).append(memory)
        return memory

    def teardown_method(self, method: object = None) -> None:
        for memory in self.__dict__.pop("_opened", []):
            memory.close()

    @staticmethod
    def expect_error(
        memory: GraphMemory, error: type[GraphMemError], call: Callable[[], object]
    ) -> GraphMemError:
        """``call`` raises ``error`` (or a subclass of it) and leaves ``memory`` unchanged."""
        before = store_snapshot(memory)
        try:
            call()
        except GraphMemError as exc:
            assert isinstance(exc, error), f"expected {error.__name__}, got {exc!r}"
            caught = exc
        else:
            raise AssertionError(f"expected {error.__name__}, nothing was raised")
        assert store_snapshot(memory) == before, "a rejected call changed the store"
        return caught
