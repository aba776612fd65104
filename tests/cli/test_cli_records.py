"""add, get, list, update, delete and --version through the installed script."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem import GraphMemory


def test_version_prints_the_package_version(graphmem) -> None:
    run = graphmem("--version")
    assert run.code == 0
    from graphmem import __version__

    assert run.out.strip() == f"graphmem {__version__}"


def test_add_stores_the_memory_with_its_options(graphmem, db: Path) -> None:
    run = graphmem(
        "add",
        "Likes tea.",
        "--id",
        "tea",
        "--type",
        "preference",
        "--user",
        "u1",
        "--metadata",
        '{"source": "chat"}',
        "--timestamp",
        "2025-01-02T03:04:05Z",
    )
    assert (run.code, run.out.strip()) == (0, "tea")
    with GraphMemory(db) as memory:
        record = memory.get_memory("tea")
    assert record.record_type == "preference"
    assert record.user_id == "u1"
    assert record.metadata == {"source": "chat"}
    assert record.timestamp.isoformat() == "2025-01-02T03:04:05+00:00"


def test_add_reads_standard_input_and_prints_json(graphmem, db: Path) -> None:
    run = graphmem("add", "-", "--json", stdin="From stdin.")
    assert run.code == 0
    new_id = run.json()["id"]
    with GraphMemory(db) as memory:
        assert memory.get_memory(new_id).content == "From stdin."


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Two lines.\nThe second.\n", "Two lines.\nThe second."),
        ("From Windows.\r\n", "From Windows."),
        ("Blank lines after.\n\n\r\n", "Blank lines after."),
        ("  Spaces stay.  \n", "  Spaces stay.  "),
    ],
)
def test_standard_input_loses_only_its_trailing_newlines(
    graphmem, db: Path, text: str, content: str
) -> None:
    new_id = graphmem("add", "-", stdin=text).out.strip()
    with GraphMemory(db) as memory:
        assert memory.get_memory(new_id).content == content
    run = graphmem("update", new_id, "--content", "-", "--json", stdin="Updated.\n" + text)
    assert run.code == 0 and run.json()["content"] == "Updated.\n" + content


def test_add_duplicate_id_is_a_user_error(graphmem, user_error) -> None:
    assert graphmem("add", "a", "--id", "x").code == 0
    user_error(graphmem("add", "b", "--id", "x"), "x")


def test_add_if_exists_skip_and_replace(graphmem, db: Path) -> None:
    assert graphmem("add", "a", "--id", "x").code == 0
    assert graphmem("add", "b", "--id", "x", "--if-exists", "skip").out.strip() == "x"
    with GraphMemory(db) as memory:
        assert memory.get_memory("x").content == "a"
    assert graphmem("add", "c", "--id", "x", "--if-exists", "replace").code == 0
    with GraphMemory(db) as memory:
        assert memory.get_memory("x").content == "c"


def test_add_bad_metadata_is_a_usage_error(graphmem) -> None:
    run = graphmem("add", "a", "--metadata", "{not json")
    assert run.code == 2
    assert "--metadata" in run.err and "Traceback" not in run.err


def test_add_without_db_is_a_usage_error(graphmem) -> None:
    run = graphmem("add", "a", env={"GRAPHMEM_DB": ""})
    assert run.code == 2
    assert "--db" in run.err


@pytest.mark.parametrize(
    ("db_value", "args"),
    [
        ("", ("add", "a")),
        (":memory:", ("add", "a")),
        (":memory:", ("import", "-")),
        ("", ("keys", "create", "--role", "read")),
        (":memory:", ("link", "a", "supports", "b")),
        ("", ("list",)),
    ],
)
def test_temporary_db_is_a_usage_error(graphmem, db_value: str, args: tuple[str, ...]) -> None:
    run = graphmem(*args, "--db", db_value, stdin='{"kind": "memory", "content": "a"}\n')
    assert run.code == 2, (run.code, run.out, run.err)
    assert "--db" in run.err and "nothing would be kept" in run.err
    assert run.out == ""


def test_temporary_db_from_the_environment_is_refused_too(graphmem) -> None:
    run = graphmem("add", "a", env={"GRAPHMEM_DB": ":memory:"})
    assert run.code == 2 and "--db" in run.err and "nothing would be kept" in run.err


def test_get_shows_fields_and_invalidating_links(graphmem, pizza_db: Path) -> None:
    run = graphmem("get", "thin")
    assert run.code == 0
    assert "status: invalid" in run.out
    assert "invalidated_by: l-sup  sour -[supersedes]-> thin" in run.out
    data = graphmem("get", "thin", "--json").json()
    assert data["id"] == "thin" and data["invalidated_by"][0]["id"] == "l-sup"


def test_get_unknown_id_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("get", "nope"), "no memory 'nope'")


def test_get_missing_store_file_is_a_user_error(graphmem, tmp_path: Path, user_error) -> None:
    missing = tmp_path / "absent.db"
    user_error(graphmem("get", "x", "--db", str(missing)), "no store")
    assert not missing.exists()


def test_get_missing_store_name_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("get", "thin", "--store", "other"), "'other' has no schema")


def test_missing_store_name_names_the_stores_the_file_holds(
    graphmem, pizza_db: Path, user_error
) -> None:
    assert graphmem("add", "x", "--store", "T_OTHER").code == 0
    run = graphmem("stats", "--store", "absent")
    user_error(run, f"{pizza_db} holds the stores graphmem, T_OTHER (choose one with --store)")


def test_store_option_and_environment_select_the_prefix(graphmem, db: Path) -> None:
    assert graphmem("add", "a", "--id", "a", "--store", "S1").code == 0
    assert graphmem("get", "a", env={"GRAPHMEM_STORE": "S1"}).code == 0
    with GraphMemory(db, memory_store_id="S1") as memory:
        assert memory.get_memory("a").content == "a"


def test_list_pages_through_memories(graphmem, db: Path) -> None:
    with GraphMemory(db) as memory:
        for i in range(5):
            memory.add_memory(f"m{i}", memory_id=f"m{i}", user_id="u1" if i % 2 else "u2")
    first = graphmem("list", "--limit", "2", "--json").json()
    assert [r["id"] for r in first["items"]] == ["m0", "m1"]
    assert first["next_offset"] == 2
    last = graphmem("list", "--limit", "2", "--offset", "4", "--json").json()
    assert [r["id"] for r in last["items"]] == ["m4"] and last["next_offset"] is None
    text = graphmem("list", "--limit", "2")
    assert text.out.splitlines()[0].startswith("m0 [memory, valid]")
    assert "--offset 2" in text.err
    users = graphmem("list", "--user", "u1", "--json").json()
    assert [r["id"] for r in users["items"]] == ["m1", "m3"]


def test_list_filters_metadata_and_validity(graphmem, pizza_db: Path) -> None:
    with GraphMemory(pizza_db) as memory:
        memory.add_memory("tagged", memory_id="t", metadata={"n": 1})
    assert [r["id"] for r in graphmem("list", "--where", "n=1", "--json").json()["items"]] == ["t"]
    valid = graphmem("list", "--valid-only", "--json").json()["items"]
    assert {r["id"] for r in valid} == {"neap", "t"}


def test_list_bad_limit_is_a_usage_error(graphmem, pizza_db: Path) -> None:
    assert graphmem("list", "--limit", "0").code == 2


def test_update_changes_content_and_keeps_links(graphmem, pizza_db: Path) -> None:
    run = graphmem("update", "sour", "--content", "Sourdough, always.", "--json")
    assert run.code == 0 and run.json()["content"] == "Sourdough, always."
    with GraphMemory(pizza_db) as memory:
        assert len(memory.list_record_links("sour")) == 2


def test_update_unknown_id_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("update", "nope", "--content", "x"), "nope")


def test_delete_removes_memory_and_recomputes_validity(graphmem, pizza_db: Path) -> None:
    run = graphmem("delete", "sour")
    assert (run.code, run.out.strip()) == (0, "deleted sour")
    with GraphMemory(pizza_db) as memory:
        assert memory.get_memory("thin").status == "valid"
        assert memory.list_record_links() == []


def test_delete_unknown_id_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("delete", "nope"), "nope")


def test_unknown_verb_is_a_usage_error(graphmem) -> None:
    run = graphmem("frobnicate")
    assert run.code == 2 and "No such command" in run.err


def test_a_value_the_library_refuses_is_reported_under_its_option(graphmem, db: Path) -> None:
    for args, message in (
        (("--ttl-days", "-1"), "graphmem: error: --ttl-days: must be a positive number"),
        (("--timestamp", "notadate"), "graphmem: error: --timestamp: is not ISO 8601"),
        (("--user", " "), "graphmem: error: --user: must not be blank"),
        (("--metadata", '{"a": NaN}'), "graphmem: error: --metadata: "),
    ):
        run = graphmem("add", *args, "Some text.")
        assert (run.code, run.err.split("\n")[0][: len(message)]) == (1, message), run.err
    run = graphmem("list", "--store", "bad-store")
    assert run.code == 1 and run.err.startswith("graphmem: error: --store: "), run.err
    assert not db.exists() or graphmem("list").out.strip() == ""


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("add", "--id", " ", "Some text."), "--id"),
        (("add", " "), "CONTENT"),
        (("get", " "), "MEMORY_ID"),
        (("update", "sour", "--content", " "), "--content"),
        (("update", "", "--content", "x"), "MEMORY_ID"),
        (("delete", ""), "MEMORY_ID"),
        (("link", "", "supports", "thin"), "SOURCE_ID"),
        (("link", "sour", "supports", ""), "TARGET_ID"),
        (("link", "sour", "supports", "sour"), "TARGET_ID"),
        (("link", "sour", "", "thin"), "RELATION_TYPE"),
        (("link", "neap", "supports", "thin", "--id", ""), "--id"),
        (("unlink", ""), "RELATION_ID"),
        (("unlink", "sour", "", "thin"), "TYPE"),
        (("unlink", "sour", "supersedes", " "), "TARGET_ID"),
        (("links", ""), "MEMORY_ID"),
        (("links", "sour", "--type", ""), "--type"),
        (("search", " "), "QUERY"),
        (("tree", ""), "MEMORY_ID"),
        (("why", ""), "MEMORY_ID"),
        (("export", "--root", ""), "--root"),
    ],
)
def test_a_refused_value_is_named_as_the_user_typed_it(
    graphmem, pizza_db: Path, user_error, args: tuple[str, ...], name: str
) -> None:
    """The library names its own argument (``memory_id``, ``content``, ``memory_ids``);
    the message names the verb's option or argument that carried the value."""
    run = graphmem(*args)
    user_error(run, f"graphmem: error: {name}: ")


def test_get_shows_that_a_memory_expired(graphmem, db: Path) -> None:
    """``status`` stays the links' validity; ``expired`` says the ttl has passed (list
    leaves such a memory out)."""
    past = datetime.now(timezone.utc) - timedelta(days=2)
    with GraphMemory(db, clock=lambda: past) as memory:  # "temp" expired a day ago
        memory.add_memory("Temporary.", memory_id="temp", ttl_days=1)
        memory.add_memory("Lasting.", memory_id="kept", ttl_days=10)
    text = graphmem("get", "temp").out.splitlines()
    assert "status: valid" in text and "expired: true" in text, text
    expires = next(i for i, line in enumerate(text) if line.startswith("expires_at: "))
    assert text.index("expired: true") == expires + 1
    shown = graphmem("get", "temp", "--json").json()
    assert (shown["status"], shown["expired"]) == ("valid", True)
    assert list(shown).index("expired") == list(shown).index("expires_at") + 1
    assert "expired" not in graphmem("get", "kept").out
    assert graphmem("get", "kept", "--json").json()["expired"] is False
    assert [item["id"] for item in graphmem("list", "--json").json()["items"]] == ["kept"]
