"""Streaming JSON Lines import against raw SQLite inserts of the same rows.

N memories (default 1M) and 3N links (the rows of ``bench/load.py``) are written
to a JSON Lines file, then

* ``import``: ``GraphMemory.import_jsonl`` (what ``graphmem import`` runs) in
  batches of ``--batch`` lines, each one transaction, every check and trigger on;
* ``raw``: ``sqlite3.executemany`` of the same rows into a store with the same
  schema and triggers, one transaction per batch, rows built in memory (no file
  parsing).

The lines carry no vectors (JSON Lines never does): an import embeds every
memory with the store's embedder. ``--embedder constant`` (default) gives both
sides the same constant 8-dimensional vector, computed for free, so the ratio
measures the import itself against bare inserts of identical rows;
``--embedder hashing`` makes both sides embed the texts with
``HashingEmbedder`` (384 dimensions), the import through its embedder and the
raw side by calling the same embedder per batch before its inserts.

Then ``export``: ``GraphMemory.export_jsonl`` of the imported store to a file
(what ``graphmem export`` runs), checked to hold one line per memory and link;
its peak is given twice, whole and anonymous only (the store reads its file
through a memory map, whose pages count in the whole peak).

Each runs in its own child process, so its peak resident memory (``ru_maxrss``)
is its own. ``--sizes`` runs several N to show that the import's peak memory
does not grow with the file. Prints rows/s, the ratio import / raw, the peak
memory of each, and checks that both stores end with the same rows.

    python -m bench.import_jsonl --sizes 100000,1000000
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench.load import CREATED, DIM, ConstantEmbedder, batches, link_spec, same_content
from graphmem import GraphMemory, HashingEmbedder

RESULTS = Path(__file__).resolve().parent / "results" / "import_jsonl.json"


def write_file(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            out.write(
                json.dumps(
                    {
                        "kind": "memory",
                        "memory_id": f"m{i}",
                        "content": f"memory {i}",
                        "user_id": f"u{i % 100}",
                    }
                )
                + "\n"
            )
        for j in range(3 * n):
            rid, source, target, kind, _ = link_spec(j, n)
            out.write(
                json.dumps(
                    {
                        "kind": "link",
                        "relation_id": rid,
                        "source_record_id": source,
                        "source_record_type": "memory",
                        "target_record_id": target,
                        "target_record_type": "memory",
                        "relation_type": kind,
                    }
                )
                + "\n"
            )


def same_vectors(a: Path, b: Path) -> bool:
    """Both stores hold the same embedding bytes for every memory."""
    query = "SELECT record_id, embedding FROM graphmem_memory ORDER BY record_id"
    ca, cb = sqlite3.connect(a), sqlite3.connect(b)
    try:
        return bool(ca.execute(query).fetchall() == cb.execute(query).fetchall())
    finally:
        ca.close()
        cb.close()


def _embedder(name: str) -> ConstantEmbedder | HashingEmbedder:
    return HashingEmbedder() if name == "hashing" else ConstantEmbedder()


def run_import(db: Path, source: Path, batch: int, embedder: str) -> tuple[float, float]:
    with GraphMemory(db, embedder=_embedder(embedder)) as memory:
        t0, c0 = time.perf_counter(), time.process_time()
        memory.import_jsonl(source, batch_size=batch)
        return time.perf_counter() - t0, time.process_time() - c0


def _rss_anon_kib() -> int | None:
    """The process's resident anonymous memory (Linux), without the pages of files
    it maps: the store reads its database file through a memory map, whose pages
    count in ``ru_maxrss`` but are the operating system's file cache."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class _AnonPeak:
    """The largest :func:`_rss_anon_kib` seen while it runs (sampled every 5 ms)."""

    def __init__(self) -> None:
        self.kib = _rss_anon_kib() or 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.kib = max(self.kib, _rss_anon_kib() or 0)

    def __enter__(self) -> _AnonPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.kib = max(self.kib, _rss_anon_kib() or 0)


EXPORT_ANON_PEAK_MIB: list[float] = []


def run_export(db: Path, out: Path, embedder: str) -> tuple[float, float]:
    with GraphMemory(db, embedder=_embedder(embedder)) as memory, _AnonPeak() as peak:
        t0, c0 = time.perf_counter(), time.process_time()
        with out.open("w", encoding="utf-8") as stream:
            memory.export_jsonl(stream)
        elapsed = time.perf_counter() - t0, time.process_time() - c0
    EXPORT_ANON_PEAK_MIB.append(peak.kib / 1024)
    return elapsed


def run_raw(db: Path, n: int, batch: int, embedder: str) -> tuple[float, float]:
    GraphMemory(db).close()  # the identical schema
    model = _embedder(embedder)
    dim = DIM if embedder == "constant" else HashingEmbedder().dimension
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("INSERT OR REPLACE INTO graphmem_meta VALUES ('embedding_dim', ?)", (str(dim),))
    t0, c0 = time.perf_counter(), time.process_time()
    for rows in batches(n, batch):
        texts = [f"memory {i}" for i in rows]
        blobs = [v.tobytes() for v in np.asarray(model.embed(texts), dtype=np.float32)]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO graphmem_memory (record_id, record_type, content, user_id, metadata, "
            "created_at, embedding) VALUES (?, 'memory', ?, ?, '{}', ?, ?)",
            [
                (f"m{i}", text, f"u{i % 100}", CREATED, blob)
                for i, text, blob in zip(rows, texts, blobs, strict=True)
            ],
        )
        conn.execute("COMMIT")
    for rows in batches(3 * n, batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
            "opposite_relation_type, metadata, created_at) VALUES (?, ?, ?, ?, ?, '{}', ?)",
            [(*link_spec(j, n), CREATED) for j in rows],
        )
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - t0, time.process_time() - c0
    conn.close()
    return elapsed


