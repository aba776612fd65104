"""Stage 1: retrieve the candidates; the store runs each top-k itself.

* ``vector``: the nearest memories by cosine distance (:meth:`Store.nearest`);
* ``keyword``: full-text matches of the query's words, best first
  (:meth:`Store.keyword`: FTS5 on SQLite, Oracle Text on Oracle); such hits
  carry no distance;
* ``hybrid``: both rankings, each ``max(hybrid.candidates, max_results)`` deep,
  fused by weighted reciprocal rank fusion (:class:`~graphmem.search.config.HybridConfig`);
  a hit keeps its vector distance when the vector ranking holds it.
"""

from __future__ import annotations

from graphmem.core.fusion import keyword_terms, reciprocal_rank_fusion
from graphmem.errors import InvalidArgumentError
from graphmem.search.ranked import Hit, SearchRequest
from graphmem.stores.base import Store

__all__ = ["STRATEGIES", "check_strategy", "retrieve"]

STRATEGIES = ("vector", "keyword", "hybrid")


def check_strategy(strategy: object) -> str:
    """``strategy`` when it is one of :data:`STRATEGIES`."""
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise InvalidArgumentError(
            "strategy", f"must be 'vector', 'keyword' or 'hybrid', got {strategy!r}"
        )
    return strategy


def _keyword(store: Store, request: SearchRequest, k: int) -> list[Hit]:
    terms = keyword_terms(request.text)
    if not terms or k == 0:
        return []
    found = store.keyword(request.filters, terms, k, request.include_invalid)
    return [(record_id, None) for record_id, _ in found]


def retrieve(store: Store, request: SearchRequest) -> list[Hit]:
    """The ``max_results`` best candidates for the request's strategy, best first."""
    k = request.max_results
    if request.strategy == "keyword":
        return _keyword(store, request, k)
    if request.strategy == "vector":
        return list(store.nearest(request.filters, request.vector, k, request.include_invalid))
    hybrid = request.hybrid
    depth = max(hybrid.candidates, k)
    vector = store.nearest(request.filters, request.vector, depth, request.include_invalid)
    keyword = _keyword(store, request, depth)
    distances = dict(vector)
    fused = reciprocal_rank_fusion(
        [[r for r, _ in vector], [r for r, _ in keyword]],
        [hybrid.vector_weight, hybrid.keyword_weight],
        hybrid.c,
    )
    return [(record_id, distances.get(record_id)) for record_id, _ in fused[:k]]
