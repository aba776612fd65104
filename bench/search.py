"""Exact top-10 under a user filter: GraphMemory.search against numpy and sqlite-vec.

A store of N memories (default 100k) with random 384-dimensional unit vectors,
spread over 100 users, is written through ``GraphMemory.add_memories`` (an
embedder that returns the prepared vectors). Each query picks a user and a
random unit vector and asks for the 10 nearest of that user's memories:

* ``graphmem``: ``GraphMemory.search(..., user_id=u, max_results=10)``, with an
  embedder returning the query vector (no embedding cost), ``num_hops=0``;
  the store scores over its in-process copy of the embeddings (vector cache);
* ``graphmem-nocache``: the same search on a second handle of the same file
  opened with ``SqliteStore(vector_cache=False)``, which reads every candidate's
  embedding BLOB from the file (the store before the cache);
* ``numpy``: brute force over the in-memory matrix, rows of user u, float64
  cosine distance, ties by id (the lower bound: no I/O at all);
* ``sqlite-vec``: ``vec_distance_cosine(embedding, :q)`` over the same rows of
  the same file, through apsw, ``ORDER BY distance, record_id LIMIT 10``.

All methods must return the same ids for every query. Medians over ``--queries``
queries, after one warm-up query each.

    python -m bench.search --n 100000 --queries 50
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem import GraphMemory
from graphmem.stores.sqlite import SqliteStore

RESULTS = Path(__file__).resolve().parent / "results" / "search.json"
DIM = 384
USERS = 100
K = 10
Vectors = npt.NDArray[np.float32]


class TableEmbedder:
    """Content ``"m<i>"`` embeds to row i of a prepared matrix; anything else to ``query``."""

    def __init__(self, vectors: Vectors) -> None:
        self.vectors = vectors
        self.query = vectors[0]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if texts and texts[0].startswith("m"):
            return self.vectors[[int(t[1:]) for t in texts]]
        return np.tile(self.query, (len(texts), 1))


def unit_vectors(rng: np.random.Generator, n: int) -> Vectors:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def build(path: Path, vectors: Vectors, users: list[str]) -> GraphMemory:
    memory = GraphMemory(path, embedder=TableEmbedder(vectors))
    for start in range(0, len(users), 10_000):
        memory.add_memories(
            {"memory_id": f"id{i:07d}", "content": f"m{i}", "user_id": users[i]}
            for i in range(start, min(start + 10_000, len(users)))
        )
    return memory


def numpy_top(vectors: Vectors, users: npt.NDArray[Any], user: str, q: Vectors) -> list[str]:
    rows = np.flatnonzero(users == user)
    m = vectors[rows].astype(np.float64)
    d = 1.0 - (m @ q.astype(np.float64)) / (np.linalg.norm(m, axis=1) * np.linalg.norm(q))
    best = rows[np.argsort(d, kind="stable")[:K]]  # rows are in id order: stable = ties by id
    return [f"id{int(i):07d}" for i in best]


def open_vec(path: Path) -> Any:
    try:
        import apsw
        import sqlite_vec
    except ImportError:
        return None
    conn = apsw.Connection(str(path))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    return conn


VEC_SQL = (
    "SELECT record_id FROM graphmem_memory WHERE user_id = ? "
    "ORDER BY vec_distance_cosine(embedding, ?), record_id LIMIT 10"
)


def peak_rss_mb() -> float:
    """The resident set size now, MiB (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * 4096 / 2**20


def cache_bytes(memory: GraphMemory) -> int:
    store = memory._store  # bench only: the size of the store's vector cache
    cache = getattr(store, "_vectors", None)
    return 0 if cache is None else int(cache.nbytes)


def timed(samples: list[float], call: Callable[[], list[str]]) -> list[str]:
    t0 = time.perf_counter()
    out = call()
    samples.append(time.perf_counter() - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    vectors = unit_vectors(rng, args.n)
    user_list = [f"u{int(u):03d}" for u in rng.integers(0, USERS, args.n)]
    users = np.array(user_list)
    picker = random.Random(args.seed)
    samples: dict[str, list[float]] = {
        "graphmem": [],
        "graphmem-nocache": [],
        "numpy": [],
        "sqlite-vec": [],
    }
    mismatches = 0
    with tempfile.TemporaryDirectory(dir=RESULTS.parent) as tmp:
        path = Path(tmp) / "search.db"
        t0 = time.perf_counter()
        memory = build(path, vectors, user_list)
        build_s = time.perf_counter() - t0
        embedder = memory.embedder
        assert isinstance(embedder, TableEmbedder)
        vec = open_vec(path)
        plain = GraphMemory(
            SqliteStore(path, "graphmem", vector_cache=False), embedder=memory.embedder
        )
        rss0 = peak_rss_mb()
        t0 = time.perf_counter()
        memory.search("query", user_id="u000", max_results=K)  # loads the vector cache
        load_s = time.perf_counter() - t0
        cache_mb = cache_bytes(memory) / 2**20
        rss_gain = peak_rss_mb() - rss0
        for i in range(args.queries + 1):
            user = f"u{picker.randrange(USERS):03d}"
            q = unit_vectors(rng, 1)[0]
            embedder.query = q
            got = {
                "graphmem": timed(
                    samples["graphmem"],
                    lambda user=user: [
                        r.id
                        for r in memory.search("query", user_id=user, max_results=K, num_hops=0)
                    ],
                ),
                "graphmem-nocache": timed(
                    samples["graphmem-nocache"],
                    lambda user=user: [
                        r.id for r in plain.search("query", user_id=user, max_results=K, num_hops=0)
                    ],
                ),
                "numpy": timed(
                    samples["numpy"], lambda q=q, user=user: numpy_top(vectors, users, user, q)
                ),
            }
            if vec is not None:
                got["sqlite-vec"] = timed(
                    samples["sqlite-vec"],
                    lambda q=q, user=user: [
                        r[0] for r in vec.execute(VEC_SQL, (user, q.tobytes()))
                    ],
                )
            if i == 0:  # warm-up
                for v in samples.values():
                    v.clear()
            if len({tuple(ids) for ids in got.values()}) != 1:
                mismatches += 1
        memory.close()
        plain.close()
        if vec is not None:
            vec.close()
    medians = {k: statistics.median(v) * 1000 for k, v in samples.items() if v}
    print(
        f"\nN={args.n:,}, {DIM} dims, {USERS} users (~{args.n // USERS:,} rows per filter), "
        f"top-{K}, {args.queries} queries; store built in {build_s:.1f} s; "
        f"id mismatches: {mismatches}\n"
    )
    print(
        f"vector cache: first search (load) {load_s * 1000:.0f} ms, matrix {cache_mb:.0f} MiB, "
        f"RSS +{rss_gain:.0f} MiB\n"
    )
    print("| method | median ms/query | queries/s | vs numpy |")
    print("|---|---|---|---|")
    for name, ms in medians.items():
        print(f"| {name} | {ms:.2f} | {1000 / ms:,.0f} | {ms / medians['numpy']:.1f}x |")
    RESULTS.write_text(
        json.dumps(
            {
                "machine": {
                    "python": sys.version.split()[0],
                    "sqlite": sqlite3.sqlite_version,
                    "platform": platform.platform(),
                },
                "n": args.n,
                "dim": DIM,
                "users": USERS,
                "queries": args.queries,
                "build_s": build_s,
                "cache_load_s": load_s,
                "cache_mib": cache_mb,
                "median_ms": medians,
                "mismatches": mismatches,
            },
            indent=2,
        )
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
