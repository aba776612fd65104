"""A GraphMemory handle: a context manager, and unusable (clearly) once closed."""

from __future__ import annotations

import asyncio
import gc
import inspect
import io
import subprocess
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem import GraphMemError, GraphMemory, HashingEmbedder

Call = Callable[[GraphMemory], object]

_LINK = ("a", "memory", "b", "memory", "supports")
_REFINES = {
    "source_record_id": "b",
    "source_record_type": "memory",
    "target_record_id": "a",
    "target_record_type": "memory",
    "relation_type": "refines",
}
_LINE = b'{"kind": "memory", "memory_id": "n", "content": "new"}\n'
# One call per public method, with arguments that would succeed on an open handle.
CALLS: dict[str, Call] = {
    "add_memory": lambda m: m.add_memory("new", memory_id="n"),
    "add_memories": lambda m: m.add_memories([{"content": "new", "memory_id": "n"}]),
    "get_memory": lambda m: m.get_memory("a"),
    "list_memories": lambda m: m.list_memories(),
    "update_memory": lambda m: m.update_memory("a", content="changed"),
    "delete_memory": lambda m: m.delete_memory("a"),
    "search": lambda m: m.search("tea", num_hops=1),
    "link_records": lambda m: m.link_records("b", "memory", "a", "memory", "refines"),
    "add_record_links": lambda m: m.add_record_links([_REFINES]),
    "get_record_link": lambda m: m.get_record_link("r1"),
    "update_record_link": lambda m: m.update_record_link("r1", metadata={"x": 1}),
    "delete_record_link": lambda m: m.delete_record_link("r1"),
    "list_record_links": lambda m: m.list_record_links(),
    "count_record_links": lambda m: m.count_record_links("a"),
    "tree": lambda m: m.tree("a", 1),
    "explain_invalid": lambda m: m.explain_invalid("a"),
    "history": lambda m: m.history("a"),
    "subgraph": lambda m: m.subgraph(["a"], 1),
    "stats": lambda m: m.stats(),
    "to_networkx": lambda m: m.to_networkx(),
    "export_jsonl": lambda m: m.export_jsonl(io.StringIO()),
    "import_jsonl": lambda m: m.import_jsonl(io.BytesIO(_LINE)),
    "create_prompt": lambda m: m.create_prompt("p2", "Extract dates.", "dates"),
    "update_prompt": lambda m: m.update_prompt("p", prompt="Extract amounts."),
    "get_prompt": lambda m: m.get_prompt("p"),
    "list_prompts": lambda m: m.list_prompts(),
    "list_prompt_versions": lambda m: m.list_prompt_versions("p"),
    "resolve_prompt": lambda m: m.resolve_prompt("p"),
    "archive_prompt": lambda m: m.archive_prompt("p"),
    "purge_prompt": lambda m: m.purge_prompt("p"),
    "create_thread": lambda m: m.create_thread("t2"),
    "get_thread": lambda m: m.get_thread("t"),
    "list_threads": lambda m: m.list_threads(),
    "count_threads": lambda m: m.count_threads(user_id="u"),
    "update_thread": lambda m: m.update_thread("t", metadata={"x": 1}),
    "delete_thread": lambda m: m.delete_thread("t"),
    "add_user": lambda m: m.add_user("u2"),
    "list_users": lambda m: m.list_users(),
    "count_users": lambda m: m.count_users(),
    "delete_user": lambda m: m.delete_user("u"),
    "add_agent": lambda m: m.add_agent("g2"),
    "list_agents": lambda m: m.list_agents(),
    "delete_agent": lambda m: m.delete_agent("g"),
    "list_jobs": lambda m: m.list_jobs(),
    "get_job": lambda m: m.get_job("j"),
    "retry_job": lambda m: m.retry_job("j"),
    "run_jobs": lambda m: m.run_jobs(),
}
# The same calls with a bad argument: a closed handle says so before checking arguments.
BAD_CALLS: dict[str, Call] = {
    "add_memory": lambda m: m.add_memory(""),
    "add_memories": lambda m: m.add_memories(None),  # type: ignore[arg-type]
    "get_memory": lambda m: m.get_memory(""),
    "list_memories": lambda m: m.list_memories(limit=0),
    "update_memory": lambda m: m.update_memory(""),
    "delete_memory": lambda m: m.delete_memory(""),
    "search": lambda m: m.search(""),
    "link_records": lambda m: m.link_records("a", "memory", "a", "memory", "supports"),
    "add_record_links": lambda m: m.add_record_links([{}]),
    "get_record_link": lambda m: m.get_record_link(""),
    "update_record_link": lambda m: m.update_record_link(""),
    "delete_record_link": lambda m: m.delete_record_link(),
    "list_record_links": lambda m: m.list_record_links(""),
    "count_record_links": lambda m: m.count_record_links(""),
    "tree": lambda m: m.tree("", -1),
    "explain_invalid": lambda m: m.explain_invalid(""),
    "history": lambda m: m.history(""),
    "subgraph": lambda m: m.subgraph([""], -1),
    "stats": lambda m: m.stats(),  # no argument to get wrong
    "to_networkx": lambda m: m.to_networkx(),  # likewise
    "export_jsonl": lambda m: m.export_jsonl(None),  # type: ignore[arg-type]
    "import_jsonl": lambda m: m.import_jsonl(None),  # type: ignore[arg-type]
    "create_prompt": lambda m: m.create_prompt("default", "Extract dates.", "dates"),
    "update_prompt": lambda m: m.update_prompt("p"),
    "get_prompt": lambda m: m.get_prompt("p", vid=-1),
    "list_prompts": lambda m: m.list_prompts(limit=0),
    "list_prompt_versions": lambda m: m.list_prompt_versions("p", offset=-1),
    "resolve_prompt": lambda m: m.resolve_prompt("bad id"),
    "archive_prompt": lambda m: m.archive_prompt("p", vid="some"),
    "purge_prompt": lambda m: m.purge_prompt("p", vid=-2),
    "create_thread": lambda m: m.create_thread(""),
    "get_thread": lambda m: m.get_thread(""),
    "list_threads": lambda m: m.list_threads(limit=0),
    "count_threads": lambda m: m.count_threads(user_id=""),
    "update_thread": lambda m: m.update_thread("", bogus=1),
    "delete_thread": lambda m: m.delete_thread(""),
    "add_user": lambda m: m.add_user(""),
    "list_users": lambda m: m.list_users(limit=0),
    "count_users": lambda m: m.count_users(),  # no argument to get wrong
    "delete_user": lambda m: m.delete_user(""),
    "add_agent": lambda m: m.add_agent(""),
    "list_agents": lambda m: m.list_agents(offset=-1),
    "delete_agent": lambda m: m.delete_agent(""),
    "list_jobs": lambda m: m.list_jobs(status="bogus"),
    "get_job": lambda m: m.get_job(""),
    "retry_job": lambda m: m.retry_job(""),
    "run_jobs": lambda m: m.run_jobs(max_jobs=0),
}


