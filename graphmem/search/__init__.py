"""Search as a pipeline of small, named stages.

:meth:`graphmem.GraphMemory.search` composes them in this order, one module each:

1. :mod:`~graphmem.search.retrieve`: vector, keyword or hybrid candidates, top-k in the store;
2. :mod:`~graphmem.search.limit`: keep ``max_results``;
3. :mod:`~graphmem.search.rerank`: reorder (only with a reranker configured);
4. :mod:`~graphmem.search.prune`: the pruner LLM drops irrelevant results;
5. :mod:`~graphmem.search.linked`: the linked-context tree of each kept result;
6. :mod:`~graphmem.search.budget`: token budgets on the formatted results;
7. :mod:`~graphmem.search.render`: prompt text of many results at once.

Stages 2-4 and 6-7 are functions of ranked results and their config; 1 and 5
read the store they are given; 3 and 4 call models, outside any store
transaction (:func:`~graphmem.search.postprocess.postprocess` runs both).
:mod:`~graphmem.search.config` holds the user-facing configs. A search over
several record types passes the combined list through each stage once.
"""

from graphmem.search.budget import BudgetConfig, apply_budget, resolve_budget
from graphmem.search.limit import keep_max_results
from graphmem.search.linked import linked_context
from graphmem.search.postprocess import (
    SearchResults,
    SearchStats,
    check_models,
    postprocess,
    stage_configs,
)
from graphmem.search.prune import PruneConfig, prune, prune_with_report
from graphmem.search.ranked import Hit, SearchRequest
from graphmem.search.render import render_results
from graphmem.search.rerank import RerankConfig, rerank
from graphmem.search.retrieve import retrieve

__all__ = [
    "BudgetConfig",
    "Hit",
    "PruneConfig",
    "RerankConfig",
    "SearchRequest",
    "SearchResults",
    "SearchStats",
    "apply_budget",
    "check_models",
    "keep_max_results",
    "linked_context",
    "postprocess",
    "prune",
    "prune_with_report",
    "render_results",
    "rerank",
    "resolve_budget",
    "retrieve",
    "stage_configs",
]
