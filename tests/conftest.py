"""Shared fixtures: a fresh store per test, clocks the test controls, and a store dump.

Helpers that tests need as functions (``dump``, ``raw_dump``, ``statuses``,
``pizza``) are fixtures returning callables, so test modules never import
this file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.sqlfiles import object_prefix

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
PIZZA_USER = "graph-demo-user"
PIZZA = {
    "pizza-thin-crust": "The user's preferred pizza style is thin crust.",
    "pizza-sourdough": "The user now prefers sourdough pizza.",
    "pizza-neapolitan-sourdough": (
        "The user's preferred pizza style is sourdough, especially Neapolitan sourdough."
    ),
}


@dataclass
class Clock:
    """A clock the test drives: each call returns ``now`` then adds ``step``."""

    now: datetime = START
    step: timedelta = field(default_factory=timedelta)

    def __call__(self) -> datetime:
        current = self.now
        self.now = current + self.step
        return current

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def memory(db_path: Path) -> Iterator[GraphMemory]:
    """A fresh file store with the real clock."""
    with GraphMemory(db_path) as store:
        yield store


@pytest.fixture
def clock() -> Clock:
    """Starts at 2026-01-01 UTC and moves one second per call (strict creation order)."""
    return Clock(step=timedelta(seconds=1))


@pytest.fixture
def clocked_memory(db_path: Path, clock: Clock) -> Iterator[GraphMemory]:
    with GraphMemory(db_path, clock=clock) as store:
        yield store


@pytest.fixture
def pinned_clock() -> Clock:
    """Always 2026-01-01 UTC unless the test advances it (equal created_at everywhere)."""
    return Clock()


@pytest.fixture
def pinned_memory(db_path: Path, pinned_clock: Clock) -> Iterator[GraphMemory]:
    with GraphMemory(db_path, clock=pinned_clock) as store:
        yield store


@pytest.fixture(params=["foreign_keys_on", "foreign_keys_off"])
def dba(
    db_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[[], sqlite3.Connection]]:
    """Open the store's file as a DBA would: stdlib sqlite3, with foreign keys turned
    on, and as a stock connection leaves them (off); every DBA test runs both ways."""
    opened: list[sqlite3.Connection] = []
    foreign_keys = "ON" if request.param == "foreign_keys_on" else "OFF"

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(db_path, isolation_level=None)
        conn.execute(f"PRAGMA foreign_keys = {foreign_keys}")
        opened.append(conn)
        return conn

    yield connect
    for conn in opened:
        conn.close()


def _api_dump(store: GraphMemory) -> dict[str, Any]:
    return {
        "memories": [
            m.model_dump() for m in store.list_memories(include_invalid_results=True, limit=10**6)
        ],
        "links": [link.model_dump() for link in store.list_record_links()],
    }


@pytest.fixture
def dump() -> Callable[[GraphMemory], dict[str, Any]]:
    """Everything the API shows: memories (with status and reasons) and links."""
    return _api_dump


@pytest.fixture
def raw_dump(db_path: Path) -> Callable[[str], dict[str, list[tuple[Any, ...]]]]:
    """Every row of a store's tables, read through a separate connection."""

    def read(prefix: str = "graphmem") -> dict[str, list[tuple[Any, ...]]]:
        conn = sqlite3.connect(db_path)
        try:
            return {
                table: conn.execute(
                    f"SELECT * FROM {object_prefix(prefix)}{table} ORDER BY 1"
                ).fetchall()
                for table in ("meta", "memory", "link")
            }
        finally:
            conn.close()

    return read


@pytest.fixture
def statuses() -> Callable[[GraphMemory], dict[str, str]]:
    def read(store: GraphMemory) -> dict[str, str]:
        return {
            m.id: m.status for m in store.list_memories(include_invalid_results=True, limit=10**6)
        }

    return read


def add_pizza(store: GraphMemory) -> tuple[str, str, str]:
    """The seed's three pizza preferences, oldest first: thin crust, sourdough, neapolitan."""
    ids = tuple(
        store.add_memory(content, memory_id=record_id, memory_type="preference", user_id=PIZZA_USER)
        for record_id, content in PIZZA.items()
    )
    assert len(ids) == 3
    return ids[0], ids[1], ids[2]


@pytest.fixture
def pizza() -> Callable[[GraphMemory], tuple[str, str, str]]:
    return add_pizza
