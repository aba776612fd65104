"""The default embedder against the hashing embedder: throughput, and add_memory at scale.

For each embedder, in one process:

* ``texts/s``: ``embed`` over ``--texts`` generated sentences in batches of
  ``--batch`` (the model already loaded; its load time is printed apart);
* ``add_memory``: a file store is filled with ``--memories`` memories through
  ``add_memories`` (that embedder's vectors), then ``--calls`` single
  ``add_memory`` calls are timed one by one: median and p95 in milliseconds
  (embedding one text plus the insert transaction);
* ``search``: median ``search(max_results=10)`` over the same store.

The last column of each table is the ratio default / hashing.

    python -m bench.embedders --memories 100000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder, LocalEmbedder

SUBJECTS = ("The user", "Her manager", "His brother", "The team", "Our client", "The landlord")
VERBS = ("prefers", "dislikes", "asked about", "booked", "forgot", "recommended", "paid for")
OBJECTS = (
    "sourdough pizza", "a window seat", "the quarterly report", "Spanish lessons",
    "a vegan menu", "the blue sedan", "an early meeting", "jazz records", "a hiking trip",
    "the dentist appointment", "green tea", "a standing desk", "the Denver office",
)  # fmt: skip
TAILS = ("last week.", "every Monday.", "before the holidays.", "again today.", "in March.")


def sentences(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}"
        f" (note {i})"
        for i in range(count)
    ]


def throughput(embedder: Any, texts: list[str], batch: int) -> float:
    embedder.embed(texts[:batch])  # warm: loads a model, fills caches
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        embedder.embed(texts[start : start + batch])
    return len(texts) / (time.perf_counter() - started)


def at_scale(embedder: Any, args: argparse.Namespace, folder: Path) -> dict[str, float]:
    texts = sentences(args.memories + args.calls, seed=11)
    path = folder / f"{type(embedder).__name__}.db"
    with GraphMemory(path, embedder=embedder) as memory:
        for start in range(0, args.memories, 10_000):
            chunk = texts[start : min(start + 10_000, args.memories)]
            items = [{"content": t, "user_id": f"u{i % 100}"} for i, t in enumerate(chunk)]
            memory.add_memories(items)
        adds = []
        for text in texts[args.memories :]:
            started = time.perf_counter()
            memory.add_memory(text, user_id="u1")
            adds.append(time.perf_counter() - started)
        searches = []
        for query in sentences(args.calls // 4 or 1, seed=99):
            started = time.perf_counter()
            memory.search(query, user_id="u1", max_results=10)
            searches.append(time.perf_counter() - started)
    adds.sort()
    return {
        "add_ms_median": 1000 * statistics.median(adds),
        "add_ms_p95": 1000 * adds[int(0.95 * (len(adds) - 1))],
        "search_ms_median": 1000 * statistics.median(searches),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    default = LocalEmbedder()
    default.embed(["load"])
    print(f"default embedder load: {time.perf_counter() - started:.2f} s", file=sys.stderr)
    embedders = {"default (local/wordllama 256-d)": default, "hashing (384-d)": HashingEmbedder()}
    texts = sentences(args.texts, seed=5)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, embedder in embedders.items():
            print(f"measuring {label} ...", file=sys.stderr)
            rows[label] = {"texts_per_s": throughput(embedder, texts, args.batch)}
            rows[label].update(at_scale(embedder, args, Path(tmp)))
    keys = ("texts_per_s", "add_ms_median", "add_ms_p95", "search_ms_median")
    (first, a), (second, b) = rows.items()
    print(f"{args.memories} memories, {args.calls} add_memory calls, batch {args.batch}")
    print(f"{'metric':<18} {first:>32} {second:>18} {'ratio':>7}")
    for key in keys:
        print(f"{key:<18} {a[key]:>32.1f} {b[key]:>18.1f} {a[key] / b[key]:>7.2f}")


if __name__ == "__main__":
    main()
