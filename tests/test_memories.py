"""GraphMemory memories: add, get, list (every filter), update, delete."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import GraphMemory, InvalidArgumentError, MemoryRecord, NotFoundError

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_add_memory_returns_given_id(memory: GraphMemory) -> None:
    assert memory.add_memory("likes tea", memory_id="m1") == "m1"


def test_add_memory_generates_uuid_when_no_id(memory: GraphMemory) -> None:
    record_id = memory.add_memory("likes tea")
    assert str(uuid.UUID(record_id)) == record_id
    assert memory.get_memory(record_id).content == "likes tea"


def test_add_memory_generated_ids_are_distinct(memory: GraphMemory) -> None:
    assert memory.add_memory("a") != memory.add_memory("a")


def test_add_memory_stores_every_field(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory(
        "likes green tea",
        memory_id="m1",
        memory_type="fact",
        user_id="u1",
        agent_id="a1",
        thread_id="t1",
        metadata={"source": "chat", "n": 2, "nested": {"x": [1, None, True]}},
        timestamp=datetime(2025, 6, 1, 12, 30, tzinfo=timezone.utc),
    )
    record = clocked_memory.get_memory("m1")
    assert record == MemoryRecord(
        id="m1",
        record_type="fact",
        content="likes green tea",
        status="valid",
        user_id="u1",
        agent_id="a1",
        thread_id="t1",
        metadata={"source": "chat", "n": 2, "nested": {"x": [1, None, True]}},
        timestamp=datetime(2025, 6, 1, 12, 30, tzinfo=timezone.utc),
        created_at=START,
        expires_at=None,
    )


def test_add_memory_defaults(clocked_memory: GraphMemory) -> None:
    record = clocked_memory.get_memory(clocked_memory.add_memory("x", memory_id="m"))
    assert record.record_type == "memory"
    assert (record.user_id, record.agent_id, record.thread_id) == (None, None, None)
    assert record.metadata == {}
    assert record.status == "valid"
    assert record.invalidated_by == ()


@pytest.mark.parametrize("memory_type", ["memory", "fact", "preference", "guideline"])
def test_add_memory_each_memory_type(memory: GraphMemory, memory_type: str) -> None:
    memory.add_memory("x", memory_id="m", memory_type=memory_type)
    assert memory.get_memory("m").record_type == memory_type


def test_add_memory_timestamp_defaults_to_created_at(clocked_memory: GraphMemory) -> None:
    record = clocked_memory.get_memory(clocked_memory.add_memory("x"))
    assert record.timestamp == record.created_at == START


def test_add_memory_created_at_has_microseconds(memory: GraphMemory) -> None:
    before = datetime.now(timezone.utc)
    record = memory.get_memory(memory.add_memory("x"))
    after = datetime.now(timezone.utc)
    assert before <= record.created_at <= after
    assert record.created_at.tzinfo is not None
    assert record.created_at.utcoffset() == timedelta(0)


def test_add_memory_created_at_keeps_microseconds(clocked_memory: GraphMemory, clock) -> None:
    clock.now = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=timezone.utc)
    record = clocked_memory.get_memory(clocked_memory.add_memory("x"))
    assert record.created_at == datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=timezone.utc)


def test_add_memory_naive_timestamp_is_utc(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", timestamp=datetime(2025, 1, 2, 3, 4, 5))
    assert memory.get_memory("m").timestamp == datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_add_memory_iso_timestamp_with_offset(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", timestamp="2025-01-02T05:04:05+02:00")
    assert memory.get_memory("m").timestamp == datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_add_memory_ttl_sets_expires_at(clocked_memory: GraphMemory) -> None:
    record = clocked_memory.get_memory(clocked_memory.add_memory("x", ttl_days=1.5))
    assert record.expires_at == START + timedelta(days=1.5)


def test_add_memory_expired_not_listed(clocked_memory: GraphMemory, clock) -> None:
    clocked_memory.add_memory("short lived", memory_id="short", ttl_days=1)
    clocked_memory.add_memory("long lived", memory_id="long", ttl_days=10)
    clock.advance(days=2)
    assert [m.id for m in clocked_memory.list_memories()] == ["long"]


def test_add_memory_expired_not_searched(clocked_memory: GraphMemory, clock) -> None:
    clocked_memory.add_memory("short lived tea", memory_id="short", ttl_days=1)
    clocked_memory.add_memory("long lived tea", memory_id="long", ttl_days=10)
    assert {r.id for r in clocked_memory.search("tea")} == {"short", "long"}
    clock.advance(days=2)
    assert [r.id for r in clocked_memory.search("tea")] == ["long"]


def test_add_memory_unicode_content_round_trips(memory: GraphMemory) -> None:
    text = "Likes crème brûlée 🍮 and 寿司; quotes ' \" and \\ backslash"
    memory.add_memory(text, memory_id="m", metadata={"ключ": "значение"})
    record = memory.get_memory("m")
    assert record.content == text
    assert record.metadata == {"ключ": "значение"}


def test_add_memory_id_of_128_chars(memory: GraphMemory) -> None:
    record_id = "i" * 128
    memory.add_memory("x", memory_id=record_id)
    assert memory.get_memory(record_id).id == record_id


def test_get_memory_missing_raises_not_found(memory: GraphMemory) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        memory.get_memory("nope")


def test_get_memory_not_found_is_lookup_error(memory: GraphMemory) -> None:
    with pytest.raises(LookupError):
        memory.get_memory("nope")


def test_get_memory_invalidated_by_lists_lifecycle_links(clocked_memory: GraphMemory) -> None:
    for name in ("old", "a", "b", "c"):
        clocked_memory.add_memory(name, memory_id=name)
    first = clocked_memory.link_records("a", "memory", "old", "memory", "supersedes")
    clocked_memory.link_records("b", "memory", "old", "memory", "supports")
    second = clocked_memory.link_records("c", "memory", "old", "memory", "duplicates")
    reasons = clocked_memory.get_memory("old").invalidated_by
    assert [r.id for r in reasons] == [first, second]


# list_memories ------------------------------------------------------------------


@pytest.fixture
def listed(clocked_memory: GraphMemory) -> GraphMemory:
    m = clocked_memory
    m.add_memory("one", memory_id="m1", user_id="u1", agent_id="a1", thread_id="t1")
    m.add_memory("two", memory_id="m2", memory_type="fact", user_id="u1", agent_id="a2")
    m.add_memory("three", memory_id="m3", memory_type="preference", user_id="u2", thread_id="t1")
    m.add_memory("four", memory_id="m4", memory_type="guideline", metadata={"k": "v", "n": 1})
    m.add_memory("five", memory_id="m5", metadata={"k": "w", "n": 1.0, "flag": True})
    return m


def _ids(records: list[MemoryRecord]) -> list[str]:
    return [r.id for r in records]


def test_list_memories_all_oldest_first(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories()) == ["m1", "m2", "m3", "m4", "m5"]


def test_list_memories_ties_by_id(pinned_memory: GraphMemory) -> None:
    for record_id in ("c", "a", "b"):
        pinned_memory.add_memory(record_id, memory_id=record_id)
    assert _ids(pinned_memory.list_memories()) == ["a", "b", "c"]


def test_list_memories_user_id(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(user_id="u1")) == ["m1", "m2"]


def test_list_memories_agent_id(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(agent_id="a2")) == ["m2"]


def test_list_memories_thread_id(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(thread_id="t1")) == ["m1", "m3"]


def test_list_memories_combined_scope(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(user_id="u1", thread_id="t1")) == ["m1"]


def test_list_memories_record_types(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(record_types=["fact", "guideline"])) == ["m2", "m4"]


def test_list_memories_record_types_single_string(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(record_types="preference")) == ["m3"]


def test_list_memories_metadata_filter(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(metadata_filter={"k": "v"})) == ["m4"]


def test_list_memories_metadata_filter_int_matches_float(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(metadata_filter={"n": 1})) == ["m4", "m5"]


def test_list_memories_metadata_filter_bool_not_int(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(metadata_filter={"flag": True})) == ["m5"]
    assert _ids(listed.list_memories(metadata_filter={"flag": 1})) == []


def test_list_memories_metadata_filter_all_pairs_must_hold(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(metadata_filter={"k": "w", "n": 1})) == ["m5"]
    assert _ids(listed.list_memories(metadata_filter={"k": "v", "flag": True})) == []


def test_list_memories_metadata_filter_missing_key(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(metadata_filter={"absent": None})) == []


def test_list_memories_metadata_filter_empty_is_no_filter(listed: GraphMemory) -> None:
    assert len(listed.list_memories(metadata_filter={})) == 5


def test_list_memories_limit(listed: GraphMemory) -> None:
    assert _ids(listed.list_memories(limit=2)) == ["m1", "m2"]


def test_list_memories_default_limit_is_100(clocked_memory: GraphMemory) -> None:
    for i in range(101):
        clocked_memory.add_memory(f"m{i}")
    assert len(clocked_memory.list_memories()) == 100


def test_list_memories_include_invalid_default_true(listed: GraphMemory) -> None:
    listed.link_records("m2", "fact", "m1", "memory", "supersedes")
    assert "m1" in _ids(listed.list_memories())


def test_list_memories_exclude_invalid(listed: GraphMemory) -> None:
    listed.link_records("m2", "fact", "m1", "memory", "supersedes")
    assert _ids(listed.list_memories(include_invalid_results=False)) == ["m2", "m3", "m4", "m5"]


def test_list_memories_empty_store(memory: GraphMemory) -> None:
    assert memory.list_memories() == []


# update_memory ------------------------------------------------------------------


def test_update_memory_content(memory: GraphMemory) -> None:
    memory.add_memory("likes tea", memory_id="m", metadata={"k": 1})
    updated = memory.update_memory("m", content="likes coffee")
    assert updated.content == "likes coffee"
    assert updated.metadata == {"k": 1}
    assert memory.get_memory("m") == updated


def test_update_memory_reembeds_new_content(memory: GraphMemory) -> None:
    memory.add_memory("the user enjoys alpine hiking trips", memory_id="m")
    memory.add_memory("the user collects vintage stamps", memory_id="other")
    memory.update_memory("m", content="the user plays chess tournaments every weekend")
    hits = memory.search("chess tournaments weekend", max_results=1)
    assert [h.id for h in hits] == ["m"]
    exact = memory.search("the user plays chess tournaments every weekend", max_results=1)
    assert exact[0].id == "m"
    assert exact[0].distance == pytest.approx(0.0, abs=1e-6)


def test_update_memory_old_content_no_longer_matches(memory: GraphMemory) -> None:
    memory.add_memory("the user enjoys alpine hiking trips", memory_id="m")
    memory.update_memory("m", content="the user plays chess tournaments every weekend")
    hit = memory.search("the user enjoys alpine hiking trips", max_results=1)[0]
    assert hit.distance > 0.3


def test_update_memory_metadata_only_keeps_embedding(memory: GraphMemory) -> None:
    memory.add_memory("the user enjoys alpine hiking trips", memory_id="m")
    memory.update_memory("m", metadata={"reviewed": True})
    hit = memory.search("the user enjoys alpine hiking trips", max_results=1)[0]
    assert hit.id == "m"
    assert hit.distance == pytest.approx(0.0, abs=1e-6)
    assert memory.get_memory("m").metadata == {"reviewed": True}


def test_update_memory_metadata_replaced_not_merged(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", metadata={"a": 1, "b": 2})
    assert memory.update_memory("m", metadata={"c": 3}).metadata == {"c": 3}


def test_update_memory_empty_metadata_clears(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", metadata={"a": 1})
    assert memory.update_memory("m", metadata={}).metadata == {}


def test_update_memory_timestamp(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory("x", memory_id="m")
    when = datetime(2020, 5, 5, tzinfo=timezone.utc)
    updated = clocked_memory.update_memory("m", timestamp=when)
    assert updated.timestamp == when
    assert updated.created_at == START


def test_update_memory_keeps_caller_timestamp(clocked_memory: GraphMemory) -> None:
    when = datetime(2020, 5, 5, tzinfo=timezone.utc)
    clocked_memory.add_memory("x", memory_id="m", timestamp=when)
    assert clocked_memory.update_memory("m", content="y").timestamp == when


def test_update_memory_keeps_default_timestamp(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory("x", memory_id="m")
    updated = clocked_memory.update_memory("m", content="y")
    assert updated.timestamp == updated.created_at == START


def test_update_memory_keeps_scope_type_and_status(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    m.add_memory("old", memory_id="old", memory_type="fact", user_id="u", agent_id="a")
    m.add_memory("new", memory_id="new", memory_type="fact", user_id="u")
    m.link_records("new", "fact", "old", "fact", "supersedes")
    before = m.get_memory("old")
    after = m.update_memory("old", content="old, edited")
    assert after.model_dump(exclude={"content"}) == before.model_dump(exclude={"content"})


def test_update_memory_nothing_changes_nothing(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", metadata={"a": 1})
    before = memory.get_memory("m")
    assert memory.update_memory("m") == before


def test_update_memory_missing_raises_not_found(memory: GraphMemory) -> None:
    with pytest.raises(NotFoundError):
        memory.update_memory("nope", content="x")


# delete_memory ------------------------------------------------------------------


def test_delete_memory_removes_it(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m")
    memory.delete_memory("m")
    with pytest.raises(NotFoundError):
        memory.get_memory("m")
    assert memory.list_memories() == []


def test_delete_memory_not_searched(memory: GraphMemory) -> None:
    memory.add_memory("green tea", memory_id="m")
    memory.delete_memory("m")
    assert memory.search("green tea") == []


def test_delete_memory_missing_raises_not_found(memory: GraphMemory) -> None:
    with pytest.raises(NotFoundError):
        memory.delete_memory("nope")


def test_delete_memory_twice_raises_not_found(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m")
    memory.delete_memory("m")
    with pytest.raises(NotFoundError):
        memory.delete_memory("m")


def test_delete_memory_cascades_links(memory: GraphMemory) -> None:
    for name in ("a", "b", "c"):
        memory.add_memory(name, memory_id=name)
    memory.link_records("a", "memory", "b", "memory", "supports")
    keep = memory.link_records("b", "memory", "c", "memory", "supports")
    memory.delete_memory("a")
    assert [link.id for link in memory.list_record_links()] == [keep]


def test_delete_memory_source_revalidates_target(memory: GraphMemory) -> None:
    memory.add_memory("new", memory_id="new")
    memory.add_memory("old", memory_id="old")
    memory.link_records("new", "memory", "old", "memory", "supersedes")
    memory.delete_memory("new")
    assert memory.get_memory("old").status == "valid"


def test_delete_memory_source_keeps_other_invalidation(memory: GraphMemory) -> None:
    for name in ("new1", "new2", "old"):
        memory.add_memory(name, memory_id=name)
    memory.link_records("new1", "memory", "old", "memory", "supersedes")
    other = memory.link_records("new2", "memory", "old", "memory", "refines")
    memory.delete_memory("new1")
    record = memory.get_memory("old")
    assert record.status == "invalid"
    assert [r.id for r in record.invalidated_by] == [other]


def test_delete_memory_target_leaves_source_valid(memory: GraphMemory) -> None:
    memory.add_memory("new", memory_id="new")
    memory.add_memory("old", memory_id="old")
    memory.link_records("new", "memory", "old", "memory", "supersedes")
    memory.delete_memory("old")
    assert memory.get_memory("new").status == "valid"
    assert memory.list_record_links() == []


def test_delete_memory_middle_of_chain(memory: GraphMemory) -> None:
    for name in ("a", "b", "c"):
        memory.add_memory(name, memory_id=name)
    memory.link_records("a", "memory", "b", "memory", "supersedes")
    memory.link_records("b", "memory", "c", "memory", "supersedes")
    memory.delete_memory("b")
    assert {m.id: m.status for m in memory.list_memories()} == {"a": "valid", "c": "valid"}


# the object ---------------------------------------------------------------------


def test_graph_memory_default_is_in_memory() -> None:
    with GraphMemory() as store:
        store.add_memory("x", memory_id="m")
        assert store.get_memory("m").content == "x"


def test_graph_memory_in_memory_stores_are_separate() -> None:
    with GraphMemory(":memory:") as one, GraphMemory(":memory:") as two:
        one.add_memory("x", memory_id="m")
        assert two.list_memories() == []


def test_graph_memory_reopen_file_keeps_data(db_path) -> None:
    with GraphMemory(db_path) as store:
        store.add_memory("x", memory_id="m")
    with GraphMemory(str(db_path)) as store:
        assert store.get_memory("m").content == "x"


def test_graph_memory_memory_store_id_attribute(db_path) -> None:
    with GraphMemory(db_path, memory_store_id="T_GRAPH_MEMORY") as store:
        assert store.memory_store_id == "T_GRAPH_MEMORY"


def test_memories_timestamp_before_year_1000_round_trips(memory: GraphMemory) -> None:
    early = datetime(999, 1, 1, tzinfo=timezone.utc)
    rid = memory.add_memory("an early event", timestamp=early)
    memory.update_memory(rid, timestamp=early)
    assert memory.get_memory(rid).timestamp == early


def test_memories_timestamp_out_of_utc_range_is_invalid(memory: GraphMemory) -> None:
    east = timezone(timedelta(hours=5))
    with pytest.raises(InvalidArgumentError) as caught:
        memory.add_memory("too early", timestamp=datetime(1, 1, 1, tzinfo=east))
    assert caught.value.argument == "timestamp"
    assert memory.list_memories() == []
