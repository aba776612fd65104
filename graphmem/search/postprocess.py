"""Post-processing of one search's ranked hits: rerank, then prune (both call
models, so they run outside any store transaction), with what they did.

:func:`postprocess` is what :meth:`graphmem.GraphMemory.search` runs between
retrieval and linked context; a context card runs it once per search it makes,
before combining them. Token budgets come after linked context
(:mod:`graphmem.search.budget`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from graphmem.errors import InvalidArgumentError
from graphmem.models import SearchResult
from graphmem.search.config import ModelRef, PruningMemorySearchConfig, TopKMemorySearchConfig
from graphmem.search.prune import PruneConfig, prune_with_report
from graphmem.search.ranked import Hit
from graphmem.search.rerank import RerankConfig, rerank

__all__ = ["SearchResults", "SearchStats", "check_models", "postprocess", "stage_configs"]


@dataclass(frozen=True)
class SearchStats:
    """What one search did.

    Attributes:
        strategy: ``vector``, ``keyword`` or ``hybrid``.
        retrieved: direct results after retrieval and ``max_results``.
        reranked: results the reranker saw (0 without a reranker).
        reranker_calls: calls to the reranker (0 or 1).
        pruner_calls: calls to the pruner LLM.
        pruner_call_bound: the most calls the pruning mode could make for this
            input (FAST and EXTENDED: the probe windows, at most
            ``num_probe_points``; EXHAUSTIVE: one per candidate).
        pruned: results the pruner dropped.
        budget_dropped: results the token budgets dropped.
        stale_dropped: results left out because, while the reranker or pruner
            ran, they were deleted or changed so that the search would no
            longer return them (moved out of its filters, expired, or made
            invalid without ``include_invalid_results``).
    """

    strategy: str = "vector"
    retrieved: int = 0
    reranked: int = 0
    reranker_calls: int = 0
    pruner_calls: int = 0
    pruner_call_bound: int = 0
    pruned: int = 0
    budget_dropped: int = 0
    stale_dropped: int = 0


class SearchResults(list[SearchResult]):
    """The results of a search, a plain list, with :class:`SearchStats` as ``stats``."""

    def __init__(self, results: Iterable[SearchResult] = (), stats: SearchStats | None = None):
        super().__init__(results)
        self.stats = stats or SearchStats()


def check_models(config: object, pruner_llm: object = None) -> TopKMemorySearchConfig:
    """``config`` ready to search: a pruning config without a pruner takes
    ``pruner_llm``; a stored model reference that was never re-supplied is refused.

    Raises:
        InvalidArgumentError: a model is missing or only a stored reference.
    """
    if not isinstance(config, TopKMemorySearchConfig):
        raise InvalidArgumentError(
            "search_config",
            f"must be a TopKMemorySearchConfig or PruningMemorySearchConfig, "
            f"not {type(config).__name__}",
        )
    checked: TopKMemorySearchConfig = config
    if isinstance(config, PruningMemorySearchConfig) and config.pruner is None:
        if pruner_llm is None:
            raise InvalidArgumentError(
                "search_config.pruner",
                "PruningMemorySearchConfig needs a pruner: pass pruner=... or "
                "GraphMemory(pruner_llm=...)",
            )
        checked = config.with_models(pruner=pruner_llm)
    for name in ("reranker", "pruner"):
        value = getattr(checked, name, None)
        if isinstance(value, ModelRef):
            raise InvalidArgumentError(
                f"search_config.{name}",
                f"holds only a stored reference to {value.kind} {value.model or ''}; supply "
                f"the object with config.with_models({name}=...)",
            )
    return checked


def stage_configs(config: TopKMemorySearchConfig, query: str) -> tuple[RerankConfig, PruneConfig]:
    """The rerank and prune stage configs of a checked search config."""
    rerank_config = RerankConfig(
        reranker=config.reranker, max_candidates=config.reranker_max_candidates, query=query
    )
    if not isinstance(config, PruningMemorySearchConfig):
        return rerank_config, PruneConfig(query=query)
    return rerank_config, PruneConfig(
        pruner=config.pruner,
        mode=config.evaluation_mode.value,
        protected_fraction=config.protected_fraction,
        probes=config.probe_points,
        query=query,
    )


def postprocess(
    hits: list[Hit],
    texts: Mapping[str, str],
    rerank_config: RerankConfig,
    prune_config: PruneConfig,
    stats: SearchStats | None = None,
) -> tuple[list[Hit], SearchStats]:
    """Rerank, then prune, ``hits`` (whose contents are ``texts``).

    Raises:
        ModelError: the reranker or the pruner failed or answered out of shape.
    """
    stats = stats or SearchStats(retrieved=len(hits))
    if rerank_config.reranker is not None and hits:
        hits = rerank(hits, rerank_config, texts)
        reranked = min(len(hits), rerank_config.max_candidates)
        stats = replace(stats, reranked=reranked, reranker_calls=1)
    hits, report = prune_with_report(hits, prune_config, texts)
    return hits, replace(
        stats, pruner_calls=report.calls, pruner_call_bound=report.bound, pruned=report.dropped
    )
