"""Whether a record passes search filters, in Python (the SQL does the same for search).

Used where graphmem walks links one record at a time (``GraphMemory.tree``) and
must apply the rules a search applies to its linked context: scope, record
type, metadata equality on top-level scalars, and expiry.
"""

from __future__ import annotations

from graphmem.core.metadata import canonical_scalar
from graphmem.core.validation import SearchFilters
from graphmem.models import MemoryRecord

__all__ = ["record_passes"]


def record_passes(record: MemoryRecord, filters: SearchFilters) -> bool:
    """True when ``record`` passes every filter (status is not a filter here).

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> r = MemoryRecord(id="a", record_type="fact", content="x", status="valid",
    ...     user_id="u1", metadata={"n": 1}, timestamp=t, created_at=t)
    >>> record_passes(r, SearchFilters(user_id="u1", metadata_filter={"n": 1.0}))
    True
    >>> record_passes(r, SearchFilters(record_types=("preference",)))
    False
    """
    for wanted, actual in (
        (filters.user_id, record.user_id),
        (filters.agent_id, record.agent_id),
        (filters.thread_id, record.thread_id),
    ):
        if wanted is not None and wanted != actual:
            return False
    if filters.record_types is not None and record.record_type not in filters.record_types:
        return False
    now, expires = filters.now, record.expires_at
    if now is not None and expires is not None and expires <= now:
        return False
    for key, value in (filters.metadata_filter or {}).items():
        if key not in record.metadata:
            return False
        if canonical_scalar(record.metadata[key]) != canonical_scalar(value):
            return False
    return True
