"""SQLite keyword reads: the statement for a user filter returns what the general
one does, and the cached word counts follow every write to the index."""

import random
import sqlite3
from pathlib import Path

import pytest

from graphmem import GraphMemory
from graphmem.core import fusion
from graphmem.core.validation import SearchFilters
from graphmem.stores import vector_cache
from graphmem.testing.model import ManualClock

WORDS = ["kestrel", "heron", "finch", "wren", "owl", "lark", "crow", "rook", "swift", "tern"]


def _store(tmp_path: Path) -> GraphMemory:
    rng = random.Random(5)
    clock = ManualClock()
    memory = GraphMemory(tmp_path / "k.db", clock=clock)
    rows = []
    for i in range(300):
        rows.append(
            {
                "content": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))),
                "memory_id": f"m{i:03d}",
                "user_id": f"u{i % 4}",
                "agent_id": f"a{i % 3}",
                "memory_type": ("memory", "fact", "preference")[i % 3],
                "metadata": {"team": "x" if i % 5 else "y"},
                "ttl_days": 1 if i % 7 == 0 else None,
            }
        )
    memory.add_memories(rows)
    clock.advance(days=2)  # the ttl_days=1 memories have expired
    memory.delete_memory("m010")
    return memory


FILTERS = [
    {"user_id": "u1"},
    {"user_id": "u2", "agent_id": "a1"},
    {"user_id": "u3", "record_types": ("fact",)},
    {"user_id": "u0", "metadata_filter": {"team": "y"}},
    {"user_id": "nobody"},
]


@pytest.mark.parametrize("given", FILTERS)
@pytest.mark.parametrize("include_invalid", [False, True])
def test_scoped_statement_returns_what_the_general_one_does(
    tmp_path: Path, given: dict, include_invalid: bool
) -> None:
    memory = _store(tmp_path)
    store = memory._store
    filters = SearchFilters(now=memory._clock(), **given)
    for terms in (["kestrel"], ["heron", "owl"], ["wren", "tern", "swift"], ["absent"]):
        with store.transaction(write=False):
            binds = store._use_filter(filters)
            binds.update(
                text_query=store._text_query(terms), k=500, include_invalid=int(include_invalid)
            )
            general = store._run("select-keyword-hits", **binds).fetchall()
            scoped = store._run("select-keyword-hits-scoped", **binds).fetchall()
        assert scoped == general
        assert store._keyword_statement(filters) == "select-keyword-hits-scoped"
    assert store._keyword_statement(SearchFilters(now=memory._clock())) == "select-keyword-hits"


def test_keyword_search_under_a_user_filter_sees_only_that_user(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    results = memory.search("kestrel heron", strategy="keyword", user_id="u1", max_results=50)
    assert results and {r.record.user_id for r in results} == {"u1"}
    unscoped = memory.search("kestrel heron", strategy="keyword", max_results=300)
    assert [r.id for r in results] == [r.id for r in unscoped if r.record.user_id == "u1"][:50]


def test_word_counts_follow_writes_from_this_and_other_connections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fusion, "COMMON_MIN_DOCUMENTS", 0)  # words common in a small store
    path = tmp_path / "c.db"
    memory = GraphMemory(path, clock=ManualClock())
    memory.add_memories([{"content": f"note {i}", "memory_id": f"n{i}"} for i in range(40)])
    memory.add_memory("kestrel seen", memory_id="k")
    store = memory._store
    with store.transaction(write=False):
        assert store._match_terms(["kestrel", "note"]) == [["kestrel"], ["kestrel", "note"]]
    # kestrel becomes common (in more than 10% of the memories) through this handle
    memory.add_memories([{"content": f"kestrel {i}", "memory_id": f"k{i}"} for i in range(10)])
    with store.transaction(write=False):
        assert store._match_terms(["kestrel", "seen"]) == [["seen"], ["kestrel", "seen"]]
        # every word common: the rarest alone first
        assert store._match_terms(["note", "kestrel"]) == [["kestrel"], ["note", "kestrel"]]
        # a word no memory holds is not common, and never left out
        assert store._match_terms(["kestrel", "heron"]) == [["heron"], ["kestrel", "heron"]]
    # ... and heron becomes the most common word through another connection
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO graphmem_memory (record_id, record_type, content, created_at) "
        "VALUES (?, 'memory', 'heron', '2026-01-01T00:00:00.000000+00:00')",
        [(f"h{i:02}",) for i in range(12)],
    )
    conn.commit()
    conn.close()
    with store.transaction(write=False):
        assert store._match_terms(["kestrel", "heron"]) == [["kestrel"], ["kestrel", "heron"]]
    assert [r.id for r in memory.search("heron kestrel", strategy="keyword", max_results=1)] == [
        "k"
    ]
    found = memory.search("heron kestrel", strategy="keyword", max_results=30)
    assert len(found) == 23 and {r.id for r in found} >= {"k", "h00", "h11"}


