"""Stage 5: the linked-context tree of every kept result."""

from __future__ import annotations

from graphmem.core.assemble import assemble_results
from graphmem.models import SearchResult
from graphmem.search.ranked import Hit, SearchRequest
from graphmem.stores.base import Store

__all__ = ["linked_context"]


def linked_context(store: Store, hits: list[Hit], request: SearchRequest) -> list[SearchResult]:
    """Each hit as a :class:`SearchResult` holding its tree, in the order of ``hits``.

    Call inside the store transaction that retrieved ``hits``, so that the
    records and links read here are the same state.
    """
    roots = [record_id for record_id, _ in hits]
    linked = list(
        store.expand(roots, request.filters, request.num_hops, request.max_linked_results)
    )
    records = store.get_memories(roots + [n.entry.node for n in linked])
    return assemble_results(hits, records, linked, request.include_invalid)
