"""search, tree, why and stats through the installed script."""

from __future__ import annotations

from pathlib import Path

from graphmem import GraphMemory


def test_search_xml_is_format_content_and_says_what_is_hidden(graphmem, pizza_db: Path) -> None:
    run = graphmem("search", "pizza", "--hops", "2", "--format", "xml", "--max-results", "1")
    assert run.code == 0
    with GraphMemory(pizza_db) as memory:
        expected = memory.search("pizza", num_hops=2, max_results=1)[0].format_content()
    assert run.out.strip() == expected
    assert "2 linked record(s) are invalid" in run.err


def test_search_include_invalid_shows_linked_records(graphmem, pizza_db: Path) -> None:
    run = graphmem(
        "search",
        "Neapolitan sourdough",
        "--hops",
        "2",
        "--format",
        "xml",
        "--include-invalid",
        "--max-results",
        "1",
    )
    assert "<relation_type>refines</relation_type>" in run.out
    assert run.err == ""


def test_search_json_carries_the_tree_and_filters_apply(graphmem, pizza_db: Path) -> None:
    run = graphmem("search", "pizza", "--hops", "1", "--json", "--user", "u1")
    results = run.json()
    assert [r["record"]["id"] for r in results] == ["neap"]
    assert results[0]["linked"][0]["record"]["id"] == "sour"
    assert results[0]["linked"][0]["label"] == "refines"
    assert graphmem("search", "pizza", "--json", "--user", "u2").json() == []


def test_search_cap_zero_drops_linked_context(graphmem, pizza_db: Path) -> None:
    results = graphmem("search", "pizza", "--hops", "2", "--cap", "0", "--json").json()
    assert results[0]["linked"] == []


def test_search_bad_hops_is_a_usage_error(graphmem, pizza_db: Path) -> None:
    assert graphmem("search", "pizza", "--hops", "6").code == 2


def test_search_blank_query_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("search", " "), "QUERY: ")


def test_tree_prints_the_terminal_view(graphmem, pizza_db: Path) -> None:
    run = graphmem("tree", "thin", "--hops", "2")
    assert run.out.splitlines() == [
        "thin [preference, invalid] Thin crust.",
        "└── is_superseded_by → sour [preference, invalid] Sourdough.",
        "    └── is_refined_by → neap [preference, valid] Neapolitan sourdough.",
    ]


def test_tree_hops_and_format(graphmem, pizza_db: Path) -> None:
    one = graphmem("tree", "thin", "--hops", "1", "--json").json()
    assert [c["record"]["id"] for c in one[0]["linked"]] == ["sour"]
    assert one[0]["linked"][0]["linked"] == []
    xml = graphmem("tree", "thin", "--format", "xml").out
    assert "<content>Sourdough.</content>" in xml


def test_tree_unknown_id_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("tree", "nope"), "no memory 'nope'")


def test_why_names_the_invalidating_link_and_history(graphmem, pizza_db: Path) -> None:
    run = graphmem("why", "sour")
    assert "invalid because:" in run.out
    assert "neap refines it (link l-ref" in run.out
    assert "1 is_refined_by → neap" in run.out
    assert "1 supersedes → thin" in run.out
    data = graphmem("why", "thin", "--json").json()
    assert [r["link"]["id"] for r in data["reasons"]] == ["l-sup"]
    assert [(s["record"]["id"], s["depth"]) for s in data["newer"]] == [("sour", 1), ("neap", 2)]
    assert data["older"] == []


def test_why_valid_memory_has_no_reasons(graphmem, pizza_db: Path) -> None:
    assert "valid: no supersedes" in graphmem("why", "neap").out


def test_why_unknown_id_is_a_user_error(graphmem, pizza_db: Path, user_error) -> None:
    user_error(graphmem("why", "nope"), "no memory 'nope'")


def test_stats_counts_by_type_status_user_and_link_type(graphmem, pizza_db: Path) -> None:
    with GraphMemory(pizza_db) as memory:
        memory.add_memory("a fact", memory_type="fact")
    data = graphmem("stats", "--json").json()
    assert data["memories"] == 4 and data["links"] == 2
    assert data["by_type"] == {"fact": 1, "preference": 3}
    assert data["by_status"] == {"invalid": 2, "valid": 2}
    assert data["by_user"] == {"": 1, "u1": 3}
    assert data["links_by_type"] == {"refines": 1, "supersedes": 1}
    assert "memories: 4" in graphmem("stats").out


def test_stats_missing_store_is_a_user_error(graphmem, tmp_path: Path, user_error) -> None:
    user_error(graphmem("stats", "--db", str(tmp_path / "none.db")), "no store")


def test_search_without_results_prints_nothing_and_says_so(graphmem, pizza_db: Path) -> None:
    run = graphmem("search", "pizza", "--user", "nobody")
    assert (run.code, run.out, run.err) == (0, "", "no results\n")
    as_json = graphmem("search", "pizza", "--user", "nobody", "--json")
    assert (as_json.code, as_json.json()) == (0, [])


def test_json_and_another_format_are_a_usage_error(graphmem, pizza_db: Path) -> None:
    for verb in (("search", "pizza"), ("tree", "sour")):
        run = graphmem(*verb, "--json", "--format", "xml")
        assert run.code == 2 and "--json prints JSON" in run.err, run.err
    both = graphmem("search", "pizza", "--json", "--format", "json")
    assert both.code == 0 and isinstance(both.json(), list)
