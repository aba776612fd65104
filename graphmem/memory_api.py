"""The part of :class:`graphmem.GraphMemory` that its graph-wide mixins use.

A protocol, so :mod:`graphmem.explore` and :mod:`graphmem.transfer` type-check
against GraphMemory's public methods without importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from graphmem.models import MemoryRecord, RecordRelation
from graphmem.stores.base import NewLink, NewMemory, Store

__all__ = ["MemoryApi"]


class MemoryApi(Protocol):
    """What the mixins call on ``self``."""

    _clock: Callable[[], datetime]

    @property
    def _store(self) -> Store: ...

    def _check_open(self) -> None: ...

    def get_memory(self, memory_id: str) -> MemoryRecord: ...

    def list_memories(self, *, limit: int = ...) -> list[MemoryRecord]: ...

    def list_record_links(
        self, record_id: str | None = ..., relation_type: str | None = ...
    ) -> list[RecordRelation]: ...

    def add_memories(self, memories: Iterable[Mapping[str, Any]]) -> list[str]: ...

    def add_record_links(self, links: Iterable[Mapping[str, Any]]) -> list[str]: ...

    # the checked write path an import uses (graphmem.memory_writes, link_writes)

    def _new_memories(self, memories: object) -> list[NewMemory]: ...

    def _new_links(self, links: object) -> list[tuple[NewLink, str, str]]: ...

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    def _use_embedder(self, dim: int) -> None: ...

    def _stored_kinds(self, ids: Sequence[str]) -> dict[str, str]: ...

    def _write_memories(
        self,
        memories: Sequence[NewMemory],
        vectors: npt.NDArray[np.float32],
        skip: AbstractSet[str] = ...,
    ) -> None: ...

    def _write_links(
        self, built: list[tuple[NewLink, str, str]], check_ids: bool = ...
    ) -> None: ...
