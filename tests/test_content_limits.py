"""Content and query sizes are bounded (MAX_CONTENT_LENGTH characters)."""

from __future__ import annotations

import pytest

from graphmem import GraphMemory
from graphmem.core.validation import MAX_CONTENT_LENGTH
from graphmem.errors import InvalidArgumentError

TOO_LONG = "a" * (MAX_CONTENT_LENGTH + 1)


def test_content_limit_add_memory_rejects_and_stores_nothing(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError, match="content") as caught:
        memory.add_memory(TOO_LONG, memory_id="big")
    assert caught.value.argument == "content"
    assert str(MAX_CONTENT_LENGTH) in str(caught.value)
    assert memory.list_memories() == []


def test_content_limit_at_the_limit_is_accepted(memory: GraphMemory) -> None:
    memory.add_memory("b" * MAX_CONTENT_LENGTH, memory_id="edge")
    assert len(memory.get_memory("edge").content) == MAX_CONTENT_LENGTH


def test_content_limit_update_memory_keeps_the_old_content(memory: GraphMemory) -> None:
    memory.add_memory("small", memory_id="m")
    with pytest.raises(InvalidArgumentError, match="content"):
        memory.update_memory("m", content=TOO_LONG)
    assert memory.get_memory("m").content == "small"


def test_content_limit_add_memories_names_the_item(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError, match="content") as caught:
        memory.add_memories([{"content": "fine"}, {"content": TOO_LONG}])
    assert caught.value.argument == "memories[1].content"
    assert memory.list_memories() == []


def test_content_limit_search_query(memory: GraphMemory) -> None:
    memory.add_memory("something", memory_id="m")
    with pytest.raises(InvalidArgumentError, match="query") as caught:
        memory.search(TOO_LONG)
    assert caught.value.argument == "query"
