"""The Oracle store without a server: SQL parses, names and binds match, calls bind right.

Nothing here talks to Oracle. Statements are parsed with sqlglot's Oracle
dialect (SQL/PGQ through graphmem.pgq), statement names and binds are compared
with the SQLite files, and OracleStore runs against a fake python-oracledb
module whose cursor accepts only statement texts from sql/oracle and sql/pgq,
with exactly the binds each statement uses.
"""

from __future__ import annotations

import io
import json
import re
from array import array
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import sqlglot
from sqlglot import exp

from graphmem import GraphMemory
from graphmem.core.relations import BUILTIN_OPPOSITES
from graphmem.core.validation import SearchFilters
from graphmem.errors import (
    BackendError,
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    SchemaError,
)
from graphmem.models import SchemaPolicy
from graphmem.sqlfiles import (
    Statement,
    bind_names,
    load_pgq_statement,
    load_script,
    load_statements,
)
from graphmem.stores import oracle_session
from graphmem.stores.base import NewLink, NewMemory, NewMessage
from graphmem.stores.job_base import StoredJob
from graphmem.stores.oracle import (
    NEAREST_SLACK,
    SCHEMA_TABLES,
    SCHEMA_UPGRADE_COLUMNS,
    OracleStore,
)
from graphmem.stores.oracle_session import split_script, translate_error
from graphmem.stores.registry_base import StoredPrompt, StoredVersion
from graphmem.stores.rows import thread_from_row
from graphmem.stores.service_base import StoredApiKey, StoredBlock
from graphmem.thread_models import Profile, ThreadInfo

ORACLE = load_statements("oracle")
SQLITE = load_statements("sqlite")
PGQ = load_statements("pgq")
SHARED = set(PGQ)  # expand-level, create-property-graph: one text for both dialects
T0 = "2026-01-01T00:00:00.000000+00:00"
LINK_ROW = ("r1", "m1", "memory", "m2", "memory", "supersedes", "is_superseded_by", None, "{}", T0)
TRIGGERS = 4  # GRAPHMEM_LINK_VALIDITY, _MEMORY_STATUS, _NODE_SYNC, _ADJACENCY_SYNC, all VALID
MEMORY_ROW = ("m2", "memory", "text", "invalid", None, None, None, '{"a": 1}', None, T0, None)
THREAD_ROW = ("t", "u", None, "{}", "{}", None, '["tea"]', 2, 0, T0, T0)
# job_id, kind, thread_id, status, attempts, failures, owner, lease_until, not_before,
# last_error, payload, result, created_at, updated_at (payload as a CLOB-like reader)
JOB_ROW = (
    "j",
    "extract",
    "t",
    "running",
    1,
    0,
    "o",
    T0,
    T0,
    None,
    SimpleNamespace(read=lambda: '{"upto":1}'),
    None,
    T0,
    T0,
)
MESSAGE_ROW = ("x", "message", "hi", "valid", "u", None, "t", "{}", None, T0, None, "user", 0)
PROFILE_ROW = ("user", "u", None, "{}", T0)


def _pgq() -> Any:
    from graphmem import pgq

    return pgq


def _script(name: str, prefix: str = "graphmem") -> list[str]:
    return split_script(load_script("oracle", name, prefix))


def _is_plsql(sql: str) -> bool:
    return bool(re.match(r"(CREATE\s+OR\s+REPLACE\s+TRIGGER|BEGIN)\b", sql))


# -- parsing ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_statement_parses_as_oracle(name: str) -> None:
    parsed = sqlglot.parse_one(ORACLE[name].sql, read="oracle")
    assert not isinstance(parsed, exp.Command), "sqlglot fell back to an opaque command"


@pytest.mark.parametrize("name", ["expand-level", "expand-level-uncapped"])
def test_expand_level_lowers_to_oracle_sql(name: str) -> None:
    pgq = _pgq()
    graph = pgq.parse_property_graph(PGQ["create-property-graph"].sql)
    lowered = pgq.lower(PGQ[name].sql, graph, dialect="oracle")
    assert not isinstance(sqlglot.parse_one(lowered, read="oracle"), exp.Command)
    assert bind_names(lowered) == PGQ[name].binds


def test_install_graph_is_the_shared_graph_text() -> None:
    graphs = [s for s in _script("install") if "PROPERTY GRAPH graphmem_graph" in s[:60]]
    assert [" ".join(g.split()) for g in graphs] == [
        " ".join(PGQ["create-property-graph"].sql.split())
    ]


def test_install_graph_parses_with_graphmem_pgq() -> None:
    pgq = _pgq()
    graph = pgq.parse_property_graph(PGQ["create-property-graph"].sql)
    assert graph is not None


# Script statements sqlglot cannot read, each with the check that replaces parsing.
_VECTOR = "VECTOR(*, FLOAT32)"  # sqlglot has no VECTOR type: parsed with BLOB in its place
# sqlglot does not know index-organized tables: parsed without the clause, which
# test_install_adjacency_is_index_organized checks instead.
_IOT = ") ORGANIZATION INDEX"


@pytest.mark.parametrize("name", ["install", "uninstall", "session"])
def test_script_sql_statements_parse_as_oracle(name: str) -> None:
    for sql in _script(name):
        if _is_plsql(sql) or "PROPERTY GRAPH" in sql:
            continue  # PL/SQL and SQL/PGQ DDL: checked by the tests below
        parsed = sqlglot.parse_one(
            sql.replace(_VECTOR, "BLOB").replace(_IOT, ")"),
            read="oracle",
        )
        assert not isinstance(parsed, exp.Command), sql


def test_install_adjacency_is_index_organized() -> None:
    # the traversal reads a node's links as one range of the key, rows included
    table = next(s for s in _script("install") if "TABLE IF NOT EXISTS GRAPHMEM_ADJACENCY (" in s)
    assert "PRIMARY KEY (node_no, created_at, relation_id)" in table
    assert table.endswith(_IOT)


