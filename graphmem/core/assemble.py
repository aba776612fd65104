"""Turn direct hits and kept tree nodes into nested :class:`SearchResult` objects."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.core.tree import TreeEntry, children_by_parent
from graphmem.models import MemoryRecord, RecordRelation, SearchResult

__all__ = ["LinkedNode", "assemble_results"]


@dataclass(frozen=True, slots=True)
class LinkedNode:
    """One kept node of a root's tree: the tie-rule entry and its stored link."""

    root_id: str
    entry: TreeEntry
    relation: RecordRelation


def _subtree(
    node_id: str,
    distance: float | None,
    children: Mapping[object, list[TreeEntry]],
    relations: Mapping[str, RecordRelation],
    records: Mapping[str, MemoryRecord],
    include_invalid: bool,
) -> SearchResult:
    linked = [
        (
            relations[child.node],
            _subtree(child.node, None, children, relations, records, include_invalid),
        )
        for child in children.get(node_id, [])
    ]
    return SearchResult(
        record=records[node_id],
        distance=distance,
        linked_results=linked,
        include_invalid_results=include_invalid,
    )


def assemble_results(
    hits: Sequence[tuple[str, float | None]],
    records: Mapping[str, MemoryRecord],
    linked: Iterable[LinkedNode],
    include_invalid: bool,
) -> list[SearchResult]:
    """Nest each root's kept nodes under their parents, children in rank order.

    Args:
        hits: the direct results as ``(record_id, distance)``, best first.
        records: every record named by ``hits`` and ``linked``.
        linked: the kept nodes of every root (any order).
        include_invalid: the search's ``include_invalid_results``.
    """
    entries: dict[str, list[TreeEntry]] = {}
    relations: dict[str, dict[str, RecordRelation]] = {}
    for node in linked:
        entries.setdefault(node.root_id, []).append(node.entry)
        relations.setdefault(node.root_id, {})[node.entry.node] = node.relation
    return [
        _subtree(
            root_id,
            distance,
            children_by_parent(entries.get(root_id, [])),
            relations.get(root_id, {}),
            records,
            include_invalid,
        )
        for root_id, distance in hits
    ]
