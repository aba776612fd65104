"""Query plans of the scoped and paged reads (SQLite): each reads its scope through
an index, and a page of a listing reads its rows in the listing's order instead of
sorting the table (schema version 12).

The plans are SQLite's ``EXPLAIN QUERY PLAN`` of the named statements with the
binds of a call, on a store without statistics (as graphmem leaves it). A full
scan of a table, or a temporary b-tree for the ORDER BY of a branch that should
read an index in order, is what made these calls cost more on a bigger store
with the same result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.core.validation import SearchFilters

SORT = "USE TEMP B-TREE FOR ORDER BY"
TYPES = '["memory", "fact", "preference", "guideline"]'
NOW = "2030-01-01T00:00:00.000000+00:00"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphMemory]:
    path = tmp_path_factory.mktemp("plans") / "p.db"
    with GraphMemory(path, embedder=HashingEmbedder(dim=8)) as memory:
        memory.add_memories(
            [
                {
                    "content": f"note {i}",
                    "user_id": f"u{i % 3}",
                    "agent_id": f"a{i % 2}",
                    "thread_id": "t" if i % 4 == 0 else None,
                    "metadata": {"k": i % 5},
                }
                for i in range(20)
            ]
        )
        memory.create_thread("t", user_id="u0", agent_id="a0")
        memory.add_user("u0")
        yield memory


Plan = list[tuple[int, int, str]]


def _plan(memory: GraphMemory, name: str, **binds: Any) -> Plan:
    store: Any = memory._store
    statement = store._sql[name]
    given = {b: None for b in statement.binds}
    given.update(binds)
    rows = store._conn.execute("EXPLAIN QUERY PLAN " + statement.sql, given).fetchall()
    # SQLite before 3.36 wrote "SCAN TABLE x" and "SEARCH TABLE x"
    return [(r[0], r[1], re.sub(r"^(SCAN|SEARCH) TABLE ", r"\1 ", r[3])) for r in rows]


def _details(plan: Plan) -> list[str]:
    return [detail for _, _, detail in plan]


def _table_scans(plan: Plan) -> list[str]:
    """The full scans of a stored table (not of json_each, a temp table or a row)."""
    return [
        d
        for d in _details(plan)
        if d.startswith("SCAN ")
        and "VIRTUAL TABLE" not in d
        and not d.startswith(("SCAN CONSTANT ROW", "SCAN f", "SCAN temp.", "SCAN c"))
    ]


def _sorted(plan: Plan, start: str) -> bool:
    """Whether the step starting with ``start`` is followed by a sort of its rows
    (a temporary b-tree for the ORDER BY under the same parent)."""
    parents = {parent for _, parent, detail in plan if detail.startswith(start)}
    assert parents, f"no step {start!r} in {_details(plan)}"
    return any(parent in parents and detail == SORT for _, parent, detail in plan)


def _filter_binds(**given: Any) -> dict[str, Any]:
    return {"record_types": TYPES, "now": NOW, "include_invalid": 0, **given}


# 1. keyword search under a thread, agent or metadata filter -----------------------


def test_keyword_hits_in_scope_read_each_scope_through_its_index(memory: GraphMemory) -> None:
    plan = _details(
        _plan(
            memory,
            "select-keyword-hits-in-scope",
            text_query='"note"',
            k=10,
            **_filter_binds(thread_id="t"),
        )
    )
    assert any(
        re.match(r"SEARCH m USING INDEX graphmem_memory_(thread|message)_ix", d) for d in plan
    )
    assert "SEARCH m USING INDEX graphmem_memory_agent_ix (agent_id=?)" in plan
    meta = (
        "SEARCH x USING COVERING INDEX graphmem_memory_meta_value_ix (meta_key=? AND meta_value=?)"
    )
    assert meta in plan


@pytest.mark.parametrize(
    "given",
    [{"agent_id": "a1"}, {"thread_id": "t"}, {"metadata_filter": {"k": 1}}],
    ids=["agent", "thread", "metadata"],
)
def test_keyword_search_without_a_user_reads_its_scope_not_every_hit(
    memory: GraphMemory, given: dict[str, Any]
) -> None:
    store: Any = memory._store
    filters = SearchFilters(**given)
    assert store._keyword_statement(filters) == "select-keyword-hits-in-scope"
    assert store._keyword_statement(SearchFilters()) == "select-keyword-hits"


# 2. vector candidates and list_memories under a metadata filter, no user ------------


@pytest.mark.parametrize(
    "name",
    ["select-search-candidate-ids", "select-search-candidates", "select-keyword-hits-in-scope"],
)
def test_search_candidates_of_a_metadata_filter_come_from_the_value_index(
    memory: GraphMemory, name: str
) -> None:
    binds = _filter_binds(text_query='"note"', k=10) if "keyword" in name else _filter_binds()
    plan = _details(_plan(memory, name, **binds))
    meta = (
        "SEARCH x USING COVERING INDEX graphmem_memory_meta_value_ix (meta_key=? AND meta_value=?)"
    )
    assert meta in plan
    # the memories of those pairs are looked up by id, the filter's table driving
    assert plan[plan.index(meta) - 1] == "SCAN f"
    assert any(re.match(r"SEARCH [md] USING .*\(record_id=\?", d) for d in plan)
    # the one full scan (no user, no metadata filter) runs only after the filter's
    # pair count, read once: not a test of the filter table on each memory row
    (scan,) = [d for d in _table_scans(_plan(memory, name, **binds)) if d.startswith("SCAN m")]
    assert plan[plan.index(scan) - 1] == "SCAN g"


# 3. list_memories ----------------------------------------------------------------------


def test_list_memories_pages_read_the_listing_order_and_scopes_their_indexes(
    memory: GraphMemory,
) -> None:
    plan = _plan(memory, "list-memories", **_filter_binds(include_expired=0, limit=10, offset=1500))
    details = _details(plan)
    # without a scope: the created_at range (every row, or none under a metadata
    # filter) in the listing order, not sorted
    ordered = "SEARCH m USING INDEX graphmem_memory_created_ix (created_at>?)"
    assert ordered in details
    assert not _sorted(plan, ordered)
    assert _table_scans(plan) == []
    assert any(
        d.startswith("SEARCH m USING INDEX graphmem_memory_user_ix (user_id=?") for d in details
    )
    assert any(
        re.match(r"SEARCH m USING INDEX graphmem_memory_(thread|message)_ix", d) for d in details
    )
    assert "SEARCH m USING INDEX graphmem_memory_agent_ix (agent_id=?)" in details
    meta = (
        "SEARCH x USING COVERING INDEX graphmem_memory_meta_value_ix (meta_key=? AND meta_value=?)"
    )
    assert meta in details


# 4. list_record_links --------------------------------------------------------------------


def test_list_record_links_pages_read_the_listing_order(memory: GraphMemory) -> None:
    plan = _plan(memory, "list-links", relation_type=None, limit=10, offset=1500)
    assert _table_scans(plan) == ["SCAN l USING INDEX graphmem_link_created_ix"]
    assert SORT not in _details(plan)
    typed = _plan(memory, "list-links", relation_type="supports", limit=10, offset=0)
    assert _table_scans(typed) == ["SCAN l USING INDEX graphmem_link_created_ix"]
    assert SORT not in _details(typed)


# 5. delete_thread / delete_user / delete_agent ---------------------------------------------


@pytest.mark.parametrize(
    "name", ["delete-scope-links", "delete-scope-records", "delete-scope-threads"]
)
@pytest.mark.parametrize(
    "given", [{"thread_id": "t"}, {"user_id": "u0"}, {"agent_id": "a0"}], ids=str
)
def test_scope_deletes_find_threads_through_indexes(
    memory: GraphMemory, name: str, given: dict[str, Any]
) -> None:
    binds = {"thread_id": None, "user_id": None, "agent_id": None, **given}
    plan = _plan(memory, name, **binds)
    assert _table_scans(plan) == []
    assert "SEARCH t USING INDEX graphmem_thread_agent_ix (agent_id=?)" in _details(
        plan
    ) or "SEARCH graphmem_thread USING INDEX graphmem_thread_agent_ix (agent_id=?)" in _details(
        plan
    )


# 6. list_threads / count_threads ---------------------------------------------------------


def test_list_threads_pages_read_the_listing_order_and_scopes_their_indexes(
    memory: GraphMemory,
) -> None:
    plan = _plan(memory, "list-threads", user_id=None, agent_id=None, limit=10, offset=30)
    assert _table_scans(plan) == ["SCAN t USING INDEX graphmem_thread_created_ix"]
    assert not _sorted(plan, "SCAN t USING INDEX graphmem_thread_created_ix")
    assert not _sorted(plan, "SEARCH t USING INDEX graphmem_thread_agent_ix (agent_id=?)")
    assert any(d.startswith("SEARCH t USING INDEX graphmem_thread_user_ix") for d in _details(plan))


def test_count_threads_of_a_user_or_agent_reads_their_index(memory: GraphMemory) -> None:
    plan = _details(_plan(memory, "count-threads", user_id="u0", agent_id=None))
    assert "SEARCH t USING COVERING INDEX graphmem_thread_user_ix (user_id=?)" in plan
    assert "SEARCH t USING COVERING INDEX graphmem_thread_agent_ix (agent_id=?)" in plan


# 7. list_jobs --------------------------------------------------------------------------------


def test_list_jobs_reads_the_thread_or_status_index_and_pages_in_order(
    memory: GraphMemory,
) -> None:
    plan = _plan(memory, "list-jobs", thread_id=None, status=None, limit=10, offset=0)
    details = _details(plan)
    assert _table_scans(plan) == ["SCAN graphmem_job USING INDEX graphmem_job_created_ix"]
    assert not _sorted(plan, "SCAN graphmem_job USING INDEX graphmem_job_created_ix")
    assert "SEARCH graphmem_job USING INDEX graphmem_job_thread_ix (thread_id=?)" in details
    assert "SEARCH graphmem_job USING INDEX graphmem_job_queue_ix (status=?)" in details


def test_next_job_reads_the_queue_and_each_threads_jobs_through_indexes(
    memory: GraphMemory,
) -> None:
    """The due jobs in the queue's order; for each, its thread's running and queued
    jobs (one thread's jobs run one at a time, in order) through the thread index."""
    plan = _details(_plan(memory, "next-job", now=NOW, thread_id=None))
    assert plan[0] == "SEARCH j USING INDEX graphmem_job_queue_ix (status=? AND not_before<?)"
    thread_reads = [d for d in plan if "graphmem_job_thread_ix" in d]
    assert thread_reads == [
        "SEARCH r USING INDEX graphmem_job_thread_ix (thread_id=? AND status=?)",
        "SEARCH q USING INDEX graphmem_job_thread_ix (thread_id=? AND status=?)",
    ]
    assert _table_scans(_plan(memory, "next-job", now=NOW, thread_id=None)) == []


def test_an_extraction_window_reads_backwards_from_its_mark(memory: GraphMemory) -> None:
    """The last messages before the job's mark, newest first, from the thread's
    message index: no sort, and no read of the messages after the mark."""
    plan = _details(_plan(memory, "list-window-messages", thread_id="t", now=NOW, upto=50, size=10))
    assert plan == [
        "SEARCH m USING INDEX graphmem_memory_message_ix (thread_id=? AND message_position<?)"
    ]


# 8. list_users / list_agents --------------------------------------------------------------


def test_list_profiles_pages_read_the_listing_order(memory: GraphMemory) -> None:
    plan = _plan(memory, "list-profiles", profile_kind="user", limit=10, offset=100)
    assert _details(plan) == ["SEARCH p USING INDEX graphmem_profile_created_ix (profile_kind=?)"]


def test_plans_are_read_from_a_store_with_the_listing_indexes(tmp_path: Path) -> None:
    """The indexes the plans above name are the store's (install.sql, version 12)."""
    with GraphMemory(tmp_path / "i.db") as memory:
        store: Any = memory._store
        names = {
            str(r[0])
            for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        }
    assert {
        "graphmem_memory_created_ix",
        "graphmem_link_created_ix",
        "graphmem_thread_created_ix",
        "graphmem_thread_agent_ix",
        "graphmem_profile_created_ix",
        "graphmem_job_created_ix",
    } <= names
