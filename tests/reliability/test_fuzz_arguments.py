"""Fuzzed arguments for every public method of GraphMemory.

Each argument is drawn from plausible values (stored ids, record and relation
types, texts, metadata, times) mixed with junk of every type (None, bools, huge
ints, nan/inf, long and NUL-bearing strings, bytes, lists, dicts with non-string
keys, numpy arrays and scalars, arbitrary objects). Every example runs on a
fresh copy of a small store: only ``GraphMemError`` subclasses may escape, their
messages read as graphmem's (an InvalidArgumentError names its argument once; no
Python or driver internals), and a call that raises one must leave every table of
the file as it was (``iterdump`` of a separate connection).

The batch methods also get batches of valid items whose ids and links collide
with the store or with each other, so that some are rejected by a store
constraint after earlier items of the same batch were written: the rollback of
those writes is what "changes nothing" checks there.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graphmem import (
    ConflictError,
    GraphMemError,
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    SchemaError,
    SchemaPolicy,
)

from ._checks import full_dump

MEMORY_IDS = ("a", "b", "c", "d", "e", "f")
MEMORY_TYPES = dict(
    zip(MEMORY_IDS, ("memory", "memory", "fact", "fact", "preference", "guideline"), strict=True)
)
LINK_IDS = ("ab", "cd", "ef")
STORED_LINKS = {"ab": ("a", "b", "supersedes"), "cd": ("c", "d", "supports")}
"""The template's links of built-in types: ``relation_id -> (source, target, type)``."""
RECORD_TYPES = ("memory", "fact", "preference", "guideline", "message")
RELATION_TYPES = ("supersedes", "refines", "duplicates", "supports", "contradicts", "custom")

SURROGATE = "\ud800"
"""A lone surrogate: not encodable as UTF-8 (in JUNK, alone and inside a word; the
``*_rejects_lone_surrogate`` tests below pin the calls where it once crashed)."""

FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", " ", "\x00", "x" * 129, "x" * 100_000, SURROGATE, f"a{SURROGATE}b"]),
    st.binary(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.tuples(st.integers()),
    st.sets(st.integers(), max_size=2),
    st.one_of(  # bad keys, one key type per dict (mixed types: see the minimal tests)
        *(
            st.dictionaries(
                keys,
                st.one_of(st.integers(), st.floats(), st.text(max_size=4), st.just(object())),
                max_size=3,
            )
            for keys in (st.integers(), st.none(), st.text(max_size=4), st.tuples(st.integers()))
        )
    ),
    st.datetimes(),
    st.just(object()),
    st.just(float("nan")),
    st.sampled_from(  # numpy values: arrays compare element-wise and refuse bool()
        [
            np.array(["fact", "memory"]),
            np.array(["fact"]),
            np.array([True, False]),
            np.array("fact"),
            np.float64("nan"),
            np.int64(3),
            np.str_("a"),
            np.bool_(True),
        ]
    ),
)
INTERNALS = re.compile(
    r"positional argument|keyword argument|has no attribute|is not iterable|"
    r"not subscriptable|unhashable|truth value of an array|_new_link|_new_memory|"
    r"constraint failed|UNIQUE|FOREIGN KEY|ORA-\d|graphmem: "
)


def assert_readable(exc: GraphMemError) -> None:
    """graphmem's words: no Python or driver internals; an argument named once."""
    text = str(exc)
    assert not INTERNALS.search(text), text
    if isinstance(exc, InvalidArgumentError):
        assert text.startswith(f"{exc.argument}: "), text
        keyword = re.split(r"[.\]]", exc.argument)[-1]
        assert text.count(f"{keyword}:") == 1, text


