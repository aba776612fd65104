"""Schema version 12 on Oracle, offline: the listings' indexes (made only if
missing, on the columns of SQLite's), and the statements' branches per scope in
both dialects (parsed with sqlglot), as tests/stores/test_listing_plans.py pins
SQLite's plans."""

from __future__ import annotations

import re

import pytest
import sqlglot
from sqlglot import exp

from graphmem.sqlfiles import load_script, load_statements
from graphmem.stores.oracle_session import split_script

ORACLE = load_statements("oracle")
SQLITE = load_statements("sqlite")


def _script(name: str) -> list[str]:
    return split_script(load_script("oracle", name))


# Schema version 12 of sql/sqlite/install.sql: the listings' indexes, in both dialects.
LISTING_INDEXES = {
    "MEMORY_CREATED_IX": ("MEMORY", "created_at, record_id"),
    "LINK_CREATED_IX": ("LINK", "created_at, relation_id"),
    "THREAD_CREATED_IX": ("THREAD", "created_at, thread_id"),
    "THREAD_AGENT_IX": ("THREAD", "agent_id, created_at, thread_id"),
    "PROFILE_CREATED_IX": ("PROFILE", "profile_kind, created_at, profile_id"),
    "JOB_CREATED_IX": ("JOB", "created_at, job_id"),
}


@pytest.mark.parametrize("name", sorted(LISTING_INDEXES))
def test_install_makes_the_listing_indexes_of_sqlite_if_missing(name: str) -> None:
    """Made only if missing (a re-run of the script on an older store adds them),
    on the columns of SQLite's index of the same name."""
    table, columns = LISTING_INDEXES[name]
    oracle = [s for s in _script("install") if re.search(rf"\bGRAPHMEM_{name}\b", s)]
    assert len(oracle) == 1
    assert re.fullmatch(
        rf"CREATE INDEX IF NOT EXISTS GRAPHMEM_{name}\s+ON GRAPHMEM_{table} \({columns}\)",
        oracle[0],
    )
    sqlite = re.search(
        rf"CREATE INDEX IF NOT EXISTS graphmem_{name.lower()}\s+ON graphmem_{table.lower()} "
        rf"\(([^)]*)\)",
        load_script("sqlite", "install"),
    )
    assert sqlite is not None and sqlite.group(1) == columns


# list statement: (its listing order's columns, the (column, bind) pairs that each
# get a branch of their own, so that no scope test has the `:b IS NULL OR` form)
LISTINGS = {
    "list-memories": (["created_at", "record_id"], ["user_id", "thread_id", "agent_id"]),
    "list-links": (["created_at", "relation_id"], []),
    "list-threads": (["created_at", "thread_id"], ["user_id", "agent_id"]),
    "list-jobs": (["created_at", "job_id"], ["thread_id", "status"]),
}


@pytest.mark.parametrize("name", sorted(LISTINGS))
@pytest.mark.parametrize("dialect", ["oracle", "sqlite"])
def test_listings_have_a_branch_per_scope_in_the_listing_order(name: str, dialect: str) -> None:
    order, scopes = LISTINGS[name]
    statements = ORACLE if dialect == "oracle" else SQLITE
    parsed = sqlglot.parse_one(statements[name].sql, read=dialect)
    branches = _branches(parsed)
    # one branch per scope, and one for none (list-memories: and one for metadata)
    assert len(branches) == len(scopes) + 1 + (name == "list-memories")
    for column in scopes:  # a branch tests the scope alone: an index can serve it
        assert any(_equals_bind(b, column) for b in branches), column
    keys = [o.this for o in parsed.args["order"].expressions]
    first = branches[0].expressions
    assert [
        first[int(k.name) - 1].alias_or_name if isinstance(k, exp.Literal) else k.name for k in keys
    ] == order


@pytest.mark.parametrize(
    ("dialect", "name"),
    [
        ("oracle", "select-nearest"),
        ("oracle", "list-memories"),
        ("sqlite", "select-search-candidates"),
        ("sqlite", "select-search-candidate-ids"),
        ("sqlite", "list-memories"),
        ("sqlite", "select-keyword-hits-in-scope"),
    ],
)
def test_a_metadata_filter_without_a_user_reads_the_memories_of_its_pairs(
    dialect: str, name: str
) -> None:
    """A branch drives from the filter's (key, value) pairs through the value index
    (GRAPHMEM_MEMORY_META_VALUE_IX): a rare pair no longer costs a pass over the
    store."""
    sql = (ORACLE if dialect == "oracle" else SQLITE)[name].sql
    assert re.search(
        r"m\.record_id IN \(\s*SELECT x\.record_id FROM (temp\.)?graphmem_filter f\s+"
        r"(CROSS )?JOIN graphmem_memory_meta x\s+(ON|WHERE) x\.meta_key = f\.meta_key "
        r"AND x\.meta_value = f\.meta_value\)",
        sql,
    )
    # ... and the branch of every memory only when there is no filter: Oracle tests
    # that once; SQLite, which would test it on each row, reads the filter's pair
    # count once in a one-row table joined first, or bounds an index range by it
    no_filter = (
        r"AND NOT EXISTS \(SELECT 1 FROM graphmem_filter\)"
        if dialect == "oracle"
        else r"FROM \(SELECT COUNT\(\*\) AS pairs FROM temp\.graphmem_filter\) g\s+CROSS JOIN "
        r"graphmem_memory m|m\.created_at >= \(SELECT CASE WHEN EXISTS \(SELECT 1 FROM "
        r"temp\.graphmem_filter\)\s+THEN NULL ELSE '' END\)"
    )
    assert re.search(no_filter, sql)


def _branches(parsed: exp.Expression) -> list[exp.Select]:
    if isinstance(parsed, exp.Union):
        return _branches(parsed.left) + _branches(parsed.right)
    assert isinstance(parsed, exp.Select)
    return [parsed]


def _equals_bind(select: exp.Select, column: str) -> bool:
    """Whether ``column = :column`` is one of the AND-ed terms of the branch's WHERE."""
    where = select.args["where"].this
    terms = list(where.flatten()) if isinstance(where, exp.And) else [where]
    return any(
        isinstance(t, exp.EQ)
        and isinstance(t.this, exp.Column)
        and t.this.name == column
        and isinstance(t.expression, exp.Placeholder)
        and t.expression.name == column
        for t in terms
    )
