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
the log no longer holds every entry since then (it is trimmed, or a DBA deleted
one, whichever), the copy is rebuilt from the memory table. This module holds
the matrix only; the store runs the SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.vector import distances_from_dots, row_norms, top_k
from graphmem.errors import InvalidArgumentError, SchemaError

__all__ = ["MAP_BYTES_PER_DOC", "MAP_MIN_BYTES", "VectorCache"]

_GROWTH = 1.5
_CODED = ("record_type", "user_id", "agent_id", "thread_id")
_FILTER_BINDS = ("user_id", "agent_id", "thread_id", "record_types", "now")
_OWNER_BINDS = {"user_id": "without_user", "agent_id": "without_agent"}

MAP_BYTES_PER_DOC = 1024
"""A search's keyword doc ids go to SQL as a byte map (:meth:`VectorCache.doc_map`)
unless it would take more bytes than this per id (the JSON array of
:meth:`VectorCache.doc_ids_of` takes ~7 per id, but costs more to read)."""
MAP_MIN_BYTES = 1 << 20
"""A byte map this small is always used."""


Row = tuple[Any, ...]
"""``(record_id, embedding, record_type, status, user_id, agent_id, thread_id,
expires_at, doc_id)`` as ``select-all-embeddings`` reads it (``doc_id``: the
memory's keyword document number; ``record_type`` None: the memory is gone)."""


