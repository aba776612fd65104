"""Relevance of vector, keyword and hybrid retrieval on the labelled set.

    python -m bench.relevance

Loads ``bench/relevance_set.json`` (built by ``bench/relevance_set.py``: 314
memories, 72 queries of three kinds) into an embedded SQLite store with the
default embedder (``LocalEmbedder``, offline), links the superseded facts, and
runs every query with ``max_results=10``:

* ``vector``, ``keyword``, ``hybrid``: the three strategies, default configs;
* ``hybrid+rerank``: hybrid, then a reranker over HTTP
  (:class:`graphmem.testing.ModelServer`, whose ``/rerank`` scores by the cosine
  of hashed bag-of-words vectors: a scripted stand-in for a cross-encoder).

Measures recall@5 (a relevant memory among the first 5) and nDCG@10 (binary
gains), overall and per query kind. Invalid (superseded) memories are not
returned, as in any default search.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem import GraphMemory, Reranker, TopKMemorySearchConfig
from graphmem.testing import ModelServer

SET = Path(__file__).resolve().parent / "relevance_set.json"
RESULTS = Path(__file__).resolve().parent / "results" / "relevance.json"


def ndcg_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    """Binary-gain nDCG@k."""
    gain = sum(1 / math.log2(i + 2) for i, r in enumerate(ranked[:k]) if r in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gain / ideal if ideal else 0.0


def recall_at(ranked: list[str], relevant: set[str], k: int = 5) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant)


def load(memory: GraphMemory, data: dict[str, Any]) -> None:
    memory.add_memories([{"content": m["content"], "memory_id": m["id"]} for m in data["memories"]])
    for source, target, relation in data["links"]:
        memory.link_records(source, "memory", target, "memory", relation)


def evaluate(search: Callable[[str], list[str]], queries: list[dict[str, Any]]) -> dict[str, Any]:
    rows: dict[str, list[tuple[float, float]]] = {}
    for q in queries:
        ranked = search(q["query"])
        relevant = set(q["relevant"])
        score = (recall_at(ranked, relevant), ndcg_at(ranked, relevant))
        rows.setdefault("all", []).append(score)
        rows.setdefault(q["kind"], []).append(score)
    return {
        kind: {
            "queries": len(scores),
            "recall@5": sum(s[0] for s in scores) / len(scores),
            "ndcg@10": sum(s[1] for s in scores) / len(scores),
        }
        for kind, scores in rows.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    data = json.loads(SET.read_text("utf-8"))
    report: dict[str, Any] = {"python": platform.python_version(), "methods": {}}
    with GraphMemory(":memory:") as memory, ModelServer() as server:
        load(memory, data)
        reranker = Reranker("scripted-rerank", api_base=server.url, max_retries=0)
        rerank = TopKMemorySearchConfig(reranker=reranker)

        def run(strategy: str, config: TopKMemorySearchConfig | None = None) -> Any:
            def search(query: str) -> list[str]:
                hits = memory.search(query, strategy=strategy, max_results=10, search_config=config)
                return [r.id for r in hits]

            return search

        methods = {
            "vector": run("vector"),
            "keyword": run("keyword"),
            "hybrid": run("hybrid"),
            "hybrid+rerank": run("hybrid", rerank),
        }
        for name, search in methods.items():
            report["methods"][name] = evaluate(search, data["queries"])
    kinds = ["all", "paraphrase", "keyword", "superseded"]
    print(f"{len(data['memories'])} memories, {len(data['queries'])} queries")
    print(f"{'method':<15}" + "".join(f"{k + ' R@5':>17}{k + ' nDCG':>17}" for k in kinds))
    for name, by_kind in report["methods"].items():
        cells = "".join(
            f"{by_kind[k]['recall@5']:>17.3f}{by_kind[k]['ndcg@10']:>17.3f}" for k in kinds
        )
        print(f"{name:<15}{cells}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
