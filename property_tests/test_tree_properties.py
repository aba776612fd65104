"""Linked-context trees on random graphs: the SQLite store, the networkx model's
BFS definition, path enumeration and the pure core all give the same tree."""

from hypothesis import example, given, note
from hypothesis import strategies as st

from graphmem import GraphMemory
from graphmem.core.tree import Neighbor, shortest_path_tree
from graphmem.testing.model import ExpectedEntry, ManualClock, ModelFilters, ReferenceModel
from graphmem.testing.shape import expected_tree_rows, flatten_result
from graphmem.testing.strategies import (
    GraphSpec,
    LinkSpec,
    MemorySpec,
    SearchArgs,
    graphs,
    load_graph,
    search_args,
)

hops = st.integers(0, 5)
caps = st.none() | st.integers(0, 6)
days_later = st.sampled_from((0, 0, 2))


def _search_all(memory: GraphMemory, args: SearchArgs, num_hops: int, cap: int | None) -> list:
    return memory.search(
        "pizza",
        **args.kwargs(),
        max_results=100,
        num_hops=num_hops,
        max_linked_results=cap,
        include_invalid_results=True,
    )


@given(spec=graphs(), args=search_args(), num_hops=hops, cap=caps, later=days_later)
def test_tree_store_equals_model(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None, later: int
) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
        clock.advance(days=later)
        filters = args.model_filters(clock)
        results = _search_all(memory, args, num_hops, cap)
        assert {r.id for r in results} == model.candidates(filters, include_invalid=True)
        for result in results:
            want = expected_tree_rows(
                model, result.id, model.tree(result.id, filters, num_hops, cap)
            )
            note(f"root {result.id!r}: model {want}")
            assert flatten_result(result) == want


@given(spec=graphs(max_memories=9, max_links=16), args=search_args(), num_hops=hops, cap=caps)
def test_tree_bfs_equals_path_enumeration(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None
) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
    filters = args.model_filters(clock)
    for root in sorted(model.candidates(filters, include_invalid=True)):
        by_bfs = model.tree(root, filters, num_hops, cap)
        assert by_bfs == model.tree_by_paths(root, filters, num_hops, cap), root


def _core_tree(
    model: ReferenceModel, root: str, filters: ModelFilters, num_hops: int, cap: int | None
) -> list[ExpectedEntry]:
    def neighbors(node: str) -> list[Neighbor]:
        return [
            Neighbor(
                link.created_at,
                link.relation_id,
                link.target if link.source == node else link.source,
            )
            for link in model.links_of(node)
        ]

    entries = shortest_path_tree(
        root, neighbors, num_hops, cap, allowed=lambda n: model.passes(n, filters)
    )
    return [ExpectedEntry(e.node, e.parent, e.relation_id, e.created_at, e.depth) for e in entries]


@given(spec=graphs(), args=search_args(), num_hops=hops, cap=caps)
def test_tree_core_equals_model(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None
) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
    filters = args.model_filters(clock)
    for root in sorted(model.candidates(filters, include_invalid=True)):
        want = model.tree(root, filters, num_hops, cap)
        assert _core_tree(model, root, filters, num_hops, cap) == want, root


@given(spec=graphs(), num_hops=st.integers(1, 5), cap=st.integers(1, 6))
def test_tree_cap_keeps_a_prefix_of_the_uncapped_ranking(
    spec: GraphSpec, num_hops: int, cap: int
) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        load_graph(memory, clock, spec)
        capped = _search_all(memory, SearchArgs(), num_hops, cap)
        full = _search_all(memory, SearchArgs(), num_hops, None)
    for small, big in zip(capped, full, strict=True):
        kept = {row.node: row for row in flatten_result(small)}
        ranked = sorted(flatten_result(big), key=lambda r: r.depth)
        assert len(kept) == min(cap, len(ranked))
        assert all(kept[n].parent in kept or kept[n].parent == small.id for n in kept)
        assert max((r.depth for r in kept.values()), default=0) <= num_hops


@given(
    spec=graphs(min_memories=3, max_memories=7, max_links=40, max_tick=1),
    args=search_args(),
    num_hops=st.integers(1, 4),
    cap=st.integers(1, 4),
    later=days_later,
)
def test_tree_store_equals_model_on_dense_graphs(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int, later: int
) -> None:
    """Few memories, many links (parallel ones of other types), two link times and
    small caps: most frontier nodes have more links than their root's remaining
    quota, so the store reads them only up to its bound (bound-level) and keeps the
    earliest parent link among tied and parallel candidates (expand-level-keep);
    expired and filtered memories are neither reached nor stepping stones."""
    test_tree_store_equals_model.hypothesis.inner_test(  # type: ignore[attr-defined]
        spec=spec, args=args, num_hops=num_hops, cap=cap, later=later
    )


# A quota of 5 filled exactly by the second level's fifth kept candidate (a
# parallel link of another type among the first level's): the bound must be that
# candidate's link, or z2 is dropped.
_QUOTA_EDGE = GraphSpec(
    [
        MemorySpec(i, "memory", f"pizza {i}", None, None, None, {}, None)
        for i in ("r", "x", "y", "z", "y2", "z2")
    ],
    [
        LinkSpec("a1", "r", "x", "supports", "is_supported_by", 0),
        LinkSpec("a2", "r", "y", "supports", "is_supported_by", 0),
        LinkSpec("a3", "r", "z", "supports", "is_supported_by", 0),
        LinkSpec("a4", "r", "z", "contradicts", "contradicts", 0),
        LinkSpec("b1", "y", "y2", "supports", "is_supported_by", 1),
        LinkSpec("b2", "z", "z2", "supports", "is_supported_by", 2),
    ],
)


@given(
    spec=graphs(min_memories=8, max_memories=16, max_links=60, max_tick=5),
    args=search_args(),
    num_hops=st.integers(2, 4),
    cap=st.integers(3, 12),
    later=days_later,
)
@example(spec=_QUOTA_EDGE, args=SearchArgs(), num_hops=2, cap=5, later=0)
def test_tree_store_equals_model_on_wide_frontiers(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int, later: int
) -> None:
    """Many links per memory against caps a little larger than a root's first
    level: a root's frontier is often wide against its remaining quota, so the store
    first keeps the candidates of each frontier node's first links (probe-level),
    bounds the root by its quota-th one (bound-level-root) and reads only the links
    up to that bound; the trees must still be the model's."""
    test_tree_store_equals_model.hypothesis.inner_test(  # type: ignore[attr-defined]
        spec=spec, args=args, num_hops=num_hops, cap=cap, later=later
    )


@given(
    spec=graphs(min_memories=3, max_memories=10, max_links=40, max_tick=1),
    args=search_args(),
    num_hops=st.integers(1, 4),
    cap=st.integers(1, 4),
)
def test_tree_core_equals_model_under_small_caps(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int
) -> None:
    """The in-process tree (core.tree) against the model where the cap cuts most
    trees: dense graphs, tied link times, caps of 1 to 4. A capped tree holds
    exactly min(cap, the uncapped tree's size) records."""
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
    filters = args.model_filters(clock)
    for root in sorted(model.candidates(filters, include_invalid=True)):
        capped = _core_tree(model, root, filters, num_hops, cap)
        assert capped == model.tree(root, filters, num_hops, cap), root
        uncapped = _core_tree(model, root, filters, num_hops, None)
        assert len(capped) == min(cap, len(uncapped)), root
