"""link, unlink, links through the installed script."""

from __future__ import annotations

from pathlib import Path

from graphmem import GraphMemory


def test_link_creates_a_lifecycle_link_and_invalidates_the_target(graphmem, db: Path) -> None:
    with GraphMemory(db) as memory:
        memory.add_memory("old", memory_id="old", memory_type="fact")
        memory.add_memory("new", memory_id="new", memory_type="fact")
    run = graphmem("link", "new", "supersedes", "old", "--id", "L1", "--metadata", '{"by": "me"}')
    assert (run.code, run.out.strip()) == (0, "L1")
    with GraphMemory(db) as memory:
        assert memory.get_memory("old").status == "invalid"
        assert memory.get_record_link("L1").metadata == {"by": "me"}


def test_link_custom_type_needs_an_opposite(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("link", "neap", "mentions", "thin"), "--opposite: ")
    run = graphmem("link", "neap", "mentions", "thin", "--opposite", "is_mentioned_by", "--json")
    assert run.code == 0 and run.json()["id"]


def test_link_unknown_endpoint_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("link", "neap", "supports", "nope"), "nope")


def test_link_duplicate_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("link", "sour", "supersedes", "thin"), "already exists")


def test_unlink_by_id_restores_validity(graphmem, pizza_db: Path) -> None:
    assert graphmem("unlink", "l-sup").code == 0
    with GraphMemory(pizza_db) as memory:
        assert memory.get_memory("thin").status == "valid"


def test_unlink_by_triple(graphmem, pizza_db: Path) -> None:
    assert graphmem("unlink", "neap", "refines", "sour").code == 0
    with GraphMemory(pizza_db) as memory:
        assert [link.id for link in memory.list_record_links()] == ["l-sup"]


def test_unlink_unknown_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("unlink", "nope"), "no link 'nope'")


def test_unlink_two_arguments_is_a_usage_error(graphmem, pizza_db: Path) -> None:
    assert graphmem("unlink", "a", "b").code == 2


def test_links_lists_by_record_and_type(graphmem, pizza_db: Path) -> None:
    run = graphmem("links", "sour")
    assert run.out.splitlines() == [
        "l-sup  sour -[supersedes]-> thin",
        "l-ref  neap -[refines]-> sour",
    ]
    only = graphmem("links", "--type", "refines", "--json").json()
    assert [link["id"] for link in only] == ["l-ref"]


def test_links_unknown_record_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("links", "nope"), "no memory 'nope'")


def test_unlink_and_delete_json_name_the_deleted_id_alike(graphmem, pizza_db: Path) -> None:
    """Each deletes one thing; --json gives its id as a string under ``deleted``: the
    relation id for a link named by its triple too (not the words of the triple)."""
    assert graphmem("unlink", "neap", "refines", "sour", "--json").json() == {"deleted": "l-ref"}
    assert graphmem("unlink", "l-sup", "--json").json() == {"deleted": "l-sup"}
    assert graphmem("delete", "thin", "--json").json() == {"deleted": "thin"}
    with GraphMemory(pizza_db) as memory:
        assert memory.list_record_links() == []
        assert [m.id for m in memory.list_memories()] == ["sour", "neap"]
