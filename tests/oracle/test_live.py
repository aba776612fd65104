"""The conformance suite and the state machine against a live Oracle AI Database.

Runs only when ``GRAPHMEM_ORACLE_DSN`` names a server (``user/password@host:port/service``,
e.g. the docker-compose.yml service: ``graphmem/graphmem@localhost:1521/FREEPDB1``).
Every store gets a unique ``memory_store_id`` and is uninstalled after its test.
"""

from __future__ import annotations

import itertools
import os
import string
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

DSN = os.environ.get("GRAPHMEM_ORACLE_DSN", "")
if not DSN:
    pytest.skip(
        "GRAPHMEM_ORACLE_DSN is not set: no Oracle server to test against",
        allow_module_level=True,
    )

oracledb = pytest.importorskip("oracledb", reason="python-oracledb is not installed")
conformance = pytest.importorskip("graphmem.testing.conformance")
machine = pytest.importorskip("graphmem.testing.machine")

from graphmem import GraphMemory  # noqa: E402
from graphmem.core.validation import SearchFilters  # noqa: E402
from graphmem.errors import SchemaError  # noqa: E402
from graphmem.models import SchemaPolicy  # noqa: E402
from graphmem.stores.oracle import OracleStore  # noqa: E402


def _store_id() -> str:
    return f"gm{uuid.uuid4().hex[:16]}"


def _uninstall(store_id: str) -> None:
    """Drop a test store's objects from a fresh session (the test's sessions are closed)."""
    store = OracleStore(DSN, store_id)
    try:
        store.uninstall()
    finally:
        store.close()


class TestOracleConformance(conformance.StoreConformance):
    """Every conformance test, each store in its own prefix, dropped afterwards."""

    def make_memory(self, clock: Callable[[], datetime] | None = None) -> GraphMemory:
        store_id = _store_id()
        self.__dict__.setdefault("oracle_store_ids", []).append(store_id)
        return GraphMemory(DSN, memory_store_id=store_id, clock=clock)

    def teardown_method(self, method: Any = None) -> None:
        super().teardown_method(method)
        for store_id in self.__dict__.pop("oracle_store_ids", []):
            _uninstall(store_id)


class OracleMachine(machine.GraphMemoryMachine):
    """The state machine with an Oracle store per run."""

    def make_memory(self) -> GraphMemory:
        self.store_id = _store_id()
        return GraphMemory(DSN, memory_store_id=self.store_id, clock=self.clock)

    def teardown(self) -> None:
        super().teardown()
        _uninstall(self.store_id)


TestOracleMachine = OracleMachine.TestCase


# -- the store's own checks, against the server --------------------------------------------


def _credentials() -> tuple[str, str, str]:
    user, password, dsn = oracledb.ConnectParams().parse_dsn_with_credentials(DSN)
    return user, password, dsn


def _execute_ddl(sql: str) -> Any:
    """Run one DDL statement on a fresh connection; returns the cursor's warning."""
    user, password, dsn = _credentials()
    with oracledb.connect(user=user, password=password, dsn=dsn) as conn:
        cursor = conn.cursor()
        cursor.execute(sql)
        return cursor.warning


@pytest.fixture
def store_id() -> Iterator[str]:
    """A fresh store id; whatever the test installed under it is dropped afterwards."""
    store_id = _store_id()
    yield store_id
    _uninstall(store_id)


def test_live_compile_error_is_a_cursor_warning() -> None:
    """The driver behaviour the install check relies on: no exception, a warning."""
    table = _store_id()
    _execute_ddl(f"CREATE TABLE {table} (x NUMBER)")
    try:
        warning = _execute_ddl(
            f"CREATE OR REPLACE TRIGGER {table}_t BEFORE INSERT ON {table} "
            "BEGIN graphmem_no_such_procedure; END;"
        )
        assert warning is not None
        assert warning.full_code in {"DPY-7000", "ORA-24344"}
    finally:
        _execute_ddl(f"DROP TABLE {table} PURGE")


