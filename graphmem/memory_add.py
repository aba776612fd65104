"""Adding memories on :class:`graphmem.GraphMemory`: one (optionally linked) or many.

``add_memory`` can link the new memory in the transaction that stores it: to a
memory the caller names (``memory_id_to_link``), and/or to the links the LLM
proposes among the nearest stored memories (``autonomous_linking``, the
linking of memory extraction for one memory; see
:mod:`graphmem.extraction.linking` for the bounds and the checks).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from graphmem.ai.protocols import LlmProtocol
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.validation import check_flag, check_id
from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.extraction.config import MemoryExtractionConfig
from graphmem.extraction.linking import LinkPlan, ask_links, checked_links, link_scope
from graphmem.extraction.models import ExtractedRecord
from graphmem.extraction.prompting import LINK_TYPES
from graphmem.link_writes import LinkWrites
from graphmem.memory_writes import MemoryWrites
from graphmem.stores.base import NewLink, NewMemory
from graphmem.upsert import check_if_exists

__all__ = ["MemoryAdds"]


class MemoryAdds(MemoryWrites, LinkWrites):
    """Mixed into :class:`graphmem.GraphMemory`: ``add_memory`` and ``add_memories``."""

    llm: LlmProtocol | None
    _extraction_config: MemoryExtractionConfig

    def add_memory(
        self,
        content: str,
        *,
        memory_id: str | None = None,
        memory_type: str = "memory",
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
        ttl_days: float | None = None,
        if_exists: str = "error",
        autonomous_linking: bool = False,
        memory_id_to_link: str | None = None,
        link_type: str | None = None,
        link_id: str | None = None,
        link_timestamp: datetime | str | None = None,
        link_metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Store a memory and return its id.

        Args:
            content: the text; embedded for search.
            memory_id: caller-chosen id (at most 128 characters); generated when None.
            memory_type: ``memory``, ``fact``, ``preference`` or ``guideline``.
            user_id: scope: the user the memory belongs to.
            agent_id: scope: the agent.
            thread_id: scope: the thread it came from.
            metadata: JSON object stored with the memory.
            timestamp: when it happened (defaults to the creation time when shown).
            ttl_days: expire after this many days; search and list_memories leave expired
                memories out (get_memory still finds them by id).
            if_exists: when ``memory_id`` is stored already: ``"error"`` raises,
                ``"skip"`` keeps the stored memory and writes nothing (no link of
                this call either), ``"replace"`` deletes it with its links and stores
                this one (``update_memory`` keeps the links). The id of a thread's
                message is a ``ConflictError`` whatever the choice.
            autonomous_linking: ask the LLM (``GraphMemory(llm=...)``) which typed
                links join the new memory to its nearest stored memories of exactly
                its scope: the same ``user_id`` and the same ``agent_id``, where
                None matches only None (a memory without a user sees only memories
                without a user); at most 5 candidates, one LLM call, steered by the
                client's ``memory_link_extraction_custom_instructions``
                (``GraphMemory(memory_extraction_config=...)``). The
                proposals with the new memory at one end that pass
                ``link_records``' checks are written with the memory, the others
                are dropped.
            memory_id_to_link: write the link ``new memory -> memory_id_to_link``
                of ``link_type`` in the same transaction as the memory.
            link_type: the relation type of that link (required with
                ``memory_id_to_link``): ``supersedes``, ``refines``,
                ``duplicates``, ``supports`` or ``contradicts``.
            link_id: its relation id (generated when None).
            link_timestamp: its timestamp.
            link_metadata: its metadata.

        Raises:
            InvalidArgumentError: a bad argument (named in the message), or an
                embedder output that is not one finite vector.
            ConflictError: ``memory_id`` already exists and ``if_exists="error"``,
                or the explicit link conflicts with a stored one.
            NotFoundError: ``memory_id_to_link`` does not exist.
            SchemaError: the store holds vectors of another embedder.
            ModelError: autonomous linking's LLM failed; nothing is written.
        """
        self._check_open()
        policy = check_if_exists(if_exists)
        memory = self._new_memory(
            content,
            memory_id=memory_id,
            memory_type=memory_type,
            user_id=user_id,
            agent_id=agent_id,
            thread_id=thread_id,
            metadata=metadata,
            timestamp=timestamp,
            ttl_days=ttl_days,
        )
        explicit = self._explicit_link(
            memory, memory_id_to_link, link_type, link_id, link_timestamp, link_metadata
        )
        llm = self._linking_llm(check_flag("autonomous_linking", autonomous_linking))
        if policy == "skip":  # a stored memory is kept: no embedding, no LLM call
            with self._store.transaction(write=False):
                kind = self._stored_kinds([memory.record_id]).get(memory.record_id)
            if kind is not None and kind != "message":
                return memory.record_id
        vectors = self._embed([memory.content])
        plan = LinkPlan()
        if llm is not None:
            scope = link_scope(memory.user_id, memory.agent_id, self._clock())
            record = ExtractedRecord(memory.record_type, memory.content, ())
            instructions = self._extraction_config.memory_link_extraction_custom_instructions
            plan = ask_links(self._store, llm, scope, [record], vectors, instructions)
        with self._store.transaction():
            if self._insert([memory], vectors, batch=False, if_exists=policy):
                return memory.record_id  # kept as stored ("skip"): nothing else is written
            if explicit is not None:
                self._write_explicit(explicit)
            if plan.proposals:
                links, _ = checked_links(
                    self._store,
                    {"new-0": memory.record_id},
                    plan.candidates,
                    plan.proposals,
                    id_prefix=f"{uuid.uuid4()}-l",
                    now=self._clock(),
                    metadata={},
                )
                for link in links:
                    self._store.insert_link(link)
        return memory.record_id

    def _add_checked(self, memory: NewMemory, check: Callable[[], object]) -> str:
        """Embed and store one memory; ``check()`` runs inside the write, before the
        insert (a thread's memory: the thread must still exist), and its error leaves
        nothing written."""
        self._check_open()
        vectors = self._embed([memory.content])
        with self._store.transaction():
            check()
            self._insert([memory], vectors, batch=False)
        return memory.record_id

    def _linking_llm(self, wanted: bool) -> LlmProtocol | None:
        if not wanted:
            return None
        if self.llm is None:
            raise InvalidArgumentError("autonomous_linking", "needs an LLM: GraphMemory(llm=...)")
        return self.llm

    def _explicit_link(
        self,
        memory: NewMemory,
        memory_id_to_link: object,
        link_type: object,
        link_id: object,
        link_timestamp: object,
        link_metadata: object,
    ) -> NewLink | None:
        if memory_id_to_link is None:
            extra = (link_type, link_id, link_timestamp, link_metadata)
            if any(v is not None for v in extra):
                raise InvalidArgumentError(
                    "memory_id_to_link",
                    "link_type, link_id, link_timestamp and "
                    "link_metadata describe a link to memory_id_to_link; give it too",
                )
            return None
        target = check_id("memory_id_to_link", memory_id_to_link)
        if link_type not in LINK_TYPES:
            raise InvalidArgumentError(
                "link_type",
                f"is required with memory_id_to_link, one of {', '.join(sorted(LINK_TYPES))}; "
                f"got {link_type!r} (link_records takes custom types)",
            )
        try:
            link, _, _ = self._new_link(
                memory.record_id,
                memory.record_type,
                target,
                memory.record_type,
                link_type,
                None,
                link_id,
                link_timestamp,
                link_metadata,
            )
        except InvalidArgumentError as exc:
            names = {
                "relation_type": "link_type",
                "relation_id": "link_id",
                "timestamp": "link_timestamp",
                "metadata": "link_metadata",
                "target_record_id": "memory_id_to_link",
            }
            raise InvalidArgumentError(names.get(exc.argument, exc.argument), exc.detail) from exc
        return link

    def _write_explicit(self, link: NewLink) -> None:
        """Inside the transaction that stored the source memory."""
        found = self._store.get_record_types([link.target_id]).get(link.target_id)
        if found is None or found not in MEMORY_TYPES:
            raise NotFoundError(f"memory_id_to_link: no memory {link.target_id!r}")
        if self._store.get_links([link.relation_id]):
            raise ConflictError(f"link_id: {link.relation_id!r} already exists")
        self._check_no_conflict(link.source_id, link.target_id, link.relation_type)
        self._store.insert_link(link)

    def add_memories(
        self, memories: Iterable[Mapping[str, Any]], *, if_exists: str = "error"
    ) -> list[str]:
        """Store many memories in one transaction; returns their ids in order.

        Each item holds the keyword arguments of :meth:`add_memory` (``content``
        required). Texts are embedded in batches. All or nothing: one bad item or
        one duplicate id rejects the whole call. ``if_exists`` applies to every
        item as in :meth:`add_memory`; with ``"skip"`` the ids are looked up
        first and only the texts of the memories not stored are embedded (a
        retried batch embeds nothing twice).

        Raises:
            InvalidArgumentError: a bad item (the message names its index), or an
                embedder output that is not one finite vector per text.
            ConflictError: an id exists already (``if_exists="error"``) or twice in
                the batch.
            SchemaError: the store holds vectors of another embedder.
        """
        self._check_open()
        policy = check_if_exists(if_exists)
        new = self._new_memories(memories)
        if new and policy == "skip":
            self._insert_unstored(new)
        elif new:
            self._insert(new, self._embed([m.content for m in new]), batch=True, if_exists=policy)
        return [m.record_id for m in new]
