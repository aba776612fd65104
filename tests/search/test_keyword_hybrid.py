"""Keyword (FTS5) and hybrid retrieval: triggers keep the index in step, the
upgrade indexes older stores, fusion follows its formula."""

import sqlite3
from pathlib import Path

import pytest

from graphmem import GraphMemory, HybridConfig, InvalidArgumentError, TopKMemorySearchConfig
from graphmem.core import fusion
from graphmem.core.fusion import reciprocal_rank_fusion
from graphmem.stores.sqlite_schema import SCHEMA_VERSION
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock

V3_INSTALL = (Path(__file__).parents[1] / "data" / "sqlite_install_v3.sql").read_text("utf-8")


@pytest.fixture(params=["sqlite", "memory"])
def memory(request, tmp_path: Path) -> GraphMemory:
    connection = tmp_path / "k.db" if request.param == "sqlite" else MemoryStore()
    memory = GraphMemory(connection, clock=ManualClock())
    memory.add_memories(
        [
            {"content": "The service stores orders in PostgreSQL.", "memory_id": "db"},
            {"content": "Deploys run through GitHub Actions.", "memory_id": "ci"},
            {"content": "Error code E4711 means the cache is cold.", "memory_id": "err"},
            {"content": "The team prefers tea over coffee.", "memory_id": "tea", "user_id": "u"},
        ]
    )
    return memory


def _ids(results: list) -> list[str]:
    return [r.id for r in results]


def test_keyword_finds_exact_rare_token(memory: GraphMemory) -> None:
    results = memory.search("what does E4711 mean", strategy="keyword")
    assert _ids(results)[0] == "err"
    assert results[0].distance is None
    assert results.stats.strategy == "keyword"


def test_keyword_matches_case_insensitively_and_only_matching(memory: GraphMemory) -> None:
    assert _ids(memory.search("POSTGRESQL", strategy="keyword")) == ["db"]
    assert _ids(memory.search("zebra", strategy="keyword")) == []


def test_keyword_query_syntax_is_plain_words(memory: GraphMemory) -> None:
    for query in ['"', "NOT AND OR", "tea*", "(tea", "tea:coffee", "NEAR(tea coffee)"]:
        ids = _ids(memory.search(query, strategy="keyword"))
        assert set(ids) <= {"tea"}


def test_keyword_applies_filters(memory: GraphMemory) -> None:
    assert _ids(memory.search("tea", strategy="keyword", user_id="u")) == ["tea"]
    assert _ids(memory.search("tea", strategy="keyword", user_id="other")) == []


def test_keyword_follows_updates_and_deletes(memory: GraphMemory) -> None:
    memory.update_memory("ci", content="Deploys run through Jenkins.")
    assert _ids(memory.search("jenkins", strategy="keyword")) == ["ci"]
    assert _ids(memory.search("github", strategy="keyword")) == []
    memory.delete_memory("ci")
    assert _ids(memory.search("jenkins", strategy="keyword")) == []


def test_keyword_skips_invalid_unless_asked(memory: GraphMemory) -> None:
    memory.add_memory("Orders now live in Oracle, not PostgreSQL.", memory_id="db2")
    memory.link_records("db2", "memory", "db", "memory", "supersedes")
    assert _ids(memory.search("postgresql", strategy="keyword")) == ["db2"]
    both = memory.search("postgresql", strategy="keyword", include_invalid_results=True)
    assert sorted(_ids(both)) == ["db", "db2"]


def test_hybrid_holds_results_of_both_rankings(memory: GraphMemory) -> None:
    results = memory.search("E4711", strategy="hybrid", max_results=4)
    assert "err" in _ids(results)
    assert all(r.distance is not None for r in results)  # all four are in the vector list


def test_hybrid_order_is_weighted_rrf_of_the_two_rankings(memory: GraphMemory) -> None:
    hybrid = HybridConfig(vector_weight=2.0, keyword_weight=0.5, c=10.0)
    config = TopKMemorySearchConfig(hybrid=hybrid)
    vector = _ids(memory.search("tea coffee orders", max_results=hybrid.candidates))
    keyword = _ids(
        memory.search("tea coffee orders", strategy="keyword", max_results=hybrid.candidates)
    )
    fused = reciprocal_rank_fusion([vector, keyword], [2.0, 0.5], 10.0)
    results = memory.search("tea coffee orders", strategy="hybrid", search_config=config)
    assert _ids(results) == [record_id for record_id, _ in fused][:10]


@pytest.mark.parametrize(("weights", "strategy"), [((0.0, 1.0), "keyword"), ((1.0, 0.0), "vector")])
def test_hybrid_with_a_zero_weight_is_the_other_ranking(
    memory: GraphMemory, weights: tuple[float, float], strategy: str
) -> None:
    hybrid = HybridConfig(vector_weight=weights[0], keyword_weight=weights[1])
    config = TopKMemorySearchConfig(hybrid=hybrid)
    fused = memory.search("tea orders", strategy="hybrid", search_config=config)
    alone = memory.search("tea orders", strategy=strategy, max_results=hybrid.candidates)
    assert _ids(fused) == _ids(alone)[:10]


def test_rrf_ties_break_by_id() -> None:
    assert reciprocal_rank_fusion([["b"], ["a"]], [1.0, 1.0], 60.0) == [
        ("a", 1 / 61),
        ("b", 1 / 61),
    ]


