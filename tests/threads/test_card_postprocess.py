"""Context cards post-process each of their searches separately (rerank, prune,
budgets, with the thread's config) before combining them; a regular search over
several record types post-processes its combined list once. Model calls are
counted at a ModelServer."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import (
    GraphMemError,
    GraphMemory,
    HashingEmbedder,
    Llm,
    ModelError,
    PruningMemorySearchConfig,
    Reranker,
    TopKMemorySearchConfig,
)
from graphmem.search.prune import prompt_documents
from graphmem.testing import ModelServer
from graphmem.threads import Thread

FACTS = ["tea is green tea", "tea is black", "tea grows on hills in rain", "coffee is roasted"]
PREFERENCES = ["likes tea with milk", "dislikes coffee", "prefers tea at noon"]
MESSAGES = ["what tea is good", "tea for breakfast please", "any tea in stock", "coffee maybe"]


def _judge(body: dict) -> str:  # type: ignore[type-arg]
    prompt = body["messages"][-1]["content"]
    listed = enumerate(prompt_documents(prompt))
    return json.dumps({"judgements": [{"index": i, "relevant": "tea" in t} for i, t in listed]})


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        running.add_rule(lambda body: True, _judge)
        yield running


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[GraphMemory]:
    with GraphMemory(tmp_path / "c.db", embedder=HashingEmbedder(dim=32)) as opened:
        for i, text in enumerate(FACTS):
            opened.add_memory(
                text, memory_id=f"f{i}", memory_type="fact", user_id="u", agent_id="a"
            )
        for i, text in enumerate(PREFERENCES):
            opened.add_memory(
                text, memory_id=f"p{i}", memory_type="preference", user_id="u", agent_id="a"
            )
        yield opened


def _thread(memory: GraphMemory, config: object) -> Thread:
    thread = memory.create_thread("t", user_id="u", agent_id="a", search_config=config)
    thread.add_messages([{"role": "user", "content": text} for text in MESSAGES])
    return thread


def _documents(server: ModelServer, endpoint: str) -> list[set[str]]:
    """The documents of each request to ``endpoint``, as sets of texts."""
    if endpoint == "rerank":
        return [set(r.body["documents"]) for r in server.requests_to("rerank")]
    return [
        set(prompt_documents(r.body["messages"][-1]["content"]))
        for r in server.requests_to(endpoint)
    ]


def test_card_reranks_memories_and_messages_separately_a_search_once(
    memory: GraphMemory, server: ModelServer
) -> None:
    reranker = Reranker("rr", api_base=server.url, max_retries=0)
    thread = _thread(memory, TopKMemorySearchConfig(reranker=reranker))
    card = thread.get_context_card(max_relevant_results=20)
    calls = _documents(server, "rerank")
    assert len(calls) == 2
    assert set(MESSAGES) in calls  # one call holds exactly the thread's messages
    assert set(FACTS + PREFERENCES) in calls  # the other the memory-like records
    assert len(card.relevant_records) == len(MESSAGES + FACTS + PREFERENCES)
    # A regular search over two record types: one call on the combined list.
    thread.search("tea", record_types=["fact", "preference"])
    calls = _documents(server, "rerank")
    assert len(calls) == 3 and calls[2] == set(FACTS + PREFERENCES)


def test_card_with_minimums_reranks_each_type_search_and_the_fill(
    memory: GraphMemory, server: ModelServer
) -> None:
    reranker = Reranker("rr", api_base=server.url, max_retries=0)
    thread = _thread(memory, TopKMemorySearchConfig(reranker=reranker))
    thread.get_context_card(
        max_relevant_results=6,
        min_relevant_results_by_type={"fact": 1, "preference": 1, "message": 1},
    )
    calls = _documents(server, "rerank")
    assert len(calls) == 4  # three per-type searches and the fill search
    kinds = {
        "fact"
        if docs <= set(FACTS)
        else "preference"
        if docs <= set(PREFERENCES)
        else "message"
        if docs <= set(MESSAGES)
        else "fill": docs
        for docs in calls
    }
    assert sorted(kinds) == ["fact", "fill", "message", "preference"]
    assert len(kinds["fact"]) == 1  # k = the type's minimum


def test_card_prunes_each_search_separately_a_search_once(
    memory: GraphMemory, server: ModelServer
) -> None:
    pruner = Llm("judge", api_base=server.url, max_retries=0)
    # One probe window per search, no protected prefix: one call per search.
    config = PruningMemorySearchConfig(pruner=pruner, num_probe_points=1, protected_fraction=0.0)
    thread = _thread(memory, config)
    thread.get_context_card(max_relevant_results=20)
    calls = _documents(server, "chat/completions")
    assert len(calls) == 2
    assert any(docs <= set(MESSAGES) for docs in calls)
    assert any(docs <= set(FACTS + PREFERENCES) for docs in calls)
    results = thread.search("tea", record_types=["fact", "preference"])
    assert results.stats.pruner_calls == 1
    assert len(server.requests_to("chat/completions")) == 3


def test_card_exhaustive_pruning_asks_every_record_once_and_drops_the_irrelevant(
    memory: GraphMemory, server: ModelServer
) -> None:
    pruner = Llm("judge", api_base=server.url, max_retries=0)
    config = PruningMemorySearchConfig(
        pruner=pruner, evaluation_mode="exhaustive", protected_fraction=0.0
    )
    card = _thread(memory, config).get_context_card(max_relevant_results=20)
    asked = [docs for docs in _documents(server, "chat/completions")]
    assert all(len(docs) == 1 for docs in asked)
    assert sorted(d for docs in asked for d in docs) == sorted(MESSAGES + FACTS + PREFERENCES)
    kept = [r.content for r in card.relevant_records]
    assert kept and all("tea" in text for text in kept)
    assert len(kept) == sum("tea" in t for t in MESSAGES + FACTS + PREFERENCES)


class LongestFirst:
    """A reranker that puts longer texts first (against the distance order)."""

    def rerank(self, query: str, documents: list[str]) -> list[object]:
        from graphmem.ai.protocols import RerankResult

        return [RerankResult(i, float(len(d))) for i, d in enumerate(documents)]


def _lengths_fall(texts: list[str]) -> bool:
    return all(len(a) >= len(b) for a, b in itertools.pairwise(texts))


def test_card_keeps_each_searchs_reranked_order_when_combining(memory: GraphMemory) -> None:
    thread = _thread(memory, TopKMemorySearchConfig())
    plain = [r.content for r in thread.get_context_card(max_relevant_results=20).relevant_records]
    memory.update_thread("t", search_config=TopKMemorySearchConfig(reranker=LongestFirst()))
    reopened = memory.get_thread("t", reranker=LongestFirst())
    card = reopened.get_context_card(max_relevant_results=20)
    kept = [r.content for r in card.relevant_records]
    assert sorted(kept) == sorted(plain) and kept != plain
    assert _lengths_fall([r.content for r in card.relevant_records if r.record_type != "message"])
    assert _lengths_fall([r.content for r in card.relevant_records if r.record_type == "message"])
    concurrent = memory.get_thread(
        "t", context_card_type_search_concurrency=4, reranker=LongestFirst()
    ).get_context_card(max_relevant_results=20)
    assert concurrent.content == card.content


def _tokens(card: object) -> list[int]:
    return [(len(r.content) + 3) // 4 for r in card.relevant_records]  # type: ignore[attr-defined]


def test_card_applies_the_threads_token_budgets(memory: GraphMemory) -> None:
    thread = _thread(memory, TopKMemorySearchConfig())
    full = _tokens(thread.get_context_card(max_relevant_results=20))
    assert len(full) == 11
    memory.update_thread("t", search_config=TopKMemorySearchConfig(token_budget=12))
    hard = _tokens(thread.get_context_card(max_relevant_results=20))
    assert hard and sum(hard) <= 12 and len(hard) < len(full)
    memory.update_thread("t", search_config=TopKMemorySearchConfig(soft_token_budget=5))
    soft = _tokens(thread.get_context_card(max_relevant_results=20))
    assert sum(soft) >= 5 and sum(soft[:-1]) < 5


def test_card_fails_whole_when_a_model_fails_mid_card(
    memory: GraphMemory, server: ModelServer
) -> None:
    reranker = Reranker("rr", api_base=server.url, max_retries=0)
    thread = _thread(memory, TopKMemorySearchConfig(reranker=reranker))
    before = thread.info()
    server.fail("rerank", 500, "reranker down")
    with pytest.raises(ModelError) as info:
        thread.get_context_card(max_relevant_results=20)
    assert isinstance(info.value, GraphMemError)
    assert thread.info() == before
    assert len(thread.get_messages()) == len(MESSAGES)
