"""The memory service part of :class:`~graphmem.testing.memory_store.MemoryStore`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from graphmem.errors import ConflictError
from graphmem.stores.service_base import ServiceStore, StoredApiKey, StoredBlock

__all__ = ["MemoryService"]


class MemoryService(ServiceStore):
    """API keys and blocks in two dicts (the store's transaction covers them). A block
    whose thread is gone is gone too (as the SQL stores cascade)."""

    _threads: dict[str, Any]

    def _init_service(self) -> None:
        self._keys: dict[str, StoredApiKey] = {}
        self._blocks: dict[str, StoredBlock] = {}

    def _service_state(self) -> tuple[Any, ...]:
        return dict(self._keys), dict(self._blocks)

    def _restore_service(self, state: tuple[Any, ...]) -> None:
        self._keys, self._blocks = state

    def _live_blocks(self) -> list[StoredBlock]:
        live = [b for b in self._blocks.values() if b.thread_id in self._threads]
        return sorted(live, key=lambda b: (b.created_at, b.block_id))

    def insert_api_key(self, key: StoredApiKey) -> None:
        if key.key_id in self._keys:
            raise ConflictError(f"the change violates a store constraint: {key.key_id}")
        self._keys[key.key_id] = key

    def get_api_key(self, key_id: str) -> StoredApiKey | None:
        return self._keys.get(key_id)

    def list_api_keys(self) -> list[StoredApiKey]:
        return sorted(self._keys.values(), key=lambda k: (k.created_at, k.key_id))

    def revoke_api_key(self, key_id: str, revoked_at: datetime) -> bool:
        found = self._keys.get(key_id)
        if found is None or found.revoked_at is not None:
            return False
        self._keys[key_id] = replace(found, revoked_at=revoked_at)
        return True

    def insert_block(self, block: StoredBlock) -> None:
        if block.block_id in self._blocks and self.get_block(block.block_id) is not None:
            raise ConflictError(f"the change violates a store constraint: {block.block_id}")
        self._blocks[block.block_id] = block

    def lock_block(self, block_id: str) -> None:
        pass  # one writer at a time already (the store's transaction lock)

    def get_block(self, block_id: str) -> StoredBlock | None:
        found = self._blocks.get(block_id)
        return found if found is not None and found.thread_id in self._threads else None

    def update_block(self, block: StoredBlock) -> None:
        old = self.get_block(block.block_id)
        if old is not None:
            self._blocks[block.block_id] = replace(
                block, thread_id=old.thread_id, created_at=old.created_at
            )

    def list_blocks(self, thread_id: str, limit: int, offset: int) -> list[StoredBlock]:
        mine = [b for b in self._live_blocks() if b.thread_id == thread_id]
        return mine[offset : offset + limit]

    def count_blocks(self, thread_id: str) -> int:
        return sum(1 for b in self._live_blocks() if b.thread_id == thread_id)

    def claim_block(self, block_id: str, owner: str, now: datetime, until: datetime) -> bool:
        found = self.get_block(block_id)
        if found is None or found.status != "pending":
            return False
        if self.unfinished_blocks(found.thread_id, (found.created_at, found.block_id), 1):
            return False  # an earlier block of the thread goes first
        self._blocks[block_id] = replace(
            found, status="processing", owner=owner, lease_until=until, updated_at=now
        )
        return True

    def renew_block_lease(self, block_id: str, owner: str, until: datetime) -> bool:
        found = self.get_block(block_id)
        if found is None or found.status != "processing" or found.owner != owner:
            return False
        self._blocks[block_id] = replace(found, lease_until=until)
        return True

    def processing_block_owners(self) -> list[str]:
        held = {b.owner for b in self._live_blocks() if b.status == "processing"}
        return sorted(o for o in held if o is not None)

    def release_blocks(self, owner: str | None, now: datetime) -> int:
        released = 0
        for block in self._live_blocks():
            if block.status != "processing":
                continue
            if owner is None:
                due = block.lease_until is None or block.lease_until < now
            else:
                due = block.owner == owner
            if due:
                self._blocks[block.block_id] = replace(
                    block, status="pending", owner=None, lease_until=None, updated_at=now
                )
                released += 1
        return released

    def unfinished_blocks(
        self, thread_id: str, before: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[str, str]]:
        return [
            (b.block_id, b.status)
            for b in self._live_blocks()
            if b.thread_id == thread_id
            and b.status in ("pending", "processing")
            and (before is None or (b.created_at, b.block_id) < before)
        ][:limit]

    def pending_block_ids(self, limit: int) -> list[str]:
        return [b.block_id for b in self._live_blocks() if b.status == "pending"][:limit]
