"""The linked-context shortest-path tree of docs/semantics.md section 3, as pure functions.

The traversal takes a neighbour function instead of a store, so it runs over
any adjacency (plain dicts, a networkx graph). It is the pure statement of the
rule: the property tests check it against the reference model (written apart
from it, in :mod:`graphmem.testing.model`) and against the stores, whose SQL
expands level by level in the database; the benchmarks use it as the in-Python
baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_HOPS", "Neighbor", "TreeEntry", "children_by_parent", "shortest_path_tree"]

MAX_HOPS = 5


@dataclass(frozen=True, order=True)
class Neighbor:
    """One link seen from a node: its tie key and the node at the other end."""

    created_at: Any
    """Anything totally ordered the same way on every backend (datetime or fixed-format text)."""
    relation_id: str
    other: str


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """A reached memory with the parent link the tie rule chose."""

    node: str
    parent: str
    relation_id: str
    created_at: Any
    depth: int

    @property
    def rank_key(self) -> tuple[Any, ...]:
        """Step 4 of docs/semantics.md section 3.

        ``(depth, link.created_at, link.relation_id, record_id)``.
        """
        return (self.depth, self.created_at, self.relation_id, self.node)


def shortest_path_tree(
    root: str,
    neighbors: Callable[[str], Iterable[Neighbor]],
    num_hops: int,
    max_linked_results: int | None,
    allowed: Callable[[str], bool] = lambda _node: True,
) -> list[TreeEntry]:
    """Breadth-first shortest-path tree from ``root``, ranked and capped.

    Args:
        root: the direct result; never part of its own tree.
        neighbors: every link incident to a node, in both directions.
        num_hops: the maximum depth.
        max_linked_results: keep this many entries (``None``: all).
        allowed: whether a node passes the search filters; others are never
            reached nor used as stepping stones.

    Returns:
        The kept entries in rank order.

    >>> links = {"a": [Neighbor(2, "l2", "b"), Neighbor(1, "l1", "c")],
    ...          "b": [Neighbor(2, "l2", "a"), Neighbor(3, "l3", "d")],
    ...          "c": [Neighbor(1, "l1", "a"), Neighbor(4, "l4", "d")],
    ...          "d": [Neighbor(3, "l3", "b"), Neighbor(4, "l4", "c")]}
    >>> [(e.node, e.parent, e.depth) for e in shortest_path_tree("a", links.__getitem__, 2, None)]
    [('c', 'a', 1), ('b', 'a', 1), ('d', 'b', 2)]
    """
    cap = max_linked_results
    if num_hops <= 0 or cap == 0:
        return []
    kept: list[TreeEntry] = []
    seen = {root}
    frontier = [root]
    for depth in range(1, num_hops + 1):
        best: dict[str, tuple[Any, str, str]] = {}
        for parent in frontier:
            for link in neighbors(parent):
                node = link.other
                if node in seen or not allowed(node):
                    continue
                key = (link.created_at, link.relation_id, parent)
                current = best.get(node)
                if current is None or key < current:
                    best[node] = key
        if not best:
            break
        level = [
            TreeEntry(node, parent, relation_id, created_at, depth)
            for node, (created_at, relation_id, parent) in best.items()
        ]
        level.sort(key=lambda e: e.rank_key)
        kept.extend(level)
        seen.update(best)
        if cap is not None and len(kept) >= cap:
            return kept[:cap]
        frontier = [e.node for e in level]
    return kept


def children_by_parent(entries: Sequence[TreeEntry]) -> dict[Hashable, list[TreeEntry]]:
    """Group kept entries under their parents, children in rank order.

    >>> es = [TreeEntry("b", "a", "l1", 1, 1), TreeEntry("c", "b", "l2", 2, 2)]
    >>> {k: [e.node for e in v] for k, v in children_by_parent(es).items()}
    {'a': ['b'], 'b': ['c']}
    """
    grouped: dict[Hashable, list[TreeEntry]] = {}
    for entry in sorted(entries, key=lambda e: e.rank_key):
        grouped.setdefault(entry.parent, []).append(entry)
    return grouped
