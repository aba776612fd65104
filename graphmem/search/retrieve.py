"""Stage 1: retrieve the nearest candidates; the store runs the top-k itself."""

from __future__ import annotations

from graphmem.search.ranked import Hit, SearchRequest
from graphmem.stores.base import Store

__all__ = ["retrieve"]


def retrieve(store: Store, request: SearchRequest) -> list[Hit]:
    """The ``max_results`` nearest memories passing the filters, best first."""
    return store.nearest(
        request.filters, request.vector, request.max_results, request.include_invalid
    )
