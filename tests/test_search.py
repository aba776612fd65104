"""GraphMemory.search: exact top-k, every filter, and the linked-context tree (SPEC 1, 3)."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import numpy as np
import pytest

from graphmem import GraphMemory, SearchResult

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _ids(results: list[SearchResult]) -> list[str]:
    return [r.id for r in results]


def _edges(result: SearchResult) -> list[tuple[str, str, str]]:
    """The tree in pre-order as ``(parent, label, child)``."""
    out: list[tuple[str, str, str]] = []
    for relation, child in result.linked_results:
        out.append((result.id, relation.label_from(result.id), child.id))
        out.extend(_edges(child))
    return out


def _tree_ids(result: SearchResult) -> list[str]:
    return [child for _, _, child in _edges(result)]


def _root(store: GraphMemory, content: str, **kwargs) -> SearchResult:
    """Search for a record's exact content and return the single top hit."""
    results = store.search(content, max_results=1, **kwargs)
    assert len(results) == 1
    return results[0]


def _add_nodes(store: GraphMemory, *record_ids: str, root: str) -> None:
    """Add memories; ``root`` gets the unique content that ``_root`` searches for."""
    for record_id in record_ids:
        content = "zebra anchor root" if record_id == root else f"node {record_id}"
        store.add_memory(content, memory_id=record_id)


# direct results -----------------------------------------------------------------


def test_search_empty_store(memory: GraphMemory) -> None:
    assert memory.search("anything") == []


def test_search_exact_content_has_distance_zero(memory: GraphMemory) -> None:
    memory.add_memory("the user drinks green tea", memory_id="tea")
    memory.add_memory("the user rides a bicycle to work", memory_id="bike")
    hit = memory.search("the user drinks green tea", max_results=1)[0]
    assert hit.id == "tea"
    assert hit.distance == pytest.approx(0.0, abs=1e-6)


def test_search_orders_by_distance(memory: GraphMemory) -> None:
    memory.add_memory("green tea", memory_id="close")
    memory.add_memory("green tea with lemon and honey and ginger", memory_id="middle")
    memory.add_memory("a bicycle", memory_id="far")
    results = memory.search("green tea")
    assert _ids(results) == ["close", "middle", "far"]
    distances = [r.distance for r in results]
    assert distances == sorted(distances)


def test_search_ties_broken_by_record_id(memory: GraphMemory) -> None:
    for record_id in ("e", "c", "a", "d", "b"):
        memory.add_memory("identical words", memory_id=record_id)
    assert _ids(memory.search("identical words")) == ["a", "b", "c", "d", "e"]


def test_search_exact_top_k_with_ties_at_the_cut(memory: GraphMemory) -> None:
    memory.add_memory("identical words here", memory_id="best")
    for record_id in ("e", "c", "a", "d", "b"):
        memory.add_memory("identical words", memory_id=record_id)
    memory.add_memory("unrelated bicycle", memory_id="0-far")
    assert _ids(memory.search("identical words", max_results=3)) == ["a", "b", "c"]


