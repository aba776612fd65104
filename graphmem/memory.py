"""`GraphMemory`: the public API over any store."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any

from graphmem.core.assemble import assemble_results
from graphmem.core.validation import (
    SearchFilters,
    check_content,
    check_hops,
    check_id,
    check_metadata,
    check_metadata_filter,
    check_non_negative,
    check_optional_id,
    check_positive,
    check_record_type,
    check_record_types,
    check_text,
    check_timestamp,
    check_ttl_days,
    expiry,
    utc_now,
)
from graphmem.core.vector import cosine_distances, top_k
from graphmem.embedders import Embedder, HashingEmbedder
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.graph_ops import GraphOperations
from graphmem.links import LinkOperations
from graphmem.models import MemoryRecord, SchemaPolicy, SearchResult
from graphmem.sqlfiles import DEFAULT_PREFIX, validate_identifier
from graphmem.stores import open_store
from graphmem.stores.base import NewMemory
from graphmem.upsert import check_if_exists, insert_new

__all__ = ["GraphMemory"]

_MEMORY_KEYS = frozenset(
    {
        "content",
        "memory_id",
        "memory_type",
        "user_id",
        "agent_id",
        "thread_id",
        "metadata",
        "timestamp",
        "ttl_days",
    }
)
_EMBED_BATCH = 1024


class GraphMemory(LinkOperations, GraphOperations):
    """An agent's memories as vertices, typed links as edges, and graph-aware search.

    Args:
        connection: a path to a SQLite file (created on first use) or ``":memory:"``;
            or, for Oracle AI Database, an ``oracledb.ConnectionPool``, an
            ``oracledb.Connection`` or a DSN ``user/password@host:port/service``.
        embedder: turns text into vectors; default :class:`HashingEmbedder` (offline).
        memory_store_id: prefixes every table, so several stores share one database;
            ``^[A-Za-z][A-Za-z0-9_]{0,29}$``. An SQL identifier, so case-insensitive:
            ``"abc"`` and ``"ABC"`` name the same store.
        schema_policy: ``CREATE_IF_NECESSARY`` (default) or ``REQUIRE_EXISTING``.
        clock: returns the current UTC time (tests pin it to check expiry).

    Raises:
        InvalidArgumentError: a bad ``memory_store_id`` or ``connection``.
        SchemaError: ``REQUIRE_EXISTING`` and the schema is missing.

    Example:
        >>> with GraphMemory(":memory:") as memory:
        ...     old = memory.add_memory("Likes thin crust pizza.", memory_type="preference")
        ...     new = memory.add_memory("Now prefers sourdough pizza.", memory_type="preference")
        ...     _ = memory.link_records(new, "preference", old, "preference", "supersedes")
        ...     memory.get_memory(old).status
        'invalid'
    """

    def __init__(
        self,
        connection: object = ":memory:",
        *,
        embedder: Embedder | None = None,
        memory_store_id: str | None = None,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        prefix = validate_identifier(
            "memory_store_id", DEFAULT_PREFIX if memory_store_id is None else memory_store_id
        )
        if not isinstance(schema_policy, SchemaPolicy):
            raise InvalidArgumentError("schema_policy", "must be a SchemaPolicy")
        if embedder is not None and not isinstance(embedder, Embedder):
            raise InvalidArgumentError("embedder", "must have an embed(texts) method")
        self.memory_store_id = prefix
        self.embedder: Embedder = embedder or HashingEmbedder()
        self._clock = clock or utc_now
        self._store = open_store(connection, prefix, schema_policy)

    # lifecycle of the object --------------------------------------------------

    def close(self) -> None:
        """Close the store's connection."""
        self._store.close()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _embed_one(self, text: str) -> Any:
        vectors = self.embedder.embed([text])
        if len(vectors) != 1 or getattr(vectors[0], "ndim", 0) != 1:
            raise InvalidArgumentError("embedder", "embed() must return one vector per text")
        return vectors[0]

    # memories -------------------------------------------------------------------

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
                ``"skip"`` keeps the stored memory, ``"replace"`` deletes it with its
                links and stores this one (``update_memory`` keeps the links).

        Raises:
            InvalidArgumentError: a bad argument (named in the message).
            ConflictError: ``memory_id`` already exists and ``if_exists="error"``.
        """
        policy = check_if_exists(if_exists)
        memory = self._new_memory(
            content,
            self._embed_one(check_content(content)),
            memory_id=memory_id,
            memory_type=memory_type,
            user_id=user_id,
            agent_id=agent_id,
            thread_id=thread_id,
            metadata=metadata,
            timestamp=timestamp,
            ttl_days=ttl_days,
        )
        insert_new(self._store, [memory], policy, single=True)
        return memory.record_id

    def _new_memory(
        self,
        content: object,
        embedding: Any,
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
            embedding=embedding,
        )

    def add_memories(
        self, memories: Iterable[Mapping[str, Any]], *, if_exists: str = "error"
    ) -> list[str]:
        """Store many memories in one transaction; returns their ids in order.

        Each item holds the keyword arguments of :meth:`add_memory` (``content``
        required). Texts are embedded in batches. All or nothing: one bad item or
        one duplicate id rejects the whole call. ``if_exists`` applies to every
        item as in :meth:`add_memory`.

        Raises:
            InvalidArgumentError: a bad item (the message names its index).
            ConflictError: an id exists already (``if_exists="error"``) or twice in
                the batch.
        """
        policy = check_if_exists(if_exists)
        if isinstance(memories, (str, bytes, Mapping)) or not isinstance(memories, Iterable):
            raise InvalidArgumentError("memories", "must be an iterable of mappings")
        items = [dict(item) if isinstance(item, Mapping) else item for item in memories]
        for index, item in enumerate(items):
            if not isinstance(item, dict) or "content" not in item:
                raise InvalidArgumentError(f"memories[{index}]", "must be a mapping with content")
            unknown = set(item) - _MEMORY_KEYS
            if unknown:
                names = sorted(map(repr, unknown))
                raise InvalidArgumentError(f"memories[{index}]", f"unknown keys {', '.join(names)}")
            check_content(item["content"])
        vectors: list[Any] = []
        for start in range(0, len(items), _EMBED_BATCH):
            batch = [item["content"] for item in items[start : start + _EMBED_BATCH]]
            vectors.extend(self.embedder.embed(batch))
        new = []
        for index, (item, vector) in enumerate(zip(items, vectors, strict=True)):
            try:
                new.append(self._new_memory(embedding=vector, **item))
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"memories[{index}].{exc.argument}", str(exc)) from exc
        insert_new(self._store, new, policy, single=False)
        return [m.record_id for m in new]

    def get_memory(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, with ``invalidated_by`` when it is invalid.

        Raises:
            NotFoundError: no such memory.
        """
        check_id("memory_id", memory_id)
        found = self._store.get_memories([memory_id]).get(memory_id)
        if found is None:
            raise NotFoundError(f"memory_id: no memory {memory_id!r}")
        return found

    def list_memories(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        record_types: Iterable[str] | None = None,
        metadata_filter: Mapping[str, Any] | None = None,
        include_invalid_results: bool = True,
        limit: int = 100,
    ) -> list[MemoryRecord]:
        """Memories passing the filters, oldest first (expired ones excluded).

        Args:
            user_id: only this user's memories.
            agent_id: only this agent's.
            thread_id: only this thread's.
            record_types: only these types.
            metadata_filter: ``{key: value}`` pairs the metadata must hold.
            include_invalid_results: also list invalid (historical) memories.
            limit: at most this many (>= 1).
        """
        filters = self._filters(user_id, agent_id, thread_id, record_types, metadata_filter)
        limit = check_positive("limit", limit)
        return self._store.list_memories(filters, bool(include_invalid_results), limit)

    def update_memory(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
    ) -> MemoryRecord:
        """Change a memory's content, metadata or timestamp (None: unchanged).

        New content is embedded again. Returns the updated record.

        Raises:
            NotFoundError: no such memory.
        """
        check_id("memory_id", memory_id)
        new_content = None if content is None else check_content(content)
        new_metadata = None if metadata is None else check_metadata("metadata", metadata)
        new_time = check_timestamp("timestamp", timestamp)
        embedding = None if new_content is None else self._embed_one(new_content)
        with self._store.transaction():
            current = self.get_memory(memory_id)
            self._store.update_memory(
                memory_id,
                current.content if new_content is None else new_content,
                current.metadata if new_metadata is None else new_metadata,
                new_time if new_time is not None else self._stored_timestamp(current),
                embedding,
            )
        return self.get_memory(memory_id)

    @staticmethod
    def _stored_timestamp(record: MemoryRecord) -> datetime | None:
        return None if record.timestamp == record.created_at else record.timestamp

    def delete_memory(self, memory_id: str) -> None:
        """Delete a memory; its links go with it and their targets' validity is recomputed.

        Raises:
            NotFoundError: no such memory.
        """
        check_id("memory_id", memory_id)
        if not self._store.delete_memory(memory_id):
            raise NotFoundError(f"memory_id: no memory {memory_id!r}")

    # search ---------------------------------------------------------------------

    def _filters(
        self,
        user_id: object,
        agent_id: object,
        thread_id: object,
        record_types: object,
        metadata_filter: object,
    ) -> SearchFilters:
        return SearchFilters(
            user_id=check_optional_id("user_id", user_id),
            agent_id=check_optional_id("agent_id", agent_id),
            thread_id=check_optional_id("thread_id", thread_id),
            record_types=check_record_types(record_types),
            metadata_filter=check_metadata_filter(metadata_filter),
            now=self._clock(),
        )

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        record_types: Iterable[str] | None = None,
        metadata_filter: Mapping[str, Any] | None = None,
        max_results: int = 10,
        num_hops: int = 0,
        max_linked_results: int | None = 100,
        include_invalid_results: bool = False,
    ) -> list[SearchResult]:
        """Exact vector search plus the linked-context tree of each direct result.

        Args:
            query: the text to search for.
            user_id: scope filter, applied to direct results and linked context.
            agent_id: scope filter, likewise.
            thread_id: scope filter, likewise.
            record_types: only these record types, likewise.
            metadata_filter: ``{key: value}`` equalities, likewise.
            max_results: at most this many direct results (>= 0).
            num_hops: follow links this far (0..5) in both directions.
            max_linked_results: linked memories kept per direct result across all
                hops (>= 0; 0 turns linked context off; None keeps all).
            include_invalid_results: also return invalid memories as direct results
                (linked context may hold invalid history regardless).

        Returns:
            Direct results by cosine distance (ties by id), each with its tree.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgumentError("query", "must be a non-empty string")
        check_text("query", query)
        filters = self._filters(user_id, agent_id, thread_id, record_types, metadata_filter)
        k = check_non_negative("max_results", max_results)
        hops = check_hops(num_hops)
        cap = (
            None
            if max_linked_results is None
            else check_non_negative("max_linked_results", max_linked_results)
        )
        include_invalid = bool(include_invalid_results)
        vector = self._embed_one(query)
        with self._store.transaction(write=False):
            ids, matrix = self._store.search_candidates(filters, include_invalid)
            if ids and matrix.shape[1] != vector.shape[0]:
                raise InvalidArgumentError(
                    "embedder",
                    f"query vector has {vector.shape[0]} dimensions, store has {matrix.shape[1]}",
                )
            hits = top_k(ids, cosine_distances(matrix, vector), k)
            roots = [record_id for record_id, _ in hits]
            linked = list(self._store.linked_context(roots, filters, hops, cap))
            records = self._store.get_memories(roots + [n.entry.node for n in linked])
        return assemble_results(hits, records, linked, include_invalid)
