"""Compare a :class:`graphmem.SearchResult` tree with the reference model, exactly.

Both sides are flattened to :class:`TreeRow` lists in pre-order, children in the
order docs/semantics.md 3.5 prescribes (the store's order on one side, the rank of
docs/semantics.md 3.4 on the other), so equality checks nodes, parents, stored
relations, labels, depths, statuses and sibling order at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from graphmem.models import SearchResult
from graphmem.testing.model import ExpectedEntry, ReferenceModel

__all__ = ["TreeRow", "expected_tree_rows", "flatten_result", "tree_nodes"]


class TreeRow(NamedTuple):
    """One linked record, as placed in its root's tree."""

    node: str
    parent: str
    relation_id: str
    depth: int
    source: str
    target: str
    relation_type: str
    label: str
    status: str


def flatten_result(result: SearchResult) -> list[TreeRow]:
    """The linked records under ``result``, pre-order, children in the given order."""
    rows: list[TreeRow] = []

    def walk(node: SearchResult, depth: int) -> None:
        for relation, child in node.linked_results:
            rows.append(
                TreeRow(
                    node=child.id,
                    parent=node.id,
                    relation_id=relation.id,
                    depth=depth,
                    source=relation.source_record_id,
                    target=relation.target_record_id,
                    relation_type=relation.relation_type,
                    label=relation.label_from(node.id),
                    status=child.status,
                )
            )
            walk(child, depth + 1)

    walk(result, 1)
    return rows


def expected_tree_rows(
    model: ReferenceModel, root: str, entries: Sequence[ExpectedEntry]
) -> list[TreeRow]:
    """The rows :func:`flatten_result` must give for the model's kept ``entries``."""
    ranked = sorted(entries, key=lambda e: e.rank_key)
    children: dict[str, list[ExpectedEntry]] = {}
    for entry in ranked:
        children.setdefault(entry.parent, []).append(entry)
    rows: list[TreeRow] = []

    def walk(parent: str) -> None:
        for entry in children.get(parent, []):
            link = model.links[entry.relation_id]
            rows.append(
                TreeRow(
                    node=entry.node,
                    parent=parent,
                    relation_id=link.relation_id,
                    depth=entry.depth,
                    source=link.source,
                    target=link.target,
                    relation_type=link.relation_type,
                    label=link.label_from(parent),
                    status=model.status(entry.node),
                )
            )
            walk(entry.node)

    walk(root)
    return rows


def tree_nodes(result: SearchResult) -> list[str]:
    """Ids of every linked record under ``result`` (pre-order)."""
    return [row.node for row in flatten_result(result)]
