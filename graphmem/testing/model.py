"""An in-memory networkx reference model of a graphmem store.

Written from docs/semantics.md sections 1-3 alone, independently of the SQL and of
:mod:`graphmem.core.tree`, so that comparing a store with it checks both. Memories
are nodes of an undirected :class:`networkx.MultiGraph`; every stored link is one
edge keyed by its relation id, carrying the :class:`ModelLink` with its stored
direction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import networkx as nx

__all__ = [
    "LIFECYCLE",
    "REVERSE_LABELS",
    "ExpectedEntry",
    "ManualClock",
    "ModelFilters",
    "ModelLink",
    "ModelMemory",
    "ReferenceModel",
    "json_scalar_equal",
]

LIFECYCLE = frozenset({"supersedes", "refines", "duplicates"})
"""docs/semantics.md section 2: link types that make their target invalid."""

REVERSE_LABELS: Mapping[str, str] = {
    "supersedes": "is_superseded_by",
    "refines": "is_refined_by",
    "duplicates": "duplicates",
    "supports": "is_supported_by",
    "contradicts": "contradicts",
}
"""docs/semantics.md section 2: the label shown from a built-in link's target to its source."""


class ManualClock:
    """A pinned UTC clock: returns ``now`` until a test moves it.

    Calls do not advance it, so two operations may share a ``created_at`` (ties).

    >>> clock = ManualClock()
    >>> clock() == clock()
    True
    >>> clock.advance(microseconds=1) > ManualClock.START
    True
    """

    START = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move forward by ``timedelta(**delta)`` and return the new time."""
        self.now = self.now + timedelta(**delta)
        return self.now


@dataclass(frozen=True)
class ModelMemory:
    """What the model keeps of a memory."""

    record_id: str
    record_type: str
    content: str
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    created_at: datetime = ManualClock.START
    expires_at: datetime | None = None


@dataclass(frozen=True)
class ModelLink:
    """A stored link ``source -> target``."""

    relation_id: str
    source: str
    target: str
    relation_type: str
    opposite: str
    created_at: datetime

    def label_from(self, parent: str) -> str:
        """The display label when shown from ``parent`` (docs/semantics.md 3.5)."""
        return self.relation_type if parent == self.source else self.opposite


@dataclass(frozen=True)
class ModelFilters:
    """The filters of docs/semantics.md section 1, judged at ``now``."""

    now: datetime
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    record_types: frozenset[str] | None = None
    metadata_filter: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ExpectedEntry:
    """A kept node of a tree: its parent link and depth."""

    node: str
    parent: str
    relation_id: str
    created_at: datetime
    depth: int

    @property
    def rank_key(self) -> tuple[int, datetime, str, str]:
        """docs/semantics.md 3.4: ``(depth, link.created_at, link.relation_id, record_id)``."""
        return (self.depth, self.created_at, self.relation_id, self.node)


def json_scalar_equal(stored: Any, wanted: Any) -> bool:
    """Metadata filter equality: bool apart from numbers, ints and floats numeric.

    >>> json_scalar_equal(1, 1.0), json_scalar_equal(True, 1), json_scalar_equal(None, None)
    (True, False, True)
    >>> json_scalar_equal([1], 1), json_scalar_equal("1", 1)
    (False, False)
    """
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return isinstance(stored, bool) and isinstance(wanted, bool) and stored == wanted
    if stored is None or wanted is None:
        return stored is None and wanted is None
    numbers = (int, float)
    if isinstance(stored, numbers) and isinstance(wanted, numbers):
        return stored == wanted
    if isinstance(stored, str) and isinstance(wanted, str):
        return stored == wanted
    return False


class ReferenceModel:
    """Memories, links, validity and linked-context trees, by docs/semantics.md definition."""

    def __init__(self) -> None:
        self.memories: dict[str, ModelMemory] = {}
        self.links: dict[str, ModelLink] = {}
        self.graph = nx.MultiGraph()

    # memories --------------------------------------------------------------

    def add_memory(self, memory: ModelMemory) -> None:
        """Store a memory (metadata as JSON would give it back)."""
        assert memory.record_id not in self.memories, memory.record_id
        metadata = json.loads(json.dumps(dict(memory.metadata)))
        self.memories[memory.record_id] = replace(memory, metadata=metadata)
        self.graph.add_node(memory.record_id)

    def update_memory(self, record_id: str, metadata: Mapping[str, Any]) -> None:
        """Replace a memory's metadata."""
        stored = json.loads(json.dumps(dict(metadata)))
        self.memories[record_id] = replace(self.memories[record_id], metadata=stored)

    def delete_memory(self, record_id: str) -> None:
        """Delete a memory and (cascade) every link touching it."""
        for link in self.links_of(record_id):
            del self.links[link.relation_id]
        del self.memories[record_id]
        self.graph.remove_node(record_id)

    # links -----------------------------------------------------------------

    def links_of(self, record_id: str) -> list[ModelLink]:
        """Links with ``record_id`` at either end."""
        return [link for link in self.links.values() if record_id in (link.source, link.target)]

    def link_conflict(
        self, source: str, target: str, relation_type: str, exclude: str = ""
    ) -> bool:
        """Whether the triple, or the same type reversed, is already stored."""
        ends = {(source, target), (target, source)}
        return any(
            link.relation_type == relation_type
            and (link.source, link.target) in ends
            and link.relation_id != exclude
            for link in self.links.values()
        )

    def find_link(self, source: str, target: str, relation_type: str) -> ModelLink | None:
        """The link with exactly this directed triple."""
        for link in self.links.values():
            if (link.source, link.target, link.relation_type) == (source, target, relation_type):
                return link
        return None

    def add_link(self, link: ModelLink) -> None:
        """Store a link (the caller has checked it is allowed)."""
        assert link.relation_id not in self.links
        assert link.source in self.memories and link.target in self.memories
        assert link.source != link.target
        assert not self.link_conflict(link.source, link.target, link.relation_type)
        self.links[link.relation_id] = link
        self.graph.add_edge(link.source, link.target, key=link.relation_id)

    def update_link(self, relation_id: str, relation_type: str, opposite: str) -> None:
        """Change a link's type (and opposite label)."""
        link = self.links[relation_id]
        self.links[relation_id] = replace(link, relation_type=relation_type, opposite=opposite)

    def delete_link(self, relation_id: str) -> None:
        """Delete one link."""
        link = self.links.pop(relation_id)
        self.graph.remove_edge(link.source, link.target, key=relation_id)

    # validity and filters ----------------------------------------------------

    def status(self, record_id: str) -> str:
        """docs/semantics.md 2: invalid exactly when a lifecycle link targets the memory."""
        targeted = any(
            link.target == record_id and link.relation_type in LIFECYCLE
            for link in self.links.values()
        )
        return "invalid" if targeted else "valid"

    def invalidated_by(self, record_id: str) -> set[str]:
        """Ids of the lifecycle links targeting ``record_id``."""
        return {
            link.relation_id
            for link in self.links.values()
            if link.target == record_id and link.relation_type in LIFECYCLE
        }

    def passes(self, record_id: str, filters: ModelFilters) -> bool:
        """docs/semantics.md 1: scope ids, record types, metadata equalities and expiry."""
        m = self.memories[record_id]
        for wanted, have in (
            (filters.user_id, m.user_id),
            (filters.agent_id, m.agent_id),
            (filters.thread_id, m.thread_id),
        ):
            if wanted is not None and have != wanted:
                return False
        if filters.record_types is not None and m.record_type not in filters.record_types:
            return False
        for key, value in (filters.metadata_filter or {}).items():
            if key not in m.metadata or not json_scalar_equal(m.metadata[key], value):
                return False
        return m.expires_at is None or m.expires_at > filters.now

    def candidates(self, filters: ModelFilters, include_invalid: bool) -> set[str]:
        """The memories a search may return directly."""
        return {
            record_id
            for record_id in self.memories
            if self.passes(record_id, filters)
            and (include_invalid or self.status(record_id) == "valid")
        }

    def filtered_graph(self, root: str, filters: ModelFilters) -> Any:
        """docs/semantics.md 3.1: the subgraph of memories passing the filters (and the root)."""
        keep = [n for n in self.memories if n == root or self.passes(n, filters)]
        return self.graph.subgraph(keep)

    # linked context ------------------------------------------------------------

    def _parent_key(self, u: str, v: str, sub: Any) -> tuple[datetime, str, str]:
        """The smallest ``(created_at, relation_id, u)`` over the links joining u and v."""
        return min(
            (self.links[key].created_at, key, u) for key in sub.get_edge_data(u, v, default={})
        )

    def tree(
        self,
        root: str,
        filters: ModelFilters,
        num_hops: int,
        max_linked_results: int | None,
    ) -> list[ExpectedEntry]:
        """The kept entries of docs/semantics.md section 3, in rank order, by BFS distances."""
        if num_hops <= 0 or max_linked_results == 0:
            return []
        sub = self.filtered_graph(root, filters)
        depth = nx.single_source_shortest_path_length(sub, root, cutoff=num_hops)
        entries = []
        for v, d in depth.items():
            if v == root:
                continue
            keys = [self._parent_key(u, v, sub) for u in sub.neighbors(v) if depth.get(u) == d - 1]
            created_at, relation_id, parent = min(keys)
            entries.append(ExpectedEntry(v, parent, relation_id, created_at, d))
        return _rank_and_cap(entries, max_linked_results)

    def tree_by_paths(
        self,
        root: str,
        filters: ModelFilters,
        num_hops: int,
        max_linked_results: int | None,
    ) -> list[ExpectedEntry]:
        """The same tree by enumerating every cycle-free path (small graphs only)."""
        if num_hops <= 0 or max_linked_results == 0:
            return []
        sub = self.filtered_graph(root, filters)
        best: dict[str, tuple[int, datetime, str, str]] = {}
        for v in sub.nodes:
            if v == root:
                continue
            for path in nx.all_simple_edge_paths(sub, root, v, cutoff=num_hops):
                u, _, key = path[-1]
                candidate = (len(path), self.links[key].created_at, key, u)
                if v not in best or candidate < best[v]:
                    best[v] = candidate
        entries = [
            ExpectedEntry(v, parent, relation_id, created_at, d)
            for v, (d, created_at, relation_id, parent) in best.items()
        ]
        return _rank_and_cap(entries, max_linked_results)


def _rank_and_cap(
    entries: Iterable[ExpectedEntry], max_linked_results: int | None
) -> list[ExpectedEntry]:
    ranked = sorted(entries, key=lambda e: e.rank_key)
    return ranked if max_linked_results is None else ranked[:max_linked_results]