def test_live_open_reports_and_repairs_an_invalid_trigger(store_id: str) -> None:
    OracleStore(DSN, store_id).close()
    warning = _execute_ddl(
        f"CREATE OR REPLACE TRIGGER {store_id}_memory_status BEFORE INSERT ON "
        f"{store_id}_memory BEGIN graphmem_no_such_procedure; END;"
    )
    assert warning is not None
    with pytest.raises(SchemaError, match="3 of 4 valid triggers"):
        OracleStore(DSN, store_id, SchemaPolicy.REQUIRE_EXISTING)
    OracleStore(DSN, store_id).close()  # install.sql recreates the trigger
    OracleStore(DSN, store_id, SchemaPolicy.REQUIRE_EXISTING).close()


def test_live_open_reports_and_repairs_a_missing_graph(store_id: str) -> None:
    OracleStore(DSN, store_id).close()
    _execute_ddl(f"DROP PROPERTY GRAPH {store_id}_graph")
    with pytest.raises(SchemaError, match="0 of 1 property graph"):
        OracleStore(DSN, store_id, SchemaPolicy.REQUIRE_EXISTING)
    OracleStore(DSN, store_id).close()
    OracleStore(DSN, store_id, SchemaPolicy.REQUIRE_EXISTING).close()


def test_live_uninstall_while_a_pool_is_open(store_id: str) -> None:
    """The work tables are transaction-scoped: an idle pool does not block their DROP."""
    user, password, dsn = _credentials()
    pool = oracledb.create_pool(user=user, password=password, dsn=dsn, min=1, max=2)
    try:
        memory = GraphMemory(pool, memory_store_id=store_id)
        first = memory.add_memory("alpha notes", user_id="u", metadata={"k": "v"})
        second = memory.add_memory("beta notes", user_id="u", metadata={"k": "v"})
        memory.link_records(first, "memory", second, "memory", "supports")
        assert memory.search("alpha", user_id="u", metadata_filter={"k": "v"}, num_hops=2)
        _uninstall(store_id)  # from another session, the pool still open
    finally:
        pool.close(force=True)


def _short_ids(width: int, count: int) -> list[str]:
    alphabet = string.ascii_letters + string.digits
    every = ["".join(chars) for chars in itertools.product(alphabet, repeat=width)]
    return list(itertools.islice(itertools.cycle(every), count))


@pytest.mark.parametrize("width", [1, 2])
def test_live_id_lists_of_short_ids_are_accepted(store_id: str, width: int) -> None:
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        memory.add_memory("one", memory_id="A")
        memory.add_memory("two", memory_id="Ab")
        found = memory._store.get_memories(_short_ids(width, 5000))
        assert set(found) == ({"A"} if width == 1 else {"Ab"})
    finally:
        memory.close()


def test_live_native_and_lowered_traversal_agree(store_id: str) -> None:
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        ids = [memory.add_memory(f"note {i}", memory_id=f"n{i}", user_id="u") for i in range(8)]
        for source, target in [(0, 1), (1, 2), (2, 3), (0, 4), (4, 3), (3, 5), (5, 6), (2, 7)]:
            memory.link_records(ids[source], "memory", ids[target], "memory", "supports")
    finally:
        memory.close()
    for cap in (None, 3):
        rows = {}
        for native in (True, False):
            store = OracleStore(DSN, store_id, use_native_pgq=native)
            try:
                nodes = store.linked_context(ids[:2], SearchFilters(user_id="u"), 4, cap)
                rows[native] = [(n.root_id, n.entry) for n in nodes]
            finally:
                store.close()
        assert rows[True], "the traversal reached nothing"
        assert rows[True] == rows[False], cap


# -- schema version 9: the neighbour's filter columns in the adjacency ---------------------

