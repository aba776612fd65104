"""Oracle store hardening, checked without a server.

Id-list bind sizes (pure Python), the schema check on open and the handling of
compile warnings (against the fake python-oracledb of ``test_static``), the
shape of the compound triggers and work tables in ``install.sql`` (by reading
the script), and that the Oracle docs claim only what these tests or the docs'
own "verified" sections back.
"""

from __future__ import annotations

import itertools
import json
import re
import string
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from graphmem.core.validation import SearchFilters
from graphmem.errors import SchemaError
from graphmem.models import SchemaPolicy
from graphmem.sqlfiles import load_statements
from graphmem.stores import oracle_session
from graphmem.stores.oracle import SCHEMA_TABLES, OracleStore
from graphmem.stores.oracle_session import ID_LIST_BYTES, id_lists

from .test_static import FakeConnection, _memory, _script, fake_module

ROOT = Path(__file__).resolve().parents[2]
ORACLE_TEXTS = {**load_statements("oracle"), **load_statements("pgq")}


@pytest.fixture
def conn(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    module = fake_module()
    monkeypatch.setattr(oracle_session, "import_oracledb", lambda: module)
    return FakeConnection()


def _short_ids(width: int, count: int) -> list[str]:
    """``count`` ids of ``width`` ASCII characters (repeating once all are used)."""
    alphabet = string.ascii_letters + string.digits
    every = ["".join(chars) for chars in itertools.product(alphabet, repeat=width)]
    return list(itertools.islice(itertools.cycle(every), count))


def _check_lists(ids: list[str], lists: list[str]) -> None:
    """Each list fits, the lists hold exactly ``ids`` in order, and each but the last is full."""
    assert all(len(text.encode("utf-8")) <= ID_LIST_BYTES for text in lists)
    assert [i for text in lists for i in json.loads(text)] == ids
    position = 0
    for text in lists[:-1]:
        position += len(json.loads(text))
        next_item = json.dumps(ids[position])  # ASCII-escaped, as bound
        assert len(text) + 1 + len(next_item) > ID_LIST_BYTES, "a list was cut early"


# -- item: id lists stay within a plain VARCHAR2 bind ----------------------------------


@pytest.mark.parametrize("width", [1, 2])
def test_id_lists_stay_within_the_limit_for_short_ids(width: int) -> None:
    ids = _short_ids(width, 5000)
    lists = list(id_lists(ids))
    assert len(lists) > 3
    _check_lists(ids, lists)


def test_id_lists_stay_within_the_limit_for_escaped_ids() -> None:
    ids = ["é", "日本", "\U0001f600", 'a"b', "c\\d", "\n"] * 600
    _check_lists(ids, list(id_lists(ids)))


def test_id_lists_are_one_list_for_a_few_ids() -> None:
    assert list(id_lists(["a", "b"])) == ['["a","b"]']


def test_store_binds_two_char_id_lists_below_4000_bytes(conn: FakeConnection) -> None:
    ids = _short_ids(2, 3844)
    OracleStore(conn).get_memories(ids)
    lists = [b["record_ids"] for name, b in conn.sent if name == "get-memories"]
    assert len(lists) > 1
    assert all(len(text.encode("utf-8")) < 4000 for text in lists)
    assert [i for text in lists for i in json.loads(text)] == ids


# -- item: compile errors and partial installs are reported -----------------------------


def test_install_raises_schema_error_on_a_compile_warning(conn: FakeConnection) -> None:
    conn.tables = 0
    conn.warn_on = "TRIGGER GRAPHMEM_LINK_VALIDITY"
    with pytest.raises(SchemaError, match=r"GRAPHMEM_LINK_VALIDITY.*DPY-7000.*USER_ERRORS"):
        OracleStore(conn)
    scripts = [sql for name, sql in conn.sent if name == "<script>"]
    assert not any("PROPERTY GRAPH" in sql for sql in scripts), "install went on after it"


@pytest.mark.parametrize(
    ("attribute", "reported"),
    [
        ("tables", rf"{SCHEMA_TABLES - 1} of {SCHEMA_TABLES} tables"),
        ("valid_triggers", r"3 of 4 valid triggers"),
        ("graphs", r"0 of 1 property graph"),
        ("columns", r"6 of 7 columns added by upgrades"),
    ],
)
def test_open_reports_a_partial_schema_under_require_existing(
    conn: FakeConnection, attribute: str, reported: str
) -> None:
    setattr(conn, attribute, getattr(conn, attribute) - 1)
    with pytest.raises(SchemaError, match=reported):
        OracleStore(conn, schema_policy=SchemaPolicy.REQUIRE_EXISTING)
    assert all(name != "<script>" or sql in _script("session") for name, sql in conn.sent)


@pytest.mark.parametrize("attribute", ["valid_triggers", "graphs", "columns"])
def test_open_repairs_a_partial_schema_by_running_install(
    conn: FakeConnection, attribute: str
) -> None:
    setattr(conn, attribute, 0)
    OracleStore(conn)
    scripts = [sql for name, sql in conn.sent if name == "<script>"]
    assert scripts == _script("session") + _script("install")
    assert conn.names().count("count-schema-tables") == 2


def test_open_reports_a_schema_that_install_cannot_repair(conn: FakeConnection) -> None:
    conn.valid_triggers = 1
    conn.repairs = False
    with pytest.raises(SchemaError, match=r"install\.sql ran.*1 of 4 valid triggers"):
        OracleStore(conn)


# -- item: compound triggers declare only in their declaration section ------------------


def test_trigger_timing_points_hold_no_declarations() -> None:
    """A timing point is ``<timing point> IS BEGIN ... END <timing point>;``."""
    triggers = [s for s in _script("install") if s.startswith("CREATE OR REPLACE TRIGGER")]
    points = 0
    for trigger in triggers:
        for match in re.finditer(r"\b(?:BEFORE|AFTER) (?:EACH ROW|STATEMENT) IS\b(.*?)\bBEGIN\b",
                                 trigger, re.DOTALL):  # fmt: skip
            points += 1
            between = re.sub(r"--[^\n]*", "", match.group(1))
            assert not between.strip(), f"declarations in a timing point: {between.strip()}"
    assert points == 8


# -- item: work tables live for one transaction -----------------------------------------


def test_work_tables_delete_their_rows_on_commit() -> None:
    tables = [s for s in _script("install") if s.startswith("CREATE GLOBAL TEMPORARY TABLE")]
    assert len(tables) == 3
    assert all(t.endswith(") ON COMMIT DELETE ROWS") for t in tables), tables


def test_store_turns_autocommit_off_inside_its_transactions(conn: FakeConnection) -> None:
    conn.autocommit = True
    store = OracleStore(conn)
    filters = SearchFilters(metadata_filter={"k": "v"})
    store.nearest(filters, np.ones(2, dtype=np.float32), 3, include_invalid=False)
    list(store.linked_context(["m1"], filters, num_hops=2, max_linked_results=None))
    assert conn.autocommit_seen and not any(conn.autocommit_seen)
    assert conn.autocommit is True


def _transactions(conn: FakeConnection) -> list[list[str]]:
    """The statement names of each transaction, split at commits and rollbacks."""
    found: list[list[str]] = [[]]
    for name, _ in conn.sent:
        if name == "<end>":
            found.append([])
        else:
            found[-1].append(name)
    return found


def _work_table_readers(table: str, writers: set[str]) -> set[str]:
    return {
        name
        for name, stmt in ORACLE_TEXTS.items()
        if re.search(rf"\b{table}\b", stmt.sql, re.IGNORECASE) and name not in writers
    }


def test_work_tables_are_filled_and_read_in_one_transaction(conn: FakeConnection) -> None:
    store = OracleStore(conn)
    conn.sent.clear()
    ends: Any = lambda: conn.sent.append(("<end>", None))  # noqa: E731
    conn.commit = conn.rollback = ends  # type: ignore[method-assign]
    store.insert_memory(_memory("m1"))
    filters = SearchFilters(user_id="u", metadata_filter={"k": "v"})
    store.list_memories(filters, include_invalid=False, limit=5)
    store.nearest(filters, np.ones(2, dtype=np.float32), 3, include_invalid=True)
    list(store.linked_context(["m1", "m2"], filters, num_hops=3, max_linked_results=None))
    uses = {
        "reset-filter": _work_table_readers("graphmem_filter", {"reset-filter", "insert-filter"}),
        "reset-traversal-reached": _work_table_readers(
            "graphmem_reached", {"reset-traversal-reached", "insert-traversal-root"}
        ),
        "reset-traversal-roots": _work_table_readers(
            "graphmem_roots", {"reset-traversal-roots", "open-traversal-root"}
        ),
    }
    checked = 0
    for names in _transactions(conn):
        for i, name in enumerate(names):
            for reset, readers in uses.items():
                if name in readers:
                    assert reset in names[:i], f"{name} reads rows not written in its transaction"
                    checked += 1
    assert checked >= 6


# -- items: the docs claim only what was checked ----------------------------------------


def _doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def test_oracle_docs_do_not_offer_stores_of_another_schema() -> None:
    text = _doc("oracle.md")
    assert "another schema's store" not in text
    privileges = text.split("## Privileges", 1)[1].split("\n## ", 1)[0]
    assert "schema owner" in privileges and "other schema" in privileges


def test_docs_say_db_developer_role_is_unverified_wherever_they_name_it() -> None:
    sources = [_doc("dba.md"), _doc("oracle.md"), (ROOT / "sql/oracle/install.sql").read_text()]
    mentions = [p for text in sources for p in _paragraphs(text) if "DB_DEVELOPER_ROLE" in p]
    assert mentions
    for paragraph in mentions:
        assert re.search(r"unverified|not verified", paragraph, re.IGNORECASE), paragraph


def test_oracle_docs_do_not_claim_equal_traversals_by_construction() -> None:
    text = _doc("oracle.md")
    assert "by construction" not in text
    section = text.split("## `use_native_pgq`", 1)[1].split("\n## ", 1)[0]
    assert "test_live" in section  # the live test that compares both


def test_oracle_docs_name_the_checks_of_the_id_bind_size() -> None:
    paragraph = next(p for p in _paragraphs(_doc("oracle.md")) if "**Id lists**" in p)
    named = set(re.findall(r"`(test_\w+)`", paragraph))
    assert named, "the id-list claim names no test"
    assert named <= {n for n in globals() if n.startswith("test_")}


def test_fake_warning_is_what_the_driver_reports_for_ora_24344() -> None:
    """python-oracledb maps ORA-24344 (success with compilation error) to this warning."""
    errors = pytest.importorskip("oracledb.errors")
    code = errors.ERR_ORACLE_ERROR_XREF[24344]
    expected = f"DPY-{code}: {errors.ERR_MESSAGE_FORMATS[code]}"
    conn = FakeConnection()
    conn.warn_on = "TRIGGER"
    warning: SimpleNamespace = conn.warning_for("CREATE OR REPLACE TRIGGER t")
    assert warning.message == expected