@pytest.mark.parametrize("strategy", ["semantic", "", None, "VECTOR"])
def test_unknown_strategy_is_refused(memory: GraphMemory, strategy: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        memory.search("tea", strategy=strategy)
    assert info.value.argument == "strategy"


@pytest.mark.parametrize(
    "kwargs",
    [{"c": -1.0}, {"vector_weight": float("nan")}, {"vector_weight": 0, "keyword_weight": 0}],
)
def test_bad_hybrid_config_is_refused(kwargs: dict) -> None:
    with pytest.raises(InvalidArgumentError):
        HybridConfig(**kwargs)


# SQLite: the index kept by triggers, for any DML ------------------------------------


def test_fts_index_follows_raw_sql_replace(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with GraphMemory(path, clock=ManualClock()) as memory:
        memory.add_memory("alpha words", memory_id="x")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT OR REPLACE INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES ('x', 'memory', 'beta words', '2026-01-01T00:00:00.000000+00:00')"
    )
    conn.commit()
    rows = conn.execute("SELECT COUNT(*) FROM graphmem_memory_fts").fetchone()
    conn.close()
    assert rows == (1,)
    with GraphMemory(path, clock=ManualClock()) as memory:
        assert _ids(memory.search("beta", strategy="keyword")) == ["x"]
        assert _ids(memory.search("alpha", strategy="keyword")) == []


def test_v3_store_is_upgraded_and_indexed(tmp_path: Path) -> None:
    """A file made by the schema version 3 script (main before keyword search),
    with rows written by hand, is upgraded on open and its memories indexed."""
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    conn.executescript(V3_INSTALL)
    for record_id, text in (("a", "kestrel sighting"), ("b", "heron nest")):
        conn.execute(
            "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
            "VALUES (?, 'memory', ?, '2026-01-01T00:00:00.000000+00:00')",
            (record_id, text),
        )
    conn.commit()
    conn.close()
    with GraphMemory(path, clock=ManualClock()) as memory:
        assert _ids(memory.search("kestrel", strategy="keyword")) == ["a"]
        memory.add_memory("another kestrel", memory_id="c")
        assert sorted(_ids(memory.search("kestrel", strategy="keyword"))) == ["a", "c"]
    conn = sqlite3.connect(path)
    version = conn.execute(
        "SELECT meta_value FROM graphmem_meta WHERE meta_key = 'schema_version'"
    ).fetchone()
    conn.close()
    assert version == (SCHEMA_VERSION,)


def test_sqlite_keyword_matches_common_words_when_the_others_find_too_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fusion, "COMMON_MIN_DOCUMENTS", 0)  # words common in a small store
    memory = GraphMemory(tmp_path / "s.db", clock=ManualClock())
    memory.add_memories(
        [{"content": f"the note number {i}", "memory_id": f"n{i:02}"} for i in range(20)]
    )
    memory.add_memory("the kestrel nests here", memory_id="k")
    with memory._store.transaction(write=False):
        assert memory._store._match_terms(["the", "kestrel"]) == [["kestrel"], ["the", "kestrel"]]
    # kestrel alone fills one result; five need "the" as well
    assert _ids(memory.search("the kestrel", strategy="keyword", max_results=1)) == ["k"]
    found = _ids(memory.search("the kestrel", strategy="keyword", max_results=5))
    assert found[0] == "k" and len(found) == 5 and set(found[1:]) < {f"n{i:02}" for i in range(20)}
    # a query of common words only
    assert len(memory.search("the", strategy="keyword", max_results=50)) == 21
    memory.close()


def test_keyword_in_a_small_store_matches_every_word(memory: GraphMemory) -> None:
    memory.add_memory("Error code E5000 means the disk is full.", memory_id="err2")
    for query in ("E4711 E5000", "E5000 E4711"):
        assert sorted(_ids(memory.search(query, strategy="keyword"))) == ["err", "err2"], query


def test_keyword_word_with_underscore_matches(memory: GraphMemory) -> None:
    memory.add_memory("Pass the user_id header on every call.", memory_id="hdr")
    memory.add_memory("Fixtures live in __init__ modules.", memory_id="init")
    assert _ids(memory.search("user_id", strategy="keyword")) == ["hdr"]
    assert _ids(memory.search("which user_id header", strategy="keyword"))[0] == "hdr"
    assert _ids(memory.search("__init__", strategy="keyword")) == ["init"]
    assert _ids(memory.search("___", strategy="keyword")) == []


def test_keyword_with_a_dotted_capital_i_matches_its_word(memory: GraphMemory) -> None:
    memory.add_memory("The trip ends in Istanbul.", memory_id="trip")
    for query in ("İstanbul", "istanbul", "ISTANBUL"):
        assert _ids(memory.search(query, strategy="keyword")) == ["trip"], query


def test_sqlite_keyword_matches_words_with_or_without_accents(tmp_path: Path) -> None:
    memory = GraphMemory(tmp_path / "accents.db", clock=ManualClock())
    memory.add_memories(
        [
            {"content": "Meet at the café near the ñandú enclosure.", "memory_id": "cafe"},
            {"content": "Orders ship on Mondays.", "memory_id": "ship"},
            {"content": "Invoices are sent monthly.", "memory_id": "bill"},
        ]
    )
    for query in ("café", "cafe", "CAFÉ", "ñandú", "Nandu", "where is the café?"):
        assert _ids(memory.search(query, strategy="keyword")) == ["cafe"], query
        assert _ids(memory.search(query, strategy="hybrid"))[0] == "cafe", query
    memory.close()
