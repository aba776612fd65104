"""The memory service part of the store protocol (:class:`~graphmem.stores.base.Store`).

Plain reads and writes of two tables: API keys (a hash of each secret, never the
secret) and memory blocks (one add-memory call of the service: its messages and
facts, its prompt reference and its processing state). The rules are
:mod:`graphmem.service`'s, which calls these methods inside
:meth:`Store.transaction`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.core.texts import optional_text

__all__ = ["BLOCK_STATUSES", "ServiceStore", "StoredApiKey", "StoredBlock"]

BLOCK_STATUSES = ("pending", "processing", "ready", "failed")


@dataclass(frozen=True)
class StoredApiKey:
    """An API key row: ``key_hash`` is the hex SHA-256 of the secret."""

    key_id: str
    key_hash: str
    role: str
    label: str | None
    created_at: datetime
    revoked_at: datetime | None = None

    def __post_init__(self) -> None:
        # An empty label is no label (graphmem.core.texts): Oracle stores '' as NULL.
        object.__setattr__(self, "label", optional_text(self.label))


@dataclass(frozen=True)
class StoredBlock:
    """A memory block row. ``content`` is ``{"messages": [...], "facts": [...]}``."""

    block_id: str
    thread_id: str
    status: str
    content: dict[str, Any]
    prompt_id: str | None
    prompt_vid: int | None
    resolved_vid: int | None
    context_required: bool
    summary: str | None
    record_ids: list[str]
    error: str | None
    created_at: datetime
    updated_at: datetime
    extraction: dict[str, Any] | None = None
    """The block's memory extraction: ``job_id`` (fixed before the LLM is asked, so
    a retry finds its work), then ``record_ids`` and ``relation_ids`` once written."""
    owner: str | None = None
    """The holder of a ``processing`` block (``host:pid:token``), else None."""
    lease_until: datetime | None = None
    """Until when the holder keeps the block unless it renews the lease."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # An empty summary or error is none (graphmem.core.texts): Oracle stores '' as NULL.
        object.__setattr__(self, "summary", optional_text(self.summary))
        object.__setattr__(self, "error", optional_text(self.error))


class ServiceStore(ABC):
    """The memory service's methods every store implements."""

    @abstractmethod
    def insert_api_key(self, key: StoredApiKey) -> None:
        """Insert; raises ConflictError when the id exists."""

    @abstractmethod
    def get_api_key(self, key_id: str) -> StoredApiKey | None:
        """One key, or None."""

    @abstractmethod
    def list_api_keys(self) -> list[StoredApiKey]:
        """Every key, oldest first."""

    @abstractmethod
    def revoke_api_key(self, key_id: str, revoked_at: datetime) -> bool:
        """Mark a live key revoked; False when there is no live key of that id."""

    @abstractmethod
    def insert_block(self, block: StoredBlock) -> None:
        """Insert; raises ConflictError when the id exists."""

    @abstractmethod
    def lock_block(self, block_id: str) -> None:
        """Inside a write: keep other writers off the block's row until the
        transaction ends, before reading the row to decide its update (a store
        whose writers are serialized already has nothing to do)."""

    @abstractmethod
    def get_block(self, block_id: str) -> StoredBlock | None:
        """One block, or None."""

    @abstractmethod
    def update_block(self, block: StoredBlock) -> None:
        """Overwrite every field of the block but its id, thread and creation time."""

    @abstractmethod
    def list_blocks(self, thread_id: str, limit: int, offset: int) -> list[StoredBlock]:
        """A thread's blocks, oldest first: ``limit`` after ``offset``."""

    @abstractmethod
    def count_blocks(self, thread_id: str) -> int:
        """How many blocks a thread has."""

    @abstractmethod
    def claim_block(self, block_id: str, owner: str, now: datetime, until: datetime) -> bool:
        """Move a pending block to ``processing``, held by ``owner`` until ``until``
        (``updated_at`` set to ``now``); False when it is not pending, or when a
        block of its thread accepted before it (``created_at``, then ``block_id``)
        is pending or processing."""

    @abstractmethod
    def unfinished_blocks(
        self, thread_id: str, before: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[str, str]]:
        """``(block_id, status)`` of the thread's pending and processing blocks accepted
        before ``before`` (``(created_at, block_id)``; None: all), oldest first (at
        most ``limit``)."""

    @abstractmethod
    def renew_block_lease(self, block_id: str, owner: str, until: datetime) -> bool:
        """Extend the lease of a block ``owner`` is processing; False otherwise."""

    @abstractmethod
    def processing_block_owners(self) -> list[str]:
        """The distinct holders of blocks being processed."""

    @abstractmethod
    def release_blocks(self, owner: str | None, now: datetime) -> int:
        """Make pending again the blocks ``owner`` is processing, or (None) those whose
        lease ran out or that name no holder; ``updated_at`` becomes ``now``. How many."""

    @abstractmethod
    def pending_block_ids(self, limit: int) -> list[str]:
        """The ids of pending blocks, oldest first (at most ``limit``)."""
