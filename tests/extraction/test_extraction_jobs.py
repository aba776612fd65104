"""Durable extraction jobs: bounded LLM calls, retries with backoff, failure reports,
recovery of jobs a dead process left running, close(), and add_memory's links."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem import (
    ConflictError,
    ExtractionError,
    ExtractionTimeoutError,
    GraphMemory,
    InvalidArgumentError,
    NotFoundError,
)
from graphmem.core.validation import utc_now
from graphmem.extraction import jobs as job_module
from graphmem.owners import HOST
from graphmem.stores.job_base import StoredJob
from graphmem.testing import ModelServer
from graphmem.testing.memory_store import MemoryStore

from ._support import (
    EXTRACT_MARK,
    LINK_MARK,
    config,
    memory,
    prompt_of,
    records,
    reply,
)


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job_module, "BACKOFF_BASE", 0.01)


def _one_fact(body: dict[str, object]) -> str:
    last = prompt_of(body).split("===== MESSAGES =====\n")[1].splitlines()[-2]
    return reply(records(("fact", f"Fact from {last}")))


@pytest.mark.parametrize(("n", "every"), [(12, 3), (10, 4), (7, 1)])
@pytest.mark.parametrize("mode", ["POST_EXTRACTION", "DURING_EXTRACTION", "DISABLED"])
def test_jobs_llm_calls_are_bounded(server: ModelServer, n: int, every: int, mode: str) -> None:
    """At most 2 calls (POST) or 1 call per job, one job per ``every`` messages."""
    server.add_rule(LINK_MARK, reply(links=[]))
    server.add_rule(EXTRACT_MARK, _one_fact)
    cfg = config(memory_extraction_frequency=every, memory_link_extraction_mode=mode)
    with memory(server) as mem:
        mem.add_memory("The user likes facts.", user_id="u")
        thread = mem.create_thread(
            "t", user_id="u", memory_extraction_config=cfg, enable_context_summary=False
        )
        for i in range(n):  # one message per call: the count crosses each multiple once
            thread.add_messages([{"role": "user", "content": f"message {i}"}])
        thread.wait_for_memory_extraction(timeout=60)
        jobs = mem.list_jobs()
        calls = len(server.requests_to("chat/completions"))
        per_job = 2 if mode == "POST_EXTRACTION" else 1
        assert len(jobs) == n // every
        assert calls == sum(j.result.llm_calls for j in jobs if j.result) <= per_job * (n // every)
        if mode == "POST_EXTRACTION":
            assert calls == 2 * (n // every)  # a stored candidate: one link call each


def test_jobs_frequency_minus_one_is_one_job_per_call(server: ModelServer) -> None:
    server.add_rule(EXTRACT_MARK, reply(records()))
    cfg = config(memory_extraction_frequency=-1)
    with memory(server) as mem:
        thread = mem.create_thread("t", memory_extraction_config=cfg, enable_context_summary=False)
        for _ in range(3):
            thread.add_messages(
                [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
            )
        thread.wait_for_memory_extraction(timeout=30)
        assert len(mem.list_jobs(status="done")) == 3
        assert len(server.requests_to("chat/completions")) == 3


def test_jobs_retry_with_backoff_then_done(server: ModelServer, fast_backoff: None) -> None:
    server.fail("chat/completions", 500, "overloaded")
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    with memory(server) as mem:
        thread = mem.create_thread(
            "t", memory_extraction_config=config(), enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert (job.status, job.attempts, job.failures) == ("done", 2, 1)
        assert job.last_error is not None and "overloaded" in job.last_error
        assert [m.content for m in mem.list_memories()] == ["The user likes tea."]


def test_jobs_failed_after_max_attempts_then_retried(
    server: ModelServer, fast_backoff: None
) -> None:
    server.fail("chat/completions", 500, "down", times=2)
    with memory(server, extraction_max_attempts=2) as mem:
        thread = mem.create_thread(
            "t", memory_extraction_config=config(), enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        with pytest.raises(ExtractionError, match="down") as raised:
            thread.wait_for_memory_extraction(timeout=30)
        (failed,) = mem.list_jobs(status="failed")
        assert raised.value.job_ids == [failed.job_id] and failed.failures == 2
        assert mem.list_memories() == []
        with pytest.raises(ExtractionError):  # still reported, never silently dropped
            thread.wait_for_memory_extraction(timeout=30)
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
        assert mem.retry_job(failed.job_id).status in ("queued", "running", "done")
        thread.wait_for_memory_extraction(timeout=30)
        assert mem.get_job(failed.job_id).status == "done"
        with pytest.raises(ConflictError, match="not failed"):
            mem.retry_job(failed.job_id)


def test_jobs_wait_times_out(server: ModelServer) -> None:
    server.stall("chat/completions", 1.5)
    server.add_rule(EXTRACT_MARK, reply(records()))
    with memory(server) as mem:
        thread = mem.create_thread(
            "t", memory_extraction_config=config(), enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "slow"}])
        with pytest.raises(ExtractionTimeoutError):
            thread.wait_for_memory_extraction(timeout=0.2)
        thread.wait_for_memory_extraction(timeout=30)


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def _stuck_job(mem: GraphMemory, owner: str, lease_seconds: float) -> str:
    """A job as a process leaves it: claimed (running) and never finished."""
    thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "I like tea."}])
    job_id = thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
    store, now = mem._store, utc_now()
    with store.transaction():
        claimed = store.claim_job(owner, now, now + timedelta(seconds=lease_seconds), None)
    assert isinstance(claimed, StoredJob) and claimed.job_id == job_id
    return job_id


@pytest.mark.parametrize("owner_kind", ["dead-process", "expired-lease"])
def test_jobs_left_running_are_claimed_again_on_open(
    server: ModelServer, tmp_path: Path, owner_kind: str
) -> None:
    host = HOST if owner_kind == "dead-process" else "other-host"
    owner = f"{host}:{_dead_pid()}:abc"
    lease = 600.0 if owner_kind == "dead-process" else -1.0
    path = tmp_path / "j.db"
    with memory(server, path, extraction_workers=0) as mem:
        job_id = _stuck_job(mem, owner, lease)
        assert mem.get_job(job_id).status == "running"
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    with memory(server, path, extraction_workers=0) as mem:
        assert mem.run_jobs() == 1
        job = mem.get_job(job_id)
        assert (job.status, job.attempts) == ("done", 2)
        assert [m.content for m in mem.list_memories()] == ["The user likes tea."]


def test_jobs_left_behind_run_on_open_without_being_asked(
    server: ModelServer, tmp_path: Path
) -> None:
    path = tmp_path / "o.db"
    with memory(server, path, extraction_workers=0) as mem:
        job_id = _stuck_job(mem, f"{HOST}:{_dead_pid()}:gone", 600.0)
        queued = mem.get_thread("t").schedule_extraction(
            config={"memory_link_extraction_mode": "DISABLED"}
        )
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    with memory(server, path, extraction_workers=1) as mem:
        for _ in range(1000):  # nobody calls wait or run_jobs: the workers started at open
            if {mem.get_job(j).status for j in (job_id, queued)} == {"done"}:
                break
            time.sleep(0.01)
        assert {mem.get_job(j).status for j in (job_id, queued)} == {"done"}, [
            mem.get_job(j).last_error for j in (job_id, queued)
        ]


@pytest.mark.parametrize("owner_kind", ["dead-process", "expired-lease"])
def test_jobs_abandoned_too_often_fail_instead_of_running_forever(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch, owner_kind: str
) -> None:
    monkeypatch.setattr(job_module, "ABANDON_LIMIT", 3)
    host = HOST if owner_kind == "dead-process" else "other-host"
    lease = 600.0 if owner_kind == "dead-process" else -1.0
    owner = f"{host}:{_dead_pid()}:crashy"
    with memory(server, extraction_workers=0) as mem:
        job_id = _stuck_job(mem, owner, lease)
        store = mem._store
        for claims in (1, 2, 3):
            assert mem.get_job(job_id).attempts == claims
            assert mem._jobs.recover(force=True) == 1
            job = mem.get_job(job_id)
            if claims < 3:  # left by its process: queued again, no failure recorded
                assert (job.status, job.failures, job.last_error) == ("queued", 0, None)
                now = utc_now()
                with store.transaction():
                    store.claim_job(owner, now, now + timedelta(seconds=lease), None)
        assert (job.status, job.attempts, job.failures) == ("failed", 3, 0)
        assert job.last_error is not None and "abandoned" in job.last_error
        assert "3 times" in job.last_error
        assert mem.run_jobs() == 0  # nothing runs it again on its own
        with pytest.raises(ExtractionError, match="abandoned"):
            mem.get_thread("t").wait_for_memory_extraction(timeout=5)
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
        assert mem.retry_job(job_id).attempts == 0  # queued again as new
        assert mem.run_jobs() == 1
        assert (mem.get_job(job_id).status, mem.get_job(job_id).attempts) == ("done", 1)


@pytest.mark.parametrize("workers", [0, 1])
def test_jobs_longer_than_their_lease_keep_it(
    server: ModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(job_module, "LEASE_SECONDS", 1.0)
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    path = tmp_path / "lease.db"
    with memory(server, path, extraction_workers=0) as mem:
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "I like tea."}])
    server.stall("chat/completions", 3.0)  # the extraction's one LLM call: three leases
    with (
        memory(server, path, extraction_workers=workers) as mem,
        memory(server, path, extraction_workers=0) as other,  # another process's view
    ):
        job_id = mem.get_thread("t").schedule_extraction(
            config={"memory_link_extraction_mode": "DISABLED"}
        )
        if workers == 0:  # run in a thread of the test, as a service's own worker would
            running = threading.Thread(target=mem.run_jobs)
            running.start()
        released = []
        deadline = time.monotonic() + 15
        while mem.get_job(job_id).status != "done" and time.monotonic() < deadline:
            released.append(other._jobs.recover(force=True))  # looks for expired leases
            time.sleep(0.05)
        if workers == 0:
            running.join()
        job = mem.get_job(job_id)
        assert (job.status, job.attempts, job.failures) == ("done", 1, 0), job.last_error
        assert sum(released) == 0 and len(released) > 20
        assert [m.content for m in mem.list_memories()] == ["The user likes tea."]


@pytest.mark.parametrize("kind", ["sqlite", "memory store"])
def test_a_lease_is_renewed_only_for_its_owner_while_running(
    server: ModelServer, tmp_path: Path, kind: str
) -> None:
    opened = (
        memory(server, tmp_path / "r.db", extraction_workers=0)
        if kind == "sqlite"
        else memory(server, MemoryStore(), extraction_workers=0)
    )
    with opened as mem:
        job_id = _stuck_job(mem, "host:1:me", 60.0)
        store, now = mem._store, utc_now()
        later = now + timedelta(seconds=900)
        with store.transaction():
            claimed = store.get_job(job_id)
            assert claimed is not None and claimed.lease_until is not None
            assert not store.renew_job_lease(job_id, "host:1:other", now, later)
            assert store.get_job(job_id) == claimed
            assert store.renew_job_lease(job_id, "host:1:me", now, later)
            assert store.get_job(job_id).lease_until == later
            assert not store.renew_job_lease("no-such-job", "host:1:me", now, later)
            assert store.hand_back_jobs("host:1:me", now) == 1  # no longer running
            assert not store.renew_job_lease(job_id, "host:1:me", now, later)
            assert store.get_job(job_id).lease_until is None


@pytest.mark.parametrize("kind", ["sqlite", "memory store"])
def test_jobs_handed_back_on_close_are_not_counted_as_abandoned(
    server: ModelServer, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Clean closes take their claim's attempt back: after more of them than the
    abandonment limit, one crash still leaves the job queued, not failed."""
    monkeypatch.setattr(job_module, "ABANDON_LIMIT", 3)
    where = ":memory:" if kind == "sqlite" else MemoryStore()
    with memory(server, where, extraction_workers=0) as mem:  # type: ignore[arg-type]
        owner = mem._jobs.owner
        job_id = _stuck_job(mem, owner, 600.0)
        for _ in range(job_module.ABANDON_LIMIT + 2):
            now = utc_now()
            with mem._store.transaction():
                assert mem._store.hand_back_jobs(owner, now) == 1
                assert mem._store.get_job(job_id).attempts == 0  # type: ignore[union-attr]
                mem._store.claim_job(owner, now, now + timedelta(seconds=600), None)
        now, crashed = utc_now(), f"{HOST}:{_dead_pid()}:crashed"
        with mem._store.transaction():
            mem._store.hand_back_jobs(owner, now)
            mem._store.claim_job(crashed, now, now + timedelta(seconds=600), None)
        assert mem._jobs.recover(force=True) == 1
        job = mem.get_job(job_id)
        assert (job.status, job.attempts, job.failures, job.last_error) == ("queued", 1, 0, None)