def _public_methods() -> set[str]:
    return {
        name
        for name, member in inspect.getmembers(GraphMemory, inspect.isfunction)
        if not name.startswith("_")
    } - {"close", "close_async"}


def _sync_methods() -> set[str]:
    return {name for name in _public_methods() if not name.endswith("_async")}


class _AsyncTwins:
    """Calls ``memory.x(...)`` as ``asyncio.run(memory.x_async(...))``."""

    def __init__(self, memory: GraphMemory) -> None:
        self._memory = memory

    def __getattr__(self, name: str) -> Callable[..., object]:
        twin = getattr(self._memory, f"{name}_async")
        return lambda *args, **kwargs: asyncio.run(twin(*args, **kwargs))


class _Counting(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=16)
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return super().embed(texts)


@pytest.fixture
def closed(tmp_path: Path) -> GraphMemory:
    memory = GraphMemory(tmp_path / "h.db", embedder=_Counting())
    memory.add_memory("tea", memory_id="a")
    memory.add_memory("more tea", memory_id="b")
    memory.link_records(*_LINK, relation_id="r1")
    memory.create_prompt("p", "Extract dates.", "dates")
    memory.create_thread("t")
    memory.add_user("u")
    memory.add_agent("g")
    memory.close()
    return memory


def test_handle_calls_cover_every_public_method() -> None:
    assert set(CALLS) == _sync_methods()
    assert set(BAD_CALLS) == _sync_methods()
    assert {f"{name}_async" for name in CALLS} == _public_methods() - _sync_methods()


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_handle_closed_async_twin_raises_closed(closed: GraphMemory, call: Call) -> None:
    with pytest.raises(GraphMemError, match="closed"):
        call(_AsyncTwins(closed))  # type: ignore[arg-type]


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_handle_closed_method_raises_closed(closed: GraphMemory, call: Call) -> None:
    with pytest.raises(GraphMemError, match="closed"):
        call(closed)