def test_install_embedding_is_any_dimension_float32_vector() -> None:
    memory = next(s for s in _script("install") if "TABLE IF NOT EXISTS GRAPHMEM_MEMORY (" in s)
    assert re.search(r"^\s+embedding\s+VECTOR\(\*, FLOAT32\),$", memory, re.MULTILINE)


def test_install_text_index_is_context_synced_on_commit() -> None:
    """The CONTEXT index is created by a PL/SQL block, only where the indextype exists
    (gvenzl's slim images remove Oracle Text): the rest of the script always runs."""
    text = [s for s in _script("install") if "CTXSYS" in s]
    assert len(text) == 1
    block = " ".join(text[0].split())
    assert block.startswith(
        "BEGIN FOR t IN (SELECT 1 FROM all_indextypes WHERE owner = 'CTXSYS' "
        "AND indextype_name = 'CONTEXT') LOOP EXECUTE IMMEDIATE "
    )
    assert block.endswith("END LOOP; END;")
    created = "".join(re.findall(r"'((?:[^']|'')*)'", block.split("EXECUTE IMMEDIATE", 1)[1]))
    assert created.replace("''", "'") == (
        "CREATE INDEX IF NOT EXISTS GRAPHMEM_MEMORY_TEXT_IX ON GRAPHMEM_MEMORY (content) "
        "INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')"
    )


def test_keyword_hits_use_contains_and_score_of_one_label() -> None:
    sql = ORACLE["select-keyword-hits"].sql
    assert "CONTAINS(m.content, :text_query, 1) > 0" in sql
    assert "ORDER BY SCORE(1) DESC, m.record_id" in sql


def test_uninstall_drops_the_graph_before_tables() -> None:
    statements = _script("uninstall")
    assert statements[0] == "DROP PROPERTY GRAPH IF EXISTS graphmem_graph"
    assert all("PROPERTY GRAPH" not in s for s in statements[1:])


def test_install_writes_the_version_row_only_when_missing() -> None:
    """An Oracle store's version is the shape of its objects, which the open counts,
    not its schema_version row: the script never overwrites that row, so a run that
    stops half way claims no newer version (SQLite's script marks its version as
    its last statement, on tables of its shape only)."""
    marks = [s for s in _script("install") if "'schema_version'" in s]
    assert len(marks) == 1
    assert "WHEN NOT MATCHED THEN INSERT" in marks[0]
    assert "WHEN MATCHED" not in marks[0].replace("WHEN NOT MATCHED", "")


def test_trigger_row_sections_read_no_table() -> None:
    """AFTER EACH ROW only collects :NEW/:OLD values: no ORA-04091 possible."""
    triggers = [s for s in _script("install") if s.startswith("CREATE OR REPLACE TRIGGER")]
    assert len(triggers) == 4
    for trigger in triggers:
        assert "COMPOUND TRIGGER" in trigger
        row = trigger.split("AFTER EACH ROW IS", 1)[1].split("END AFTER EACH ROW", 1)[0]
        assert not re.search(r"\b(FROM|UPDATE|INSERT|DELETE|MERGE)\b", row), row


def _builtin_opposites_in(text: str) -> dict[str, str]:
    """The built-in (type, opposite) pairs of a trigger's CASE, and the types whose
    other cases it maps to NULL (refused)."""
    pairs = dict(re.findall(r"WHEN '(\w+)' THEN '(\w+)'", text))
    refused = re.findall(r"WHEN '(\w+)' THEN NULL", text)
    assert sorted(refused) == sorted(pairs), text
    return pairs


def test_link_trigger_refuses_builtin_types_with_another_opposite() -> None:
    """Schema version 11: the rows graphmem refuses are refused for DML too; the
    row section checks a built-in type's opposite from the :NEW values (ORA-20004)."""
    (validity,) = [s for s in _script("install") if "TRIGGER GRAPHMEM_LINK_VALIDITY" in s]
    row = validity.split("AFTER EACH ROW IS", 1)[1].split("END AFTER EACH ROW", 1)[0]
    assert _builtin_opposites_in(row) == BUILTIN_OPPOSITES
    assert "RAISE_APPLICATION_ERROR(-20004" in row
    flat = " ".join(row.split())
    # only on a write of the type or its opposite (a link stored before version
    # 11 stays updatable in its other columns), before the raise
    guard = "IF INSERTING OR UPDATING('relation_type') OR UPDATING('opposite_relation_type') THEN"
    test = "IF opposite IS NULL OR opposite <> :NEW.opposite_relation_type THEN"
    assert flat.index(guard) < flat.index(test) < flat.index("RAISE_APPLICATION_ERROR(-20004")
    assert flat[flat.index(guard) : flat.index(test)].count("END IF") == 0
    # other cases of a built-in type, in ASCII letters only (as SQLite's lower())
    assert "TRANSLATE(:NEW.relation_type, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', " in flat
    assert "'abcdefghijklmnopqrstuvwxyz')" in flat and "LOWER(" not in flat


def test_triggers_refuse_a_message_as_a_link_end() -> None:
    """ORA-20005: a link written with a message at an end (statement section of the
    link trigger), and a memory with links that becomes a message."""
    units = {s.split()[4]: s for s in _script("install") if "CREATE OR REPLACE TRIGGER" in s}
    link = " ".join(units["GRAPHMEM_LINK_VALIDITY"].split())
    row, statement = link.split("AFTER STATEMENT IS", 1)
    assert "m.record_type = 'message'" in statement
    assert "RAISE_APPLICATION_ERROR(-20005" in statement
    # the ends are read when a write gives them (insert, or an update of an end)
    assert (
        "new_key.new_ends := INSERTING OR :NEW.source_id <> :OLD.source_id "
        "OR :NEW.target_id <> :OLD.target_id;" in row
    )
    check = statement.index("IF written(i).new_ends THEN")
    lookup = statement.index("WHERE m.record_id IN (written(i).source_id, written(i).target_id)")
    assert check < lookup < statement.index("RAISE_APPLICATION_ERROR(-20005")
    status = " ".join(units["GRAPHMEM_MEMORY_STATUS"].split())
    assert "FOR INSERT OR UPDATE OF status, record_type ON GRAPHMEM_MEMORY" in status
    row, statement = status.split("AFTER STATEMENT IS", 1)
    # only a memory that becomes a message is checked, not every status write
    assert (
        "IF UPDATING('record_type') AND :NEW.record_type = 'message' "
        "AND :OLD.record_type <> 'message' THEN became(:NEW.record_id) := TRUE;" in row
    )
    message_loop = statement[statement.index("k := became.FIRST;") :]
    assert "m.record_type = 'message'" in message_loop
    assert "RAISE_APPLICATION_ERROR(-20005" in message_loop
    assert (
        "RAISE_APPLICATION_ERROR(-20005" not in statement[: statement.index("k := became.FIRST;")]
    )


