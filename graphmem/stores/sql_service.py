"""The memory service's store methods, once for every SQL dialect (statements in
``sql/<dialect>/service.sql``, same names and binds everywhere)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.core.validation import format_time, parse_time
from graphmem.stores.service_base import ServiceStore, StoredApiKey, StoredBlock

__all__ = ["SqlService"]


def _json(value: Any) -> Any:
    if value is None or isinstance(value, dict | list):
        return value
    if not isinstance(value, str):  # an Oracle LOB
        value = value.read()
    return json.loads(value)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return str(value.read())


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _key_from_row(row: Sequence[Any]) -> StoredApiKey:
    return StoredApiKey(
        key_id=row[0],
        key_hash=row[1],
        role=row[2],
        label=row[3],
        created_at=parse_time(str(row[4])),
        revoked_at=None if row[5] is None else parse_time(str(row[5])),
    )


def _block_from_row(row: Sequence[Any]) -> StoredBlock:
    return StoredBlock(
        block_id=row[0],
        thread_id=row[1],
        status=row[2],
        content=_json(row[3]),
        prompt_id=row[4],
        prompt_vid=None if row[5] is None else int(row[5]),
        resolved_vid=None if row[6] is None else int(row[6]),
        context_required=bool(row[7]),
        summary=_text(row[8]),
        record_ids=list(_json(row[9]) or []),
        error=row[10],
        created_at=parse_time(str(row[11])),
        updated_at=parse_time(str(row[12])),
        extraction=None if row[13] is None else _json(row[13]),
        owner=row[14],
        lease_until=None if row[15] is None else parse_time(str(row[15])),
    )


class SqlService(ServiceStore):
    """Service methods over the named statements of ``service.sql``."""

    @abstractmethod
    def _run(self, name: str, **binds: Any) -> Any:
        """Execute one named statement (see :class:`~graphmem.stores.sql_store.SqlStore`)."""

    def insert_api_key(self, key: StoredApiKey) -> None:
        self._run(
            "insert-api-key",
            key_id=key.key_id,
            key_hash=key.key_hash,
            key_role=key.role,
            label=key.label,
            created_at=format_time(key.created_at),
        )

    def get_api_key(self, key_id: str) -> StoredApiKey | None:
        row = self._run("get-api-key", key_id=key_id).fetchone()
        return None if row is None else _key_from_row(row)

    def list_api_keys(self) -> list[StoredApiKey]:
        return [_key_from_row(r) for r in self._run("list-api-keys").fetchall()]

    def revoke_api_key(self, key_id: str, revoked_at: datetime) -> bool:
        cursor = self._run("revoke-api-key", key_id=key_id, revoked_at=format_time(revoked_at))
        return bool(cursor.rowcount)

    def _block_binds(self, block: StoredBlock) -> dict[str, Any]:
        return {
            "block_id": block.block_id,
            "status": block.status,
            "content": _dump(block.content),
            "prompt_id": block.prompt_id,
            "prompt_vid": block.prompt_vid,
            "resolved_vid": block.resolved_vid,
            "context_required": int(block.context_required),
            "summary": block.summary,
            "record_ids": _dump(block.record_ids),
            "error": block.error,
            "updated_at": format_time(block.updated_at),
            "extraction": None if block.extraction is None else _dump(block.extraction),
            "owner": block.owner,
            "lease_until": None if block.lease_until is None else format_time(block.lease_until),
        }

    def insert_block(self, block: StoredBlock) -> None:
        self._run(
            "insert-block",
            thread_id=block.thread_id,
            created_at=format_time(block.created_at),
            **self._block_binds(block),
        )

    def lock_block(self, block_id: str) -> None:
        self._run("lock-block", block_id=block_id).fetchall()

    def get_block(self, block_id: str) -> StoredBlock | None:
        row = self._run("get-block", block_id=block_id).fetchone()
        return None if row is None else _block_from_row(row)

    def update_block(self, block: StoredBlock) -> None:
        self._run("update-block", **self._block_binds(block))

    def list_blocks(self, thread_id: str, limit: int, offset: int) -> list[StoredBlock]:
        rows = self._run("list-blocks", thread_id=thread_id, limit=limit, offset=offset)
        return [_block_from_row(r) for r in rows.fetchall()]

    def count_blocks(self, thread_id: str) -> int:
        return int(self._run("count-blocks", thread_id=thread_id).fetchone()[0])

    def claim_block(self, block_id: str, owner: str, now: datetime, until: datetime) -> bool:
        cursor = self._run(
            "claim-block",
            block_id=block_id,
            owner=owner,
            lease_until=format_time(until),
            updated_at=format_time(now),
        )
        return bool(cursor.rowcount)

    def renew_block_lease(self, block_id: str, owner: str, until: datetime) -> bool:
        cursor = self._run(
            "renew-block-lease", block_id=block_id, owner=owner, lease_until=format_time(until)
        )
        return bool(cursor.rowcount)

    def processing_block_owners(self) -> list[str]:
        return [str(r[0]) for r in self._run("processing-block-owners").fetchall()]

    def release_blocks(self, owner: str | None, now: datetime) -> int:
        return int(self._run("release-blocks", owner=owner, now=format_time(now)).rowcount)

    def unfinished_blocks(
        self, thread_id: str, before: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[str, str]]:
        created_at, block_id = (None, None) if before is None else before
        rows = self._run(
            "unfinished-blocks",
            thread_id=thread_id,
            created_at=None if created_at is None else format_time(created_at),
            block_id=block_id,
            limit=limit,
        )
        return [(str(r[0]), str(r[1])) for r in rows.fetchall()]

    def pending_block_ids(self, limit: int) -> list[str]:
        return [str(r[0]) for r in self._run("pending-block-ids", limit=limit).fetchall()]
