"""Thread operations of GraphMemory: create, reopen with settings, list, update, delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import (
    ConflictError,
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    MemoryExtractionConfig,
    NotFoundError,
    TopKMemorySearchConfig,
)


def test_thread_create_and_get_keeps_scope_and_metadata(memory: GraphMemory) -> None:
    memory.create_thread("t1", user_id="u", agent_id="a", metadata={"topic": "tea"})
    info = memory.get_thread("t1").info()
    assert (info.thread_id, info.user_id, info.agent_id, info.metadata) == (
        "t1",
        "u",
        "a",
        {"topic": "tea"},
    )
    assert (info.message_count, info.summary, info.topics) == (0, None, ())


def test_thread_create_without_ids_generates_them(memory: GraphMemory) -> None:
    thread = memory.create_thread()
    info = thread.info()
    assert len({info.thread_id, info.user_id, info.agent_id}) == 3
    assert memory.get_thread(thread.thread_id).thread_id == thread.thread_id


def test_thread_settings_persist_and_come_back_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=16)) as memory:
        memory.create_thread(
            "t",
            memory_extraction_config=MemoryExtractionConfig(
                memory_extraction_custom_instructions="keep food preferences"
            ),
            search_config={"max_results": 7},
            context_summary_update_frequency=4,
            enable_context_summary=False,
            context_card_type_search_concurrency=3,
            context_card_token_limit=500,
        )
    with GraphMemory(path, embedder=HashingEmbedder(dim=16)) as memory:
        thread = memory.get_thread("t")
        settings = thread.settings
        assert settings.memory_extraction_config == {
            "memory_extraction_custom_instructions": "keep food preferences"
        }
        assert settings.search_config == TopKMemorySearchConfig(max_results=7)
        assert settings.context_summary_update_frequency == 4
        assert settings.enable_context_summary is False
        assert settings.context_card_token_limit == 500
        # Per handle, never stored: a reopened handle has the default unless given.
        assert thread.context_card_type_search_concurrency == 5
        assert "context_card_type_search_concurrency" not in thread.info().settings
        again = memory.get_thread("t", context_card_type_search_concurrency=2)
        assert again.context_card_type_search_concurrency == 2


def test_thread_duplicate_id_is_conflict_and_keeps_the_first(memory: GraphMemory) -> None:
    memory.create_thread("t", user_id="u1")
    with pytest.raises(ConflictError, match="thread_id"):
        memory.create_thread("t", user_id="u2")
    assert memory.get_thread("t").info().user_id == "u1"
    assert len(memory.list_threads()) == 1


def test_thread_unknown_id_is_not_found(memory: GraphMemory) -> None:
    for call in (
        lambda: memory.get_thread("nope"),
        lambda: memory.update_thread("nope", metadata={}),
        lambda: memory.delete_thread("nope"),
    ):
        with pytest.raises(NotFoundError, match="nope"):
            call()


def test_thread_handle_of_deleted_thread_is_not_found(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    memory.delete_thread("t")
    with pytest.raises(NotFoundError, match="'t'"):
        thread.add_messages([{"role": "user", "content": "hi"}])
    with pytest.raises(NotFoundError):
        thread.get_context_card()


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"context_summary_update_frequency": 0}, "context_summary_update_frequency"),
        ({"context_summary_update_frequency": -2}, "context_summary_update_frequency"),
        ({"enable_context_summary": 1}, "enable_context_summary"),
        ({"context_card_type_search_concurrency": 0}, "context_card_type_search_concurrency"),
        ({"search_config": ["not", "an", "object"]}, "search_config"),
        ({"search_config": {"max_results": -1}}, "max_results"),
        ({"search_config": {"type": "other"}}, "search_config.type"),
        ({"memory_extraction_config": {"x": float("nan")}}, "memory_extraction_config"),
        ({"metadata": {"x": object()}}, "metadata"),
        ({"user_id": ""}, "user_id"),
        ({"llm": object()}, "llm"),
    ],
)
def test_thread_bad_create_argument_is_named_and_stores_nothing(
    memory: GraphMemory, kwargs: dict[str, object], named: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=named):
        memory.create_thread("t", **kwargs)  # type: ignore[arg-type]
    assert memory.list_threads() == []


def test_thread_list_filters_and_pages(memory: GraphMemory) -> None:
    for i in range(5):
        memory.create_thread(f"t{i}", user_id="u" if i % 2 == 0 else "v", agent_id="a")
    assert [t.thread_id for t in memory.list_threads(user_id="u")] == ["t0", "t2", "t4"]
    assert [t.thread_id for t in memory.list_threads(limit=2, offset=2)] == ["t2", "t3"]
    assert memory.list_threads(agent_id="b") == []


def test_thread_update_changes_metadata_and_settings_only(memory: GraphMemory) -> None:
    memory.create_thread("t", metadata={"a": 1}, context_summary_update_frequency=3)
    info = memory.update_thread("t", metadata={"b": 2}, enable_context_summary=False)
    assert info.metadata == {"b": 2}
    assert info.settings["enable_context_summary"] is False
    assert info.settings["context_summary_update_frequency"] == 3
    with pytest.raises(InvalidArgumentError, match="context_card_type_search_concurrency"):
        memory.update_thread("t", context_card_type_search_concurrency=2)
    assert memory.get_thread("t").info().settings == info.settings


def test_thread_delete_removes_messages_and_scoped_records(memory: GraphMemory) -> None:
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    other = memory.create_thread("o", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "one"}, {"role": "assistant", "content": "2"}])
    other.add_messages([{"role": "user", "content": "kept"}])
    thread.add_memory("scoped fact", memory_type="fact", memory_id="f")
    memory.add_memory("global", memory_id="g", user_id="u")
    assert memory.delete_thread("t") == 3
    assert [t.thread_id for t in memory.list_threads()] == ["o"]
    assert [m.id for m in memory.list_memories()] == ["g"]
    assert [m.content for m in other.get_messages()] == ["kept"]


def test_thread_delete_recomputes_validity_of_linked_records(memory: GraphMemory) -> None:
    thread = memory.create_thread("t", user_id="u")
    memory.add_memory("old preference", memory_id="old", memory_type="preference", user_id="u")
    new = thread.add_memory("new preference", memory_type="preference", memory_id="new")
    thread.link_records(new, "preference", "old", "preference", "supersedes")
    assert memory.get_memory("old").status == "invalid"
    memory.delete_thread("t")
    assert memory.get_memory("old").status == "valid"
    assert memory.list_record_links() == []