def child(argv: list[str]) -> int:
    """``--child import|raw|export DB SOURCE_OR_N_OR_OUT BATCH EMBEDDER``: one
    measured run, JSON on stdout."""
    kind, db, arg, batch, embedder = argv
    if kind == "import":
        seconds, cpu = run_import(Path(db), Path(arg), int(batch), embedder)
    elif kind == "export":
        seconds, cpu = run_export(Path(db), Path(arg), embedder)
    else:
        seconds, cpu = run_raw(Path(db), int(arg), int(batch), embedder)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"seconds": seconds, "cpu_s": cpu, "peak_mib": peak_kib / 1024}
    if EXPORT_ANON_PEAK_MIB:
        result["anon_peak_mib"] = EXPORT_ANON_PEAK_MIB[0]
    print(json.dumps(result))
    return 0


def measure(kind: str, db: Path, arg: str, batch: int, embedder: str) -> dict[str, float]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.import_jsonl",
            "--child",
            kind,
            str(db),
            arg,
            str(batch),
            embedder,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    """The fastest of repeated runs (the least disturbed by other jobs), by wall
    time and, separately, by CPU time; the peak memory is the largest seen."""
    return {
        "seconds": min(r["seconds"] for r in runs),
        "cpu_s": min(r["cpu_s"] for r in runs),
        "peak_mib": max(r["peak_mib"] for r in runs),
    }


def one_size(
    n: int, batch: int, tmp: Path, repeat: int = 1, embedder: str = "constant"
) -> dict[str, object]:
    source = tmp / f"in-{n}.jsonl"
    t0 = time.perf_counter()
    write_file(source, n)
    written = time.perf_counter() - t0
    imports: list[dict[str, float]] = []
    raws: list[dict[str, float]] = []
    for attempt in range(repeat):  # alternate, so both sides see the same load
        for db in tmp.glob(f"*-{n}.db*"):
            db.unlink()
        pair = [("import", str(source), imports), ("raw", str(n), raws)]
        for kind, arg, runs in pair if attempt % 2 == 0 else pair[::-1]:
            runs.append(measure(kind, tmp / f"{kind}-{n}.db", arg, batch, embedder))
    imported, raw = _best(imports), _best(raws)
    out = tmp / f"out-{n}.jsonl"
    exported = measure("export", tmp / f"import-{n}.db", str(out), batch, embedder)
    with out.open("rb") as lines:
        exported_lines = sum(1 for _ in lines)
    if exported_lines != 4 * n:
        raise SystemExit(f"the export holds {exported_lines:,} lines, not {4 * n:,}")
    same = same_vectors(tmp / f"import-{n}.db", tmp / f"raw-{n}.db") and same_content(
        tmp / f"import-{n}.db", tmp / f"raw-{n}.db"
    )
    rows = 4 * n
    row = {
        "n": n,
        "links": 3 * n,
        "file_mib": source.stat().st_size / 2**20,
        "file_write_s": written,
        "import_s": imported["seconds"],
        "raw_s": raw["seconds"],
        "import_rows_s": rows / imported["seconds"],
        "raw_rows_s": rows / raw["seconds"],
        "ratio": imported["seconds"] / raw["seconds"],
        "import_cpu_s": imported["cpu_s"],
        "raw_cpu_s": raw["cpu_s"],
        "cpu_ratio": imported["cpu_s"] / raw["cpu_s"],
        "import_peak_mib": imported["peak_mib"],
        "raw_peak_mib": raw["peak_mib"],
        "export_s": exported["seconds"],
        "export_rows_s": rows / exported["seconds"],
        "export_peak_mib": exported["peak_mib"],
        "export_anon_peak_mib": exported.get("anon_peak_mib", 0.0),
        "export_mib": out.stat().st_size / 2**20,
        "same_content": same,
        "repeat": repeat,
        "embedder": embedder,
    }
    for path in tmp.glob(f"*-{n}.*"):
        path.unlink()
    return row


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["--child"]:
        return child(args_in[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000", help="comma-separated N (memories)")
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each side (alternating); the best counts"
    )
    parser.add_argument("--embedder", choices=["constant", "hashing"], default="constant")
    args = parser.parse_args(args_in)
    rows = []
    RESULTS.parent.mkdir(exist_ok=True)
    print(
        "| N memories | links | file MiB | import rows/s | raw rows/s | import / raw "
        "| CPU import / raw | import peak MiB | raw peak MiB | same "
        "| export rows/s | export peak MiB (anonymous) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(dir=RESULTS.parent) as tmp:
            r = one_size(n, args.batch, Path(tmp), args.repeat, args.embedder)
        rows.append(r)
        print(
            f"| {n:,} | {3 * n:,} | {r['file_mib']:.0f} | {r['import_rows_s']:,.0f} "
            f"| {r['raw_rows_s']:,.0f} | {r['ratio']:.2f}x | {r['cpu_ratio']:.2f}x "
            f"| {r['import_peak_mib']:.0f} "
            f"| {r['raw_peak_mib']:.0f} | {r['same_content']} "
            f"| {r['export_rows_s']:,.0f} "
            f"| {r['export_peak_mib']:.0f} ({r['export_anon_peak_mib']:.0f}) |",
            flush=True,
        )
    results = (
        RESULTS.with_stem(f"import_jsonl-{args.embedder}")
        if args.embedder != "constant"
        else RESULTS
    )
    results.write_text(
        json.dumps(
            {
                "machine": {
                    "python": sys.version.split()[0],
                    "sqlite": sqlite3.sqlite_version,
                    "platform": platform.platform(),
                },
                "batch": args.batch,
                "runs": rows,
            },
            indent=2,
        )
    )
    return 0 if all(r["same_content"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
