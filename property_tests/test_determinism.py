"""The same search on the same data gives the same output: twice in a row, and
after closing and reopening the SQLite file."""

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphmem import GraphMemory, SearchResult, SearchResultFormatConfig
from graphmem.testing.model import ManualClock
from graphmem.testing.strategies import GraphSpec, SearchArgs, graphs, load_graph, search_args

_SHOW_ALL = SearchResultFormatConfig(
    show_thread_id=True,
    show_distance=True,
    show_user_id=True,
    show_agent_id=True,
    show_metadata=True,
)


def _output(results: list[SearchResult]) -> list[Any]:
    return [(r.model_dump(), r.format_content(), r.format_content(_SHOW_ALL)) for r in results]


def _search(memory: GraphMemory, args: SearchArgs, num_hops: int, cap: int | None) -> list[Any]:
    return _output(
        memory.search(
            "pizza crust",
            **args.kwargs(),
            max_results=5,
            num_hops=num_hops,
            max_linked_results=cap,
            include_invalid_results=False,
        )
    )


@given(
    spec=graphs(), args=search_args(), num_hops=st.integers(0, 5), cap=st.none() | st.integers(0, 6)
)
def test_determinism_same_call_same_output(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None
) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        load_graph(memory, clock, spec)
        assert _search(memory, args, num_hops, cap) == _search(memory, args, num_hops, cap)


@given(
    spec=graphs(), args=search_args(), num_hops=st.integers(0, 5), cap=st.none() | st.integers(0, 6)
)
def test_determinism_survives_reopening_the_file(
    spec: GraphSpec, args: SearchArgs, num_hops: int, cap: int | None
) -> None:
    clock = ManualClock()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memory.db"
        with GraphMemory(path, clock=clock) as memory:
            load_graph(memory, clock, spec)
            before = _search(memory, args, num_hops, cap)
        with GraphMemory(path, clock=clock) as memory:
            assert _search(memory, args, num_hops, cap) == before
