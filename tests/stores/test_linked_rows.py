"""The read-back of the linked-context traversal (graphmem.stores.linked_rows): tree
rows, node rows and link rows joined into LinkedNode objects, equal to the ones
their constructors make, the roots in the order of their ids."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from graphmem.core.assemble import LinkedNode
from graphmem.core.tree import TreeEntry
from graphmem.models import RecordRelation
from graphmem.stores import linked_rows
from graphmem.stores.linked_rows import linked_nodes

_T1 = "2026-01-01T00:00:01.000000+00:00"
_T2 = "2026-01-01T00:00:02.000000+00:00"
# number, id, type: node 7 is root "z", node 3 is root "a" (ids sort the other way)
_NODES = [(7, "z", "memory"), (3, "a", "memory"), (5, "hub", "fact"), (9, "leaf", "memory")]
# key, relation_id, source, target, type, opposite, timestamp, metadata, created_at
_LINKS = [
    (11, "r-hub-z", "z", "hub", "supports", "supported_by", None, "{}", _T1),
    (12, "r-a-hub", "a", "hub", "supports", "supported_by", _T2, '{"w": 2}', _T2),
    (13, "r-leaf-hub", "leaf", "hub", "cites", "cited_by", None, "{}", _T2),
]
# root, node, parent, depth, link key: root 7's rows come first and are split in two
_ROWS = [
    (7, 5, 7, 1, 11),
    (3, 5, 3, 1, 12),
    (3, 9, 5, 2, 13),
    (7, 9, 5, 2, 13),
]


def _relation(link: tuple[Any, ...], types: dict[str, str]) -> RecordRelation:
    _, rid, source, target, kind, opposite, stamp, metadata, created = link
    return RecordRelation(
        id=rid,
        source_record_id=source,
        source_record_type=types[source],
        target_record_id=target,
        target_record_type=types[target],
        relation_type=kind,
        opposite_relation_type=opposite,
        timestamp=None if stamp is None else datetime.fromisoformat(stamp),
        metadata={"w": 2} if metadata != "{}" else {},
        created_at=datetime.fromisoformat(created),
    )


def _expected() -> list[LinkedNode]:
    ids = {n[0]: n[1] for n in _NODES}
    types = {n[1]: n[2] for n in _NODES}
    links = {link[0]: link for link in _LINKS}
    by_root: dict[str, list[LinkedNode]] = {}
    for root, node, parent, depth, key in _ROWS:
        link = links[key]
        entry = TreeEntry(ids[node], ids[parent], link[1], link[8], depth)
        by_root.setdefault(ids[root], []).append(
            LinkedNode(ids[root], entry, _relation(link, types))
        )
    return [*by_root["a"], *by_root["z"]]


def test_linked_nodes_equal_the_constructed_objects_roots_by_id() -> None:
    got = linked_nodes(_ROWS, _NODES, _LINKS)
    assert got == _expected()
    assert [(n.root_id, n.entry.node) for n in got] == [
        ("a", "hub"),
        ("a", "leaf"),
        ("z", "hub"),
        ("z", "leaf"),
    ]
    assert got[0].relation.created_at.tzinfo is timezone.utc
    assert got[0].relation.model_fields_set == set(RecordRelation.model_fields)
    assert got[0].relation.metadata == {"w": 2} and got[2].relation.metadata == {}


def test_linked_nodes_share_a_link_and_an_entry_between_trees() -> None:
    got = linked_nodes(_ROWS, _NODES, _LINKS)
    # the leaf is reached through the hub by the same link at the same depth in both
    assert got[1].entry is got[3].entry and got[1].relation is got[3].relation
    # each relation owns its own mutable parts
    assert got[0].relation.metadata is not got[2].relation.metadata
    assert got[0].relation.model_fields_set is not got[1].relation.model_fields_set


def test_linked_nodes_fast_path_matches_the_constructors() -> None:
    """The objects made by setting the slots behave as constructed ones: equal,
    same hash (entries) and repr, frozen."""
    assert linked_rows._PLAIN
    got = linked_nodes(_ROWS, _NODES, _LINKS)
    ids = {n[0]: n[1] for n in _NODES}
    relations = linked_rows.relations_by_key(_LINKS, {n[1]: n[2] for n in _NODES})
    slow = linked_rows._linked_nodes_slow(_ROWS, ids, relations)
    assert got == slow
    assert [hash(n.entry) for n in got] == [hash(n.entry) for n in slow]
    assert [repr(n.entry) for n in got] == [repr(n.entry) for n in slow]
    try:
        got[0].entry.depth = 3  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("a TreeEntry must stay frozen")


def test_linked_nodes_of_no_rows_is_empty() -> None:
    assert linked_nodes([], _NODES, _LINKS) == []
