"""The conformance suite and the state machine against a live Oracle AI Database.

Runs only when ``GRAPHMEM_ORACLE_DSN`` names a server (``user/password@host:port/service``,
e.g. the docker-compose.yml service: ``graphmem/graphmem@localhost:1521/FREEPDB1``).
Every store gets a unique ``memory_store_id`` and is uninstalled after its test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

DSN = os.environ.get("GRAPHMEM_ORACLE_DSN", "")
if not DSN:
    pytest.skip(
        "GRAPHMEM_ORACLE_DSN is not set: no Oracle server to test against",
        allow_module_level=True,
    )

pytest.importorskip("oracledb", reason="python-oracledb is not installed")
conformance = pytest.importorskip("graphmem.testing.conformance")
machine = pytest.importorskip("graphmem.testing.machine")

from graphmem import GraphMemory  # noqa: E402
from graphmem.stores.oracle import OracleStore  # noqa: E402


def _store_id() -> str:
    return f"gm{uuid.uuid4().hex[:16]}"


def _uninstall(store_id: str) -> None:
    """Drop a test store's objects from a fresh session (the test's sessions are closed)."""
    store = OracleStore(DSN, store_id)
    try:
        store.uninstall()
    finally:
        store.close()


class TestOracleConformance(conformance.StoreConformance):
    """Every conformance test, each store in its own prefix, dropped afterwards."""

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        store_id = _store_id()
        self.__dict__.setdefault("oracle_store_ids", []).append(store_id)
        return GraphMemory(DSN, memory_store_id=store_id, clock=clock)

    def teardown_method(self, method: Any = None) -> None:
        super().teardown_method(method)
        for store_id in self.__dict__.pop("oracle_store_ids", []):
            _uninstall(store_id)


class OracleMachine(machine.GraphMemoryMachine):
    """The state machine with an Oracle store per run."""

    def make_memory(self) -> GraphMemory:
        self.store_id = _store_id()
        return GraphMemory(DSN, memory_store_id=self.store_id, clock=self.clock)

    def teardown(self) -> None:
        super().teardown()
        _uninstall(self.store_id)


TestOracleMachine = OracleMachine.TestCase