class VectorCache:
    """Embeddings and search-filter columns by record id, one slot per memory.

    The vectors are rows of one float32 matrix; the filter columns are numpy
    arrays of the same length (values as integer codes), so a search without a
    metadata filter selects its candidates here too (:meth:`select`).
    """

    def __init__(self) -> None:
        self.seen: int | None = None
        """The last vector-log sequence number applied; None before the first load."""
        self.reset(0, 0)
        self.seen = None

    @property
    def dim(self) -> int:
        """The width of the vectors held (0 while empty)."""
        return int(self._matrix.shape[1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (allocated, including free slots)."""
        arrays: list[npt.NDArray[Any]] = [self._matrix, self._norms, self._ids, self._expires]
        arrays.append(self._docs)
        arrays += [self._live, self._valid, self._expiring, *self._codes_of.values()]
        return sum(int(a.nbytes) for a in arrays)

    @property
    def odd(self) -> bool:
        """Whether some stored vectors have another width than the rest."""
        return bool(self._odd)

    @property
    def complete(self) -> bool:
        """Whether every memory of the store has a slot (none without a vector or
        with a vector of another width), so :meth:`select` sees every memory."""
        return not self._odd and not self._plain

    def __len__(self) -> int:
        return len(self._slots)

    def reset(self, seen: int, expected: int) -> None:
        """Forget everything; about ``expected`` memories will follow (:meth:`put_many`)."""
        n = max(expected, 0)
        self.seen = seen
        self._selected: tuple[tuple[Any, ...], npt.NDArray[np.int64]] | None = None
        self._slots: dict[str, int] = {}
        self._odd: dict[str, int] = {}  # ids whose vector has another width: that width
        self._plain: set[str] = set()  # ids of the memories held without a vector
        self._free = list(range(n - 1, -1, -1))
        self._codes: dict[Any, int] = {}
        self._matrix: npt.NDArray[np.float32] = np.zeros((n, 0), dtype=np.float32)
        self._norms: npt.NDArray[np.float64] = np.zeros(n, dtype=np.float64)
        self._ids: npt.NDArray[np.object_] = np.full(n, None, dtype=object)
        self._expires: npt.NDArray[np.object_] = np.full(n, None, dtype=object)
        self._docs = np.full(n, -1, dtype=np.int64)
        self._live = np.zeros(n, dtype=bool)
        self._valid = np.zeros(n, dtype=bool)
        self._expiring = np.zeros(n, dtype=bool)
        self._codes_of = {c: np.full(n, -1, dtype=np.int32) for c in _CODED}

    def put_many(self, rows: Iterable[Row]) -> None:
        """Apply the current row of each id (embedding None: the memory or its vector
        is gone)."""
        self._selected = None
        written: list[int] = []
        for row in rows:
            record_id, blob = row[0], row[1]
            self._drop(record_id)
            if blob is None:
                if row[2] is not None:
                    self._plain.add(record_id)
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
            self._set_columns(slot, row)
            written.append(slot)
        if written:
            self._norms[written] = row_norms(self._matrix[written])

    def load(self, rows: Sequence[Row]) -> None:
        """Add the rows of ids not held yet, as after :meth:`reset` (whole arrays at a
        time; rows whose vectors differ in width go through :meth:`put_many`)."""
        self._selected = None
        self._plain.update(r[0] for r in rows if r[1] is None and r[2] is not None)
        rows = [r for r in rows if r[1] is not None]
        width = self.dim if self._slots else (len(rows[0][1]) // 4 if rows else 0)
        if not rows or any(len(r[1]) != width * 4 for r in rows) or len(rows[0][1]) % 4:
            self.put_many(rows)
            return
        if not self._slots and width != self.dim:
            self._matrix = np.zeros((self._matrix.shape[0], width), np.float32)
        self._grow(len(rows))
        taken = self._free[-len(rows) :][::-1]  # as len(rows) pops would take them
        del self._free[-len(rows) :]
        slots = np.asarray(taken, dtype=np.int64)
        ids, blobs, types, status, users, agents, threads, expires, docs = zip(*rows, strict=True)
        matrix = np.frombuffer(b"".join(blobs), np.float32).reshape(len(rows), width)
        self._matrix[slots] = matrix
        self._norms[slots] = row_norms(matrix)
        self._slots.update(zip(ids, taken, strict=True))
        self._ids[slots] = _objects(ids)
        self._live[slots] = True
        self._valid[slots] = [s == "valid" for s in status]
        self._expires[slots] = _objects(expires)
        self._expiring[slots] = [e is not None for e in expires]
        self._docs[slots] = [-1 if d is None else d for d in docs]
        for column, values in zip(_CODED, (types, users, agents, threads), strict=True):
            self._codes_of[column][slots] = self._codes_for(values)

    def _codes_for(self, values: Sequence[Any]) -> list[int]:
        """The code of each of ``values`` (-1 for None), new values coded first."""
        for value in dict.fromkeys(values):
            if value is not None:
                self._code(value)
        return list(map(self._codes.get, values, repeat(-1)))  # None is never a key

    def _set_columns(self, slot: int, row: Row) -> None:
        record_id, _, record_type, status, user_id, agent_id, thread_id, expires_at, doc = row
        self._ids[slot] = record_id
        self._docs[slot] = -1 if doc is None else doc
        self._live[slot] = True
        self._valid[slot] = status == "valid"
        self._expires[slot] = expires_at
        self._expiring[slot] = expires_at is not None
        for column, value in zip(_CODED, (record_type, user_id, agent_id, thread_id), strict=True):
            self._codes_of[column][slot] = -1 if value is None else self._code(value)

    def _code(self, value: Any) -> int:
        code = self._codes.get(value)
        if code is None:
            code = self._codes[value] = len(self._codes)
        return code

    def _drop(self, record_id: str) -> None:
        self._odd.pop(record_id, None)
        self._plain.discard(record_id)
        slot = self._slots.pop(record_id, None)
        if slot is not None:
            self._live[slot] = False
            self._ids[slot] = self._expires[slot] = None
            self._free.append(slot)

    def _take_slot(self) -> int:
        if not self._free:
            self._grow(1)
        return self._free.pop()

    def _grow(self, more: int) -> None:
        """Room for at least ``more`` new slots (by a factor, not one at a time)."""
        if len(self._free) < more:
            old = self._matrix.shape[0]
            new = max(16, int(old * _GROWTH), old + more - len(self._free))
            self._matrix = _grown(self._matrix, new)
            self._norms, self._ids, self._expires = (
                _grown(a, new) for a in (self._norms, self._ids, self._expires)
            )
            self._docs = _grown(self._docs, new, -1)
            self._live, self._valid, self._expiring = (
                _grown(a, new) for a in (self._live, self._valid, self._expiring)
            )
            self._codes_of = {c: _grown(a, new, -1) for c, a in self._codes_of.items()}
            self._free = list(range(new - 1, old - 1, -1)) + self._free

    def select(self, binds: dict[str, Any], include_invalid: bool) -> npt.NDArray[np.int64]:
        """The slots of the memories passing the search filters of ``binds`` (user,
        agent, thread, record types, expiry at ``now``, and ``without_user`` /
        ``without_agent`` when given; no metadata filter), as
        select-search-candidate-ids selects them (read-only).

        The last answer is kept until the copy changes: the two halves of a hybrid
        search ask for the same filters one after the other.
        """
        owners = tuple(binds.get(c, 0) for c in _OWNER_BINDS.values())
        key = (*(binds[c] for c in _FILTER_BINDS), *owners, include_invalid)
        if self._selected is not None and self._selected[0] == key:
            return self._selected[1]
        slots = self._select(binds, include_invalid)
        slots.flags.writeable = False
        self._selected = (key, slots)
        return slots

    def _select(self, binds: dict[str, Any], include_invalid: bool) -> npt.NDArray[np.int64]:
        slots: npt.NDArray[np.int64] | None = None
        for column in ("user_id", "agent_id", "thread_id"):  # the narrowest first
            value = binds[column]
            if value is not None:
                code = self._codes.get(value)
                if code is None:
                    return np.zeros(0, dtype=np.int64)
            elif binds.get(_OWNER_BINDS.get(column, ""), 0):
                code = -1  # only the memories without one (None is coded -1)
            else:
                continue
            codes = self._codes_of[column]
            slots = np.flatnonzero(codes == code) if slots is None else slots[codes[slots] == code]
        slots = np.flatnonzero(self._live) if slots is None else slots[self._live[slots]]
        allowed = np.zeros(len(self._codes) + 1, dtype=bool)  # the last entry: code -1
        allowed[[self._codes[t] for t in json.loads(binds["record_types"]) if t in self._codes]] = (
            True
        )
        slots = slots[allowed[self._codes_of["record_type"][slots]]]
        if not include_invalid:
            slots = slots[self._valid[slots]]
        expiring = slots[self._expiring[slots]]
        if expiring.size:
            now = binds["now"]
            gone = [s for s in expiring.tolist() if not _later(self._expires[s], now)]
            slots = np.setdiff1d(slots, np.asarray(gone, dtype=np.int64))
        return slots.astype(np.int64)

    def nearest(
        self, slots: npt.NDArray[np.int64], query: npt.NDArray[np.float32], k: int
    ) -> list[tuple[str, float]]:
        """The ``k`` memories of ``slots`` nearest to ``query``, as
        :func:`graphmem.core.vector.top_k` over
        :func:`~graphmem.core.vector.cosine_distances` ranks them.

        Every candidate is scored first in float32, whose dot products are off by
        at most ``_dot_error`` of the cosine; only the candidates that this bound
        cannot rule out of the top ``k`` are scored again exactly, in float64.

        Raises:
            InvalidArgumentError: ``query`` has another width than the vectors.
        """
        index = slots
        kept = self._ids[slots].tolist()
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

    def doc_ids_of(self, slots: npt.NDArray[np.int64]) -> str:
        """The keyword document numbers of the memories in ``slots`` (those that have
        one), as a JSON array."""
        docs = self._docs[slots]
        return json.dumps(docs[docs >= 0].tolist())

    def doc_map(self, slots: npt.NDArray[np.int64]) -> tuple[int, int, bytes] | None:
        """The keyword document numbers of the memories in ``slots`` as ``(lo, hi,
        map)``: byte ``d - lo`` of ``map`` is 1 when ``d`` is one of them, 0 if not,
        for every ``d`` in ``lo..hi`` (none: ``(1, 0, b"")``). None when the numbers
        are so far apart that the map would take more than :data:`MAP_BYTES_PER_DOC`
        bytes per number (and more than :data:`MAP_MIN_BYTES`): :meth:`doc_ids_of`
        is smaller then."""
        docs = self._docs[slots]
        docs = docs[docs >= 0]
        if not docs.size:
            return 1, 0, b""
        lo, hi = int(docs.min()), int(docs.max())
        if hi - lo + 1 > max(MAP_BYTES_PER_DOC * docs.size, MAP_MIN_BYTES):
            return None
        found = np.zeros(hi - lo + 1, dtype=np.uint8)
        found[docs - lo] = 1
        return lo, hi, found.tobytes()

    def ids_of(self, slots: npt.NDArray[np.int64]) -> list[str]:
        """The record ids held in ``slots``."""
        return [str(i) for i in self._ids[slots].tolist()]

    def slots_of(self, record_ids: Sequence[str]) -> npt.NDArray[np.int64]:
        """The slots of the ids among ``record_ids`` that have a vector.

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
        return np.asarray(found, dtype=np.int64).reshape(-1)


def _grown(array: npt.NDArray[Any], rows: int, fill: Any = None) -> npt.NDArray[Any]:
    """``array`` with its first axis extended to ``rows`` (new entries zero or ``fill``)."""
    grown = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    if fill is not None:
        grown[:] = fill
    grown[: array.shape[0]] = array
    return grown


def _objects(values: Sequence[Any]) -> npt.NDArray[np.object_]:
    """``values`` as a one-dimensional object array (never split into characters)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _later(expires_at: Any, now: str) -> bool:
    """``expires_at > now`` as SQLite compares a stored value with a text bind: text by
    code point (UTF-8 bytes), numbers before text, BLOBs after it."""
    if isinstance(expires_at, str):
        return expires_at > now
    return isinstance(expires_at, bytes)


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
