"""graphmem.core.tree: the shortest-path tree of SPEC section 3 as a pure function."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from graphmem.core.tree import (
    MAX_HOPS,
    Neighbor,
    TreeEntry,
    children_by_parent,
    shortest_path_tree,
)

Edge = tuple[str, str, int, str]  # (source, target, created_at, relation_id)


def _neighbors(edges: Iterable[Edge]):
    table: dict[str, list[Neighbor]] = {}
    for source, target, created, relation_id in edges:
        table.setdefault(source, []).append(Neighbor(created, relation_id, target))
        table.setdefault(target, []).append(Neighbor(created, relation_id, source))
    return lambda node: table.get(node, [])


def _tree(edges: Iterable[Edge], root: str = "r", hops: int = 5, cap: int | None = None, **kw):
    entries = shortest_path_tree(root, _neighbors(edges), hops, cap, **kw)
    return [(e.node, e.parent, e.relation_id, e.depth) for e in entries]


CHAIN = [(f"n{i}", f"n{i + 1}", i, f"l{i}") for i in range(7)]


def test_tree_max_hops_is_five() -> None:
    assert MAX_HOPS == 5


@pytest.mark.parametrize("hops", [0, 1, 2, 3, 4, 5])
def test_tree_depth_limited_by_hops(hops: int) -> None:
    assert [n for n, *_ in _tree(CHAIN, root="n0", hops=hops)] == [
        f"n{i}" for i in range(1, hops + 1)
    ]


def test_tree_zero_cap_is_empty() -> None:
    assert _tree(CHAIN, root="n0", cap=0) == []


def test_tree_root_alone() -> None:
    assert _tree([], root="r") == []


def test_tree_root_not_in_own_tree() -> None:
    cycle = [("r", "a", 1, "l1"), ("a", "b", 2, "l2"), ("b", "r", 3, "l3")]
    assert _tree(cycle) == [("a", "r", "l1", 1), ("b", "r", "l3", 1)]


def test_tree_links_followed_both_directions() -> None:
    edges = [("a", "r", 1, "l1"), ("r", "b", 2, "l2")]
    assert _tree(edges) == [("a", "r", "l1", 1), ("b", "r", "l2", 1)]


def test_tree_parent_is_min_created_at() -> None:
    edges = [("r", "x", 1, "l1"), ("r", "y", 2, "l2"), ("x", "z", 9, "l3"), ("y", "z", 5, "l4")]
    assert _tree(edges)[-1] == ("z", "y", "l4", 2)


def test_tree_parent_tie_by_relation_id() -> None:
    edges = [("r", "x", 1, "l1"), ("r", "y", 1, "l2"), ("x", "z", 5, "l9"), ("y", "z", 5, "l5")]
    assert _tree(edges)[-1] == ("z", "y", "l5", 2)


def test_tree_parent_tie_by_parent_id() -> None:
    # the same relation id and time seen from two parents cannot happen in a store,
    # but the rule is total: the smaller parent id wins
    table = {
        "r": [Neighbor(1, "l1", "x"), Neighbor(1, "l2", "y")],
        "x": [Neighbor(5, "l5", "z")],
        "y": [Neighbor(5, "l5", "z")],
    }
    entries = shortest_path_tree("r", lambda n: table.get(n, []), 2, None)
    assert [(e.node, e.parent) for e in entries][-1] == ("z", "x")


def test_tree_rank_depth_then_created_then_relation_then_id() -> None:
    edges = [
        ("r", "c", 3, "l3"),
        ("r", "b", 1, "l9"),
        ("r", "a", 1, "l2"),
        ("a", "deep", 0, "l0"),
    ]
    assert [n for n, *_ in _tree(edges)] == ["a", "b", "c", "deep"]


def test_tree_cap_keeps_first_by_rank() -> None:
    edges = [("r", "a", 1, "l1"), ("a", "g", 0, "l0"), ("r", "b", 2, "l2"), ("r", "c", 3, "l3")]
    assert [n for n, *_ in _tree(edges, cap=3)] == ["a", "b", "c"]
    assert [n for n, *_ in _tree(edges, cap=4)] == ["a", "b", "c", "g"]


def test_tree_cap_none_keeps_all() -> None:
    edges = [("r", f"n{i:03d}", i, f"l{i:03d}") for i in range(300)]
    assert len(_tree(edges, cap=None)) == 300


def test_tree_kept_parents_always_kept() -> None:
    edges = [("r", "a", 5, "l1"), ("a", "b", 1, "l2"), ("b", "c", 1, "l3"), ("r", "d", 9, "l4")]
    for cap in range(5):
        kept = _tree(edges, cap=cap)
        nodes = {n for n, *_ in kept} | {"r"}
        assert all(parent in nodes for _, parent, _, _ in kept)


def test_tree_allowed_excludes_nodes_and_paths() -> None:
    edges = [("r", "blocked", 1, "l1"), ("blocked", "far", 2, "l2"), ("r", "ok", 3, "l3")]
    assert _tree(edges, allowed=lambda n: n != "blocked") == [("ok", "r", "l3", 1)]


def test_tree_shortest_path_over_older_longer() -> None:
    edges = [("r", "a", 1, "l1"), ("a", "b", 2, "l2"), ("r", "b", 3, "l3")]
    assert _tree(edges) == [("a", "r", "l1", 1), ("b", "r", "l3", 1)]


def test_tree_each_node_once() -> None:
    edges = [
        (a, b, i, f"l{i}")
        for i, (a, b) in enumerate(
            [("r", "a"), ("r", "b"), ("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("b", "d")]
        )
    ]
    nodes = [n for n, *_ in _tree(edges)]
    assert sorted(nodes) == ["a", "b", "c", "d"]


def test_tree_rank_key() -> None:
    entry = TreeEntry("n", "p", "l1", 7, 2)
    assert entry.rank_key == (2, 7, "l1", "n")


def test_children_by_parent_orders_by_rank() -> None:
    entries = [
        TreeEntry("c", "r", "l3", 3, 1),
        TreeEntry("g", "a", "l0", 0, 2),
        TreeEntry("a", "r", "l1", 1, 1),
        TreeEntry("b", "r", "l1b", 1, 1),
    ]
    grouped = children_by_parent(entries)
    assert {k: [e.node for e in v] for k, v in grouped.items()} == {
        "r": ["a", "b", "c"],
        "a": ["g"],
    }


def test_tree_matches_networkx_shortest_path_lengths() -> None:
    nx = pytest.importorskip("networkx")
    import random

    rng = random.Random(3)
    nodes = [f"v{i:02d}" for i in range(30)]
    edges: list[Edge] = []
    seen: set[frozenset[str]] = set()
    for i in range(60):
        a, b = rng.sample(nodes, 2)
        if frozenset((a, b)) in seen:
            continue
        seen.add(frozenset((a, b)))
        edges.append((a, b, rng.randrange(10), f"l{i:03d}"))
    graph = nx.Graph([(a, b) for a, b, _, _ in edges])
    graph.add_nodes_from(nodes)
    lengths = nx.single_source_shortest_path_length(graph, "v00", cutoff=5)
    got = {n: d for n, _, _, d in _tree(edges, root="v00")}
    assert got == {n: d for n, d in lengths.items() if n != "v00"}
