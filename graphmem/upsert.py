"""What ``add_memory`` / ``add_memories`` do with an id that is already stored.

``if_exists="error"`` (default) raises :class:`ConflictError` naming the id;
``"skip"`` keeps the stored memory untouched; ``"replace"`` deletes the stored
memory, with its links as :meth:`GraphMemory.delete_memory` does, and stores
the new one. (To change a memory and keep its links, use ``update_memory``.)
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.errors import ConflictError, InvalidArgumentError
from graphmem.stores.base import NewMemory, Store

__all__ = ["IF_EXISTS", "check_if_exists", "insert_new"]

IF_EXISTS = ("error", "skip", "replace")
_LOOKUP = 5000


def check_if_exists(value: object) -> str:
    """One of :data:`IF_EXISTS`.

    >>> check_if_exists("skip")
    'skip'
    """
    if value not in IF_EXISTS:
        raise InvalidArgumentError("if_exists", f"must be one of {IF_EXISTS}, got {value!r}")
    assert isinstance(value, str)
    return value


def _stored(store: Store, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _LOOKUP):
        found.update(store.get_record_types(ids[start : start + _LOOKUP]))
    return found


def _conflict(index: int | None, record_id: str) -> ConflictError:
    where = "memory_id" if index is None else f"memories[{index}].memory_id"
    return ConflictError(
        f"{where}: {record_id!r} already exists (if_exists='skip' keeps the stored memory, "
        "'replace' replaces it)"
    )


def insert_new(store: Store, new: Sequence[NewMemory], if_exists: str, single: bool) -> None:
    """Insert ``new`` in one transaction, applying ``if_exists`` to stored ids."""
    ids = [m.record_id for m in new]
    seen: dict[str, int] = {}
    for index, record_id in enumerate(ids):
        if record_id in seen:
            raise ConflictError(
                f"memories[{index}].memory_id: {record_id!r} repeats memories[{seen[record_id]}]"
            )
        seen[record_id] = index
    with store.transaction():
        # Looked up first, in the writing transaction: after a failed batch insert
        # the rows before the failing one would hide which id was stored before.
        stored = _stored(store, ids)
        if stored and if_exists == "error":
            first = min(seen[i] for i in stored)
            raise _conflict(None if single else first, ids[first])
        if if_exists == "replace":
            for record_id in sorted(stored):
                store.delete_memory(record_id)
            store.insert_memories(new)
        else:
            store.insert_memories([m for m in new if m.record_id not in stored])
