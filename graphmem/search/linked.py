"""Stage 5: the linked-context tree of every kept result."""

from __future__ import annotations

from graphmem.core.assemble import assemble_results
from graphmem.models import SearchResult
from graphmem.search.ranked import Hit, SearchRequest
from graphmem.stores.base import Store

__all__ = ["linked_context", "still_passing"]


def still_passing(store: Store, hits: list[Hit], request: SearchRequest) -> list[Hit]:
    """The ``hits`` that the request's retrieval would still return, in their order:
    those deleted, moved out of the request's filters (scope, record type, metadata,
    expiry) or, without ``include_invalid_results``, made invalid since they were
    read are left out.

    Call inside the read transaction that reads their linked context, when
    ``hits`` were read in an earlier one (a reranker or a pruner ran in between).
    """
    passing = store.passing_ids(
        [record_id for record_id, _ in hits], request.filters, request.include_invalid
    )
    return [hit for hit in hits if hit[0] in passing]


def linked_context(store: Store, hits: list[Hit], request: SearchRequest) -> list[SearchResult]:
    """Each hit as a :class:`SearchResult` holding its tree, in the order of ``hits``.

    Call inside a read transaction. Within the one that retrieved ``hits`` the
    records and links read here are the same state; in a later one, pass the
    hits through :func:`still_passing` first.
    """
    roots = [record_id for record_id, _ in hits]
    linked = list(
        store.expand(roots, request.filters, request.num_hops, request.max_linked_results)
    )
    records = store.get_memories(roots + [n.entry.node for n in linked])
    # Only a hit read in an earlier transaction, not passed through still_passing, can be gone.
    present = [hit for hit in hits if hit[0] in records]
    return assemble_results(present, records, linked, request.include_invalid)
