"""`GraphMemory`: the public API over any store."""

from __future__ import annotations

import asyncio
import atexit
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any

from graphmem.ai import EmbedderProtocol, as_embedder
from graphmem.asyncpool import HasPool, WorkerPool, async_twin
from graphmem.core.budget import estimate_tokens
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.validation import (
    check_content,
    check_flag,
    check_id,
    check_metadata,
    check_non_negative,
    check_positive,
    check_timestamp,
    utc_now,
    validate_identifier,
)
from graphmem.errors import InvalidArgumentError, NotFoundError
from graphmem.extraction.config import MemoryExtractionConfig
from graphmem.extraction_ops import ExtractionOperations
from graphmem.graph_ops import GraphOperations
from graphmem.links import LinkOperations
from graphmem.memory_add import MemoryAdds
from graphmem.models import MemoryRecord, SchemaPolicy
from graphmem.profiles import ProfileOperations
from graphmem.registry import RegistryOperations
from graphmem.search.config import TopKMemorySearchConfig
from graphmem.search.operations import SearchOperations, client_search_config
from graphmem.sqlfiles import DEFAULT_PREFIX
from graphmem.stores import open_store
from graphmem.stores.base import Store
from graphmem.thread_ops import ThreadOperations, check_llm

__all__ = ["CLOSE_TIMEOUT", "GraphMemory"]

CLOSE_TIMEOUT = 30.0
"""Seconds ``close()`` lets running extraction jobs finish."""


class _Exit:
    """Whether the interpreter has begun to exit (its ``atexit`` hooks run).

    The hook is registered after the first handle's finalizer is made, so after
    ``weakref.finalize``'s own exit hook: it runs first (``atexit`` runs the
    hooks registered last first), before the finalizers of handles still open."""

    started = False
    _hooked = False
    _lock = threading.Lock()

    @classmethod
    def watch(cls) -> None:
        with cls._lock:
            if not cls._hooked:
                atexit.register(cls._begin)
                cls._hooked = True

    @classmethod
    def _begin(cls) -> None:
        cls.started = True


def _unclosed(stop: Callable[[float, Store], None], store: Store, where: str) -> None:
    """The finalizer of a handle never closed, collected or open at exit: stop its
    extraction workers (the store's own finalizer, which runs next, closes it).
    Collected, it warns like an unclosed file (ResourceWarning, shown under
    ``-W default`` or ``-X dev``); at exit it does not, a handle kept open for the
    life of a program being closed then (the running jobs finish)."""
    try:
        stop(CLOSE_TIMEOUT, store)
    finally:
        if not _Exit.started:
            warnings.warn(
                f"unclosed GraphMemory on {where}: call close() or use it in a with block",
                ResourceWarning,
                stacklevel=1,  # here: the collection that ran it has no caller to name
            )


def _store_name(store: Store) -> str:
    """The store in the unclosed-handle warning: its file, else its class (an
    Oracle store's DSN may hold a password)."""
    path = getattr(store, "path", None)
    return repr(path) if isinstance(path, str) else f"a {type(store).__name__}"


