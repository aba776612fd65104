"""An in-process copy of a store's embeddings, kept exactly in step with the store.

The embedded store answers an exact top-k by reading the ids of the memories
that pass the search filters (SQL, through a covering index) and scoring their
vectors here, in one float32 matrix, instead of reading each candidate's
embedding BLOB out of the database on every search.

The copy is kept exact by the store's vector log (install.sql): triggers on the
memory table append a memory's id to the log whenever a row is inserted,
deleted or has its embedding changed, whoever writes it (this handle, another
handle or process, a DBA's DML). Before every search, inside the search's read
transaction, the store reads the log entries after the last one this copy has
applied (:meth:`VectorCache.seen`) and re-reads those memories' embeddings; if
the log no longer holds every entry since then (it is trimmed), the copy is
rebuilt from the memory table. This module holds the matrix only; the store
runs the SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from graphmem.core.vector import distances_from_dots, row_norms, top_k
from graphmem.errors import InvalidArgumentError, SchemaError

__all__ = ["VectorCache"]

_GROWTH = 1.5


class VectorCache:
    """Embeddings by record id: one float32 matrix plus a slot per id."""

    def __init__(self) -> None:
        self.seen: int | None = None
        """The last vector-log sequence number applied; None before the first load."""
        self._slots: dict[str, int] = {}
        self._free: list[int] = []
        self._matrix: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self._norms: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)
        self._odd: dict[str, int] = {}  # ids whose vector has another width: their width

    @property
    def dim(self) -> int:
        """The width of the vectors held (0 while empty)."""
        return int(self._matrix.shape[1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the matrix (allocated, including free slots)."""
        return int(self._matrix.nbytes)

    def __len__(self) -> int:
        return len(self._slots)

    def reset(self, seen: int, expected: int) -> None:
        """Forget everything; about ``expected`` vectors will follow (:meth:`put_many`)."""
        self.seen = seen
        self._slots = {}
        self._odd = {}
        self._matrix = np.zeros((max(expected, 0), 0), dtype=np.float32)
        self._norms = np.zeros(max(expected, 0), dtype=np.float64)
        self._free = list(range(max(expected, 0) - 1, -1, -1))

    def put_many(self, rows: Iterable[tuple[str, bytes | None]]) -> None:
        """Apply the current embedding of each id (None: the memory or its vector is gone)."""
        written: list[int] = []
        for record_id, blob in rows:
            self._drop(record_id)
            if blob is None:
                continue
            vector = np.frombuffer(blob, dtype=np.float32)
            if not self._slots and vector.size != self.dim:
                self._matrix = np.zeros((self._matrix.shape[0], vector.size), np.float32)
            if vector.size != self.dim:
                self._odd[record_id] = vector.size
                continue
            slot = self._take_slot()
            self._matrix[slot] = vector
            self._slots[record_id] = slot
            written.append(slot)
        if written:
            self._norms[written] = row_norms(self._matrix[written])

    def _drop(self, record_id: str) -> None:
        self._odd.pop(record_id, None)
        slot = self._slots.pop(record_id, None)
        if slot is not None:
            self._free.append(slot)

    def _take_slot(self) -> int:
        if not self._free:
            old = self._matrix.shape[0]
            new = max(16, int(old * _GROWTH))
            grown = np.zeros((new, self.dim), dtype=np.float32)
            grown[:old] = self._matrix
            self._matrix = grown
            self._norms = np.concatenate([self._norms, np.zeros(new - old, np.float64)])
            self._free = list(range(new - 1, old - 1, -1))
        return self._free.pop()

    def nearest(
        self, record_ids: Sequence[str], query: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` of ``record_ids`` nearest to ``query``, as
        :func:`graphmem.core.vector.top_k` over
        :func:`~graphmem.core.vector.cosine_distances` ranks them (ids without a
        vector are left out).

        Every candidate is scored first in float32, whose dot products are off by
        at most ``_dot_error`` of the cosine; only the candidates that this bound
        cannot rule out of the top ``k`` are scored again exactly, in float64.

        Raises:
            SchemaError: some of them have vectors of another width than the rest.
            InvalidArgumentError: ``query`` has another width than the vectors.
        """
        kept, index = self._slots_of(record_ids)
        if not kept or k <= 0:
            return []
        if query.shape[0] != self.dim:
            raise InvalidArgumentError(
                "embedder", f"query vector has {query.shape[0]} dimensions, store has {self.dim}"
            )
        rows = self._matrix[index]
        norms = self._norms[index]
        q32 = np.asarray(query, dtype=np.float32)
        q_norm = float(np.linalg.norm(np.asarray(q32, dtype=np.float64)))
        if len(kept) > k:
            rough = distances_from_dots((rows @ q32).astype(np.float64), norms, q_norm)
            kth = float(np.partition(rough, k - 1)[k - 1])
            near = np.flatnonzero(rough <= kth + 2 * _dot_error(self.dim) + 1e-11)
            rows, norms, kept = rows[near], norms[near], [kept[int(i)] for i in near]
        dots = rows.astype(np.float64) @ np.asarray(q32, dtype=np.float64)
        return top_k(kept, distances_from_dots(dots, norms, q_norm), k)

    def _slots_of(self, record_ids: Sequence[str]) -> tuple[list[str], npt.NDArray[np.int64]]:
        """The ids among ``record_ids`` that have a vector, and their slots.

        Raises:
            SchemaError: some of them have vectors of another width than the rest.
        """
        slots = self._slots
        if self._odd:
            odd = next((i for i in record_ids if i in self._odd), None)
            if odd is not None:
                raise SchemaError(
                    "the store holds embeddings of different dimensions: memory "
                    f"{odd!r} has {self._odd[odd]}, the others have {self.dim}"
                )
        kept = list(record_ids)
        try:  # one C-level lookup of every id; the slow path drops ids without a vector
            found = itemgetter(*kept)(slots) if len(kept) > 1 else [slots[i] for i in kept]
        except KeyError:
            kept = [i for i in kept if i in slots]
            found = [slots[i] for i in kept]
        return kept, np.asarray(found, dtype=np.int64).reshape(-1)


def _dot_error(dim: int) -> float:
    """A bound on the error of a float32 dot product of ``dim`` terms, relative to the
    product of the two norms, so a bound on the error of the cosine it gives.

    Summing ``dim`` float32 products in any order is off by at most
    ``gamma = dim * u / (1 - dim * u)`` times the sum of their absolute values,
    ``u = 2**-24`` (Higham, Accuracy and Stability of Numerical Algorithms, 3.1),
    which Cauchy-Schwarz bounds by the norms; one more ``u`` for rounding the
    inputs' products and the result. Doubled for safety.

    >>> 0 < _dot_error(384) < 1e-4
    True
    """
    u = 2.0**-24
    gamma = (dim + 2) * u / (1 - (dim + 2) * u)
    return 2 * gamma
