"""The thread handle: a conversation's messages, its scoped records, summary and card."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.asyncpool import async_twin
from graphmem.core.validation import (
    check_content,
    check_id,
    check_metadata,
    check_timestamp,
    check_ttl_days,
    expiry,
)
from graphmem.errors import NotFoundError
from graphmem.stores.base import NewMessage
from graphmem.thread_models import Message, ThreadInfo
from graphmem.threads import context, upkeep
from graphmem.threads.card_model import ContextCard
from graphmem.threads.extraction import ThreadExtraction
from graphmem.threads.messages import NO_END, check_messages, slice_bounds, tail_bounds
from graphmem.threads.records import ThreadRecords
from graphmem.threads.settings import SearchModels, ThreadSettings, check_concurrency

if TYPE_CHECKING:
    from graphmem.ai.protocols import LlmProtocol
    from graphmem.memory import GraphMemory

__all__ = ["Thread"]


class Thread(ThreadRecords, ThreadExtraction):
    """A live handle on one stored thread (from ``create_thread`` or ``get_thread``).

    The thread's settings are read from the store on every use, so handles on
    the same thread agree; ``llm`` and ``context_card_type_search_concurrency``
    belong to this handle only and are never stored.
    """

    def __init__(
        self,
        memory: GraphMemory,
        thread_id: str,
        *,
        llm: LlmProtocol | None,
        context_card_type_search_concurrency: int,
        search_models: SearchModels | None = None,
    ) -> None:
        self._memory = memory
        self._search_models = search_models or SearchModels()
        self.thread_id = thread_id
        self.llm = llm
        if llm is not None and llm is not memory.llm:
            memory._thread_llms[thread_id] = llm  # for this thread's extraction jobs
        self.context_card_type_search_concurrency = check_concurrency(
            context_card_type_search_concurrency
        )

    def __repr__(self) -> str:
        return f"Thread({self.thread_id!r})"

    # the stored thread ------------------------------------------------------------

    def info(self) -> ThreadInfo:
        """The thread as stored now (scope, metadata, settings, summary, topics, counters).

        Raises:
            NotFoundError: the thread was deleted.
        """
        self._memory._check_open()
        found = self._memory._store.get_thread(self.thread_id)
        if found is None:
            raise NotFoundError(f"thread_id: no thread {self.thread_id!r}")
        return found

    def _still(self, seen: ThreadInfo) -> None:
        """Inside a write: the thread is still the one ``seen`` was read from (not
        deleted, nor deleted and made again under the same id, maybe for another
        user), so that records written with ``seen``'s scope land in it."""
        if self.info().created_at != seen.created_at:
            raise NotFoundError(f"thread_id: thread {self.thread_id!r} was deleted meanwhile")

    @property
    def user_id(self) -> str | None:
        return self.info().user_id

    @property
    def agent_id(self) -> str | None:
        return self.info().agent_id

    @property
    def settings(self) -> ThreadSettings:
        """The persisted settings."""
        return ThreadSettings.from_json(self.info().settings)

    # messages ---------------------------------------------------------------------

    def add_messages(
        self,
        messages: Iterable[Mapping[str, Any]],
        *,
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
        ttl_days: float | None = None,
    ) -> list[str]:
        """Store messages in order, embedded, and return their ids.

        Each item is ``{"role": "user" | "assistant" | "system" | "tool",
        "content": str}``. ``metadata``, ``timestamp`` and ``ttl_days`` apply to
        every message of the call. Then the summary and topics are rewritten when
        ``context_summary_update_frequency`` new messages have come in (see
        :meth:`get_summary`); that step runs after the messages are stored, and
        an LLM failure there leaves the summary as it was (it is retried with
        the next messages) and is reported as a warning. With an LLM, memory
        extraction jobs are queued with the messages (docs/guide/extraction.md).

        Raises:
            InvalidArgumentError: a malformed message (the message names its
                index); nothing is stored.
            NotFoundError: the thread was deleted.
        """
        return self._add_messages(messages, metadata, timestamp, ttl_days)

    def _add_messages(
        self,
        messages: Iterable[Mapping[str, Any]],
        metadata: Mapping[str, Any] | None = None,
        timestamp: datetime | str | None = None,
        ttl_days: float | None = None,
        inside: Callable[[list[str]], object] | None = None,
        queue_extraction: bool = True,
    ) -> list[str]:
        """:meth:`add_messages`; ``inside(ids)`` runs in the transaction that stores
        them (a memory block records the ids there), and its error stores nothing.
        ``queue_extraction=False``: no extraction job is queued for them (a memory
        block's messages are extracted by the block)."""
        memory = self._memory
        memory._check_open()
        checked = check_messages(messages)
        meta = check_metadata("metadata", metadata)
        when = check_timestamp("timestamp", timestamp)
        ttl = check_ttl_days(ttl_days)
        info = self.info()
        vectors = memory._embed([m.content for m in checked])
        created_at = memory._clock()
        with memory._store.transaction():
            memory._use_embedder(int(vectors.shape[1]))
            self._still(info)  # inside the write
            first = memory._store.reserve_message_positions(self.thread_id, len(checked))
            new = [
                NewMessage(
                    record_id=str(uuid.uuid4()),
                    thread_id=self.thread_id,
                    role=m.role,
                    position=first + i,
                    content=m.content,
                    user_id=info.user_id,
                    agent_id=info.agent_id,
                    metadata=meta,
                    timestamp=when,
                    created_at=created_at,
                    expires_at=expiry(created_at, ttl),
                    embedding=vectors[i],
                )
                for i, m in enumerate(checked)
            ]
            memory._store.insert_messages(new)
            if inside is not None:  # the caller's own write, in the same transaction
                inside([m.record_id for m in new])
            queued = queue_extraction and memory._queue_for_messages(
                info, first, first + len(checked)
            )
        if queued:
            memory._jobs.notify()
        upkeep.refresh_summary(self, first + len(checked))
        return [m.record_id for m in new]

    def get_messages(self, start: int | None = None, end: int | None = None) -> list[Message]:
        """The thread's messages in order, sliced like ``messages[start:end]``
        (negative indexes count from the end; expired messages left out).

        The last messages (``get_messages(-n)``, ``get_messages(-n, -k)``) are
        read backwards from the thread's end: their cost does not grow with the
        thread.
        """
        store, now = self._memory._store, self._memory._clock()
        with store.transaction(write=False):
            self.info()
            tail = tail_bounds(start, end)
            if tail is not None:
                size, drop = tail
                found = store.window_messages(self.thread_id, now, NO_END, size)
                return found[: max(0, len(found) - drop)]
            offset, limit = slice_bounds(start, end, store.count_messages(self.thread_id, now))
            if limit == 0:
                return []
            return store.list_messages(self.thread_id, now, limit, offset)

    def get_message(self, message_id: str) -> Message:
        """One message of this thread.

        Raises:
            NotFoundError: no such message in this thread.
        """
        self._memory._check_open()
        check_id("message_id", message_id)
        found = self._memory._store.get_messages([message_id]).get(message_id)
        if found is None or found.thread_id != self.thread_id:
            raise NotFoundError(f"message_id: no message {message_id!r} in this thread")
        return found

    def update_message(
        self,
        message_id: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Message:
        """Change a message's content (embedded again) or metadata (None: unchanged).

        New content in a message the stored summary covers makes that summary
        stale: in the same transaction it is replaced by the deterministic summary
        of the current messages, which the next summary update rewrites from all
        the messages (docs/guide/threads.md).

        Raises:
            NotFoundError: no such message in this thread.
        """
        memory = self._memory
        memory._check_open()
        check_id("message_id", message_id)
        new_content = None if content is None else check_content(content)
        new_meta = None if metadata is None else check_metadata("metadata", metadata)
        self.get_message(message_id)
        vector = None if new_content is None else memory._embed([new_content])[0]
        with memory._store.transaction():
            if vector is not None:
                memory._use_embedder(int(vector.shape[0]))
            current = self.get_message(message_id)
            stored_time = None if current.timestamp == current.created_at else current.timestamp
            memory._store.update_memory(
                message_id,
                current.content if new_content is None else new_content,
                current.metadata if new_meta is None else new_meta,
                stored_time,
                vector,
            )
            if new_content is not None and new_content != current.content:
                upkeep.forget_summary(memory, self.thread_id, current.position)
        return self.get_message(message_id)

    def delete_message(self, message_id: str) -> None:
        """Delete one message (its position is not reused).

        A stored summary that covers it is made stale as by :meth:`update_message`,
        so no summary, ``get_summary()`` or context card shows it afterwards.

        Raises:
            NotFoundError: no such message in this thread.
        """
        with self._memory._store.transaction():
            position = self.get_message(message_id).position
            self._memory._store.delete_memory(message_id)
            upkeep.forget_summary(self._memory, self.thread_id, position)

    # summary and context card -----------------------------------------------------

    def get_summary(self, except_last: int = 0, token_budget: int | None = None) -> str:
        """A summary of the thread's messages, except the last ``except_last``.

        The stored summary when it covers exactly those messages (a summary made
        stale by a deleted or edited message covers none); otherwise the
        stored summary brought up to date with the messages it lacks (or, when it
        covers more than asked, a new summary of the asked messages), by the
        handle's LLM or the deterministic fallback; nothing is stored. With
        ``token_budget`` the text is cut to about that many tokens (4 characters
        each). ``""`` when there is nothing to summarize.

        Raises:
            InvalidArgumentError: ``except_last < 0`` or ``token_budget < 1``.
            ModelError: the LLM failed or answered out of schema.
        """
        return upkeep.summary_text(self, except_last, token_budget)

    def get_context_card(
        self,
        *,
        max_relevant_results: int | None = None,
        min_relevant_results_by_type: Mapping[str, int] | None = None,
        recent_message_count: int = 5,
        fallback_message_count: int = 5,
    ) -> ContextCard:
        """Compact context for the agent's next turn (``card.content`` is the prompt text).

        Args:
            max_relevant_results: at most this many relevant records (default 10,
                grown to the total of the minimums when that is larger).
            min_relevant_results_by_type: ``{type: count}`` for ``memory``,
                ``fact``, ``guideline``, ``preference`` and ``message``: each type
                is searched on its own, in this order, and contributes up to its
                count (best effort); a search over all memory-like types fills the
                remaining slots. Messages come from this thread only; the other
                types from the thread's user and agent scope.
            recent_message_count: the last messages shown as recent (>= 0).
            fallback_message_count: without a summary, the query is built from
                this many last messages (>= 1).

        Raises:
            InvalidArgumentError: an unsupported type, a count below 1, or
                ``max_relevant_results`` below the total of the minimums.
        """
        return context.build_card(
            self,
            max_relevant_results,
            min_relevant_results_by_type,
            recent_message_count,
            fallback_message_count,
        )

    # async twins, awaited on the GraphMemory's worker pool

    add_messages_async = async_twin(add_messages)
    get_messages_async = async_twin(get_messages)
    get_message_async = async_twin(get_message)
    update_message_async = async_twin(update_message)
    delete_message_async = async_twin(delete_message)
    get_summary_async = async_twin(get_summary)
    get_context_card_async = async_twin(get_context_card)
    info_async = async_twin(info)
