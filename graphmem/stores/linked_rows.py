"""Turn the read-back of the linked-context traversal into :class:`LinkedNode` objects.

The SQL stores read the kept trees back as three row sets (see ``traverse.sql``):
the tree rows (numbers only), the id and type of every node, and each link row
once. This module joins them in Python. It runs once per returned row of every
search, so it allocates as little as it can per row: one ``LinkedNode`` per row,
one ``TreeEntry`` per distinct (node, parent link, depth), one relation per link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from graphmem.core.assemble import LinkedNode
from graphmem.core.tree import TreeEntry
from graphmem.models import RecordRelation
from graphmem.stores.rows import relations_by_key

__all__ = ["linked_nodes"]


def linked_nodes(
    rows: Sequence[Sequence[Any]],
    nodes: Sequence[Sequence[Any]],
    links: Sequence[Sequence[Any]],
) -> list[LinkedNode]:
    """Assemble the tree rows (root, node, parent, depth, link key) with the nodes'
    ids (number, id, type) and the link rows (the key, then the link's columns).

    The roots come in the order of their ids, each root's rows in the order given
    (rank order); the rows of one root need not be contiguous. A link shared by
    several roots' trees (a hub's) is converted once, and so is an entry (node,
    parent link, depth) that several trees share; both are immutable. The entry's
    relation_id and created_at are the link row's (the tree row's copy of them is
    the same text).
    """
    ids = {n[0]: n[1] for n in nodes}
    relations = relations_by_key(links, {n[1]: n[2] for n in nodes})
    if not _PLAIN:
        return _linked_nodes_slow(rows, ids, relations)
    set_node, set_parent, set_relation_id, set_created_at, set_depth = _SET_ENTRY
    set_root_id, set_entry, set_relation = _SET_NODE
    entries: dict[tuple[Any, Any, Any], TreeEntry] = {}
    trees: dict[str, list[LinkedNode]] = {}
    current: Any = None
    append = None
    for root_no, node_no, parent_no, depth, link_key in rows:
        if root_no != current or append is None:
            current = root_no
            root_id = ids[root_no]
            append = trees.setdefault(root_id, []).append
        created_at, relation = relations[link_key]
        key = (node_no, link_key, depth)
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _new(TreeEntry)
            set_node(entry, ids[node_no])
            set_parent(entry, ids[parent_no])
            set_relation_id(entry, relation.id)
            set_created_at(entry, created_at)
            set_depth(entry, int(depth))
        node = _new(LinkedNode)
        set_root_id(node, root_id)
        set_entry(node, entry)
        set_relation(node, relation)
        append(node)
    return [node for root_id in sorted(trees) for node in trees[root_id]]


_new = object.__new__
_set_attr = object.__setattr__
_ENTRY_FIELDS = ("node", "parent", "relation_id", "created_at", "depth")
_NODE_FIELDS = ("root_id", "entry", "relation")
_PLAIN = (
    tuple(f.name for f in fields(TreeEntry)) == _ENTRY_FIELDS
    and tuple(f.name for f in fields(LinkedNode)) == _NODE_FIELDS
    and getattr(TreeEntry, "__slots__", None) == _ENTRY_FIELDS
    and getattr(LinkedNode, "__slots__", None) == _NODE_FIELDS
    and not any(hasattr(c, "__post_init__") for c in (TreeEntry, LinkedNode))
)
"""TreeEntry and LinkedNode are frozen slotted dataclasses with exactly these
fields and no post-init: an instance can be made by setting its slots, as their
``__init__`` would (without the call of a Python-level ``__init__``)."""
_SET_ENTRY = tuple(getattr(TreeEntry, f).__set__ for f in _ENTRY_FIELDS) if _PLAIN else ()
_SET_NODE = tuple(getattr(LinkedNode, f).__set__ for f in _NODE_FIELDS) if _PLAIN else ()


def _linked_nodes_slow(
    rows: Sequence[Sequence[Any]],
    ids: dict[Any, str],
    relations: dict[Any, tuple[Any, RecordRelation]],
) -> list[LinkedNode]:
    """:func:`linked_nodes` through the classes' constructors."""
    trees: dict[str, list[LinkedNode]] = {}
    for root_no, node_no, parent_no, depth, link_key in rows:
        created_at, relation = relations[link_key]
        entry = TreeEntry(ids[node_no], ids[parent_no], relation.id, created_at, int(depth))
        trees.setdefault(ids[root_no], []).append(LinkedNode(ids[root_no], entry, relation))
    return [node for root_id in sorted(trees) for node in trees[root_id]]
