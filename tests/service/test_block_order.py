"""A session's memory blocks write their messages in the order the client posted
them: a synchronous block after queued ones, blocks taken by two servers sharing
one SQLite file, and a block whose server was killed mid-way (real ``graphmem
serve`` processes, models on a ModelServer)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.testing import Fault, ModelServer

from .conftest import _chat_reply, cli, start_server, stop_server


@pytest.fixture
def models() -> Iterator[ModelServer]:
    with ModelServer() as running:
        running.add_rule(lambda body: True, _chat_reply)
        yield running


class _Api:
    def __init__(self, db: Path) -> None:
        done = cli("keys", "create", "--db", str(db), "--role", "admin")
        assert done.returncode == 0, done.stderr
        self.headers = {"Authorization": f"Bearer {done.stdout.strip()}"}

    def call(self, url: str, method: str, path: str, **kwargs: Any) -> Any:
        answer = httpx.request(method, url + path, headers=self.headers, timeout=120, **kwargs)
        assert answer.status_code < 300, answer.text
        return answer.json()

    def session(self, url: str) -> None:
        self.call(url, "POST", "/v1/users", json={"user_id": "u"})
        self.call(url, "POST", "/v1/sessions", json={"user_id": "u", "session_id": "s"})

    def turn(self, url: str, j: int, **options: Any) -> dict[str, Any]:
        turn = {"user_content": f"turn {j} question", "assistant_content": f"turn {j} answer"}
        body = {"messages": [turn], "context_required": False, **options}
        found: dict[str, Any] = self.call(url, "POST", "/v1/sessions/s/memory", json=body)
        return found

    def messages(self, url: str) -> list[str]:
        found = self.call(url, "GET", "/v1/sessions/s/messages")["messages"]
        assert [m["position"] for m in found] == sorted(m["position"] for m in found)
        return [m["content"] for m in found]


def _posted(turns: int) -> list[str]:
    return [text for j in range(turns) for text in (f"turn {j} question", f"turn {j} answer")]


def _statuses(db: Path) -> list[str]:
    conn = sqlite3.connect(db, timeout=30)
    try:
        query = "SELECT status FROM graphmem_memory_block ORDER BY created_at, block_id"
        return [r[0] for r in conn.execute(query)]
    finally:
        conn.close()


def _wait_ready(db: Path, count: int, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while _statuses(db) != ["ready"] * count:
        assert time.monotonic() < deadline, _statuses(db)
        time.sleep(0.05)


def _embedding_started(models: ModelServer, before: int) -> None:
    deadline = time.monotonic() + 60
    while len(models.requests_to("embeddings")) == before:
        assert time.monotonic() < deadline, "no embedding was asked for"
        time.sleep(0.02)


def test_a_synchronous_block_comes_after_the_queued_ones(
    tmp_path: Path, models: ModelServer
) -> None:
    db = tmp_path / "one.db"
    api = _Api(db)
    url, server = start_server(db, models)
    try:
        api.session(url)
        models.inject("embeddings", Fault(delay=2.0))  # the queue is still full then
        for j in range(5):
            assert api.turn(url, j)["status"] in ("pending", "processing")
        last = api.turn(url, 5, async_processing=False)
        assert last["status"] == "ready"
        _wait_ready(db, 6)
        assert api.messages(url) == _posted(6)
        card = api.call(url, "GET", "/v1/sessions/s/context_card?recent_message_count=2")
        assert [m["content"] for m in card["recent_messages"]] == _posted(6)[-2:]
    finally:
        stop_server(server)


def test_two_servers_take_a_sessions_blocks_in_the_order_posted(
    tmp_path: Path, models: ModelServer
) -> None:
    db = tmp_path / "two.db"
    api = _Api(db)
    first, one = start_server(db, models)
    second, two = start_server(db, models)
    try:
        api.session(first)
        before = len(models.requests_to("embeddings"))
        models.inject("embeddings", Fault(delay=3.0))  # the first block is slow to write
        api.turn(first, 0)
        _embedding_started(models, before)
        api.turn(second, 1)  # the other server's worker is free at once
        api.turn(second, 2)
        _wait_ready(db, 3)
        assert api.messages(first) == _posted(3)
    finally:
        stop_server(one)
        stop_server(two)


def _holder(db: Path) -> str:
    """The holder (``host:pid:token``) of the first block, once one took it."""
    deadline = time.monotonic() + 60
    while True:
        conn = sqlite3.connect(db, timeout=30)
        try:
            row = conn.execute("SELECT owner FROM graphmem_memory_block").fetchone()
        finally:
            conn.close()
        if row is not None and row[0]:
            return str(row[0])
        assert time.monotonic() < deadline, "nobody took the block"
        time.sleep(0.02)


def test_a_block_of_a_killed_server_is_taken_over_before_a_later_synchronous_one(
    tmp_path: Path, models: ModelServer
) -> None:
    db = tmp_path / "killed.db"
    api = _Api(db)
    servers = [start_server(db, models) for _ in range(2)]
    try:
        api.session(servers[0][0])
        before = len(models.requests_to("embeddings"))
        models.inject("embeddings", Fault(delay=60.0))  # its holder never gets the vectors
        api.turn(servers[0][0], 0)
        _embedding_started(models, before)
        pid = _holder(db).split(":")[1]
        (_, doomed), (survivor_url, _) = sorted(servers, key=lambda s: str(s[1].pid) != pid)
        assert str(doomed.pid) == pid
        answer: dict[str, Any] = {}
        call = threading.Thread(
            target=lambda: answer.update(api.turn(survivor_url, 1, async_processing=False))
        )
        call.start()
        time.sleep(1.0)
        assert call.is_alive() and _statuses(db) == ["processing", "processing"]  # it waits
        doomed.kill()
        doomed.wait(timeout=20)
        call.join(timeout=90)
        assert not call.is_alive() and answer["status"] == "ready"
        assert _statuses(db) == ["ready", "ready"]
        assert api.messages(survivor_url) == _posted(2)
    finally:
        for _, process in servers:
            if process.poll() is None:
                stop_server(process)
