"""Per-operation cost of link changes with validity recompute, at two store sizes.

For each size N a store of N memories and N links (``supports`` chains plus one
``supersedes`` link per 10 memories) is written with raw ``executemany`` into the
schema that :class:`graphmem.GraphMemory` creates (triggers in place), then
``--ops`` times, through the public API and each timed on its own:

* ``insert``: ``link_records(a, b, "supersedes")`` (b becomes invalid);
* ``update lc->plain``: ``update_record_link(id, relation_type="supports")`` (b valid again);
* ``update plain->lc``: ``update_record_link(id, relation_type="refines")`` (invalid again);
* ``delete``: ``delete_record_link(id)`` (b valid again).

Each pair ``(a, b)`` is fresh and unlinked. The table gives the median ms/op,
ops/s (1000 / median), calls/s (calls over their summed time, so the automatic
WAL checkpoints that run inside some commits count) and the ratio of the largest
size's median to the smallest's: about 1 when the recompute touches only the
link's endpoints; a last line gives the calls/s of all four operations
together, and the share of all time spent in calls that took over 4x their
operation's median (mostly the commits that ran an automatic WAL checkpoint).
``--wal-autocheckpoint PAGES`` sets the handle's checkpoint interval (SQLite's
default: 1000 pages; 0: none, the WAL only grows) to see what checkpoints cost.
Two figures that the machine's other jobs disturb less: the median CPU time of a
call on the calling thread, and the whole process's CPU time per call (every
thread's: the store's checkpoint thread's too, and the reads that check each
pair's status); and the loop's own rate: calls over the wall-clock time of the
whole loop, checking reads included.
``--store-dir`` keeps the built stores and measures on copies, so two
versions of graphmem can be measured back to back on the same files; the WAL is
emptied after the store is opened (an upgrade on open writes pages), so every
run meets its automatic checkpoints at the same calls. ``--floor`` then runs,
on another copy of each store, the statements the API sends for each call
(graphmem's own SQL, in the same transactions, on the handle's connection,
with its checkpoint hook) without the API's Python around them, and prints
their calls/s and the API's as a share of them.

    python -m bench.lifecycle --sizes 10000,100000,1000000 --ops 2000 --store-dir bench/data
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
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
from graphmem.core.relations import BUILTIN_OPPOSITES

RESULTS = Path(__file__).resolve().parent / "results" / "lifecycle.json"
DIM = 8
OPS = ("insert", "update lc->plain", "update plain->lc", "delete")


class TinyEmbedder:
    """Constant 8-dimensional vectors: embedding cost is not what is measured."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.ones((len(texts), DIM), dtype=np.float32)


def build(path: Path, n: int) -> float:
    """Write N memories and N links; returns seconds."""
    t0 = time.perf_counter()
    GraphMemory(path, embedder=TinyEmbedder()).close()  # schema exactly as the library makes it
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    conn.execute("INSERT OR REPLACE INTO graphmem_meta VALUES ('embedding_dim', ?)", (str(DIM),))
    blob = np.ones(DIM, dtype=np.float32).tobytes()
    created = "2026-01-01T00:00:00.000000+00:00"
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, created_at, "
        "embedding) VALUES (?, 'memory', ?, ?, ?, ?)",
        ((f"m{i}", f"memory {i}", f"u{i % 100}", created, blob) for i in range(n)),
    )

    def link(i: int) -> tuple[str, str, str, str, str, str]:
        if i % 10 == 9:
            return (f"l{i}", f"m{i}", f"m{i - 5}", "supersedes", "is_superseded_by", created)
        return (f"l{i}", f"m{i}", f"m{(i + 1) % n}", "supports", "is_supported_by", created)

    conn.executemany(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (link(i) for i in range(n)),
    )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - t0


_CPU: list[float] = []
"""The calling thread's CPU time of each call, all operations together."""


def _timed(samples: list[float], call: Callable[[], Any]) -> Any:
    c0 = time.thread_time()
    t0 = time.perf_counter()
    result = call()
    samples.append(time.perf_counter() - t0)
    _CPU.append(time.thread_time() - c0)
    return result


