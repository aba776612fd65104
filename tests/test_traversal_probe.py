"""The capped level's first pass (probe-level, bound-level-root): when a root's
frontier is wide against its remaining quota, the store first keeps the candidates
of each frontier node's first links, bounds the root by its quota-th kept one, and
reads only the links up to that bound. The trees must stay exactly the reference
model's, ties and parallel links included, and the bounded pass must really run."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem import GraphMemory, SearchResult
from graphmem.sqlfiles import load_pgq_statement
from graphmem.stores.sqlite import SqliteStore
from graphmem.testing.model import ManualClock, ModelFilters, ReferenceModel
from graphmem.testing.shape import TreeRow, expected_tree_rows, flatten_result
from graphmem.testing.strategies import GraphSpec, LinkSpec, MemorySpec, load_graph


def _wide_spec() -> GraphSpec:
    """A root linked to 8 middle nodes, each linked to 6 of 24 leaves (shared), the
    leaves to each other in a ring; link times in 4 ticks, so ties are common, and a
    parallel older link of another type on some middle-leaf pairs."""
    ids = ["root"] + [f"m{i}" for i in range(8)] + [f"l{i:02d}" for i in range(24)]
    memories = [MemorySpec(i, "memory", f"text of {i}", None, None, None, {}, None) for i in ids]
    links = [
        LinkSpec(f"a{i}", "root", f"m{i}", "supports", "is_supported_by", i % 2) for i in range(8)
    ]
    for i in range(8):
        for j in range(6):
            leaf = f"l{(i * 5 + j * 7) % 24:02d}"
            ends = (f"m{i}", leaf) if j % 2 else (leaf, f"m{i}")
            links.append(
                LinkSpec(
                    f"b{(i * 13 + j * 5) % 97:02d}{i}{j}",
                    *ends,
                    "supports",
                    "is_supported_by",
                    (i + j) % 4,
                )
            )
            if (i + j) % 5 == 0:
                links.append(LinkSpec(f"c{i}{j}", leaf, f"m{i}", "contradicts", "contradicts", 0))
    links += [
        LinkSpec(
            f"d{i:02d}", f"l{i:02d}", f"l{(i + 1) % 24:02d}", "refines", "is_refined_by", i % 3
        )
        for i in range(24)
    ]
    return GraphSpec(memories, links)


@pytest.mark.parametrize("cap", [9, 10, 12, 16, 20])
@pytest.mark.parametrize("hops", [2, 3])
def test_probed_levels_equal_the_model(
    hops: int, cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[str] = []
    many = SqliteStore._run_many

    def spy(self: SqliteStore, name: str, rows: Any) -> None:
        runs.append(name)
        many(self, name, rows)

    monkeypatch.setattr(SqliteStore, "_run_many", spy)
    results, want = _search_wide_root(hops, cap)
    assert [r.id for r in results] == ["root"]
    assert flatten_result(results[0]) == want
    assert len(want) == cap  # the graph has more than cap nodes within 2 hops
    # 8 middle nodes against a quota of cap - 8: the second level is probed
    assert "probe-level" in runs and "bound-level-root" in runs


@pytest.mark.parametrize("cap", [9, 12, 16, 20])
def test_second_pass_reads_only_links_after_the_first(
    cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probed level's second pass takes as candidates only each frontier node's
    links after those the first pass read (its read mark), never one of them
    again."""
    passes: list[set[tuple[int, int, int]]] = []
    run = SqliteStore._run

    def spy(self: SqliteStore, name: str, **binds: Any) -> Any:
        if name == "expand-level-keep" and binds["depth"] == 2:
            candidates = load_pgq_statement("select-level-candidates", self._prefix, "sqlite")
            rows = self._conn.execute(candidates.sql, binds).fetchall()
            passes.append({(root, node, link_no) for root, node, _, _, _, link_no in rows})
        return run(self, name, **binds)

    monkeypatch.setattr(SqliteStore, "_run", spy)
    results, want = _search_wide_root(2, cap)
    assert flatten_result(results[0]) == want
    assert len(passes) == 2  # the second level is probed, then read up to its bound
    first, second = passes
    assert first and not first & second


def _search_wide_root(hops: int, cap: int) -> tuple[list[SearchResult], list[TreeRow]]:
    """Search the wide graph from its root (on a new in-memory store): the results,
    and the reference model's tree rows for the same call."""
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model: ReferenceModel = load_graph(memory, clock, _wide_spec())
        results = memory.search(
            "text of root",
            max_results=1,
            num_hops=hops,
            max_linked_results=cap,
            include_invalid_results=True,
        )
    return results, expected_tree_rows(
        model, "root", model.tree("root", ModelFilters(now=clock()), hops, cap)
    )


def _quota_edge_spec() -> GraphSpec:
    """A root with three children at one tick (a parallel older-typed link to the
    last one), each of two with a child of its own at later ticks: a quota of 5
    is filled exactly by the second level's fifth kept candidate."""
    memories = [
        MemorySpec(i, "memory", f"text of {i}", None, None, None, {}, None)
        for i in ("r", "x", "y", "z", "y2", "z2")
    ]
    links = [
        LinkSpec("a1", "r", "x", "supports", "is_supported_by", 0),
        LinkSpec("a2", "r", "y", "supports", "is_supported_by", 0),
        LinkSpec("a3", "r", "z", "supports", "is_supported_by", 0),
        LinkSpec("a4", "r", "z", "contradicts", "contradicts", 0),
        LinkSpec("b1", "y", "y2", "supports", "is_supported_by", 1),
        LinkSpec("b2", "z", "z2", "supports", "is_supported_by", 2),
    ]
    return GraphSpec(memories, links)


def test_bound_is_the_quotas_last_kept_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """The root's bound is its quota-th kept candidate link, not the one before
    it: bounding one link early drops z2, the tree's last node."""
    runs: list[str] = []
    many = SqliteStore._run_many

    def spy(self: SqliteStore, name: str, rows: Any) -> None:
        runs.append(name)
        many(self, name, rows)

    monkeypatch.setattr(SqliteStore, "_run_many", spy)
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model: ReferenceModel = load_graph(memory, clock, _quota_edge_spec())
        results = memory.search(
            "text of r",
            max_results=1,
            num_hops=2,
            max_linked_results=5,
            include_invalid_results=True,
        )
    want = expected_tree_rows(model, "r", model.tree("r", ModelFilters(now=clock()), 2, 5))
    assert [r.id for r in results] == ["r"]
    assert flatten_result(results[0]) == want
    assert sorted(row[0] for row in want) == ["x", "y", "y2", "z", "z2"]
    assert "bound-level-root" in runs
