"""graphmem.client against a graphmem serve subprocess: the async client, error classes,
users, sessions, records and links, and the server's model settings."""

from __future__ import annotations

import asyncio

import pytest

from graphmem import (
    ClosedError,
    ConflictError,
    GraphMemError,
    InvalidArgumentError,
    MemoryRecord,
    NotFoundError,
    PromptArgumentError,
    PromptConflictError,
    RecordRelation,
)
from graphmem.client import (
    AgentMemoryClient,
    ApiArgumentError,
    ApiConflictError,
    ApiNotFoundError,
    AsyncAgentMemoryClient,
    AuthenticationError,
    ChatMessage,
    PermissionDeniedError,
    SessionInfo,
    UserInfo,
)
from graphmem.client.errors import ApiError
from graphmem.service.config import ModelSettings

from .conftest import Served


def test_async_client_runs_the_same_calls(served: Served) -> None:
    async def scenario() -> None:
        async with AsyncAgentMemoryClient(served.url, served.admin_key) as client:
            made = await client.create_user("async_user", "Async.")
            assert made == UserInfo(user_id="async_user", information="Async.")
            assert await client.get_user("async_user") == made
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


def test_a_closed_client_raises_closed_error(served: Served) -> None:
    client = AgentMemoryClient(served.url, served.read_key)
    session = client.get_session  # a bound call, kept past close
    assert client.list_users().users is not None
    client.close()
    client.close()  # twice is harmless
    with pytest.raises(ClosedError, match="client is closed"):
        client.list_users()
    with pytest.raises(ClosedError):
        session("s")

    async def run() -> None:
        async with AsyncAgentMemoryClient(served.url, served.read_key) as aclient:
            await aclient.list_users()
        await aclient.aclose()
        with pytest.raises(ClosedError, match="client is closed"):
            await aclient.list_users()

    asyncio.run(run())


def test_users_and_sessions_are_listed_in_pages_and_users_deleted(served: Served) -> None:
    with AgentMemoryClient(served.url, served.admin_key) as client:
        before = client.list_users().total
        client.create_user("list_u1")
        for unreachable in (".", ".."):
            with pytest.raises(InvalidArgumentError):
                client.get_user(unreachable)
        with pytest.raises(PromptArgumentError):
            client.create_prompt("bad id!", "Extract.", "d")
        made = client.create_user("list_u2", "Prefers email.", {"tier": "gold"})
        assert isinstance(made, UserInfo)
        assert (made.user_id, made.information, made.metadata) == (
            "list_u2",
            "Prefers email.",
            {"tier": "gold"},
        )
        assert client.get_user("list_u2") == made
        client.create_session(user_id="list_u1", session_id="list_s1")
        client.create_session(user_id="list_u1", session_id="list_s2")
        client.create_session(user_id="list_u2", session_id="list_s3")

        everyone = client.list_users(limit=before + 2)
        assert (everyone.count, everyone.total) == (before + 2, before + 2)
        assert (everyone.limit, everyone.offset) == (before + 2, 0)
        assert everyone.users[-1] == UserInfo(
            user_id="list_u2", information="Prefers email.", metadata={"tier": "gold"}
        )
        last = client.list_users(limit=1, offset=before + 1)
        assert [u.user_id for u in last.users] == ["list_u2"]
        assert (last.count, last.total) == (1, before + 2)

        first = client.list_sessions(user_id="list_u1", limit=1)
        assert [s.session_id for s in first.sessions] == ["list_s1"]
        assert (first.count, first.total, first.limit, first.offset) == (1, 2, 1, 0)
        second = client.list_sessions("list_u1", limit=1, offset=1)
        assert isinstance(second.sessions[0], SessionInfo)
        assert (second.sessions[0].session_id, second.sessions[0].user_id) == ("list_s2", "list_u1")
        assert client.list_sessions().total >= 3

        client.add_record("Ships to Oslo.", "fact", session_id="list_s1")
        assert client.delete_user("list_u1") == 1
        with pytest.raises(ApiNotFoundError):
            client.get_user("list_u1")
        with pytest.raises(ApiNotFoundError) as gone:
            client.delete_user("list_u1")
        assert (gone.value.code, gone.value.status) == ("NOT_FOUND", 404)
        assert client.list_sessions(user_id="list_u1").total == 0
        assert client.list_users().total == before + 1
        with pytest.raises(ApiArgumentError) as bad:
            client.list_users(limit=0)
        assert bad.value.argument == "limit"
    with AgentMemoryClient(served.url, served.read_key) as reader:
        assert reader.list_sessions(user_id="list_u2").count == 1
        with pytest.raises(PermissionDeniedError):
            reader.delete_user("list_u2")


