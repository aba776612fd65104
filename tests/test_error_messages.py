"""Error messages read as graphmem's, never as Python's or the driver's.

An InvalidArgumentError names the argument once, in the caller's words (the
keyword, or ``memories[i].keyword`` in a batch); a ConflictError says which id or
link already exists, whichever constraint caught it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pytest

from graphmem import (
    ConflictError,
    GraphMemError,
    GraphMemory,
    InvalidArgumentError,
    SearchResultFormatConfig,
)

Call = Callable[[GraphMemory], object]
INTERNALS = re.compile(
    r"positional argument|keyword argument|has no attribute|is not iterable|"
    r"not subscriptable|unhashable|truth value of an array|_new_link|_new_memory|"
    r"constraint failed|UNIQUE|FOREIGN KEY|ORA-\d|graphmem: |violates"
)


@pytest.fixture
def store(memory: GraphMemory) -> GraphMemory:
    """old (invalid, superseded by new); tea (valid); link r1 new -supersedes-> old."""
    memory.add_memory("old tea", memory_id="old")
    memory.add_memory("new tea", memory_id="new")
    memory.add_memory("green tea", memory_id="tea")
    memory.link_records("new", "memory", "old", "memory", "supersedes", relation_id="r1")
    return memory


def _link(**item: Any) -> dict[str, Any]:
    base = {
        "source_record_id": "tea",
        "source_record_type": "memory",
        "target_record_id": "new",
        "target_record_type": "memory",
        "relation_type": "supports",
    }
    return {**base, **item}


def _readable(error: GraphMemError) -> str:
    text = str(error)
    assert not INTERNALS.search(text), text
    if isinstance(error, InvalidArgumentError):
        assert text.startswith(f"{error.argument}: ")
        keyword = re.split(r"[.\]]", error.argument)[-1]
        assert text.count(f"{keyword}:") == 1, text
    return text


# 7. arguments: named once, in the caller's words --------------------------------

ARRAY = np.array(["fact", "memory"])
INVALID: dict[str, tuple[Call, str]] = {
    "memory_type_array": (lambda m: m.add_memory("x", memory_type=ARRAY), "memory_type"),
    "memory_type_array_of_one": (
        lambda m: m.add_memory("x", memory_type=np.array(["fact"])),
        "memory_type",
    ),
    "batch_memory_type_array": (
        lambda m: m.add_memories([{"content": "x", "memory_type": ARRAY}]),
        "memories[0].memory_type",
    ),
    "batch_memory_type": (
        lambda m: m.add_memories([{"content": "x"}, {"content": "y", "memory_type": "bad"}]),
        "memories[1].memory_type",
    ),
    "batch_content": (lambda m: m.add_memories([{"content": " "}]), "memories[0].content"),
    "batch_timestamp": (
        lambda m: m.add_memories([{"content": "x", "timestamp": "yesterday"}]),
        "memories[0].timestamp",
    ),
    "list_include_invalid_array": (
        lambda m: m.list_memories(include_invalid_results=np.array([True, False])),
        "include_invalid_results",
    ),
    "search_include_invalid_array": (
        lambda m: m.search("tea", include_invalid_results=np.array([True, False])),
        "include_invalid_results",
    ),
    "search_include_invalid_text": (
        lambda m: m.search("tea", include_invalid_results="no"),
        "include_invalid_results",
    ),
    "search_record_types_array": (
        lambda m: m.search("tea", record_types=np.array([["fact"]])),
        "record_types",
    ),
    "search_record_types_scalar_array": (
        lambda m: m.search("tea", record_types=np.array("fact")),
        "record_types",
    ),
    "link_endpoint_type_array": (
        lambda m: m.link_records("tea", ARRAY, "new", "memory", "supports"),
        "source_record_type",
    ),
    "link_opposite_array": (
        lambda m: m.link_records("tea", "memory", "new", "memory", "supports", ARRAY),
        "opposite_relation_type",
    ),
    "update_link_opposite_array": (
        lambda m: m.update_record_link("r1", opposite_relation_type=ARRAY),
        "opposite_relation_type",
    ),
    "links_empty_item": (lambda m: m.add_record_links([{}]), "links[0]"),
    "links_missing_relation_type": (
        lambda m: m.add_record_links(
            [_link(), {k: v for k, v in _link().items() if k != "relation_type"}]
        ),
        "links[1]",
    ),
    "links_bad_relation_type": (
        lambda m: m.add_record_links([_link(relation_type=" ")]),
        "links[0].relation_type",
    ),
    "links_bad_timestamp": (
        lambda m: m.add_record_links([_link(), _link(timestamp="soon", target_record_id="old")]),
        "links[1].timestamp",
    ),
}


@pytest.mark.parametrize("case", list(INVALID.values()), ids=list(INVALID))
def test_messages_invalid_argument_named_once(store: GraphMemory, dump, case) -> None:
    call, argument = case
    before = dump(store)
    with pytest.raises(InvalidArgumentError) as info:
        call(store)
    assert info.value.argument == argument
    _readable(info.value)
    assert dump(store) == before


def test_messages_batch_names_item_and_keyword_once(store: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        store.add_memories([{"content": "x", "memory_type": "bad"}])
    assert str(info.value) == (
        "memories[0].memory_type: must be one of memory, fact, preference, guideline; got 'bad'"
    )


def test_messages_links_missing_keys_listed(store: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        store.add_record_links([{"source_record_id": "tea", "relation_type": "supports"}])
    assert str(info.value) == (
        "links[0]: missing keys 'source_record_type', 'target_record_id', 'target_record_type'"
    )


@pytest.mark.parametrize("config", [-1, 0, "show_distance", {"show_distance": True}, False])
def test_messages_format_content_config_checked(store: GraphMemory, config: Any) -> None:
    result = store.search("tea")[0]
    with pytest.raises(InvalidArgumentError) as info:
        result.format_content(config)
    assert info.value.argument == "config"
    _readable(info.value)


def test_messages_format_content_none_is_default(store: GraphMemory) -> None:
    result = store.search("tea")[0]
    assert result.format_content(None) == result.format_content(SearchResultFormatConfig())


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_messages_include_invalid_accepts_bools(store: GraphMemory, flag: Any) -> None:
    listed = {m.id for m in store.list_memories(include_invalid_results=flag)}
    assert ("old" in listed) is bool(flag)


# 8. conflicts: say which id or link exists, never the driver's text ----------------

CONFLICTS: dict[str, tuple[Call, str]] = {
    "memory_id_of_invalid_memory": (
        lambda m: m.add_memory("again", memory_id="old"),
        "memory_id 'old' already exists",
    ),
    "memory_id_of_valid_memory": (
        lambda m: m.add_memory("again", memory_id="new"),
        "memory_id 'new' already exists",
    ),
    "batch_memory_id_stored": (
        lambda m: m.add_memories(
            [{"content": "x", "memory_id": "x"}, {"content": "y", "memory_id": "old"}]
        ),
        "memories[1]: memory_id 'old' already exists",
    ),
    "batch_memory_id_twice": (
        lambda m: m.add_memories(
            [{"content": "x", "memory_id": "x"}, {"content": "y", "memory_id": "x"}]
        ),
        "memories[1]: memory_id 'x' already exists in memories[0]",
    ),
    "relation_id_stored": (
        lambda m: m.link_records("tea", "memory", "new", "memory", "supports", relation_id="r1"),
        "relation_id: 'r1' already exists",
    ),
    "batch_relation_id_stored": (
        lambda m: m.add_record_links([_link(relation_id="r1")]),
        "links[0].relation_id: 'r1' already exists",
    ),
    "batch_relation_id_twice": (
        lambda m: m.add_record_links(
            [_link(relation_id="x"), _link(relation_id="x", target_record_id="old")]
        ),
        "links[1].relation_id: 'x' already exists in links[0]",
    ),
    "batch_link_stored": (
        lambda m: m.add_record_links(
            [
                _link(),
                _link(source_record_id="new", target_record_id="old", relation_type="supersedes"),
            ]
        ),
        "links[1].relation_type: a 'supersedes' link between 'new' and 'old' already exists ('r1')",
    ),
    "batch_link_stored_reversed": (
        lambda m: m.add_record_links(
            [_link(source_record_id="old", target_record_id="new", relation_type="supersedes")]
        ),
        "links[0].relation_type: a 'supersedes' link between 'old' and 'new' already exists ('r1')",
    ),
    "batch_link_twice": (
        lambda m: m.add_record_links([_link(), _link()]),
        "links[1].relation_type: a 'supports' link between 'tea' and 'new' already exists "
        "in links[0]",
    ),
    "batch_link_twice_reversed": (
        lambda m: m.add_record_links(
            [_link(), _link(source_record_id="new", target_record_id="tea")]
        ),
        "links[1].relation_type: a 'supports' link between 'new' and 'tea' already exists "
        "in links[0]",
    ),
}


@pytest.mark.parametrize("case", list(CONFLICTS.values()), ids=list(CONFLICTS))
def test_messages_conflict_names_what_exists(store: GraphMemory, dump, case) -> None:
    call, expected = case
    before = dump(store)
    with pytest.raises(ConflictError) as info:
        call(store)
    assert _readable(info.value).startswith(expected)
    assert dump(store) == before


def test_messages_store_constraint_conflict_has_no_driver_text(store: GraphMemory) -> None:
    """What a concurrent writer would meet past graphmem's checks: the store's constraint."""
    from graphmem.stores.base import NewMemory

    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    duplicate = NewMemory(
        "new", "memory", "x", None, None, None, {}, None, now, None,
        np.ones(384, dtype=np.float32),
    )  # fmt: skip
    with pytest.raises(ConflictError) as info:
        store._store.insert_memory(duplicate)
    _readable(info.value)
    assert "UNIQUE" in str(info.value.__cause__)  # the driver's text stays on the cause
