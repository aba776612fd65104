"""A call whose result is the same on a store four times bigger does about the same
work there (SQLite): counted in SQLite virtual machine steps, not time.

The plans of the statements are pinned in test_listing_plans.py; a plan can look
right and still read every row (a test that SQLite evaluates on each row), which
these counts catch.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem import GraphMemory, HashingEmbedder, MemoryExtractionConfig
from graphmem.core.validation import SearchFilters
from graphmem.extraction.run import ExtractionRequest, _window

SIZES = (100, 400)
_serial = itertools.count()


class _IdleLlm:
    """Jobs are queued, never run (no extraction workers)."""

    def chat(self, messages: Any, json_schema: Any = None, **kw: Any) -> str:
        raise AssertionError("no job runs in this test")


def _build(path: Path, n: int) -> GraphMemory:
    memory = GraphMemory(
        path, embedder=HashingEmbedder(dim=8), llm=_IdleLlm(), extraction_workers=0
    )
    types = ("memory", "fact", "preference", "guideline")
    memory.add_memories(
        [
            {
                "memory_id": f"m{i}",
                "content": f"note {i} apple",
                "memory_type": types[i % 4],
                "user_id": f"u{i % 5}",
                "agent_id": f"a{i % 3}",
                "thread_id": f"mt{i % 7}" if i % 2 else None,
                "metadata": {"k": i % 4},
            }
            for i in range(n)
        ]
        + [
            {
                "memory_id": f"small{i}",
                "content": f"small zebra apple {i}",
                "user_id": "small",
                "agent_id": "small-agent",
                "thread_id": "t-small",
                "metadata": {"rare": "yes"},
            }
            for i in range(4)
        ]
    )
    memory.add_record_links(
        [
            {
                "source_record_id": f"m{i}",
                "source_record_type": types[i % 4],
                "target_record_id": f"m{i - 1}",
                "target_record_type": types[(i - 1) % 4],
                "relation_type": "supersedes" if i % 10 == 0 else "supports",
            }
            for i in range(1, n)
        ]
    )
    for k in range(n // 10):
        thread = memory.create_thread(
            f"t{k}", user_id=f"u{k % 5}", agent_id=f"a{k % 3}", enable_context_summary=False
        )
        thread.add_messages([{"role": "user", "content": f"hello {k}"}])
        thread.schedule_extraction()
    small = memory.create_thread(
        "t-small", user_id="small", agent_id="small-agent", enable_context_summary=False
    )
    small.schedule_extraction()
    for k in range(n // 5):
        memory.add_user(f"user{k}")
    return memory


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, GraphMemory]]:
    folder = tmp_path_factory.mktemp("work")
    built = {n: _build(folder / f"s{n}.db", n) for n in SIZES}
    yield built
    for memory in built.values():
        memory.close()


def _new_thread(memory: GraphMemory) -> str:
    thread_id = f"gone{next(_serial)}"
    thread = memory.create_thread(thread_id, user_id="small", enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "bye"}])
    return thread_id


def _new_agent(memory: GraphMemory) -> str:
    agent = f"gone-agent{next(_serial)}"
    memory.add_agent(agent)
    memory.add_memories([{"content": "x", "agent_id": agent, "user_id": "small"}])
    memory.create_thread(agent + "-t", agent_id=agent, enable_context_summary=False)
    return agent


RARE = {"rare": "yes"}


def _unowned_candidates(memory: GraphMemory, _: Any) -> Any:
    """Link candidates of a memory without a user or agent, read from SQL (a
    metadata filter): the rows without a user, through the user index."""
    filters = SearchFilters(without_user=True, without_agent=True, metadata_filter=RARE)
    return memory._store.nearest(filters, np.ones(8, np.float32), 5, False)


CALLS: dict[str, tuple[Callable[[GraphMemory], Any] | None, Callable[[GraphMemory, Any], Any]]] = {
    "list_memories metadata": (None, lambda m, _: m.list_memories(metadata_filter=RARE)),
    "list_memories page": (None, lambda m, _: m.list_memories(limit=5, offset=20)),
    "list_memories user": (None, lambda m, _: m.list_memories(user_id="small")),
    "list_memories agent": (None, lambda m, _: m.list_memories(agent_id="small-agent")),
    "list_memories thread": (None, lambda m, _: m.list_memories(thread_id="t-small")),
    "search vector metadata": (None, lambda m, _: m.search("zebra", metadata_filter=RARE)),
    "link candidates without an owner": (None, _unowned_candidates),
    "search keyword thread": (
        None,
        lambda m, _: m.search("apple", thread_id="t-small", strategy="keyword"),
    ),
    "search keyword agent": (
        None,
        lambda m, _: m.search("apple", agent_id="small-agent", strategy="keyword"),
    ),
    "list_record_links page": (None, lambda m, _: m.list_record_links(limit=5, offset=20)),
    "list_record_links type": (
        None,
        lambda m, _: m.list_record_links(relation_type="supersedes", limit=3),
    ),
    "list_threads page": (None, lambda m, _: m.list_threads(limit=5, offset=3)),
    "list_threads agent": (None, lambda m, _: m.list_threads(agent_id="small-agent")),
    "count_threads agent": (None, lambda m, _: m.count_threads(agent_id="small-agent")),
    "list_jobs page": (None, lambda m, _: m.list_jobs(limit=5)),
    "list_jobs thread": (None, lambda m, _: m.list_jobs(thread_id="t-small")),
    "list_users page": (None, lambda m, _: m.list_users(limit=5, offset=10)),
    "delete_thread": (_new_thread, lambda m, thread_id: m.delete_thread(thread_id)),
    "delete_agent": (_new_agent, lambda m, agent: m.delete_agent(agent)),
}


def _steps(memory: GraphMemory, name: str) -> int:
    setup, call = CALLS[name]
    argument = setup(memory) if setup else None
    call(memory, argument)  # warm: the vector copy and word counts are loaded
    argument = setup(memory) if setup else None
    return _counted(memory, lambda: call(memory, argument))


def _counted(memory: GraphMemory, run: Callable[[], Any]) -> int:
    """The SQLite virtual machine steps that ``run()`` takes."""
    conn = memory._store._conn  # type: ignore[attr-defined]
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(count, 1)
    try:
        run()
    finally:
        conn.set_progress_handler(None, 0)
    return steps[0]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_work_grows_with_the_result_not_with_the_store(
    stores: dict[int, GraphMemory], name: str
) -> None:
    small, big = (_steps(stores[n], name) for n in SIZES)
    # a read of every row would take about 4 times the steps on the bigger store
    assert big <= 1.3 * small + 50, (small, big)


@pytest.fixture(scope="module")
def long_threads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, GraphMemory]]:
    """A store per size, each with one thread of that many messages."""
    folder = tmp_path_factory.mktemp("threads")
    built = {}
    for n in SIZES:
        memory = GraphMemory(folder / f"t{n}.db", embedder=HashingEmbedder(dim=8))
        thread = memory.create_thread(
            "long",
            enable_context_summary=False,
            memory_extraction_config={"extract_memories": False},
        )
        thread.add_messages([{"role": "user", "content": f"said {i}"} for i in range(n)])
        built[n] = memory
    yield built
    for memory in built.values():
        memory.close()


def _window_at(memory: GraphMemory, upto: int) -> list[str]:
    info = memory.get_thread("long").info()
    config = MemoryExtractionConfig().model_dump(mode="json")
    window = _window(memory, ExtractionRequest("j", "long", config, upto=upto), info)
    return [m.content for m in window]


@pytest.mark.parametrize("mark", ["last", "middle"])
def test_an_extraction_window_reads_the_window_not_the_thread(
    long_threads: dict[int, GraphMemory], mark: str
) -> None:
    """A job's window (the 10 messages before its mark) costs the same in a thread
    four times longer, wherever the mark is."""
    steps = []
    for n, memory in long_threads.items():
        upto = n if mark == "last" else n // 2
        assert _window_at(memory, upto) == [f"said {i}" for i in range(upto - 10, upto)]
        steps.append(_counted(memory, lambda m=memory, u=upto: _window_at(m, u)))
    small, big = steps
    assert big <= 1.3 * small + 50, (small, big)


def _last_messages(memory: GraphMemory, start: int, end: int | None) -> list[str]:
    return [m.content for m in memory.get_thread("long").get_messages(start, end)]


@pytest.mark.parametrize(("start", "end"), [(-5, None), (-5, -2), (-1, None)])
def test_the_last_messages_read_the_tail_not_the_thread(
    long_threads: dict[int, GraphMemory], start: int, end: int | None
) -> None:
    """``get_messages(-n)`` (a card's recent messages) reads backwards from the end."""
    steps = []
    for n, memory in long_threads.items():
        assert _last_messages(memory, start, end) == [f"said {i}" for i in range(n)][start:end]
        steps.append(_counted(memory, lambda m=memory: _last_messages(m, start, end)))
    small, big = steps
    assert big <= 1.3 * small + 50, (small, big)


@pytest.mark.parametrize("except_last", [0, 3])
def test_a_summary_reads_what_it_shows_not_the_thread(
    long_threads: dict[int, GraphMemory], except_last: int
) -> None:
    """``get_summary`` (the stored one, or the last few messages without an LLM)."""
    steps = []
    for n, memory in long_threads.items():
        thread = memory.get_thread("long")
        summary = thread.get_summary(except_last)
        assert f"said {n - 1 - except_last}" in summary
        assert f"said {n - except_last}" not in summary
        steps.append(_counted(memory, lambda t=thread: t.get_summary(except_last)))
    small, big = steps
    assert big <= 1.3 * small + 50, (small, big)