def test_records_and_links_round_trip(served: Served) -> None:
    with AgentMemoryClient(served.url, served.admin_key) as client:
        client.create_user("rec_u")
        client.create_session(user_id="rec_u", session_id="rec_s", agent_id="rec_agent")
        old = client.add_record(
            "Lives in Oslo.", "fact", memory_id="rec old?#1", user_id="rec_u", metadata={"n": 1}
        )
        assert old == "rec old?#1"  # the path of get_record and list_record_links encodes it
        new = client.add_record("Moved to Bergen.", "fact", session_id="rec_s")
        record = client.get_record(new)
        assert isinstance(record, MemoryRecord)
        assert (record.content, record.record_type, record.status) == (
            "Moved to Bergen.",
            "fact",
            "valid",
        )
        assert (record.user_id, record.agent_id, record.thread_id) == (
            "rec_u",
            "rec_agent",
            "rec_s",
        )

        relation_id = client.link_records(new, "fact", old, "fact", "supersedes")
        noted = client.link_records(
            old, "fact", new, "fact", "mentions", "is_mentioned_by", metadata={"why": "test"}
        )
        replaced = client.get_record(old)
        assert replaced.status == "invalid" and replaced.metadata == {"n": 1}
        assert [r.id for r in replaced.invalidated_by] == [relation_id]

        links = client.list_record_links(old)
        assert [link.id for link in links.links] == [relation_id, noted]
        assert (links.count, links.total, links.limit, links.offset) == (2, 2, 100, 0)
        page = client.list_record_links(old, limit=1, offset=1)
        assert isinstance(page.links[0], RecordRelation)
        assert (page.links[0].relation_type, page.links[0].opposite_relation_type) == (
            "mentions",
            "is_mentioned_by",
        )
        assert (page.links[0].metadata, page.count, page.total) == ({"why": "test"}, 1, 2)

        client.delete_record_link(noted)
        assert client.list_record_links(new).total == 1
        with pytest.raises(ApiNotFoundError) as no_link:
            client.delete_record_link(noted)
        assert str(no_link.value).startswith("relation_id:")


def test_record_and_link_errors_map_to_client_errors(served: Served) -> None:
    with AgentMemoryClient(served.url, served.admin_key) as client:
        client.create_user("err_u")
        client.create_session(user_id="err_u", session_id="err_s")
        a = client.add_record("A.", memory_id="err_a", user_id="err_u")
        b = client.add_record("B.", "preference", user_id="err_u")
        for missing in (
            lambda: client.get_record("no_such_record"),
            lambda: client.list_record_links("no_such_record"),
            lambda: client.add_record("C.", user_id="no_such_user"),
            lambda: client.add_record("C.", session_id="no_such_session"),
            lambda: client.link_records(a, "memory", "no_such_record", "memory", "supports"),
        ):
            with pytest.raises(ApiNotFoundError) as nf:
                missing()
            assert isinstance(nf.value, NotFoundError) and nf.value.status == 404
        with pytest.raises(ApiConflictError) as dup:
            client.add_record("A again.", memory_id="err_a")
        assert isinstance(dup.value, ConflictError) and dup.value.code == "CONFLICT"
        client.link_records(a, "memory", b, "preference", "supports")
        with pytest.raises(ApiConflictError):
            client.link_records(a, "memory", b, "preference", "supports")
        with pytest.raises(ApiArgumentError) as wrong_type:
            client.link_records(a, "fact", b, "preference", "contradicts")
        assert wrong_type.value.argument == "source_type"
        with pytest.raises(ApiArgumentError) as not_hers:
            client.add_record("C.", session_id="err_s", user_id="someone_else")
        assert not_hers.value.argument == "user_id"
    with AgentMemoryClient(served.url, served.read_key) as reader:
        assert reader.get_record(a).content == "A."
        assert reader.list_record_links(a).total == 1
        with pytest.raises(PermissionDeniedError):
            reader.add_record("D.", user_id="err_u")
        with pytest.raises(PermissionDeniedError):
            reader.link_records(b, "preference", a, "memory", "refines")


def test_async_client_lists_users_sessions_and_links_records(served: Served) -> None:
    async def scenario() -> None:
        async with AsyncAgentMemoryClient(served.url, served.admin_key) as client:
            await client.create_user("async_rec_u")
            await client.create_session(user_id="async_rec_u", session_id="async_rec_s")
            users = await client.list_users(limit=1000)
            assert "async_rec_u" in [u.user_id for u in users.users]
            assert users.count == users.total
            sessions = await client.list_sessions(user_id="async_rec_u")
            assert [s.session_id for s in sessions.sessions] == ["async_rec_s"]
            assert (sessions.count, sessions.total) == (1, 1)

            first = await client.add_record("Likes tea.", "preference", session_id="async_rec_s")
            second = await client.add_record(
                "Likes green tea.", "preference", user_id="async_rec_u", memory_id="async_rec_m"
            )
            assert second == "async_rec_m"
            relation_id = await client.link_records(
                second, "preference", first, "preference", "refines"
            )
            assert (await client.get_record(first)).status == "invalid"
            links = await client.list_record_links(first)
            assert ([link.id for link in links.links], links.total) == ([relation_id], 1)
            await client.delete_record_link(relation_id)
            assert (await client.list_record_links(first, limit=5)).total == 0
            with pytest.raises(ApiNotFoundError):
                await client.delete_record_link(relation_id)
            with pytest.raises(ApiConflictError):
                await client.add_record("Again.", memory_id="async_rec_m")

            assert await client.delete_user("async_rec_u") == 2
            with pytest.raises(ApiNotFoundError):
                await client.get_record(second)
            with pytest.raises(ApiNotFoundError):
                await client.delete_user("async_rec_u")

    asyncio.run(scenario())


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
