"""Seed 002 ("Create and Search Linked Memory Graphs"), step by step."""

from __future__ import annotations

import pytest

from graphmem import GraphMemory, NotFoundError, SearchResultFormatConfig

USER = "graph-demo-user"
THIN, SOUR, NEO = "pizza-thin-crust", "pizza-sourdough", "pizza-neapolitan-sourdough"

SEED_CONFIG = SearchResultFormatConfig(
    include_invalid_results=True,
    show_timestamp=False,
    show_role=False,
    show_status=False,
)

SEED_OUTPUT = """\
<preference>
  <record_id>pizza-neapolitan-sourdough</record_id>
  <content>The user's preferred pizza style is sourdough, especially Neapolitan sourdough.</content>
  <linked_records>
    <linked_record>
      <relation_type>refines</relation_type>
      <preference>
        <record_id>pizza-sourdough</record_id>
        <content>The user now prefers sourdough pizza.</content>
        <linked_records>
          <linked_record>
            <relation_type>supersedes</relation_type>
            <preference>
              <record_id>pizza-thin-crust</record_id>
              <content>The user's preferred pizza style is thin crust.</content>
            </preference>
          </linked_record>
        </linked_records>
      </preference>
    </linked_record>
  </linked_records>
</preference>"""


@pytest.fixture
def seeded(memory: GraphMemory, pizza) -> GraphMemory:
    assert pizza(memory) == (THIN, SOUR, NEO)
    return memory


@pytest.fixture
def linked(seeded: GraphMemory) -> tuple[GraphMemory, str, str]:
    supersedes = seeded.link_records(
        source_record_id=SOUR,
        source_record_type="preference",
        target_record_id=THIN,
        target_record_type="preference",
        relation_type="supersedes",
    )
    refines = seeded.link_records(
        source_record_id=NEO,
        source_record_type="preference",
        target_record_id=SOUR,
        target_record_type="preference",
        relation_type="refines",
    )
    return seeded, supersedes, refines


@pytest.fixture
def recreated(linked: tuple[GraphMemory, str, str]) -> GraphMemory:
    """Every step of the seed up to the search: update, delete by id and by triple, relink."""
    memory, supersedes, _ = linked
    memory.update_record_link(
        supersedes, relation_type="supports", metadata={"reviewed_by": "preference-service"}
    )
    memory.delete_record_link(relation_id=supersedes)
    memory.delete_record_link(
        source_record_id=NEO,
        source_record_type="preference",
        target_record_id=SOUR,
        target_record_type="preference",
        relation_type="refines",
    )
    memory.link_records(SOUR, "preference", THIN, "preference", "supersedes")
    memory.link_records(NEO, "preference", SOUR, "preference", "refines")
    return memory


def _search(memory: GraphMemory):
    return memory.search(
        "What pizza should I recommend?",
        user_id=USER,
        max_results=5,
        num_hops=2,
        max_linked_results=20,
        include_invalid_results=False,
    )


def test_seed_flow_added_memories_valid(seeded: GraphMemory, statuses) -> None:
    assert statuses(seeded) == {THIN: "valid", SOUR: "valid", NEO: "valid"}


def test_seed_flow_added_memories_fields(seeded: GraphMemory) -> None:
    record = seeded.get_memory(SOUR)
    assert (record.record_type, record.user_id, record.content) == (
        "preference",
        USER,
        "The user now prefers sourdough pizza.",
    )


def test_seed_flow_supersedes_invalidates_thin_crust(seeded: GraphMemory, statuses) -> None:
    seeded.link_records(SOUR, "preference", THIN, "preference", "supersedes")
    assert statuses(seeded) == {THIN: "invalid", SOUR: "valid", NEO: "valid"}


def test_seed_flow_refines_invalidates_sourdough(linked, statuses) -> None:
    memory, _, _ = linked
    assert statuses(memory) == {THIN: "invalid", SOUR: "invalid", NEO: "valid"}


def test_seed_flow_invalidated_by_names_links(linked) -> None:
    memory, supersedes, refines = linked
    assert [r.id for r in memory.get_memory(THIN).invalidated_by] == [supersedes]
    assert [r.id for r in memory.get_memory(SOUR).invalidated_by] == [refines]
    assert memory.get_memory(NEO).invalidated_by == ()


