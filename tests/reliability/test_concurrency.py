"""Concurrent writers and reader processes on one store file.

One scenario runs for a bounded time (module fixture): 4 writer threads (two
share one GraphMemory, two own one each) add memories one by one and in bulk,
link them (lifecycle and plain types, one by one and in bulk), change link types,
delete links and memories, while 4 reader processes, each with its own
GraphMemory on the same file, search with ``num_hops``. The tests then check
what callers saw and what the file holds, with plain SQL.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from graphmem import ConflictError, GraphMemory, NotFoundError

from ._checks import integrity, invariant_violations, links, memory_ids

RUN_SECONDS = 5.0
WRITERS = 4
READERS = 4
TYPES = ("supersedes", "refines", "duplicates", "supports", "contradicts")
WORDS = ("pizza", "sourdough", "travel", "piano", "garden", "coffee", "chess", "rain")


@dataclass
class WriterLog:
    """What one writer was told: acknowledged writes, expected refusals, failures."""

    memories: set[str] = field(default_factory=set)
    deleted_memories: set[str] = field(default_factory=set)
    links: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    deleted_links: set[str] = field(default_factory=set)
    refused: int = 0
    calls: int = 0
    failures: list[str] = field(default_factory=list)


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(4))


def _add_one(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    rid = memory.add_memory(_text(rng), user_id=f"u{rng.randrange(3)}")
    log.memories.add(rid)
    pool.append(rid)


def _add_many(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    ids = memory.add_memories({"content": _text(rng), "user_id": "u0"} for _ in range(5))
    log.memories.update(ids)
    pool.extend(ids)


def _link_one(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    source, target = rng.sample(pool, 2)
    kind = rng.choice(TYPES)
    rid = memory.link_records(source, "memory", target, "memory", kind)
    log.links[rid] = (source, target, kind)


def _link_many(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    items = []
    for _ in range(3):
        source, target = rng.sample(pool, 2)
        items.append(
            {
                "source_record_id": source,
                "source_record_type": "memory",
                "target_record_id": target,
                "target_record_type": "memory",
                "relation_type": rng.choice(TYPES),
            }
        )
    ids = memory.add_record_links(items)
    for rid, item in zip(ids, items, strict=True):
        log.links[rid] = (item["source_record_id"], item["target_record_id"], item["relation_type"])


def _retype(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    live = sorted(set(log.links) - log.deleted_links)
    if live:
        rid = rng.choice(live)
        kind = rng.choice(TYPES)
        updated = memory.update_record_link(rid, relation_type=kind)
        source, target, _ = log.links[rid]
        log.links[rid] = (source, target, updated.relation_type)


def _unlink(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    live = sorted(set(log.links) - log.deleted_links)
    if live:
        rid = rng.choice(live)
        memory.delete_record_link(rid)
        log.deleted_links.add(rid)


def _forget(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    live = sorted(log.memories - log.deleted_memories)
    if len(live) > 20:
        rid = rng.choice(live)
        memory.delete_memory(rid)
        log.deleted_memories.add(rid)


def _read(memory: GraphMemory, rng: random.Random, log: WriterLog, pool: list[str]) -> None:
    memory.search(_text(rng), num_hops=2, max_results=3)
    memory.list_record_links(rng.choice(pool))
    live = sorted(set(log.links) - log.deleted_links)
    if live:
        memory.get_record_link(rng.choice(live))


OPERATIONS: tuple[tuple[float, Callable[..., None]], ...] = (
    (0.20, _add_one),
    (0.08, _add_many),
    (0.25, _link_one),
    (0.10, _link_many),
    (0.12, _retype),
    (0.10, _unlink),
    (0.05, _forget),
    (0.10, _read),
)


def _writer(memory: GraphMemory, seed: int, pool: list[str], stop: float, log: WriterLog) -> None:
    rng = random.Random(seed)
    weights = [w for w, _ in OPERATIONS]
    while time.monotonic() < stop:
        (_, operation) = rng.choices(OPERATIONS, weights)[0]
        log.calls += 1
        try:
            operation(memory, rng, log, pool)
        except (ConflictError, NotFoundError):
            log.refused += 1  # another writer got there first: a correct refusal
        except BaseException as exc:
            log.failures.append(f"{operation.__name__}: {type(exc).__name__}: {exc}")


def _reader(path: str, seed: int, start_at: float, seconds: float, out: str) -> None:
    """Runs in a forked process: its own GraphMemory, searches until the time is up."""
    rng = random.Random(seed)
    report: dict[str, Any] = {"searches": 0, "failures": [], "invalid_direct": 0}
    while time.time() < start_at:
        time.sleep(0.01)
    try:
        with GraphMemory(path) as memory:
            stop = time.monotonic() + seconds
            while time.monotonic() < stop:
                hops = rng.randrange(0, 4)
                try:
                    results = memory.search(_text(rng), num_hops=hops, max_results=5)
                    report["searches"] += 1
                    report["invalid_direct"] += sum(r.status != "valid" for r in results)
                    memory.list_memories(user_id="u0", limit=20)
                except BaseException as exc:
                    report["failures"].append(f"{type(exc).__name__}: {exc}")
    except BaseException as exc:
        report["failures"].append(f"open: {type(exc).__name__}: {exc}")
    Path(out).write_text(json.dumps(report))


@dataclass
class Outcome:
    path: Path
    writers: list[WriterLog]
    readers: list[dict[str, Any]]
    reader_exit_codes: list[int | None]


def _seed(path: Path) -> list[str]:
    with GraphMemory(path) as memory:
        rng = random.Random(0)
        return memory.add_memories({"content": _text(rng), "user_id": "u0"} for _ in range(40))


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    path = tmp_path_factory.mktemp("concurrency") / "shared.db"
    pool = _seed(path)
    # Fork the readers before any writer thread or connection exists in this process.
    context = multiprocessing.get_context("fork")
    start_at = time.time() + 0.5
    outs = [str(path.with_name(f"reader-{i}.json")) for i in range(READERS)]
    readers = [
        context.Process(target=_reader, args=(str(path), i, start_at, RUN_SECONDS, outs[i]))
        for i in range(READERS)
    ]
    for process in readers:
        process.start()
    shared = GraphMemory(path)
    own = [GraphMemory(path) for _ in range(WRITERS - 2)]
    handles = [shared, shared, *own]
    logs = [WriterLog() for _ in range(WRITERS)]
    while time.time() < start_at:
        time.sleep(0.01)
    stop = time.monotonic() + RUN_SECONDS
    threads = [
        threading.Thread(target=_writer, args=(handles[i], 100 + i, pool, stop, logs[i]))
        for i in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(RUN_SECONDS + 60)
    for process in readers:
        process.join(RUN_SECONDS + 60)
    for handle in (shared, *own):
        handle.close()
    reports = [json.loads(Path(out).read_text()) if Path(out).exists() else {} for out in outs]
    return Outcome(path, logs, reports, [p.exitcode for p in readers])


def test_concurrency_writers_see_no_backend_errors(outcome: Outcome) -> None:
    failures = [f for log in outcome.writers for f in log.failures]
    assert failures == []


def test_concurrency_writers_made_progress(outcome: Outcome) -> None:
    assert all(len(log.memories) > 5 and len(log.links) > 5 for log in outcome.writers)


def test_concurrency_readers_see_no_errors(outcome: Outcome) -> None:
    assert outcome.reader_exit_codes == [0] * READERS
    assert [r.get("failures") for r in outcome.readers] == [[]] * READERS


def test_concurrency_readers_made_progress(outcome: Outcome) -> None:
    assert all(r["searches"] > 0 for r in outcome.readers)


def test_concurrency_readers_get_only_valid_direct_results(outcome: Outcome) -> None:
    assert sum(r["invalid_direct"] for r in outcome.readers) == 0


def test_concurrency_file_passes_integrity_check(outcome: Outcome) -> None:
    assert integrity(outcome.path) == ["ok"]


def test_concurrency_validity_invariant_holds(outcome: Outcome) -> None:
    assert invariant_violations(outcome.path) == []


def test_concurrency_acknowledged_memories_are_present(outcome: Outcome) -> None:
    deleted = set().union(*(log.deleted_memories for log in outcome.writers))
    acked = set().union(*(log.memories for log in outcome.writers)) - deleted
    assert acked - memory_ids(outcome.path) == set()
    assert deleted & memory_ids(outcome.path) == set()


def test_concurrency_acknowledged_links_are_present(outcome: Outcome) -> None:
    gone = set().union(*(log.deleted_memories for log in outcome.writers))
    stored = links(outcome.path)
    expected = {
        rid: triple
        for log in outcome.writers
        for rid, triple in log.links.items()
        if rid not in log.deleted_links and not {triple[0], triple[1]} & gone
    }
    assert {rid: stored.get(rid) for rid in expected} == expected


def test_concurrency_deleted_links_are_absent(outcome: Outcome) -> None:
    deleted = set().union(*(log.deleted_links for log in outcome.writers))
    assert deleted & set(links(outcome.path)) == set()


def test_concurrency_shared_store_reads_wait_for_open_transaction(memory: GraphMemory) -> None:
    """A thread sharing a GraphMemory must not read another thread's uncommitted link.

    Every store read takes the store's lock, so it waits for a transaction that
    another thread holds open on the shared connection instead of joining it (a
    dirty read here; a 30 s "database is locked" stall under the write load of
    the scenario above, before reads took the lock).
    """
    first = memory.add_memory("first")
    second = memory.add_memory("second")
    seen: list[int] = []
    entered = threading.Event()

    def read() -> None:
        entered.set()
        seen.append(len(memory.list_record_links()))

    reader = threading.Thread(target=read)
    with pytest.raises(RuntimeError), memory._store.transaction():
        memory.link_records(first, "memory", second, "memory", "supports")
        reader.start()
        assert entered.wait(10)
        reader.join(0.5)
        # the read began while the transaction was open, and waits for it
        assert reader.is_alive() and seen == []
        raise RuntimeError("roll back")
    reader.join(10)
    assert seen == [0]
