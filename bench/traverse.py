"""Benchmark the linked-context tree (docs/semantics.md section 3) of the SQLite store.

For each size ``N:M`` the cached store of :mod:`bench.generate` is opened once
and, for 1, 2, 3 and 5 hops, 1 and 10 roots, ``max_linked_results`` 100 and
unlimited, the tree is timed on

* ``store``: ``SqliteStore.linked_context(...)`` fully consumed into a list (warm;
  the rows compared are made from its result afterwards, untimed, as the other
  methods' are);
* ``networkx``: :func:`graphmem.core.tree.shortest_path_tree` over a
  ``networkx.MultiGraph`` of the links (built once, timed apart);
* ``csr``: a numpy breadth-first search over CSR arrays with the same tie rule,
  the in-memory lower bound (it returns integer arrays; turning them into ids is
  not timed);
* ``pathenum``: the reference system's single statement (:mod:`bench.pathenum`:
  one SELECT per depth over vertex-simple paths, then ROW_NUMBER for the
  shortest stable parent and the cap) on a second connection to the same file.
  It is interrupted after ``--pathenum-timeout`` seconds and reported as a
  timeout; a root set that timed out at some hops is not tried at more hops
  (the statement at H+1 hops contains the one at H).

Every query's rows ``(root, order, node, parent, relation_id, depth)`` must be
identical on all methods that finish; the run stops with an error otherwise.
``--profile`` also times each statement of the store's level-by-level expansion
(5 hops, 10 roots, best of three), splits the query's time into the statements
(execute and fetch), the assembly of the result objects (``linked_nodes``) and
the Python around them, each also per returned row, and prints the query plan of
the level statement (``expand-level-keep``).

    python -m bench.traverse --sizes 10000:30000,100000:300000,1000000:3000000 \
        --repeat 3 --repeat-unlimited 1 --root-sets 3
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from bench.generate import NOW, PREFIX, ensure_store
from bench.pathenum import PathenumTimeout, pathenum_rows
from graphmem.core.assemble import LinkedNode
from graphmem.core.tree import Neighbor, shortest_path_tree
from graphmem.core.validation import SearchFilters, format_time, parse_time
from graphmem.models import SchemaPolicy
from graphmem.stores import sql_traversal
from graphmem.stores.sqlite import SqliteStore

__all__ = ["CsrTree", "Graph", "load_graph", "main"]

RESULTS = Path(__file__).resolve().parent / "results" / "traverse.json"
HOPS = 5
"""Hops of the ``--profile`` run."""
Row = tuple[str, int, str, str, str, int]
"""(root, order within the root's tree, node, parent, relation_id, depth)"""
IntArray = npt.NDArray[np.int64]


@dataclass
class Graph:
    """The store's memories and links as arrays (ids mapped to 0..N-1)."""

    ids: list[str]
    index: dict[str, int]
    users: list[str | None]
    record_types: list[str]
    expires: list[str | None]
    allowed: npt.NDArray[np.bool_]
    rel_ids: list[str]
    created: list[str]
    src: IntArray
    tgt: IntArray
    indptr: IntArray
    """CSR over both link directions; a node's neighbours sorted by link rank."""
    nbr: IntArray
    nbr_link: IntArray
    """The link (index into ``rel_ids``) of each CSR entry."""
    nbr_rank: IntArray
    """Rank of that link by ``(created_at, relation_id)``: the tie rule."""


def load_graph(path: Path, now: str) -> Graph:
    """Read the store into arrays once."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    mem = conn.execute(
        f"SELECT record_id, user_id, expires_at, record_type FROM {PREFIX}_memory"
    ).fetchall()
    ids = [r[0] for r in mem]
    index = {r: i for i, r in enumerate(ids)}
    allowed = np.fromiter((r[2] is None or r[2] > now for r in mem), dtype=bool, count=len(mem))
    links = conn.execute(
        f"SELECT relation_id, source_id, target_id, created_at FROM {PREFIX}_link"
    ).fetchall()
    conn.close()
    rel_ids = [r[0] for r in links]
    created = [r[3] for r in links]
    src = np.fromiter((index[r[1]] for r in links), dtype=np.int64, count=len(links))
    tgt = np.fromiter((index[r[2]] for r in links), dtype=np.int64, count=len(links))
    order = np.lexsort((np.array(rel_ids), np.array(created)))
    rank = np.empty(len(links), dtype=np.int64)
    rank[order] = np.arange(len(links))
    # both directions, grouped by the near end, each group in rank order
    near = np.concatenate((src, tgt))
    far = np.concatenate((tgt, src))
    link = np.concatenate((np.arange(len(links)), np.arange(len(links))))
    lrank = rank[link]
    csr = np.lexsort((lrank, near))
    indptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(near, minlength=len(ids)), out=indptr[1:])
    return Graph(
        ids=ids,
        index=index,
        users=[r[1] for r in mem],
        record_types=[r[3] for r in mem],
        expires=[r[2] for r in mem],
        allowed=allowed,
        rel_ids=rel_ids,
        created=created,
        src=src,
        tgt=tgt,
        indptr=indptr,
        nbr=far[csr],
        nbr_link=link[csr],
        nbr_rank=lrank[csr],
    )


class CsrTree:
    """Breadth-first search over the CSR arrays, level at a time, in numpy."""

    def __init__(self, g: Graph) -> None:
        self.g = g
        self.seen = np.zeros(len(g.ids), dtype=bool)

    def tree(self, root: int, hops: int, cap: int | None) -> tuple[IntArray, ...]:
        """``(node, parent, link, depth)`` arrays in rank order, capped."""
        g, seen = self.g, self.seen
        seen[root] = True
        touched = [np.array([root])]
        out: list[tuple[IntArray, ...]] = []
        total = 0
        frontier = np.array([root], dtype=np.int64)
        for depth in range(1, hops + 1):
            starts = g.indptr[frontier]
            counts = g.indptr[frontier + 1] - starts
            size = int(counts.sum())
            if size == 0:
                break
            offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
            pos = offsets + np.arange(size)
            node = g.nbr[pos]
            keep = ~seen[node] & g.allowed[node]
            if not keep.any():
                break
            pos = pos[keep]
            node = node[keep]
            parent = np.repeat(frontier, counts)[keep]
            rank = g.nbr_rank[pos]
            # each link appears once per level, so the min rank picks the parent
            by_rank = np.argsort(rank, kind="stable")
            _, first = np.unique(node[by_rank], return_index=True)
            pick = by_rank[np.sort(first)]
            node = node[pick]
            seen[node] = True
            touched.append(node)
            level = (node, parent[pick], g.nbr_link[pos[pick]], np.full(node.shape[0], depth))
            out.append(level)
            total += node.shape[0]
            if cap is not None and total >= cap:
                break
            frontier = node
        for t in touched:
            seen[t] = False
        if not out:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
        cols = tuple(np.concatenate(c) for c in zip(*out, strict=True))
        return cols if cap is None else tuple(c[:cap] for c in cols)


def csr_rows(g: Graph, root: int, cols: tuple[IntArray, ...]) -> list[Row]:
    node, parent, link, depth = (c.tolist() for c in cols)
    r = g.ids[root]
    return [
        (r, k, g.ids[node[k]], g.ids[parent[k]], g.rel_ids[link[k]], depth[k])
        for k in range(len(node))
    ]


def build_model(g: Graph, with_model: bool) -> Any:
    """The networkx graph of the links, inside a ReferenceModel when one exists.

    ``graphmem.testing.model.ReferenceModel`` checks link conflicts in O(M) per
    ``add_link``, so its dicts and graph are filled directly here.
    """
    try:
        if not with_model:
            raise ImportError
        from graphmem.testing.model import ModelLink, ModelMemory, ReferenceModel
    except ImportError:
        model = None
        graph = nx.MultiGraph()
    else:
        model = ReferenceModel()
        graph = model.graph
        for i, rid in enumerate(g.ids):
            model.memories[rid] = ModelMemory(
                record_id=rid,
                record_type=g.record_types[i],
                content="",
                user_id=g.users[i],
                created_at=NOW,
                expires_at=None if g.expires[i] is None else parse_time(g.expires[i]),
            )
        src, tgt = g.src.tolist(), g.tgt.tolist()
        for j, rel in enumerate(g.rel_ids):
            model.links[rel] = ModelLink(
                relation_id=rel,
                source=g.ids[src[j]],
                target=g.ids[tgt[j]],
                relation_type="",
                opposite="",
                created_at=parse_time(g.created[j]),
            )
    graph.add_nodes_from(g.ids)
    src, tgt = g.src.tolist(), g.tgt.tolist()
    graph.add_edges_from((g.ids[src[j]], g.ids[tgt[j]], g.rel_ids[j]) for j in range(len(src)))
    return model, graph


def nx_functions(
    graph: nx.MultiGraph, g: Graph
) -> tuple[Callable[[str], list[Neighbor]], Callable[[str], bool]]:
    """The neighbour and filter functions of :func:`shortest_path_tree` over ``graph``."""
    adj = graph.adj
    created = dict(zip(g.rel_ids, g.created, strict=True))
    blocked = {g.ids[i] for i in np.flatnonzero(~g.allowed).tolist()}

    def neighbors(node: str) -> list[Neighbor]:
        return [
            Neighbor(created[key], key, other)
            for other, keyed in adj[node].items()
            for key in keyed
        ]

    return neighbors, lambda node: node not in blocked


def pick_roots(g: Graph, seed: int, sets: int, per_set: int) -> list[list[str]]:
    """Root sets of one user each, roots having >= 3 reachable neighbours.

    Like the direct results of one user's search: valid-looking, connected
    memories, neither isolated leaves nor only the hubs.
    """
    rng = np.random.default_rng(seed)
    near = np.repeat(np.arange(len(g.ids)), np.diff(g.indptr))
    degree = np.bincount(near, weights=g.allowed[g.nbr], minlength=len(g.ids))
    good = np.flatnonzero((degree >= 3) & g.allowed)
    by_user: dict[str | None, list[int]] = {}
    for i in good.tolist():
        by_user.setdefault(g.users[i], []).append(i)
    out: list[list[str]] = []
    while len(out) < sets:
        first = int(rng.choice(good))
        pool = by_user[g.users[first]]
        others = [int(x) for x in rng.choice(pool, size=min(per_set, len(pool)), replace=False)]
        chosen = [first, *[o for o in others if o != first][: per_set - 1]]
        out.append([g.ids[i] for i in chosen])
    return out


def store_rows(
    store: SqliteStore, roots: Sequence[str], filters: SearchFilters, hops: int, cap: int | None
) -> list[Row]:
    return linked_rows(store.linked_context(roots, filters, hops, cap))


def linked_rows(items: Iterable[LinkedNode]) -> list[Row]:
    """The rows to compare of a store's linked context (built outside the timing,
    as the other methods' rows are)."""
    rows: list[Row] = []
    order: dict[str, int] = {}
    for item in items:
        k = order.get(item.root_id, 0)
        order[item.root_id] = k + 1
        e = item.entry
        rows.append((item.root_id, k, e.node, e.parent, e.relation_id, e.depth))
    return rows


def _median_ms(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    result = fn()  # warm-up, and the rows to compare
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(times), result


def _pathenum_ms(
    conn: sqlite3.Connection,
    roots: Sequence[str],
    now: str,
    hops: int,
    cap: int | None,
    repeat: int,
    timeout_s: float,
) -> tuple[float, list[Row] | None]:
    """Median ms of the path-enumeration statement, or ``(inf, None)`` on a timeout.

    Like :func:`_median_ms` (one warm-up whose rows are returned), but each run
    has the time budget, the first timeout ends the repeats, and a warm-up over
    one second is followed by a single timed run.
    """
    try:
        t = time.perf_counter()
        rows = pathenum_rows(conn, roots, now, hops, cap, timeout_s, PREFIX)
        warm = time.perf_counter() - t
        times = []
        for _ in range(1 if warm > 1.0 else repeat):
            t = time.perf_counter()
            pathenum_rows(conn, roots, now, hops, cap, timeout_s, PREFIX)
            times.append((time.perf_counter() - t) * 1000.0)
    except PathenumTimeout:
        return math.inf, None
    return statistics.median(times), rows


def _check(label: str, expected: list[Row], got: list[Row]) -> None:
    if sorted(expected) == sorted(got):
        return
    a, b = set(expected), set(got)
    raise SystemExit(
        f"MISMATCH {label}: {len(expected)} store rows vs {len(got)}; "
        f"only in store {sorted(a - b)[:3]}, only in other {sorted(b - a)[:3]}"
    )


class _TimedConnection:
    """Stands in for a store's ``sqlite3`` connection and times every statement."""

    def __init__(self, conn: sqlite3.Connection, names: dict[str, str]) -> None:
        self._conn = conn
        self._names = names
        self.steps: list[list[Any]] = []
        self.calls: list[tuple[str, Any]] = []

    def _step(self, sql: str, binds: Any) -> list[Any]:
        name = self._names.get(sql, " ".join(sql.split())[:40])
        if isinstance(binds, dict) and "depth" in binds:
            name += f"@{binds['depth']}"
        step = [name, 0.0, 0]
        self.steps.append(step)
        self.calls.append((sql, binds))
        return step

    def execute(self, sql: str, binds: Any = ()) -> Any:
        step = self._step(sql, binds)
        t = time.perf_counter()
        cursor = self._conn.execute(sql, binds)
        step[1] += (time.perf_counter() - t) * 1000.0
        return _TimedCursor(cursor, step)

    def executemany(self, sql: str, rows: Any) -> Any:
        step = self._step(sql, None)
        t = time.perf_counter()
        cursor = self._conn.executemany(sql, rows)
        step[1] += (time.perf_counter() - t) * 1000.0
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class _TimedCursor:
    def __init__(self, cursor: sqlite3.Cursor, step: list[Any]) -> None:
        self._cursor, self._step = cursor, step

    def _timed(self, fn: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        out = fn()
        self._step[1] += (time.perf_counter() - t) * 1000.0
        if isinstance(out, list):
            self._step[2] += len(out)
        return out

    def fetchall(self) -> list[Any]:
        return self._timed(self._cursor.fetchall)  # type: ignore[no-any-return]

    def fetchone(self) -> Any:
        return self._timed(self._cursor.fetchone)

    def __iter__(self) -> Any:
        return iter(self.fetchall())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


def profile_store(store: SqliteStore, roots: Sequence[str], cap: int | None) -> dict[str, Any]:
    """Time each statement the store runs for one query (best of 3), and plan its level."""
    names = {stmt.sql: name for name, stmt in store._sql.items()}
    names.update({stmt.sql: name for name, stmt in store._pgq.items()})  # the level statements
    filters = SearchFilters(now=NOW)
    real = store._conn
    assemble = sql_traversal.linked_nodes
    assembly: list[float] = []

    def timed_assembly(*args: Any) -> Any:
        t = time.perf_counter()
        out = assemble(*args)
        assembly.append((time.perf_counter() - t) * 1000.0)
        return out

    best: dict[str, Any] = {}
    try:
        sql_traversal.linked_nodes = timed_assembly  # type: ignore[assignment]
        for _ in range(3):
            timed = _TimedConnection(real, names)
            store._conn = timed  # type: ignore[assignment]
            assembly.clear()
            t = time.perf_counter()
            rows = list(store.linked_context(roots, filters, HOPS, cap))
            total = (time.perf_counter() - t) * 1000.0
            if not best or total < best["total_ms"]:
                statements = sum(step[1] for step in timed.steps)
                best = {
                    "total_ms": total,
                    "rows": len(rows),
                    "steps": timed.steps,
                    "calls": timed.calls,
                    "split_ms": {
                        "statements": statements,
                        "assembly": sum(assembly),
                        "rest": total - statements - sum(assembly),
                    },
                }
    finally:
        store._conn = real
        sql_traversal.linked_nodes = assemble  # type: ignore[assignment]
    calls = best.pop("calls")
    plan: list[str] = []
    for sql, binds in calls:
        if names.get(sql) in ("expand-level", "expand-level-uncapped", "expand-level-keep"):
            rows = real.execute("EXPLAIN QUERY PLAN " + sql, binds).fetchall()
            plan = [f"{r[0]}|{r[1]}|{r[3]}" for r in rows]
            break
    best["plan"] = plan
    return best


def bench_size(
    n: int,
    m: int,
    seed: int,
    repeat: int,
    repeat_all: int,
    sets: int,
    model_sets: int,
    model_max: int,
    profile: bool,
    hops_list: Sequence[int],
    pathenum_timeout: float,
) -> dict[str, Any]:
    path = ensure_store(n, m, seed)
    now = format_time(NOW)
    t = time.perf_counter()
    g = load_graph(path, now)
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    model, graph = build_model(g, with_model=model_sets > 0 and n <= model_max)
    nx_build_s = time.perf_counter() - t
    neighbors, allowed = nx_functions(graph, g)
    model_filters = None
    if model is not None:
        from graphmem.testing.model import ModelFilters

        model_filters = ModelFilters(now=NOW)
    print(
        f"\n== N={n} M={m}: arrays loaded in {load_s:.1f} s, "
        f"networkx graph built in {nx_build_s:.1f} s",
        file=sys.stderr,
    )
    store = SqliteStore(path, PREFIX, SchemaPolicy.REQUIRE_EXISTING)
    filters = SearchFilters(now=NOW)
    pe_conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    csr = CsrTree(g)
    root_sets = pick_roots(g, seed, sets, 10)
    results: list[dict[str, Any]] = []
    # (root set, roots, cap) whose path enumeration timed out at fewer hops
    timed_out: set[tuple[int, int, int | None]] = set()
    print(HEADER, file=sys.stderr)
    for hops in hops_list:
        for count in (1, 10):
            for cap in (100, None):
                timings: dict[str, list[float]] = {
                    "store": [],
                    "networkx": [],
                    "csr": [],
                    "pathenum": [],
                    "model": [],
                }
                nodes: list[int] = []
                reps = repeat if cap is not None else repeat_all
                for number, roots in enumerate(root_sets):
                    roots = roots[:count]
                    ints = [g.index[r] for r in roots]
                    label = f"hops={hops} roots={roots} cap={cap}"
                    ms, result = _median_ms(
                        lambda: list(store.linked_context(roots, filters, hops, cap)),  # noqa: B023
                        reps,
                    )
                    expected = linked_rows(result)
                    timings["store"].append(ms)
                    ms, trees = _median_ms(
                        lambda: [
                            shortest_path_tree(r, neighbors, hops, cap, allowed)  # noqa: B023
                            for r in roots  # noqa: B023
                        ],
                        reps,
                    )
                    timings["networkx"].append(ms)
                    got = [
                        (r, k, e.node, e.parent, e.relation_id, e.depth)
                        for r, tree in zip(roots, trees, strict=True)
                        for k, e in enumerate(tree)
                    ]
                    _check(f"networkx {label}", expected, got)
                    ms, cols = _median_ms(
                        lambda: [csr.tree(i, hops, cap) for i in ints],  # noqa: B023
                        reps,
                    )
                    timings["csr"].append(ms)
                    got = [
                        row for i, c in zip(ints, cols, strict=True) for row in csr_rows(g, i, c)
                    ]
                    _check(f"csr {label}", expected, got)
                    key = (number, count, cap)
                    if key in timed_out:
                        timings["pathenum"].append(math.inf)
                    else:
                        ms, pe = _pathenum_ms(
                            pe_conn, roots, now, hops, cap, reps, pathenum_timeout
                        )
                        timings["pathenum"].append(ms)
                        if pe is None:
                            timed_out.add(key)
                        else:
                            _check(f"pathenum {label}", expected, pe)
                    nodes.append(len(expected))
                    if model is not None and number < model_sets:
                        # ReferenceModel.tree: O(N) subgraph per root, so timed once
                        t = time.perf_counter()
                        trees = [model.tree(r, model_filters, hops, cap) for r in roots]
                        timings["model"].append((time.perf_counter() - t) * 1000.0)
                        got = [
                            (r, k, e.node, e.parent, e.relation_id, e.depth)
                            for r, tree in zip(roots, trees, strict=True)
                            for k, e in enumerate(tree)
                        ]
                        _check(f"ReferenceModel {label}", expected, got)
                med = {k: statistics.median(v) for k, v in timings.items() if v}
                results.append(
                    {
                        "memories": n,
                        "links": m,
                        "hops": hops,
                        "roots": count,
                        "cap": cap,
                        "median_ms": {k: (None if math.isinf(v) else v) for k, v in med.items()},
                        "per_root_set_ms": {
                            k: [None if math.isinf(x) else x for x in v] for k, v in timings.items()
                        },
                        "pathenum_timeouts": sum(math.isinf(x) for x in timings["pathenum"]),
                        "rows_median": statistics.median(nodes),
                        "store_over_csr": med["store"] / med["csr"],
                        "store_over_networkx": med["store"] / med["networkx"],
                        "pathenum_over_store": (
                            None if math.isinf(med["pathenum"]) else med["pathenum"] / med["store"]
                        ),
                    }
                )
                print(_row(results[-1]), file=sys.stderr, flush=True)
    pe_conn.close()
    profile = (
        {str(cap): profile_store(store, root_sets[0], cap) for cap in (100, None)}
        if profile
        else None
    )
    store.close()
    out: dict[str, Any] = {
        "memories": n,
        "links": m,
        "seed": seed,
        "store_file": str(path),
        "load_arrays_s": load_s,
        "networkx_build_s": nx_build_s,
        "queries": results,
        "root_sets": root_sets,
    }
    if profile:
        out["profile"] = profile
    del graph
    return out


HEADER = (
    f"{'hops':>4} {'roots':>5} {'cap':>5} {'rows':>7} {'store ms':>9} {'nx ms':>9} "
    f"{'csr ms':>8} {'pathenum ms':>11} {'st/csr':>7} {'st/nx':>6} {'pe/st':>7} {'model ms*':>10}"
)


def _ms(value: float | None) -> str:
    return "timeout" if value is None else f"{value:.2f}"


def _row(q: dict[str, Any]) -> str:
    med = q["median_ms"]
    cap = "all" if q["cap"] is None else str(q["cap"])
    pe = _ms(med["pathenum"])
    if q["pathenum_timeouts"] and med["pathenum"] is not None:
        pe += "+"  # the median finished, but some root sets timed out
    ratio = q["pathenum_over_store"]
    model = med.get("model")
    return (
        f"{q['hops']:>4} {q['roots']:>5} {cap:>5} {q['rows_median']:>7.0f} "
        f"{med['store']:>9.2f} {med['networkx']:>9.2f} {med['csr']:>8.2f} {pe:>11} "
        f"{q['store_over_csr']:>7.1f} {q['store_over_networkx']:>6.2f} "
        f"{'-' if ratio is None else f'{ratio:.1f}':>7} "
        f"{'-' if model is None else f'{model:.1f}':>10}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000:300000", help="comma-separated N:M pairs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per query (after a warm-up)"
    )
    parser.add_argument(
        "--repeat-unlimited", type=int, default=1, help="timed runs of the uncapped queries"
    )
    parser.add_argument("--root-sets", type=int, default=5, help="distinct root sets per size")
    parser.add_argument(
        "--model-sets",
        type=int,
        default=1,
        help="root sets also checked (and timed once) with ReferenceModel.tree",
    )
    parser.add_argument(
        "--model-max-memories",
        type=int,
        default=200_000,
        help="skip ReferenceModel.tree above this N (it is O(N) per root)",
    )
    parser.add_argument("--hops", default="1,2,3,5", help="comma-separated num_hops values")
    parser.add_argument(
        "--pathenum-timeout",
        type=float,
        default=10.0,
        help="seconds before a path-enumeration query is interrupted (reported as timeout)",
    )
    parser.add_argument("--profile", action="store_true", help="time each store statement")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    sizes = [tuple(int(x) for x in s.split(":")) for s in args.sizes.split(",")]
    hops_list = [int(h) for h in args.hops.split(",")]
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "hops": hops_list,
        "pathenum_timeout_s": args.pathenum_timeout,
        "repeat": args.repeat,
        "repeat_unlimited": args.repeat_unlimited,
        "root_sets": args.root_sets,
        "sizes": [],
    }
    for n, m in sizes:
        report["sizes"].append(
            bench_size(
                n,
                m,
                args.seed,
                args.repeat,
                args.repeat_unlimited,
                args.root_sets,
                args.model_sets,
                args.model_max_memories,
                args.profile,
                hops_list,
                args.pathenum_timeout,
            )
        )
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
    print(
        "\nmedian milliseconds per query over the root sets (rows = tree nodes returned; "
        f"pathenum: timeout = over {args.pathenum_timeout:g} s, + = some root sets timed out; "
        "model* = ReferenceModel.tree, one cold run on the first --model-sets root sets)"
    )
    for size in report["sizes"]:
        print(f"\nN={size['memories']} memories, M={size['links']} links")
        print(HEADER)
        for q in size["queries"]:
            print(_row(q))
    for size in report["sizes"]:
        for cap, prof in size.get("profile", {}).items():
            print(
                f"\nprofile N={size['memories']} 10 roots cap={cap}: "
                f"{prof['total_ms']:.1f} ms, {prof['rows']} rows"
            )
            for name, ms, rows in prof["steps"]:
                print(f"  {name:<28} {ms:8.2f} ms  {rows} rows")
            per_row = 1000.0 / max(prof["rows"], 1)
            labels = {
                "statements": "statements (execute and fetch)",
                "assembly": "assembly (linked_nodes)",
                "rest": "Python between the statements",
            }
            for part, ms in prof["split_ms"].items():
                print(
                    f"  {labels[part]:<34} {ms:8.2f} ms  {100 * ms / prof['total_ms']:5.1f}%"
                    f"  {ms * per_row:6.2f} us/row"
                )
            print("  plan of the level statement:\n    " + "\n    ".join(prof["plan"]))
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
