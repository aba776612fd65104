"""Hypothesis strategies for graphmem: ids, contents, scopes, metadata, relation
types, search arguments and small random graphs (loaded by :func:`load_graph`).

Pools are deliberately small so that draws collide: the same user on several
memories, links crossing users, equal link ``created_at`` values (ties), ids
that differ only in case or by a non-ASCII character (ordering checks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from hypothesis import strategies as st

from graphmem.memory import GraphMemory
from graphmem.testing.model import (
    REVERSE_LABELS,
    ManualClock,
    ModelFilters,
    ModelLink,
    ModelMemory,
    ReferenceModel,
)

__all__ = [
    "AGENTS",
    "MEMORY_TYPES",
    "RELATION_TYPES",
    "THREADS",
    "USERS",
    "GraphSpec",
    "LinkSpec",
    "MemorySpec",
    "SearchArgs",
    "contents",
    "graphs",
    "load_graph",
    "metadata",
    "metadata_filters",
    "record_ids",
    "relation_types",
    "search_args",
]

ID_ALPHABET = "abAB_-0é字"
"""Ids mix cases, digits, punctuation and non-ASCII: SQL BINARY order is code point order."""

MEMORY_TYPES: tuple[str, ...] = ("memory", "fact", "preference", "guideline")
USERS: tuple[str, ...] = ("alice", "bob", "carol")
AGENTS: tuple[str, ...] = ("agent-1", "agent-2")
THREADS: tuple[str, ...] = ("t1", "t2")
RELATION_TYPES: tuple[tuple[str, str], ...] = (
    *REVERSE_LABELS.items(),
    ("mentions", "is_mentioned_by"),
)
"""``(relation_type, opposite)``: the built-ins and one custom type."""

_WORDS = ("pizza", "sourdough", "crust", "user", "likes", "thin", "tea", "green", "Friday")
_META_KEYS = ("k", "n", "tag")
_SCALARS: tuple[Any, ...] = (True, False, 0, 1, 1.0, 2.5, -3, "1", "x", "", None)
_NESTED: tuple[Any, ...] = ([1], {"a": 1}, [])


def record_ids(max_size: int = 4) -> st.SearchStrategy[str]:
    """Short ids over :data:`ID_ALPHABET` (collisions are likely, on purpose)."""
    return st.text(ID_ALPHABET, min_size=1, max_size=max_size)


def contents() -> st.SearchStrategy[str]:
    """A few words: the hashing embedder gives them varied vectors."""
    return st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map(" ".join)


def metadata() -> st.SearchStrategy[dict[str, Any]]:
    """Small JSON objects: scalars (bool, int, float, str, null) and a few nested values."""
    values = st.sampled_from(_SCALARS + _NESTED) | st.integers(-2, 2)
    return st.dictionaries(st.sampled_from(_META_KEYS), values, max_size=3)


def metadata_filters() -> st.SearchStrategy[dict[str, Any] | None]:
    """``None`` or one or two equalities on JSON scalars."""
    filt = st.dictionaries(
        st.sampled_from(_META_KEYS), st.sampled_from(_SCALARS), min_size=1, max_size=2
    )
    return st.none() | filt


def relation_types() -> st.SearchStrategy[tuple[str, str]]:
    """``(relation_type, opposite)``, lifecycle types drawn as often as the others."""
    return st.sampled_from(RELATION_TYPES)


@dataclass(frozen=True)
class SearchArgs:
    """The filter arguments of :meth:`GraphMemory.search`."""

    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None
    record_types: tuple[str, ...] | None = None
    metadata_filter: Mapping[str, Any] | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``search`` / ``list_memories``."""
        return {
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "thread_id": self.thread_id,
            "record_types": None if self.record_types is None else list(self.record_types),
            "metadata_filter": None if self.metadata_filter is None else dict(self.metadata_filter),
        }

    def model_filters(self, clock: ManualClock) -> ModelFilters:
        """The same filters for the model, judged at the clock's time."""
        return ModelFilters(
            now=clock(),
            user_id=self.user_id,
            agent_id=self.agent_id,
            thread_id=self.thread_id,
            record_types=None if self.record_types is None else frozenset(self.record_types),
            metadata_filter=self.metadata_filter,
        )


