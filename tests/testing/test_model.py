"""The reference model on small hand-made graphs, including the SPEC tie rule."""

from datetime import datetime, timedelta, timezone

import pytest

from graphmem.testing.model import (
    ExpectedEntry,
    ManualClock,
    ModelFilters,
    ModelLink,
    ModelMemory,
    ReferenceModel,
    json_scalar_equal,
)
from graphmem.testing.shape import TreeRow, expected_tree_rows

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NOW = ModelFilters(now=T0)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def make(*ids: str, user_id: str | None = None) -> ReferenceModel:
    model = ReferenceModel()
    for record_id in ids:
        model.add_memory(ModelMemory(record_id, "fact", "text", user_id=user_id))
    return model


def link(
    model: ReferenceModel, rid: str, source: str, target: str, t: float = 0, kind: str = "supports"
) -> None:
    opposite = {"supports": "is_supported_by", "supersedes": "is_superseded_by"}.get(kind, kind)
    model.add_link(ModelLink(rid, source, target, kind, opposite, at(t)))


def nodes(entries: list[ExpectedEntry]) -> list[tuple[str, str, int]]:
    return [(e.node, e.parent, e.depth) for e in entries]


def test_status_lifecycle_link_invalidates_target_only() -> None:
    model = make("a", "b")
    link(model, "r", "a", "b", kind="supersedes")
    assert (model.status("a"), model.status("b")) == ("valid", "invalid")
    assert model.invalidated_by("b") == {"r"}


def test_status_non_lifecycle_link_keeps_target_valid() -> None:
    model = make("a", "b")
    link(model, "r", "a", "b", kind="supports")
    assert model.status("b") == "valid"


def test_status_type_change_and_delete_recompute() -> None:
    model = make("a", "b")
    link(model, "r", "a", "b", kind="supersedes")
    model.update_link("r", "supports", "is_supported_by")
    assert model.status("b") == "valid"
    model.update_link("r", "duplicates", "duplicates")
    assert model.status("b") == "invalid"
    model.delete_link("r")
    assert model.status("b") == "valid"


def test_delete_memory_cascades_links() -> None:
    model = make("a", "b", "c")
    link(model, "r1", "a", "b", kind="supersedes")
    link(model, "r2", "b", "c")
    model.delete_memory("a")
    assert set(model.links) == {"r2"} and model.status("b") == "valid"


def test_link_conflict_same_triple_and_reverse() -> None:
    model = make("a", "b")
    link(model, "r", "a", "b", kind="supersedes")
    assert model.link_conflict("a", "b", "supersedes")
    assert model.link_conflict("b", "a", "supersedes")
    assert not model.link_conflict("a", "b", "supports")
    assert not model.link_conflict("a", "b", "supersedes", exclude="r")


@pytest.mark.parametrize(
    ("stored", "wanted", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        (True, True, True),
        (None, None, True),
        ("1", 1, False),
        ([1], 1, False),
        ({"a": 1}, None, False),
        (2.5, 2.5, True),
    ],
)
def test_json_scalar_equal(stored: object, wanted: object, equal: bool) -> None:
    assert json_scalar_equal(stored, wanted) is equal


def test_passes_metadata_key_must_be_present() -> None:
    model = ReferenceModel()
    model.add_memory(ModelMemory("a", "fact", "x", metadata={"k": None}))
    model.add_memory(ModelMemory("b", "fact", "x"))
    filters = ModelFilters(now=T0, metadata_filter={"k": None})
    assert model.passes("a", filters) and not model.passes("b", filters)


def test_passes_scope_and_type() -> None:
    model = ReferenceModel()
    model.add_memory(ModelMemory("a", "fact", "x", user_id="u1"))
    assert model.passes("a", ModelFilters(now=T0, user_id="u1"))
    assert not model.passes("a", ModelFilters(now=T0, user_id="u2"))
    assert not model.passes("a", ModelFilters(now=T0, agent_id="g"))
    assert not model.passes("a", ModelFilters(now=T0, record_types=frozenset({"preference"})))


def test_passes_expiry_is_strictly_after_now() -> None:
    model = ReferenceModel()
    model.add_memory(ModelMemory("a", "fact", "x", expires_at=at(10)))
    assert model.passes("a", ModelFilters(now=at(9)))
    assert not model.passes("a", ModelFilters(now=at(10)))