def test_trigger_embedded_sql_parses_as_oracle() -> None:
    """The SQL inside the PL/SQL units parses once INTO clauses are removed."""
    found = 0
    for unit in (s for s in _script("install") if _is_plsql(s)):
        for sql in re.findall(r"^\s*((?:SELECT|UPDATE)\b.*?);", unit, re.MULTILINE | re.DOTALL):
            sql = re.sub(r"\bINTO\s+\w+\s+FROM\b", "FROM", sql)
            assert not isinstance(sqlglot.parse_one(sql, read="oracle"), exp.Command), sql
            found += 1
    # version 9: GRAPHMEM_NODE_SYNC's UPDATE of the neighbours' copies; version 11:
    # the two message-end checks
    assert found == 8


@pytest.mark.parametrize("name", ["install", "uninstall", "session"])
def test_script_runs_in_sqlplus(name: str) -> None:
    """SQL*Plus rules: `/` after PL/SQL only, no blank line inside a statement, no `&`."""
    text = load_script("oracle", name)
    statements = split_script(text)
    assert "&" not in text
    assert sum(line.strip() == "/" for line in text.splitlines()) == sum(
        _is_plsql(s) for s in statements
    )
    assert all("\n\n" not in sql for sql in statements)


# -- parity ----------------------------------------------------------------------------


# SQLite only: the statements that keep its in-process copy of the embeddings.
SQLITE_VECTOR_CACHE = {
    "select-search-candidates",
    "select-search-candidate-ids",
    "get-vector-log-unread",
    "count-memories",
    "select-all-embeddings",
    "select-logged-embeddings",
}


def test_statement_names_match_sqlite() -> None:
    # The divergences: top-k runs in VECTOR_DISTANCE on Oracle, in numpy on SQLite
    # (over the candidates' embeddings, or over the store's in-process copy of them);
    # SQLite leaves stop words out of a keyword match itself (FTS5 has no stoplist),
    # counting each word in the form its tokenizer gives (reset-query-words,
    # insert-query-words, select-query-tokens), Oracle Text applies its own
    # stoplist; SQLite has four more keyword statements
    # for searches under a user, thread, agent or metadata filter, Oracle's
    # optimizer plans that itself.
    # The traversal level: SQLite keeps each level's candidates with an upsert into a
    # level table (ON CONFLICT, which Oracle's MERGE cannot do for a row twice), Oracle
    # runs expand-level with its window sorts and counts and trims the reached table;
    # SQLite's capped level may first keep the candidates of each frontier node's first
    # links and bound each root by them (probe-level, bound-level-root).
    # A SQLite link write reads its one link or its two endpoints by point lookups
    # (get-link, get-endpoint-types); Oracle uses the JSON-array forms for those.
    # SQLite reads its schema version with get-meta; Oracle checks its objects
    # (count-schema-tables), and before a keyword search its Oracle Text index
    # (count-text-index), which only a server with Oracle Text has.
    assert not SHARED & set(ORACLE)
    assert set(ORACLE) - {
        "select-nearest",
        "count-text-index",
        "count-level",
        "trim-traversal-root",
        "select-linked-nodes",
        "select-linked-links",
    } == set(SQLITE) - SHARED - SQLITE_VECTOR_CACHE - {
        "reset-traversal-level",
        "expand-level-keep",
        "count-level-nodes",
        "trim-level-root",
        "move-level",
        "probe-level",
        "bound-level-root",
        "select-search-candidates",
        "select-term-counts",
        "reset-query-words",
        "insert-query-words",
        "select-query-tokens",
        "count-keyword-documents",
        "select-keyword-hits-scoped",
        "select-keyword-hits-in-docs",
        "select-keyword-hits-in-map",
        "select-keyword-hits-in-scope",
        "get-keyword-index-version",
        "get-link",
        "get-endpoint-types",
        "get-meta",
        "select-numbered-nodes",
        "select-numbered-links",
    }
    assert "select-nearest" in ORACLE and set(SQLITE) >= SQLITE_VECTOR_CACHE


@pytest.mark.parametrize("name", sorted(set(ORACLE) & set(SQLITE)))
def test_statement_binds_match_sqlite(name: str) -> None:
    assert ORACLE[name].binds == SQLITE[name].binds


# -- a fake python-oracledb --------------------------------------------------------------


class FakeError(Exception):
    pass


def _error(code: int) -> FakeError:
    return FakeError(SimpleNamespace(code=code, message=f"ORA-{code:05d}: fake"))


