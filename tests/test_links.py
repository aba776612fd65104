"""GraphMemory links: create, read, update, delete, list; validity; direct DBA DML."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import GraphMemory, NotFoundError, RecordRelation

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
LIFECYCLE = ["supersedes", "refines", "duplicates"]
NON_LIFECYCLE = ["supports", "contradicts"]
OPPOSITES = {
    "supersedes": "is_superseded_by",
    "refines": "is_refined_by",
    "duplicates": "duplicates",
    "supports": "is_supported_by",
    "contradicts": "contradicts",
}


@pytest.fixture
def abc(clocked_memory: GraphMemory) -> GraphMemory:
    """Three memories a, b, c (types memory, fact, preference), one second apart."""
    clocked_memory.add_memory("alpha", memory_id="a")
    clocked_memory.add_memory("beta", memory_id="b", memory_type="fact")
    clocked_memory.add_memory("gamma", memory_id="c", memory_type="preference")
    return clocked_memory


def _status(store: GraphMemory, record_id: str) -> str:
    return store.get_memory(record_id).status


# link_records -------------------------------------------------------------------


def test_link_records_returns_uuid(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports")
    assert str(uuid.UUID(relation_id)) == relation_id


def test_link_records_given_relation_id(abc: GraphMemory) -> None:
    assert abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1") == "r1"


def test_link_records_stores_every_field(abc: GraphMemory) -> None:
    abc.link_records(
        source_record_id="a",
        source_record_type="memory",
        target_record_id="b",
        target_record_type="fact",
        relation_type="mentions",
        opposite_relation_type="is_mentioned_by",
        relation_id="r1",
        timestamp="2025-02-03T04:05:06+00:00",
        metadata={"why": "test", "score": 0.5},
    )
    assert abc.get_record_link("r1") == RecordRelation(
        id="r1",
        source_record_id="a",
        source_record_type="memory",
        target_record_id="b",
        target_record_type="fact",
        relation_type="mentions",
        opposite_relation_type="is_mentioned_by",
        timestamp=datetime(2025, 2, 3, 4, 5, 6, tzinfo=timezone.utc),
        metadata={"why": "test", "score": 0.5},
        created_at=START + timedelta(seconds=3),
    )


def test_link_records_positional_as_in_seed(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    link = abc.get_record_link(relation_id)
    assert (link.source_record_id, link.target_record_id, link.relation_type) == (
        "a",
        "b",
        "supersedes",
    )
    assert _status(abc, "b") == "invalid"


@pytest.mark.parametrize("relation_type", list(OPPOSITES))
def test_link_records_builtin_opposite(abc: GraphMemory, relation_type: str) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", relation_type)
    assert abc.get_record_link(relation_id).opposite_relation_type == OPPOSITES[relation_type]


@pytest.mark.parametrize("relation_type", list(OPPOSITES))
def test_link_records_builtin_opposite_given_equal(abc: GraphMemory, relation_type: str) -> None:
    relation_id = abc.link_records(
        "a", "memory", "b", "fact", relation_type, opposite_relation_type=OPPOSITES[relation_type]
    )
    assert abc.get_record_link(relation_id).relation_type == relation_type


@pytest.mark.parametrize("relation_type", LIFECYCLE)
def test_link_records_lifecycle_invalidates_target(abc: GraphMemory, relation_type: str) -> None:
    abc.link_records("a", "memory", "b", "fact", relation_type)
    assert (_status(abc, "a"), _status(abc, "b"), _status(abc, "c")) == (
        "valid",
        "invalid",
        "valid",
    )


@pytest.mark.parametrize("relation_type", NON_LIFECYCLE)
def test_link_records_non_lifecycle_keeps_valid(abc: GraphMemory, relation_type: str) -> None:
    abc.link_records("a", "memory", "b", "fact", relation_type)
    assert (_status(abc, "a"), _status(abc, "b")) == ("valid", "valid")


def test_link_records_custom_type_keeps_valid(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "mentions", "is_mentioned_by")
    assert _status(abc, "b") == "valid"


def test_link_records_invalid_target_kept_not_deleted(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    assert abc.get_memory("b").content == "beta"


def test_link_records_invalid_source_can_link(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.link_records("b", "fact", "c", "preference", "refines")
    assert (_status(abc, "a"), _status(abc, "b"), _status(abc, "c")) == (
        "valid",
        "invalid",
        "invalid",
    )


def test_link_records_same_pair_different_types(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "supports")
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.link_records("b", "fact", "a", "memory", "contradicts")
    assert len(abc.list_record_links()) == 3


def test_link_records_cycle_of_lifecycle_links(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.link_records("b", "fact", "c", "preference", "supersedes")
    abc.link_records("c", "preference", "a", "memory", "supersedes")
    assert {_status(abc, x) for x in "abc"} == {"invalid"}


def test_link_records_naive_timestamp_is_utc(abc: GraphMemory) -> None:
    relation_id = abc.link_records(
        "a", "memory", "b", "fact", "supports", timestamp=datetime(2025, 1, 1, 8)
    )
    assert abc.get_record_link(relation_id).timestamp == datetime(
        2025, 1, 1, 8, tzinfo=timezone.utc
    )


# get_record_link ----------------------------------------------------------------


def test_get_record_link_missing_raises_not_found(abc: GraphMemory) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        abc.get_record_link("nope")


def test_get_record_link_keeps_stored_direction(abc: GraphMemory) -> None:
    relation_id = abc.link_records("c", "preference", "a", "memory", "refines")
    link = abc.get_record_link(relation_id)
    assert (link.source_record_id, link.source_record_type) == ("c", "preference")
    assert (link.target_record_id, link.target_record_type) == ("a", "memory")


def test_get_record_link_label_from(abc: GraphMemory) -> None:
    link = abc.get_record_link(abc.link_records("a", "memory", "b", "fact", "refines"))
    assert (link.label_from("a"), link.label_from("b")) == ("refines", "is_refined_by")


# update_record_link -------------------------------------------------------------


def test_update_record_link_lifecycle_to_supports_revalidates(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    updated = abc.update_record_link(relation_id, relation_type="supports")
    assert updated.relation_type == "supports"
    assert updated.opposite_relation_type == "is_supported_by"
    assert _status(abc, "b") == "valid"


def test_update_record_link_supports_to_lifecycle_invalidates(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports")
    abc.update_record_link(relation_id, relation_type="duplicates")
    assert _status(abc, "b") == "invalid"
    assert [r.id for r in abc.get_memory("b").invalidated_by] == [relation_id]


def test_update_record_link_lifecycle_to_lifecycle_stays_invalid(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.update_record_link(relation_id, relation_type="refines")
    assert _status(abc, "b") == "invalid"


def test_update_record_link_keeps_other_lifecycle_link(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.link_records("c", "preference", "b", "fact", "refines")
    abc.update_record_link(relation_id, relation_type="supports")
    assert _status(abc, "b") == "invalid"


def test_update_record_link_omitted_fields_unchanged(abc: GraphMemory) -> None:
    relation_id = abc.link_records(
        "a", "memory", "b", "fact", "supersedes", timestamp=START, metadata={"k": 1}
    )
    before = abc.get_record_link(relation_id)
    assert abc.update_record_link(relation_id) == before


def test_update_record_link_metadata_only(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes", timestamp=START)
    before = abc.get_record_link(relation_id)
    after = abc.update_record_link(relation_id, metadata={"reviewed_by": "svc"})
    assert after.metadata == {"reviewed_by": "svc"}
    assert after.model_dump(exclude={"metadata"}) == before.model_dump(exclude={"metadata"})
    assert _status(abc, "b") == "invalid"


def test_update_record_link_timestamp_only(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports", metadata={"k": 1})
    before = abc.get_record_link(relation_id)
    when = datetime(2024, 4, 4, tzinfo=timezone.utc)
    after = abc.update_record_link(relation_id, timestamp=when)
    assert after.timestamp == when
    assert after.model_dump(exclude={"timestamp"}) == before.model_dump(exclude={"timestamp"})


def test_update_record_link_type_and_metadata_as_in_seed(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    after = abc.update_record_link(
        relation_id, relation_type="supports", metadata={"reviewed_by": "preference-service"}
    )
    assert (after.relation_type, after.metadata) == (
        "supports",
        {"reviewed_by": "preference-service"},
    )


def test_update_record_link_to_custom_type(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    after = abc.update_record_link(
        relation_id, relation_type="mentions", opposite_relation_type="is_mentioned_by"
    )
    assert (after.relation_type, after.opposite_relation_type) == ("mentions", "is_mentioned_by")
    assert _status(abc, "b") == "valid"


def test_update_record_link_custom_opposite_only(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "mentions", "is_mentioned_by")
    after = abc.update_record_link(relation_id, opposite_relation_type="mentioned_in")
    assert (after.relation_type, after.opposite_relation_type) == ("mentions", "mentioned_in")


def test_update_record_link_custom_to_builtin_takes_builtin_opposite(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "mentions", "is_mentioned_by")
    after = abc.update_record_link(relation_id, relation_type="refines")
    assert after.opposite_relation_type == "is_refined_by"


def test_update_record_link_same_type_is_no_conflict(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports")
    assert abc.update_record_link(relation_id, relation_type="supports").id == relation_id


def test_update_record_link_missing_raises_not_found(abc: GraphMemory) -> None:
    with pytest.raises(NotFoundError):
        abc.update_record_link("nope", relation_type="supports")


# delete_record_link -------------------------------------------------------------


def test_delete_record_link_by_id(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.delete_record_link(relation_id=relation_id)
    assert abc.list_record_links() == []
    assert _status(abc, "b") == "valid"


def test_delete_record_link_by_id_positional(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports")
    abc.delete_record_link(relation_id)
    with pytest.raises(NotFoundError):
        abc.get_record_link(relation_id)


def test_delete_record_link_by_triple(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "refines")
    keep = abc.link_records("a", "memory", "b", "fact", "supports")
    abc.delete_record_link(
        source_record_id="a",
        source_record_type="memory",
        target_record_id="b",
        target_record_type="fact",
        relation_type="refines",
    )
    assert [link.id for link in abc.list_record_links()] == [keep]
    assert _status(abc, "b") == "valid"


def test_delete_record_link_by_triple_is_directed(abc: GraphMemory) -> None:
    abc.link_records("a", "memory", "b", "fact", "supports")
    with pytest.raises(NotFoundError):
        abc.delete_record_link(
            source_record_id="b",
            source_record_type="fact",
            target_record_id="a",
            target_record_type="memory",
            relation_type="supports",
        )
    assert len(abc.list_record_links()) == 1


def test_delete_record_link_keeps_other_lifecycle_link(abc: GraphMemory) -> None:
    first = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.link_records("c", "preference", "b", "fact", "duplicates")
    abc.delete_record_link(first)
    assert _status(abc, "b") == "invalid"


def test_delete_record_link_missing_id_raises_not_found(abc: GraphMemory) -> None:
    with pytest.raises(NotFoundError):
        abc.delete_record_link(relation_id="nope")


def test_delete_record_link_twice_raises_not_found(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supports")
    abc.delete_record_link(relation_id)
    with pytest.raises(NotFoundError):
        abc.delete_record_link(relation_id)


def test_delete_record_link_then_relink_same_triple(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.delete_record_link(relation_id)
    again = abc.link_records("a", "memory", "b", "fact", "supersedes")
    assert again != relation_id
    assert _status(abc, "b") == "invalid"


def test_delete_record_link_then_reverse_orientation_allowed(abc: GraphMemory) -> None:
    relation_id = abc.link_records("a", "memory", "b", "fact", "supersedes")
    abc.delete_record_link(relation_id)
    abc.link_records("b", "fact", "a", "memory", "supersedes")
    assert (_status(abc, "a"), _status(abc, "b")) == ("invalid", "valid")


# list_record_links --------------------------------------------------------------


@pytest.fixture
def linked(abc: GraphMemory) -> tuple[GraphMemory, list[str]]:
    abc.add_memory("delta", memory_id="d")
    ids = [
        abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1"),
        abc.link_records("b", "fact", "c", "preference", "refines", relation_id="r2"),
        abc.link_records("c", "preference", "a", "memory", "supports", relation_id="r3"),
        abc.link_records("d", "memory", "c", "preference", "supersedes", relation_id="r4"),
    ]
    return abc, ids


def _link_ids(links: list[RecordRelation]) -> list[str]:
    return [link.id for link in links]


def test_list_record_links_all_oldest_first(linked) -> None:
    store, ids = linked
    assert _link_ids(store.list_record_links()) == ids


def test_list_record_links_ties_by_relation_id(pinned_memory: GraphMemory) -> None:
    for name in ("a", "b", "c"):
        pinned_memory.add_memory(name, memory_id=name)
    pinned_memory.link_records("a", "memory", "b", "memory", "supports", relation_id="z")
    pinned_memory.link_records("b", "memory", "c", "memory", "supports", relation_id="m")
    pinned_memory.link_records("a", "memory", "c", "memory", "supports", relation_id="a")
    assert _link_ids(pinned_memory.list_record_links()) == ["a", "m", "z"]


def test_list_record_links_by_record_either_end(linked) -> None:
    store, _ = linked
    assert _link_ids(store.list_record_links("a")) == ["r1", "r3"]
    assert _link_ids(store.list_record_links(record_id="c")) == ["r2", "r3", "r4"]


def test_list_record_links_by_type(linked) -> None:
    store, _ = linked
    assert _link_ids(store.list_record_links(relation_type="supports")) == ["r1", "r3"]


def test_list_record_links_by_record_and_type(linked) -> None:
    store, _ = linked
    assert _link_ids(store.list_record_links("c", "supports")) == ["r3"]


def test_list_record_links_unknown_record_is_empty(linked) -> None:
    store, _ = linked
    assert store.list_record_links("zzz") == []


def test_list_record_links_unknown_type_is_empty(linked) -> None:
    store, _ = linked
    assert store.list_record_links(relation_type="zzz") == []


def test_list_record_links_empty_store(memory: GraphMemory) -> None:
    assert memory.list_record_links() == []


# validity through direct DBA DML ------------------------------------------------


def _insert_link(conn: sqlite3.Connection, relation_id: str, source: str, target: str, rtype: str):
    conn.execute(
        "INSERT INTO graphmem_link (relation_id, source_id, target_id, relation_type, "
        "opposite_relation_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (
            relation_id,
            source,
            target,
            rtype,
            OPPOSITES.get(rtype, "x"),
            "2026-02-01T00:00:00.000000+00:00",
        ),
    )


def test_dml_insert_lifecycle_link_invalidates(abc: GraphMemory, dba) -> None:
    _insert_link(dba(), "r1", "a", "b", "supersedes")
    assert _status(abc, "b") == "invalid"
    assert [r.id for r in abc.get_memory("b").invalidated_by] == ["r1"]


def test_dml_insert_supports_link_keeps_valid(abc: GraphMemory, dba) -> None:
    _insert_link(dba(), "r1", "a", "b", "supports")
    assert _status(abc, "b") == "valid"


def test_dml_delete_link_revalidates(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute("DELETE FROM graphmem_link WHERE relation_id = 'r1'")
    assert _status(abc, "b") == "valid"


def test_dml_delete_one_of_two_lifecycle_links(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("c", "preference", "b", "fact", "refines", relation_id="r2")
    dba().execute("DELETE FROM graphmem_link WHERE relation_id = 'r1'")
    assert _status(abc, "b") == "invalid"


def test_dml_update_type_to_supports_revalidates(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute(
        "UPDATE graphmem_link SET relation_type = 'supports', "
        "opposite_relation_type = 'is_supported_by' WHERE relation_id = 'r1'"
    )
    assert _status(abc, "b") == "valid"


def test_dml_update_type_to_lifecycle_invalidates(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1")
    dba().execute(
        "UPDATE graphmem_link SET relation_type = 'refines', "
        "opposite_relation_type = 'is_refined_by' WHERE relation_id = 'r1'"
    )
    assert _status(abc, "b") == "invalid"


def test_dml_update_target_moves_invalidity(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute("UPDATE graphmem_link SET target_id = 'c' WHERE relation_id = 'r1'")
    assert (_status(abc, "b"), _status(abc, "c")) == ("valid", "invalid")


def test_dml_update_source_keeps_target_invalid(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute("UPDATE graphmem_link SET source_id = 'c' WHERE relation_id = 'r1'")
    assert (_status(abc, "a"), _status(abc, "b"), _status(abc, "c")) == (
        "valid",
        "invalid",
        "valid",
    )


def test_dml_status_update_contradicting_links_refused(abc: GraphMemory, dba) -> None:
    conn = dba()
    with pytest.raises(sqlite3.IntegrityError, match="derived"):
        conn.execute("UPDATE graphmem_memory SET status = 'invalid' WHERE record_id = 'a'")
    assert _status(abc, "a") == "valid"


def test_dml_status_revalidation_of_superseded_refused(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    with pytest.raises(sqlite3.IntegrityError, match="derived"):
        dba().execute("UPDATE graphmem_memory SET status = 'valid' WHERE record_id = 'b'")
    assert _status(abc, "b") == "invalid"


def test_dml_status_update_agreeing_with_links_allowed(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes")
    cursor = dba().execute("UPDATE graphmem_memory SET status = 'invalid' WHERE record_id = 'b'")
    assert cursor.rowcount == 1
    assert _status(abc, "b") == "invalid"


def test_dml_insert_memory_invalid_refused(abc: GraphMemory, dba) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        dba().execute(
            "INSERT INTO graphmem_memory (record_id, record_type, content, status, created_at) "
            "VALUES ('z', 'memory', 'zeta', 'invalid', '2026-02-01T00:00:00.000000+00:00')"
        )
    with pytest.raises(NotFoundError):
        abc.get_memory("z")


def test_dml_reverse_orientation_refused(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    with pytest.raises(sqlite3.IntegrityError, match="reverse orientation"):
        _insert_link(dba(), "r2", "b", "a", "supersedes")
    assert _status(abc, "a") == "valid"


@pytest.mark.parametrize(
    "update",
    [
        # a retype into the reverse of a stored link of that type
        "UPDATE graphmem_link SET relation_type = 'supports', "
        "opposite_relation_type = 'is_supported_by' WHERE relation_id = 'r2'",
        # ends swapped into the reverse of a stored link of the same type
        "UPDATE graphmem_link SET source_id = 'b', target_id = 'a' WHERE relation_id = 'r3'",
    ],
    ids=["retype", "swap-ends"],
)
def test_dml_update_into_reverse_orientation_refused(abc: GraphMemory, dba, update: str) -> None:
    abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1")
    abc.link_records("b", "fact", "a", "memory", "contradicts", relation_id="r2")
    abc.link_records("a", "memory", "c", "preference", "supports", relation_id="r3")
    before = abc.list_record_links()
    with pytest.raises(sqlite3.IntegrityError, match="reverse orientation"):
        dba().execute(update)
    assert abc.list_record_links() == before


def test_dml_self_link_refused(abc: GraphMemory, dba) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        _insert_link(dba(), "r1", "a", "a", "supersedes")
    assert _status(abc, "a") == "valid"


def test_dml_unknown_endpoint_refused(abc: GraphMemory, dba) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        _insert_link(dba(), "r1", "a", "ghost", "supersedes")
    assert abc.list_record_links() == []


def test_dml_delete_memory_cascades_and_revalidates(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("a", "memory", "c", "preference", "supports", relation_id="r2")
    dba().execute("DELETE FROM graphmem_memory WHERE record_id = 'a'")
    assert abc.list_record_links() == []
    assert (_status(abc, "b"), _status(abc, "c")) == ("valid", "valid")


def test_dml_delete_target_memory_cascades(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute("DELETE FROM graphmem_memory WHERE record_id = 'b'")
    assert abc.list_record_links() == []
    assert _status(abc, "a") == "valid"


def test_dml_rolled_back_insert_changes_nothing(abc: GraphMemory, dba) -> None:
    conn = dba()
    conn.execute("BEGIN")
    _insert_link(conn, "r1", "a", "b", "supersedes")
    conn.execute("ROLLBACK")
    assert _status(abc, "b") == "valid"


def test_dml_link_visible_to_search_tree(abc: GraphMemory, dba) -> None:
    _insert_link(dba(), "r1", "a", "b", "supports")
    result = abc.search("alpha", max_results=1, num_hops=1)[0]
    assert result.id == "a"
    assert [(rel.id, child.id) for rel, child in result.linked_results] == [("r1", "b")]


# REPLACE: the conflict clause deletes rows without firing DELETE triggers --------

_LINK_COLUMNS = (
    "(relation_id, source_id, target_id, relation_type, opposite_relation_type, created_at) "
    "VALUES (?, ?, ?, ?, ?, '2026-02-01T00:00:00.000000+00:00')"
)


@pytest.mark.parametrize("verb", ["INSERT OR REPLACE", "REPLACE"])
def test_dml_replace_link_id_revalidates_old_target(abc: GraphMemory, dba, verb: str) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute(
        f"{verb} INTO graphmem_link {_LINK_COLUMNS}",
        ("r1", "a", "c", "supports", "is_supported_by"),
    )
    assert [link.target_record_id for link in abc.list_record_links()] == ["c"]
    assert (_status(abc, "b"), _status(abc, "c")) == ("valid", "valid")


def test_dml_replace_link_id_moves_invalidity(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute(
        f"REPLACE INTO graphmem_link {_LINK_COLUMNS}", ("r1", "a", "c", "refines", "is_refined_by")
    )
    assert (_status(abc, "b"), _status(abc, "c")) == ("valid", "invalid")


def test_dml_replace_link_triple_keeps_target_invalid(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute(
        f"REPLACE INTO graphmem_link {_LINK_COLUMNS}",
        ("r2", "a", "b", "supersedes", "is_superseded_by"),
    )
    assert [link.id for link in abc.list_record_links()] == ["r2"]
    assert _status(abc, "b") == "invalid"


def test_dml_replace_link_keeps_other_lifecycle_link(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("c", "preference", "b", "fact", "duplicates", relation_id="r2")
    dba().execute(
        f"REPLACE INTO graphmem_link {_LINK_COLUMNS}",
        ("r1", "a", "c", "supports", "is_supported_by"),
    )
    assert (_status(abc, "b"), _status(abc, "c")) == ("invalid", "valid")


def test_dml_update_or_replace_id_revalidates_deleted_row_target(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("a", "memory", "c", "preference", "supports", relation_id="r2")
    dba().execute("UPDATE OR REPLACE graphmem_link SET relation_id = 'r1' WHERE relation_id = 'r2'")
    assert [(link.id, link.target_record_id) for link in abc.list_record_links()] == [("r1", "c")]
    assert _status(abc, "b") == "valid"


def test_dml_update_or_replace_target_onto_existing_triple(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("a", "memory", "c", "preference", "supersedes", relation_id="r2")
    dba().execute("UPDATE OR REPLACE graphmem_link SET target_id = 'b' WHERE relation_id = 'r2'")
    assert [link.id for link in abc.list_record_links()] == ["r2"]
    assert (_status(abc, "b"), _status(abc, "c")) == ("invalid", "valid")


def test_dml_update_or_replace_onto_existing_triple_keeps_linked_context(
    abc: GraphMemory, dba
) -> None:
    """The replaced link r1 leaves no adjacency row: a search with hops meets only r2."""
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("a", "memory", "c", "preference", "supersedes", relation_id="r2")
    dba().execute("UPDATE OR REPLACE graphmem_link SET target_id = 'b' WHERE relation_id = 'r2'")
    results = abc.search("alpha", num_hops=1, include_invalid_results=True)
    linked = {r.id: [(rel.id, child.id) for rel, child in r.linked_results] for r in results}
    assert linked["a"] == [("r2", "b")]
    assert linked["b"] == [("r2", "a")]
    assert linked["c"] == []


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE OR REPLACE graphmem_link SET link_no = "
        "(SELECT link_no FROM graphmem_link WHERE relation_id = 'r1') WHERE relation_id = 'r2'",
        "INSERT OR REPLACE INTO graphmem_link (link_no, relation_id, source_id, target_id, "
        "relation_type, opposite_relation_type, created_at) SELECT link_no, 'r9', 'c', 'b', "
        "'contradicts', 'contradicts', created_at FROM graphmem_link WHERE relation_id = 'r1'",
    ],
)
def test_dml_replace_on_link_number_revalidates_deleted_row_target(
    abc: GraphMemory, dba, statement: str
) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("a", "memory", "c", "preference", "supports", relation_id="r2")
    dba().execute(statement)
    assert "r1" not in {link.id for link in abc.list_record_links()}
    assert _status(abc, "b") == "valid"
    results = abc.search("beta", num_hops=2, include_invalid_results=True)
    assert all(rel.id != "r1" for r in results for rel, _ in r.linked_results)


# Link rows that graphmem refuses are refused for DML too (schema version 11) --------


def _message(store: GraphMemory) -> str:
    thread = store.create_thread("t", user_id="u")
    (message_id,) = thread.add_messages([{"role": "user", "content": "I moved to Paris"}])
    return message_id


@pytest.mark.parametrize("end", ["source_id", "target_id"])
def test_dml_link_to_a_message_is_refused(abc: GraphMemory, dba, end: str) -> None:
    message_id = _message(abc)
    conn = dba()
    ends = ("a", message_id) if end == "target_id" else (message_id, "a")
    with pytest.raises(sqlite3.IntegrityError, match="a message cannot be a link's"):
        _insert_link(conn, "r1", *ends, "supersedes")
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r2")
    with pytest.raises(sqlite3.IntegrityError, match="a message cannot be a link's"):
        conn.execute(f"UPDATE graphmem_link SET {end} = ? WHERE relation_id = 'r2'", (message_id,))
    assert [
        (link.id, link.source_record_id, link.target_record_id) for link in abc.list_record_links()
    ] == [("r2", "a", "b")]
    status = "SELECT status FROM graphmem_memory WHERE record_id = ?"
    assert conn.execute(status, (message_id,)).fetchone() == ("valid",)


@pytest.mark.parametrize(
    ("relation_type", "opposite"),
    [
        ("supersedes", "supports"),
        ("supports", "is_superseded_by"),
        ("duplicates", "is_duplicated_by"),
        ("Supersedes", "is_superseded_by"),
        ("CONTRADICTS", "contradicts"),
    ],
)
def test_dml_builtin_type_with_another_opposite_or_case_is_refused(
    abc: GraphMemory, dba, relation_type: str, opposite: str
) -> None:
    conn = dba()
    with pytest.raises(sqlite3.IntegrityError, match="built-in relation type"):
        conn.execute(
            f"INSERT INTO graphmem_link {_LINK_COLUMNS}", ("r1", "a", "b", relation_type, opposite)
        )
    abc.link_records("a", "memory", "b", "fact", "refines", relation_id="r2")
    with pytest.raises(sqlite3.IntegrityError, match="built-in relation type"):
        conn.execute(
            "UPDATE graphmem_link SET relation_type = ?, opposite_relation_type = ? "
            "WHERE relation_id = 'r2'",
            (relation_type, opposite),
        )
    (link,) = abc.list_record_links()
    assert (link.relation_type, link.opposite_relation_type) == ("refines", "is_refined_by")


def test_dml_builtin_type_change_needs_its_opposite(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1")
    conn = dba()
    with pytest.raises(sqlite3.IntegrityError, match="built-in relation type"):
        conn.execute("UPDATE graphmem_link SET relation_type = 'refines' WHERE relation_id = 'r1'")
    with pytest.raises(sqlite3.IntegrityError, match="built-in relation type"):
        conn.execute(
            "UPDATE graphmem_link SET opposite_relation_type = 'x' WHERE relation_id = 'r1'"
        )
    assert _status(abc, "b") == "valid"


def test_dml_custom_types_keep_any_opposite(abc: GraphMemory, dba) -> None:
    conn = dba()
    conn.execute(f"INSERT INTO graphmem_link {_LINK_COLUMNS}", ("r1", "a", "b", "mentions", "x"))
    conn.execute("UPDATE graphmem_link SET opposite_relation_type = 'y' WHERE relation_id = 'r1'")
    assert [link.opposite_relation_type for link in abc.list_record_links()] == ["y"]


def test_dml_linked_memory_cannot_become_a_message(abc: GraphMemory, dba) -> None:
    abc.create_thread("t", user_id="u")
    abc.link_records("a", "memory", "b", "fact", "supports", relation_id="r1")
    conn = dba()
    with pytest.raises(sqlite3.IntegrityError, match="a message cannot be a link's"):
        conn.execute(
            "UPDATE graphmem_memory SET record_type = 'message', message_role = 'user', "
            "message_position = 9, thread_id = 't' WHERE record_id = 'b'"
        )
    with pytest.raises(sqlite3.IntegrityError, match="a message cannot be a link's"):
        conn.execute(
            "REPLACE INTO graphmem_memory (record_id, record_type, content, thread_id, "
            "message_role, message_position, created_at) "
            "VALUES ('a', 'message', 'hi', 't', 'user', 9, '2026-02-01T00:00:00.000000+00:00')"
        )
    assert [abc.get_memory(m).record_type for m in "ab"] == ["memory", "fact"]
    assert [link.id for link in abc.list_record_links()] == ["r1"]


def test_dml_insert_or_ignore_conflict_changes_nothing(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    conn = dba()
    conn.execute(
        f"INSERT OR IGNORE INTO graphmem_link {_LINK_COLUMNS}",
        ("r1", "a", "c", "supports", "is_supported_by"),
    )
    assert _status(abc, "b") == "invalid"
    conn.execute("DELETE FROM graphmem_link WHERE relation_id = 'r1'")
    _insert_link(conn, "r3", "c", "a", "supports")
    assert [_status(abc, m) for m in "abc"] == ["valid", "valid", "valid"]


def test_dml_upsert_link_moves_invalidity(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute(
        f"INSERT INTO graphmem_link {_LINK_COLUMNS} ON CONFLICT (relation_id) DO UPDATE "
        "SET target_id = excluded.target_id",
        ("r1", "a", "c", "supersedes", "is_superseded_by"),
    )
    assert (_status(abc, "b"), _status(abc, "c")) == ("valid", "invalid")


def test_dml_replace_invalid_memory_keeps_invariant(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    abc.link_records("b", "fact", "c", "preference", "refines", relation_id="r2")
    dba().execute(
        "INSERT OR REPLACE INTO graphmem_memory (record_id, record_type, content, status, "
        "created_at) VALUES ('b', 'fact', 'beta again', 'invalid', "
        "'2026-02-01T00:00:00.000000+00:00')"
    )
    links = {link.id: link for link in abc.list_record_links()}
    # With foreign keys on, the replaced row's links cascade away; without, they stay.
    for name in "abc":
        targeted = any(
            link.target_record_id == name and link.relation_type != "supports"
            for link in links.values()
        )
        assert _status(abc, name) == ("invalid" if targeted else "valid")
    assert abc.get_memory("b").content == "beta again"


def test_dml_replace_memory_with_wrong_status_refused(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    with pytest.raises(sqlite3.IntegrityError, match="derived"):
        dba().execute(
            "REPLACE INTO graphmem_memory (record_id, record_type, content, created_at) "
            "VALUES ('b', 'fact', 'beta again', '2026-02-01T00:00:00.000000+00:00')"
        )
    assert abc.get_memory("b").content == "beta"


# foreign keys off: the triggers cascade and refuse on their own --------------------


def test_dml_link_update_to_unknown_endpoint_refused(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    for column in ("source_id", "target_id"):
        with pytest.raises(sqlite3.IntegrityError, match="existing memories"):
            dba().execute(f"UPDATE graphmem_link SET {column} = 'ghost' WHERE relation_id = 'r1'")
    assert [(lk.source_record_id, lk.target_record_id) for lk in abc.list_record_links()] == [
        ("a", "b")
    ]
    assert _status(abc, "b") == "invalid"


def test_dml_unknown_source_refused(abc: GraphMemory, dba) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="existing memories"):
        _insert_link(dba(), "r1", "ghost", "b", "supersedes")
    assert _status(abc, "b") == "valid"


def test_dml_memory_id_change_refused(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    with pytest.raises(sqlite3.IntegrityError, match="record_id cannot change"):
        dba().execute("UPDATE graphmem_memory SET record_id = 'z' WHERE record_id = 'b'")
    assert _status(abc, "b") == "invalid"


def test_dml_delete_all_memories_leaves_no_link(abc: GraphMemory, dba) -> None:
    abc.link_records("a", "memory", "b", "fact", "supersedes", relation_id="r1")
    dba().execute("DELETE FROM graphmem_memory")
    assert abc.list_record_links() == []
    abc.add_memory("b again", memory_id="b")
    assert _status(abc, "b") == "valid"


def test_dml_delete_memory_removes_metadata_rows(abc: GraphMemory, dba) -> None:
    abc.add_memory("tagged", memory_id="t", metadata={"k": "v"})
    dba().execute("DELETE FROM graphmem_memory WHERE record_id = 't'")
    abc.add_memory("tagged again", memory_id="t", metadata={"k": "w"})
    assert [r.id for r in abc.search("tagged", metadata_filter={"k": "v"})] == []
    assert [r.id for r in abc.search("tagged", metadata_filter={"k": "w"})] == ["t"]
