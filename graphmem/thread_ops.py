"""Thread operations of :class:`graphmem.GraphMemory`: create, open, list, update, delete."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphmem.ai.protocols import LlmProtocol
from graphmem.core.validation import (
    check_id,
    check_metadata,
    check_non_negative,
    check_optional_id,
    check_positive,
)
from graphmem.errors import ConflictError, InvalidArgumentError, NotFoundError
from graphmem.handle import StoreHandle
from graphmem.search.config import TopKMemorySearchConfig
from graphmem.thread_models import ThreadInfo
from graphmem.threads.handle import Thread
from graphmem.threads.settings import (
    DEFAULT_TYPE_SEARCH_CONCURRENCY,
    SearchModels,
    ThreadSettings,
    check_concurrency,
    check_search_config,
)

if TYPE_CHECKING:
    from graphmem.memory import GraphMemory

__all__ = ["ThreadOperations", "check_llm"]


def check_llm(value: object) -> LlmProtocol | None:
    """``None`` or an object with the LLM's ``chat`` method."""
    if value is not None and not callable(getattr(value, "chat", None)):
        raise InvalidArgumentError(
            "llm", f"must have a chat(messages, json_schema=...) method; got {type(value).__name__}"
        )
    return value  # type: ignore[return-value]  # checked structurally above


def _check_model(argument: str, value: object, method: str) -> object:
    if value is not None and not callable(getattr(value, method, None)):
        raise InvalidArgumentError(
            argument, f"must have a {method}() method; got {type(value).__name__}"
        )
    return value


