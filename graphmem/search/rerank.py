"""Stage 3: rerank. It only reorders, and only the first ``max_candidates`` hits.

No reranker exists yet, so the stage is the identity; the reranker issue fills
it in without touching the stages around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.search.ranked import Hit

__all__ = ["RerankConfig", "rerank"]


@dataclass(frozen=True)
class RerankConfig:
    """How results are reranked (nothing to configure yet)."""


def rerank(hits: list[Hit], config: RerankConfig) -> list[Hit]:
    """``hits`` reordered by the configured reranker; unchanged without one.

    >>> rerank([("a", 0.1), ("b", 0.2)], RerankConfig())
    [('a', 0.1), ('b', 0.2)]
    """
    return hits
