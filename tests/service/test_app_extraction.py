"""create_app over a GraphMemory of the caller's, one that extracts memories on its
own (an LLM, extraction on): a memory block is the service's unit of extraction,
so its messages are extracted once, by the block, and queue no extraction job of
their own, as under ``graphmem serve``. Served by uvicorn on 127.0.0.1, with the
models of a ModelServer."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from graphmem import GraphMemory, HashingEmbedder, Llm
from graphmem.service import create_app
from graphmem.service.keys import create_key
from graphmem.testing import ModelServer

PARIS = "The user lives in Paris."


def _reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    if "===== MESSAGES =====" in prompt:
        record = {"record_type": "fact", "content": PARIS, "source_messages": [1]}
        return json.dumps({"records": [record]})
    if "===== NEW MEMORIES =====" in prompt:
        return json.dumps({"links": []})
    if body.get("response_format"):
        return json.dumps({"summary": "A conversation.", "topics": []})
    return "A block summary."


@contextmanager
def _serving(app: FastAPI) -> Iterator[str]:
    """``app`` under uvicorn on a port of 127.0.0.1 the socket chose itself."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.02)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_a_memory_that_extracts_by_itself_extracts_each_block_once(tmp_path: Path) -> None:
    with ModelServer() as models:
        models.add_rule(lambda body: True, _reply)
        llm = Llm("chat-model", api_base=models.url, max_retries=0)
        # extraction on, every 5 messages: a block of 3 turns holds 6
        memory = GraphMemory(tmp_path / "app.db", embedder=HashingEmbedder(dim=16), llm=llm)
        key, _ = create_key(memory._store, "admin")
        try:
            with _serving(create_app(memory, llm=llm)) as url:
                http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"})
                assert http.post("/v1/users", json={"user_id": "u"}).status_code == 201
                body = {"user_id": "u", "session_id": "s1"}
                assert http.post("/v1/sessions", json=body).status_code == 201
                turns = [
                    {"user_content": f"I live in Paris ({i}).", "assistant_content": "Noted."}
                    for i in range(3)
                ]
                body = {"messages": turns, "async_processing": False}
                answer = http.post("/v1/sessions/s1/memory", json=body, timeout=60)
                assert answer.status_code in (200, 201), answer.text
                assert answer.json()["status"] == "ready"
                http.close()
            memory.get_thread("s1").wait_for_memory_extraction(timeout=30)
            assert len(memory.get_thread("s1").get_messages()) == 6
            assert [m.content for m in memory.list_memories(user_id="u")] == [PARIS]
            (job,) = memory.list_jobs()  # the block's extraction, and no other
            assert job.status == "done" and job.job_id.startswith("block_")
            extracting = [
                r
                for r in models.requests_to("chat/completions")
                if "===== MESSAGES =====" in str(r.body["messages"][-1]["content"])
            ]
            assert len(extracting) == 1
        finally:
            memory.close()