def test_delete_thread_deletes_its_jobs_but_a_running_one_finishes_empty(
    server: ModelServer,
) -> None:
    with memory(server, extraction_workers=0) as mem:
        running = _stuck_job(mem, "other-host:1:live", 600.0)
        thread = mem.get_thread("t")
        queued = thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
        other = mem.create_thread("other", user_id="u", enable_context_summary=False)
        other.add_messages([{"role": "user", "content": "I like coffee."}])
        kept = other.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
        mem.delete_thread("t")
        assert [j.job_id for j in mem.list_jobs(limit=100)] == sorted(
            [running, kept], key=lambda j: (mem.get_job(j).created_at, j)
        )
        with pytest.raises(NotFoundError):
            mem.get_job(queued)
        assert mem.list_jobs(thread_id="t") == [mem.get_job(running)]


def test_jobs_of_a_live_owner_elsewhere_are_left_alone(server: ModelServer) -> None:
    with memory(server, extraction_workers=0) as mem:
        job_id = _stuck_job(mem, "other-host:1:live", 600.0)
        assert mem.run_jobs() == 0 and mem.get_job(job_id).status == "running"


def test_jobs_close_gives_unfinished_jobs_back(
    server: ModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graphmem.memory as memory_module

    monkeypatch.setattr(memory_module, "CLOSE_TIMEOUT", 0.2)
    server.stall("chat/completions", 1.0)
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    path = tmp_path / "c.db"
    mem = memory(server, path, extraction_workers=1)
    thread = mem.create_thread("t", memory_extraction_config=config(), enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "I like tea."}])
    for _ in range(200):
        if mem.list_jobs(status="running"):
            break
        time.sleep(0.01)
    mem.close()
    with memory(server, path, extraction_workers=0) as again:
        (job,) = again.list_jobs()
        assert (job.status, job.attempts) == ("queued", 0)
        again.get_thread("t").wait_for_memory_extraction(timeout=30)
        assert [m.content for m in again.list_memories()] == ["The user likes tea."]
        assert again.get_job(job.job_id).status == "done"


def test_jobs_schedule_extraction_checks_arguments_first(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = mem.create_thread("t", enable_context_summary=False)
        other = mem.create_thread("o", enable_context_summary=False)
        (foreign,) = other.add_messages([{"role": "user", "content": "elsewhere"}])
        with pytest.raises(NotFoundError, match=r"message_ids\[0\]"):
            thread.schedule_extraction([foreign])
        with pytest.raises(InvalidArgumentError, match="prompt_vid"):
            thread.schedule_extraction(prompt_vid=1)
        with pytest.raises(InvalidArgumentError, match=r"config\.memory_extraction_window"):
            thread.extract_memories(config={"memory_extraction_window": 0})
        assert mem.list_jobs() == [] and server.requests == []


def test_jobs_run_on_the_in_memory_store(server: ModelServer) -> None:
    server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
    with memory(server, MemoryStore()) as mem:
        thread = mem.create_thread(
            "t", memory_extraction_config=config(), enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        thread.wait_for_memory_extraction(timeout=30)
        assert [j.status for j in mem.list_jobs()] == ["done"]