@st.composite
def search_args(draw: st.DrawFn) -> SearchArgs:
    """Random filters; most draws filter on one thing at most."""
    types = st.lists(st.sampled_from(MEMORY_TYPES), min_size=1, max_size=3, unique=True)
    return SearchArgs(
        user_id=draw(st.sampled_from((None, None, *USERS))),
        agent_id=draw(st.sampled_from((None, None, None, *AGENTS))),
        thread_id=draw(st.sampled_from((None, None, None, *THREADS))),
        record_types=draw(st.sampled_from((None, None)) | types.map(tuple)),
        metadata_filter=draw(st.sampled_from((None, None, None)) | metadata_filters()),
    )


@dataclass(frozen=True)
class MemorySpec:
    """One memory of a random graph."""

    record_id: str
    record_type: str
    content: str
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    metadata: Mapping[str, Any]
    ttl_days: int | None


@dataclass(frozen=True)
class LinkSpec:
    """One link of a random graph, created ``tick`` seconds after the start."""

    relation_id: str
    source: str
    target: str
    relation_type: str
    opposite: str
    tick: int


@dataclass(frozen=True)
class GraphSpec:
    """A small random graph: memories, then links between them."""

    memories: Sequence[MemorySpec]
    links: Sequence[LinkSpec] = field(default_factory=tuple)


@st.composite
def memory_specs(draw: st.DrawFn, record_id: str) -> MemorySpec:
    """A memory with a random type, scope, metadata and maybe a one-day TTL."""
    return MemorySpec(
        record_id=record_id,
        record_type=draw(st.sampled_from(MEMORY_TYPES)),
        content=draw(contents()),
        user_id=draw(st.sampled_from((*USERS, None))),
        agent_id=draw(st.sampled_from((None, *AGENTS))),
        thread_id=draw(st.sampled_from((None, *THREADS))),
        metadata=draw(metadata()),
        ttl_days=draw(st.sampled_from((None, None, None, 1, 3))),
    )


@st.composite
def graphs(
    draw: st.DrawFn,
    min_memories: int = 1,
    max_memories: int = 12,
    max_links: int = 25,
    max_tick: int = 3,
) -> GraphSpec:
    """Up to ``max_memories`` memories over several users and up to ``max_links``
    valid links (no self links, no duplicate or reversed triples); link times are
    drawn from ``max_tick + 1`` values so ties are common."""
    ids = draw(st.lists(record_ids(), min_size=min_memories, max_size=max_memories, unique=True))
    memories = [draw(memory_specs(i)) for i in ids]
    rel_ids = draw(
        st.lists(record_ids(5), min_size=min(len(ids), max_links), max_size=max_links, unique=True)
    )
    links: list[LinkSpec] = []
    stored: set[tuple[str, str, str]] = set()
    for relation_id in rel_ids:
        source, target = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        rtype, opposite = draw(relation_types())
        if source == target or {(source, target, rtype), (target, source, rtype)} & stored:
            continue
        stored.add((source, target, rtype))
        tick = draw(st.integers(0, max_tick))
        links.append(LinkSpec(relation_id, source, target, rtype, opposite, tick))
    return GraphSpec(memories, links)


def load_graph(memory: GraphMemory, clock: ManualClock, spec: GraphSpec) -> ReferenceModel:
    """Write ``spec`` into ``memory`` and into a fresh model; returns the model.

    Memories are created at ``clock.START``; link ``i`` at ``START + tick`` seconds.
    The clock is left at ``START``.
    """
    model = ReferenceModel()
    clock.now = ManualClock.START
    for m in spec.memories:
        memory.add_memory(
            m.content,
            memory_id=m.record_id,
            memory_type=m.record_type,
            user_id=m.user_id,
            agent_id=m.agent_id,
            thread_id=m.thread_id,
            metadata=m.metadata,
            ttl_days=m.ttl_days,
        )
        expires = None if m.ttl_days is None else clock() + timedelta(days=m.ttl_days)
        model.add_memory(
            ModelMemory(
                m.record_id,
                m.record_type,
                m.content,
                m.user_id,
                m.agent_id,
                m.thread_id,
                m.metadata,
                clock(),
                expires,
            )
        )
    types = {m.record_id: m.record_type for m in spec.memories}
    for link in spec.links:
        clock.now = ManualClock.START + timedelta(seconds=link.tick)
        opposite = None if link.relation_type in REVERSE_LABELS else link.opposite
        memory.link_records(
            link.source,
            types[link.source],
            link.target,
            types[link.target],
            link.relation_type,
            opposite,
            relation_id=link.relation_id,
        )
        model.add_link(
            ModelLink(
                link.relation_id,
                link.source,
                link.target,
                link.relation_type,
                link.opposite,
                clock(),
            )
        )
    clock.now = ManualClock.START
    return model
