"""Benchmark threads: ``get_context_card`` with per-type minimums, and ``add_messages``.

The store holds ``--memories`` memory-like records (the four types in turn) of
the thread's user and agent, so every card search scans all of them (the worst
case for the exact SQLite search), and ``--messages`` messages in the thread.
Vectors come from :class:`graphmem.HashingEmbedder` (384-d), so the numbers are
the store's, not a model's. The store is cached in
``bench/data/threads-m{memories}-x{messages}.db``.

Reported:

* ``card``: the median of ``--repeat`` warm ``get_context_card`` calls with three
  minimums (preference, guideline, message: four searches with the fill
  search), at ``context_card_type_search_concurrency`` 1 (sequential) and 5, and
  the ratio; every concurrent card must equal the sequential one. With
  ``--latency-ms`` each store search first sleeps that long, standing in for the
  round trip to a database server (the embedded store runs one statement at a
  time on its connection, so concurrency helps only where searches wait);
* ``add_messages``: messages per second for batches of 1 and of 20 (embedding,
  insert, and the summary fallback of each call).

    python -m bench.threads --memories 100000 --messages 10000 --repeat 5
    python -m bench.threads --memories 100000 --messages 10000 --latency-ms 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench.generate import DATA_DIR
from graphmem import GraphMemory, HashingEmbedder
from graphmem.stores.base import Store

MINIMUMS = {"preference": 1, "guideline": 1, "message": 1}
WORDS = [
    "tea",
    "pizza",
    "dinner",
    "friday",
    "vegan",
    "garden",
    "train",
    "music",
    "budget",
    "travel",
    "coffee",
    "books",
]
TYPES = ("memory", "fact", "preference", "guideline")


def _text(i: int) -> str:
    return " ".join(WORDS[(i * k + k) % len(WORDS)] for k in (1, 3, 7)) + f" item {i}"


def _build(path: Path, memories: int, messages: int) -> None:
    with GraphMemory(path, embedder=HashingEmbedder()) as memory:
        thread = memory.create_thread(
            "bench", user_id="u", agent_id="a", context_summary_update_frequency=1000
        )
        for start in range(0, memories, 5000):
            batch = range(start, min(start + 5000, memories))
            memory.add_memories(
                [
                    {"content": _text(i), "memory_type": TYPES[i % 4], "user_id": "u",
                     "agent_id": "a"}
                    for i in batch
                ]
            )  # fmt: skip
        for start in range(0, messages, 500):
            batch = range(start, min(start + 500, messages))
            roles = ("user", "assistant")
            thread.add_messages([{"role": roles[i % 2], "content": _text(i)} for i in batch])


def _store(memories: int, messages: int) -> Path:
    path = DATA_DIR / f"threads-m{memories}-x{messages}.db"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        _build(path, memories, messages)
        print(f"# built {path.name} in {time.perf_counter() - started:.1f} s", flush=True)
    return path


def _slow_nearest(store: Store, latency: float) -> None:
    """Make each store search wait ``latency`` seconds first (outside the store lock)."""
    nearest = store.nearest

    def waiting(*args: Any, **kwargs: Any) -> Any:
        time.sleep(latency)
        return nearest(*args, **kwargs)

    store.nearest = waiting  # type: ignore[method-assign]


def _cards(memory: GraphMemory, repeat: int) -> dict[str, Any]:
    timings: dict[int, list[float]] = {1: [], 5: []}
    cards: dict[int, Any] = {}
    for _ in range(repeat + 1):  # the first round warms the caches and is dropped
        for concurrency in (1, 5):
            thread = memory.get_thread("bench", context_card_type_search_concurrency=concurrency)
            started = time.perf_counter()
            cards[concurrency] = thread.get_context_card(min_relevant_results_by_type=MINIMUMS)
            timings[concurrency].append(time.perf_counter() - started)
        if cards[1] != cards[5]:
            raise SystemExit("MISMATCH: the concurrent card differs from the sequential one")
    sequential = statistics.median(timings[1][1:])
    concurrent = statistics.median(timings[5][1:])
    return {
        "card_sequential_s": round(sequential, 4),
        "card_concurrent_s": round(concurrent, 4),
        "concurrent_over_sequential": round(concurrent / sequential, 3),
        "relevant_records": len(cards[1].relevant_records),
    }


def _add_messages(memory: GraphMemory, total: int) -> dict[str, float]:
    rates: dict[str, float] = {}
    for size in (1, 20):
        thread = memory.create_thread(f"add-{size}-{time.time_ns()}", user_id="w", agent_id="a")
        started = time.perf_counter()
        for start in range(0, total, size):
            thread.add_messages(
                [{"role": "user", "content": _text(start + i)} for i in range(size)]
            )
        rates[f"add_messages_batch{size}_per_s"] = round(total / (time.perf_counter() - started))
        memory.delete_thread(thread.thread_id)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--add", type=int, default=400, help="messages per add_messages run")
    args = parser.parse_args()
    path = _store(args.memories, args.messages)
    with GraphMemory(path, embedder=HashingEmbedder()) as memory:
        if args.latency_ms:
            _slow_nearest(memory._store, args.latency_ms / 1000)
        result: dict[str, Any] = {
            "memories": args.memories,
            "messages": args.messages,
            "latency_ms": args.latency_ms,
            **_cards(memory, args.repeat),
        }
        if not args.latency_ms:
            result.update(_add_messages(memory, args.add))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