def _empty_wal(path: Path) -> None:
    """Move the WAL into the file and empty it, so that every run starts with the
    automatic checkpoints (one per 1,000 WAL pages) at the same places: an upgrade
    on open writes pages, which would shift them onto other calls."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:
            print("warning: the WAL could not be emptied before measuring", file=sys.stderr)
    finally:
        conn.close()


def measure(
    path: Path, n: int, ops: int, seed: int, checkpoint: int | None = None
) -> dict[str, list[float]]:
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {op: [] for op in OPS}
    _CPU.clear()
    with GraphMemory(path, embedder=TinyEmbedder()) as memory:
        _empty_wal(path)
        if checkpoint is not None:  # the handle's own connection (no public setting)
            conn = memory._store._conn  # type: ignore[attr-defined]
            conn.execute(f"PRAGMA wal_autocheckpoint = {int(checkpoint)}")
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(ops):
            a = rng.randrange(n)
            b = (a + rng.randrange(20, n // 2)) % n  # never linked by build()
            if b % 10 == 4:  # build() supersedes these: they stay invalid
                b = (b + 1) % n
            sa, sb = f"m{a}", f"m{b}"
            rid = _timed(
                samples["insert"],
                lambda sa=sa, sb=sb: memory.link_records(sa, "memory", sb, "memory", "supersedes"),
            )
            assert memory.get_memory(sb).status == "invalid"
            _timed(
                samples["update lc->plain"],
                lambda rid=rid: memory.update_record_link(rid, relation_type="supports"),
            )
            _timed(
                samples["update plain->lc"],
                lambda rid=rid: memory.update_record_link(rid, relation_type="refines"),
            )
            _timed(samples["delete"], lambda rid=rid: memory.delete_record_link(rid))
            assert memory.get_memory(sb).status == "valid"
        samples["loop"] = [time.perf_counter() - wall, time.process_time() - cpu]
    return samples


def measure_floor(path: Path, n: int, ops: int, seed: int) -> dict[str, list[float]]:
    """The floor under :func:`measure`: the same pairs, and for each call the
    statements the API runs for it (graphmem's own SQL text, read from the store),
    in the same write transaction, run directly on the handle's connection, with
    the store's checkpoint hook after each commit, and no Python of the API around
    them: what is left is SQLite's time, the sqlite3 module's, and the loop's."""
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {op: [] for op in OPS}
    with GraphMemory(path, embedder=TinyEmbedder()) as memory:
        _empty_wal(path)
        store = memory._store  # type: ignore[attr-defined]
        conn, sql, hook = store._conn, store._sql, store._checkpointer

        def write(*steps: tuple[str, dict[str, Any]]) -> None:
            conn.execute("BEGIN IMMEDIATE")
            for name, binds in steps:
                conn.execute(sql[name].sql, binds).fetchall()
            conn.execute("COMMIT")
            if hook is not None:
                hook.committed(conn)

        created = "2026-12-01T00:00:00.000000+00:00"
        for i in range(ops):
            a = rng.randrange(n)
            b = (a + rng.randrange(20, n // 2)) % n  # the pairs of measure()
            if b % 10 == 4:
                b = (b + 1) % n
            sa, sb, rid = f"m{a}", f"m{b}", f"floor-{i}"
            link = {
                "relation_id": rid,
                "source_id": sa,
                "target_id": sb,
                "relation_type": "supersedes",
                "opposite_relation_type": BUILTIN_OPPOSITES["supersedes"],
                "relation_timestamp": None,
                "metadata": "{}",
                "created_at": created,
            }
            types = {"source_id": sa, "target_id": sb}
            _timed(
                samples["insert"],
                lambda: write(("get-endpoint-types", types), ("insert-link", link)),  # noqa: B023
            )
            for op, rtype in (("update lc->plain", "supports"), ("update plain->lc", "refines")):
                opposite = BUILTIN_OPPOSITES[rtype]
                change = {
                    "relation_id": rid,
                    "relation_type": rtype,
                    "opposite_relation_type": opposite,
                    "relation_timestamp": None,
                    "metadata": "{}",
                }
                _timed(
                    samples[op],
                    lambda change=change: write(  # type: ignore[misc]
                        ("get-link", {"relation_id": rid}),  # noqa: B023
                        ("update-link", change),
                    ),
                )
            _timed(samples["delete"], lambda: write(("delete-link", {"relation_id": rid})))  # noqa: B023
            status = conn.execute(
                "SELECT status FROM graphmem_memory WHERE record_id = ?", (sb,)
            ).fetchone()
            assert status == ("valid",), status
    return samples


def _slow_share(samples: dict[str, list[float]]) -> float:
    """The share of all the calls' time spent in calls over 4x their operation's
    median (the commits that ran an automatic checkpoint, mostly)."""
    slow = 0.0
    for times in samples.values():
        limit = 4 * statistics.median(times)
        slow += sum(t for t in times if t > limit)
    return slow / sum(map(sum, samples.values()))


def _store_copy(store_dir: Path, tmp: Path, n: int) -> tuple[Path, float]:
    """A working copy of the N-memory store in ``store_dir``, built there first if
    missing (so before/after runs of two versions start from the same file)."""
    kept = store_dir / f"lifecycle-{n}.db"
    build_s = 0.0
    if not kept.exists():
        building = store_dir / f"lifecycle-{n}.building.db"
        for stale in store_dir.glob(f"lifecycle-{n}.building.db*"):
            stale.unlink()
        build_s = build(building, n)
        building.rename(kept)
    work = tmp / kept.name
    shutil.copyfile(kept, work)
    # Flush the copy before measuring: otherwise the first checkpoint that syncs
    # the file writes the whole copy out (at 1M, one call of ~0.3 s). No SQLite
    # connection has it open yet, so closing this descriptor drops no lock.
    fd = os.open(work, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return work, build_s


def _report(results: dict[str, Any], sizes: list[int]) -> None:
    cols = " | ".join(f"N={n:,} ms/op | ops/s | calls/s" for n in sizes)
    print(f"\n| operation | {cols} | ratio |")
    print("|" + "---|" * (2 + 3 * len(sizes)))
    for op in OPS:
        cells = []
        for n in sizes:
            row = results["sizes"][str(n)]
            median = row["median_ms"][op]
            cells.append(f"{median:.3f} | {1000 / median:,.0f} | {row['calls_per_s'][op]:,.0f}")
        ratio = (
            results["sizes"][str(sizes[-1])]["median_ms"][op]
            / results["sizes"][str(sizes[0])]["median_ms"][op]
        )
        print(f"| {op} | {' | '.join(cells)} | {ratio:.2f} |")
    overall = ", ".join(
        f"N={n:,}: {results['sizes'][str(n)]['all_calls_per_s']:,.0f}" for n in sizes
    )
    print(f"\nall four operations together, calls/s: {overall}")
    slow = ", ".join(f"N={n:,}: {results['sizes'][str(n)]['slow_share']:.0%}" for n in sizes)
    print(f"time in calls over 4x their operation's median: {slow}")
    if all("floor" in results["sizes"][str(n)] for n in sizes):
        print("\nthe floor (--floor: the same statements without the API's Python), calls/s:")
        print("| operation | " + " | ".join(f"N={n:,} floor | API / floor" for n in sizes) + " |")
        print("|" + "---|" * (1 + 2 * len(sizes)))
        for op in (*OPS, "all four"):
            cells = []
            for n in sizes:
                row = results["sizes"][str(n)]
                if op == "all four":
                    floor, api = row["floor"]["all_calls_per_s"], row["all_calls_per_s"]
                else:
                    floor, api = row["floor"]["calls_per_s"][op], row["calls_per_s"][op]
                cells.append(f"{floor:,.0f} | {api / floor:.2f}")
            print(f"| {op} | {' | '.join(cells)} |")
    for key, label in (
        ("median_call_cpu_us", "median CPU us of a call (calling thread)"),
        ("process_cpu_us_per_call", "process CPU us per call (all threads, checking reads)"),
        ("loop_calls_per_s", "calls per wall-clock second of the loop (checking reads incl.)"),
    ):
        cells = ", ".join(f"N={n:,}: {results['sizes'][str(n)][key]:,.0f}" for n in sizes)
        print(f"{label}: {cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--store-dir",
        type=Path,
        default=None,
        help="keep the built stores here and measure on copies of them (built when missing)",
    )
    parser.add_argument(
        "--wal-autocheckpoint",
        type=int,
        default=None,
        help="the handle's WAL checkpoint interval in pages (default: SQLite's, 1000; 0: none)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also run the API's statements directly on the handle's connection "
        "(on another copy of each store), without the API's Python",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[str, Any] = {
        "machine": {
            "python": sys.version.split()[0],
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
        },
        "ops": args.ops,
        "wal_autocheckpoint": args.wal_autocheckpoint,
        "sizes": {},
    }
    RESULTS.parent.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=RESULTS.parent) as name:
        tmp = Path(name)
        store_dir = args.store_dir or tmp / "kept"
        store_dir.mkdir(parents=True, exist_ok=True)
        for n in sizes:
            path, build_s = _store_copy(store_dir, tmp, n)
            samples = measure(path, n, args.ops, args.seed, args.wal_autocheckpoint)
            loop_wall, loop_cpu = samples.pop("loop")
            calls = sum(map(len, samples.values()))
            results["sizes"][str(n)] = {
                "median_call_cpu_us": statistics.median(_CPU) * 1e6,
                "process_cpu_us_per_call": loop_cpu / calls * 1e6,
                "loop_calls_per_s": calls / loop_wall,
                "build_s": build_s,
                "median_ms": {op: statistics.median(v) * 1000 for op, v in samples.items()},
                "calls_per_s": {op: len(v) / sum(v) for op, v in samples.items()},
                "all_calls_per_s": sum(map(len, samples.values()))
                / sum(map(sum, samples.values())),
                "slow_share": _slow_share(samples),
            }
            if args.floor:
                path.unlink()
                path, _ = _store_copy(store_dir, tmp, n)
                floor = measure_floor(path, n, args.ops, args.seed)
                results["sizes"][str(n)]["floor"] = {
                    "median_ms": {op: statistics.median(v) * 1000 for op, v in floor.items()},
                    "calls_per_s": {op: len(v) / sum(v) for op, v in floor.items()},
                    "all_calls_per_s": sum(map(len, floor.values()))
                    / sum(map(sum, floor.values())),
                }
            print(f"N={n:>9,}: store built in {build_s:.1f} s (0: kept)", file=sys.stderr)
    print(f"\nper operation, {args.ops} calls each, one process: median ms/op, 1000 / median,")
    print("and calls/s = calls / their summed time (checkpoints included)")
    _report(results, sizes)
    RESULTS.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
