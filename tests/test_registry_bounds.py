"""Prompt version numbers past what a store holds: refused as arguments, named as passed,
by every call that takes one (the embedded API; the service has its own tests)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from graphmem import (
    GraphMemory,
    MemoryExtractionConfig,
    PromptArgumentError,
    PromptNotFoundError,
)
from graphmem.core.validation import MAX_COUNT
from graphmem.testing.memory_store import MemoryStore

TOO_BIG = (MAX_COUNT + 1, 2**63, 10**20)


class _SummaryOnly:
    """Writes thread summaries; an extraction call would fail the test."""

    def chat(self, messages: object, *, json_schema: dict[str, object] | None = None) -> str:
        assert json_schema is not None and json_schema["title"] == "thread_summary"
        return '{"summary": "Orders.", "topics": []}'


@pytest.fixture(params=["sqlite", "memory"])
def memory(request: pytest.FixtureRequest) -> Iterator[GraphMemory]:
    store = GraphMemory(
        ":memory:" if request.param == "sqlite" else MemoryStore(),
        llm=_SummaryOnly(),
        memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
    )
    with store:
        store.create_prompt("p", "Extract order numbers.", "orders")
        store.update_prompt("p", prompt="Extract order numbers and dates.")
        yield store


CALLS: dict[str, Callable[[GraphMemory, int], object]] = {
    "get_prompt": lambda m, vid: m.get_prompt("p", vid=vid),
    "resolve_prompt": lambda m, vid: m.resolve_prompt("p", vid),
    "archive_prompt": lambda m, vid: m.archive_prompt("p", vid=vid),
    "purge_prompt": lambda m, vid: m.purge_prompt("p", vid=vid),
}


@pytest.mark.parametrize("vid", TOO_BIG)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_vid_past_the_largest_count_is_invalid_argument(
    memory: GraphMemory, call: str, vid: int
) -> None:
    with pytest.raises(PromptArgumentError, match=rf"^vid: .* from 0 to {MAX_COUNT}; got {vid}$"):
        CALLS[call](memory, vid)
    assert memory.get_prompt("p").version_count == 2  # nothing archived or purged


@pytest.mark.parametrize("call", sorted(CALLS))
def test_vid_at_the_largest_count_is_a_missing_version(memory: GraphMemory, call: str) -> None:
    with pytest.raises(PromptNotFoundError):
        CALLS[call](memory, MAX_COUNT)


@pytest.mark.parametrize("vid", TOO_BIG)
def test_extraction_prompt_vid_past_the_largest_count_names_prompt_vid(
    memory: GraphMemory, vid: int
) -> None:
    thread = memory.create_thread("t", user_id="u")
    thread.add_messages([{"role": "user", "content": "Order #7 is late."}])
    with pytest.raises(PromptArgumentError, match=r"^prompt_vid: "):
        thread.extract_memories(prompt_id="p", prompt_vid=vid)
    with pytest.raises(PromptArgumentError, match=r"^prompt_vid: "):
        thread.schedule_extraction(prompt_id="p", prompt_vid=vid)
