"""Hubs: linked-context work is bounded by max_linked_results, not by a memory's degree.

A memory with thousands of links must not make a capped search read or write
thousands of rows per root. Time is not asserted here (bench/star.py measures
it); these tests check the bound through what the level statement writes to
the work table and how many SQLite VM steps it takes, and that the trees are
still exactly the reference model's, ties included.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.testing.model import ManualClock, ModelFilters, ReferenceModel
from graphmem.testing.shape import expected_tree_rows, flatten_result
from graphmem.testing.strategies import GraphSpec, LinkSpec, MemorySpec, load_graph

HUB = "hub anchor text"


def _leaf(i: int) -> str:
    return f"leaf{i:05d}"


def _add_star(memory: GraphMemory, leaves: int) -> None:
    """A hub linked to ``leaves`` leaves, all links created at the same instant.

    The stored direction alternates and the relation ids are a permutation of the
    leaf order, so the tie rule (created_at, then relation_id) decides the order.
    """
    items: list[dict[str, Any]] = [{"content": HUB, "memory_id": "hub"}]
    items += [{"content": f"leaf number {i}", "memory_id": _leaf(i)} for i in range(leaves)]
    memory.add_memories(items)
    links = []
    for i in range(leaves):
        ends = ("hub", _leaf(i)) if i % 2 else (_leaf(i), "hub")
        links.append(
            {
                "source_record_id": ends[0],
                "source_record_type": "memory",
                "target_record_id": ends[1],
                "target_record_type": "memory",
                "relation_type": "supports",
                "relation_id": f"r{(i * 7919) % leaves:05d}",
            }
        )
    memory.add_record_links(links)


def _conn(memory: GraphMemory) -> sqlite3.Connection:
    conn = memory._store._conn  # type: ignore[attr-defined]
    assert isinstance(conn, sqlite3.Connection)
    return conn


@pytest.fixture
def level_writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, int]]]:
    """Nodes each level kept per root before the trim (expand-level-keep), recorded for
    every GraphMemory store."""
    from graphmem.stores.sqlite import SqliteStore

    seen: list[dict[str, int]] = []
    run = SqliteStore._run

    def spy(self: SqliteStore, name: str, **binds: Any) -> Any:
        cursor = run(self, name, **binds)
        if name == "expand-level-keep":
            rows = self._conn.execute(
                "SELECT root_no, COUNT(*) FROM temp.graphmem_level GROUP BY root_no"
            ).fetchall()
            seen.append(dict(rows))
        return cursor

    monkeypatch.setattr(SqliteStore, "_run", spy)
    yield seen


def test_search_hub_level_writes_at_most_cap_per_root(
    pinned_memory: GraphMemory, level_writes: list[dict[str, int]]
) -> None:
    _add_star(pinned_memory, 600)
    roots = pinned_memory.search(
        HUB, max_results=5, num_hops=2, max_linked_results=10, include_invalid_results=True
    )
    assert len(roots) == 5
    assert len(level_writes) == 2  # some root was still open after level 1
    for level in level_writes:
        assert level, "every level reached something"
        assert max(level.values()) <= 10, level


def _expand_steps(memory: GraphMemory, **search: Any) -> int:
    """SQLite VM steps spent in the level statements during one search."""
    conn = _conn(memory)
    steps = [0]
    counting = [False]

    def tick() -> int:
        if counting[0]:
            steps[0] += 1
        return 0

    store = memory._store  # type: ignore[attr-defined]
    run = store._run

    def timed(name: str, **binds: Any) -> Any:
        counting[0] = name in ("bound-level", "expand-level-keep")
        try:
            return run(name, **binds)
        finally:
            counting[0] = False

    conn.set_progress_handler(tick, 10)
    store._run = timed
    try:
        memory.search(**search)
    finally:
        del store._run
        conn.set_progress_handler(None, 0)
    return steps[0]


def test_search_hub_work_does_not_grow_with_degree(tmp_path: Any) -> None:
    steps = {}
    for leaves in (200, 3000):
        with GraphMemory(tmp_path / f"star{leaves}.db", clock=ManualClock()) as memory:
            _add_star(memory, leaves)
            steps[leaves] = _expand_steps(
                memory, query=HUB, max_results=5, num_hops=2, max_linked_results=20
            )
    # 15x the links; the bounded level reads about 2 * cap links of the hub either way
    # (b-tree depth adds a little). Reading every link would cost about 15x.
    assert steps[3000] < 2 * steps[200], steps


def _hub_spec() -> GraphSpec:
    """Two hubs sharing leaves, parallel links of two types, and equal link times."""
    ids = ["hub", "hub2"] + [_leaf(i) for i in range(30)]
    memories = [MemorySpec(i, "memory", f"content of {i}", None, None, None, {}, None) for i in ids]
    links: list[LinkSpec] = []
    for i in range(30):
        leaf = _leaf(i)
        rid = f"r{(i * 17) % 30:02d}"
        ends = ("hub", leaf) if i % 3 else (leaf, "hub")
        links.append(LinkSpec(rid, *ends, "supports", "is_supported_by", i % 2))
        if i % 4 == 0:  # a parallel link of another type, older than the first one
            links.append(LinkSpec(f"p{i:02d}", leaf, "hub", "contradicts", "contradicts", 0))
        if i % 5 == 0:
            links.append(LinkSpec(f"s{i:02d}", "hub2", leaf, "supports", "is_supported_by", 1))
    links.append(LinkSpec("a", "hub", "hub2", "refines", "is_refined_by", 1))
    return GraphSpec(memories, links)


@pytest.mark.parametrize("cap", [1, 2, 5, 9, 31, None])
@pytest.mark.parametrize("hops", [1, 2, 3])
def test_search_hub_trees_equal_the_model(hops: int, cap: int | None) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model: ReferenceModel = load_graph(memory, clock, _hub_spec())
        results = memory.search(
            "content of",
            max_results=40,
            num_hops=hops,
            max_linked_results=cap,
            include_invalid_results=True,
        )
    filters = ModelFilters(now=clock())
    assert len(results) == 32
    for result in results:
        want = expected_tree_rows(model, result.id, model.tree(result.id, filters, hops, cap))
        assert flatten_result(result) == want, result.id
