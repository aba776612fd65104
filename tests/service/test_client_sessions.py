"""A session through graphmem.client (sync and async) against a graphmem serve
subprocess: its info, messages and context card are the embedded API's types, its
messages slice like the embedded ``get_messages``, its deletion counts the records,
and its errors name the request's fields."""

from __future__ import annotations

import asyncio
from datetime import datetime

import httpx
import pytest

from graphmem import ContextCard, Message
from graphmem.client import (
    AgentMemoryClient,
    ApiArgumentError,
    ApiConflictError,
    ApiNotFoundError,
    AsyncAgentMemoryClient,
    ChatMessage,
    SessionInfo,
)

from .conftest import Served

TURNS = [
    ChatMessage(user_content="Where is order #9?", assistant_content="It left on Monday."),
    ChatMessage(user_content="When will it arrive?", assistant_content="On Thursday."),
]
TEXTS = ["Where is order #9?", "It left on Monday.", "When will it arrive?", "On Thursday."]


def _raw_card(served: Served, session_id: str, **params: int) -> dict[str, object]:
    """The card's JSON as the service answers it."""
    answer = httpx.get(
        f"{served.url}/v1/sessions/{session_id}/context_card",
        params=params,
        headers={"Authorization": f"Bearer {served.admin_key}"},
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


def test_a_session_answers_the_embedded_types(served: Served) -> None:
    with AgentMemoryClient(served.url, served.admin_key) as client:
        client.create_user("typed_u")
        session = client.create_session(
            user_id="typed_u", session_id="typed_s", agent_id="typed_a", metadata={"k": 1}
        )
        info = session.info
        assert isinstance(info, SessionInfo)
        assert (info.user_id, info.agent_id, info.metadata) == ("typed_u", "typed_a", {"k": 1})
        assert isinstance(info.created_at, datetime) and isinstance(info.updated_at, datetime)
        assert (info.topics, info.message_count, info.summarized_count) == ((), 0, 0)
        assert isinstance(info.settings, dict)

        block = session.add_memory(messages=TURNS, async_processing=False)
        assert block.status == "ready"
        again = client.get_session("typed_s").info
        assert again.message_count == 4 and again.created_at == info.created_at
        assert isinstance(again.topics, tuple)
        assert all(isinstance(t, str) for t in again.topics)

        messages = session.get_messages()
        assert all(isinstance(m, Message) for m in messages)
        assert [m.content for m in messages] == TEXTS
        assert [m.role for m in messages] == ["user", "assistant"] * 2
        assert all(isinstance(m.timestamp, datetime) for m in messages)
        assert {m.thread_id for m in messages} == {"typed_s"}
        for start, end in [(-2, None), (1, 3), (None, -1), (3, 1), (-10, 2), (4, None)]:
            got = session.get_messages(start, end)
            assert got == messages[start:end], (start, end)
        assert session.get_messages(start=-1) == messages[-1:]
        with pytest.raises(ApiArgumentError) as bad:
            session.get_messages(start="x")  # type: ignore[arg-type]
        assert bad.value.argument.endswith("start")

        card = session.get_context_card(recent_message_count=2)
        assert isinstance(card, ContextCard)
        assert card.thread_id == "typed_s"
        assert [m.content for m in card.recent_messages] == TEXTS[-2:]
        assert all(isinstance(m, Message) for m in card.recent_messages)
        raw = _raw_card(served, "typed_s", recent_message_count=2)
        assert card.content == raw["content"]  # the text the service rendered
        assert card.model_dump(mode="json") == {k: v for k, v in raw.items() if k != "content"}

        with pytest.raises(ApiConflictError) as dup:
            client.create_session(user_id="typed_u", session_id="typed_s")
        assert str(dup.value) == "session_id: a session 'typed_s' exists already"
        with pytest.raises(ApiArgumentError) as blank:
            session.add_memory(
                messages=[ChatMessage(user_content="Hi."), ChatMessage(assistant_content=" ")]
            )
        assert blank.value.argument == "messages[1].assistant_content"

        # The session's messages and the record its block's extraction made.
        assert len(block.extracted_record_ids) == 1
        assert session.delete() == 5
        with pytest.raises(ApiNotFoundError):
            client.get_session("typed_s")


def test_the_async_session_answers_the_same_types(served: Served) -> None:
    async def scenario() -> None:
        async with AsyncAgentMemoryClient(served.url, served.admin_key) as client:
            await client.create_user("atyped_u")
            session = await client.create_session(user_id="atyped_u", session_id="atyped_s")
            assert isinstance(session.info.created_at, datetime)
            assert session.info.topics == ()
            block = await session.add_memory(messages=TURNS, async_processing=False)
            messages = await session.get_messages()
            assert all(isinstance(m, Message) for m in messages)
            assert [m.content for m in messages] == TEXTS
            assert await session.get_messages(-2) == messages[-2:]
            assert await session.get_messages(end=1) == messages[:1]
            card = await session.get_context_card()
            assert isinstance(card, ContextCard)
            assert card.content == _raw_card(served, "atyped_s")["content"]
            with pytest.raises(ApiConflictError, match="a session 'atyped_s' exists already"):
                await client.create_session(user_id="atyped_u", session_id="atyped_s")
            with pytest.raises(ApiArgumentError) as long:
                await session.add_memory(
                    messages=[ChatMessage(user_content="Hi.", assistant_content="x" * 100_001)]
                )
            assert long.value.argument == "messages[0].assistant_content"
            assert await session.delete() == 4 + len(block.extracted_record_ids)
            with pytest.raises(ApiNotFoundError):
                await client.get_session("atyped_s")

    asyncio.run(scenario())
