"""The search stages one by one, and search as their composition."""

import numpy as np

from graphmem import GraphMemory, SearchResultFormatConfig
from graphmem.core.validation import SearchFilters
from graphmem.search import (
    BudgetConfig,
    PruneConfig,
    RerankConfig,
    SearchRequest,
    apply_budget,
    keep_max_results,
    linked_context,
    prune,
    render_results,
    rerank,
    retrieve,
)
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock


def _memory() -> tuple[GraphMemory, MemoryStore]:
    store = MemoryStore()
    memory = GraphMemory(store, clock=ManualClock())
    for i in range(5):
        memory.add_memory(f"pizza note {i}", memory_id=f"m{i}", memory_type="fact")
    memory.link_records("m1", "fact", "m0", "fact", "supersedes")
    memory.link_records("m2", "fact", "m1", "fact", "supports")
    return memory, store


def _request(memory: GraphMemory, k: int, hops: int = 1) -> SearchRequest:
    return SearchRequest(
        filters=SearchFilters(now=ManualClock.START),
        vector=memory.embedder.embed(["pizza"])[0],
        max_results=k,
        num_hops=hops,
        max_linked_results=None,
        include_invalid=False,
    )


def test_limit_keeps_first_hits() -> None:
    hits = [("a", 0.1), ("b", 0.2), ("c", 0.3)]
    assert keep_max_results(hits, 2) == hits[:2]
    assert keep_max_results(hits, 0) == []


def test_identity_stages_keep_order() -> None:
    hits = [("b", 0.1), ("a", 0.1)]
    assert rerank(hits, RerankConfig()) == hits
    assert prune(hits, PruneConfig()) == hits


def test_retrieve_asks_the_store_for_top_k() -> None:
    memory, store = _memory()
    request = _request(memory, 2)
    hits = retrieve(store, request)
    query = np.asarray(request.vector)
    assert hits == store.nearest(request.filters, query, 2, False)
    assert len(hits) == 2 and "m0" not in [h[0] for h in hits]


def test_search_is_the_composition_of_the_stages() -> None:
    memory, store = _memory()
    request = _request(memory, 3)
    hits = prune(
        rerank(keep_max_results(retrieve(store, request), 3), RerankConfig()), PruneConfig()
    )
    composed = apply_budget(linked_context(store, hits, request), BudgetConfig())
    searched = memory.search("pizza", max_results=3, num_hops=1)
    assert composed == searched
    assert any(r.linked_results for r in searched)


def test_render_results_renders_each_result_in_rank_order() -> None:
    memory, _ = _memory()
    results = memory.search("pizza", max_results=3, num_hops=1)
    config = SearchResultFormatConfig(show_timestamp=False)
    assert render_results(results, config) == [r.format_content(config) for r in results]
    assert render_results(results) == [r.format_content() for r in results]
