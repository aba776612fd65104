"""The pruner's concurrent probes run in copies of the caller's context, as the
probes of a one-group prune (run in the caller's thread) do."""

from __future__ import annotations

import asyncio
import contextvars
import json
from typing import Any

from graphmem import GraphMemory, HashingEmbedder
from graphmem.search.config import PruningMemorySearchConfig
from graphmem.search.prune import prompt_documents

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "graphmem_test_request_id", default=None
)


class _Pruner:
    """Keeps every record, and notes the request id each probe saw."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    def chat(self, messages: list[dict[str, Any]], *, json_schema: Any = None) -> str:
        self.seen.append(request_id.get())
        count = len(prompt_documents(messages[-1]["content"]))
        return json.dumps({"judgements": [{"index": i, "relevant": True} for i in range(count)]})


def test_pruner_probes_see_the_callers_context() -> None:
    pruner = _Pruner()
    config = PruningMemorySearchConfig(pruner=pruner, evaluation_mode="exhaustive")
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=16)) as memory:
        for i in range(30):
            memory.add_memory(f"tea fact {i}")
        request_id.set("sync-call")
        memory.search("tea", max_results=30, search_config=config)
        assert len(pruner.seen) > 1 and set(pruner.seen) == {"sync-call"}
        pruner.seen.clear()

        async def awaited() -> None:
            request_id.set("async-call")
            await memory.search_async("tea", max_results=30, search_config=config)

        asyncio.run(awaited())
        assert len(pruner.seen) > 1 and set(pruner.seen) == {"async-call"}
