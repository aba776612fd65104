"""A handle never closed: at exit, or when it is collected, its extraction workers
stop (the running job finishes) before the store's file closes; collected, it
warns (ResourceWarning)."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import pytest

from graphmem.testing import ModelServer

from ._support import EXTRACT_MARK, memory, records, reply

_LEFT_OPEN = """
import sys, time
from graphmem import GraphMemory, HashingEmbedder, Llm
path, url = sys.argv[1], sys.argv[2]
mem = GraphMemory(path, embedder=HashingEmbedder(dim=32),
                  llm=Llm("scripted-llm", api_base=url, max_retries=0), extraction_workers=1)
thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
thread.add_messages([{"role": "user", "content": "I like tea."}])
job_id = thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
while mem.get_job(job_id).status != "running":
    time.sleep(0.01)
print(job_id, flush=True)
# exits here, the job's LLM call under way, without close()
"""


def test_exit_without_close_lets_the_running_job_finish_then_closes_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "left-open.db"
    with ModelServer() as server:
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
        server.stall("chat/completions", 1.0)
        done = subprocess.run(
            [sys.executable, "-c", _LEFT_OPEN, str(path), server.url],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        job_id = done.stdout.strip()
        assert not Path(f"{path}-wal").exists()  # the last connection closed
        with memory(server, path, extraction_workers=0) as mem:
            assert mem.get_job(job_id).status == "done"
            assert [m.content for m in mem.list_memories()] == ["The user likes tea."]


def test_an_unclosed_handle_with_running_workers_is_collected(tmp_path: Path) -> None:
    with ModelServer() as server:
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "The user likes tea."))))
        mem = memory(server, tmp_path / "dropped.db", extraction_workers=1)
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
        thread.wait_for_memory_extraction(timeout=30)
        workers = list(mem._jobs._threads)
        assert workers and all(w.is_alive() for w in workers)
        gone = weakref.ref(mem)
        with pytest.warns(ResourceWarning, match="unclosed GraphMemory"):
            del mem, thread
            gc.collect()
        assert gone() is None
        for worker in workers:
            worker.join(10)
        assert not any(w.is_alive() for w in workers)
        assert not Path(f"{tmp_path / 'dropped.db'}-wal").exists()


def test_workers_stopped_from_one_of_them_hand_its_job_back(tmp_path: Path) -> None:
    """The last reference to a handle may drop on one of its own workers (inside a
    job): its finalizer then stops the workers from that thread, which must not
    wait for itself, and still gives the running job back to the queue."""
    with ModelServer() as server:
        mem = memory(server, tmp_path / "self.db", extraction_workers=1)
        runner, store = mem._jobs, mem._store
        raised: list[BaseException] = []
        stopped = threading.Event()

        def execute(job: object) -> None:  # as if the finalizer ran here
            try:
                runner.stop(5.0, store)
            except BaseException as exc:
                raised.append(exc)
            stopped.set()

        runner._execute = execute  # type: ignore[method-assign]
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "I like tea."}])
        job_id = thread.schedule_extraction(config={"memory_link_extraction_mode": "DISABLED"})
        assert stopped.wait(30)
        assert raised == []
        assert mem.get_job(job_id).status == "queued"
        mem.close()
