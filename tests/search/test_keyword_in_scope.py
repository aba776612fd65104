"""SQLite keyword reads under a thread, agent or metadata filter without a user: the
scope's rows are read through their own index (select-keyword-hits-in-scope) or
named by the vector copy, never every hit of the store, with the general
statement's result (its plan: tests/stores/test_listing_plans.py)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory
from graphmem.core.validation import SearchFilters
from graphmem.testing.model import ManualClock

WORDS = ["kestrel", "heron", "finch", "wren", "owl", "lark", "crow", "rook", "swift", "tern"]
TERMS = (["kestrel"], ["heron", "owl"], ["wren", "tern", "swift"], ["absent"])
SCOPES = [
    {"agent_id": "a1"},
    {"thread_id": "t1"},
    {"thread_id": "t2", "agent_id": "a0"},
    {"agent_id": "a2", "record_types": ("fact",)},
    {"metadata_filter": {"team": "y"}},
    {"metadata_filter": {"team": "y", "size": 3}},
    {"thread_id": "t3", "metadata_filter": {"team": "x"}},
    {"agent_id": "nobody"},
]


def _store(tmp_path: Path, vector_cache: bool = True) -> GraphMemory:
    rng = random.Random(7)
    clock = ManualClock()
    memory = GraphMemory(tmp_path / "s.db", clock=clock)
    if not vector_cache:  # SqliteStore(vector_cache=False): every read from SQL
        memory._store._vectors = None  # type: ignore[attr-defined]
    memory.add_memories(
        [
            {
                "content": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))),
                "memory_id": f"m{i:03d}",
                "user_id": f"u{i % 4}" if i % 6 else None,
                "agent_id": f"a{i % 3}",
                "thread_id": f"t{i % 5}" if i % 2 else None,
                "memory_type": ("memory", "fact", "preference")[i % 3],
                "metadata": {"team": "x" if i % 5 else "y", "size": i % 4},
                "ttl_days": 1 if i % 7 == 0 else None,
            }
            for i in range(300)
        ]
    )
    clock.advance(days=2)  # the ttl_days=1 memories have expired
    memory.delete_memory("m011")
    memory.link_records("m002", "preference", "m005", "preference", "supersedes")  # m005 invalid
    return memory


def _run(store: Any, name: str, filters: SearchFilters, terms: list[str], invalid: bool) -> list:
    with store.transaction(write=False):
        binds = store._use_filter(filters)
        binds.update(text_query=store._text_query(terms), k=500, include_invalid=int(invalid))
        rows = store._run(name, **binds).fetchall()
    return [(str(r[0]), float(r[1])) for r in rows]


@pytest.mark.parametrize("given", SCOPES, ids=str)
@pytest.mark.parametrize("include_invalid", [False, True])
def test_in_scope_statement_returns_what_the_general_one_does(
    tmp_path: Path, given: dict[str, Any], include_invalid: bool
) -> None:
    memory = _store(tmp_path)
    store: Any = memory._store
    filters = SearchFilters(now=memory._clock(), **given)
    for terms in TERMS:
        general = _run(store, "select-keyword-hits", filters, terms, include_invalid)
        scoped = _run(store, "select-keyword-hits-in-scope", filters, terms, include_invalid)
        assert scoped == general
    # without a scope the general statement is the scope's (every memory) too
    plain = SearchFilters(now=memory._clock())
    assert _run(store, "select-keyword-hits-in-scope", plain, ["owl"], False) == _run(
        store, "select-keyword-hits", plain, ["owl"], False
    )


def _statements(store: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts of the statements ``store`` runs from now on."""
    sent: list[str] = []
    execute = store._execute

    def traced(sql: str, binds: dict[str, Any]) -> Any:
        sent.append(sql)
        return execute(sql, binds)

    monkeypatch.setattr(store, "_execute", traced)
    return sent


@pytest.mark.parametrize("given", SCOPES, ids=str)
@pytest.mark.parametrize("vector_cache", [True, False], ids=["copy", "no-copy"])
@pytest.mark.parametrize("strategy", ["keyword", "hybrid"])
def test_search_under_a_scope_reads_no_store_wide_hits(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    given: dict[str, Any],
    vector_cache: bool,
    strategy: str,
) -> None:
    memory = _store(tmp_path, vector_cache)
    store: Any = memory._store
    filters = SearchFilters(now=memory._clock(), **given)
    for terms in TERMS:
        assert store.keyword(filters, terms, 500, False) == _run(
            store, "select-keyword-hits", filters, terms, False
        )
    sent = _statements(store, monkeypatch)
    memory.search("heron owl", strategy=strategy, max_results=50, **given)
    assert store._sql["select-keyword-hits"].sql not in sent
    read = {name for name in store._sql if store._sql[name].sql in sent}
    assert read & {
        "select-keyword-hits-in-scope",
        "select-keyword-hits-in-docs",
        "select-keyword-hits-in-map",
    }
    if "metadata_filter" in given or not vector_cache:
        assert "select-keyword-hits-in-scope" in read


def test_search_without_a_scope_reads_every_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = _store(tmp_path)
    store: Any = memory._store
    sent = _statements(store, monkeypatch)
    memory.search("heron owl", strategy="keyword")
    assert store._sql["select-keyword-hits"].sql in sent
