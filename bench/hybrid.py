"""Hybrid against vector search at 100k memories, side by side in one process.

A store of N memories (default 100k) over 100 users: each memory's content is
twelve words drawn (Zipf-like) from a 5,000-word vocabulary, and its embedding a
random 384-dimensional unit vector (an embedder that returns prepared vectors,
so no embedding cost is timed). Each query is three vocabulary words and a
random unit vector; the same query runs as

* ``vector``: ``GraphMemory.search(q, strategy="vector", max_results=10)``;
* ``keyword``: ``strategy="keyword"`` (FTS5, BM25);
* ``hybrid``: ``strategy="hybrid"`` (both rankings 50 deep, fused);

with a user filter (``user_id=u``, ~1% of the rows) and without one. Prints
medians and the hybrid / vector ratio; writes ``bench/results/hybrid.json``.
Each search is timed twice: wall clock, and the CPU time of the thread running
it (``time.thread_time``), which leaves out the time a search waits while other
processes have the cores (on a loaded machine a longer search is interrupted
more often, inflating wall-clock ratios). numpy's BLAS worker threads, which
share the whole-store matrix product, are not counted: the ``cpu`` column of
the whole-store rows is a lower bound; under a user filter (1,000 rows) numpy
uses the calling thread only.

    python -m bench.hybrid --n 100000 --queries 30

``--db FILE`` keeps the store in FILE and reuses it on later runs, so that two
versions of graphmem can be timed over the same data (one after the other).

``--warm ROUNDS`` times user-filter searches only, with warm caches: the same
queries run once untimed, then ``ROUNDS`` times per strategy (strategy by
strategy, so no whole-store search runs in between); it prints the medians of
all the timed searches.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem import GraphMemory

RESULTS = Path(__file__).resolve().parent / "results" / "hybrid.json"
DIM = 384
USERS = 100
VOCABULARY = 5_000
WORDS = 12
Vectors = npt.NDArray[np.float32]


class TableEmbedder:
    """Content ``"m<i> ..."`` embeds to row i of a prepared matrix; anything else to ``query``."""

    name = "bench-table"

    def __init__(self, vectors: Vectors) -> None:
        self.vectors = vectors
        self.query = vectors[0]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if texts and texts[0].startswith("m"):
            return self.vectors[[int(t.split(" ", 1)[0][1:]) for t in texts]]
        return np.tile(self.query, (len(texts), 1))


def words(rng: random.Random, count: int) -> list[str]:
    # Zipf-like: low ranks are common, as in text.
    return [f"w{int(VOCABULARY ** rng.random()) - 1:04d}" for _ in range(count)]


def build(path: Path, n: int, seed: int) -> tuple[GraphMemory, TableEmbedder, float]:
    """The store of ``n`` memories in ``path``; one that exists already (built by an
    earlier run with the same ``n`` and ``seed``) is opened as it is (0 s)."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder = TableEmbedder(vectors)
    existed = path.exists()
    memory = GraphMemory(path, embedder=embedder)
    if existed:
        return memory, embedder, 0.0
    text_rng = random.Random(seed)
    t0 = time.perf_counter()
    for start in range(0, n, 10_000):
        memory.add_memories(
            {
                "memory_id": f"id{i:07d}",
                "content": f"m{i} " + " ".join(words(text_rng, WORDS)),
                "user_id": f"u{i % USERS:03d}",
            }
            for i in range(start, min(start + 10_000, n))
        )
    return memory, embedder, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--db", type=Path, help="keep the store in this file (built once, reused by later runs)"
    )
    parser.add_argument(
        "--warm", type=int, default=0, metavar="ROUNDS", help="user-filter searches, warm caches"
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed + 1)
    picker = random.Random(args.seed + 1)
    samples: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    RESULTS.parent.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=RESULTS.parent) as tmp:
        path = args.db or Path(tmp) / "hybrid.db"
        memory, embedder, build_s = build(path, args.n, args.seed)
        if args.warm:
            warm(memory, embedder, queries(args, rng, picker), args.warm, samples, cpu)
        for i in range(0 if args.warm else args.queries + 1):
            query = " ".join(words(picker, 3))
            vector = rng.standard_normal(DIM).astype(np.float32)
            embedder.query = vector / np.linalg.norm(vector)
            user = f"u{picker.randrange(USERS):03d}"
            for scope, kwargs in (("user", {"user_id": user}), ("all", {})):
                for strategy in ("vector", "keyword", "hybrid"):
                    t0, c0 = time.perf_counter(), time.thread_time()
                    memory.search(query, strategy=strategy, max_results=10, **kwargs)
                    if i:  # the first query warms up
                        samples.setdefault(f"{scope}/{strategy}", []).append(
                            time.perf_counter() - t0
                        )
                        cpu.setdefault(f"{scope}/{strategy}", []).append(time.thread_time() - c0)
        memory.close()
    report: dict[str, Any] = {
        "n": args.n,
        "queries": args.queries,
        "build_s": build_s,
        "python": platform.python_version(),
    }
    print(f"n={args.n} queries={args.queries} build={build_s:.1f}s warm={args.warm}")
    for clock, timed in (("wall", samples), ("cpu", cpu)):
        report[clock] = table(clock, timed)
    RESULTS.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


Query = tuple[str, Vectors, str]


def queries(
    args: argparse.Namespace, rng: np.random.Generator, picker: random.Random
) -> list[Query]:
    """``args.queries`` (words, unit vector, user) triples."""
    drawn = []
    for _ in range(args.queries):
        text = " ".join(words(picker, 3))
        vector = rng.standard_normal(DIM).astype(np.float32)
        drawn.append((text, vector / np.linalg.norm(vector), f"u{picker.randrange(USERS):03d}"))
    return drawn


def warm(
    memory: GraphMemory,
    embedder: TableEmbedder,
    drawn: list[Query],
    rounds: int,
    samples: dict[str, list[float]],
    cpu: dict[str, list[float]],
) -> None:
    """Time ``rounds`` passes of user-filter searches per strategy, after an untimed one."""
    for strategy in ("vector", "keyword", "hybrid"):
        for timed in range(rounds + 1):
            for text, vector, user in drawn:
                embedder.query = vector
                t0, c0 = time.perf_counter(), time.thread_time()
                memory.search(text, strategy=strategy, max_results=10, user_id=user)
                if timed:
                    samples.setdefault(f"user/{strategy}", []).append(time.perf_counter() - t0)
                    cpu.setdefault(f"user/{strategy}", []).append(time.thread_time() - c0)


def table(clock: str, samples: dict[str, list[float]]) -> dict[str, Any]:
    """Print the medians of one clock's samples; return them with the ratios."""
    medians = {name: statistics.median(s) * 1000 for name, s in samples.items()}
    scopes = [s for s in ("user", "all") if f"{s}/vector" in medians]
    ratios = {s: medians[f"{s}/hybrid"] / medians[f"{s}/vector"] for s in scopes}
    print(f"{clock + ' ms':<8}{'vector':>10}{'keyword':>10}{'hybrid':>10}{'hybrid/vector':>15}")
    for scope in scopes:
        row = [medians[f"{scope}/{s}"] for s in ("vector", "keyword", "hybrid")]
        print(f"{scope:<8}{row[0]:>10.2f}{row[1]:>10.2f}{row[2]:>10.2f}{ratios[scope]:>15.2f}")
    return {"median_ms": medians, "hybrid_over_vector": ratios}


if __name__ == "__main__":
    sys.exit(main())