class _TableEmbedder:
    """Embeds each known text as a fixed vector."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def test_search_float_noise_ties_by_record_id(db_path) -> None:
    """3v and v are equally far from q; floating point puts 3v ~1e-16 further."""
    v, q = [3.0, 6.0, 7.0, 4.0], [5.0, 9.0, 8.0, 9.0]
    embedder = _TableEmbedder({"three v": [3 * x for x in v], "v": v, "q": q})
    with GraphMemory(db_path, embedder=embedder) as memory:
        memory.add_memory("three v", memory_id="a")
        memory.add_memory("v", memory_id="b")
        assert _ids(memory.search("q", max_results=1)) == ["a"]
        first, second = memory.search("q")
    assert (first.id, second.id) == ("a", "b")
    assert first.distance == second.distance


def test_search_max_results_limits(memory: GraphMemory) -> None:
    for i in range(12):
        memory.add_memory(f"tea number {i}", memory_id=f"m{i:02d}")
    assert len(memory.search("tea")) == 10
    assert len(memory.search("tea", max_results=4)) == 4
    assert len(memory.search("tea", max_results=50)) == 12


def test_search_max_results_zero(memory: GraphMemory) -> None:
    memory.add_memory("tea", memory_id="m")
    assert memory.search("tea", max_results=0) == []


def test_search_is_exact_not_approximate(memory: GraphMemory) -> None:
    texts = {f"m{i:03d}": f"note {i} about topic {i % 7} and colour {i % 5}" for i in range(200)}
    for record_id, text in texts.items():
        memory.add_memory(text, memory_id=record_id)
    query = "note about topic 3 and colour 2"
    vectors = memory.embedder.embed([query, *texts.values()]).astype(np.float64)
    norms = np.linalg.norm(vectors[1:], axis=1) * np.linalg.norm(vectors[0])
    distances = 1.0 - np.array([row @ vectors[0] for row in vectors[1:]]) / norms
    brute = dict(zip(texts, distances.tolist(), strict=True))
    results = memory.search(query, max_results=15)
    returned = [r.id for r in results]
    assert len(set(returned)) == 15
    for r in results:
        assert r.distance == pytest.approx(brute[r.id], abs=1e-9)
    assert all(a.distance <= b.distance + 1e-12 for a, b in itertools.pairwise(results))
    worst = results[-1].distance
    assert all(d >= worst - 1e-12 for record_id, d in brute.items() if record_id not in returned)


def test_search_result_carries_record(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory("tea", memory_id="m", memory_type="fact", user_id="u")
    hit = clocked_memory.search("tea")[0]
    assert hit.record == clocked_memory.get_memory("m")
    assert (hit.id, hit.content, hit.status, hit.record_type) == ("m", "tea", "valid", "fact")


def test_search_is_deterministic(memory: GraphMemory, pizza) -> None:
    thin, sour, neo = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    memory.link_records(neo, "preference", sour, "preference", "refines")
    first = memory.search("pizza", num_hops=2, include_invalid_results=True)
    assert memory.search("pizza", num_hops=2, include_invalid_results=True) == first


# filters on direct results ------------------------------------------------------


@pytest.fixture
def scoped(clocked_memory: GraphMemory) -> GraphMemory:
    m = clocked_memory
    m.add_memory("tea one", memory_id="m1", user_id="u1", agent_id="a1", thread_id="t1")
    m.add_memory("tea two", memory_id="m2", memory_type="fact", user_id="u1", agent_id="a2")
    m.add_memory(
        "tea three", memory_id="m3", memory_type="preference", user_id="u2", thread_id="t1"
    )
    m.add_memory("tea four", memory_id="m4", memory_type="guideline", metadata={"k": "v", "n": 2})
    return m


def test_search_user_id(scoped: GraphMemory) -> None:
    assert sorted(_ids(scoped.search("tea", user_id="u1"))) == ["m1", "m2"]


def test_search_agent_id(scoped: GraphMemory) -> None:
    assert _ids(scoped.search("tea", agent_id="a2")) == ["m2"]


def test_search_thread_id(scoped: GraphMemory) -> None:
    assert sorted(_ids(scoped.search("tea", thread_id="t1"))) == ["m1", "m3"]


def test_search_record_types(scoped: GraphMemory) -> None:
    assert sorted(_ids(scoped.search("tea", record_types=["fact", "guideline"]))) == ["m2", "m4"]


def test_search_record_types_single_string(scoped: GraphMemory) -> None:
    assert _ids(scoped.search("tea", record_types="preference")) == ["m3"]


def test_search_metadata_filter(scoped: GraphMemory) -> None:
    assert _ids(scoped.search("tea", metadata_filter={"k": "v", "n": 2.0})) == ["m4"]


def test_search_metadata_filter_mismatch(scoped: GraphMemory) -> None:
    assert scoped.search("tea", metadata_filter={"k": "other"}) == []


def test_search_unknown_scope_is_empty(scoped: GraphMemory) -> None:
    assert scoped.search("tea", user_id="nobody") == []


def test_search_excludes_invalid_by_default(scoped: GraphMemory) -> None:
    scoped.link_records("m2", "fact", "m1", "memory", "supersedes")
    assert "m1" not in _ids(scoped.search("tea"))


def test_search_include_invalid_results(scoped: GraphMemory) -> None:
    scoped.link_records("m2", "fact", "m1", "memory", "supersedes")
    results = scoped.search("tea", include_invalid_results=True)
    assert "m1" in _ids(results)
    assert all(r.include_invalid_results for r in results)


def test_search_include_invalid_flag_recorded_false(scoped: GraphMemory) -> None:
    assert not any(r.include_invalid_results for r in scoped.search("tea"))


# linked context: the shortest-path tree -----------------------------------------


@pytest.fixture
def chain(clocked_memory: GraphMemory) -> GraphMemory:
    """n0 - n1 - ... - n6, each ``n{i} supports n{i+1}``; n0 has unique content."""
    m = clocked_memory
    m.add_memory("zebra anchor root", memory_id="n0")
    for i in range(1, 7):
        m.add_memory(f"link number {i}", memory_id=f"n{i}")
    for i in range(6):
        m.link_records(f"n{i}", "memory", f"n{i + 1}", "memory", "supports")
    return m


def test_search_num_hops_default_zero(chain: GraphMemory) -> None:
    assert _root(chain, "zebra anchor root").linked_results == []


@pytest.mark.parametrize("hops", [0, 1, 2, 3, 4, 5])
def test_search_num_hops_reaches_that_far(chain: GraphMemory, hops: int) -> None:
    result = _root(chain, "zebra anchor root", num_hops=hops)
    assert _edges(result) == [(f"n{i}", "supports", f"n{i + 1}") for i in range(hops)]


def test_search_linked_nodes_have_no_distance(chain: GraphMemory) -> None:
    result = _root(chain, "zebra anchor root", num_hops=1)
    assert result.distance is not None
    assert result.linked_results[0][1].distance is None


def test_search_follows_links_both_directions(chain: GraphMemory) -> None:
    result = _root(chain, "link number 3", num_hops=1)
    assert result.id == "n3"
    assert _edges(result) == [("n3", "is_supported_by", "n2"), ("n3", "supports", "n4")]


def test_search_relation_keeps_stored_direction(chain: GraphMemory) -> None:
    result = _root(chain, "link number 3", num_hops=1)
    relation, child = result.linked_results[0]
    assert child.id == "n2"
    assert (relation.source_record_id, relation.target_record_id) == ("n2", "n3")


def test_search_max_linked_results_zero(chain: GraphMemory) -> None:
    assert _root(chain, "zebra anchor root", num_hops=3, max_linked_results=0).linked_results == []


def test_search_max_linked_results_cuts_deepest(chain: GraphMemory) -> None:
    result = _root(chain, "zebra anchor root", num_hops=5, max_linked_results=2)
    assert _tree_ids(result) == ["n1", "n2"]


def test_search_max_linked_results_none_keeps_all(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory("zebra anchor root", memory_id="root")
    for i in range(105):
        clocked_memory.add_memory(f"leaf {i}", memory_id=f"leaf{i:03d}")
        clocked_memory.link_records("root", "memory", f"leaf{i:03d}", "memory", "supports")
    assert len(_root(clocked_memory, "zebra anchor root", num_hops=1).linked_results) == 100
    unlimited = _root(clocked_memory, "zebra anchor root", num_hops=1, max_linked_results=None)
    assert len(unlimited.linked_results) == 105


def test_search_cap_ranks_depth_before_age(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "c1", "g1", "c2", "c3", root="r")
    m.link_records("r", "memory", "c1", "memory", "supports")
    m.link_records("c1", "memory", "g1", "memory", "supports")  # older than r-c2, r-c3
    m.link_records("r", "memory", "c2", "memory", "supports")
    m.link_records("r", "memory", "c3", "memory", "supports")
    three = _root(m, "zebra anchor root", num_hops=2, max_linked_results=3)
    assert _tree_ids(three) == ["c1", "c2", "c3"]
    four = _root(m, "zebra anchor root", num_hops=2, max_linked_results=4)
    assert _edges(four) == [
        ("r", "supports", "c1"),
        ("c1", "supports", "g1"),
        ("r", "supports", "c2"),
        ("r", "supports", "c3"),
    ]


def test_search_children_ordered_by_link_age(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "a", "b", "c", root="r")
    m.link_records("r", "memory", "c", "memory", "supports")
    m.link_records("a", "memory", "r", "memory", "contradicts")
    m.link_records("r", "memory", "b", "memory", "supports")
    assert _edges(_root(m, "zebra anchor root", num_hops=1)) == [
        ("r", "supports", "c"),
        ("r", "contradicts", "a"),
        ("r", "supports", "b"),
    ]


def test_search_children_ties_by_relation_id(pinned_memory: GraphMemory) -> None:
    m = pinned_memory
    _add_nodes(m, "r", "a", "b", "c", root="r")
    m.link_records("r", "memory", "a", "memory", "supports", relation_id="l3")
    m.link_records("r", "memory", "b", "memory", "supports", relation_id="l1")
    m.link_records("r", "memory", "c", "memory", "supports", relation_id="l2")
    assert _tree_ids(_root(m, "zebra anchor root", num_hops=1)) == ["b", "c", "a"]


def test_search_parent_is_oldest_link(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "x", "y", "z", root="r")
    m.link_records("r", "memory", "x", "memory", "supports")
    m.link_records("r", "memory", "y", "memory", "supports")
    m.link_records("y", "memory", "z", "memory", "supports")  # older than x-z
    m.link_records("x", "memory", "z", "memory", "supports")
    assert _edges(_root(m, "zebra anchor root", num_hops=2)) == [
        ("r", "supports", "x"),
        ("r", "supports", "y"),
        ("y", "supports", "z"),
    ]


def test_search_parent_tie_by_relation_id(pinned_memory: GraphMemory) -> None:
    m = pinned_memory
    _add_nodes(m, "r", "x", "y", "z", root="r")
    m.link_records("r", "memory", "x", "memory", "supports", relation_id="l1")
    m.link_records("r", "memory", "y", "memory", "supports", relation_id="l2")
    m.link_records("x", "memory", "z", "memory", "supports", relation_id="l9")
    m.link_records("z", "memory", "y", "memory", "refines", relation_id="l5")
    assert _edges(_root(m, "zebra anchor root", num_hops=2)) == [
        ("r", "supports", "x"),
        ("r", "supports", "y"),
        ("y", "is_refined_by", "z"),
    ]


# In the next tests the older link has the larger relation id and leads to the
# larger record id, so only the created_at part of the tie rule picks it.


def test_search_parent_oldest_link_despite_ids(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "x", "y", "z", root="r")
    m.link_records("r", "memory", "y", "memory", "supports", relation_id="l8")
    m.link_records("r", "memory", "x", "memory", "supports", relation_id="l7")
    m.link_records("y", "memory", "z", "memory", "supports", relation_id="l6")
    m.link_records("x", "memory", "z", "memory", "supports", relation_id="l5")
    assert _edges(_root(m, "zebra anchor root", num_hops=2)) == [
        ("r", "supports", "y"),
        ("y", "supports", "z"),
        ("r", "supports", "x"),
    ]


def test_search_cap_keeps_oldest_links_despite_ids(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "a", "b", "c", root="r")
    m.link_records("r", "memory", "c", "memory", "supports", relation_id="l3")
    m.link_records("r", "memory", "b", "memory", "supports", relation_id="l2")
    m.link_records("r", "memory", "a", "memory", "supports", relation_id="l1")
    assert _tree_ids(_root(m, "zebra anchor root", num_hops=1, max_linked_results=2)) == ["c", "b"]


def test_search_cap_cut_within_deeper_level_despite_ids(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "p", "c", "b", "a", root="r")
    m.link_records("r", "memory", "p", "memory", "supports", relation_id="l9")
    m.link_records("p", "memory", "c", "memory", "supports", relation_id="l3")
    m.link_records("p", "memory", "b", "memory", "supports", relation_id="l2")
    m.link_records("p", "memory", "a", "memory", "supports", relation_id="l1")
    assert _edges(_root(m, "zebra anchor root", num_hops=2, max_linked_results=3)) == [
        ("r", "supports", "p"),
        ("p", "supports", "c"),
        ("p", "supports", "b"),
    ]


def test_search_cap_counts_earlier_levels(clocked_memory: GraphMemory) -> None:
    """r-a, a-b, a-c, 2 hops, cap 2: the second level keeps one node, not two."""
    m = clocked_memory
    _add_nodes(m, "r", "a", "b", "c", root="r")
    m.link_records("r", "memory", "a", "memory", "supports")
    m.link_records("a", "memory", "b", "memory", "supports")
    m.link_records("a", "memory", "c", "memory", "supports")
    assert _tree_ids(_root(m, "zebra anchor root", num_hops=2, max_linked_results=2)) == ["a", "b"]


def test_search_shortest_path_wins_over_older_longer(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "r", "a", "b", root="r")
    m.link_records("r", "memory", "a", "memory", "supports")
    m.link_records("a", "memory", "b", "memory", "supports")
    m.link_records("r", "memory", "b", "memory", "contradicts")
    assert _edges(_root(m, "zebra anchor root", num_hops=3)) == [
        ("r", "supports", "a"),
        ("r", "contradicts", "b"),
    ]


def test_search_root_never_in_own_tree(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    _add_nodes(m, "a", "b", "c", root="a")
    m.link_records("a", "memory", "b", "memory", "supports")
    m.link_records("b", "memory", "c", "memory", "supports")
    m.link_records("c", "memory", "a", "memory", "supports")
    assert _edges(_root(m, "zebra anchor root", num_hops=5)) == [
        ("a", "supports", "b"),
        ("a", "is_supported_by", "c"),
    ]


def test_search_parallel_links_reach_once(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    m.add_memory("zebra anchor root", memory_id="r")
    m.add_memory("node b", memory_id="b")
    m.link_records("b", "memory", "r", "memory", "contradicts")
    m.link_records("r", "memory", "b", "memory", "supports")
    assert _edges(_root(m, "zebra anchor root", num_hops=2)) == [("r", "contradicts", "b")]


def test_search_other_direct_results_may_appear(memory: GraphMemory, pizza) -> None:
    thin, sour, neo = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    memory.link_records(neo, "preference", sour, "preference", "refines")
    results = memory.search("pizza", num_hops=1, include_invalid_results=True)
    assert sorted(_ids(results)) == sorted([thin, sour, neo])
    by_id = {r.id: r for r in results}
    assert _edges(by_id[sour]) == [
        (sour, "supersedes", thin),
        (sour, "is_refined_by", neo),
    ]
    assert _edges(by_id[thin]) == [(thin, "is_superseded_by", sour)]


def test_search_linked_context_includes_invalid(memory: GraphMemory, pizza) -> None:
    thin, sour, neo = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    memory.link_records(neo, "preference", sour, "preference", "refines")
    results = memory.search("pizza", num_hops=2)
    assert _ids(results) == [neo]
    assert _edges(results[0]) == [(neo, "refines", sour), (sour, "supersedes", thin)]
    assert [child.status for _, child in results[0].linked_results] == ["invalid"]


def test_search_custom_relation_labels(clocked_memory: GraphMemory) -> None:
    m = clocked_memory
    m.add_memory("zebra anchor root", memory_id="r")
    m.add_memory("node a", memory_id="a")
    m.add_memory("node b", memory_id="b")
    m.link_records("r", "memory", "a", "memory", "mentions", "is_mentioned_by")
    m.link_records("b", "memory", "r", "memory", "mentions", "is_mentioned_by")
    assert _edges(_root(m, "zebra anchor root", num_hops=1)) == [
        ("r", "mentions", "a"),
        ("r", "is_mentioned_by", "b"),
    ]


# filters on linked context ------------------------------------------------------


@pytest.fixture
def bridge(clocked_memory: GraphMemory) -> GraphMemory:
    """root -> mid -> leaf, plus root -> side; mid differs in every filterable field."""
    m = clocked_memory
    m.add_memory(
        "zebra anchor root",
        memory_id="root",
        user_id="u",
        agent_id="a",
        thread_id="t",
        metadata={"k": "v"},
    )
    m.add_memory(
        "middle",
        memory_id="mid",
        memory_type="fact",
        user_id="other",
        agent_id="other",
        thread_id="other",
        metadata={"k": "w"},
    )
    m.add_memory(
        "leaf", memory_id="leaf", user_id="u", agent_id="a", thread_id="t", metadata={"k": "v"}
    )
    m.add_memory(
        "side", memory_id="side", user_id="u", agent_id="a", thread_id="t", metadata={"k": "v"}
    )
    m.link_records("root", "memory", "mid", "fact", "supports")
    m.link_records("mid", "fact", "leaf", "memory", "supports")
    m.link_records("root", "memory", "side", "memory", "supports")
    m.link_records("side", "memory", "leaf", "memory", "contradicts")
    return m


def test_search_unfiltered_bridge_uses_middle(bridge: GraphMemory) -> None:
    assert _edges(_root(bridge, "zebra anchor root", num_hops=2)) == [
        ("root", "supports", "mid"),
        ("mid", "supports", "leaf"),
        ("root", "supports", "side"),
    ]


@pytest.mark.parametrize(
    "filters",
    [
        {"user_id": "u"},
        {"agent_id": "a"},
        {"thread_id": "t"},
        {"record_types": ["memory"]},
        {"metadata_filter": {"k": "v"}},
    ],
    ids=["user_id", "agent_id", "thread_id", "record_types", "metadata_filter"],
)
def test_search_filters_apply_to_linked_records(bridge: GraphMemory, filters) -> None:
    assert _edges(_root(bridge, "zebra anchor root", num_hops=2, **filters)) == [
        ("root", "supports", "side"),
        ("side", "contradicts", "leaf"),
    ]


@pytest.mark.parametrize(
    "filters",
    [{"user_id": "u"}, {"record_types": ["memory"]}, {"metadata_filter": {"k": "v"}}],
    ids=["user_id", "record_types", "metadata_filter"],
)
def test_search_filtered_record_not_a_stepping_stone(bridge: GraphMemory, filters) -> None:
    bridge.delete_record_link(
        source_record_id="side",
        source_record_type="memory",
        target_record_id="leaf",
        target_record_type="memory",
        relation_type="contradicts",
    )
    assert _tree_ids(_root(bridge, "zebra anchor root", num_hops=5, **filters)) == ["side"]


def test_search_expired_linked_record_left_out(clocked_memory: GraphMemory, clock) -> None:
    m = clocked_memory
    m.add_memory("zebra anchor root", memory_id="root")
    m.add_memory("short lived", memory_id="mid", ttl_days=1)
    m.add_memory("leaf", memory_id="leaf")
    m.link_records("root", "memory", "mid", "memory", "supports")
    m.link_records("mid", "memory", "leaf", "memory", "supports")
    assert _tree_ids(_root(m, "zebra anchor root", num_hops=2)) == ["mid", "leaf"]
    clock.advance(days=2)
    assert _tree_ids(_root(m, "zebra anchor root", num_hops=2)) == []


def test_search_include_invalid_does_not_filter_linked(bridge: GraphMemory) -> None:
    bridge.link_records("leaf", "memory", "side", "memory", "supersedes")
    result = _root(bridge, "zebra anchor root", num_hops=1, include_invalid_results=False)
    assert _tree_ids(result) == ["mid", "side"]
    assert result.linked_results[1][1].status == "invalid"


def test_search_each_root_has_its_own_tree(chain: GraphMemory) -> None:
    results = chain.search("link number", max_results=10, num_hops=1, max_linked_results=1)
    trees = {r.id: _tree_ids(r) for r in results}
    assert trees["n1"] == ["n0"]
    assert trees["n6"] == ["n5"]
    assert trees["n3"] == ["n2"]
