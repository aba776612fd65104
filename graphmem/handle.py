"""What every operation of :class:`graphmem.GraphMemory` shares: the open store,
closing it, and the embedder (output checked, identity checked against the store).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from graphmem.core.embedding import check_embeddings, check_same_embedder, embedder_name
from graphmem.embedders import Embedder
from graphmem.errors import CLOSED_MESSAGE, ClosedError, SchemaError
from graphmem.stores.base import Store

__all__ = ["EMBED_BATCH", "StoreHandle"]

EMBED_BATCH = 1024
"""Texts per ``embed()`` call."""

_Handle = TypeVar("_Handle", bound="StoreHandle")


class StoreHandle:
    """The base of :class:`graphmem.GraphMemory`: a store that can be closed, and an embedder."""

    embedder: Embedder
    _clock: Callable[[], datetime]
    _open: Store | None = None

    @property
    def _store(self) -> Store:
        if self._open is None:
            raise ClosedError(CLOSED_MESSAGE)
        return self._open

    def _check_open(self) -> None:
        """Raise ClosedError first, before any argument check or embedding."""
        if self._open is None:
            raise ClosedError(CLOSED_MESSAGE)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (every other method then raises ClosedError)."""
        return self._open is None

    def close(self) -> None:
        """Close the store's connection. Idempotent; the handle cannot be used afterwards."""
        store, self._open = self._open, None
        if store is not None:
            store.close()

    def __enter__(self: _Handle) -> _Handle:
        self._check_open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # the embedder ---------------------------------------------------------------

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Checked vectors ``[len(texts), d]``, embedded :data:`EMBED_BATCH` texts at a time."""
        parts: list[npt.NDArray[np.float32]] = []
        dim: int | None = None
        for start in range(0, len(texts), EMBED_BATCH):
            batch = list(texts[start : start + EMBED_BATCH])
            output = self.embedder.embed(batch)
            vectors = check_embeddings(output, len(batch), self.embedder, dim=dim)
            dim = int(vectors.shape[1])
            parts.append(vectors)
        return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)

    def _embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """The checked vector of a search query: ``embed_query`` when the embedder has
        one (it may add a query prefix), else the document embedding."""
        embed_query = getattr(self.embedder, "embed_query", None)
        matrix = (
            check_embeddings([embed_query(text)], 1, self.embedder)
            if callable(embed_query)
            else self._embed([text])
        )
        row: npt.NDArray[np.float32] = matrix[0]
        return row

    def _use_embedder(self, dim: int) -> None:
        """Inside a write: the store takes vectors of this embedder (SchemaError if not)."""
        self._store.use_embedder(embedder_name(self.embedder), dim)

    def _check_embedder(self, dim: int) -> None:
        """Inside a read: the store's vectors come from this embedder (SchemaError if not)."""
        name, stored_dim = self._store.stored_embedder()
        check_same_embedder(name, stored_dim, embedder_name(self.embedder), dim)

    @staticmethod
    def _check_matrix(matrix: npt.NDArray[np.float32], dim: int) -> None:
        if matrix.shape[0] and matrix.shape[1] != dim:
            raise SchemaError(
                f"the store's embeddings have {matrix.shape[1]} dimensions but it records "
                f"{dim}; the embeddings were written without graphmem's checks"
            )
