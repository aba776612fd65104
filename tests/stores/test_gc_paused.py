"""The linked-context read-back holds off the cyclic garbage collector while it
builds its result objects (graphmem.stores.sql_traversal.GcPaused), and leaves the
collector as it found it: on, off, or after an error."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphmem.stores.sql_traversal as sql_traversal
from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.validation import SearchFilters


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[GraphMemory]:
    with GraphMemory(tmp_path / "m.db", embedder=HashingEmbedder(dim=8)) as memory:
        a = memory.add_memory("a", memory_id="a")
        b = memory.add_memory("b", memory_id="b")
        c = memory.add_memory("c", memory_id="c")
        memory.link_records(a, "memory", b, "memory", "supports")
        memory.link_records(b, "memory", c, "memory", "supports")
        yield memory


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def _tree(memory: GraphMemory, cap: int | None = None) -> list[str]:
    store = memory._store  # type: ignore[attr-defined]
    return [n.entry.node for n in store.linked_context(["a"], SearchFilters(), 3, cap)]


def _spy(monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> list[bool]:
    """Record whether the collector runs while the result objects are built."""
    seen: list[bool] = []
    real = sql_traversal.linked_nodes

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        if fail:
            raise RuntimeError("assembly failed")
        return real(*args)

    monkeypatch.setattr(sql_traversal, "linked_nodes", spy)
    return seen


@pytest.mark.usefixtures("collector_on")
@pytest.mark.parametrize("cap", [None, 10])
def test_the_collector_waits_during_the_read_back_and_runs_again_after(
    memory: GraphMemory, monkeypatch: pytest.MonkeyPatch, cap: int | None
) -> None:
    seen = _spy(monkeypatch)
    assert _tree(memory, cap) == ["b", "c"]
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_runs_again_after_an_error(
    memory: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy(monkeypatch, fail=True)
    with pytest.raises(RuntimeError, match="assembly failed"):
        _tree(memory)
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_a_collector_turned_off_by_the_application_stays_off(
    memory: GraphMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy(monkeypatch)
    gc.disable()
    assert _tree(memory) == ["b", "c"]
    assert seen == [False]
    assert not gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_an_empty_tree_leaves_the_collector_on(memory: GraphMemory) -> None:
    store = memory._store  # type: ignore[attr-defined]
    assert list(store.linked_context(["c"], SearchFilters(user_id="nobody"), 3, None)) == []
    assert gc.isenabled()
