"""Users and agents: add, list, delete with their records (links cascade, validity kept)."""

from __future__ import annotations

import pytest

from graphmem import ConflictError, GraphMemory, InvalidArgumentError, NotFoundError


def test_profiles_add_list_and_conflict(memory: GraphMemory) -> None:
    assert memory.add_user("u1", "likes tea", metadata={"tier": 1}) == "u1"
    memory.add_user("u2")
    memory.add_agent("a1", "a helpful assistant")
    assert [(p.id, p.information, p.metadata) for p in memory.list_users()] == [
        ("u1", "likes tea", {"tier": 1}),
        ("u2", None, {}),
    ]
    assert [p.id for p in memory.list_agents()] == ["a1"]
    assert [p.id for p in memory.list_users(limit=1, offset=1)] == ["u2"]
    with pytest.raises(ConflictError, match="u1"):
        memory.add_user("u1", "again")
    assert memory.list_users()[0].information == "likes tea"


def test_profiles_bad_input_is_named(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError, match="user_id"):
        memory.add_user("")
    with pytest.raises(InvalidArgumentError, match="information"):
        memory.add_agent("a", information=42)  # type: ignore[arg-type]
    with pytest.raises(NotFoundError, match="nobody"):
        memory.delete_user("nobody")
    assert memory.list_users() == [] and memory.list_agents() == []


def test_profiles_delete_user_removes_its_records_threads_and_links(memory: GraphMemory) -> None:
    memory.add_user("u")
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "hello"}])
    memory.add_memory("u's old view", memory_id="u-old", user_id="u")
    memory.add_memory("someone's view", memory_id="other", user_id="v")
    memory.add_memory("v's newer view", memory_id="v-new", user_id="v")
    memory.link_records("u-old", "memory", "other", "memory", "supersedes")
    memory.link_records("v-new", "memory", "u-old", "memory", "supports")
    assert memory.get_memory("other").status == "invalid"
    assert memory.delete_user("u") == 2
    assert memory.get_memory("other").status == "valid"
    assert memory.list_record_links() == []
    assert memory.list_threads() == [] and memory.list_users() == []
    assert sorted(m.id for m in memory.list_memories()) == ["other", "v-new"]


def test_profiles_delete_agent_removes_only_its_records(memory: GraphMemory) -> None:
    memory.add_agent("a")
    memory.create_thread("t", user_id="u", agent_id="a").add_memory("by a", memory_id="x")
    memory.add_memory("by b", memory_id="y", user_id="u", agent_id="b")
    assert memory.delete_agent("a") == 1
    assert [m.id for m in memory.list_memories()] == ["y"]
