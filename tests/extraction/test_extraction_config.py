"""MemoryExtractionConfig: the seed's fields, documented defaults, checks, and levels."""

from __future__ import annotations

import pytest

from graphmem import GraphMemory, HashingEmbedder, InvalidArgumentError, MemoryExtractionConfig
from graphmem.extraction.config import (
    MemoryLinkExtractionMode,
    check_extraction_config,
    effective_config,
)


def test_config_defaults_are_the_documented_ones() -> None:
    config = MemoryExtractionConfig()
    assert config.model_dump() == {
        "extract_memories": True,
        "memory_extraction_frequency": 5,
        "memory_extraction_window": 10,
        "memory_extraction_token_limit": 8000,
        "memory_extraction_custom_instructions": None,
        "memory_link_extraction_custom_instructions": None,
        "memory_extraction_inherit_message_metadata": False,
        "memory_link_extraction_mode": MemoryLinkExtractionMode.POST_EXTRACTION,
    }


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"memory_extraction_frequency": 0}, "memory_extraction_frequency"),
        ({"memory_extraction_window": 0}, "memory_extraction_window"),
        ({"memory_link_extraction_mode": "SOMETIMES"}, "memory_link_extraction_mode"),
        ({"memory_extraction_custom_instructions": "x" * 4001}, "custom_instructions"),
        ({"extract_memory": True}, "extract_memory"),
    ],
)
def test_config_bad_fields_are_named(fields: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidArgumentError, match=named) as raised:
        check_extraction_config("memory_extraction_config", fields)
    assert raised.value.argument.startswith("memory_extraction_config.")
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as memory:
        with pytest.raises(InvalidArgumentError, match=named):
            memory.create_thread("t", memory_extraction_config=fields)
        assert memory.list_threads() == []


def test_config_stored_with_the_thread_is_what_it_sets() -> None:
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as memory:
        given = MemoryExtractionConfig(memory_link_extraction_mode="DISABLED")
        memory.create_thread("t", memory_extraction_config=given)
        stored = memory.get_thread("t").settings.memory_extraction_config
        assert stored == {"memory_link_extraction_mode": "DISABLED"}
        memory.update_thread("t", memory_extraction_config={"memory_extraction_window": 3})
        stored = memory.get_thread("t").settings.memory_extraction_config
        assert stored == {"memory_extraction_window": 3}


def test_config_levels_override_only_what_they_set() -> None:
    client = MemoryExtractionConfig(memory_extraction_window=7, extract_memories=False)
    thread = {"memory_extraction_custom_instructions": "thread", "unknown_later_key": 1}
    settings = {"memory_extraction_frequency": 2, "memory_extraction_window": -1}
    effective = effective_config(client, thread, settings, {"memory_extraction_window": 4})
    assert effective.memory_extraction_window == 4
    assert effective.memory_extraction_frequency == 2
    assert effective.memory_extraction_custom_instructions == "thread"
    assert effective.extract_memories is False
    assert effective_config(client, None, {}).memory_extraction_window == 7


def test_config_client_level_is_checked() -> None:
    with pytest.raises(InvalidArgumentError, match="memory_extraction_config"):
        GraphMemory(":memory:", memory_extraction_config="often")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="extraction_workers"):
        GraphMemory(":memory:", extraction_workers=-1)
    with pytest.raises(InvalidArgumentError, match="extraction_max_attempts"):
        GraphMemory(":memory:", extraction_max_attempts=0)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("memory_extraction_window", 1001),
        ("memory_extraction_window", 0),
        ("memory_extraction_window", True),
        ("memory_extraction_frequency", 0),
        ("memory_extraction_token_limit", 2**31),
        ("memory_extraction_token_limit", "8000"),
    ],
)
def test_config_thread_override_refuses_what_the_config_refuses(name: str, value: object) -> None:
    with pytest.raises(InvalidArgumentError):
        MemoryExtractionConfig(**{name: value})
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as memory:
        with pytest.raises(InvalidArgumentError) as raised:
            memory.create_thread("t", **{name: value})
        assert raised.value.argument == name
        assert memory.list_threads() == []
        memory.create_thread("t")
        before = memory.get_thread("t").settings
        with pytest.raises(InvalidArgumentError) as raised:
            memory.update_thread("t", **{name: value})
        assert raised.value.argument == name
        assert memory.get_thread("t").settings == before


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("memory_extraction_window", 1000),
        ("memory_extraction_frequency", 2**31 - 1),
        ("memory_extraction_token_limit", -(2**40)),
    ],
)
def test_config_thread_override_takes_what_the_config_takes(name: str, value: int) -> None:
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as memory:
        memory.create_thread("t", **{name: value})
        settings = memory.get_thread("t").settings
        assert getattr(settings, name) == value
        effective = effective_config(MemoryExtractionConfig(), None, {name: value})
        assert getattr(effective, name) == value
