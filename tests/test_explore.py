"""tree, explain_invalid, history, subgraph, stats and to_networkx of GraphMemory."""

from __future__ import annotations

import itertools
import random
import sqlite3

import networkx as nx
import pytest

from graphmem import GraphMemory, NotFoundError
from graphmem.models import SearchResult


def _shape(result: SearchResult) -> list[tuple[str, str, list]]:
    return [(rel.id, child.id, _shape(child)) for rel, child in result.linked_results]


@pytest.fixture
def chain() -> GraphMemory:
    """a <-supersedes- b <-refines- c, and c -supports-> d."""
    m = GraphMemory(":memory:")
    for mid in "abcd":
        m.add_memory(f"memory {mid}", memory_id=mid, user_id="u1" if mid != "d" else "u2")
    m.link_records("b", "memory", "a", "memory", "supersedes", relation_id="l1")
    m.link_records("c", "memory", "b", "memory", "refines", relation_id="l2")
    m.link_records("c", "memory", "d", "memory", "supports", relation_id="l3")
    return m


@pytest.mark.parametrize("seed", range(5))
def test_tree_equals_the_tree_search_attaches(seed: int) -> None:
    rng = random.Random(seed)
    memory = GraphMemory(":memory:")
    ids = [f"m{i}" for i in range(30)]
    memory.add_memories({"content": f"text {i}", "memory_id": mid} for i, mid in enumerate(ids))
    pairs = rng.sample(list(itertools.combinations(ids, 2)), 60)
    memory.add_record_links(
        {
            "source_record_id": s,
            "source_record_type": "memory",
            "target_record_id": t,
            "target_record_type": "memory",
            "relation_type": rng.choice(["supports", "refines"]),
        }
        for s, t in pairs
    )
    for hops, cap in ((1, None), (3, 7), (5, 100)):
        for result in memory.search(
            "text",
            max_results=30,
            num_hops=hops,
            max_linked_results=cap,
            include_invalid_results=True,
        ):
            assert _shape(memory.tree(result.id, hops, cap)) == _shape(result)


def _star(leaves: int) -> GraphMemory:
    memory = GraphMemory(":memory:")
    memory.add_memories(
        [{"content": "hub", "memory_id": "hub"}]
        + [{"content": f"leaf {i}", "memory_id": f"leaf{i}"} for i in range(leaves)]
    )
    memory.add_record_links(
        {
            "source_record_id": "hub",
            "source_record_type": "memory",
            "target_record_id": f"leaf{i}",
            "target_record_type": "memory",
            "relation_type": "supports",
        }
        for i in range(leaves)
    )
    return memory


def _statements(memory: GraphMemory, root: str, cap: int | None) -> tuple[int, int]:
    """The SQL statements a 2-hop tree of ``root`` runs, and its linked records."""
    conn = memory._store._conn  # type: ignore[attr-defined]
    assert isinstance(conn, sqlite3.Connection)
    run: list[str] = []
    conn.set_trace_callback(run.append)
    try:
        tree = memory.tree(root, 2, cap)
    finally:
        conn.set_trace_callback(None)
    return len(run), len(_shape(tree)) + sum(len(_shape(c)) for _, c in tree.linked_results)


@pytest.mark.parametrize(("root", "cap"), [("hub", 5), ("hub", None), ("leaf1", 5)])
def test_tree_of_a_hub_runs_as_many_statements_whatever_its_degree(
    root: str, cap: int | None
) -> None:
    """Each level is read in a few statements, not one per reached neighbour."""
    (few, shown_of_20), (many, shown_of_400) = (_statements(_star(n), root, cap) for n in (20, 400))
    assert few == many
    assert (shown_of_20, shown_of_400) == ((20, 400) if cap is None else (cap, cap))


def test_tree_applies_filters_to_linked_records(chain: GraphMemory) -> None:
    assert [c.id for _, c in chain.tree("c", 1).linked_results] == ["b", "d"]
    assert [c.id for _, c in chain.tree("c", 1, user_id="u1").linked_results] == ["b"]


def test_tree_unknown_root_is_not_found(chain: GraphMemory) -> None:
    with pytest.raises(NotFoundError):
        chain.tree("zz")


