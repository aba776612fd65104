"""The registry of record types: one entry per type, with the properties that govern it.

Everything that depends on the set of types reads it from here: argument checks,
the endpoint check of links, the record-type filter (one JSON-array bind, so no
statement lists the types), and the element names the renderer reserves.
Adding a type is one :class:`RecordType` in :data:`RECORD_TYPES`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LINKABLE_TYPES",
    "MEMORY_TYPES",
    "RECORD_TYPES",
    "RECORD_TYPE_NAMES",
    "RecordType",
    "record_type",
]


@dataclass(frozen=True)
class RecordType:
    """One kind of record.

    Attributes:
        name: the type as stored, passed by callers and rendered as the element name.
        memory_like: stored as a memory: added by ``add_memory``, searched and listed.
        linkable: may be an endpoint of a link.
        thread_scoped: belongs to a thread (a ``thread_id`` is required).
    """

    name: str
    memory_like: bool
    linkable: bool
    thread_scoped: bool = False


RECORD_TYPES: tuple[RecordType, ...] = (
    RecordType("memory", memory_like=True, linkable=True),
    RecordType("fact", memory_like=True, linkable=True),
    RecordType("preference", memory_like=True, linkable=True),
    RecordType("guideline", memory_like=True, linkable=True),
    # Messages belong to threads: stored and searched within their thread, never linked.
    RecordType("message", memory_like=False, linkable=False, thread_scoped=True),
)
"""Every record type, in the order messages list them."""

RECORD_TYPE_NAMES: frozenset[str] = frozenset(t.name for t in RECORD_TYPES)
MEMORY_TYPES: tuple[str, ...] = tuple(t.name for t in RECORD_TYPES if t.memory_like)
"""Record types that can be added, searched and listed as memories."""
LINKABLE_TYPES: tuple[str, ...] = tuple(t.name for t in RECORD_TYPES if t.linkable)
"""Record types that can be the source or target of a link."""


def record_type(name: str) -> RecordType | None:
    """The registry entry of ``name``, or None.

    >>> record_type("fact").linkable, record_type("message").memory_like, record_type("x")
    (True, False, None)
    """
    return next((t for t in RECORD_TYPES if t.name == name), None)
