"""An in-process service (FastAPI's TestClient) for tests that need to hold blocks
pending, swap models or count embedder calls."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from fastapi.testclient import TestClient

from graphmem import GraphMemory, HashingEmbedder, MemoryExtractionConfig
from graphmem.errors import ModelError
from graphmem.service import ServiceConfig, create_app
from graphmem.service.keys import create_key

OPERATOR = "===== OPERATOR INSTRUCTIONS (untrusted) =====\n"
OPERATOR_END = "\n===== END OF OPERATOR INSTRUCTIONS ====="


def summary_of(system: str) -> str:
    """A block summary naming the registry text its system prompt carried, if any."""
    if OPERATOR not in system:
        return "base"
    return "custom: " + system.split(OPERATOR, 1)[1].split(OPERATOR_END, 1)[0]


def _structured(schema: Mapping[str, Any], messages: Sequence[Mapping[str, str]]) -> str:
    """A thread summary, or one extracted fact per extraction naming the prompt it ran
    under (``custom`` when the registry prompt was injected)."""
    if str(schema.get("title", "")).startswith("memory_extraction"):
        prompt = "\n".join(m["content"] for m in messages)
        kind = "custom" if "Extract order numbers" in prompt else "base"
        record = {"record_type": "fact", "content": f"Order #7 is late ({kind}).",
                  "source_messages": [1]}  # fmt: skip
        return json.dumps({"records": [record], "links": []})
    if schema.get("title") == "memory_links":
        return '{"links": []}'
    return '{"summary": "A conversation.", "topics": ["support"]}'


class ScriptedLlm:
    """Thread summaries as JSON; block summaries name their prompt; ``fail`` raises."""

    def __init__(self) -> None:
        self.fail = False
        self.calls = 0

    def chat(
        self, messages: Sequence[Mapping[str, str]], *, json_schema: Mapping[str, Any] | None = None
    ) -> str:
        self.calls += 1
        if self.fail:
            raise ModelError("chat failed", status=503, provider_message="down")
        if json_schema is not None:
            return _structured(json_schema, messages)
        return summary_of(messages[0]["content"])


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return super().embed(texts)


class Service:
    """A GraphMemory, its app, a TestClient and an admin and a read key."""

    def __init__(self, *, llm: ScriptedLlm | None = None, **config: Any) -> None:
        self.embedder = CountingEmbedder()
        self.llm = llm
        self.memory = GraphMemory(
            ":memory:",
            embedder=self.embedder,
            llm=llm,
            memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
        )
        self.admin_key, _ = create_key(self.memory._store, "admin")
        self.read_key, _ = create_key(self.memory._store, "read")
        self.app = create_app(self.memory, llm=llm, config=ServiceConfig(**config))
        self.blocks = self.app.state.blocks
        self.http = TestClient(self.app, raise_server_exceptions=False)

    def headers(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.admin_key}"}

    def call(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> Any:
        return self.http.request(method, path, headers=self.headers(key), **kwargs)

    def session(self, user_id: str = "u", session_id: str = "s") -> None:
        assert self.call("POST", "/v1/users", json={"user_id": user_id}).status_code == 201
        body = {"user_id": user_id, "session_id": session_id}
        assert self.call("POST", "/v1/sessions", json=body).status_code == 201

    def close(self) -> None:
        self.http.close()
        self.memory.close()
