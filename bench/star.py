"""Benchmark a hub: one memory linked to ``--leaves`` memories (a star).

The search is ``search(max_results=20, num_hops=2)`` on the star, as the store
runs it: ``SqliteStore.linked_context`` for 20 roots (the hub and 19 leaves).
Each leaf root reaches the hub at depth 1 and, through it, every other leaf at
depth 2, so without a bound every level would read all the hub's links once per
root. Reported per cap (``--caps``, default 100 and 1000000000; ``none`` for no
cap): the median
wall time of ``--repeat`` warm runs, the rows, and the peak Python heap
(``tracemalloc``) and process RSS growth of one run. Every run's rows
``(root, order, node, parent, relation_id, depth)`` must equal the reference
model's (:class:`graphmem.testing.model.ReferenceModel`); the run stops with
``MISMATCH`` otherwise.

Link times take 60 distinct values and relation ids are a permutation of the
leaf order, so the tie rule (created_at, relation_id) decides which leaves are
kept. The store is cached in ``bench/data/star-n{leaves}.db``::

    python -m bench.star --leaves 100000 --caps 100,1000000000 --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import sqlite3
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench.generate import DATA_DIR, NOW, PREFIX
from bench.traverse import Row, _check, build_model, load_graph, store_rows
from graphmem.core.validation import SearchFilters, format_time
from graphmem.stores.sqlite import SqliteStore

__all__ = ["build_star", "main"]

RESULTS = Path(__file__).resolve().parent / "results" / "star.json"
HOPS = 2
ROOTS = 20
T0 = "2024-01-01T00:00:00.000000+00:00"


def _leaf(i: int) -> str:
    return f"leaf{i:07d}"


def build_star(leaves: int) -> Path:
    """The cached star store with ``leaves`` leaves (written when missing)."""
    path = DATA_DIR / f"star-n{leaves}.db"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    SqliteStore(tmp, PREFIX).close()  # the schema, exactly as the library creates it
    conn = sqlite3.connect(tmp, isolation_level=None)
    conn.execute("BEGIN")
    conn.execute(
        f"INSERT OR REPLACE INTO {PREFIX}_meta (meta_key, meta_value) VALUES ('embedding_dim', '4')"
    )
    vector = bytes(16)
    conn.executemany(
        f"INSERT INTO {PREFIX}_memory (record_id, record_type, content, status, created_at, "
        "embedding) VALUES (?, 'memory', ?, 'valid', ?, ?)",
        [("hub", "the hub", T0, vector)]
        + [(_leaf(i), f"leaf {i}", T0, vector) for i in range(leaves)],
    )
    links = []
    for i in range(leaves):
        ends = ("hub", _leaf(i)) if i % 2 else (_leaf(i), "hub")
        created = f"2024-01-02T00:00:{(i * 31) % 60:02d}.000000+00:00"
        links.append((f"r{(i * 7919) % leaves:07d}", *ends, created))
    conn.executemany(
        f"INSERT INTO {PREFIX}_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, 'supports', 'is_supported_by', ?)",
        links,
    )
    conn.execute("COMMIT")
    conn.close()
    tmp.rename(path)
    return path


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


HEADER = f"{'cap':>10} {'rows':>8} {'first ms':>9} {'median ms':>10} {'heap MB':>8} {'rss+ MB':>8}"


def bench_cap(
    store: SqliteStore, roots: list[str], cap: int | None, repeat: int, expected: list[Row]
) -> dict[str, Any]:
    filters = SearchFilters(now=NOW)
    gc.collect()
    rss_before = _rss_mb()
    tracemalloc.start()
    t = time.perf_counter()
    rows = store_rows(store, roots, filters, HOPS, cap)
    first_ms = (time.perf_counter() - t) * 1000.0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_growth = _rss_mb() - rss_before
    _check(f"ReferenceModel cap={cap}", rows, expected)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        store_rows(store, roots, filters, HOPS, cap)
        times.append((time.perf_counter() - t) * 1000.0)
    return {
        "cap": cap,
        "rows": len(rows),
        "first_ms": first_ms,
        "median_ms": statistics.median(times) if times else first_ms,
        "python_peak_mb": peak / 2**20,
        "rss_growth_mb": rss_growth,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=100_000)
    parser.add_argument(
        "--caps", default="100,1000000000", help="comma-separated caps ('none': no cap)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed warm runs per cap")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    t = time.perf_counter()
    path = build_star(args.leaves)
    g = load_graph(path, format_time(NOW))
    model, _ = build_model(g, with_model=True)
    print(f"star of {args.leaves} leaves ready in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    from graphmem.testing.model import ModelFilters

    roots = ["hub"] + [_leaf(i * (args.leaves // ROOTS)) for i in range(1, ROOTS)]
    store = SqliteStore(path, PREFIX)  # a file of an older schema is upgraded here
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "leaves": args.leaves,
        "roots": len(roots),
        "hops": HOPS,
        "results": [],
    }
    print(HEADER)
    for cap in (None if c == "none" else int(c) for c in args.caps.split(",")):
        t = time.perf_counter()
        filters = ModelFilters(now=NOW)
        expected = [
            (r, k, e.node, e.parent, e.relation_id, e.depth)
            for r in roots
            for k, e in enumerate(model.tree(r, filters, HOPS, cap))
        ]
        model_s = time.perf_counter() - t
        small = cap is not None and cap <= 10_000
        out = bench_cap(store, roots, cap, args.repeat if small else 0, expected)
        out["model_s"] = model_s
        report["results"].append(out)
        print(
            f"{cap or 'none':>10} {out['rows']:>8} {out['first_ms']:>9.1f} "
            f"{out['median_ms']:>10.1f} {out['python_peak_mb']:>8.1f} {out['rss_growth_mb']:>8.1f}",
            flush=True,
        )
    store.close()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1))
    print(f"rows equal the reference model for every cap; wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
