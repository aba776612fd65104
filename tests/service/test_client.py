"""graphmem.client against a graphmem serve subprocess: the async client, error classes,
and the server's model settings."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import ConflictError, GraphMemError, NotFoundError, PromptConflictError
from graphmem.client import (
    AgentMemoryClient,
    ApiArgumentError,
    ApiNotFoundError,
    AsyncAgentMemoryClient,
    AuthenticationError,
    ChatMessage,
    PermissionDeniedError,
)
from graphmem.client.errors import ApiError
from graphmem.service.config import ModelSettings

from .conftest import Served


def test_async_client_runs_the_same_calls(served: Served) -> None:
    async def scenario() -> None:
        async with AsyncAgentMemoryClient(served.url, served.admin_key) as client:
            await client.create_user("async_user")
            session = await client.create_session(user_id="async_user", session_id="async_s")
            prompt = await client.create_prompt("async_p", "Extract order numbers.", "async")
            assert (prompt.current_vid, prompt.version_count) == (0, 1)
            block = await session.add_memory(
                messages=[ChatMessage(user_content="Order #5 is late.", assistant_content="Ok.")],
                facts=["Order #5 ships Friday."],
                prompt_id="async_p",
                async_processing=False,
            )
            assert (block.status, block.resolved_vid) == ("ready", 0)
            assert block.summary == "custom: Extract order numbers."
            with pytest.raises(PromptConflictError) as dup:
                await client.create_prompt("async_p", "Extract dates.", "again")
            assert (dup.value.code, dup.value.status) == ("PROMPT_ALREADY_EXISTS", 409)
            blocks = await session.list_memory()
            assert [b.block_id for b in blocks] == [block.block_id]
            # The fact, and the one record the scripted extraction made under the prompt.
            assert len(block.extracted_record_ids) == 1
            hits = await session.search("when does order 5 ship")
            found = sorted(h.record["content"] for h in hits)
            assert found == ["Order #5 ships Friday.", "Order #7 is late (custom)."]
            assert {h.record["thread_id"] for h in hits} == {"async_s"}

    asyncio.run(scenario())


def test_error_answers_become_graphmem_errors(served: Served) -> None:
    with AgentMemoryClient(served.url, "gm_0123456789abcdef_" + "y" * 43) as stranger:
        with pytest.raises(AuthenticationError) as unknown:
            stranger.list_prompts()
        assert (unknown.value.code, unknown.value.status) == ("UNAUTHENTICATED", 401)
    with AgentMemoryClient(served.url, served.read_key) as reader:
        assert reader.list_prompts().total >= 0  # read may list
        with pytest.raises(PermissionDeniedError) as denied:
            reader.create_prompt("by_reader", "Extract.", "no")
        assert (denied.value.code, denied.value.status) == ("FORBIDDEN", 403)
    with AgentMemoryClient(served.url, served.admin_key) as client:
        with pytest.raises(ApiNotFoundError) as missing:
            client.get_session("no_such_session")
        assert isinstance(missing.value, NotFoundError) and missing.value.status == 404
        client.create_user("dup_user")
        with pytest.raises(ConflictError):
            client.create_user("dup_user")
        with pytest.raises(ApiArgumentError) as bad:
            client.create_user("x" * 129)
        assert isinstance(bad.value, ValueError) and bad.value.code == "INVALID_ARGUMENT"
    with AgentMemoryClient("http://127.0.0.1:9", served.admin_key, timeout=2) as nowhere:
        with pytest.raises(ApiError) as down:
            nowhere.list_prompts()
        assert isinstance(down.value, GraphMemError) and down.value.code == "UNREACHABLE"


def test_model_settings_flags_win_over_the_environment() -> None:
    env = {
        "GRAPHMEM_LLM_MODEL": "env-model",
        "GRAPHMEM_LLM_API_BASE": "http://env",
        "GRAPHMEM_LLM_API_KEY": "env-key",
    }
    assert ModelSettings.resolve("llm", env) == ModelSettings("env-model", "http://env", "env-key")
    flagged = ModelSettings.resolve("llm", env, model="flag-model", api_key="flag-key")
    assert flagged == ModelSettings("flag-model", "http://env", "flag-key")
    assert ModelSettings.resolve("embedder", env) == ModelSettings()
