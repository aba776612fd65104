"""Looking at the graph without a search: one memory's tree, why it is invalid,
its history, a subgraph, counts, and a networkx copy.

:class:`ExploreOperations` is mixed into :class:`graphmem.GraphMemory`. It reads
through GraphMemory's public methods, so every answer is what those methods
return, but for three reads of the store itself: a tree is the store's
linked-context expansion (the one a search attaches, so the two are the same
tree), a subgraph reads each level's memories in one call, and stats counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem.core.assemble import assemble_results
from graphmem.core.record_filter import record_passes
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.relations import LIFECYCLE_TYPES
from graphmem.core.validation import (
    MAX_COUNT,
    SearchFilters,
    check_hops,
    check_id,
    check_metadata_filter,
    check_non_negative,
    check_optional_id,
    check_record_types,
)
from graphmem.errors import GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.memory_api import MemoryApi
from graphmem.models import MemoryRecord, RecordRelation, SearchResult
from graphmem.transfer_export import other_counts

__all__ = [
    "ExploreOperations",
    "History",
    "HistoryStep",
    "Invalidation",
    "StoreStats",
    "links_among",
]


class Invalidation(BaseModel):
    """Why a memory is invalid: each lifecycle link targeting it, with its source."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    reasons: list[tuple[RecordRelation, MemoryRecord]]
    """``(link, the newer record at its source)``, oldest link first; empty when valid."""


class HistoryStep(BaseModel):
    """One record reached by following lifecycle links from the start record."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    relation: RecordRelation
    """The lifecycle link that led here, as stored."""
    depth: int
    """How many lifecycle links away from the start record."""


class History(BaseModel):
    """The supersession history of a memory in both directions."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    newer: list[HistoryStep]
    """Records that supersede, refine or duplicate it, and so on, nearest first."""
    older: list[HistoryStep]
    """Records it supersedes, refines or duplicates, and so on, nearest first."""


class StoreStats(BaseModel):
    """Counts over the store's unexpired memories, the links between them (a link
    to an expired memory is not counted), and the conversation side: threads,
    their unexpired messages, users, agents and registered prompts."""

    model_config = ConfigDict(frozen=True)

    memories: int
    links: int
    """Links whose two ends are unexpired memories."""
    by_type: dict[str, int]
    by_status: dict[str, int]
    by_user: dict[str, int]
    """Memories per ``user_id``; memories without a user count under ``""``."""
    links_by_type: dict[str, int]
    threads: int = 0
    messages: int = 0
    """Unexpired messages over all threads."""
    users: int = 0
    agents: int = 0
    prompts: int = 0
    """Registered prompts (each counted once, whatever its number of versions)."""


def links_among(
    records: Iterable[MemoryRecord], links: Iterable[RecordRelation]
) -> list[RecordRelation]:
    """The ``links`` whose two ends are among ``records`` (a link to an expired
    memory goes with it), in their order."""
    ids = {record.id for record in records}
    return [link for link in links if link.source_record_id in ids and link.target_record_id in ids]


