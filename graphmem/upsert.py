"""What ``add_memory`` / ``add_memories`` do with an id that is already stored.

``if_exists="error"`` (default) raises :class:`ConflictError` naming the id;
``"skip"`` keeps the stored memory untouched; ``"replace"`` deletes the stored
memory, with its links as :meth:`GraphMemory.delete_memory` does, and stores
the new one. (To change a memory and keep its links, use ``update_memory``.)
"""

from __future__ import annotations

from graphmem.errors import InvalidArgumentError

__all__ = ["IF_EXISTS", "check_if_exists"]

IF_EXISTS = ("error", "skip", "replace")


def check_if_exists(value: object) -> str:
    """One of :data:`IF_EXISTS`.

    >>> check_if_exists("skip")
    'skip'
    """
    if value not in IF_EXISTS:
        raise InvalidArgumentError("if_exists", f"must be one of {IF_EXISTS}, got {value!r}")
    assert isinstance(value, str)
    return value
