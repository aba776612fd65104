"""Model stand-ins for search tests: scripted rerankers and a judging pruner."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from graphmem import GraphMemory
from graphmem.ai.protocols import RerankResult
from graphmem.search.prune import prompt_documents
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock

__all__ = ["JudgingLlm", "ScriptedReranker", "fruit_memory", "judgements"]


def fruit_memory(**kwargs: Any) -> GraphMemory:
    """Five memories about fruit in an in-memory store (hashing embedder default)."""
    memory = GraphMemory(MemoryStore(), clock=ManualClock(), **kwargs)
    for i, text in enumerate(
        ["apple pie recipe", "apple orchard visit", "banana bread", "cherry jam", "apple cider"]
    ):
        memory.add_memory(text, memory_id=f"m{i}")
    return memory


class ScriptedReranker:
    """Scores documents with ``score(query, text)``; records what it saw."""

    def __init__(self, score: Callable[[str, str], float] | None = None) -> None:
        self.score = score or (lambda query, text: float(len(text)))
        self.seen: list[list[str]] = []

    def rerank(self, query: str, documents: Sequence[str]) -> list[RerankResult]:
        self.seen.append(list(documents))
        return [RerankResult(i, self.score(query, d)) for i, d in enumerate(documents)]


def judgements(prompt: str, relevant: Callable[[str], bool]) -> str:
    """The JSON reply judging each ``[i]`` document of a pruner prompt."""
    listed = enumerate(prompt_documents(prompt))
    return json.dumps({"judgements": [{"index": i, "relevant": relevant(t)} for i, t in listed]})


class JudgingLlm:
    """A chat LLM that finds a document relevant when ``relevant(text)``."""

    def __init__(self, relevant: Callable[[str], bool]) -> None:
        self.relevant = relevant
        self.prompts: list[str] = []

    def chat(self, messages: Sequence[dict[str, str]], *, json_schema: Any = None) -> str:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        return judgements(prompt, self.relevant)