def test_tree_format_content_shows_invalid_records(chain: GraphMemory) -> None:
    text = chain.tree("c", 2).format_content()
    assert "<content>memory a</content>" in text and "is_superseded_by" not in text


def test_explain_invalid_lists_the_lifecycle_links_and_their_sources(chain: GraphMemory) -> None:
    why = chain.explain_invalid("b")
    assert [(link.id, source.id) for link, source in why.reasons] == [("l2", "c")]
    assert chain.explain_invalid("c").reasons == []


def test_history_follows_lifecycle_links_both_ways(chain: GraphMemory) -> None:
    history = chain.history("b")
    assert [(s.record.id, s.depth) for s in history.newer] == [("c", 1)]
    assert [(s.record.id, s.depth) for s in history.older] == [("a", 1)]
    from_a = chain.history("a")
    assert [(s.record.id, s.depth) for s in from_a.newer] == [("b", 1), ("c", 2)]
    assert [s.record.id for s in chain.history("a", max_depth=1).newer] == ["b"]
    assert "d" not in [s.record.id for s in chain.history("c").older]


def test_subgraph_keeps_links_among_reached_records(chain: GraphMemory) -> None:
    records, links = chain.subgraph(["a"], 2)
    assert [r.id for r in records] == ["a", "b", "c"]
    assert [link.id for link in links] == ["l1", "l2"]


@pytest.fixture
def triangle() -> GraphMemory:
    """a -supports-> b, a -supports-> c, b -supersedes-> c: b and c are a's ring."""
    m = GraphMemory(":memory:")
    for mid in "abc":
        m.add_memory(f"memory {mid}", memory_id=mid)
    m.link_records("a", "memory", "b", "memory", "supports", relation_id="l1")
    m.link_records("a", "memory", "c", "memory", "supports", relation_id="l2")
    m.link_records("b", "memory", "c", "memory", "supersedes", relation_id="l3")
    return m


@pytest.mark.parametrize(
    ("starts", "hops", "ids", "link_ids"),
    [
        (["a"], 1, ["a", "b", "c"], ["l1", "l2", "l3"]),  # l3: b and c both at the last hop
        (["c"], 1, ["c", "a", "b"], ["l1", "l2", "l3"]),  # l1: a and b both at the last hop
        (["b", "c"], 0, ["b", "c"], ["l3"]),  # l3: between two starts
    ],
)
def test_subgraph_keeps_the_links_between_records_of_its_outer_ring(
    triangle: GraphMemory, starts: list[str], hops: int, ids: list[str], link_ids: list[str]
) -> None:
    records, links = triangle.subgraph(starts, hops)
    assert [r.id for r in records] == ids
    assert [link.id for link in links] == link_ids


def test_subgraph_unknown_start_names_memory_ids(chain: GraphMemory) -> None:
    with pytest.raises(NotFoundError, match=r"^memory_ids: no memory 'zz'"):
        chain.subgraph(["a", "zz"])


def test_stats_counts(chain: GraphMemory) -> None:
    stats = chain.stats()
    assert stats.by_status == {"invalid": 2, "valid": 2}
    assert stats.by_user == {"u1": 3, "u2": 1}
    assert stats.links_by_type == {"refines": 1, "supersedes": 1, "supports": 1}


def test_to_networkx_has_every_record_and_link(chain: GraphMemory) -> None:
    graph = chain.to_networkx()
    assert isinstance(graph, nx.MultiDiGraph)
    assert sorted(graph.nodes) == ["a", "b", "c", "d"]
    assert graph.nodes["a"]["status"] == "invalid"
    assert sorted(k for _, _, k in graph.edges(keys=True)) == ["l1", "l2", "l3"]
    assert graph.edges["b", "a", "l1"]["relation_type"] == "supersedes"


def test_stats_builds_no_records(chain: GraphMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("stats read records instead of counting them")

    for name in ("list_memories", "get_memories", "scan_memories", "list_links", "get_links"):
        monkeypatch.setattr(chain._store, name, refuse)
    stats = chain.stats()
    assert (stats.memories, stats.links, stats.by_type) == (4, 3, {"memory": 4})
