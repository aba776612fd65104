"""The link methods of the SQL stores: each a named statement of ``links.sql``
(the validity triggers recompute the endpoints in the same statement)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.core.validation import MAX_COUNT, format_time
from graphmem.models import RecordRelation
from graphmem.stores.base import NewLink
from graphmem.stores.rows import relation_from_row

__all__ = ["SqlLinks", "dump_json", "link_binds", "optional_time"]


def dump_json(value: dict[str, Any]) -> str:
    """Compact JSON text, as stored in metadata columns."""
    if not value:
        return "{}"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def optional_time(value: datetime | None) -> str | None:
    """The stored text of an optional time."""
    return None if value is None else format_time(value)


def link_binds(link: NewLink) -> dict[str, Any]:
    """The binds of ``insert-link`` for one link."""
    return {
        "relation_id": link.relation_id,
        "source_id": link.source_id,
        "target_id": link.target_id,
        "relation_type": link.relation_type,
        "opposite_relation_type": link.opposite_relation_type,
        "relation_timestamp": optional_time(link.timestamp),
        "metadata": dump_json(link.metadata),
        "created_at": format_time(link.created_at),
    }


class SqlLinks:
    """Mixed into :class:`graphmem.stores.sql_store.SqlStore`."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any: ...

    @abstractmethod
    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None: ...

    @abstractmethod
    def _id_binds(self, ids: list[str]) -> list[str]: ...

    @abstractmethod
    def transaction(self, write: bool = True) -> Any: ...

    def insert_link(self, link: NewLink) -> None:
        with self.transaction():
            self._run("insert-link", **link_binds(link))

    def insert_links(self, links: Sequence[NewLink]) -> None:
        rows = [link_binds(link) for link in links]
        with self.transaction():
            self._run_many("insert-link", rows)

    def get_links(self, relation_ids: Sequence[str]) -> dict[str, RecordRelation]:
        rows: list[Any] = []
        with self.transaction(write=False):
            for ids in self._id_binds(list(relation_ids)):
                rows += self._run("get-links", relation_ids=ids).fetchall()
        return {r[0]: relation_from_row(r) for r in rows}

    def _one_id(self, name: str, **binds: Any) -> str | None:
        with self.transaction(write=False):
            row = self._run(name, **binds).fetchone()
        return None if row is None else str(row[0])

    def find_link_conflict(
        self, source_id: str, target_id: str, relation_type: str, exclude_relation_id: str
    ) -> str | None:
        return self._one_id(
            "find-link-conflict",
            source_id=source_id,
            target_id=target_id,
            relation_type=relation_type,
            exclude_relation_id=exclude_relation_id,
        )

    def find_link(self, source_id: str, target_id: str, relation_type: str) -> str | None:
        return self._one_id(
            "find-link-by-triple",
            source_id=source_id,
            target_id=target_id,
            relation_type=relation_type,
        )

    def update_link(
        self,
        relation_id: str,
        relation_type: str,
        opposite_relation_type: str,
        timestamp: datetime | None,
        metadata: dict[str, Any],
    ) -> None:
        with self.transaction():
            self._run(
                "update-link",
                relation_id=relation_id,
                relation_type=relation_type,
                opposite_relation_type=opposite_relation_type,
                relation_timestamp=optional_time(timestamp),
                metadata=dump_json(metadata),
            )

    def delete_link(self, relation_id: str) -> bool:
        with self.transaction():
            return bool(self._run("delete-link", relation_id=relation_id).rowcount > 0)

    def list_links(
        self,
        record_id: str | None,
        relation_type: str | None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[RecordRelation]:
        page = {"limit": MAX_COUNT if limit is None else limit, "offset": offset}
        with self.transaction(write=False):
            if record_id is None:
                cursor = self._run("list-links", relation_type=relation_type, **page)
            else:
                cursor = self._run(
                    "list-links-of-record",
                    record_id=record_id,
                    relation_type=relation_type,
                    **page,
                )
            rows = cursor.fetchall()
        return [relation_from_row(r) for r in rows]

    def count_links(self, record_id: str | None, relation_type: str | None) -> int:
        binds: dict[str, Any] = {"relation_type": relation_type}
        if record_id is not None:
            binds["record_id"] = record_id
        name = "count-links" if record_id is None else "count-links-of-record"
        with self.transaction(write=False):
            return int(self._run(name, **binds).fetchone()[0])
