"""Extraction jobs survive SIGKILL.

A subprocess runs the queued jobs of a real SQLite file against a ModelServer that
answers late (so kills land mid-job) and is killed at a random moment (after 0 to
2 finished jobs, then 0 to 80 ms), 20 times. After every kill the file passes
``PRAGMA integrity_check``, the validity invariant holds, no record exists twice
and no job that is not done has written anything; at the end, running the jobs
again completes every one of them exactly once."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder, Llm, MemoryExtractionConfig
from graphmem.testing import ModelServer

from ._checks import connect, integrity, invariant_violations, links

JOBS = 60
KILLS = 20
CHILD = Path(__file__).with_name("_extraction_child.py")


def _decide(body: dict[str, Any]) -> str:
    """Two records per message; links each first record to a stored one. Late."""
    time.sleep(random.uniform(0.005, 0.04))
    prompt = str(body["messages"][-1]["content"])
    if "===== NEW MEMORIES =====" in prompt:
        stored = re.findall(r"^(mem-\d+) ", prompt, re.MULTILINE)
        return json.dumps(
            {"links": [{"source": "new-0", "target": stored[0], "relation_type": "supports"}]}
        )
    said = json.loads(re.findall(r"^\[\d+\] user: (.*)$", prompt, re.MULTILINE)[-1])
    records = [
        {"record_type": "fact", "content": f"First fact of {said}.", "source_messages": [1]},
        {"record_type": "memory", "content": f"Second fact of {said}.", "source_messages": [1]},
    ]
    return json.dumps({"records": records})


def _memory(path: Path, server: ModelServer) -> GraphMemory:
    llm = Llm("crash-llm", api_base=server.url, max_retries=0, timeout=30)
    return GraphMemory(path, embedder=HashingEmbedder(dim=16), llm=llm, extraction_workers=0)


def _queue_jobs(path: Path, server: ModelServer) -> None:
    config = MemoryExtractionConfig(memory_extraction_frequency=1, memory_extraction_window=1)
    with _memory(path, server) as memory:
        memory.add_memory("The user keeps notes.", user_id="u")
        thread = memory.create_thread(
            "t", user_id="u", memory_extraction_config=config, enable_context_summary=False
        )
        for i in range(JOBS):
            thread.add_messages([{"role": "user", "content": f"note {i}"}])
        assert len(memory.list_jobs(status="queued", limit=1000)) == JOBS


def _state(path: Path) -> dict[str, Any]:
    conn = connect(path)
    try:
        jobs = dict(conn.execute("SELECT job_id, status FROM graphmem_job").fetchall())
        rows = conn.execute(
            "SELECT record_id, content FROM graphmem_memory WHERE record_type <> 'message'"
        ).fetchall()
    finally:
        conn.close()
    return {"jobs": jobs, "records": rows}


def _check(path: Path) -> dict[str, Any]:
    assert integrity(path) == ["ok"]
    assert invariant_violations(path) == []
    state = _state(path)
    contents = [content for _, content in state["records"]]
    assert len(contents) == len(set(contents)), "a record was written twice"
    for record_id, _ in state["records"]:
        job_id = record_id.rsplit("-r", 1)[0]
        if job_id in state["jobs"]:
            assert state["jobs"][job_id] == "done", f"{record_id} of an unfinished job"
    for relation_id in links(path):
        assert state["jobs"][relation_id.rsplit("-l", 1)[0]] == "done"
    return state


def _kill_once(path: Path, server: ModelServer, rng: random.Random) -> bool:
    """Start a child, kill it mid-run; True when it left a job running."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(path), server.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        for _ in range(rng.randint(0, 2)):  # let it finish a few jobs first
            child.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.08))
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    return "running" in _state(path)["jobs"].values()


def test_extraction_jobs_survive_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(12)
    with ModelServer() as server:
        server.add_rule(lambda body: True, _decide)
        _queue_jobs(path, server)
        mid_job = 0
        for _ in range(KILLS):
            mid_job += _kill_once(path, server, rng)
            _check(path)
        done_before = list(_state(path)["jobs"].values()).count("done")
        with _memory(path, server) as memory:
            memory.run_jobs()
            jobs = memory.list_jobs(limit=1000)
        state = _check(path)
    print(f"kills mid-job: {mid_job}, jobs done before the final run: {done_before}")
    assert mid_job >= KILLS // 2, f"only {mid_job} kills landed inside a job"
    assert 0 < done_before < JOBS  # the kills interrupted real work
    assert [j.status for j in jobs] == ["done"] * JOBS
    assert len(state["records"]) == 1 + 2 * JOBS  # each job's two records, once
    assert sum(len(j.result.relation_ids) for j in jobs if j.result) == len(links(path)) == JOBS