def test_seed_flow_links_stored_as_directed(linked) -> None:
    memory, supersedes, refines = linked
    assert [
        (r.id, r.source_record_id, r.relation_type, r.target_record_id)
        for r in memory.list_record_links()
    ] == [(supersedes, SOUR, "supersedes", THIN), (refines, NEO, "refines", SOUR)]


def test_seed_flow_update_to_supports_revalidates(linked, statuses) -> None:
    memory, supersedes, _ = linked
    updated = memory.update_record_link(
        supersedes, relation_type="supports", metadata={"reviewed_by": "preference-service"}
    )
    assert (updated.relation_type, updated.opposite_relation_type) == (
        "supports",
        "is_supported_by",
    )
    assert updated.metadata == {"reviewed_by": "preference-service"}
    assert (updated.source_record_id, updated.target_record_id) == (SOUR, THIN)
    assert statuses(memory) == {THIN: "valid", SOUR: "invalid", NEO: "valid"}


def test_seed_flow_delete_by_id(linked, statuses) -> None:
    memory, supersedes, refines = linked
    memory.update_record_link(supersedes, relation_type="supports")
    memory.delete_record_link(relation_id=supersedes)
    with pytest.raises(NotFoundError):
        memory.get_record_link(supersedes)
    assert [r.id for r in memory.list_record_links()] == [refines]
    assert statuses(memory) == {THIN: "valid", SOUR: "invalid", NEO: "valid"}


def test_seed_flow_delete_by_triple(linked, statuses) -> None:
    memory, supersedes, _ = linked
    memory.update_record_link(supersedes, relation_type="supports")
    memory.delete_record_link(relation_id=supersedes)
    memory.delete_record_link(
        source_record_id=NEO,
        source_record_type="preference",
        target_record_id=SOUR,
        target_record_type="preference",
        relation_type="refines",
    )
    assert memory.list_record_links() == []
    assert statuses(memory) == {THIN: "valid", SOUR: "valid", NEO: "valid"}


def test_seed_flow_delete_without_update_revalidates(linked, statuses) -> None:
    memory, supersedes, _ = linked
    memory.delete_record_link(relation_id=supersedes)
    assert statuses(memory) == {THIN: "valid", SOUR: "invalid", NEO: "valid"}


def test_seed_flow_recreate_positional(recreated: GraphMemory, statuses) -> None:
    assert statuses(recreated) == {THIN: "invalid", SOUR: "invalid", NEO: "valid"}
    assert [
        (r.source_record_id, r.relation_type, r.target_record_id)
        for r in recreated.list_record_links()
    ] == [(SOUR, "supersedes", THIN), (NEO, "refines", SOUR)]


def test_seed_flow_memories_never_deleted(recreated: GraphMemory) -> None:
    assert [m.id for m in recreated.list_memories()] == [THIN, SOUR, NEO]


def test_seed_flow_search_direct_results(recreated: GraphMemory) -> None:
    assert [r.id for r in _search(recreated)] == [NEO]


def test_seed_flow_search_tree(recreated: GraphMemory) -> None:
    (result,) = _search(recreated)
    ((relation, child),) = result.linked_results
    assert (child.id, child.status, relation.label_from(NEO)) == (SOUR, "invalid", "refines")
    ((relation2, grandchild),) = child.linked_results
    assert (grandchild.id, grandchild.status, relation2.label_from(SOUR)) == (
        THIN,
        "invalid",
        "supersedes",
    )
    assert grandchild.linked_results == []


def test_seed_flow_search_render(recreated: GraphMemory) -> None:
    assert [r.format_content(SEED_CONFIG) for r in _search(recreated)] == [SEED_OUTPUT]


def test_seed_flow_search_render_default_hides_invalid_history(recreated: GraphMemory) -> None:
    (result,) = _search(recreated)
    lines = result.format_content().splitlines()
    assert lines[0:2] == ["<preference>", f"  <record_id>{NEO}</record_id>"]
    assert lines[2].startswith("  <timestamp>")
    assert lines[3:] == [
        "  <status>valid</status>",
        "  <content>The user's preferred pizza style is sourdough, especially Neapolitan"
        " sourdough.</content>",
        "</preference>",
    ]


def test_seed_flow_search_include_invalid_direct(recreated: GraphMemory) -> None:
    results = recreated.search(
        "What pizza should I recommend?", user_id=USER, max_results=5, include_invalid_results=True
    )
    assert sorted(r.id for r in results) == sorted([THIN, SOUR, NEO])
