"""Fixtures for thread tests: a GraphMemory on each store (SQLite file, in-memory store),
and a stack closing the handles a test opens itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.testing.memory_store import MemoryStore


@pytest.fixture(params=["sqlite", "memory"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphMemory]:
    connection: object = tmp_path / "t.db" if request.param == "sqlite" else MemoryStore()
    with GraphMemory(connection, embedder=HashingEmbedder(dim=32)) as opened:
        yield opened


@pytest.fixture
def handles() -> Iterator[ExitStack]:
    """``handles.enter_context(GraphMemory(...))``: closed when the test ends."""
    with ExitStack() as stack:
        yield stack