def _general(store: object, filters: SearchFilters, terms: list[str], invalid: bool) -> list:
    with store.transaction(write=False):  # type: ignore[attr-defined]
        plans = store._match_terms(terms)  # type: ignore[attr-defined]
        if not plans:
            return []
        terms = plans[-1]
        binds = store._use_filter(filters)  # type: ignore[attr-defined]
        binds.update(text_query=store._text_query(terms), k=500, include_invalid=int(invalid))  # type: ignore[attr-defined]
        rows = store._run("select-keyword-hits", **binds).fetchall()  # type: ignore[attr-defined]
    return [(str(r[0]), float(r[1])) for r in rows]


def _chosen(store: object, filters: SearchFilters) -> str:
    with store.transaction(write=False):  # type: ignore[attr-defined]
        binds = store._use_filter(filters)  # type: ignore[attr-defined]
        binds.update(text_query='"owl"', k=5, include_invalid=0)
        return str(store._keyword_read(filters, binds)[0])  # type: ignore[attr-defined]


TERMS = (["kestrel"], ["heron", "owl"], ["wren", "tern", "swift"], ["absent"])


def _sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every doc id set too sparse for a byte map: the JSON array is used."""
    monkeypatch.setattr(vector_cache, "MAP_BYTES_PER_DOC", 0)
    monkeypatch.setattr(vector_cache, "MAP_MIN_BYTES", 0)


@pytest.mark.parametrize("given", FILTERS)
@pytest.mark.parametrize("include_invalid", [False, True])
@pytest.mark.parametrize("shape", ["in-map", "in-docs"])
def test_doc_ids_of_the_vector_copy_give_what_the_general_statement_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    given: dict,
    include_invalid: bool,
    shape: str,
) -> None:
    if shape == "in-docs":
        _sparse(monkeypatch)
    memory = _store(tmp_path)
    memory.link_records("m002", "preference", "m005", "preference", "supersedes")  # m005 invalid
    store = memory._store
    filters = SearchFilters(now=memory._clock(), **given)
    for terms in TERMS:
        found = store.keyword(filters, terms, 500, include_invalid)
        assert found == _general(store, filters, terms, include_invalid)
    expected = "select-keyword-hits-scoped" if "metadata_filter" in given else shape
    if given["user_id"] == "nobody":  # no doc ids: the empty map, however sparse
        expected = "in-map"
    assert _chosen(store, filters).endswith(expected)


@pytest.mark.parametrize("shape", ["in-map", "in-docs"])
def test_doc_ids_follow_other_connections_and_memories_without_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    if shape == "in-docs":
        _sparse(monkeypatch)
    memory = _store(tmp_path)
    store = memory._store
    filters = SearchFilters(now=memory._clock(), user_id="u1")

    def check(statement: str) -> None:
        for terms in TERMS:
            found = store.keyword(filters, terms, 500, False)
            assert found == _general(store, filters, terms, False)
        assert _chosen(store, filters) == statement

    check(f"select-keyword-hits-{shape}")
    conn = sqlite3.connect(tmp_path / "k.db")
    # REPLACE gives m001 a new doc_id; m002 moves to u1; m005 is deleted
    conn.execute(
        "REPLACE INTO graphmem_memory (record_id, record_type, content, user_id, created_at, "
        "embedding) SELECT 'm001', 'memory', 'owl owl kestrel', 'u1', created_at, embedding "
        "FROM graphmem_memory WHERE record_id = 'm001'"
    )
    conn.execute("UPDATE graphmem_memory SET user_id = 'u1' WHERE record_id = 'm002'")
    conn.execute("DELETE FROM graphmem_memory WHERE record_id = 'm005'")
    conn.commit()
    check(f"select-keyword-hits-{shape}")
    # a memory without a vector is absent from the copy: the doc ids come from SQL
    conn.execute(
        "UPDATE graphmem_memory SET embedding = NULL, content = 'osprey' WHERE record_id = 'm009'"
    )
    conn.commit()
    check("select-keyword-hits-scoped")
    assert [r for r, _ in store.keyword(filters, ["osprey"], 500, False)] == ["m009"]
    conn.execute("DELETE FROM graphmem_memory WHERE record_id = 'm009'")
    conn.commit()
    conn.close()
    check(f"select-keyword-hits-{shape}")