class ThreadOperations(StoreHandle):
    """Mixed into :class:`graphmem.GraphMemory`: threads and their handles."""

    llm: LlmProtocol | None
    _search_config: TopKMemorySearchConfig

    def _handle(
        self, thread_id: str, llm: object, concurrency: object, models: SearchModels
    ) -> Thread:
        chosen = check_llm(llm)
        memory: GraphMemory = self  # type: ignore[assignment]  # the mixin's only host
        return Thread(
            memory,
            thread_id,
            llm=self.llm if chosen is None else chosen,
            context_card_type_search_concurrency=check_concurrency(concurrency),
            search_models=models,
        )

    def create_thread(
        self,
        thread_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        *,
        llm: object = None,
        memory_extraction_config: object = None,
        search_config: object = None,
        context_summary_update_frequency: int = -1,
        enable_context_summary: bool = True,
        context_card_type_search_concurrency: int = DEFAULT_TYPE_SEARCH_CONCURRENCY,
        memory_extraction_window: int = -1,
        memory_extraction_frequency: int = -1,
        memory_extraction_token_limit: int = 0,
        context_card_token_limit: int = 100_000,
        max_message_token_length: int = 0,
        message_shortening_input_token_limit: int = 30_000,
    ) -> Thread:
        """Create a thread and return a handle on it.

        Args:
            thread_id: the id (at most 128 characters); a UUID when None.
            user_id: the user the conversation is with; a UUID when None.
            agent_id: the agent; a UUID when None.
            metadata: JSON object stored with the thread.
            llm: rewrites the summary and topics (any object with ``chat``); this
                handle only, never stored; default: the GraphMemory's ``llm``.
            memory_extraction_config: a :class:`MemoryExtractionConfig` or a
                mapping of its fields, stored with the thread: the fields it sets
                override the GraphMemory's for this thread's memory extraction
                (the settings ``memory_extraction_window`` / ``_frequency`` /
                ``_token_limit`` and a call's ``config`` override it in turn).
            search_config: a ``TopKMemorySearchConfig`` or
                ``PruningMemorySearchConfig`` (or its ``model_dump()``), stored
                and applied to the thread's searches and context cards; default:
                the GraphMemory's ``search_config`` at creation (FAST pruning
                when it has a ``pruner_llm``). Its reranker and pruner are stored
                as references; this handle keeps the objects (see :meth:`get_thread`).
            context_summary_update_frequency: rewrite the summary every this many
                new messages; ``-1`` (default): once per ``add_messages`` call.
            enable_context_summary: ``False``: keep the deterministic summary.
            context_card_type_search_concurrency: per-type card searches run at
                once (1..64); this handle only, never stored.
            memory_extraction_window: stored, see
                :class:`graphmem.threads.ThreadSettings` (likewise the next five).
            memory_extraction_frequency: stored.
            memory_extraction_token_limit: stored.
            context_card_token_limit: stored.
            max_message_token_length: stored.
            message_shortening_input_token_limit: stored.

        Raises:
            InvalidArgumentError: a bad argument (named); nothing is stored.
            ConflictError: ``thread_id`` exists already.
        """
        self._check_open()
        tid = str(uuid.uuid4()) if thread_id is None else check_id("thread_id", thread_id)
        given = self._search_config if search_config is None else search_config
        settings = ThreadSettings.checked(
            memory_extraction_config=memory_extraction_config,
            search_config=check_search_config(given),
            context_summary_update_frequency=context_summary_update_frequency,
            enable_context_summary=enable_context_summary,
            memory_extraction_window=memory_extraction_window,
            memory_extraction_frequency=memory_extraction_frequency,
            memory_extraction_token_limit=memory_extraction_token_limit,
            context_card_token_limit=context_card_token_limit,
            max_message_token_length=max_message_token_length,
            message_shortening_input_token_limit=message_shortening_input_token_limit,
        )
        now = self._clock()
        info = ThreadInfo(
            thread_id=tid,
            user_id=check_optional_id("user_id", user_id) or str(uuid.uuid4()),
            agent_id=check_optional_id("agent_id", agent_id) or str(uuid.uuid4()),
            metadata=check_metadata("metadata", metadata),
            settings=settings.to_json(),
            created_at=now,
            updated_at=now,
        )
        handle = self._handle(
            tid, llm, context_card_type_search_concurrency, SearchModels.of(given)
        )
        with self._store.transaction():
            if self._store.get_thread(tid) is not None:
                raise ConflictError(f"thread_id: a thread {tid!r} exists already")
            self._store.insert_thread(info)
        return handle

    def get_thread(
        self,
        thread_id: str,
        *,
        llm: object = None,
        context_card_type_search_concurrency: int = DEFAULT_TYPE_SEARCH_CONCURRENCY,
        reranker: object = None,
        pruner_llm: object = None,
    ) -> Thread:
        """A handle on a stored thread; its settings come back as they were stored.

        The stored search config wins over the GraphMemory's. A model cannot be
        stored, so its reranker and pruner are bound again, at each search, to
        ``reranker`` / ``pruner_llm`` given here, else to the GraphMemory's
        (its ``search_config.reranker``; its ``pruner_llm``, then its
        ``search_config.pruner``); a search that needs a model none of them
        provides raises ``InvalidArgumentError`` naming it.

        Raises:
            NotFoundError: no such thread.
            InvalidArgumentError: ``reranker`` has no ``rerank`` or ``pruner_llm``
                no ``chat`` method.
        """
        self._check_open()
        check_id("thread_id", thread_id)
        models = SearchModels(
            _check_model("reranker", reranker, "rerank"),
            _check_model("pruner_llm", pruner_llm, "chat"),
        )
        handle = self._handle(thread_id, llm, context_card_type_search_concurrency, models)
        handle.info()
        return handle

    def list_threads(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[ThreadInfo]:
        """Stored threads (of a user and/or agent), oldest first; ``offset`` pages."""
        self._check_open()
        return self._store.list_threads(
            check_optional_id("user_id", user_id),
            check_optional_id("agent_id", agent_id),
            check_positive("limit", limit),
            check_non_negative("offset", offset),
        )

    def count_threads(self, *, user_id: str | None = None, agent_id: str | None = None) -> int:
        """How many threads :meth:`list_threads` pages through for the same
        ``user_id`` and ``agent_id``."""
        self._check_open()
        return self._store.count_threads(
            check_optional_id("user_id", user_id), check_optional_id("agent_id", agent_id)
        )

    def update_thread(
        self,
        /,
        thread_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> ThreadInfo:
        """Replace a thread's metadata and/or change stored settings (None: unchanged).

        ``settings`` are the stored settings of :meth:`create_thread` (not ``llm``
        nor ``context_card_type_search_concurrency``, which belong to a handle).

        Raises:
            InvalidArgumentError: an unknown setting or a bad value.
            NotFoundError: no such thread.
        """
        self._check_open()
        check_id("thread_id", thread_id)
        new_meta = None if metadata is None else check_metadata("metadata", metadata)
        with self._store.transaction():
            self._store.lock_thread(thread_id)
            info = self._store.get_thread(thread_id)
            if info is None:
                raise NotFoundError(f"thread_id: no thread {thread_id!r}")
            merged = ThreadSettings.checked(ThreadSettings.from_json(info.settings), **settings)
            changed = info.model_copy(
                update={
                    "metadata": info.metadata if new_meta is None else new_meta,
                    "settings": merged.to_json(),
                    "updated_at": self._clock(),
                }
            )
            self._store.update_thread(changed)
            stored = self._store.get_thread(thread_id)
        assert stored is not None
        return stored

    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread, its messages and the records scoped to it (links go with
        them, validity recomputed), and its extraction jobs that are not running (a
        running one finishes with nothing written); returns how many records were
        deleted.

        Raises:
            NotFoundError: no such thread.
        """
        self._check_open()
        check_id("thread_id", thread_id)
        with self._store.transaction():
            if self._store.get_thread(thread_id) is None:
                raise NotFoundError(f"thread_id: no thread {thread_id!r}")
            self._store.delete_thread_jobs(thread_id)
            return self._store.delete_scope(thread_id, None, None)