def _rows(name: str) -> list[tuple[Any, ...]]:
    rows: dict[str, list[tuple[Any, ...]]] = {
        "count-legacy-tables": [(0,)],
        "count-text-index": [(1,)],
        "get-memories": [MEMORY_ROW],
        "get-record-types": [("m2", "memory")],
        "get-lifecycle-links-to": [LINK_ROW],
        "list-memories": [("m2",)],
        "list-memory-ids": [("m2",)],
        "list-link-ids": [(LINK_ROW[0],)],
        "get-memory-embedding": [(array("f", [1.0, 0.0]),)],
        "select-nearest": [("m1", array("f", [1.0, 0.0]))],
        "select-passing-ids": [("m1",)],
        "count-level": [(1, 1)],
        # the tree rows end with their link's key, the link rows start with it
        "select-linked-context": [(1, 2, 1, 1, LINK_ROW[0])],
        "select-linked-nodes": [(1, "m1", LINK_ROW[2]), (2, "m2", LINK_ROW[4])],
        "select-linked-links": [(LINK_ROW[0], *LINK_ROW[:2], LINK_ROW[3], *LINK_ROW[5:])],
        "get-links": [LINK_ROW],
        "list-links": [LINK_ROW],
        "list-links-of-record": [LINK_ROW],
        "count-links": [(1,)],
        "count-links-of-record": [(1,)],
        "count-memory-groups": [("memory", "valid", None, 2), ("fact", "invalid", "u", 1)],
        "count-link-types": [("supports", 3)],
        "find-link-conflict": [("r1", "m1", "m2")],
        "find-link-by-triple": [("r1",)],
        "get-prompt": [PROMPT_ROW],
        "list-prompts": [PROMPT_ROW],
        "count-prompts": [(1,)],
        "get-prompt-version": [VERSION_ROW],
        "list-prompt-versions": [VERSION_ROW],
        "get-thread": [THREAD_ROW],
        "list-threads": [THREAD_ROW],
        "count-threads": [(1,)],
        "get-message-count": [(2,)],
        "count-messages": [(1,)],
        "list-messages": [MESSAGE_ROW],
        "list-window-messages": [MESSAGE_ROW],
        "get-messages": [MESSAGE_ROW],
        "list-message-places": [(0, "x")],
        "get-profile": [PROFILE_ROW],
        "list-profiles": [PROFILE_ROW],
        "count-profiles": [(1,)],
        "get-api-key": [KEY_ROW],
        "list-api-keys": [KEY_ROW],
        "get-block": [BLOCK_ROW],
        "list-blocks": [BLOCK_ROW],
        "count-blocks": [(1,)],
        "pending-block-ids": [("b",)],
        "unfinished-blocks": [("b", "pending")],
        "get-job": [JOB_ROW],
        "list-jobs": [JOB_ROW],
        "next-job": [("j", "t")],
        "running-job-owners": [("o",)],
    }
    return rows.get(name, [])


class FakeCursor:
    def __init__(self, conn: FakeConnection) -> None:
        self.conn = conn
        self.rowcount = 0
        self.arraysize = 100
        self.outputtypehandler: Any = None
        self.warning: Any = None
        self._rows: list[tuple[Any, ...]] = []
        self._sizes: dict[str, Any] = {}

    def setinputsizes(self, **sizes: Any) -> None:
        """Only by name, as graphmem binds; noted with the next statement."""
        self._sizes = sizes

    def _note_sizes(self, name: str) -> None:
        if self._sizes:
            self.conn.input_sizes.append((name, self._sizes))

    def _statement(self, sql: str) -> Statement:
        prefix = self.conn.prefix
        oracle, pgq = load_statements("oracle", prefix), load_statements("pgq", prefix)
        for stmt in (*oracle.values(), *pgq.values()):
            if stmt.sql == sql:
                return stmt
        if sql in self.conn.lowered:
            return PGQ[self.conn.lowered[sql]]
        raise AssertionError(f"not a statement of sql/oracle or sql/pgq:\n{sql}")

    def execute(self, sql: str, binds: dict[str, Any] | None = None) -> None:
        if binds is None:
            assert sql in self.conn.scripts, f"not a script statement:\n{sql}"
            self.conn.sent.append(("<script>", sql))
            self.conn.script_ran(sql)
            self.warning = self.conn.warning_for(sql)
            return
        self.conn.autocommit_seen.append(self.conn.autocommit)
        stmt = self._statement(sql)
        assert set(binds) == stmt.binds, (stmt.name, sorted(binds), sorted(stmt.binds))
        assert set(self._sizes) <= stmt.binds, (stmt.name, sorted(self._sizes))
        self._note_sizes(stmt.name)
        self.conn.sent.append((stmt.name, binds))
        if stmt.name in self.conn.fail:
            raise self.conn.fail[stmt.name]
        self._rows = _rows(stmt.name)
        self.rowcount = 1
        if stmt.name == "count-schema-tables":
            self._rows = [
                (self.conn.tables, self.conn.valid_triggers, self.conn.graphs, self.conn.columns)
            ]
        if stmt.name == "get-embedder-meta":
            meta = self.conn.meta
            self._rows = [(meta.get(binds["name_key"]), meta.get(binds["dim_key"]))]
        if stmt.name == "count-legacy-tables":
            self._rows = [(self.conn.legacy_tables,)]
        if stmt.name == "count-text-index":
            self._rows = [(self.conn.text_indexes,)]

    def executemany(self, sql: str, rows: list[dict[str, Any]]) -> None:
        stmt = self._statement(sql)
        for binds in rows:
            assert set(binds) == stmt.binds, stmt.name
        assert set(self._sizes) <= stmt.binds, (stmt.name, sorted(self._sizes))
        self._note_sizes(stmt.name)
        self.conn.autocommit_seen.append(self.conn.autocommit)
        self.conn.sent.append((stmt.name, rows))
        if stmt.name in self.conn.fail:
            raise self.conn.fail[stmt.name]

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._rows)

    def fetchmany(self, size: int) -> list[tuple[Any, ...]]:
        rows, self._rows = self._rows[:size], self._rows[size:]
        return rows

    def var(self, *args: Any, **kwargs: Any) -> Any:
        return (args, kwargs)