@pytest.mark.parametrize("call", list(BAD_CALLS.values()), ids=list(BAD_CALLS))
def test_handle_closed_checked_before_arguments(closed: GraphMemory, call: Call) -> None:
    with pytest.raises(GraphMemError, match="closed"):
        call(closed)


def test_handle_closed_error_is_exported(closed: GraphMemory) -> None:
    from graphmem import ClosedError

    with pytest.raises(ClosedError, match="this GraphMemory is closed"):
        closed.list_memories()


def test_handle_closed_search_does_not_embed(closed: GraphMemory) -> None:
    embedder = closed.embedder
    assert isinstance(embedder, _Counting)
    before = embedder.calls
    for call in (CALLS["search"], CALLS["add_memory"], CALLS["update_memory"]):
        with pytest.raises(GraphMemError):
            call(closed)
    assert embedder.calls == before


def test_handle_close_twice_is_harmless(closed: GraphMemory) -> None:
    closed.close()
    assert closed.closed


def test_handle_context_manager_closes_on_exit(tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "h.db") as memory:
        memory.add_memory("tea", memory_id="a")
        assert not memory.closed
    assert memory.closed
    with pytest.raises(GraphMemError, match="closed"):
        memory.get_memory("a")


def test_handle_context_manager_closes_on_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), GraphMemory(tmp_path / "h.db") as memory:
        raise RuntimeError("inside")
    assert memory.closed


def test_handle_closed_cannot_be_entered_again(closed: GraphMemory) -> None:
    with pytest.raises(GraphMemError, match="closed"), closed:
        pass


def test_handle_closed_keeps_the_data(closed: GraphMemory, tmp_path: Path) -> None:
    with GraphMemory(tmp_path / "h.db", embedder=_Counting()) as reopened:
        assert [m.id for m in reopened.list_memories()] == ["a", "b"]


def _handle(path: Path) -> GraphMemory:
    memory = GraphMemory(path, embedder=HashingEmbedder(dim=16), extraction_workers=0)
    memory.add_memory("tea", memory_id="a")
    return memory


def test_handle_collected_unclosed_warns(tmp_path: Path) -> None:
    memory = _handle(tmp_path / "left.db")
    with pytest.warns(ResourceWarning, match=r"unclosed GraphMemory on '.*left\.db'"):
        del memory
        gc.collect()
    assert not Path(f"{tmp_path / 'left.db'}-wal").exists()  # and the file closed


def test_handle_closed_or_entered_does_not_warn(tmp_path: Path) -> None:
    async def entered_async() -> None:
        async with _handle(tmp_path / "d.db"):
            pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _handle(tmp_path / "a.db").close()
        with _handle(tmp_path / "b.db"):
            pass
        asyncio.run(_handle(tmp_path / "c.db").close_async())
        asyncio.run(entered_async())
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


_OPEN_AT_EXIT = """
import gc, sys
from graphmem import GraphMemory, HashingEmbedder
def handle(path):
    memory = GraphMemory(path, embedder=HashingEmbedder(dim=16), extraction_workers=0)
    memory.add_memory("tea", memory_id="a")
    return memory
dropped = handle(sys.argv[1])
del dropped
gc.collect()
kept = handle(sys.argv[2])  # open until the program exits
"""


def test_handle_open_at_exit_is_closed_without_warning(tmp_path: Path) -> None:
    dropped, kept = tmp_path / "dropped.db", tmp_path / "kept.db"
    command = [sys.executable, "-W", "always::ResourceWarning", "-c", _OPEN_AT_EXIT]
    done = subprocess.run(
        [*command, str(dropped), str(kept)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("unclosed GraphMemory") == 1, done.stderr  # the dropped one
    assert "dropped.db" in done.stderr and "kept.db" not in done.stderr
    assert not Path(f"{kept}-wal").exists()  # closed at exit
