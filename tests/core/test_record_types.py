"""The record-type registry, and that no statement depends on the set of types."""

import json
from importlib.resources import files

import pytest

from graphmem.core.record_types import LINKABLE_TYPES, MEMORY_TYPES, RECORD_TYPES, record_type
from graphmem.core.validation import SearchFilters


def test_record_types_memory_like_and_linkable() -> None:
    assert MEMORY_TYPES == ("memory", "fact", "preference", "guideline")
    assert LINKABLE_TYPES == MEMORY_TYPES
    message = record_type("message")
    assert message is not None and not message.memory_like and not message.linkable
    assert message.thread_scoped


def test_record_types_names_are_unique() -> None:
    names = [t.name for t in RECORD_TYPES]
    assert len(names) == len(set(names))


def test_record_types_filter_is_one_json_bind() -> None:
    binds = SearchFilters(record_types=("fact", "guideline")).binds()
    assert json.loads(binds["record_types"]) == ["fact", "guideline"]
    assert json.loads(SearchFilters().binds()["record_types"]) == list(MEMORY_TYPES)
    assert not [name for name in binds if name.startswith("record_type_")]


@pytest.mark.parametrize("dialect", ["sqlite", "oracle", "pgq"])
def test_record_types_no_statement_lists_them(dialect: str) -> None:
    for entry in files("graphmem").joinpath("sql", dialect).iterdir():
        if not entry.name.endswith(".sql") or entry.name.startswith(("install", "uninstall")):
            continue
        text = entry.read_text(encoding="utf-8")
        assert ":record_type_" not in text, entry.name
        for name in MEMORY_TYPES:
            assert f"'{name}'" not in text, (entry.name, name)