class FakeConnection:
    version = "23.26.0.0.0"

    def __init__(self, **kwargs: Any) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.input_sizes: list[tuple[str, dict[str, Any]]] = []  # setinputsizes per statement
        self.fail: dict[str, Exception] = {}
        # What count-schema-tables finds; install.sql completes it unless `repairs` is off.
        self.tables, self.valid_triggers, self.graphs = SCHEMA_TABLES, TRIGGERS, 1
        self.columns = SCHEMA_UPGRADE_COLUMNS  # the columns of versions 9 and 10
        self.legacy_tables = 0
        self.text_indexes = 1  # what count-text-index finds (0: no Oracle Text)
        self.repairs = True
        self.warn_on: str | None = None  # script statements holding this text warn
        self.autocommit = False
        self.autocommit_seen: list[bool] = []
        self.meta: dict[str, str] = {}  # graphmem_meta rows that get-embedder-meta finds
        self.lowered: dict[str, str] = {}  # lowered text -> statement name
        self.commits = self.rollbacks = 0
        self.closed = False
        self.use_prefix("graphmem")

    def use_prefix(self, prefix: str) -> None:
        self.prefix = prefix
        self.scripts = {s for n in ("install", "uninstall", "session") for s in _script(n, prefix)}
        self.install = set(_script("install", prefix))

    def script_ran(self, sql: str) -> None:
        if sql in self.install and self.repairs:
            self.tables, self.valid_triggers, self.graphs = SCHEMA_TABLES, TRIGGERS, 1
            self.columns = SCHEMA_UPGRADE_COLUMNS

    def warning_for(self, sql: str) -> Any:
        """What python-oracledb thin mode reports for a unit created with compile errors."""
        if self.warn_on is None or self.warn_on not in sql:
            return None
        return SimpleNamespace(
            full_code="DPY-7000", message="DPY-7000: creation succeeded with compilation errors"
        )

    def cursor(self) -> FakeCursor:
        return FakeCursor(self)

    def commit(self) -> None:
        self.commits += 1

    def rollback(self) -> None:
        self.rollbacks += 1

    def close(self) -> None:
        self.closed = True

    def names(self) -> list[str]:
        return [name for name, _ in self.sent]


class FakePool:
    def __init__(self) -> None:
        self.conn = FakeConnection()
        self.released = 0

    def acquire(self) -> FakeConnection:
        return self.conn

    def release(self, conn: FakeConnection) -> None:
        self.released += 1


class FakeConnectParams:
    def parse_dsn_with_credentials(self, dsn: str) -> tuple[str, str, str]:
        credentials, _, connect_string = dsn.partition("@")
        user, _, password = credentials.partition("/")
        return user, password, connect_string


def fake_module() -> SimpleNamespace:
    """A stand-in for the python-oracledb module."""
    return SimpleNamespace(
        Error=FakeError,
        Connection=FakeConnection,
        ConnectionPool=FakePool,
        ConnectParams=FakeConnectParams,
        DB_TYPE_CLOB=object(),
        DB_TYPE_LONG=object(),
        connect=lambda **kwargs: FakeConnection(**kwargs),
    )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    module = fake_module()
    monkeypatch.setattr(oracle_session, "import_oracledb", lambda: module)
    return module


@pytest.fixture
def conn(fake: SimpleNamespace) -> FakeConnection:
    return FakeConnection()


def _memory(record_id: str) -> NewMemory:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return NewMemory(
        record_id, "memory", "text", "u", None, None, {"": 1, "k": "v"}, None, now, None,
        np.array([1.0, 0.0], dtype=np.float32),
    )  # fmt: skip


def _link() -> NewLink:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return NewLink("r1", "m1", "m2", "supersedes", "is_superseded_by", None, {}, now)


PROMPT_ROW = ("p", "about", '{"a":1}', 1, 2, 0, None, T0, T0, 2)
VERSION_ROW = ("p", 1, "Extract dates.", 0, T0)
KEY_ROW = ("k", "ab", "read", None, T0, None)
BLOCK_ROW = ("b", "t", "pending", '{"messages":[],"facts":["f"]}', "p", None, None, 1, None, "[]",
             None, T0, T0, None, None, None)  # fmt: skip


def _exercise_registry(store: OracleStore) -> None:
    """Call every prompt registry method once, in one transaction as GraphMemory does."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    head = StoredPrompt("p", "about", {"a": 1}, 0, 1, False, None, now, now)
    with store.transaction():
        store.insert_prompt(head)
        store.insert_prompt_version(StoredVersion("p", 0, "Extract dates.", False, now))
        store.lock_prompt("p")
        found = store.get_prompt("p")
        assert found is not None
        assert (found.annotations, found.current_vid, found.version_count) == ({"a": 1}, 1, 2)
        store.update_prompt(head)
        assert [p.prompt_id for p in store.list_prompts(10, 0)] == ["p"]
        assert store.count_prompts() == 1
        version = store.get_prompt_version("p", 1)
        assert version is not None and version.text == "Extract dates."
        assert [v.vid for v in store.list_prompt_versions("p", 10, 0)] == [1]
        store.archive_prompt_version("p", 0)
        store.delete_prompt_version("p", 0)
        store.delete_prompt_versions("p")
        store.delete_prompt("p")


def _exercise(store: OracleStore) -> None:
    """Call every store method once."""
    filters = SearchFilters(user_id="u", metadata_filter={"k": "v"})
    store.use_embedder("e", 2)
    store.insert_memory(_memory("m1"))
    store.get_memories(["m1", "m2"])
    assert store.get_record_types(["m2"]) == {"m2": "memory"}
    store.list_memories(filters, include_invalid=False, limit=10)
    store.update_memory("m1", "new", {"k": 2}, None, None)
    store.update_memory("m1", "new", {}, None, np.array([0.0, 1.0], dtype=np.float32))
    store.insert_link(_link())
    store.get_links(["r1"])
    store.find_link_conflict("m1", "m2", "supersedes", "")
    store.find_link("m1", "m2", "supersedes")
    store.update_link("r1", "supports", "is_supported_by", None, {})
    store.list_links(None, None)
    store.list_links("m1", "supports")
    assert store.count_links(None, None) == 1
    assert store.count_links("m1", "supports") == 1
    with store.transaction(write=False):
        pages = store.scan_memories(datetime.now(timezone.utc), 10)
        assert [[m.id for m in page] for page in pages] == [["m2"]]
        assert [[r.id for r in page] for page in store.scan_links(10)] == [[LINK_ROW[0]]]
        assert store.count_memory_groups(datetime.now(timezone.utc)) == {
            ("memory", "valid", None): 2,
            ("fact", "invalid", "u"): 1,
        }
        assert store.count_link_types(datetime.now(timezone.utc)) == {"supports": 3}
    query = np.array([1.0, 0.0], dtype=np.float32)
    assert store.nearest(filters, query, 5, include_invalid=True) == [("m1", 0.0)]
    nodes = list(store.linked_context(["m1"], filters, num_hops=2, max_linked_results=1))
    assert [n.entry.node for n in nodes] == ["m2"]
    nodes = list(store.linked_context(["m1"], filters, num_hops=2, max_linked_results=None))
    assert [n.entry.node for n in nodes] == ["m2"]
    assert store.keyword(filters, ["tea", "oven"], 5, include_invalid=False) == []
    assert store.passing_ids(["m1", "m2"], filters, include_invalid=False) == {"m1"}
    store.delete_link("r1")
    store.delete_memory("m1")
    _exercise_registry(store)
    _exercise_threads(store)
    _exercise_service(store)
    _exercise_jobs(store)
    store.uninstall()


def _exercise_service(store: OracleStore) -> None:
    """Call every memory service method once (API keys, memory blocks)."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    key = StoredApiKey("k", "ab", "read", None, now)
    block = StoredBlock(
        "b", "t", "pending", {"messages": [], "facts": ["f"]}, "p", None, None, True, None, [],
        None, now, now,
    )  # fmt: skip
    with store.transaction():
        store.insert_api_key(key)
        assert store.get_api_key("k") is not None
        assert [k.key_id for k in store.list_api_keys()] == ["k"]
        store.revoke_api_key("k", now)
        store.insert_block(block)
        store.lock_block("b")
        found = store.get_block("b")
        assert found is not None and found.content == block.content
        store.update_block(block)
        assert [b.block_id for b in store.list_blocks("t", 10, 0)] == ["b"]
        assert store.count_blocks("t") == 1
        assert store.claim_block("b", "o", now, now)
        assert store.renew_block_lease("b", "o", now)
        assert store.processing_block_owners() == []  # the fake's rows are empty
        assert store.release_blocks("o", now) == 1
        assert store.release_blocks(None, now) == 1
        assert store.pending_block_ids(10) == ["b"]
        assert store.unfinished_blocks("t", (now, "b"), 10) == [("b", "pending")]


