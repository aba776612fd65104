"""Operations over the whole graph, mixed into :class:`graphmem.GraphMemory`:
exploring it (:mod:`graphmem.explore`) and moving it in and out
(:mod:`graphmem.transfer`). Both use only GraphMemory's public methods (and, for
an import's batch id checks, the store's id lookups).
"""

from __future__ import annotations

from graphmem.explore import ExploreOperations
from graphmem.transfer import TransferOperations

__all__ = ["GraphOperations"]


class GraphOperations(ExploreOperations, TransferOperations):
    """``tree``, ``explain_invalid``, ``history``, ``subgraph``, ``stats``,
    ``to_networkx``, ``export_jsonl`` and ``import_jsonl``."""
