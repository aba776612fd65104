"""Search as a pipeline of small, named stages.

:meth:`graphmem.GraphMemory.search` composes them in this order, one module each:

1. :mod:`~graphmem.search.retrieve`: the nearest candidates, top-k in the store;
2. :mod:`~graphmem.search.limit`: keep ``max_results``;
3. :mod:`~graphmem.search.rerank`: reorder (identity until a reranker is configured);
4. :mod:`~graphmem.search.prune`: drop irrelevant results (identity for now);
5. :mod:`~graphmem.search.linked`: the linked-context tree of each kept result;
6. :mod:`~graphmem.search.budget`: token budgets on the formatted results (identity for now);
7. :mod:`~graphmem.search.render`: prompt text of many results at once.

Stages 2-4 and 6-7 are pure functions of ranked results and their config; 1 and 5
read the store they are given. A search over several record types passes the
combined list through each stage once.
"""

from graphmem.search.budget import BudgetConfig, apply_budget
from graphmem.search.limit import keep_max_results
from graphmem.search.linked import linked_context
from graphmem.search.prune import PruneConfig, prune
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
    "apply_budget",
    "keep_max_results",
    "linked_context",
    "prune",
    "render_results",
    "rerank",
    "retrieve",
]