def maybe(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Valid values half the time, junk the other half."""
    return st.one_of(valid, JUNK)


TZ = st.sampled_from(
    [None, timezone.utc, timezone(timedelta(hours=5)), timezone(-timedelta(hours=9))]
)
IDS = maybe(st.sampled_from(MEMORY_IDS) | st.just("missing"))
REL_IDS = maybe(st.sampled_from(LINK_IDS) | st.just("missing"))
RTYPES = maybe(st.sampled_from(RECORD_TYPES))
LTYPES = maybe(st.sampled_from(RELATION_TYPES))
CONTENT = maybe(st.text(min_size=1, max_size=30))
META = maybe(st.dictionaries(st.text(max_size=6), JSON, max_size=3))
TIME = maybe(
    st.datetimes(timezones=TZ)
    | st.sampled_from(
        ["2026-01-01T00:00:00", "2026-13-01", "yesterday", "0001-01-01T00:00:00+05:00"]
    )
)
NUMBER = maybe(st.integers(min_value=-3, max_value=200) | st.floats(min_value=-1, max_value=1e6))
HOPS = maybe(st.integers(min_value=-2, max_value=7))
TYPE_LISTS = maybe(st.lists(st.sampled_from(RECORD_TYPES), max_size=3))
ANY = JUNK | st.booleans()


def kwargs(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments, each left out (default) or drawn."""
    return st.fixed_dictionaries({}, optional=fields)


MEMORY_ITEM = kwargs(
    content=CONTENT,
    memory_id=maybe(st.sampled_from(MEMORY_IDS) | st.text(min_size=1, max_size=8)),
    memory_type=RTYPES,
    user_id=IDS,
    metadata=META,
    timestamp=TIME,
    ttl_days=NUMBER,
)
LINK_ITEM = kwargs(
    source_record_id=IDS,
    source_record_type=RTYPES,
    target_record_id=IDS,
    target_record_type=RTYPES,
    relation_type=LTYPES,
    opposite_relation_type=maybe(st.just("opposite")),
    relation_id=REL_IDS,
    timestamp=TIME,
    metadata=META,
)


def link_item(
    source: str, target: str, relation_type: str, relation_id: str | None = None
) -> dict[str, Any]:
    """A valid ``add_record_links`` item between two template memories."""
    item = {
        "source_record_id": source,
        "source_record_type": MEMORY_TYPES[source],
        "target_record_id": target,
        "target_record_type": MEMORY_TYPES[target],
        "relation_type": relation_type,
    }
    return item if relation_id is None else {**item, "relation_id": relation_id}


# Valid items over a tiny pool of ids, pairs and types: a batch of them often
# collides with the store or with an earlier item of the same batch.
VALID_MEMORY_ITEM = st.fixed_dictionaries(
    {"content": st.sampled_from(["more pizza", "new tea"])},
    optional={
        "memory_id": st.sampled_from(("n1", "n2", "a", "f")),
        "memory_type": st.sampled_from(RECORD_TYPES[:4]),
        "metadata": st.just({"k": "new"}),
    },
)
VALID_LINK_ITEM = st.tuples(
    st.sampled_from([("a", "b"), ("b", "a"), ("c", "d"), ("d", "c"), ("a", "c"), ("c", "a")]),
    st.sampled_from(["supersedes", "supports", "refines"]),
    st.sampled_from([None, "n1", "n2", "ab"]),
).map(lambda t: link_item(*t[0], t[1], t[2]))
FRESH_PAIRS = [(s, t) for s in MEMORY_IDS for t in MEMORY_IDS if s < t]


@st.composite
def memories_with_late_conflict(draw: st.DrawFn) -> list[dict[str, Any]]:
    """New memories, then one whose id is stored or earlier in the batch, then maybe more."""
    named = draw(st.lists(st.booleans(), min_size=1, max_size=3))
    items: list[dict[str, Any]] = [
        {"content": f"new {i}", "metadata": {"k": i}, **({"memory_id": f"new{i}"} if n else {})}
        for i, n in enumerate(named)
    ]
    taken = [item["memory_id"] for item in items if "memory_id" in item]
    items.append({"content": "clash", "memory_id": draw(st.sampled_from([*MEMORY_IDS, *taken]))})
    return items + [{"content": f"after {i}"} for i in range(draw(st.integers(0, 2)))]


@st.composite
def links_with_late_conflict(draw: st.DrawFn) -> list[dict[str, Any]]:
    """New links, then one that repeats or reverses a stored or earlier link, or reuses its id.

    The new links join distinct pairs with types the template does not use, so
    only the last-but-tail item conflicts.
    """
    pairs = draw(st.lists(st.sampled_from(FRESH_PAIRS), min_size=1, max_size=3, unique=True))
    items = [
        link_item(s, t, draw(st.sampled_from(["refines", "contradicts"])), f"new{i}")
        for i, (s, t) in enumerate(pairs)
    ]
    earlier = draw(st.sampled_from(items))
    s, t, rtype = (earlier[k] for k in ("source_record_id", "target_record_id", "relation_type"))
    ss, st_, stype = STORED_LINKS[draw(st.sampled_from(sorted(STORED_LINKS)))]
    reused_id = draw(st.sampled_from([*LINK_IDS, earlier["relation_id"]]))
    clash = draw(
        st.sampled_from(
            [
                link_item(s, t, rtype),
                link_item(t, s, rtype),
                link_item(ss, st_, stype),
                link_item(st_, ss, stype),
                link_item("a", "f", "duplicates", reused_id),
            ]
        )
    )
    tail = [link_item("b", "e", "supports")] if draw(st.booleans()) else []
    return [*items, clash, *tail]


FILTERS = {
    "user_id": maybe(st.sampled_from(["u1", "u2"])),
    "agent_id": IDS,
    "thread_id": IDS,
    "record_types": TYPE_LISTS,
    "metadata_filter": maybe(st.dictionaries(st.text(max_size=4), JSON, max_size=2)),
    "include_invalid_results": ANY,
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "template.db"
    with GraphMemory(path) as memory:
        for rid, rtype in MEMORY_TYPES.items():
            memory.add_memory(
                f"memory {rid} about pizza",
                memory_id=rid,
                memory_type=rtype,
                user_id="u1" if rid < "d" else "u2",
                metadata={"k": rid},
            )
        memory.link_records("a", "memory", "b", "memory", "supersedes", relation_id="ab")
        memory.link_records("c", "fact", "d", "fact", "supports", relation_id="cd")
        memory.link_records(
            "e", "preference", "f", "guideline", "custom", "opposite", relation_id="ef"
        )
    return path


@pytest.fixture
def fresh(template: Path) -> Iterator[Any]:
    """A factory of fresh copies of the template (one per hypothesis example)."""
    with tempfile.TemporaryDirectory() as tmp:

        def copy() -> Path:
            path = Path(tmp) / f"{uuid.uuid4().hex}.db"
            shutil.copyfile(template, path)
            return path

        yield copy


def call_checked(path: Path, method: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    """Call; only GraphMemError may escape, and a rejected call changes nothing."""
    with GraphMemory(path) as memory:
        before = full_dump(path)
        try:
            getattr(memory, method)(*args, **kw)
        except GraphMemError as exc:
            assert_readable(exc)
            assert full_dump(path) == before
        except Exception as exc:
            raise AssertionError(f"{method}{args!r:.300} {kw!r:.300} raised {exc!r:.300}") from exc


def call_conflicting(path: Path, method: str, items: list[dict[str, Any]]) -> None:
    """A batch whose last items conflict: ConflictError, and the earlier items are not kept."""
    with GraphMemory(path) as memory:
        before = full_dump(path)
        with pytest.raises(ConflictError):
            getattr(memory, method)(items)
    assert full_dump(path) == before


@FUZZ
@given(
    content=CONTENT, kw=MEMORY_ITEM.map(lambda d: {k: v for k, v in d.items() if k != "content"})
)
def test_fuzz_add_memory_raises_only_graphmem_errors(fresh: Any, content: Any, kw: Any) -> None:
    call_checked(fresh(), "add_memory", (content,), kw)


@FUZZ
@given(
    items=st.lists(maybe(MEMORY_ITEM), max_size=3)
    | st.lists(JUNK, max_size=2)
    | st.lists(VALID_MEMORY_ITEM, min_size=2, max_size=4)
)
def test_fuzz_add_memories_raises_only_graphmem_errors(fresh: Any, items: Any) -> None:
    call_checked(fresh(), "add_memories", (items,), {})


@FUZZ
@given(items=memories_with_late_conflict())
def test_fuzz_add_memories_late_conflict_changes_nothing(fresh: Any, items: Any) -> None:
    call_conflicting(fresh(), "add_memories", items)


@FUZZ
@given(memory_id=IDS)
def test_fuzz_get_memory_raises_only_graphmem_errors(fresh: Any, memory_id: Any) -> None:
    call_checked(fresh(), "get_memory", (memory_id,), {})


@FUZZ
@given(kw=kwargs(**FILTERS, limit=NUMBER))
def test_fuzz_list_memories_raises_only_graphmem_errors(fresh: Any, kw: Any) -> None:
    call_checked(fresh(), "list_memories", (), kw)


@FUZZ
@given(memory_id=IDS, kw=kwargs(content=CONTENT, metadata=META, timestamp=TIME))
def test_fuzz_update_memory_raises_only_graphmem_errors(
    fresh: Any, memory_id: Any, kw: Any
) -> None:
    call_checked(fresh(), "update_memory", (memory_id,), kw)


@FUZZ
@given(memory_id=IDS)
def test_fuzz_delete_memory_raises_only_graphmem_errors(fresh: Any, memory_id: Any) -> None:
    call_checked(fresh(), "delete_memory", (memory_id,), {})


@FUZZ
@given(
    query=maybe(st.text(min_size=1, max_size=20)),
    kw=kwargs(**FILTERS, max_results=NUMBER, num_hops=HOPS, max_linked_results=NUMBER),
)
def test_fuzz_search_raises_only_graphmem_errors(fresh: Any, query: Any, kw: Any) -> None:
    call_checked(fresh(), "search", (query,), kw)


@FUZZ
@given(kw=LINK_ITEM)
def test_fuzz_link_records_raises_only_graphmem_errors(fresh: Any, kw: Any) -> None:
    args = [kw.pop(name, "a") for name in ("source_record_id", "source_record_type")]
    args += [kw.pop(name, "b") for name in ("target_record_id", "target_record_type")]
    args.append(kw.pop("relation_type", "supports"))
    call_checked(fresh(), "link_records", tuple(args), kw)


@FUZZ
@given(
    items=st.lists(maybe(LINK_ITEM), max_size=3)
    | st.lists(JUNK, max_size=2)
    | st.lists(VALID_LINK_ITEM, min_size=2, max_size=4)
)
def test_fuzz_add_record_links_raises_only_graphmem_errors(fresh: Any, items: Any) -> None:
    call_checked(fresh(), "add_record_links", (items,), {})


@FUZZ
@given(items=links_with_late_conflict())
def test_fuzz_add_record_links_late_conflict_changes_nothing(fresh: Any, items: Any) -> None:
    call_conflicting(fresh(), "add_record_links", items)


@FUZZ
@given(relation_id=REL_IDS)
def test_fuzz_get_record_link_raises_only_graphmem_errors(fresh: Any, relation_id: Any) -> None:
    call_checked(fresh(), "get_record_link", (relation_id,), {})


@FUZZ
@given(
    relation_id=REL_IDS,
    kw=kwargs(
        relation_type=LTYPES,
        opposite_relation_type=maybe(st.just("opposite")),
        timestamp=TIME,
        metadata=META,
    ),
)
def test_fuzz_update_record_link_raises_only_graphmem_errors(
    fresh: Any, relation_id: Any, kw: Any
) -> None:
    call_checked(fresh(), "update_record_link", (relation_id,), kw)


@FUZZ
@given(
    kw=kwargs(
        relation_id=REL_IDS,
        source_record_id=IDS,
        source_record_type=RTYPES,
        target_record_id=IDS,
        target_record_type=RTYPES,
        relation_type=LTYPES,
    )
)
def test_fuzz_delete_record_link_raises_only_graphmem_errors(fresh: Any, kw: Any) -> None:
    call_checked(fresh(), "delete_record_link", (), kw)


@FUZZ
@given(kw=kwargs(record_id=IDS, relation_type=LTYPES))
def test_fuzz_list_record_links_raises_only_graphmem_errors(fresh: Any, kw: Any) -> None:
    call_checked(fresh(), "list_record_links", (), kw)


def file_state(target: object) -> object:
    """What a constructor given ``target`` could change there, read without graphmem.

    An SQLite file (or an empty one, which SQLite takes as an empty database) by
    its schema and rows; any other file by its bytes; a directory by its entries.
    """
    if not isinstance(target, Path):
        return None
    if target.is_dir():
        return sorted(p.name for p in target.iterdir())
    if not target.exists():
        return ("missing", target.parent.exists())
    data = target.read_bytes()
    if data == b"" or data.startswith(b"SQLite format 3\x00"):
        return ("sqlite", full_dump(target))
    return ("bytes", data)


CONNECTIONS = ["copy", "empty", ":memory:", "directory", "missing-dir", "garbage"]


@FUZZ
@given(
    connection=st.one_of(
        JUNK.filter(lambda v: not isinstance(v, str)), st.sampled_from(CONNECTIONS)
    ),
    kw=kwargs(
        embedder=maybe(st.just(HashingEmbedder(dim=16))),
        memory_store_id=maybe(
            st.sampled_from(["graphmem", "other", "a" * 30, "a" * 31, "1x", "x-y", "x;drop"])
        ),
        schema_policy=maybe(st.sampled_from(list(SchemaPolicy))),
    ),
)
@example(connection="empty", kw={"schema_policy": SchemaPolicy.REQUIRE_EXISTING})
@example(
    connection="copy",
    kw={"memory_store_id": "other", "schema_policy": SchemaPolicy.REQUIRE_EXISTING},
)
@example(connection="garbage", kw={})
def test_fuzz_constructor_raises_only_graphmem_errors(fresh: Any, connection: Any, kw: Any) -> None:
    """A rejected constructor leaves the file (or directory) it was given as it was."""
    path = fresh()
    target: Any = connection
    named = connection if isinstance(connection, str) else None  # numpy arrays refuse ==
    if named == "copy":
        target = path
    elif named == "empty":
        target = path.with_suffix(".empty")
        target.write_bytes(b"")
    elif named == "directory":
        target = path.parent
    elif named == "missing-dir":
        target = path.parent / "no" / "such.db"
    elif named == "garbage":
        target = path.with_suffix(".garbage")
        target.write_bytes(b"not a database" * 100)
    before = file_state(target)
    try:
        GraphMemory(target, **kw).close()
    except GraphMemError as exc:
        assert_readable(exc)
        assert file_state(target) == before
    except Exception as exc:
        raise AssertionError(f"GraphMemory({target!r:.100}, {kw!r:.300}) raised {exc!r}") from exc


# Minimal cases of the faults the fuzzing found (kept failing until the library is fixed).


def test_fuzz_add_memories_rejects_none(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.add_memories(None)


def test_fuzz_add_record_links_rejects_none(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.add_record_links(None)


def test_fuzz_delete_memory_rejects_lone_surrogate(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.delete_memory(SURROGATE)


def test_fuzz_list_record_links_rejects_lone_surrogate(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.list_record_links(SURROGATE)


def test_fuzz_add_memories_rejects_item_with_mixed_key_types(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.add_memories([{"content": "x", 0: 1, None: 2}])


def test_fuzz_add_record_links_rejects_item_with_mixed_key_types(memory: GraphMemory) -> None:
    with pytest.raises(InvalidArgumentError):
        memory.add_record_links([{0: 1, None: 2}])


def test_fuzz_constructor_require_existing_leaves_no_new_file(tmp_path: Path) -> None:
    target = tmp_path / "typo.db"
    with pytest.raises(SchemaError):
        GraphMemory(target, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_fuzz_constructor_require_existing_leaves_empty_file_empty(tmp_path: Path) -> None:
    target = tmp_path / "empty.db"
    target.write_bytes(b"")
    with pytest.raises(SchemaError):
        GraphMemory(target, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert [(p.name, p.stat().st_size) for p in tmp_path.iterdir()] == [("empty.db", 0)]


def test_fuzz_constructor_require_existing_leaves_foreign_database_bytes(tmp_path: Path) -> None:
    target = tmp_path / "other.db"
    conn = sqlite3.connect(target)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = target.read_bytes()
    with pytest.raises(SchemaError):
        GraphMemory(target, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert target.read_bytes() == before