def test_tree_chain_respects_hops() -> None:
    model = make("a", "b", "c", "d")
    link(model, "r1", "a", "b")
    link(model, "r2", "c", "b")
    link(model, "r3", "c", "d")
    assert nodes(model.tree("a", NOW, 2, None)) == [("b", "a", 1), ("c", "b", 2)]
    assert model.tree("a", NOW, 0, None) == [] and model.tree("a", NOW, 3, 0) == []


def test_tree_tie_rule_created_at_before_relation_id() -> None:
    model = make("root", "x", "y")
    link(model, "r1", "root", "x", t=2)
    link(model, "r2", "root", "y", t=1)
    assert [e.node for e in model.tree("root", NOW, 1, None)] == ["y", "x"]


def test_tree_tie_rule_equal_times_use_relation_id() -> None:
    model = make("root", "x", "y")
    link(model, "r2", "root", "x")
    link(model, "r1", "root", "y")
    assert [e.node for e in model.tree("root", NOW, 1, None)] == ["y", "x"]


def test_tree_relation_ids_compare_as_code_points() -> None:
    model = make("root", "x", "y")
    link(model, "é", "root", "x")
    link(model, "z", "root", "y")
    assert [e.node for e in model.tree("root", NOW, 1, None)] == ["y", "x"]


def test_tree_parent_is_min_link_at_previous_depth() -> None:
    model = make("root", "p", "q", "leaf")
    link(model, "r1", "root", "p", t=0)
    link(model, "r2", "root", "q", t=0)
    link(model, "r3", "leaf", "p", t=5)
    link(model, "r4", "q", "leaf", t=3)
    tree = model.tree("root", NOW, 2, None)
    assert nodes(tree) == [("p", "root", 1), ("q", "root", 1), ("leaf", "q", 2)]
    assert tree == model.tree_by_paths("root", NOW, 2, None)


def test_tree_parallel_links_pick_the_earliest() -> None:
    model = make("root", "x")
    link(model, "b", "root", "x", t=0, kind="supports")
    link(model, "a", "x", "root", t=0, kind="supersedes")
    assert [e.relation_id for e in model.tree("root", NOW, 1, None)] == ["a"]


def test_tree_cap_keeps_first_ranked_across_depths() -> None:
    model = make("root", "a", "b", "c")
    link(model, "r1", "root", "a", t=3)
    link(model, "r2", "root", "b", t=1)
    link(model, "r3", "a", "c", t=0)
    assert [e.node for e in model.tree("root", NOW, 2, 2)] == ["b", "a"]
    assert [e.node for e in model.tree("root", NOW, 2, None)] == ["b", "a", "c"]


def test_tree_filtered_nodes_are_not_stepping_stones() -> None:
    model = ReferenceModel()
    for record_id, user in (("a", "u1"), ("b", "u2"), ("c", "u1")):
        model.add_memory(ModelMemory(record_id, "fact", "x", user_id=user))
    link(model, "r1", "a", "b")
    link(model, "r2", "b", "c")
    scoped = ModelFilters(now=T0, user_id="u1")
    assert model.tree("a", scoped, 5, None) == []
    assert model.tree_by_paths("a", scoped, 5, None) == []
    assert nodes(model.tree("a", NOW, 5, None)) == [("b", "a", 1), ("c", "b", 2)]


def test_expected_rows_preorder_with_labels() -> None:
    model = make("root", "old", "x", "y")
    link(model, "r1", "root", "old", t=1, kind="supersedes")
    link(model, "r2", "x", "root", t=2)
    link(model, "r3", "y", "old", t=0)
    rows = expected_tree_rows(model, "root", model.tree("root", NOW, 2, None))
    assert rows == [
        TreeRow("old", "root", "r1", 1, "root", "old", "supersedes", "supersedes", "invalid"),
        TreeRow("y", "old", "r3", 2, "y", "old", "supports", "is_supported_by", "valid"),
        TreeRow("x", "root", "r2", 1, "x", "root", "supports", "is_supported_by", "valid"),
    ]


def test_manual_clock_is_pinned_until_advanced() -> None:
    clock = ManualClock()
    assert clock() == clock() == ManualClock.START
    assert clock.advance(seconds=1) == ManualClock.START + timedelta(seconds=1)
