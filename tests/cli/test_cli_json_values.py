"""JSON option values that json.loads refuses without a JSONDecodeError (nested too
deeply, a number too long): a usage error, or text for --where, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import GraphMemory

DEEP = "[" * 5000 + "]" * 5000
LONG_NUMBER = "9" * 5000


@pytest.mark.parametrize("value", [DEEP, '{"a": ' + DEEP + "}", '{"a": ' + LONG_NUMBER + "}"])
def test_metadata_that_cannot_be_parsed_is_a_usage_error(graphmem, value: str) -> None:
    run = graphmem("add", "a", "--metadata", value)
    assert run.code == 2
    assert "--metadata: is not JSON" in run.err and "Traceback" not in run.err


@pytest.mark.parametrize("value", [DEEP, LONG_NUMBER])
def test_where_value_that_cannot_be_parsed_is_text(graphmem, pizza_db: Path, value: str) -> None:
    with GraphMemory(pizza_db) as memory:
        memory.add_memory("tagged", memory_id="t", metadata={"k": value})
    run = graphmem("list", "--where", f"k={value}", "--json")
    assert run.code == 0 and "Traceback" not in run.err, run.err
    assert [r["id"] for r in run.json()["items"]] == ["t"]
