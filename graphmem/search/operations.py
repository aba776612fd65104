"""Search operations of :class:`graphmem.GraphMemory`: the stages composed top-down."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
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
from graphmem.errors import InvalidArgumentError
from graphmem.handle import StoreHandle
from graphmem.models import SearchResult
from graphmem.search.budget import BudgetConfig, TokenCounter, apply_budget, resolve_budget
from graphmem.search.config import PruningMemorySearchConfig, TopKMemorySearchConfig
from graphmem.search.limit import keep_max_results
from graphmem.search.linked import linked_context, still_passing
from graphmem.search.postprocess import (
    SearchResults,
    SearchStats,
    check_models,
    postprocess,
    stage_configs,
)
from graphmem.search.ranked import SearchRequest
from graphmem.search.retrieve import check_strategy, retrieve

__all__ = ["SearchOperations", "client_search_config"]


def client_search_config(search_config: object, pruner_llm: object) -> TopKMemorySearchConfig:
    """A :class:`graphmem.GraphMemory`'s search config: ``search_config`` (default
    top-k), made a FAST pruning config with ``pruner_llm`` when that is given and
    the config does not prune, and checked ready to search.

    Raises:
        InvalidArgumentError: a bad config or ``pruner_llm``.
    """
    config = TopKMemorySearchConfig() if search_config is None else search_config
    if not isinstance(config, TopKMemorySearchConfig):
        return check_models(config, pruner_llm)  # raises: names the type
    if pruner_llm is not None and not callable(getattr(pruner_llm, "chat", None)):
        raise InvalidArgumentError(
            "pruner_llm", f"needs a chat() method, got {type(pruner_llm).__name__}"
        )
    if pruner_llm is not None and not isinstance(config, PruningMemorySearchConfig):
        config = PruningMemorySearchConfig(**dict(config), pruner=pruner_llm)
    return check_models(config, pruner_llm)


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

    _search_config: TopKMemorySearchConfig
    _pruner_llm: object
    _token_counter: TokenCounter

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        record_types: Iterable[str] | None = None,
        metadata_filter: Mapping[str, Any] | None = None,
        max_results: int | None = None,
        num_hops: int = 0,
        max_linked_results: int | None = 100,
        include_invalid_results: bool = False,
        strategy: str = "vector",
        token_budget: int | None = None,
        soft_token_budget: int | None = None,
        search_config: TopKMemorySearchConfig | None = None,
    ) -> SearchResults:
        """Search, then the linked-context tree of each direct result, post-processed.

        The stages run in this order: retrieve; keep ``max_results``; rerank and
        prune (when the search config has a reranker or a pruner; outside the
        store's read transaction); linked context; token budgets.

        Args:
            query: the text to search for.
            user_id: scope filter, applied to direct results and linked context.
            agent_id: scope filter, likewise.
            thread_id: scope filter, likewise.
            record_types: only these record types, likewise; a search over several
                types post-processes their combined list once.
            metadata_filter: ``{key: value}`` equalities, likewise.
            max_results: at most this many direct results (>= 0; None: the search
                config's ``max_results``, 10 by default).
            num_hops: follow links this far (0..5) in both directions.
            max_linked_results: linked memories kept per direct result across all
                hops (>= 0; 0 turns linked context off; None keeps all).
            include_invalid_results: also return invalid memories as direct results
                (``True`` or ``False``; linked context may hold invalid history regardless).
            strategy: ``"vector"`` (cosine distance), ``"keyword"`` (full-text) or
                ``"hybrid"`` (both, fused by weighted reciprocal rank fusion).
            token_budget: hard token budget for this call: a positive int overrides
                the configured one, zero or less turns it off, None keeps it.
            soft_token_budget: soft token target, likewise.
            search_config: this call's config instead of the handle's
                ``search_config``.

        Returns:
            Direct results best first, each with its tree; ``.stats`` says what the
            search did (:class:`~graphmem.search.postprocess.SearchStats`).

        Raises:
            InvalidArgumentError: a bad argument (named in the message).
            SchemaError: the store holds vectors of another embedder.
            ModelError: the reranker or the pruner failed; nothing is returned.
        """
        self._check_open()
        check_query(query)
        config = self._search_config if search_config is None else search_config
        config = check_models(config, self._pruner_llm)
        budget = BudgetConfig(
            resolve_budget("token_budget", config.token_budget, token_budget),
            resolve_budget("soft_token_budget", config.soft_token_budget, soft_token_budget),
            self._token_counter,
        )
        request = self._search_request(
            query,
            self._filters(user_id, agent_id, thread_id, record_types, metadata_filter),
            config.max_results if max_results is None else max_results,
            num_hops,
            max_linked_results,
            include_invalid_results,
            check_strategy(strategy),
            config,
        )
        results, stats = self._ranked_results(request, config)
        kept = apply_budget(results, budget)
        return SearchResults(kept, replace(stats, budget_dropped=len(results) - len(kept)))

    def _ranked_results(
        self, request: SearchRequest, config: TopKMemorySearchConfig
    ) -> tuple[list[SearchResult], SearchStats]:
        """Retrieval and linked context in read transactions; models between them.

        Without a reranker or a pruner, one read transaction does it all. With
        one, the first reads the hits and their contents, the models run with no
        transaction open, and a second keeps the hits that still pass the
        request's filters and validity (a hit deleted or changed in between so
        that retrieval would no longer return it is left out) and reads their
        records and linked context as they are then.
        """
        rerank_config, prune_config = stage_configs(config, request.text)
        models = rerank_config.reranker is not None or prune_config.pruner is not None
        with self._store.transaction(write=False):
            self._check_embedder(int(request.vector.shape[0]))
            hits = keep_max_results(retrieve(self._store, request), request.max_results)
            stats = SearchStats(strategy=request.strategy, retrieved=len(hits))
            if not models:
                return linked_context(self._store, hits, request), stats
            records = self._store.get_memories([record_id for record_id, _ in hits])
        texts = {record_id: record.content for record_id, record in records.items()}
        hits, stats = postprocess(hits, texts, rerank_config, prune_config, stats)
        with self._store.transaction(write=False):
            passing = still_passing(self._store, hits, request)
            stats = replace(stats, stale_dropped=len(hits) - len(passing))
            return linked_context(self._store, passing, request), stats

    def _search_request(
        self,
        query: str,
        filters: SearchFilters,
        max_results: object,
        num_hops: object,
        max_linked_results: object,
        include_invalid_results: object,
        strategy: str = "vector",
        config: TopKMemorySearchConfig | None = None,
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
            strategy=strategy,
            text=query,
            hybrid=(config or TopKMemorySearchConfig()).hybrid,
        )
