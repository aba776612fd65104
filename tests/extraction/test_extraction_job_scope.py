"""A job belongs to the thread it was queued for: deleting the thread, or its
user or agent, leaves nothing of it to run on a thread made again under the same
id; waiting for jobs keeps its timeout when the caller runs them itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import ExtractionTimeoutError, GraphMemory, MemoryExtractionConfig
from graphmem.extraction import jobs as job_module
from graphmem.testing import Fault, ModelServer
from graphmem.testing.memory_store import MemoryStore

from ._support import EXTRACT_MARK, config, memory, prompt_of, records, reply


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        running.add_rule(EXTRACT_MARK, reply(records(("fact", "EXTRACTED"))))
        yield running


def _settled(mem: GraphMemory, deadline_s: float = 30.0) -> None:
    deadline = time.monotonic() + deadline_s
    while any(j.status in ("queued", "running") for j in mem.list_jobs(limit=100)):
        assert time.monotonic() < deadline, mem.list_jobs(limit=100)
        time.sleep(0.05)


def test_a_running_job_of_a_deleted_thread_never_reads_the_thread_made_again(
    server: ModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job_module, "BACKOFF_BASE", 0.01)
    with memory(server, tmp_path / "m.db", extraction_workers=1) as mem:
        alice = mem.create_thread(
            "t",
            user_id="alice",
            enable_context_summary=False,
            memory_extraction_config=config(memory_link_extraction_mode="DISABLED"),
        )
        server.inject("chat/completions", Fault(status=500, delay=1.0))  # fails, late
        alice.add_messages([{"role": "user", "content": "alice secret"}])
        deadline = time.monotonic() + 10
        while [j.status for j in mem.list_jobs()] != ["running"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        mem.delete_thread("t")
        bob = mem.create_thread(
            "t",
            user_id="bob",
            enable_context_summary=False,
            memory_extraction_config={"extract_memories": False},
        )
        bob.add_messages([{"role": "user", "content": "bob private message"}])
        _settled(mem)  # the failed attempt was queued again, and has run again
        assert [j.status for j in mem.list_jobs()] == ["done"]
        assert mem.list_memories(user_id="bob") == []
        prompts = [prompt_of(r.body) for r in server.requests_to("chat/completions")]
        assert not any("bob private message" in p for p in prompts)


@pytest.mark.parametrize("kind", ["user", "agent"])
def test_deleting_a_user_or_agent_deletes_its_threads_queued_jobs(
    server: ModelServer, tmp_path: Path, kind: str
) -> None:
    with memory(server, tmp_path / "m.db", extraction_workers=0) as mem:
        mem.add_user("alice")
        mem.add_agent("helper")
        for tid in ("t1", "t2"):
            thread = mem.create_thread(
                tid,
                user_id="alice",
                agent_id="helper",
                enable_context_summary=False,
                memory_extraction_config=config(memory_link_extraction_mode="DISABLED"),
            )
            thread.add_messages([{"role": "user", "content": f"alice said {tid}"}])
        other = mem.create_thread(
            "o",
            user_id="bob",
            agent_id="other",
            enable_context_summary=False,
            memory_extraction_config=config(memory_link_extraction_mode="DISABLED"),
        )
        other.add_messages([{"role": "user", "content": "bob said"}])
        assert len(mem.list_jobs()) == 3
        if kind == "user":
            mem.delete_user("alice")
        else:
            mem.delete_agent("helper")
        assert [j.thread_id for j in mem.list_jobs()] == ["o"]
        # the ids are free again, and a new thread there runs only its own job
        again = mem.create_thread("t1", user_id="carol", enable_context_summary=False)
        again.add_messages([{"role": "user", "content": "carol said"}])
        assert mem.run_jobs() == 1
        assert mem.list_memories(user_id="carol") == []


def test_waiting_without_workers_stops_at_its_timeout(server: ModelServer, tmp_path: Path) -> None:
    with memory(server, tmp_path / "m.db", extraction_workers=0) as mem:
        thread = mem.create_thread(
            "t",
            enable_context_summary=False,
            memory_extraction_config=config(memory_link_extraction_mode="DISABLED"),
        )
        thread.add_messages([{"role": "user", "content": f"message {i}"} for i in range(5)])
        server.stall("chat/completions", 0.4, times=5)
        started = time.monotonic()
        with pytest.raises(ExtractionTimeoutError):
            thread.wait_for_memory_extraction(timeout=0.5)
        assert time.monotonic() - started < 1.5  # two jobs at most, not all five
        assert 1 <= [j.status for j in mem.list_jobs()].count("done") <= 2


@pytest.mark.parametrize("store", ["sqlite", "memory"])
def test_an_extraction_run_at_once_counts_its_attempt(
    server: ModelServer, tmp_path: Path, store: str
) -> None:
    where = tmp_path / "m.db" if store == "sqlite" else MemoryStore()
    with memory(server, where) as mem:  # type: ignore[arg-type]
        thread = mem.create_thread("t", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        thread.extract_memories(
            config=MemoryExtractionConfig(memory_link_extraction_mode="DISABLED")
        )
        [job] = mem.list_jobs()
        assert (job.status, job.attempts, job.failures) == ("done", 1, 0)
