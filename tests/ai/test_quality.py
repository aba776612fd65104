"""Search quality of the default embedder on a labelled paraphrase set (tests/data).

Each query is worded differently from its target memory. The default
embedder must put the target first for at least 80% of the queries and in the
top 3 for at least 95%. The hashing embedder's figures are printed beside
them (``pytest -s``); docs/models.md records both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, HashingEmbedder

DATA = Path(__file__).parent.parent / "data" / "paraphrase_recall.json"
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "do",
        "does",
        "did",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "and",
        "or",
        "be",
        "by",
        "at",
        "his",
        "her",
        "he",
        "she",
        "they",
        "their",
        "them",
        "this",
        "that",
        "what",
        "which",
        "who",
        "when",
        "where",
        "why",
        "how",
        "should",
        "i",
        "it",
        "its",
        "not",
        "has",
        "have",
        "no",
        "from",
        "user",
        "user's",
        "person",
    ]
)


def _data() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z']+", text.lower()) if w not in STOP}


def recall(embedder: object) -> tuple[float, float]:
    """Fractions of queries whose target is first, and in the top 3, via GraphMemory.search."""
    data = _data()
    with GraphMemory(":memory:", embedder=embedder) as memory:
        memory.add_memories(
            [{"content": m["text"], "memory_id": m["id"]} for m in data["memories"]]
        )
        ranks = []
        for query in data["queries"]:
            ids = [r.id for r in memory.search(query["query"], max_results=3)]
            ranks.append(ids.index(query["target"]) if query["target"] in ids else 3)
    count = len(ranks)
    return sum(r == 0 for r in ranks) / count, sum(r < 3 for r in ranks) / count


def test_quality_set_is_large_and_reworded() -> None:
    data = _data()
    memories = {m["id"]: m["text"] for m in data["memories"]}
    targets = [q["target"] for q in data["queries"]]
    assert len(memories) == len(data["memories"]) >= 40
    assert len(set(memories.values())) == len(memories)
    assert len(targets) >= 30 and len(set(targets)) == len(targets)
    assert set(targets) <= set(memories)
    for query in data["queries"]:
        shared = _content_words(query["query"]) & _content_words(memories[query["target"]])
        assert len(shared) <= 1, (query["query"], shared)


def test_quality_default_embedder_recall() -> None:
    top1, top3 = recall(None)
    hash_top1, hash_top3 = recall(HashingEmbedder())
    print(f"\ndefault: top1 {top1:.1%} top3 {top3:.1%}")
    print(f"hashing: top1 {hash_top1:.1%} top3 {hash_top3:.1%}")
    assert top1 >= 0.80
    assert top3 >= 0.95
    assert top1 > hash_top1