class GraphMemory(
    LinkOperations,
    MemoryAdds,
    ExtractionOperations,
    SearchOperations,
    GraphOperations,
    RegistryOperations,
    ThreadOperations,
    ProfileOperations,
    HasPool,
):
    """An agent's memories as vertices, typed links as edges, and graph-aware search.

    Args:
        connection: a path to a SQLite file (created on first use) or ``":memory:"``;
            or, for Oracle AI Database, an ``oracledb.ConnectionPool``, an
            ``oracledb.Connection`` or a DSN ``user/password@host:port/service``;
            or any :class:`~graphmem.stores.base.Store` instance, used as is.
        embedder: turns text into vectors: any object with ``embed(texts)``, or a
            sentence-transformers (``encode``) or LangChain (``embed_documents``)
            embedder. Default: the semantic in-process model (offline, see
            :class:`graphmem.Embedder`). The store records the name and dimension of
            the embedder that writes its first vector and refuses any other.
        memory_store_id: names the store's objects ``<id>__<name>`` (the default
            store: ``graphmem_<name>``), so several stores share one database;
            ``^[A-Za-z][A-Za-z0-9_]{0,29}$`` without ``__`` and not ending in ``_``,
            so that no two stores share a name. An SQL identifier, so
            case-insensitive: ``"abc"`` and ``"ABC"`` name the same store.
        schema_policy: ``CREATE_IF_NECESSARY`` (default) or ``REQUIRE_EXISTING``.
        llm: the default LLM of threads (summary and topics, memory extraction)
            and of ``add_memory(autonomous_linking=True)``: any object with
            ``chat(messages, json_schema=...)``, such as :class:`graphmem.Llm`;
            None: threads use the deterministic summary and extract nothing
            unless given one.
        clock: a callable returning the current UTC time (tests pin it to
            check expiry); None: the system clock.
        search_config: how searches keep, rerank, prune and budget their results
            (:class:`TopKMemorySearchConfig` or :class:`PruningMemorySearchConfig`;
            default ``TopKMemorySearchConfig()``: 10 results, no reranker, no
            pruning, no budget). It is also the config new threads start from.
        pruner_llm: an LLM (``chat(messages, json_schema=...)``) that turns on
            pruning: with a top-k ``search_config`` (or none) searches prune in
            ``FAST`` mode with the default settings; a pruning config without a
            pruner uses this one.
        token_counter: ``f(text) -> int``, how token budgets measure a formatted
            result (default :func:`graphmem.core.budget.estimate_tokens`, one token
            per four characters, no download).
        memory_extraction_config: how threads extract memories from their
            messages (:class:`MemoryExtractionConfig`; a thread's config and a
            call's override the fields they set). Extraction needs ``llm``.
        extraction_workers: background threads running extraction jobs (0..32);
            0: jobs run only in ``run_jobs`` and ``wait_for_memory_extraction``.
        extraction_max_attempts: a job failing this many times is ``failed``
            (1..100); the attempts before are retried with a growing backoff.

    A handle is a context manager; after :meth:`close` every method raises
    :class:`ClosedError`.

    Raises:
        InvalidArgumentError: a bad argument, named (``memory_store_id``,
            ``connection``, a ``clock`` or ``token_counter`` that is not callable, ...).
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
        embedder: object = None,
        memory_store_id: str | None = None,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        llm: object = None,
        clock: Callable[[], datetime] | None = None,
        search_config: TopKMemorySearchConfig | None = None,
        pruner_llm: object = None,
        token_counter: Callable[[str], int] | None = None,
        memory_extraction_config: MemoryExtractionConfig | None = None,
        extraction_workers: int = 2,
        extraction_max_attempts: int = 3,
    ) -> None:
        prefix = validate_identifier(
            "memory_store_id", DEFAULT_PREFIX if memory_store_id is None else memory_store_id
        )
        if not isinstance(schema_policy, SchemaPolicy):
            raise InvalidArgumentError("schema_policy", "must be a SchemaPolicy")
        self.memory_store_id = prefix
        self.embedder: EmbedderProtocol = as_embedder(embedder)
        self.llm = check_llm(llm)
        if clock is not None and not callable(clock):
            raise InvalidArgumentError("clock", "must be a callable f() -> datetime (UTC) or None")
        self._clock = utc_now if clock is None else clock
        self._pruner_llm = pruner_llm
        self._search_config = client_search_config(search_config, pruner_llm)
        if token_counter is not None and not callable(token_counter):
            raise InvalidArgumentError("token_counter", "must be a callable f(text) -> int")
        self._token_counter = token_counter or estimate_tokens
        self._init_extraction(memory_extraction_config, extraction_workers, extraction_max_attempts)
        self._open = open_store(connection, prefix, schema_policy)
        # The finalizer of a handle left unclosed at exit or collected (close()
        # detaches it). Made after the store's own finalizer, so it runs first: the
        # workers (daemon threads) stop before the store's connection closes.
        self._unclosed = weakref.finalize(
            self, _unclosed, self._jobs.stop, self._open, _store_name(self._open)
        )
        _Exit.watch()
        self._pool = WorkerPool()
        try:
            self._resume_jobs()
        except BaseException:
            self.close()  # never handed out: not left to the finalizer
            raise

    @property
    def search_config(self) -> TopKMemorySearchConfig:
        """The search config in force: the one given, with ``pruner_llm`` applied."""
        return self._search_config

    # lifecycle of the object --------------------------------------------------

    def close(self) -> None:
        """Let running extraction jobs finish (up to 30 s; the unfinished ones go back
        to the queue, for the next open), wait for running async calls, then close
        the store's connection (idempotent). Queued jobs stay queued. A
        ``wait_for_memory_extraction`` (or its async twin) under way raises
        ClosedError as soon as closing begins, since no job runs any more."""
        store = self._open
        if store is not None and self._unclosed.detach() is not None:
            self._jobs.stop(CLOSE_TIMEOUT, store)
        self._pool.shutdown(close=True)
        super().close()

    async def close_async(self) -> None:
        """Async twin of :meth:`close` (runs outside the pool it shuts down)."""
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> GraphMemory:
        self._check_open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close_async()

    # memories -------------------------------------------------------------------

    def get_memory(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, with ``invalidated_by`` when it is invalid.

        Raises:
            NotFoundError: no such memory.
        """
        self._check_open()
        check_id("memory_id", memory_id)
        found = self._store.get_memories([memory_id]).get(memory_id)
        if found is None or found.record_type not in MEMORY_TYPES:  # messages: see threads
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
        offset: int = 0,
        include_expired: bool = False,
    ) -> list[MemoryRecord]:
        """Memories passing the filters, oldest first (expired ones excluded).

        The order is stable (creation time, then id), so ``offset`` pages through
        the list: ``offset=0, limit=100``, then ``offset=100``, and so on.

        Args:
            user_id: only this user's memories.
            agent_id: only this agent's.
            thread_id: only this thread's.
            record_types: only these types.
            metadata_filter: ``{key: value}`` pairs the metadata must hold.
            include_invalid_results: also list invalid (historical) memories
                (``True`` or ``False``).
            limit: at most this many (>= 1).
            offset: skip this many first (>= 0).
            include_expired: also list memories whose ``ttl_days`` has passed.
        """
        self._check_open()
        filters = self._filters(user_id, agent_id, thread_id, record_types, metadata_filter)
        limit = check_positive("limit", limit)
        include_invalid = check_flag("include_invalid_results", include_invalid_results)
        offset = check_non_negative("offset", offset)
        return self._store.list_memories(
            filters, include_invalid, limit, offset, check_flag("include_expired", include_expired)
        )

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
            SchemaError: new content and the store holds vectors of another embedder.
        """
        self._check_open()
        check_id("memory_id", memory_id)
        new_content = None if content is None else check_content(content)
        new_metadata = None if metadata is None else check_metadata("metadata", metadata)
        new_time = check_timestamp("timestamp", timestamp)
        embedding = None if new_content is None else self._embed([new_content])[0]
        with self._store.transaction():
            if embedding is not None:
                self._use_embedder(int(embedding.shape[0]))
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
        self._check_open()
        check_id("memory_id", memory_id)
        with self._store.transaction():
            self.get_memory(memory_id)
            self._store.delete_memory(memory_id)

    # async twins: the methods above, awaited on the worker pool (graphmem.asyncpool)

    add_memory_async = async_twin(MemoryAdds.add_memory)
    add_memories_async = async_twin(MemoryAdds.add_memories)
    get_memory_async = async_twin(get_memory)
    list_memories_async = async_twin(list_memories)
    update_memory_async = async_twin(update_memory)
    delete_memory_async = async_twin(delete_memory)
    search_async = async_twin(SearchOperations.search)
    link_records_async = async_twin(LinkOperations.link_records)
    add_record_links_async = async_twin(LinkOperations.add_record_links)
    get_record_link_async = async_twin(LinkOperations.get_record_link)
    update_record_link_async = async_twin(LinkOperations.update_record_link)
    delete_record_link_async = async_twin(LinkOperations.delete_record_link)
    list_record_links_async = async_twin(LinkOperations.list_record_links)
    count_record_links_async = async_twin(LinkOperations.count_record_links)
    tree_async = async_twin(GraphOperations.tree)
    explain_invalid_async = async_twin(GraphOperations.explain_invalid)
    history_async = async_twin(GraphOperations.history)
    subgraph_async = async_twin(GraphOperations.subgraph)
    stats_async = async_twin(GraphOperations.stats)
    to_networkx_async = async_twin(GraphOperations.to_networkx)
    export_jsonl_async = async_twin(GraphOperations.export_jsonl)
    import_jsonl_async = async_twin(GraphOperations.import_jsonl)
    create_prompt_async = async_twin(RegistryOperations.create_prompt)
    update_prompt_async = async_twin(RegistryOperations.update_prompt)
    get_prompt_async = async_twin(RegistryOperations.get_prompt)
    list_prompts_async = async_twin(RegistryOperations.list_prompts)
    list_prompt_versions_async = async_twin(RegistryOperations.list_prompt_versions)
    resolve_prompt_async = async_twin(RegistryOperations.resolve_prompt)
    archive_prompt_async = async_twin(RegistryOperations.archive_prompt)
    purge_prompt_async = async_twin(RegistryOperations.purge_prompt)
    create_thread_async = async_twin(ThreadOperations.create_thread)
    get_thread_async = async_twin(ThreadOperations.get_thread)
    list_threads_async = async_twin(ThreadOperations.list_threads)
    count_threads_async = async_twin(ThreadOperations.count_threads)
    update_thread_async = async_twin(ThreadOperations.update_thread)
    delete_thread_async = async_twin(ThreadOperations.delete_thread)
    add_user_async = async_twin(ProfileOperations.add_user)
    list_users_async = async_twin(ProfileOperations.list_users)
    count_users_async = async_twin(ProfileOperations.count_users)
    delete_user_async = async_twin(ProfileOperations.delete_user)
    add_agent_async = async_twin(ProfileOperations.add_agent)
    list_agents_async = async_twin(ProfileOperations.list_agents)
    delete_agent_async = async_twin(ProfileOperations.delete_agent)
    list_jobs_async = async_twin(ExtractionOperations.list_jobs)
    get_job_async = async_twin(ExtractionOperations.get_job)
    retry_job_async = async_twin(ExtractionOperations.retry_job)
    run_jobs_async = async_twin(ExtractionOperations.run_jobs)
