"""Helpers of the extraction tests: scripted LLM replies and graph checks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder, Llm, MemoryExtractionConfig
from graphmem.extraction.prompting import quoted
from graphmem.testing import ModelServer

LIFECYCLE = ("supersedes", "refines", "duplicates")
EXTRACT_MARK = "You extract long-term memories"
LINK_MARK = "===== NEW MEMORIES ====="


def records(*items: tuple[str, str] | tuple[str, str, list[int]]) -> dict[str, Any]:
    """``{"records": [...]}`` from ``(type, content[, source numbers])`` items."""
    return {
        "records": [
            {
                "record_type": i[0],
                "content": i[1],
                "source_messages": list(i[2]) if len(i) > 2 else [1],
            }  # type: ignore[misc]
            for i in items
        ]
    }


def reply(
    records_part: dict[str, Any] | None = None, links: list[tuple[str, str, str]] | None = None
) -> str:
    body: dict[str, Any] = dict(records_part or {})
    if links is not None:
        body["links"] = [{"source": s, "target": t, "relation_type": r} for s, t, r in links]
    return json.dumps(body)


def prompt_of(request_body: dict[str, Any]) -> str:
    return str(request_body["messages"][-1]["content"])


def ref_of(prompt: str, content: str) -> str:
    """The ``mem-N`` label a prompt gives the stored record with this content."""
    found = re.search(r"(mem-\d+) \(\w+\): " + re.escape(quoted(content)) + "\n", prompt)
    assert found is not None, f"{content!r} is not a candidate in the prompt"
    return found.group(1)


def llm(server: ModelServer, **options: Any) -> Llm:
    return Llm("scripted-llm", api_base=server.url, max_retries=0, **options)


def memory(server: ModelServer, path: str | Path = ":memory:", **options: Any) -> GraphMemory:
    options.setdefault("llm", llm(server))
    return GraphMemory(path, embedder=HashingEmbedder(dim=32), **options)


def config(**fields: Any) -> MemoryExtractionConfig:
    fields.setdefault("memory_extraction_frequency", 1)
    return MemoryExtractionConfig(**fields)


def invariant_violations(mem: GraphMemory) -> list[str]:
    """Memories whose status disagrees with the lifecycle links that target them."""
    bad = []
    for record in mem.list_memories(limit=10_000, include_expired=True):
        targeted = any(
            link.target_record_id == record.id and link.relation_type in LIFECYCLE
            for link in mem.list_record_links(record.id)
        )
        if (record.status == "invalid") != targeted:
            bad.append(record.id)
    return bad


def graph(mem: GraphMemory) -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """Records as (type, content, status) and links as (source, type, target) contents."""
    stored = {m.id: m for m in mem.list_memories(limit=10_000)}
    nodes = {(m.record_type, m.content, m.status) for m in stored.values()}
    edges = {
        (
            stored[link.source_record_id].content,
            link.relation_type,
            stored[link.target_record_id].content,
        )
        for link in mem.list_record_links()
    }
    return nodes, edges
