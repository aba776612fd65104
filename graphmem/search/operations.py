"""Search operations of :class:`graphmem.GraphMemory`: the stages composed top-down."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphmem.core.validation import (
    SearchFilters,
    check_flag,
    check_hops,
    check_metadata_filter,
    check_non_negative,
    check_optional_id,
    check_query,
    check_record_types,
)
from graphmem.handle import StoreHandle
from graphmem.models import SearchResult
from graphmem.search.budget import BudgetConfig, apply_budget
from graphmem.search.limit import keep_max_results
from graphmem.search.linked import linked_context
from graphmem.search.prune import PruneConfig, prune
from graphmem.search.ranked import SearchRequest
from graphmem.search.rerank import RerankConfig, rerank
from graphmem.search.retrieve import retrieve

__all__ = ["SearchOperations"]


class SearchOperations(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`: search, composed of the pipeline's stages."""

    def _filters(
        self,
        user_id: object,
        agent_id: object,
        thread_id: object,
        record_types: object,
        metadata_filter: object,
    ) -> SearchFilters:
        return SearchFilters(
            user_id=check_optional_id("user_id", user_id),
            agent_id=check_optional_id("agent_id", agent_id),
            thread_id=check_optional_id("thread_id", thread_id),
            record_types=check_record_types(record_types),
            metadata_filter=check_metadata_filter(metadata_filter),
            now=self._clock(),
        )

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        record_types: Iterable[str] | None = None,
        metadata_filter: Mapping[str, Any] | None = None,
        max_results: int = 10,
        num_hops: int = 0,
        max_linked_results: int | None = 100,
        include_invalid_results: bool = False,
    ) -> list[SearchResult]:
        """Exact vector search plus the linked-context tree of each direct result.

        Args:
            query: the text to search for.
            user_id: scope filter, applied to direct results and linked context.
            agent_id: scope filter, likewise.
            thread_id: scope filter, likewise.
            record_types: only these record types, likewise.
            metadata_filter: ``{key: value}`` equalities, likewise.
            max_results: at most this many direct results (>= 0).
            num_hops: follow links this far (0..5) in both directions.
            max_linked_results: linked memories kept per direct result across all
                hops (>= 0; 0 turns linked context off; None keeps all).
            include_invalid_results: also return invalid memories as direct results
                (``True`` or ``False``; linked context may hold invalid history regardless).

        Returns:
            Direct results by cosine distance (ties by id), each with its tree.

        Raises:
            SchemaError: the store holds vectors of another embedder.
        """
        self._check_open()
        check_query(query)
        request = self._search_request(
            query,
            self._filters(user_id, agent_id, thread_id, record_types, metadata_filter),
            max_results,
            num_hops,
            max_linked_results,
            include_invalid_results,
        )
        with self._store.transaction(write=False):
            self._check_embedder(int(request.vector.shape[0]))
            hits = retrieve(self._store, request)
            hits = keep_max_results(hits, request.max_results)
            hits = rerank(hits, RerankConfig())
            hits = prune(hits, PruneConfig())
            results = linked_context(self._store, hits, request)
        return apply_budget(results, BudgetConfig())

    def _search_request(
        self,
        query: str,
        filters: SearchFilters,
        max_results: object,
        num_hops: object,
        max_linked_results: object,
        include_invalid_results: object,
    ) -> SearchRequest:
        k = check_non_negative("max_results", max_results)
        hops = check_hops(num_hops)
        cap = (
            None
            if max_linked_results is None
            else check_non_negative("max_linked_results", max_linked_results)
        )
        include_invalid = check_flag("include_invalid_results", include_invalid_results)
        return SearchRequest(
            filters=filters,
            vector=self._embed_query(query),
            max_results=k,
            num_hops=hops,
            max_linked_results=cap,
            include_invalid=include_invalid,
        )