class ExploreOperations:
    """Mixed into :class:`graphmem.GraphMemory`."""

    def tree(
        self: MemoryApi,
        memory_id: str,
        num_hops: int = 2,
        max_linked_results: int | None = 100,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        record_types: Iterable[str] | None = None,
        metadata_filter: Mapping[str, Any] | None = None,
    ) -> SearchResult:
        """The linked-context tree of one memory, without a search.

        The same tree a search attaches to this memory when it is a direct result
        with the same filters: the shortest-path tree over links followed in both
        directions, ties broken by ``(link.created_at, relation_id, parent id)``,
        ranked by depth and capped at ``max_linked_results``. The filters apply to
        the linked records; the root is shown whatever its filters.

        Args:
            memory_id: the root.
            num_hops: follow links this far (0..5).
            max_linked_results: keep this many linked records (None: all).
            user_id: only linked records of this user.
            agent_id: only this agent's.
            thread_id: only this thread's.
            record_types: only these types.
            metadata_filter: ``{key: value}`` equalities on top-level metadata.

        Returns:
            A :class:`SearchResult` without a distance whose ``format_content``
            shows invalid records' content (it was not asked for by a search).

        Raises:
            NotFoundError: no memory ``memory_id``.
            InvalidArgumentError: a bad argument.

        Example:
            >>> from graphmem import GraphMemory
            >>> with GraphMemory() as memory:
            ...     a = memory.add_memory("Likes tea.", memory_id="a")
            ...     b = memory.add_memory("Likes green tea.", memory_id="b")
            ...     _ = memory.link_records(b, "memory", a, "memory", "refines")
            ...     for rel, child in memory.tree("a").linked_results:
            ...         print(rel.label_from("a"), child.id)
            is_refined_by b
        """
        self._check_open()
        hops = check_hops(num_hops)
        cap = (
            None
            if max_linked_results is None
            else check_non_negative("max_linked_results", max_linked_results)
        )
        filters = SearchFilters(
            user_id=check_optional_id("user_id", user_id),
            agent_id=check_optional_id("agent_id", agent_id),
            thread_id=check_optional_id("thread_id", thread_id),
            record_types=check_record_types(record_types),
            metadata_filter=check_metadata_filter(metadata_filter),
            now=self._clock(),
        )
        with self._store.transaction(write=False):  # one snapshot, whoever writes
            root = self.get_memory(memory_id)
            # the store's level expansion, as a search's; then one read of the records
            linked = list(self._store.expand([root.id], filters, hops, cap))
            records = self._store.get_memories([node.entry.node for node in linked])
        records[root.id] = root
        return assemble_results([(root.id, None)], records, linked, True)[0]

    def explain_invalid(self: MemoryApi, memory_id: str) -> Invalidation:
        """Why a memory is invalid: the lifecycle links that target it.

        A memory is invalid exactly when at least one ``supersedes``, ``refines``
        or ``duplicates`` link targets it; each such link is returned with the
        record at its source. A valid memory has no reasons.

        Raises:
            NotFoundError: no memory ``memory_id``.
        """
        self._check_open()
        with self._store.transaction(write=False):
            record = self.get_memory(memory_id)
            reasons = [
                (link, self.get_memory(link.source_record_id)) for link in record.invalidated_by
            ]
        return Invalidation(record=record, reasons=reasons)

    def history(self: MemoryApi, memory_id: str, max_depth: int | None = None) -> History:
        """The memory's supersession history, following lifecycle links both ways.

        ``newer`` follows lifecycle links from target to source (what replaced
        it, then what replaced that); ``older`` follows them from source to target
        (what it replaced). Each record appears once, at its shortest distance;
        records at one distance are ordered by link creation time, then id.

        Args:
            memory_id: the start record.
            max_depth: stop after this many links (None: follow to the end).

        Raises:
            NotFoundError: no memory ``memory_id``.
        """
        self._check_open()
        limit = MAX_COUNT if max_depth is None else check_non_negative("max_depth", max_depth)
        with self._store.transaction(write=False):
            record = self.get_memory(memory_id)
            return History(
                record=record,
                newer=_walk(self, record.id, towards="source", max_depth=limit),
                older=_walk(self, record.id, towards="target", max_depth=limit),
            )

    def subgraph(
        self: MemoryApi, memory_ids: Sequence[str], num_hops: int = 1
    ) -> tuple[list[MemoryRecord], list[RecordRelation]]:
        """The memories within ``num_hops`` links of ``memory_ids`` and every link among them.

        Links are followed in both directions, through unexpired memories only (an
        expired one is neither returned nor passed through, as in a tree; a start
        memory is returned whatever its expiry). Every link between two returned
        memories is returned, two at the last hop (or two starts) included: the
        links of each returned memory are read, so a hub among them costs its
        degree. Records come in order of distance, then id; links oldest first.
        One read transaction.

        Raises:
            NotFoundError: a start memory does not exist (named as ``memory_ids``).
            InvalidArgumentError: ``memory_ids`` is not a collection of ids.
        """
        self._check_open()
        hops = check_hops(num_hops)
        if isinstance(memory_ids, str | bytes) or not isinstance(memory_ids, Iterable):
            raise InvalidArgumentError("memory_ids", "must be a list of memory ids, not one id")
        starts = sorted({check_id("memory_ids", memory_id) for memory_id in memory_ids})
        live = SearchFilters(now=self._clock())
        with self._store.transaction(write=False):
            found = self._store.get_memories(starts)
            for memory_id in starts:
                if memory_id not in found or found[memory_id].record_type not in MEMORY_TYPES:
                    raise NotFoundError(f"memory_ids: no memory {memory_id!r}")
            seen = {memory_id: found[memory_id] for memory_id in starts}
            links: dict[str, RecordRelation] = {}
            frontier = starts
            for _ in range(hops):
                reached: set[str] = set()
                for node in frontier:
                    for link in self.list_record_links(node):
                        links[link.id] = link
                        reached.update((link.source_record_id, link.target_record_id))
                found = self._store.get_memories(sorted(reached - seen.keys()))
                frontier = [node for node in sorted(found) if record_passes(found[node], live)]
                seen.update((node, found[node]) for node in frontier)
            # The outer ring (the starts when num_hops is 0) was not expanded: two of
            # its memories may be linked. Its links to memories outside are dropped.
            for node in frontier:
                for link in self.list_record_links(node):
                    if link.source_record_id in seen and link.target_record_id in seen:
                        links[link.id] = link
        kept = links_among(seen.values(), links.values())
        kept.sort(key=lambda link: (link.created_at, link.id))
        return list(seen.values()), kept

    def stats(self: MemoryApi) -> StoreStats:
        """Counts of unexpired memories by type, status and user, of the links
        between them by type, and of threads, messages, users, agents and prompts
        (one read transaction)."""
        self._check_open()
        now = self._clock()
        with self._store.transaction(write=False):  # counted by the store, not read
            groups = self._store.count_memory_groups(now)
            links = self._store.count_link_types(now)
            others = other_counts(self._store, now)
        by_type: Counter[str] = Counter()
        by_status: Counter[str] = Counter()
        by_user: Counter[str] = Counter()
        for (record_type, status, user_id), count in groups.items():
            by_type[record_type] += count
            by_status[status] += count
            by_user[user_id or ""] += count
        return StoreStats(
            **others,
            memories=sum(groups.values()),
            links=sum(links.values()),
            by_type=dict(sorted(by_type.items())),
            by_status=dict(sorted(by_status.items())),
            by_user=dict(sorted(by_user.items())),
            links_by_type=dict(sorted(links.items())),
        )

    def to_networkx(self: MemoryApi) -> Any:
        """The store as a ``networkx.MultiDiGraph``: one node per unexpired memory
        (its fields as attributes), one edge per link between them keyed by
        ``relation_id``.

        Needs networkx (``pip install networkx``).

        Raises:
            GraphMemError: networkx is not installed.
        """
        self._check_open()
        try:
            import networkx as nx
        except ImportError as exc:
            raise GraphMemError("to_networkx needs networkx: pip install networkx") from exc
        graph = nx.MultiDiGraph()
        records = self.list_memories(limit=MAX_COUNT)
        for record in records:
            graph.add_node(record.id, **record.model_dump(exclude={"id", "invalidated_by"}))
        for link in links_among(records, self.list_record_links()):
            graph.add_edge(
                link.source_record_id,
                link.target_record_id,
                key=link.id,
                **link.model_dump(exclude={"id", "source_record_id", "target_record_id"}),
            )
        return graph


def _walk(memory: MemoryApi, start: str, towards: str, max_depth: int) -> list[HistoryStep]:
    """Breadth-first over lifecycle links, to their sources or to their targets."""
    steps: list[HistoryStep] = []
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier and depth < max_depth:
        depth += 1
        level: dict[str, RecordRelation] = {}
        for node in frontier:
            for link in memory.list_record_links(node):
                if link.relation_type not in LIFECYCLE_TYPES:
                    continue
                here, there = (
                    (link.target_record_id, link.source_record_id)
                    if towards == "source"
                    else (link.source_record_id, link.target_record_id)
                )
                if here != node or there in seen:
                    continue
                best = level.get(there)
                if best is None or (link.created_at, link.id) < (best.created_at, best.id):
                    level[there] = link
        ordered = sorted(level.items(), key=lambda item: (item[1].created_at, item[1].id, item[0]))
        for node, link in ordered:
            try:
                record = memory.get_memory(node)
            except NotFoundError:  # deleted between the two reads
                continue
            steps.append(HistoryStep(record=record, relation=link, depth=depth))
        seen.update(level)
        frontier = [node for node, _ in ordered]
    return steps
