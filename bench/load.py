"""Bulk import through the public API against raw SQLite inserts of the same rows.

N memories (default 1M) and 3N links (per memory i: ``i -> i+1`` supports,
``i -> i+7`` contradicts, ``i -> i+31`` supersedes, mod N) are imported

* ``graphmem``: ``GraphMemory.add_memories`` and ``add_record_links`` in
  batches of ``--batch`` (each batch one transaction, every check and trigger
  on), with a constant 8-dimensional embedder so embedding is not measured;
* ``raw``: ``sqlite3.executemany`` of the same rows (same ids, same columns,
  same embedding blobs) into a second file with the identical schema (made by
  GraphMemory, triggers in place), one transaction per batch too.

Prints rows/s of each phase and the ratio raw / graphmem, and checks that both
files end with the same memories, links and statuses.

    python -m bench.load --n 1000000
"""

from __future__ import annotations

import argparse
import json
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem import GraphMemory

RESULTS = Path(__file__).resolve().parent / "results" / "load.json"
DIM = 8
OFFSETS = (
    (1, "supports", "is_supported_by"),
    (7, "contradicts", "contradicts"),
    (31, "supersedes", "is_superseded_by"),
)
CREATED = "2026-01-01T00:00:00.000000+00:00"


class ConstantEmbedder:
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.ones((len(texts), DIM), dtype=np.float32)


def batches(total: int, size: int) -> Iterator[range]:
    for start in range(0, total, size):
        yield range(start, min(start + size, total))


def link_spec(j: int, n: int) -> tuple[str, str, str, str, str]:
    i, k = divmod(j, 3)
    offset, kind, opposite = OFFSETS[k]
    return f"l{j}", f"m{i}", f"m{(i + offset) % n}", kind, opposite


def load_api(path: Path, n: int, batch: int) -> dict[str, float]:
    out = {}
    with GraphMemory(path, embedder=ConstantEmbedder()) as memory:
        t0 = time.perf_counter()
        for rows in batches(n, batch):
            memory.add_memories(
                {"memory_id": f"m{i}", "content": f"memory {i}", "user_id": f"u{i % 100}"}
                for i in rows
            )
        out["memories_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for rows in batches(3 * n, batch):
            items = []
            for j in rows:
                rid, source, target, kind, _ = link_spec(j, n)
                items.append(
                    {
                        "relation_id": rid,
                        "source_record_id": source,
                        "source_record_type": "memory",
                        "target_record_id": target,
                        "target_record_type": "memory",
                        "relation_type": kind,
                    }
                )
            memory.add_record_links(items)
        out["links_s"] = time.perf_counter() - t0
    return out


def load_raw(path: Path, n: int, batch: int) -> dict[str, float]:
    GraphMemory(path, embedder=ConstantEmbedder()).close()  # the identical schema
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("INSERT OR REPLACE INTO graphmem_meta VALUES ('embedding_dim', ?)", (str(DIM),))
    blob = np.ones(DIM, dtype=np.float32).tobytes()
    out = {}
    t0 = time.perf_counter()
    for rows in batches(n, batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, metadata, "
            "created_at, embedding) VALUES (?, 'memory', ?, ?, '{}', ?, ?)",
            [(f"m{i}", f"memory {i}", f"u{i % 100}", CREATED, blob) for i in rows],
        )
        conn.execute("COMMIT")
    out["memories_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    for rows in batches(3 * n, batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
            "opposite_relation_type, metadata, created_at) VALUES (?, ?, ?, ?, ?, '{}', ?)",
            [(*link_spec(j, n), CREATED) for j in rows],
        )
        conn.execute("COMMIT")
    out["links_s"] = time.perf_counter() - t0
    conn.close()
    return out


def same_content(a: Path, b: Path) -> bool:
    queries = (
        "SELECT record_id, status, content, user_id FROM graphmem_memory ORDER BY record_id",
        "SELECT relation_id, source_id, target_id, relation_type FROM graphmem_link ORDER BY 1",
    )
    ca, cb = sqlite3.connect(a), sqlite3.connect(b)
    try:
        return all(ca.execute(q).fetchall() == cb.execute(q).fetchall() for q in queries)
    finally:
        ca.close()
        cb.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=10_000)
    args = parser.parse_args(argv)
    n = args.n
    with tempfile.TemporaryDirectory(dir=RESULTS.parent) as tmp:
        api = load_api(Path(tmp) / "api.db", n, args.batch)
        raw = load_raw(Path(tmp) / "raw.db", n, args.batch)
        same = same_content(Path(tmp) / "api.db", Path(tmp) / "raw.db")
    rows: dict[str, Any] = {}
    print(f"\nN={n:,} memories, {3 * n:,} links, batches of {args.batch:,}; same content: {same}\n")
    print("| phase | graphmem rows/s | raw executemany rows/s | raw / graphmem |")
    print("|---|---|---|---|")
    for phase, count in (("memories", n), ("links", 3 * n)):
        a = count / api[f"{phase}_s"]
        r = count / raw[f"{phase}_s"]
        rows[phase] = {
            "graphmem_rows_s": a,
            "raw_rows_s": r,
            "graphmem_s": api[f"{phase}_s"],
            "raw_s": raw[f"{phase}_s"],
        }
        print(f"| {phase} | {a:,.0f} | {r:,.0f} | {r / a:.1f}x |")
    RESULTS.write_text(
        json.dumps(
            {
                "machine": {
                    "python": sys.version.split()[0],
                    "sqlite": sqlite3.sqlite_version,
                    "platform": platform.platform(),
                },
                "n": n,
                "batch": args.batch,
                "same_content": same,
                "phases": rows,
            },
            indent=2,
        )
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