def _exercise_jobs(store: OracleStore) -> None:
    """Call every job method once (the fake answers each update with one row)."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    job = StoredJob(
        "j", "extract", "t", "queued", 0, 0, None, None, now, None, {"upto": 1}, None, now, now
    )
    with store.transaction():
        store.insert_job(job)
        found = store.get_job("j")
        assert found is not None and found.payload == {"upto": 1} and found.owner == "o"
        assert [j.job_id for j in store.list_jobs("t", None, 10, 0)] == ["j"]
        claimed = store.claim_job("o", now, now, None)
        assert claimed is not None and claimed.status == "running"
        assert store.renew_job_lease("j", "o", now, now)
        assert store.finish_job("j", "o", {"record_ids": []}, now)
        assert store.fail_job("j", "o", status="queued", error="e", not_before=now, now=now)
        assert store.running_job_owners() == ["o"]
        assert store.release_jobs("o", now, 10) == 1
        assert store.release_jobs(None, now, 10) == 1
        assert store.hand_back_jobs("o", now) == 1
        assert store.delete_thread_jobs("t") == 1
        assert store.retry_job("j", now)


def _exercise_threads(store: OracleStore) -> None:
    """Call every thread, message and profile method once."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    info = ThreadInfo(thread_id="t", user_id="u", created_at=now, updated_at=now)
    store.insert_thread(info)
    store.lock_thread("t")
    assert store.get_thread("t") == thread_from_row(THREAD_ROW)
    assert [t.thread_id for t in store.list_threads("u", None, 10, 0)] == ["t"]
    assert store.count_threads("u", None) == 1
    store.update_thread(info)
    assert store.reserve_message_positions("t", 2) == 0
    vector = np.array([1.0, 0.0], dtype=np.float32)
    store.insert_messages(
        [NewMessage("x", "t", "user", 0, "hi", "u", None, {}, None, now, None, vector)]
    )
    assert store.count_messages("t", now) == 1
    assert [m.role for m in store.list_messages("t", now, 5, 0)] == ["user"]
    assert [m.id for m in store.window_messages("t", now, 1, 10)] == ["x"]
    assert list(store.get_messages(["x"])) == ["x"]
    assert store.message_places("t", 0, 1) == {0: "x"}
    assert store.delete_scope("t", None, None) == 1
    store.insert_profile(Profile(kind="user", id="u", created_at=now))
    assert store.get_profile("user", "u") is not None
    assert [p.id for p in store.list_profiles("user", 10, 0)] == ["u"]
    assert store.count_profiles("user") == 1
    assert store.delete_profile("user", "u")


# -- the store against the fake --------------------------------------------------------


def test_store_sends_every_oracle_statement(conn: FakeConnection) -> None:
    _exercise(OracleStore(conn))
    sent = set(conn.names())
    # count-legacy-tables: only for another store id (the tests below).
    assert sent - {"<script>"} == set(ORACLE) - {"count-legacy-tables"} | {
        "expand-level",
        "expand-level-uncapped",
    }


