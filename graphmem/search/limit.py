"""Stage 2: keep ``max_results``."""

from __future__ import annotations

from graphmem.search.ranked import Hit

__all__ = ["keep_max_results"]


def keep_max_results(hits: list[Hit], max_results: int) -> list[Hit]:
    """The first ``max_results`` hits (a store may return more, e.g. for a reranker).

    >>> keep_max_results([("a", 0.1), ("b", 0.2)], 1)
    [('a', 0.1)]
    """
    return hits[:max_results]
