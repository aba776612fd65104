"""Load: 16 concurrent clients doing mixed reads and writes against a ``graphmem serve``
subprocess on 127.0.0.1, for a bounded time (GRAPHMEM_LOAD_SECONDS, default 10) and
a bounded number of requests. No 5xx answers; every acknowledged write is there
afterwards; the validity invariant holds; p50/p99 latencies are printed (and written
to GRAPHMEM_LOAD_REPORT when set)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from .conftest import cli, start_server, stop_server

CLIENTS = 16
SECONDS = float(os.environ.get("GRAPHMEM_LOAD_SECONDS", "10"))
MAX_REQUESTS_PER_CLIENT = 20_000
LINK_TYPES = ("supersedes", "refines", "supports", "contradicts")

# A memory is invalid exactly when a lifecycle link targets it (read with plain sqlite3).
INVARIANT = """
SELECT m.record_id, m.status FROM graphmem_memory m
WHERE (m.status = 'invalid') <> EXISTS (
    SELECT 1 FROM graphmem_link l
    WHERE l.target_id = m.record_id
      AND l.relation_type IN ('supersedes', 'refines', 'duplicates'))
"""


def _check_file(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute(INVARIANT).fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    server_errors: list[str] = field(default_factory=list)
    memories: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)
    deleted_links: set[str] = field(default_factory=set)
    blocks: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _client_loop(url: str, key: str, n: int, stop_at: float, tally: Tally) -> None:
    rng = random.Random(n)
    mine: list[str] = []
    my_links: list[str] = []
    session = f"load_s{n}"
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:

        def call(kind: str, method: str, path: str, **kwargs: object) -> httpx.Response:
            started = time.perf_counter()
            answer = http.request(method, path, **kwargs)  # type: ignore[arg-type]
            spent = time.perf_counter() - started
            with tally.lock:
                tally.latencies[kind].append(spent)
                tally.statuses[answer.status_code] += 1
                if answer.status_code >= 500:
                    tally.server_errors.append(f"{kind}: {answer.status_code} {answer.text[:200]}")
            return answer

        call("setup", "POST", "/v1/users", json={"user_id": f"load_u{n}"})
        call("setup", "POST", "/v1/sessions", json={"user_id": f"load_u{n}", "session_id": session})
        for i in range(MAX_REQUESTS_PER_CLIENT):
            if time.monotonic() >= stop_at:
                break
            roll = rng.random()
            if roll < 0.25 or len(mine) < 2:
                text = f"client {n} note {i}: tea at {rng.randint(1, 12)} o'clock"
                answer = call("add memory", "POST", "/v1/memories",
                              json={"content": text, "user_id": f"load_u{n}"})  # fmt: skip
                if answer.status_code == 201:
                    mine.append(answer.json()["id"])
            elif roll < 0.35:
                source, target = rng.sample(mine, 2)
                body = {
                    "source_id": source,
                    "source_type": "memory",
                    "target_id": target,
                    "target_type": "memory",
                    "relation_type": rng.choice(LINK_TYPES),
                }
                answer = call("link", "POST", "/v1/links", json=body)
                if answer.status_code == 201:
                    my_links.append(answer.json()["relation_id"])
            elif roll < 0.40 and my_links:
                relation = my_links.pop(rng.randrange(len(my_links)))
                if call("unlink", "DELETE", f"/v1/links/{relation}").status_code == 200:
                    with tally.lock:
                        tally.deleted_links.add(relation)
                else:
                    my_links.append(relation)
            elif roll < 0.50:
                body = {"facts": [f"client {n} fact {i}"], "async_processing": rng.random() < 0.5}
                answer = call("add block", "POST", f"/v1/sessions/{session}/memory", json=body)
                if answer.status_code in (201, 202):
                    with tally.lock:
                        tally.blocks.add(f"{session}/{answer.json()['block_id']}")
            elif roll < 0.75:
                query = {"query": "tea o'clock", "user_id": f"load_u{n}", "num_hops": 1}
                call("search", "POST", "/v1/search", json=query)
            elif roll < 0.85:
                call("get memory", "GET", f"/v1/memories/{rng.choice(mine)}")
            elif roll < 0.95:
                call("list links", "GET", f"/v1/memories/{rng.choice(mine)}/links")
            else:
                call("context card", "GET", f"/v1/sessions/{session}/context_card")
        with tally.lock:
            tally.memories.update(mine)
            tally.links.update(my_links)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _report(tally: Tally, seconds: float) -> dict[str, object]:
    every = [v for values in tally.latencies.values() for v in values]
    per_kind = {
        kind: {"n": len(v), "p50_ms": round(_percentile(v, 0.5), 1),
               "p99_ms": round(_percentile(v, 0.99), 1)}
        for kind, v in sorted(tally.latencies.items())
    }  # fmt: skip
    return {
        "clients": CLIENTS,
        "seconds": seconds,
        "requests": len(every),
        "requests_per_second": round(len(every) / seconds, 1),
        "p50_ms": round(statistics.median(every) * 1000, 1),
        "p99_ms": round(_percentile(every, 0.99), 1),
        "statuses": dict(sorted(tally.statuses.items())),
        "by_kind": per_kind,
    }


def _verify(url: str, key: str, tally: Tally) -> None:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        for memory_id in tally.memories:
            assert http.get(f"/v1/memories/{memory_id}").status_code == 200, memory_id
        deadline = time.monotonic() + 60
        for block in tally.blocks:
            session, block_id = block.split("/")
            while True:
                found = http.get(f"/v1/sessions/{session}/memory/{block_id}").json()
                if found["status"] in ("ready", "failed") or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert found["status"] == "ready", found
            for record_id in found["record_ids"]:
                assert http.get(f"/v1/memories/{record_id}").status_code == 200
        for memory_id in tally.memories:
            listed = http.get(f"/v1/memories/{memory_id}/links", params={"limit": 1000}).json()
            for link in listed["links"]:
                assert link["id"] not in tally.deleted_links
        stored = set()
        for memory_id in tally.memories:
            listed = http.get(f"/v1/memories/{memory_id}/links", params={"limit": 1000}).json()
            stored |= {link["id"] for link in listed["links"]}
        assert tally.links <= stored


@pytest.mark.timeout(600)
def test_sixteen_clients_mixed_reads_and_writes(tmp_path: Path) -> None:
    db = tmp_path / "load.db"
    created = cli("keys", "create", "--db", str(db), "--role", "admin")
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    url, process = start_server(db, None)
    tally = Tally()
    try:
        started = time.monotonic()
        stop_at = started + SECONDS
        workers = [
            threading.Thread(target=_client_loop, args=(url, key, n, stop_at, tally))
            for n in range(CLIENTS)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=SECONDS + 300)
        elapsed = time.monotonic() - started
        assert not any(worker.is_alive() for worker in workers)
        report = _report(tally, elapsed)
        print("\nload:", json.dumps(report, indent=2))
        if os.environ.get("GRAPHMEM_LOAD_REPORT"):
            Path(os.environ["GRAPHMEM_LOAD_REPORT"]).write_text(json.dumps(report, indent=2))
        assert tally.server_errors == []
        assert tally.memories and tally.links and tally.blocks
        _verify(url, key, tally)
    finally:
        stop_server(process)
    _check_file(db)
