"""The linked-context traversal every SQL store shares: one level statement per
hop (``expand-level``, SQL/PGQ text lowered or run natively), over work tables
that the loop fills and trims (see ``traverse.sql``)."""

from __future__ import annotations

import gc
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from graphmem.core.assemble import LinkedNode
from graphmem.core.validation import SearchFilters
from graphmem.errors import BackendError
from graphmem.stores.linked_rows import linked_nodes

__all__ = ["GcPaused", "SqlTraversal"]


class SqlTraversal:
    """Mixed into :class:`graphmem.stores.sql_store.SqlStore`: ``expand``."""

    _level_upsert = False
    """Grow the trees with ``bound-level`` and ``expand-level-keep`` (an upsert into
    a level table, SQLite) instead of ``expand-level`` (window sorts, Oracle)."""

    _numbered_read_back = False
    """Read the nodes and links of the trees with ``select-numbered-nodes`` and
    ``select-numbered-links``, given the numbers of the tree rows' nodes and links
    as JSON arrays (SQLite), instead of ``select-linked-nodes`` and
    ``select-linked-links``, which read them from the work table (Oracle)."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any: ...

    @abstractmethod
    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None: ...

    @abstractmethod
    def _use_filter(self, filters: SearchFilters) -> dict[str, Any]: ...

    @abstractmethod
    def transaction(self, write: bool = True) -> Any: ...

    def _traversal_rows(self, count: int) -> None:
        """Told the number of tree rows each traversal read back, inside its
        transaction (the SQLite store frees its work tables' pages after a large
        one: ``sqlite_session``)."""

    def expand(
        self,
        roots: Sequence[str],
        filters: SearchFilters,
        hops: int,
        cap: int | None,
    ) -> Iterable[LinkedNode]:
        return self.linked_context(roots, filters, hops, cap)

    def linked_context(
        self,
        root_ids: Sequence[str],
        filters: SearchFilters,
        num_hops: int,
        max_linked_results: int | None,
    ) -> Iterator[LinkedNode]:
        """The kept nodes of every root's tree (docs/semantics.md section 3), in rank order
        per root."""
        if not root_ids or num_hops == 0 or max_linked_results == 0:
            return iter(())
        with GcPaused():  # the whole traversal: its fetched rows and result objects
            with self.transaction(write=False):
                binds = self._use_filter(filters)
                if self._level_upsert:
                    self._grow_levels(root_ids, binds, num_hops, max_linked_results)
                else:
                    self._grow_trees(root_ids, binds, num_hops, max_linked_results)
                rows = self._run("select-linked-context").fetchall()
                self._traversal_rows(len(rows))
                if not self._numbered_read_back:
                    nodes = self._run("select-linked-nodes").fetchall()
                    links = self._run("select-linked-links").fetchall()
                elif rows:
                    nodes, links = self._read_numbered(rows)
                else:
                    return iter(())
            try:
                return iter(linked_nodes(rows, nodes, links))
            except KeyError as exc:  # a tree row's link or node was not read back
                raise BackendError(
                    "the traversal met an adjacency row of a link that is gone (the "
                    "store's adjacency table is out of step with its links): rebuild it "
                    "as docs/dba.md says (Direct DML, traversal tables)"
                ) from exc

    def _read_numbered(self, rows: Sequence[Sequence[Any]]) -> tuple[list[Any], list[Any]]:
        """The node and link rows of the tree rows ``rows``, each number once (in
        ascending order: the searches of the rowid b-trees then go forward)."""
        node_nos = {r[1] for r in rows}
        node_nos.update(r[2] for r in rows)
        link_nos = {r[4] for r in rows}
        nodes = self._run("select-numbered-nodes", node_nos=_json_numbers(node_nos)).fetchall()
        links = self._run("select-numbered-links", link_nos=_json_numbers(link_nos)).fetchall()
        return nodes, links

    def _grow_trees(
        self, root_ids: Sequence[str], binds: dict[str, Any], num_hops: int, cap: int | None
    ) -> None:
        """Fill the work tables one level per ``expand-level`` (see traverse.sql).

        Depth leads the rank, so a root stops expanding at the level where it
        reaches ``cap`` nodes; that level is trimmed to the nodes that fit, and the
        loop ends when every root is full or a level reaches nothing. The level
        statement itself reads and writes only what ``cap`` can keep (a hub's
        other links are never read), so a capped level costs O(cap) per frontier
        node whatever the degrees; without a cap every link is read anyway.
        """
        self._run("reset-traversal-reached")
        self._run("reset-traversal-roots")
        roots = [{"root_id": r} for r in root_ids]
        self._run_many("insert-traversal-root", roots)
        self._run_many("open-traversal-root", roots)
        counts: dict[int, int] = {}
        open_roots = len(roots)
        for depth in range(1, num_hops + 1):
            if cap is None:
                self._run("expand-level-uncapped", depth=depth, **binds)
            else:
                self._run("expand-level", depth=depth, cap=cap, **binds)
            reached = self._run("count-level", depth=depth).fetchall()
            if not reached:
                return
            full: list[dict[str, Any]] = []
            for root_no, count in sorted(reached):
                before = counts.get(root_no, 0)
                counts[root_no] = before + int(count)
                if cap is not None and counts[root_no] >= cap:
                    full.append({"root_no": root_no, "depth": depth, "keep": cap - before})
            if full:
                self._run_many("trim-traversal-root", full)
                self._run_many("close-traversal-root", [{"root_no": f["root_no"]} for f in full])
                open_roots -= len(full)
            if open_roots == 0:
                return

    def _grow_levels(
        self, root_ids: Sequence[str], binds: dict[str, Any], num_hops: int, cap: int | None
    ) -> None:
        """Fill the work tables one level per ``expand-level-keep`` (see traverse.sql).

        The level's candidates are kept by an upsert (the earliest parent link per
        root and node). Without a cap the loop ends when a level writes no row (the
        statement's row count: inserted or improved rows). With one, each root has
        a quota (``cap`` minus the nodes it holds), :meth:`_bound_level` first
        limits the links each frontier node is read up to, and a root over its
        quota keeps the first ones in rank order and closes; the loop ends when
        every root is full or a level reaches nothing.
        """
        for name in ("reset-traversal-reached", "reset-traversal-roots", "reset-traversal-level"):
            self._run(name)
        roots = [{"root_id": r} for r in root_ids]
        self._run_many("insert-traversal-root", roots)
        self._run_many("open-traversal-root", roots)
        quota: dict[int, int] = {}
        frontier: dict[int, int] = {}
        for depth in range(1, num_hops + 1):
            if cap is not None:
                self._bound_level(depth, binds, quota, frontier, cap)
            written = self._run("expand-level-keep", depth=depth, **binds).rowcount
            if cap is None:  # no quota to count against
                if not written:
                    return
            else:
                reached = self._run("count-level-nodes").fetchall()
                if not reached:
                    return
                self._fill_quotas(quota, reached, cap)
                frontier = {int(r): int(c) for r, c in reached}
            self._run("move-level", depth=depth)
            self._run("reset-traversal-level")
            if cap is not None and len(quota) >= len(roots) and not any(quota.values()):
                return

    def _bound_level(
        self,
        depth: int,
        binds: dict[str, Any],
        quota: dict[int, int],
        frontier: dict[int, int],
        cap: int,
    ) -> None:
        """Bound the links read from each frontier node of a capped level.

        When each open root's frontier is wide against its quota, a first pass
        keeps the candidates of the first ``probe`` links of every frontier node
        (``probe-level``, ``expand-level-keep``); a root that already has its quota
        then needs no link ranked after its quota-th kept one, over all its
        frontier nodes (``bound-level-root``). ``bound-level`` then bounds the
        frontier nodes that still have ``quota`` links below that (the hubs). From
        the second level on, a root absent from ``quota`` reached nothing at the
        first: it has no frontier.
        """
        if depth == 1:  # each root's frontier is itself
            self._run("bound-level", depth=depth, quota=cap, **binds)
            return
        open_roots = {r: q for r, q in quota.items() if q > 0}
        probes = [
            {"root_no": r, "probe": _probe_links(q, frontier.get(r, 0)), "depth": depth}
            for r, q in open_roots.items()
        ]
        if any(p["probe"] for p in probes):
            self._run_many("probe-level", probes)
            self._run("expand-level-keep", depth=depth, **binds)
            self._run_many(
                "bound-level-root",
                [{"root_no": r, "keep": q, "depth": depth} for r, q in open_roots.items()],
            )
        self._run("bound-level", depth=depth, quota=max(quota.values()), **binds)

    def _fill_quotas(
        self, quota: dict[int, int], reached: Sequence[Sequence[Any]], cap: int
    ) -> None:
        """Trim and close the roots whose level reached their remaining quota."""
        full: list[dict[str, Any]] = []
        trims: list[dict[str, Any]] = []
        for root_no, count in sorted(reached, key=lambda r: int(r[0])):
            left = quota.get(root_no, cap)
            if int(count) >= left:
                if int(count) > left:
                    trims.append({"root_no": root_no, "keep": left})
                full.append({"root_no": root_no})
                quota[root_no] = 0
            else:
                quota[root_no] = left - int(count)
        if trims:
            self._run_many("trim-level-root", trims)
        if full:
            self._run_many("close-traversal-root", full)


PROBE_SHARE = 3
"""A probing pass reads about this many times a root's quota of links."""
PROBE_MOST = 8
"""Probe only when that needs at most this many links per frontier node."""


def _probe_links(quota: int, frontier: int) -> int:
    """Links per frontier node for a root's first pass of a level, 0 for none: enough
    that the root reads about ``PROBE_SHARE`` times its quota over its frontier (the
    nodes it reached at the previous level; with none it reaches nothing more)."""
    need = -(-PROBE_SHARE * quota // frontier) if frontier else 0
    return need if need <= PROBE_MOST else 0


def _json_numbers(numbers: Iterable[int]) -> str:
    """Integers as a JSON array, in ascending order."""
    return "[" + ",".join(map(str, sorted(numbers))) + "]"


class GcPaused:
    """Hold off CPython's cyclic garbage collector while a traversal runs (its
    levels, which allocate little, and the read-back, which builds the result
    objects), and let it run again afterwards (only if it ran before).

    A read-back of N tree rows makes about 3N objects that the collector tracks
    (the entries, the nodes, the relations) and that all stay alive: each young
    collection during the loop examines them in vain and moves them to the oldest
    generation, and once enough have moved, CPython collects the whole heap,
    however large the application's own heap is. None of these objects can be in
    a reference cycle, so pausing loses nothing: the allocations still count, and
    the next collection after the pause runs as usual. While paused, garbage that
    other threads make in cycles waits until the pause ends. A thread that calls
    ``gc.disable()`` during the pause sees it undone at the pause's end; one that
    disabled the collector before stays as it was (nothing is re-enabled then).
    """

    __slots__ = ("_was_enabled",)

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        if self._was_enabled:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_enabled:
            gc.enable()
