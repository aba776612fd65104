"""The search part of :class:`graphmem.testing.memory_store.MemoryStore`: exact
vector top-k, keyword scores and the linked-context trees of the reference model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.assemble import LinkedNode
from graphmem.core.fusion import term_match_scores
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.tree import TreeEntry
from graphmem.core.validation import SearchFilters, utc_now
from graphmem.core.vector import cosine_distances, top_k
from graphmem.errors import InvalidArgumentError
from graphmem.models import RecordRelation
from graphmem.testing.model import ModelFilters, ModelLink, ReferenceModel

__all__ = ["MemorySearch", "model_filters"]


def model_filters(filters: SearchFilters) -> ModelFilters:
    return ModelFilters(
        now=filters.now or utc_now(),
        user_id=filters.user_id,
        agent_id=filters.agent_id,
        thread_id=filters.thread_id,
        # As in the SQL stores: no type filter means the memory-like types (never messages).
        record_types=frozenset(filters.record_types or MEMORY_TYPES),
        metadata_filter=filters.metadata_filter,
    )


class MemorySearch:
    """Mixed into MemoryStore, which provides the model, the embeddings and transactions."""

    model: ReferenceModel
    _extra: dict[str, Any]

    def transaction(self, write: bool = True) -> Any:
        raise NotImplementedError  # MemoryStore's

    def _relation(self, link: ModelLink) -> RecordRelation:
        raise NotImplementedError  # MemoryStore's

    def nearest(
        self,
        filters: SearchFilters,
        vector: npt.NDArray[np.float32],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        owners = filters.owner_binds()
        with self.transaction(write=False):
            ids = sorted(
                i
                for i in self.model.candidates(model_filters(filters), include_invalid)
                if not (owners["without_user"] and self.model.memories[i].user_id is not None)
                and not (owners["without_agent"] and self.model.memories[i].agent_id is not None)
            )
            if not ids:
                return []
            matrix = np.stack([self._extra[i].embedding for i in ids])
        if matrix.shape[1] != vector.shape[0]:
            raise InvalidArgumentError(
                "embedder",
                f"query vector has {vector.shape[0]} dimensions, store has {matrix.shape[1]}",
            )
        return top_k(ids, cosine_distances(matrix, vector), k)

    def keyword(
        self,
        filters: SearchFilters,
        terms: Sequence[str],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        # A simple deterministic scorer (graphmem.core.fusion.term_match_scores),
        # not BM25: keyword rankings here may differ from SQLite's and Oracle's.
        with self.transaction(write=False):
            ids = self.model.candidates(model_filters(filters), include_invalid)
            texts = {i: self.model.memories[i].content for i in ids}
        return term_match_scores(terms, texts, k)

    def passing_ids(
        self, record_ids: Sequence[str], filters: SearchFilters, include_invalid: bool
    ) -> set[str]:
        wanted = model_filters(filters)
        with self.transaction(write=False):
            return {
                record_id
                for record_id in record_ids
                if record_id in self.model.memories
                and self.model.passes(record_id, wanted)
                and (include_invalid or self.model.status(record_id) == "valid")
            }

    def expand(
        self,
        roots: Sequence[str],
        filters: SearchFilters,
        hops: int,
        cap: int | None,
    ) -> Iterable[LinkedNode]:
        wanted = model_filters(filters)
        nodes: list[LinkedNode] = []
        with self.transaction(write=False):
            for root in dict.fromkeys(roots):
                if root not in self.model.memories:
                    continue
                for e in self.model.tree(root, wanted, hops, cap):
                    entry = TreeEntry(e.node, e.parent, e.relation_id, e.created_at, e.depth)
                    relation = self._relation(self.model.links[e.relation_id])
                    nodes.append(LinkedNode(root_id=root, entry=entry, relation=relation))
        return nodes
