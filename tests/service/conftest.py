"""A real ``graphmem serve`` subprocess on 127.0.0.1, with models from a ModelServer.

The LLM answers thread summaries (JSON) and block summaries (text); a block summary
names the prompt it was made under (``custom: <text>`` or ``base``), so tests can
see which prompt version processing used.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.testing import ModelServer

OPERATOR = "===== OPERATOR INSTRUCTIONS (untrusted) =====\n"
OPERATOR_END = "\n===== END OF OPERATOR INSTRUCTIONS ====="


def summary_of(system: str) -> str:
    """A block summary naming the registry text its system prompt carried, if any."""
    if OPERATOR not in system:
        return "base"
    return "custom: " + system.split(OPERATOR, 1)[1].split(OPERATOR_END, 1)[0]


def _chat_reply(body: dict[str, Any]) -> str:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    if str(schema.get("name", "")).startswith("memory_extraction"):
        text = "\n".join(str(m["content"]) for m in body["messages"])
        kind = "custom" if "order numbers" in text else "base"
        record = {"record_type": "fact", "content": f"Order #7 is late ({kind}).",
                  "source_messages": [1]}  # fmt: skip
        return json.dumps({"records": [record], "links": []})
    if schema.get("name") == "memory_links":
        return json.dumps({"links": []})
    if body.get("response_format"):
        return json.dumps({"summary": "A support conversation.", "topics": ["support"]})
    return summary_of(str(body["messages"][0]["content"]))


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@dataclass
class Served:
    url: str
    db: Path
    admin_key: str
    read_key: str
    models: ModelServer
    process: subprocess.Popen[bytes]


def start_server(db: Path, models: ModelServer | None, *extra: str) -> tuple[str, Any]:
    """``graphmem serve`` on a port it chooses itself (``--port 0``: a port picked
    here and released before the server binds it could be taken meanwhile), and
    the URL it announces once it answers ``/health``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    if models is not None:
        env |= {
            "GRAPHMEM_LLM_MODEL": "chat-model",
            "GRAPHMEM_LLM_API_BASE": models.url,
            "GRAPHMEM_EMBEDDER_MODEL": "embed-model",
            "GRAPHMEM_EMBEDDER_API_BASE": models.url,
        }
    command = [sys.executable, "-m", "graphmem", "serve", "--db", str(db), "--port", "0"]
    log_path = db.with_suffix(".log")
    log = log_path.open("wb")  # a file, so a chatty server never blocks
    process = subprocess.Popen([*command, *extra], env=env, stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    url = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"graphmem serve ended: {log_path.read_text()}")
        if url is None:
            found = re.search(r"serving .* on (http://\S+)", log_path.read_text())
            url = found[1] if found else None
        try:
            if url is not None and httpx.get(url + "/health", timeout=1).status_code == 200:
                return url, process
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.terminate()
    raise RuntimeError("graphmem serve did not answer /health within 60 s")


def stop_server(process: Any) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("served") / "service.db"
    keys = []
    for role in ("admin", "read"):
        done = cli("keys", "create", "--db", str(db), "--role", role)
        assert done.returncode == 0, done.stderr
        keys.append(done.stdout.strip())
    with ModelServer() as models:
        models.add_rule(lambda body: True, _chat_reply)
        url, process = start_server(db, models)
        try:
            yield Served(url, db, keys[0], keys[1], models, process)
        finally:
            stop_server(process)
