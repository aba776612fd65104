"""The conformance suite on the SQLite store, in a file and in ``:memory:``."""

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.testing.conformance import StoreConformance


class TestSqliteMemoryStore(StoreConformance):
    """``GraphMemory(":memory:")``."""

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        return GraphMemory(":memory:", clock=clock)


class TestSqliteFileStore(StoreConformance):
    """``GraphMemory(path)``: a new file per store, in the test's tmp_path."""

    tmp_path: Path

    @pytest.fixture(autouse=True)
    def _use_tmp_path(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        index = len(list(self.tmp_path.glob("store-*.db")))
        return GraphMemory(self.tmp_path / f"store-{index}.db", clock=clock)
