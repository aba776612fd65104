"""The asynchronous client: :class:`AsyncAgentMemoryClient` and its :class:`AsyncSession`
(the same calls as the sync client, awaited)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from graphmem.client.calls import Call, memory_body
from graphmem.client.models import (
    ChatMessage,
    MemoryBlock,
    RecordLinkList,
    SearchHit,
    SessionInfo,
    SessionList,
    UserInfo,
    UserList,
)
from graphmem.client.sync import CLIENT_CLOSED, _transport_error, read_answer
from graphmem.errors import ClosedError
from graphmem.models import MemoryRecord
from graphmem.registry_models import Prompt, PromptList, PromptVersionList
from graphmem.thread_models import Message
from graphmem.threads.card_model import ContextCard

__all__ = ["AsyncAgentMemoryClient", "AsyncSession"]


class AsyncAgentMemoryClient:
    """A client of the graphmem memory service (``graphmem serve``).

    Args:
        base_url: the service root, e.g. ``http://127.0.0.1:8000``.
        api_key: an API key (``graphmem keys create``) or a bearer JWT.
        timeout: seconds per request.
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 60.0) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )

    async def __aenter__(self) -> AsyncAgentMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections (idempotent); every call then raises ClosedError."""
        await self._http.aclose()

    async def _send(self, call: Call) -> Any:
        if self._http.is_closed:
            raise ClosedError(CLIENT_CLOSED)
        try:
            response = await self._http.request(
                call.method, call.path, json=call.json, params=call.params or None
            )
        except httpx.HTTPError as exc:
            raise _transport_error(exc) from exc
        return read_answer(call, response)

    # prompt registry ----------------------------------------------------------------

    async def create_prompt(
        self,
        prompt_id: str,
        prompt: str,
        description: str,
        annotations: Mapping[str, Any] | None = None,
    ) -> Prompt:
        """Register a prompt (version 0)."""
        result: Prompt = await self._send(
            Call.create_prompt(prompt_id, prompt, description, annotations)
        )
        return result

    async def update_prompt(
        self,
        prompt_id: str,
        *,
        prompt: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
    ) -> Prompt:
        """New text adds a version; description and annotations are not versioned."""
        call = Call.update_prompt(
            prompt_id, prompt=prompt, description=description, annotations=annotations
        )
        result: Prompt = await self._send(call)
        return result

    async def get_prompt(self, prompt_id: str, vid: int | None = None) -> Prompt:
        result: Prompt = await self._send(Call.get_prompt(prompt_id, vid))
        return result

    async def list_prompts(self, limit: int = 50, offset: int = 0) -> PromptList:
        result: PromptList = await self._send(Call.list_prompts(limit, offset))
        return result

    async def list_prompt_versions(
        self, prompt_id: str, limit: int = 50, offset: int = 0
    ) -> PromptVersionList:
        result: PromptVersionList = await self._send(
            Call.list_prompt_versions(prompt_id, limit, offset)
        )
        return result

    async def archive_prompt(self, prompt_id: str, vid: int | str = "all") -> Prompt:
        """Archive the whole prompt (``vid="all"``) or one version."""
        result: Prompt = await self._send(Call.archive_prompt(prompt_id, vid))
        return result

    async def purge_prompt(self, prompt_id: str, vid: int | str = "all") -> None:
        """Delete the whole prompt (``vid="all"``) or one version."""
        await self._send(Call.purge_prompt(prompt_id, vid))

    # users and sessions ----------------------------------------------------------------

    async def create_user(
        self,
        user_id: str,
        information: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> UserInfo:
        """Record a user; returns it as stored."""
        meta = None if metadata is None else dict(metadata)
        result: UserInfo = await self._send(Call.create_user(user_id, information, meta))
        return result

    async def get_user(self, user_id: str) -> UserInfo:
        """A recorded user."""
        result: UserInfo = await self._send(Call.get_user(user_id))
        return result

    async def list_users(self, limit: int = 100, offset: int = 0) -> UserList:
        """Recorded users, oldest first, one page."""
        result: UserList = await self._send(Call.list_users(limit, offset))
        return result

    async def delete_user(self, user_id: str) -> int:
        """Forget a user with its sessions and records; returns how many records went."""
        result: int = await self._send(Call.delete_user(user_id))
        return result

    async def create_session(
        self,
        *,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AsyncSession:
        meta = None if metadata is None else dict(metadata)
        info = await self._send(Call.create_session(user_id, session_id, agent_id, meta))
        return AsyncSession(self, info)

    async def get_session(self, session_id: str) -> AsyncSession:
        return AsyncSession(self, await self._send(Call.get_session(session_id)))

    async def list_sessions(
        self, user_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> SessionList:
        """Sessions (of one user, with ``user_id``), oldest first, one page."""
        result: SessionList = await self._send(Call.list_sessions(user_id, limit, offset))
        return result

    # memories and links ----------------------------------------------------------------

    async def add_record(
        self,
        content: str,
        memory_type: str = "memory",
        *,
        memory_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Store one memory-like record (``memory``, ``fact``, ``preference``,
        ``guideline``) of a recorded user, or in a session (whose user and agent it
        takes); returns its id. Unlike :meth:`AsyncSession.add_memory`, no block is made
        and nothing is extracted."""
        call = Call.add_record(
            content,
            memory_type=memory_type,
            memory_id=memory_id,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            metadata=None if metadata is None else dict(metadata),
        )
        result: str = await self._send(call)
        return result

    async def get_record(self, memory_id: str) -> MemoryRecord:
        """A stored memory-like record, as :meth:`graphmem.GraphMemory.get_memory` gives it."""
        result: MemoryRecord = await self._send(Call.get_record(memory_id))
        return result

    async def list_record_links(
        self, memory_id: str, limit: int = 100, offset: int = 0
    ) -> RecordLinkList:
        """A memory's links (either end), oldest first, one page."""
        result: RecordLinkList = await self._send(Call.list_record_links(memory_id, limit, offset))
        return result

    async def link_records(
        self,
        source_id: str,
        source_type: str,
        target_id: str,
        target_type: str,
        relation_type: str,
        opposite_relation_type: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Link ``source -> target`` and return the relation id (a custom
        ``relation_type`` needs ``opposite_relation_type``)."""
        call = Call.link_records(
            source_id=source_id,
            source_type=source_type,
            target_id=target_id,
            target_type=target_type,
            relation_type=relation_type,
            opposite_relation_type=opposite_relation_type,
            metadata=None if metadata is None else dict(metadata),
        )
        result: str = await self._send(call)
        return result

    async def delete_record_link(self, relation_id: str) -> None:
        """Delete a link by its relation id."""
        await self._send(Call.delete_record_link(relation_id))

    # search ------------------------------------------------------------------------------

    async def search(self, query: str, **options: Any) -> list[SearchHit]:
        """Search memories (options: user_id, agent_id, session_id, record_types,
        max_results, num_hops, strategy)."""
        result: list[SearchHit] = await self._send(Call.search(query, **options))
        return result


class AsyncSession:
    """One session (a thread) of the service, from :meth:`AsyncAgentMemoryClient.create_session`."""

    def __init__(self, client: AsyncAgentMemoryClient, info: SessionInfo) -> None:
        self._client = client
        self.info = info
        self.session_id = info.session_id

    def __repr__(self) -> str:
        return f"Session({self.session_id!r})"

    async def add_memory(
        self,
        messages: Sequence[ChatMessage | dict[str, Any]] | None = None,
        facts: Sequence[str] | None = None,
        *,
        prompt_id: str | None = None,
        prompt_vid: int | None = None,
        context_required: bool = True,
        async_processing: bool = True,
    ) -> MemoryBlock:
        """Add a memory block; with ``async_processing=False`` it is processed first."""
        body = memory_body(
            messages, facts, prompt_id, prompt_vid, context_required, async_processing
        )
        result: MemoryBlock = await self._client._send(Call.add_memory(self.session_id, body))
        return result

    async def update_memory(
        self,
        block_id: str,
        *,
        prompt_id: str,
        prompt_vid: int | None = None,
        async_processing: bool = True,
    ) -> MemoryBlock:
        """Switch the block's prompt (``"default"`` clears it); it is processed again."""
        body: dict[str, Any] = {"prompt_id": prompt_id, "async_processing": async_processing}
        if prompt_vid is not None:
            body["prompt_vid"] = prompt_vid
        result: MemoryBlock = await self._client._send(
            Call.update_memory(self.session_id, block_id, body)
        )
        return result

    async def get_memory(self, block_id: str) -> MemoryBlock:
        result: MemoryBlock = await self._client._send(Call.get_memory(self.session_id, block_id))
        return result

    async def list_memory(self, limit: int = 50, offset: int = 0) -> list[MemoryBlock]:
        result: list[MemoryBlock] = await self._client._send(
            Call.list_memory(self.session_id, limit, offset)
        )
        return result

    async def get_messages(self, start: int | None = None, end: int | None = None) -> list[Message]:
        """The session's messages in order, sliced like ``messages[start:end]``
        (negative indexes count from the end), as the embedded thread's
        ``get_messages`` gives them."""
        call = Call.get_messages(self.session_id, start, end)
        result: list[Message] = await self._client._send(call)
        return result

    async def get_context_card(
        self,
        *,
        max_relevant_results: int | None = None,
        min_relevant_results_by_type: Mapping[str, int] | None = None,
        recent_message_count: int | None = None,
        fallback_message_count: int | None = None,
    ) -> ContextCard:
        """The session's context card (``content``: its prompt text), as the
        embedded ``get_context_card`` gives it, with its options (the service's
        defaults when None)."""
        call = Call.context_card(
            self.session_id,
            max_relevant_results,
            min_relevant_results_by_type,
            recent_message_count,
            fallback_message_count,
        )
        result: ContextCard = await self._client._send(call)
        return result

    async def search(self, query: str, **options: Any) -> list[SearchHit]:
        return await self._client.search(query, session_id=self.session_id, **options)

    async def delete(self) -> int:
        """Delete the session, its messages and the records scoped to it; returns
        how many records were deleted."""
        result: int = await self._client._send(Call.delete_session(self.session_id))
        return result
