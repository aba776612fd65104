"""SPEC section 5: every rejected call raises the right error and changes nothing."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem import (
    BackendError,
    ConflictError,
    GraphMemError,
    GraphMemory,
    InvalidArgumentError,
    NotFoundError,
    SchemaError,
    SchemaPolicy,
)

Call = Callable[[GraphMemory], object]


@pytest.fixture
def store(clocked_memory: GraphMemory) -> GraphMemory:
    """a (memory) -supersedes-> b (fact) -supports-> c (preference); d unlinked."""
    m = clocked_memory
    m.add_memory("alpha tea", memory_id="a", user_id="u", metadata={"k": "v"})
    m.add_memory("beta tea", memory_id="b", memory_type="fact", user_id="u")
    m.add_memory("gamma tea", memory_id="c", memory_type="preference")
    m.add_memory("delta tea", memory_id="d")
    m.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    m.link_records("b", "fact", "c", "preference", "supports", relation_id="r2")
    return m


@dataclass(frozen=True)
class Case:
    call: Call
    argument: str


def _link(**overrides: Any) -> Call:
    args: dict[str, Any] = {
        "source_record_id": "d",
        "source_record_type": "memory",
        "target_record_id": "c",
        "target_record_type": "preference",
        "relation_type": "supports",
    }
    args.update(overrides)
    return lambda m: m.link_records(**args)


def _triple(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "source_record_id": "a",
        "source_record_type": "memory",
        "target_record_id": "b",
        "target_record_type": "fact",
        "relation_type": "supersedes",
    }
    args.update(overrides)
    return args


LONG = "x" * 129

INVALID: dict[str, Case] = {
    # links
    "self link": Case(_link(target_record_id="d", target_record_type="memory"), "target_record_id"),
    "wrong source type": Case(_link(source_record_type="fact"), "source_record_type"),
    "wrong target type": Case(_link(target_record_type="memory"), "target_record_type"),
    "message source": Case(_link(source_record_type="message"), "source_record_type"),
    "message target": Case(_link(target_record_type="message"), "target_record_type"),
    "custom type without opposite": Case(_link(relation_type="mentions"), "opposite_relation_type"),
    "builtin with other opposite": Case(
        _link(relation_type="supersedes", opposite_relation_type="replaces"),
        "opposite_relation_type",
    ),
    "builtin in upper case": Case(
        _link(relation_type="Supersedes", opposite_relation_type="x"), "relation_type"
    ),
    "empty relation type": Case(_link(relation_type=""), "relation_type"),
    "blank relation type": Case(_link(relation_type="  "), "relation_type"),
    "over-long relation type": Case(
        _link(relation_type="t" * 65, opposite_relation_type="o"), "relation_type"
    ),
    "non-string relation type": Case(_link(relation_type=3), "relation_type"),
    "empty custom opposite": Case(
        _link(relation_type="mentions", opposite_relation_type=""), "opposite_relation_type"
    ),
    "over-long source id": Case(_link(source_record_id=LONG), "source_record_id"),
    "over-long target id": Case(_link(target_record_id=LONG), "target_record_id"),
    "over-long relation id": Case(_link(relation_id=LONG), "relation_id"),
    "empty relation id": Case(_link(relation_id=""), "relation_id"),
    "bad link timestamp": Case(_link(timestamp="not a time"), "timestamp"),
    "link timestamp of wrong type": Case(_link(timestamp=12345), "timestamp"),
    "link metadata with set": Case(_link(metadata={"k": {1, 2}}), "metadata"),
    "link metadata not a mapping": Case(_link(metadata=["k"]), "metadata"),
    # search
    "num_hops 6": Case(lambda m: m.search("tea", num_hops=6), "num_hops"),
    "num_hops -1": Case(lambda m: m.search("tea", num_hops=-1), "num_hops"),
    "num_hops True": Case(lambda m: m.search("tea", num_hops=True), "num_hops"),
    "num_hops float": Case(lambda m: m.search("tea", num_hops=1.0), "num_hops"),
    "num_hops text": Case(lambda m: m.search("tea", num_hops="1"), "num_hops"),
    "max_linked_results -1": Case(
        lambda m: m.search("tea", num_hops=1, max_linked_results=-1), "max_linked_results"
    ),
    "max_linked_results True": Case(
        lambda m: m.search("tea", max_linked_results=True), "max_linked_results"
    ),
    "max_results -1": Case(lambda m: m.search("tea", max_results=-1), "max_results"),
    "max_results float": Case(lambda m: m.search("tea", max_results=2.5), "max_results"),
    "empty query": Case(lambda m: m.search(""), "query"),
    "blank query": Case(lambda m: m.search(" \n"), "query"),
    "query not text": Case(lambda m: m.search(None), "query"),
    "search record_types message": Case(
        lambda m: m.search("tea", record_types=["message"]), "record_types"
    ),
    "search record_types empty": Case(lambda m: m.search("tea", record_types=[]), "record_types"),
    "search record_types unknown": Case(
        lambda m: m.search("tea", record_types=["memory", "bogus"]), "record_types"
    ),
    "search record_types not iterable": Case(
        lambda m: m.search("tea", record_types=5), "record_types"
    ),
    "metadata_filter list value": Case(
        lambda m: m.search("tea", metadata_filter={"k": [1, 2]}), "metadata_filter"
    ),
    "metadata_filter dict value": Case(
        lambda m: m.search("tea", metadata_filter={"k": {"x": 1}}), "metadata_filter"
    ),
    "metadata_filter not a mapping": Case(
        lambda m: m.search("tea", metadata_filter=[("k", "v")]), "metadata_filter"
    ),
    "search over-long user_id": Case(lambda m: m.search("tea", user_id=LONG), "user_id"),
    "search agent_id not text": Case(lambda m: m.search("tea", agent_id=7), "agent_id"),
    "search empty thread_id": Case(lambda m: m.search("tea", thread_id=""), "thread_id"),
    # add_memory
    "empty content": Case(lambda m: m.add_memory(""), "content"),
    "blank content": Case(lambda m: m.add_memory("   \t"), "content"),
    "content not text": Case(lambda m: m.add_memory(b"bytes"), "content"),
    "over-long memory id": Case(lambda m: m.add_memory("x", memory_id=LONG), "memory_id"),
    "empty memory id": Case(lambda m: m.add_memory("x", memory_id=""), "memory_id"),
    "memory id not text": Case(lambda m: m.add_memory("x", memory_id=5), "memory_id"),
    "memory id with NUL": Case(lambda m: m.add_memory("x", memory_id="a\x00b"), "memory_id"),
    "memory type message": Case(lambda m: m.add_memory("x", memory_type="message"), "memory_type"),
    "memory type unknown": Case(lambda m: m.add_memory("x", memory_type="note"), "memory_type"),
    "over-long user id": Case(lambda m: m.add_memory("x", user_id=LONG), "user_id"),
    "over-long agent id": Case(lambda m: m.add_memory("x", agent_id=LONG), "agent_id"),
    "over-long thread id": Case(lambda m: m.add_memory("x", thread_id=LONG), "thread_id"),
    "metadata non-str key": Case(lambda m: m.add_memory("x", metadata={1: "v"}), "metadata"),
    "metadata nested non-str key": Case(
        lambda m: m.add_memory("x", metadata={"k": {2: "v"}}), "metadata"
    ),
    "metadata set value": Case(lambda m: m.add_memory("x", metadata={"k": {1}}), "metadata"),
    "metadata NaN": Case(lambda m: m.add_memory("x", metadata={"k": math.nan}), "metadata"),
    "metadata infinity": Case(lambda m: m.add_memory("x", metadata={"k": math.inf}), "metadata"),
    "metadata huge int": Case(lambda m: m.add_memory("x", metadata={"k": 2**64}), "metadata"),
    "metadata object value": Case(
        lambda m: m.add_memory("x", metadata={"k": object()}), "metadata"
    ),
    "metadata not a mapping": Case(lambda m: m.add_memory("x", metadata="k=v"), "metadata"),
    "ttl zero": Case(lambda m: m.add_memory("x", ttl_days=0), "ttl_days"),
    "ttl negative": Case(lambda m: m.add_memory("x", ttl_days=-1), "ttl_days"),
    "ttl NaN": Case(lambda m: m.add_memory("x", ttl_days=math.nan), "ttl_days"),
    "ttl bool": Case(lambda m: m.add_memory("x", ttl_days=True), "ttl_days"),
    "ttl text": Case(lambda m: m.add_memory("x", ttl_days="1"), "ttl_days"),
    "bad timestamp text": Case(lambda m: m.add_memory("x", timestamp="yesterday"), "timestamp"),
    "bad timestamp type": Case(lambda m: m.add_memory("x", timestamp=1.5e9), "timestamp"),
    # get, list, update, delete
    "get over-long id": Case(lambda m: m.get_memory(LONG), "memory_id"),
    "list limit 0": Case(lambda m: m.list_memories(limit=0), "limit"),
    "list limit -1": Case(lambda m: m.list_memories(limit=-1), "limit"),
    "list limit bool": Case(lambda m: m.list_memories(limit=True), "limit"),
    "list record_types message": Case(
        lambda m: m.list_memories(record_types=["message"]), "record_types"
    ),
    "list metadata_filter list value": Case(
        lambda m: m.list_memories(metadata_filter={"k": ["v"]}), "metadata_filter"
    ),
    "update empty content": Case(lambda m: m.update_memory("a", content=""), "content"),
    "update bad metadata": Case(
        lambda m: m.update_memory("a", metadata={"k": math.nan}), "metadata"
    ),
    "update bad timestamp": Case(lambda m: m.update_memory("a", timestamp="soon"), "timestamp"),
    "update over-long id": Case(lambda m: m.update_memory(LONG, content="x"), "memory_id"),
    "delete over-long id": Case(lambda m: m.delete_memory(LONG), "memory_id"),
    "update link custom without opposite": Case(
        lambda m: m.update_record_link("r1", relation_type="mentions"), "opposite_relation_type"
    ),
    "update link builtin with other opposite": Case(
        lambda m: m.update_record_link("r1", opposite_relation_type="replaces"),
        "opposite_relation_type",
    ),
    "update link bad metadata": Case(
        lambda m: m.update_record_link("r1", metadata={1: 2}), "metadata"
    ),
    "update link bad timestamp": Case(
        lambda m: m.update_record_link("r1", timestamp="later"), "timestamp"
    ),
    "update link empty type": Case(
        lambda m: m.update_record_link("r1", relation_type=""), "relation_type"
    ),
    "delete link both forms": Case(
        lambda m: m.delete_record_link("r1", **_triple()), "relation_id"
    ),
    "delete link id and one triple part": Case(
        lambda m: m.delete_record_link("r1", relation_type="supersedes"), "relation_id"
    ),
    "delete link no arguments": Case(lambda m: m.delete_record_link(), "source_record_id"),
    "delete link triple without type": Case(
        lambda m: m.delete_record_link(**_triple(relation_type=None)), "relation_type"
    ),
    "delete link triple without target id": Case(
        lambda m: m.delete_record_link(**_triple(target_record_id=None)), "target_record_id"
    ),
    "delete link triple without source type": Case(
        lambda m: m.delete_record_link(**_triple(source_record_type=None)), "source_record_type"
    ),
    "delete link triple wrong target type": Case(
        lambda m: m.delete_record_link(**_triple(target_record_type="memory")),
        "target_record_type",
    ),
    "delete link triple message type": Case(
        lambda m: m.delete_record_link(**_triple(source_record_type="message")),
        "source_record_type",
    ),
    "delete link over-long id": Case(lambda m: m.delete_record_link(LONG), "relation_id"),
    "list links over-long record id": Case(lambda m: m.list_record_links(LONG), "record_id"),
    "list links empty type": Case(lambda m: m.list_record_links(relation_type=""), "relation_type"),
}

NOT_FOUND: dict[str, Call] = {
    "unknown source": _link(source_record_id="ghost"),
    "unknown target": _link(target_record_id="ghost"),
    "get missing memory": lambda m: m.get_memory("ghost"),
    "update missing memory": lambda m: m.update_memory("ghost", content="x"),
    "delete missing memory": lambda m: m.delete_memory("ghost"),
    "get missing link": lambda m: m.get_record_link("ghost"),
    "update missing link": lambda m: m.update_record_link("ghost", relation_type="supports"),
    "delete missing link": lambda m: m.delete_record_link(relation_id="ghost"),
    "delete triple unknown endpoint": lambda m: m.delete_record_link(
        **_triple(source_record_id="ghost")
    ),
    "delete triple no such link": lambda m: m.delete_record_link(
        **_triple(relation_type="refines")
    ),
    "delete triple reversed": lambda m: m.delete_record_link(
        source_record_id="b",
        source_record_type="fact",
        target_record_id="a",
        target_record_type="memory",
        relation_type="supersedes",
    ),
}

CONFLICT: dict[str, Call] = {
    "duplicate memory id": lambda m: m.add_memory("again", memory_id="a"),
    "duplicate relation id": _link(relation_id="r1"),
    "duplicate triple": _link(
        source_record_id="a",
        source_record_type="memory",
        target_record_id="b",
        target_record_type="fact",
        relation_type="supersedes",
    ),
    "same type reversed": _link(
        source_record_id="b",
        source_record_type="fact",
        target_record_id="a",
        target_record_type="memory",
        relation_type="supersedes",
    ),
    "same non-lifecycle type reversed": _link(
        source_record_id="c",
        source_record_type="preference",
        target_record_id="b",
        target_record_type="fact",
        relation_type="supports",
    ),
}


def _file_dump(db_path: Path) -> list[tuple[Any, ...]]:
    """Every object and every row of every table in the file."""
    conn = sqlite3.connect(db_path)
    try:
        objects = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        rows = [
            (name, conn.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall())
            for kind, name, _ in objects
            if kind == "table"
        ]
        return [*objects, *rows]
    finally:
        conn.close()


@pytest.fixture
def unchanged(store: GraphMemory, dump, db_path: Path):
    """Call ``check()`` after the rejected call: the store must be as before it."""
    before = (dump(store), _file_dump(db_path))

    def check() -> None:
        assert (dump(store), _file_dump(db_path)) == before

    return check


@pytest.mark.parametrize("case", list(INVALID.values()), ids=list(INVALID))
def test_invalid_argument_raises_and_names_argument(store: GraphMemory, case: Case) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        case.call(store)
    assert info.value.argument == case.argument
    assert str(info.value).startswith(f"{case.argument}: ")


@pytest.mark.parametrize("case", list(INVALID.values()), ids=list(INVALID))
def test_invalid_argument_changes_nothing(store: GraphMemory, unchanged, case: Case) -> None:
    with pytest.raises(InvalidArgumentError):
        case.call(store)
    unchanged()


@pytest.mark.parametrize("call", list(NOT_FOUND.values()), ids=list(NOT_FOUND))
def test_not_found_raises(store: GraphMemory, unchanged, call: Call) -> None:
    with pytest.raises(NotFoundError):
        call(store)
    unchanged()


@pytest.mark.parametrize("call", list(CONFLICT.values()), ids=list(CONFLICT))
def test_conflict_raises(store: GraphMemory, unchanged, call: Call) -> None:
    with pytest.raises(ConflictError):
        call(store)
    unchanged()


def test_conflict_update_link_into_existing_triple(store: GraphMemory, unchanged) -> None:
    store.link_records("a", "memory", "b", "fact", "refines", relation_id="r3")
    unchanged_now = store.list_record_links()
    with pytest.raises(ConflictError):
        store.update_record_link("r3", relation_type="supersedes")
    assert store.list_record_links() == unchanged_now


def test_conflict_update_link_into_reverse_orientation(store: GraphMemory) -> None:
    store.link_records("b", "fact", "a", "memory", "refines", relation_id="r3")
    before = (store.list_record_links(), store.get_memory("a").status)
    with pytest.raises(ConflictError):
        store.update_record_link("r3", relation_type="supersedes")
    assert (store.list_record_links(), store.get_memory("a").status) == before


def test_conflict_update_link_keeps_lifecycle_status(store: GraphMemory) -> None:
    store.link_records("a", "memory", "b", "fact", "supports", relation_id="r3")
    with pytest.raises(ConflictError):
        store.update_record_link("r3", relation_type="supersedes", metadata={"x": 1})
    assert store.get_record_link("r3").metadata == {}
    assert store.get_record_link("r3").relation_type == "supports"


def test_conflict_duplicate_memory_keeps_original(store: GraphMemory) -> None:
    with pytest.raises(ConflictError):
        store.add_memory("replacement", memory_id="a", memory_type="fact")
    record = store.get_memory("a")
    assert (record.content, record.record_type) == ("alpha tea", "memory")


# the error tree -----------------------------------------------------------------


@pytest.mark.parametrize(
    "error", [BackendError, ConflictError, InvalidArgumentError, NotFoundError, SchemaError]
)
def test_errors_derive_from_root(error: type[Exception]) -> None:
    assert issubclass(error, GraphMemError)


def test_errors_invalid_argument_is_value_error() -> None:
    assert issubclass(InvalidArgumentError, ValueError)


def test_errors_not_found_is_lookup_error() -> None:
    assert issubclass(NotFoundError, LookupError)


def test_errors_classes_are_distinct() -> None:
    classes = [BackendError, ConflictError, InvalidArgumentError, NotFoundError, SchemaError]
    for one in classes:
        for other in classes:
            assert one is other or not issubclass(one, other)


# construction -------------------------------------------------------------------


@pytest.mark.parametrize(
    "store_id", ["1abc", "a-b", "x" * 31, "t; DROP TABLE x", "", "_a", "a b", "é", 5]
)
def test_memory_store_id_rejected(store: GraphMemory, db_path: Path, store_id: object) -> None:
    before = _file_dump(db_path)
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(db_path, memory_store_id=store_id)
    assert info.value.argument == "memory_store_id"
    assert _file_dump(db_path) == before


@pytest.mark.parametrize("store_id", ["a", "x" * 30, "T_GRAPH_MEMORY", "a1_b2"])
def test_memory_store_id_accepted(db_path: Path, store_id: str) -> None:
    with GraphMemory(db_path, memory_store_id=store_id) as store:
        store.add_memory("x", memory_id="m")
        assert store.get_memory("m").content == "x"


def test_connection_of_wrong_type_rejected() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(123)  # type: ignore[arg-type]
    assert info.value.argument == "connection"


def test_schema_policy_of_wrong_type_rejected(db_path: Path) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(db_path, schema_policy="require_existing")  # type: ignore[arg-type]
    assert info.value.argument == "schema_policy"


@pytest.mark.parametrize("clock", [5, "now", 0, False, datetime(2026, 1, 1, tzinfo=timezone.utc)])
def test_clock_not_callable_rejected(db_path: Path, clock: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(db_path, clock=clock)  # type: ignore[arg-type]
    assert info.value.argument == "clock"
    assert not db_path.exists()


def test_embedder_without_embed_rejected(db_path: Path) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(db_path, embedder=object())  # type: ignore[arg-type]
    assert info.value.argument == "embedder"


def test_require_existing_on_empty_file_raises_schema_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    with pytest.raises(SchemaError):
        GraphMemory(path, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []
    finally:
        conn.close()


def test_require_existing_other_store_id_raises_schema_error(
    store: GraphMemory, db_path: Path
) -> None:
    before = _file_dump(db_path)
    with pytest.raises(SchemaError, match="other"):
        GraphMemory(db_path, memory_store_id="other", schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert _file_dump(db_path) == before


# embedders that disagree with the store -----------------------------------------


class _FixedEmbedder:
    def __init__(self, dim: int, rows: int | None = None) -> None:
        self.dim = dim
        self.rows = rows

    def embed(self, texts):
        n = len(texts) if self.rows is None else self.rows
        return np.ones((n, self.dim), dtype=np.float32)


# The store records the default embedder's name and 256 dimensions; the message names both.
_BOTH = r"'local/wordllama-l2-supercat-256' \(256 dimensions\).*'_FixedEmbedder' \(16"


def test_embedder_of_other_dimension_add_rejected(store: GraphMemory, unchanged, db_path) -> None:
    with (
        GraphMemory(db_path, embedder=_FixedEmbedder(16)) as other,
        pytest.raises(SchemaError, match=_BOTH),
    ):
        other.add_memory("x", memory_id="new")
    unchanged()


def test_embedder_of_other_dimension_update_rejected(
    store: GraphMemory, unchanged, db_path
) -> None:
    with (
        GraphMemory(db_path, embedder=_FixedEmbedder(16)) as other,
        pytest.raises(SchemaError, match=_BOTH),
    ):
        other.update_memory("a", content="changed")
    unchanged()


def test_embedder_of_other_dimension_search_rejected(store: GraphMemory, db_path) -> None:
    with (
        GraphMemory(db_path, embedder=_FixedEmbedder(16)) as other,
        pytest.raises(SchemaError, match=_BOTH),
    ):
        other.search("tea")


def test_embedder_returning_wrong_count_rejected(db_path: Path) -> None:
    with GraphMemory(db_path, embedder=_FixedEmbedder(8, rows=2)) as other:
        with pytest.raises(InvalidArgumentError) as info:
            other.add_memory("x")
        assert info.value.argument == "embedder"
        assert other.list_memories() == []


@pytest.mark.parametrize(
    ("method", "argument"),
    [("list_memories", "limit"), ("search", "max_results"), ("search", "max_linked_results")],
)
def test_errors_count_beyond_bound_is_invalid(
    memory: GraphMemory, method: str, argument: str
) -> None:
    call = getattr(memory, method)
    args = ("query",) if method == "search" else ()
    with pytest.raises(InvalidArgumentError) as caught:
        call(*args, **{argument: 2**63})
    assert caught.value.argument == argument