def test_store_nearest_binds_query_k_and_ranks_exactly(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    store.insert_memory(_memory("m1"))
    query = np.array([0.0, 1.0], dtype=np.float32)
    assert store.nearest(SearchFilters(), query, 3, include_invalid=False) == [("m1", 1.0)]
    binds = next(b for name, b in conn.sent if name == "select-nearest")
    assert (binds["k"], binds["slack"], list(binds["query"])) == (3, NEAREST_SLACK, [0.0, 1.0])


def test_store_keyword_binds_braced_words_joined_by_accum(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    store.keyword(SearchFilters(), ["which", "db", "or"], 4, include_invalid=True)
    binds = next(b for name, b in conn.sent if name == "select-keyword-hits")
    assert binds["text_query"] == "{which} ACCUM {db} ACCUM {or}"
    assert (binds["k"], binds["include_invalid"]) == (4, 1)


def test_store_passing_ids_binds_the_ids_the_filters_and_validity(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    filters = SearchFilters(user_id="u", record_types=("fact",), metadata_filter={"k": "v"})
    assert store.passing_ids(["m1", "m2"], filters, include_invalid=True) == {"m1"}
    binds = next(b for name, b in conn.sent if name == "select-passing-ids")
    assert json.loads(binds["record_ids"]) == ["m1", "m2"]
    assert (binds["user_id"], binds["record_types"], binds["include_invalid"]) == (
        "u",
        '["fact"]',
        1,
    )
    assert any(name == "insert-filter" for name, _ in conn.sent)


def test_store_nearest_other_dimension_is_invalid_argument(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    store.insert_memory(_memory("m1"))
    conn.meta = {"embedder_name": "mini-lm", "embedding_dim": "2"}
    with pytest.raises(InvalidArgumentError, match="embedder"):
        store.nearest(SearchFilters(), np.ones(3, dtype=np.float32), 1, include_invalid=False)
    assert "select-nearest" not in conn.names()


def test_store_lowered_expand_level_when_native_pgq_is_off(conn: FakeConnection) -> None:
    _pgq()
    names = ("expand-level", "expand-level-uncapped")
    conn.lowered = {load_pgq_statement(n, lower_to="oracle").sql: n for n in names}
    assert all("GRAPH_TABLE" not in sql.upper() for sql in conn.lowered)
    store = OracleStore(conn, use_native_pgq=False)
    list(store.linked_context(["m1"], SearchFilters(), num_hops=1, max_linked_results=None))
    list(store.linked_context(["m1"], SearchFilters(), num_hops=1, max_linked_results=3))
    assert set(names) <= set(conn.names())


def test_store_runs_install_when_tables_are_missing(conn: FakeConnection) -> None:
    conn.tables = 0
    OracleStore(conn)
    scripts = [sql for name, sql in conn.sent if name == "<script>"]
    assert scripts == _script("session") + _script("install")


def test_store_with_another_id_installs_when_no_old_tables(conn: FakeConnection) -> None:
    conn.tables = 0
    conn.use_prefix("T_NEW")
    OracleStore(conn, "T_NEW")
    scripts = [sql for name, sql in conn.sent if name == "<script>"]
    assert scripts == _script("session", "T_NEW") + _script("install", "T_NEW")
    (legacy,) = [binds for name, binds in conn.sent if name == "count-legacy-tables"]
    assert sorted(legacy.values()) == [
        "T_NEW_link",
        "T_NEW_memory",
        "T_NEW_memory_meta",
        "T_NEW_meta",
    ]


def test_store_refuses_to_install_next_to_old_layout(conn: FakeConnection) -> None:
    conn.tables = 0
    conn.legacy_tables = 4
    conn.use_prefix("T_OLD")
    with pytest.raises(SchemaError, match="before schema version 3"):
        OracleStore(conn, "T_OLD")
    scripts = [sql for name, sql in conn.sent if name == "<script>"]
    assert scripts == _script("session", "T_OLD")


@pytest.mark.parametrize("script", ["install", "uninstall", "session"])
def test_object_names_fit_oracle_identifier_limit(script: str) -> None:
    # Oracle 12.2 and later allow names of up to 128 bytes; store ids have at most 30.
    longest = "X" * 30
    text = re.sub(r"--[^\n]*", "", load_script("oracle", script, longest))
    names = re.findall(rf"\b{longest}__\w+", text, re.IGNORECASE)
    assert names or script == "session"
    assert all(len(n.encode()) <= 128 for n in names)


def test_store_require_existing_raises_schema_error(conn: FakeConnection) -> None:
    conn.tables = 3
    with pytest.raises(SchemaError, match="REQUIRE_EXISTING"):
        OracleStore(conn, schema_policy=SchemaPolicy.REQUIRE_EXISTING)


def test_store_rejects_old_server(conn: FakeConnection) -> None:
    conn.version = "23.3.0.23.9"
    with pytest.raises(SchemaError, match=r"23\.4"):
        OracleStore(conn)


def test_store_deletes_links_before_the_memory(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    conn.sent.clear()
    assert store.delete_memory("m1")
    assert conn.names() == ["list-links-of-record", "delete-link", "delete-memory"]


def test_store_encodes_metadata_keys_as_json_text(conn: FakeConnection) -> None:
    OracleStore(conn).insert_memory(_memory("m1"))
    rows = next(binds for name, binds in conn.sent if name == "insert-memory-meta")
    assert [r["meta_key"] for r in rows] == ['""', '"k"']


def test_store_binds_embedding_as_float32_array(conn: FakeConnection) -> None:
    OracleStore(conn).insert_memory(_memory("m1"))
    sent = next(binds for name, binds in conn.sent if name == "insert-memory")
    rows = sent if isinstance(sent, list) else [sent]  # executemany sends a list of rows
    assert rows[0]["embedding"] == array("f", [1.0, 0.0])


def test_store_splits_long_id_lists(conn: FakeConnection) -> None:
    OracleStore(conn).get_memories([f"id-{i:0100d}" for i in range(100)])
    lists = [b["record_ids"] for name, b in conn.sent if name == "get-memories"]
    assert len(lists) > 1 and all(len(s.encode()) < 4000 for s in lists)


@pytest.mark.parametrize(
    ("code", "error"),
    [(1, ConflictError), (2291, NotFoundError), (942, SchemaError), (600, BackendError)],
)
def test_store_translates_driver_errors(conn: FakeConnection, code: int, error: type) -> None:
    store = OracleStore(conn)
    conn.fail["insert-link"] = _error(code)
    with pytest.raises(error) as caught:
        store.insert_link(_link())
    assert isinstance(caught.value.__cause__, FakeError)
    assert conn.rollbacks == 1


def test_translate_error_maps_trigger_errors_to_conflict() -> None:
    assert isinstance(translate_error(_error(20002)), ConflictError)


@pytest.mark.parametrize("code", [1, 2290, 2292, 20001, 20002, 20004, 20005])
def test_translate_error_conflict_message_has_no_driver_text(code: int) -> None:
    assert "ORA-" not in str(translate_error(_error(code)))


# -- the embedder identity (name, dimension) ---------------------------------------------


def test_store_records_embedder_with_first_vector(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    conn.sent.clear()
    commits = conn.commits
    store.use_embedder("mini-lm", 384)
    assert conn.names() == [
        "get-embedder-meta",
        "lock-meta",
        "get-embedder-meta",
        "put-meta",
        "put-meta",
    ]
    written = [binds for name, binds in conn.sent if name == "put-meta"]
    assert written == [
        {"meta_key": "embedding_dim", "meta_value": "384"},
        {"meta_key": "embedder_name", "meta_value": "mini-lm"},
    ]
    assert (conn.commits - commits, conn.rollbacks) == (1, 0)  # one transaction


def test_store_lock_meta_locks_the_row() -> None:
    assert ORACLE["lock-meta"].sql.rstrip().upper().endswith("FOR UPDATE")


def test_store_same_embedder_writes_nothing(conn: FakeConnection) -> None:
    conn.meta = {"embedder_name": "mini-lm", "embedding_dim": "384"}
    store = OracleStore(conn)
    conn.sent.clear()
    store.use_embedder("mini-lm", 384)
    assert store.stored_embedder() == ("mini-lm", 384)
    assert set(conn.names()) == {"get-embedder-meta"}


@pytest.mark.parametrize(("name", "dim"), [("other", 384), ("mini-lm", 16)])
def test_store_refuses_other_embedder(conn: FakeConnection, name: str, dim: int) -> None:
    conn.meta = {"embedder_name": "mini-lm", "embedding_dim": "384"}
    store = OracleStore(conn)
    conn.sent.clear()
    with pytest.raises(SchemaError, match=rf"'mini-lm' \(384 dimensions\).*'{name}' \({dim} "):
        store.use_embedder(name, dim)
    assert set(conn.names()) == {"get-embedder-meta"}
    assert conn.rollbacks == 1


def _graph_memory(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch, embedder: str
) -> GraphMemory:
    """A GraphMemory over the fake connection (taken for python-oracledb's), whose
    store records a 2-dimensional 'mini-lm'."""
    monkeypatch.setattr(FakeConnection, "__module__", "oracledb.connection")
    conn.meta = {"embedder_name": "mini-lm", "embedding_dim": "2"}
    return GraphMemory(conn, embedder=_TwoDims(name=embedder))  # type: ignore[arg-type]


def test_store_search_reads_the_recorded_embedder(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = _graph_memory(conn, monkeypatch, "other")
    with pytest.raises(SchemaError, match="'mini-lm'"):
        memory.search("x")
    assert "select-search-candidates" not in conn.names()


def test_a_search_reads_the_embedder_record_in_one_statement_per_check(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = _graph_memory(conn, monkeypatch, "mini-lm")
    conn.sent.clear()
    memory.search("x", num_hops=0)
    sent = conn.names()
    # the handle's check and the vector search's own: one round trip each
    assert sent.count("get-embedder-meta") == 2 and "select-nearest" in sent


def test_an_export_reads_ids_then_pages_of_rows(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = _graph_memory(conn, monkeypatch, "mini-lm")
    conn.sent.clear()
    out = io.StringIO()
    assert memory.export_jsonl(out, threads=False, prompts=False) == (1, 1)
    assert conn.names() == ["list-memory-ids", "get-memories", "get-lifecycle-links-to",
                            "list-link-ids", "get-links"]  # fmt: skip
    assert [json.loads(line)["kind"] for line in out.getvalue().splitlines()] == ["memory", "link"]


class _TwoDims:
    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


def test_pool_acquires_and_releases_per_transaction(fake: SimpleNamespace) -> None:
    pool = FakePool()
    store = OracleStore(pool)
    released = pool.released
    store.find_link("m1", "m2", "supersedes")
    assert pool.released == released + 1
    assert pool.conn.names()[-2:] == ["<script>", "find-link-by-triple"]


def test_graphmemory_opens_oracle_for_dsn_strings(fake: SimpleNamespace) -> None:
    memory = GraphMemory("graphmem/secret@localhost:1521/FREEPDB1")
    assert isinstance(memory._store, OracleStore)


def test_graphmemory_opens_oracle_for_driver_objects(
    conn: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakeConnection, "__module__", "oracledb.connection")
    memory = GraphMemory(conn)
    assert isinstance(memory._store, OracleStore)


def test_split_script_keeps_plsql_units_whole() -> None:
    units = [s for s in _script("install") if _is_plsql(s)]
    # The anonymous block that creates the Oracle Text index where Oracle Text is installed.
    # The anonymous block that adds the message columns to stores from before them.
    # The anonymous block that drops the text-keyed work tables of stores before version 5.
    # The anonymous block that numbers the links of stores before version 8.
    # The anonymous block that copies the neighbours' filter columns (version 9).
    # The anonymous block that adds the block lease columns (version 10).
    text_index, *upgrade = [u for u in units if u.startswith("BEGIN")]
    assert "INDEXTYPE IS CTXSYS.CONTEXT" in text_index and text_index.endswith("END;")
    assert len(upgrade) == 5 and all(u.endswith("END;") for u in upgrade)
    assert "MESSAGE_ROLE" in upgrade[0] and "ROOT_ID" in upgrade[1]
    assert "LINK_NO" in upgrade[2] and "MODIFY (link_no NOT NULL)" in upgrade[2]
    assert "OTHER_RECORD_TYPE" in upgrade[3]
    assert "MODIFY (other_record_type NOT NULL)" in upgrade[3]
    assert "GRAPHMEM_MEMORY_BLOCK ADD" in upgrade[4] and "'LEASE_UNTIL'" in upgrade[4]
    triggers = [u for u in units if not u.startswith("BEGIN")]
    assert [u.split()[4] for u in triggers] == [
        "GRAPHMEM_LINK_VALIDITY",
        "GRAPHMEM_MEMORY_STATUS",
        "GRAPHMEM_NODE_SYNC",
        "GRAPHMEM_ADJACENCY_SYNC",
    ]
    assert all(u.endswith(";") for u in units)
