"""Several servers on one store: a block is processed by one holder at a time.

Real ``graphmem serve`` processes share a SQLite file, with their models on a
ModelServer: a server that starts leaves alone the block another is processing,
and a live server takes over, without a restart, the block of a server that was
killed, resuming it without writing its content twice. In process, with a lease
of 1.5 seconds: the holder's renewals keep a block that takes almost three leases, and
without them another holder takes it over and the first one's outcome is fenced
out.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory, HashingEmbedder, Llm
from graphmem.client import AgentMemoryClient
from graphmem.service import block_worker
from graphmem.service.block_worker import BlockWorker
from graphmem.service.blocks import BlockService
from graphmem.service.schemas import AddMemoryBody
from graphmem.testing import ModelServer

from .conftest import _chat_reply, cli, start_server, stop_server


def _summaries(models: ModelServer) -> int:
    """Block summary calls so far (the other chat calls ask for JSON)."""
    return sum(
        1 for r in models.requests_to("chat/completions") if not r.body.get("response_format")
    )


def _row(db: Path, block_id: str | None = None) -> Any:
    conn = sqlite3.connect(db, timeout=30)
    try:
        query = "SELECT block_id, status, owner, summary, record_ids FROM graphmem_memory_block"
        if block_id is not None:
            return conn.execute(query + " WHERE block_id = ?", (block_id,)).fetchone()
        return conn.execute(query).fetchone()
    finally:
        conn.close()


def _contents(db: Path) -> list[str]:
    conn = sqlite3.connect(db, timeout=30)
    try:
        return [r[0] for r in conn.execute("SELECT content FROM graphmem_memory ORDER BY 1")]
    finally:
        conn.close()


def _wait(check: Any, seconds: float = 60.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def models() -> Iterator[ModelServer]:
    with ModelServer() as running:
        running.add_rule(lambda body: True, _chat_reply)
        yield running


def _admin_key(db: Path) -> str:
    done = cli("keys", "create", "--db", str(db), "--role", "admin")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_server_that_starts_leaves_a_block_another_is_processing(
    tmp_path: Path, models: ModelServer
) -> None:
    db = tmp_path / "shared.db"
    key = _admin_key(db)
    url, first = start_server(db, models)
    try:
        client = AgentMemoryClient(url, key)
        client.create_user("u")
        session = client.create_session(user_id="u", session_id="s")
        models.stall("chat/completions", 8.0)  # the block's summary: the first server works
        answer: dict[str, Any] = {}

        def add() -> None:
            answer["block"] = session.add_memory(
                facts=["Order #7 is late."], context_required=False, async_processing=False
            )

        call = threading.Thread(target=add)
        call.start()
        held = _wait(lambda: (row := _row(db)) is not None and row[1] == "processing" and row)
        assert held[2].split(":")[1] == str(first.pid)  # held by the first server
        _, second = start_server(db, models)  # its worker looks for blocks to take over
        try:
            call.join(timeout=60)
            block = answer["block"]
            assert (block.status, block.summary) == ("ready", "base")
            assert _summaries(models) == 1  # nobody processed it a second time
            assert _row(db)[1:4] == ("ready", None, "base")
        finally:
            stop_server(second)
    finally:
        stop_server(first)


def test_a_live_server_takes_over_the_block_of_a_killed_one(
    tmp_path: Path, models: ModelServer
) -> None:
    db = tmp_path / "shared.db"
    key = _admin_key(db)
    url, doomed = start_server(db, models)
    _, survivor = start_server(db, models)
    try:
        client = AgentMemoryClient(url, key)
        client.create_user("u")
        session = client.create_session(user_id="u", session_id="s")
        models.stall("chat/completions", 60.0)  # the doomed server's summary never returns
        block = session.add_memory(facts=["Order #7 is late."], context_required=False)
        held = _wait(
            lambda: (row := _row(db, block.block_id))[1] == "processing" and row[2] and row
        )
        assert held[2].split(":")[1] in {str(doomed.pid), str(survivor.pid)}
        holder, other = (doomed, survivor) if str(doomed.pid) in held[2] else (survivor, doomed)
        _wait(lambda: _summaries(models) == 1)  # its summary call hangs
        written = _row(db, block.block_id)
        assert written is not None and written[4] != "[]"  # the fact, written before it
        holder.kill()
        holder.wait(timeout=20)
        done = _wait(lambda: (row := _row(db, block.block_id))[1] == "ready" and row)
        assert done[2:5] == (None, "base", written[4])  # resumed: the fact is not written again
        assert _summaries(models) == 2  # the killed server's call, and the survivor's
        assert _contents(db) == ["Order #7 is late."]
        assert other.poll() is None
    finally:
        for process in (doomed, survivor):
            if process.poll() is None:
                stop_server(process)


@pytest.mark.parametrize("renew", [True, False])
def test_a_lease_renewed_keeps_the_block_and_one_run_out_loses_it(
    tmp_path: Path, models: ModelServer, monkeypatch: pytest.MonkeyPatch, renew: bool
) -> None:
    monkeypatch.setattr(block_worker, "LEASE_SECONDS", 1.5)
    if not renew:
        monkeypatch.setattr(BlockWorker, "_renew_blocks", lambda self, ids: 0)
    llm = Llm("chat-model", api_base=models.url)
    db = tmp_path / "leases.db"
    with (
        GraphMemory(db, embedder=HashingEmbedder(dim=8)) as mine,
        GraphMemory(db, embedder=HashingEmbedder(dim=8)) as theirs,
    ):
        mine.create_thread("s", user_id="u")
        holder, other = BlockService(mine, llm), BlockService(theirs, llm)
        queued = holder.add("s", AddMemoryBody(facts=["Order #7 is late."], context_required=False))
        models.stall("chat/completions", 4.0)  # almost three leases
        outcome: dict[str, Any] = {}
        running = threading.Thread(target=lambda: outcome.update(b=holder.process(queued.block_id)))
        running.start()
        _wait(lambda: _row(db, queued.block_id)[1] == "processing")
        released = []
        while running.is_alive():
            released.append(other.recover(force=True))  # looks for expired leases
            if released[-1]:
                other.process(queued.block_id)  # takes it over (its call is not stalled)
            time.sleep(0.05)
        running.join()
        stored = _row(db, queued.block_id)
        assert stored is not None and stored[1:4] == ("ready", None, "base")
        if renew:
            assert sum(released) == 0 and len(released) > 20
            assert _summaries(models) == 1
            assert outcome["b"].status == "ready"
        else:
            assert sum(released) == 1
            assert _summaries(models) == 2  # the first holder's late outcome is not written
        assert [m.content for m in mine.list_memories()] == ["Order #7 is late."]
        holder.stop()
        other.stop()


def test_a_stopped_worker_hands_its_blocks_back_and_starts_again(
    tmp_path: Path, models: ModelServer
) -> None:
    llm = Llm("chat-model", api_base=models.url)
    with GraphMemory(tmp_path / "restart.db", embedder=HashingEmbedder(dim=8)) as memory:
        memory.create_thread("s", user_id="u")
        blocks = BlockService(memory, llm)
        held = blocks.add("s", AddMemoryBody(facts=["One."], context_required=False))
        assert blocks._claim(held.block_id) is not None  # held here, as if mid-way
        first_owner = blocks.owner
        blocks.start()
        blocks.stop()  # hands it back, pending
        stored = _row(tmp_path / "restart.db", held.block_id)
        assert stored[1:3] == ("pending", None)
        assert blocks.owner != first_owner
        blocks.start()  # a new worker, under the new name, takes it up
        try:
            done = _wait(
                lambda: (row := _row(tmp_path / "restart.db", held.block_id))[1] == "ready" and row
            )
            assert done[3] == "base"
        finally:
            blocks.stop()


def test_a_worker_started_again_after_a_busy_stop_keeps_processing(
    tmp_path: Path, models: ModelServer
) -> None:
    """Stopped while it processes a block with more queued: the old worker exits
    after that block, leaving its queue behind; the next start's worker must not
    inherit it (its stop signal among it) and must process every later block."""
    llm = Llm("chat-model", api_base=models.url)
    db = tmp_path / "busy.db"
    with GraphMemory(db, embedder=HashingEmbedder(dim=8)) as memory:
        memory.create_thread("s", user_id="u")
        blocks = BlockService(memory, llm)
        blocks.start()
        try:
            models.stall("chat/completions", 1.0)
            first = blocks.add("s", AddMemoryBody(facts=["One."], context_required=False))
            second = blocks.add("s", AddMemoryBody(facts=["Two."], context_required=False))
            _wait(lambda: _row(db, first.block_id)[1] == "processing")
            blocks.stop()
            blocks.start()
            third = blocks.add("s", AddMemoryBody(facts=["Three."], context_required=False))
            for block in (first, second, third):
                _wait(lambda b=block: _row(db, b.block_id)[1] == "ready", seconds=20)
        finally:
            blocks.stop()
        assert _contents(db) == ["One.", "Three.", "Two."]