_COPIES_WRONG = """
SELECT COUNT(*) FROM {p}__ADJACENCY a JOIN {p}__NODE n ON n.node_no = a.other_no
WHERE DECODE(a.other_record_type, n.record_type, 0, 1) = 1
   OR DECODE(a.other_user_id, n.user_id, 0, 1) = 1
   OR DECODE(a.other_agent_id, n.agent_id, 0, 1) = 1
   OR DECODE(a.other_thread_id, n.thread_id, 0, 1) = 1
   OR DECODE(a.other_expires_at, n.expires_at, 0, 1) = 1"""


def _sql(statements: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run statements in one transaction on a fresh connection; the last one's rows."""
    user, password, dsn = _credentials()
    with oracledb.connect(user=user, password=password, dsn=dsn) as conn:
        cursor = conn.cursor()
        rows: list[Any] = []
        for sql, binds in statements:
            cursor.execute(sql, binds)
            rows = cursor.fetchall() if cursor.description else []
        conn.commit()
        return rows


def _linked_store(store_id: str) -> None:
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        for i in range(4):
            memory.add_memory(f"note {i}", memory_id=f"n{i}", user_id="u")
        for source, target in [(0, 1), (1, 2), (2, 0), (3, 1)]:
            memory.link_records(f"n{source}", "memory", f"n{target}", "memory", "supports")
    finally:
        memory.close()


def test_live_memory_update_rewrites_the_neighbours_copies(store_id: str) -> None:
    _linked_store(store_id)
    p = store_id.upper()
    wrong = _sql([
        (f"UPDATE {p}__MEMORY SET user_id = NULL, thread_id = 't' WHERE record_id = 'n1'", {}),
        (f"UPDATE {p}__MEMORY SET user_id = user_id WHERE record_id = 'n2'", {}),
        (_COPIES_WRONG.format(p=p), {}),
    ])  # fmt: skip
    assert wrong == [(0,)]
    rows = _sql([(f"SELECT COUNT(*) FROM {p}__ADJACENCY WHERE other_thread_id = 't'", {})])
    assert rows == [(3,)]  # n1's links: to n0, n2 and from n3


def test_live_open_upgrades_a_store_without_the_copies(store_id: str) -> None:
    _linked_store(store_id)
    p = store_id.upper()
    _execute_ddl(f"ALTER TABLE {p}__ADJACENCY DROP (other_record_type, other_user_id, "
                 "other_agent_id, other_thread_id, other_expires_at)")  # fmt: skip
    with pytest.raises(SchemaError, match="2 of 7 columns added by upgrades"):
        OracleStore(DSN, store_id, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    OracleStore(DSN, store_id).close()
    assert _sql([(_COPIES_WRONG.format(p=p), {})]) == [(0,)]
    assert _sql([(f"SELECT COUNT(*) FROM {p}__ADJACENCY", {})]) == [(8,)]


_LINK_ROW = (
    "INSERT INTO {p}__LINK (relation_id, source_id, target_id, relation_type, "
    "opposite_relation_type, created_at) VALUES (:rid, :src, :tgt, :rtype, :opposite, "
    "'2026-01-01T00:00:00.000000+00:00')"
)


@pytest.mark.parametrize(
    ("rtype", "opposite"), [("supersedes", "supports"), ("Supersedes", "is_superseded_by")]
)
def test_live_dml_builtin_type_with_another_opposite_is_refused(
    store_id: str, rtype: str, opposite: str
) -> None:
    _linked_store(store_id)
    row = {"rid": "bad", "src": "n0", "tgt": "n3", "rtype": rtype, "opposite": opposite}
    with pytest.raises(oracledb.DatabaseError, match="ORA-20004"):
        _sql([(_LINK_ROW.format(p=store_id.upper()), row)])


def test_live_dml_link_to_a_message_is_refused(store_id: str) -> None:
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        memory.add_memory("lives in Paris", memory_id="m", user_id="u")
        memory.add_memory("moved", memory_id="n", user_id="u")
        thread = memory.create_thread("t", user_id="u")
        (message_id,) = thread.add_messages([{"role": "user", "content": "I moved"}])
    finally:
        memory.close()
    p = store_id.upper()
    row = {"rid": "r", "src": "m", "tgt": message_id, "rtype": "supports"}
    with pytest.raises(oracledb.DatabaseError, match="ORA-20005"):
        _sql([(_LINK_ROW.format(p=p), {**row, "opposite": "is_supported_by"})])
    with pytest.raises(oracledb.DatabaseError, match="ORA-20005"):
        _sql([
            (_LINK_ROW.format(p=p), {**row, "tgt": "n", "opposite": "is_supported_by"}),
            (f"UPDATE {p}__MEMORY SET record_type = 'message', message_role = 'user', "
             "message_position = 9, thread_id = 't' WHERE record_id = 'm'", {}),
        ])  # fmt: skip


def test_live_links_stored_before_version_11_stay_updatable_and_deletable(
    store_id: str,
) -> None:
    """A link to a message stored before the rules (written here with the trigger
    off): its metadata can change and it can go, each rule reading only what a
    write changes; a memory that only changes status is not checked."""
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        memory.add_memory("moved", memory_id="n", user_id="u")
        memory.add_memory("other", memory_id="o", user_id="u")
        thread = memory.create_thread("t", user_id="u")
        (message_id,) = thread.add_messages([{"role": "user", "content": "I moved"}])
    finally:
        memory.close()
    p = store_id.upper()
    old = {"src": "n", "tgt": message_id, "opposite": "is_superseded_by"}
    _sql([(f"ALTER TRIGGER {p}__LINK_VALIDITY DISABLE", {})])
    try:
        _sql([
            (_LINK_ROW.format(p=p), {**old, "rid": "old-lc", "rtype": "supersedes"}),
            (_LINK_ROW.format(p=p), {**old, "rid": "old-s", "src": "o", "rtype": "supports",
                                     "opposite": "is_supported_by"}),
        ])  # fmt: skip
    finally:
        _sql([(f"ALTER TRIGGER {p}__LINK_VALIDITY ENABLE", {})])
    _sql([(f"UPDATE {p}__LINK SET metadata = '{{\"k\": 1}}' WHERE relation_id = 'old-s'", {})])
    # the status the old lifecycle link implies, then valid again when it goes
    set_status = f"UPDATE {p}__MEMORY SET status = 'invalid' WHERE record_id = :m"
    _sql([(set_status, {"m": message_id})])
    _sql([(f"DELETE FROM {p}__LINK WHERE relation_id = 'old-lc'", {})])
    status = f"SELECT status FROM {p}__MEMORY WHERE record_id = :m"
    assert _sql([(status, {"m": message_id})]) == [("valid",)]
    assert _sql([(f"SELECT COUNT(*) FROM {p}__LINK", {})]) == [(1,)]


# -- strings over 32,767 bytes: bound as CLOB ----------------------------------------------


def test_live_long_cjk_content_round_trips(store_id: str) -> None:
    """100,000 characters of CJK text (300,000 bytes), through executemany (a batch
    of memories, a message) and a single-row update, read back unchanged."""
    content = "記憶" * 50_000
    other = "図表" * 50_000
    memory = GraphMemory(DSN, memory_store_id=store_id)
    try:
        ids = memory.add_memories(
            [{"content": content, "user_id": "u"}, {"content": "short", "user_id": "u"}]
        )
        thread = memory.create_thread("t", user_id="u")
        thread.add_messages([{"role": "user", "content": content}])
        assert [memory.get_memory(i).content for i in ids] == [content, "short"]
        assert [m.content for m in thread.get_messages()] == [content]
        memory.update_memory(ids[1], content=other)
        assert memory.get_memory(ids[1]).content == other
    finally:
        memory.close()
