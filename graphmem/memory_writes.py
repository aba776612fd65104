"""New memories for :class:`graphmem.GraphMemory`: check every field, embed, write.

Every argument is checked before the embedder runs (it may be a remote model),
and ids and the embedder's identity are checked in the transaction that writes,
so a rejected call changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from graphmem.core.bulk_keys import MEMORY_KEYS
from graphmem.core.validation import (
    check_content,
    check_id,
    check_metadata,
    check_optional_id,
    check_record_type,
    check_timestamp,
    check_ttl_days,
    expiry,
)
from graphmem.errors import ConflictError, InvalidArgumentError
from graphmem.handle import StoreHandle
from graphmem.stores.base import NewMemory

__all__ = ["MemoryWrites"]

_NO_VECTOR = np.zeros(0, dtype=np.float32)
"""The embedding of a checked memory until its text is embedded."""
_LOOKUP_BATCH = 5000


class MemoryWrites(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`: building and inserting new memories."""

    def _new_memory(
        self,
        content: object,
        *,
        memory_id: object = None,
        memory_type: object = "memory",
        user_id: object = None,
        agent_id: object = None,
        thread_id: object = None,
        metadata: object = None,
        timestamp: object = None,
        ttl_days: object = None,
    ) -> NewMemory:
        created_at = self._clock()
        return NewMemory(
            record_id=str(uuid.uuid4()) if memory_id is None else check_id("memory_id", memory_id),
            record_type=check_record_type("memory_type", memory_type),
            content=check_content(content),
            user_id=check_optional_id("user_id", user_id),
            agent_id=check_optional_id("agent_id", agent_id),
            thread_id=check_optional_id("thread_id", thread_id),
            metadata=check_metadata("metadata", metadata),
            timestamp=check_timestamp("timestamp", timestamp),
            created_at=created_at,
            expires_at=expiry(created_at, check_ttl_days(ttl_days)),
            embedding=_NO_VECTOR,
        )

    def _new_memories(self, memories: object) -> list[NewMemory]:
        """The items of ``add_memories``, checked; errors name ``memories[i]``."""
        if isinstance(memories, (str, bytes, Mapping)) or not isinstance(memories, Iterable):
            raise InvalidArgumentError("memories", "must be an iterable of mappings")
        new: list[NewMemory] = []
        first: dict[str, int] = {}
        for index, item in enumerate(memories):
            if not isinstance(item, Mapping) or "content" not in item:
                raise InvalidArgumentError(f"memories[{index}]", "must be a mapping with content")
            unknown = set(item) - MEMORY_KEYS
            if unknown:
                names = sorted(map(repr, unknown))
                raise InvalidArgumentError(f"memories[{index}]", f"unknown keys {', '.join(names)}")
            try:
                memory = self._new_memory(**item)
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"memories[{index}].{exc.argument}", exc.detail) from exc
            if memory.record_id in first:
                raise ConflictError(
                    f"memories[{index}]: memory_id {memory.record_id!r} already exists "
                    f"in memories[{first[memory.record_id]}]"
                )
            first[memory.record_id] = index
            new.append(memory)
        return new

    def _stored_kinds(self, ids: Sequence[str]) -> dict[str, str]:
        """The record type of each id of ``ids`` that is stored (inside the writing
        transaction, so the answer cannot go stale)."""
        kinds: dict[str, str] = {}
        for start in range(0, len(ids), _LOOKUP_BATCH):
            kinds.update(self._store.get_record_types(ids[start : start + _LOOKUP_BATCH]))
        return kinds

    def _insert(
        self,
        memories: Sequence[NewMemory],
        vectors: npt.NDArray[np.float32],
        batch: bool,
        if_exists: str = "error",
    ) -> AbstractSet[str]:
        """Write ``memories`` with their checked vectors in one transaction; returns
        the ids kept as stored (``"skip"``).

        ``if_exists`` (graphmem.upsert) says what a stored id does: raise, keep the
        stored memory (``"skip"``), or delete it with its links first (``"replace"``);
        an id that is a thread's message is refused whatever the policy. Ids are
        looked up in the writing transaction, so the answer cannot go stale.
        """
        with self._store.transaction():
            self._use_embedder(int(vectors.shape[1]))
            ids = [m.record_id for m in memories]
            kinds = self._stored_kinds(ids)
            stored = set(kinds)
            message = next((rid for rid in ids if kinds.get(rid) == "message"), None)
            if message is not None and if_exists != "error":
                raise ConflictError(
                    f"memory_id {message!r} is a message of a thread; if_exists="
                    f"{if_exists!r} applies to memories only"
                )
            if stored and if_exists == "error":
                index = next(i for i, rid in enumerate(ids) if rid in stored)
                where = f"memories[{index}]: " if batch else ""
                raise ConflictError(
                    f"{where}memory_id {ids[index]!r} already exists (if_exists='skip' "
                    "keeps the stored memory, 'replace' replaces it)"
                )
            if if_exists == "replace":
                for record_id in sorted(stored):
                    self._store.delete_memory(record_id)
                stored = set()
            self._write_memories(memories, vectors, skip=stored)
            return stored

    def _insert_unstored(self, memories: Sequence[NewMemory]) -> None:
        """``add_memories(..., if_exists="skip")``: embed only the memories not stored.

        The ids are read first; the writing transaction looks them up again, so
        a memory stored since is kept as stored (:meth:`_insert`) and one deleted
        since, whose text was not embedded, sends the call round once more to
        embed it (the embedder never runs inside the write transaction).
        """
        ids = [m.record_id for m in memories]
        with self._store.transaction(write=False):
            kinds = self._stored_kinds(ids)
        vectors: dict[str, npt.NDArray[np.float32]] = {}
        while True:
            # a message's id is embedded too: the write refuses it (_insert)
            todo = [
                m
                for m in memories
                if m.record_id not in vectors and kinds.get(m.record_id) in (None, "message")
            ]
            if todo:
                found = self._embed([m.content for m in todo])
                vectors.update(zip([m.record_id for m in todo], found, strict=True))
            with self._store.transaction():
                unembedded = [rid for rid in ids if rid not in vectors]
                kinds = self._stored_kinds(unembedded)
                if any(kinds.get(rid) in (None, "message") for rid in unembedded):
                    continue  # deleted (or become a message) since the read
                embedded = [m for m in memories if m.record_id in vectors]
                if embedded:
                    matrix = np.stack([vectors[m.record_id] for m in embedded])
                    self._insert(embedded, matrix, batch=True, if_exists="skip")
                return

    def _write_memories(
        self,
        memories: Sequence[NewMemory],
        vectors: npt.NDArray[np.float32],
        skip: AbstractSet[str] = frozenset(),
    ) -> None:
        """Insert ``memories`` (but the ids in ``skip``) with their vectors; the caller
        has checked the embedder (``_use_embedder``) and looked the ids up in the
        same write transaction."""
        with self._store.transaction():
            self._store.insert_memories(
                [
                    replace(m, embedding=v)
                    for m, v in zip(memories, vectors, strict=True)
                    if m.record_id not in skip
                ]
            )
