"""The jobs of one thread run one at a time, in the order they were queued: a job
is not claimed while its thread runs another (whose lease has not run out) or
has an older one queued. Jobs of different threads still run side by side."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from graphmem.core.validation import format_time, utc_now
from graphmem.extraction.prompting import quoted
from graphmem.stores.base import Store
from graphmem.stores.job_base import StoredJob
from graphmem.stores.sqlite import SqliteStore
from graphmem.testing import ModelServer
from graphmem.testing.memory_store import MemoryStore

from ._support import LINK_MARK, memory, prompt_of, records, reply

PARIS = "The user lives in Paris."
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


@pytest.mark.parametrize("kind", ["sqlite", "memory store"])
def test_two_workers_run_one_threads_jobs_in_turn(
    server: ModelServer, tmp_path: Path, kind: str
) -> None:
    """Ten messages, frequency 5: two jobs whose windows both hold "I live in
    Paris". With two workers the second starts once the first is done, so its
    linking sees the first one's record and links the duplicate."""
    arrivals: list[tuple[datetime, str]] = []

    def answer(body: dict[str, Any]) -> str:
        prompt = prompt_of(body)
        arrivals.append((utc_now(), prompt))
        if LINK_MARK in prompt:
            stored = prompt.split("===== STORED MEMORIES =====")[1]
            if f"mem-0 (fact): {quoted(PARIS)}" in stored:
                return reply(links=[("new-0", "mem-0", "duplicates")])
            return reply(links=[])
        return reply(records(("fact", PARIS)))

    server.add_rule(lambda body: True, answer)
    server.stall("chat/completions", 0.5, times=4)
    where = tmp_path / "j.db" if kind == "sqlite" else MemoryStore()
    with memory(server, where, extraction_workers=2) as mem:  # type: ignore[arg-type]
        mem.add_memory("The user likes tea.", user_id="u", memory_type="fact")
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        said = [{"role": "user", "content": "I live in Paris."}]
        thread.add_messages(said + [{"role": "user", "content": f"filler {i}"} for i in range(9)])
        thread.wait_for_memory_extraction(timeout=60)
        first, second = mem.list_jobs()
        assert (first.status, second.status) == ("done", "done")
        assert first.payload["upto"] == 5 and second.payload["upto"] == 10
        started = min(at for at, prompt in arrivals if "filler 8" in prompt)
        assert started >= first.updated_at
        assert server.peak_in_flight == 1
        (link,) = mem.list_record_links()
        assert link.relation_type == "duplicates"
        assert sorted(m.status for m in mem.list_memories(user_id="u")) == [
            "invalid",
            "valid",
            "valid",
        ]


def _job(job_id: str, thread_id: str, created: int, due: int = 0) -> StoredJob:
    at = T0 + timedelta(seconds=created)
    return StoredJob(
        job_id=job_id,
        kind="extract",
        thread_id=thread_id,
        status="queued",
        attempts=0,
        failures=0,
        owner=None,
        lease_until=None,
        not_before=T0 + timedelta(seconds=due),
        last_error=None,
        payload={},
        result=None,
        created_at=at,
        updated_at=at,
    )


@pytest.fixture(params=["sqlite", "memory store"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    opened: Store = (
        SqliteStore(":memory:", "graphmem") if request.param == "sqlite" else MemoryStore()
    )
    yield opened
    opened.close()


def _claim(store: Store, now: datetime, lease: float = 60.0) -> str | None:
    with store.transaction():
        job = store.claim_job("host:1:me", now, now + timedelta(seconds=lease), None)
    return None if job is None else job.job_id


def test_a_threads_next_job_waits_for_its_running_and_older_jobs(store: Store) -> None:
    now, later = T0 + timedelta(hours=1), T0 + timedelta(days=1)
    with store.transaction():
        # "b" is due first, and its id is first, but "z-a" was queued before it
        for job in (_job("z-a", "t", 1, due=5), _job("b", "t", 2), _job("o", "other", 3, due=10)):
            store.insert_job(job)
    assert _claim(store, now) == "z-a"
    assert _claim(store, now) == "o"  # another thread's job runs meanwhile
    assert _claim(store, now) is None  # "b" waits for "z-a"
    with store.transaction():  # "z-a" failed an attempt: queued again, due later
        store.fail_job("z-a", "host:1:me", status="queued", error="x", not_before=later, now=now)
    assert _claim(store, now) is None  # "b" still waits: "z-a" is older
    assert _claim(store, later) == "z-a"
    with store.transaction():
        assert store.finish_job("z-a", "host:1:me", {}, now)
    assert _claim(store, now) == "b"


def test_a_running_job_whose_lease_ran_out_holds_nothing_back(store: Store) -> None:
    now = T0 + timedelta(hours=1)
    with store.transaction():
        store.insert_job(_job("a", "t", 1))
        store.insert_job(_job("b", "t", 2))
    assert _claim(store, now, lease=-1.0) == "a"  # its owner stopped renewing it
    assert _claim(store, now) == "b"


def _claim_picked(store: Any, job_id: str, now: datetime) -> int:
    """claim-job on a job picked earlier (by next-job, before the change below)."""
    with store.transaction():
        return int(
            store._run(
                "claim-job",
                job_id=job_id,
                owner="host:2:other",
                lease_until=format_time(now + timedelta(seconds=60)),
                now=format_time(now),
            ).rowcount
        )


@pytest.mark.parametrize("change", ["retried", "claimed", "put off"])
def test_a_claim_checks_again_what_its_pick_chose_by(tmp_path: Path, change: str) -> None:
    """Between next-job and claim-job another transaction may queue an older job of
    the thread again (a retry), start one of its jobs, or put the picked job off.
    On Oracle nothing serializes the two statements' reads with such writes, so the
    claim tests again what the pick tested; here the change is made between them."""
    store: Any = SqliteStore(tmp_path / "c.db", "graphmem")
    now = T0 + timedelta(hours=1)
    with store.transaction():
        older = _job("a", "t", 1)
        store.insert_job(replace(older, status="failed") if change == "retried" else older)
        store.insert_job(_job("b", "t", 2))
        (picked,) = store._run("next-job", now=format_time(now), thread_id=None).fetchone()[:1]
    assert picked == ("b" if change == "retried" else "a")
    with store.transaction():
        if change == "retried":
            assert store.retry_job("a", now)
        elif change == "claimed":  # another owner takes "a"; this one tries "b"
            assert (
                store._run(
                    "claim-job",
                    job_id="a",
                    owner="host:1:me",
                    lease_until=format_time(now + timedelta(seconds=60)),
                    now=format_time(now),
                ).rowcount
                == 1
            )
            picked = "b"
        else:
            later = format_time(now + timedelta(hours=1))
            store._conn.execute(
                "UPDATE graphmem_job SET not_before = ? WHERE job_id = 'a'", (later,)
            )
    assert _claim_picked(store, picked, now) == 0
    with store.transaction():
        assert store.get_job(picked).status == "queued"
    store.close()
