"""Whole-store scans of the SQL stores, page by page, for an export, and the
grouped counts of :meth:`graphmem.GraphMemory.stats`.

One statement reads the ids in the export's order (only the ids are sorted, not
the rows: SQLite sorts them in its temp store, under 100 bytes each), and each
page of them is read with the point statements that ``get_memories`` and
``get_links`` run, so the rows in memory are one page's. The caller holds one
read transaction around the whole scan: the pages are one snapshot. The counts
are ``GROUP BY`` statements (``stats.sql``): one row per group reaches Python.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.validation import format_time
from graphmem.models import MemoryRecord, RecordRelation

__all__ = ["SqlScans"]


class SqlScans:
    """Mixed into :class:`graphmem.stores.sql_store.SqlStore`."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any: ...

    @abstractmethod
    def get_memories(self, record_ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    @abstractmethod
    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]: ...

    def scan_memories(self, now: datetime, page: int) -> Iterator[list[MemoryRecord]]:
        cursor = self._run(
            "list-memory-ids", record_types=json.dumps(list(MEMORY_TYPES)), now=format_time(now)
        )
        while ids := [row[0] for row in cursor.fetchmany(page)]:
            found = self.get_memories(ids)
            yield [found[i] for i in ids]

    def scan_links(self, page: int) -> Iterator[list[RecordRelation]]:
        cursor = self._run("list-link-ids")
        while ids := [row[0] for row in cursor.fetchmany(page)]:
            found = self.get_links(ids)
            yield [found[i] for i in ids]

    def count_memory_groups(self, now: datetime) -> dict[tuple[str, str, str | None], int]:
        rows = self._run(
            "count-memory-groups", record_types=json.dumps(list(MEMORY_TYPES)), now=format_time(now)
        ).fetchall()
        return {(record_type, status, user_id): int(n) for record_type, status, user_id, n in rows}

    def count_link_types(self, now: datetime) -> dict[str, int]:
        rows = self._run("count-link-types", now=format_time(now)).fetchall()
        return {relation_type: int(n) for relation_type, n in rows}
