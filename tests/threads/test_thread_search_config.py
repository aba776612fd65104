"""A thread's search config: given or inherited at creation, stored, applied to the
thread's searches and context cards, kept on reopen with its models bound again."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from graphmem import (
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    Llm,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    Reranker,
    TopKMemorySearchConfig,
)
from graphmem.ai.protocols import RerankResult
from graphmem.search.config import ModelRef
from graphmem.search.prune import prompt_documents
from graphmem.testing import ModelServer


class ScriptedReranker:
    """Scores documents with ``score(query, text)``; records what it saw."""

    def __init__(self, score: Callable[[str, str], float] | None = None) -> None:
        self.score = score or (lambda query, text: float(len(text)))
        self.seen: list[list[str]] = []

    def rerank(self, query: str, documents: Sequence[str]) -> list[RerankResult]:
        self.seen.append(list(documents))
        return [RerankResult(i, self.score(query, d)) for i, d in enumerate(documents)]


def judgements(prompt: str, relevant: Callable[[str], bool]) -> str:
    """The pruner's JSON reply judging each ``[i]`` document of its prompt."""
    listed = enumerate(prompt_documents(prompt))
    return json.dumps({"judgements": [{"index": i, "relevant": relevant(t)} for i, t in listed]})


FACTS = ["tea is green", "tea is black", "tea grows in hills", "coffee is roasted"]


def _open(path: Path, **kwargs: Any) -> GraphMemory:
    return GraphMemory(path, embedder=HashingEmbedder(dim=32), **kwargs)


def _fill(memory: GraphMemory, user: str = "u") -> None:
    for i, text in enumerate(FACTS):
        memory.add_memory(text, memory_id=f"f{i}", memory_type="fact", user_id=user, agent_id="a")


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        # The pruner: every document mentioning tea is relevant.
        running.add_rule(
            lambda body: True,
            lambda body: judgements(body["messages"][-1]["content"], lambda t: "tea" in t),
        )
        yield running


def test_thread_config_is_applied_to_its_searches_and_kept_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    reranker = ScriptedReranker(lambda query, text: -len(text))
    with _open(path) as memory:
        _fill(memory)
        config = TopKMemorySearchConfig(max_results=2, reranker=reranker)
        thread = memory.create_thread("t", user_id="u", agent_id="a", search_config=config)
        results = thread.search("tea")
        assert len(results) == 2 and len(reranker.seen) == 1
        assert len(thread.search("tea", max_results=3)) == 3
    # Reopened by a client whose own config differs: the stored one wins.
    again = ScriptedReranker()
    with _open(path, search_config=TopKMemorySearchConfig(max_results=4, reranker=again)) as memory:
        thread = memory.get_thread("t")
        stored = thread.settings.search_config
        assert isinstance(stored, TopKMemorySearchConfig) and stored.max_results == 2
        assert isinstance(stored.reranker, ModelRef)
        assert stored.reranker.kind == "ScriptedReranker"
        assert len(thread.search("tea")) == 2
        assert len(again.seen) == 1  # the client's reranker is bound to the stored reference
        assert len(memory.search("tea", user_id="u")) == 4  # the client keeps its own


