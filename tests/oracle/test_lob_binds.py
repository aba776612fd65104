"""Long strings are bound as CLOB on Oracle, without a server.

A string of more than 32,767 bytes bound as plain text can fail (ORA-01461), in
``executemany`` above all, which every memory and message insert uses; content
may be 100,000 characters (about 400 KB of UTF-8). The store then calls
``cursor.setinputsizes(<bind>=DB_TYPE_CLOB)`` for the binds holding such a string,
and only then (plain binds are much faster). The fake python-oracledb of
``test_static`` records each ``setinputsizes`` with the statement that follows.
"""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from graphmem.stores import oracle_session
from graphmem.stores.base import NewMemory, NewMessage
from graphmem.stores.oracle import OracleStore
from graphmem.stores.oracle_session import LONG_STRING_BYTES

from .test_static import FakeConnection, fake_module

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
CJK = "記憶" * 50_000  # 100,000 characters, 300,000 bytes in UTF-8


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    module = fake_module()
    monkeypatch.setattr(oracle_session, "import_oracledb", lambda: module)
    return module


@pytest.fixture
def conn(fake: SimpleNamespace) -> FakeConnection:
    return FakeConnection()


def _memory(record_id: str, content: str, metadata: dict[str, Any] | None = None) -> NewMemory:
    vector = np.array([1.0, 0.0], dtype=np.float32)
    return NewMemory(
        record_id, "memory", content, "u", None, None, metadata or {}, None, NOW, None, vector
    )


def test_lob_binds_long_content_of_a_memory_insert(fake: Any, conn: FakeConnection) -> None:
    OracleStore(conn).insert_memory(_memory("m1", CJK))
    assert conn.input_sizes == [("insert-memory", {"content": fake.DB_TYPE_CLOB})]


def test_lob_binds_a_batch_with_one_long_value(fake: Any, conn: FakeConnection) -> None:
    """executemany binds a column with one type for every row."""
    long_meta = {"note": "x" * (LONG_STRING_BYTES + 1)}
    OracleStore(conn).insert_memories(
        [_memory("m1", "short"), _memory("m2", CJK), _memory("m3", "short", long_meta)]
    )
    clob = fake.DB_TYPE_CLOB
    assert conn.input_sizes == [("insert-memory", {"content": clob, "metadata": clob})]


def test_lob_binds_long_content_of_a_message_insert(fake: Any, conn: FakeConnection) -> None:
    message = NewMessage(
        "x", "t", "user", 0, CJK, "u", None, {}, None, NOW, None, np.ones(2, dtype=np.float32)
    )
    OracleStore(conn).insert_messages([message])
    assert conn.input_sizes == [("insert-message", {"content": fake.DB_TYPE_CLOB})]


def test_lob_binds_long_content_of_an_update(fake: Any, conn: FakeConnection) -> None:
    OracleStore(conn).update_memory("m1", CJK, {}, None, np.ones(2, dtype=np.float32))
    assert conn.input_sizes == [("update-memory", {"content": fake.DB_TYPE_CLOB})]


def test_lob_binds_none_for_short_strings(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    store.insert_memories([_memory("m1", "tea"), _memory("m2", "é" * 8000, {"k": "v"})])
    store.update_memory("m1", "oven", {}, None, np.ones(2, dtype=np.float32))
    assert conn.input_sizes == []


@pytest.mark.parametrize(
    ("content", "lob"),
    [
        ("a" * LONG_STRING_BYTES, False),
        ("a" * (LONG_STRING_BYTES + 1), True),
        ("字" * (LONG_STRING_BYTES // 3), False),  # 32,766 bytes
        ("字" * (LONG_STRING_BYTES // 3 + 1), True),  # 32,769 bytes, 10,923 characters
        ("😀" * (LONG_STRING_BYTES // 4 + 1), True),  # 32,768 bytes, 8,192 characters
    ],
)
def test_lob_binds_start_above_32767_bytes(conn: FakeConnection, content: str, lob: bool) -> None:
    OracleStore(conn).insert_memory(_memory("m1", content))
    assert bool(conn.input_sizes) is lob
