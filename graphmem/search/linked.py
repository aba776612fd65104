"""Stage 5: the linked-context tree of every kept result."""

from __future__ import annotations

from graphmem.core.assemble import assemble_results
from graphmem.models import SearchResult
from graphmem.search.ranked import Hit, SearchRequest
from graphmem.stores.base import Store

__all__ = ["linked_context"]


def linked_context(store: Store, hits: list[Hit], request: SearchRequest) -> list[SearchResult]:
    """Each hit as a :class:`SearchResult` holding its tree, in the order of ``hits``.

    Call inside a read transaction. Within the one that retrieved ``hits`` the
    records and links read here are the same state; in a later one, a hit whose
    record was deleted since is left out.
    """
    roots = [record_id for record_id, _ in hits]
    linked = list(
        store.expand(roots, request.filters, request.num_hops, request.max_linked_results)
    )
    records = store.get_memories(roots + [n.entry.node for n in linked])
    # A hit read in an earlier transaction may be gone (deleted while a model ran).
    present = [hit for hit in hits if hit[0] in records]
    return assemble_results(present, records, linked, request.include_invalid)