def test_reopened_thread_needs_its_models_and_names_the_missing_one(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with _open(path) as memory:
        _fill(memory)
        config = TopKMemorySearchConfig(reranker=ScriptedReranker())
        memory.create_thread("t", user_id="u", agent_id="a", search_config=config)
    with _open(path) as memory:
        thread = memory.get_thread("t")
        thread.add_messages([{"role": "user", "content": "tea"}])  # no model needed
        with pytest.raises(InvalidArgumentError) as info:
            thread.search("tea")
        assert info.value.argument == "search_config.reranker"
        assert "get_thread('t', reranker=...)" in str(info.value)
        with pytest.raises(InvalidArgumentError):
            thread.get_context_card()
        given = ScriptedReranker()
        memory.get_thread("t", reranker=given).search("tea")
        assert len(given.seen) == 1
        with pytest.raises(InvalidArgumentError) as info:
            memory.get_thread("t", reranker=object())
        assert info.value.argument == "reranker"


def test_pruner_llm_gives_new_threads_fast_pruning_kept_on_reopen(
    tmp_path: Path, server: ModelServer
) -> None:
    path = tmp_path / "t.db"
    judge = Llm("judge", api_base=server.url, max_retries=0)
    with _open(path, pruner_llm=judge) as memory:
        _fill(memory)
        pruned = memory.create_thread("pruned", user_id="u", agent_id="a")
        stored = pruned.settings.search_config
        assert isinstance(stored, PruningMemorySearchConfig)
        assert stored.evaluation_mode is PruningEvaluationMode.FAST
        assert stored.pruner == ModelRef(kind="Llm", model="judge", api_base=server.url)
        results = pruned.search("tea", max_results=4)
        assert results.stats.pruner_calls == len(server.requests_to("chat/completions")) >= 1
        assert "coffee is roasted" not in [r.content for r in results]
    with _open(path) as memory:  # no pruner_llm now
        memory.create_thread("plain", user_id="u", agent_id="a")
        with pytest.raises(InvalidArgumentError) as info:
            memory.get_thread("pruned").search("tea")
        assert info.value.argument == "search_config.pruner"
        assert "pruner_llm=..." in str(info.value)
        calls = len(server.requests_to("chat/completions"))
        memory.get_thread("pruned", pruner_llm=judge).search("tea", max_results=4)
        assert len(server.requests_to("chat/completions")) > calls
    with _open(path, pruner_llm=judge) as memory:
        calls = len(server.requests_to("chat/completions"))
        assert len(memory.get_thread("pruned").search("tea", max_results=4)) == 3
        assert len(server.requests_to("chat/completions")) > calls
        # A thread stored with a top-k config keeps it: no pruning.
        calls = len(server.requests_to("chat/completions"))
        plain = memory.get_thread("plain")
        assert isinstance(plain.settings.search_config, TopKMemorySearchConfig)
        assert not isinstance(plain.settings.search_config, PruningMemorySearchConfig)
        assert len(plain.search("tea", max_results=4)) == 4
        assert len(server.requests_to("chat/completions")) == calls


def test_search_config_as_stored_json_and_update_thread(tmp_path: Path) -> None:
    with _open(tmp_path / "t.db") as memory:
        _fill(memory)
        thread = memory.create_thread(
            "t",
            user_id="u",
            agent_id="a",
            search_config={"type": "pruning", "evaluation_mode": "exhaustive", "max_results": 3},
        )
        stored = thread.info().settings["search_config"]
        assert stored["type"] == "pruning" and stored["evaluation_mode"] == "exhaustive"
        json.dumps(stored)  # plain JSON
        with pytest.raises(InvalidArgumentError) as info:
            thread.search("tea")  # a pruning config without a pruner, none on the client
        assert info.value.argument == "search_config.pruner"
        memory.update_thread("t", search_config=TopKMemorySearchConfig(max_results=1))
        assert len(thread.search("tea")) == 1
        with pytest.raises(InvalidArgumentError) as info:
            memory.update_thread("t", search_config={"protected_fraction": 2.0})
        assert info.value.argument == "search_config.protected_fraction"
        assert len(thread.search("tea")) == 1  # unchanged


def test_reranker_adapter_reference_comes_back_with_model_and_base(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with ModelServer() as server, _open(path) as memory:
        _fill(memory)
        reranker = Reranker("rr", api_base=server.url, max_retries=0)
        thread = memory.create_thread(
            "t", user_id="u", agent_id="a", search_config=TopKMemorySearchConfig(reranker=reranker)
        )
        thread.search("tea")
        assert len(server.requests_to("rerank")) == 1
        assert thread.settings.search_config.reranker == ModelRef(
            kind="Reranker", model="rr", api_base=server.url
        )
        assert "api_key" not in json.dumps(thread.info().settings)
