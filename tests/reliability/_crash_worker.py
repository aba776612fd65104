"""Crash-test worker: writes through GraphMemory, reporting every step on a pipe.

Each operation writes ``I <op> ...`` before the call and ``C <op> ...`` once the
call returned (committed), or ``R <op> ...`` when it was refused; lines go out
with one unbuffered ``os.write`` each, so whatever the parent reads was said
before the SIGKILL. Ops: ``M`` bulk memories, ``L`` bulk links (id:type pairs),
``U`` link type change (id:type), ``D`` link delete (id).

Run by ``test_crash_safety`` in a forked child; by hand::

    python tests/reliability/_crash_worker.py store.db run0 1
"""

from __future__ import annotations

import itertools
import os
import random
import sqlite3
import sys

from graphmem import ConflictError, GraphMemory, HashingEmbedder, NotFoundError

TYPES = ("supersedes", "refines", "duplicates", "supports", "contradicts")
BATCH = 10
_BATCHES = itertools.count()


def _say(fd: int, *parts: str) -> None:
    os.write(fd, (" ".join(parts) + "\n").encode())


def _bulk_memories(memory: GraphMemory, fd: int, ids: list[str], tag: str) -> None:
    new = [f"{tag}m{len(ids) + i}" for i in range(BATCH)]
    _say(fd, "I", "M", *new)
    memory.add_memories({"memory_id": rid, "content": f"note {rid}"} for rid in new)
    _say(fd, "C", "M", *new)
    ids.extend(new)


def _bulk_links(
    memory: GraphMemory,
    fd: int,
    rng: random.Random,
    ids: list[str],
    links: dict[str, str],
    tag: str,
) -> None:
    items, seen = [], set()
    batch = next(_BATCHES)
    for i in range(BATCH):
        source, target = rng.sample(ids, 2)
        kind = rng.choice(TYPES)
        if (source, target, kind) in seen or (target, source, kind) in seen:
            continue
        seen.add((source, target, kind))
        items.append(
            {
                "relation_id": f"{tag}l{batch}-{i}",
                "source_record_id": source,
                "source_record_type": "memory",
                "target_record_id": target,
                "target_record_type": "memory",
                "relation_type": kind,
            }
        )
    pairs = [f"{item['relation_id']}:{item['relation_type']}" for item in items]
    _say(fd, "I", "L", *pairs)
    try:
        memory.add_record_links(items)
    except ConflictError:
        _say(fd, "R", "L", *pairs)
        return
    _say(fd, "C", "L", *pairs)
    links.update((item["relation_id"], item["relation_type"]) for item in items)


def _retype(memory: GraphMemory, fd: int, rng: random.Random, links: dict[str, str]) -> None:
    rid = rng.choice(sorted(links))
    kind = rng.choice(TYPES)
    _say(fd, "I", "U", f"{rid}:{kind}")
    try:
        memory.update_record_link(rid, relation_type=kind)
    except ConflictError:
        _say(fd, "R", "U", f"{rid}:{kind}")
        return
    _say(fd, "C", "U", f"{rid}:{kind}")
    links[rid] = kind


def _unlink(memory: GraphMemory, fd: int, rng: random.Random, links: dict[str, str]) -> None:
    rid = rng.choice(sorted(links))
    _say(fd, "I", "D", rid)
    memory.delete_record_link(rid)
    _say(fd, "C", "D", rid)
    del links[rid]


def _state(path: str) -> tuple[list[str], dict[str, str]]:
    """Ids and link types already stored (plain SQL: faster than the API at startup)."""
    conn = sqlite3.connect(path)
    try:
        ids = [r[0] for r in conn.execute("SELECT record_id FROM graphmem_memory ORDER BY 1")]
        links = dict(conn.execute("SELECT relation_id, relation_type FROM graphmem_link"))
        return ids, links
    finally:
        conn.close()


def run(path: str, tag: str, seed: int, fd: int) -> None:
    """Write until killed (or 2000 operations)."""
    rng = random.Random(seed)
    with GraphMemory(path, embedder=HashingEmbedder(dim=16)) as memory:
        ids, links = _state(path)
        _say(fd, "READY")
        for _ in range(2000):
            roll = rng.random()
            try:
                if roll < 0.3 or len(ids) < 2 * BATCH:
                    _bulk_memories(memory, fd, ids, tag)
                elif roll < 0.7 or not links:
                    _bulk_links(memory, fd, rng, ids, links, tag)
                elif roll < 0.85:
                    _retype(memory, fd, rng, links)
                else:
                    _unlink(memory, fd, rng, links)
            except NotFoundError as exc:  # should not happen: this is the only writer
                _say(fd, "E", type(exc).__name__)
    _say(fd, "DONE")


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.stdout.fileno())
