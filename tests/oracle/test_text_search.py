"""Keyword search on Oracle without a server: the optional Oracle Text index and the
bounds of the ``CONTAINS`` query.

install.sql creates the CONTEXT index only where the CTXSYS.CONTEXT indextype
exists (gvenzl's slim images remove Oracle Text), so the rest of the schema
always installs; a keyword or hybrid search on a store without the index raises
``SchemaError`` instead of sending ``CONTAINS``. The query text keeps each word
within Oracle Text's token size and the whole below a plain VARCHAR2 bind.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from graphmem.core.fusion import MAX_TERMS, keyword_terms
from graphmem.core.validation import SearchFilters
from graphmem.errors import SchemaError
from graphmem.stores import oracle_session
from graphmem.stores.oracle import TEXT_QUERY_BYTES, TEXT_TOKEN_BYTES, OracleStore, text_query

from .test_static import FakeConnection, FakeError, _graph_memory, _script, fake_module


class NoTextConnection(FakeConnection):
    """A server without Oracle Text: creating a CONTEXT index fails (ORA-29833), and
    count-text-index finds none. A statement that creates it only when the indextype
    is listed in ALL_INDEXTYPES creates nothing there, and succeeds."""

    def __init__(self) -> None:
        super().__init__()
        self.text_indexes = 0

    def script_ran(self, sql: str) -> None:
        guarded = sql.startswith("BEGIN") and "FROM all_indextypes" in sql
        if "CTXSYS.CONTEXT" in sql and not guarded:
            error = SimpleNamespace(code=29833, message="ORA-29833: indextype does not exist")
            raise FakeError(error)
        super().script_ran(sql)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    module = fake_module()
    monkeypatch.setattr(oracle_session, "import_oracledb", lambda: module)
    return module


@pytest.fixture
def no_text(fake: SimpleNamespace) -> NoTextConnection:
    """A new schema on a server without Oracle Text."""
    conn = NoTextConnection()
    conn.tables, conn.valid_triggers, conn.graphs, conn.columns = 0, 0, 0, 0
    return conn


def test_text_index_missing_the_whole_install_runs_and_the_store_opens(
    no_text: NoTextConnection,
) -> None:
    OracleStore(no_text)
    scripts = [sql for name, sql in no_text.sent if name == "<script>"]
    assert scripts == _script("session") + _script("install")


def test_text_index_missing_keyword_search_is_a_schema_error(no_text: NoTextConnection) -> None:
    store = OracleStore(no_text)
    with pytest.raises(SchemaError, match=r"Oracle Text index GRAPHMEM_MEMORY_TEXT_IX.*vector"):
        store.keyword(SearchFilters(), ["tea"], 5, include_invalid=False)
    assert "count-text-index" in no_text.names()
    assert "select-keyword-hits" not in no_text.names()
    assert no_text.rollbacks == 0  # a read, not a failed write


def test_text_index_missing_error_names_the_store_index(fake: SimpleNamespace) -> None:
    conn = NoTextConnection()
    conn.use_prefix("T_SHOP")
    store = OracleStore(conn, "T_SHOP")
    with pytest.raises(SchemaError, match="T_SHOP__MEMORY_TEXT_IX"):
        store.keyword(SearchFilters(), ["tea"], 5, include_invalid=False)


@pytest.mark.parametrize("strategy", ["keyword", "hybrid"])
def test_text_index_missing_search_strategy_is_a_schema_error(
    fake: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, strategy: str
) -> None:
    conn = NoTextConnection()
    monkeypatch.setattr(NoTextConnection, "__module__", "oracledb.connection")
    memory = _graph_memory(conn, monkeypatch, "mini-lm")
    with pytest.raises(SchemaError, match="Oracle Text"):
        memory.search("tea", strategy=strategy)
    assert memory.search("tea", strategy="vector", num_hops=0) == []


def test_text_index_missing_empty_queries_need_no_index(no_text: NoTextConnection) -> None:
    store = OracleStore(no_text)
    assert store.keyword(SearchFilters(), [], 5, include_invalid=False) == []
    assert store.keyword(SearchFilters(), ["tea"], 0, include_invalid=False) == []
    assert "count-text-index" not in no_text.names()


def test_text_index_added_later_is_found_without_reopening(no_text: NoTextConnection) -> None:
    store = OracleStore(no_text)
    with pytest.raises(SchemaError):
        store.keyword(SearchFilters(), ["tea"], 5, include_invalid=False)
    no_text.text_indexes = 1  # Oracle Text installed, install.sql run again
    assert store.keyword(SearchFilters(), ["tea"], 5, include_invalid=False) == []
    store.keyword(SearchFilters(), ["oven"], 5, include_invalid=False)
    assert no_text.names().count("count-text-index") == 2  # not asked once found
    assert no_text.names().count("select-keyword-hits") == 2


def test_text_index_compose_image_keeps_oracle_text() -> None:
    """docker-compose.yml serves the live tests: not a slim flavour, which has no
    Oracle Text and so no keyword search."""
    compose = (Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text()
    (image,) = re.findall(r"^\s*image:\s*(\S+)\s*$", compose, re.MULTILINE)
    assert image.startswith("gvenzl/oracle-free:")
    assert "slim" not in image.split(":", 1)[1]


# -- the CONTAINS query ------------------------------------------------------------------


def test_text_query_cuts_a_long_word_to_the_token_size() -> None:
    query = text_query(["error", "A" * 5000])
    assert query == "{error} ACCUM {" + "A" * TEXT_TOKEN_BYTES + "}"


def test_text_query_cuts_multibyte_words_at_a_character() -> None:
    word = "字" * 100  # 300 bytes in UTF-8
    query = text_query([word])
    kept = query[1:-1]
    assert word.startswith(kept) and len(kept.encode()) == TEXT_TOKEN_BYTES
    mixed = "é" * 200  # two bytes each: byte 255 is the first half of one
    kept = text_query([mixed])[1:-1]
    assert mixed.startswith(kept) and len(kept.encode()) == TEXT_TOKEN_BYTES - 1


def test_text_query_stays_below_the_bind_limit_and_keeps_words_that_fit() -> None:
    long_words = [chr(ord("a") + i % 26) * 300 + str(i) for i in range(MAX_TERMS - 1)]
    query = text_query([*long_words, "tea"])
    assert len(query.encode()) <= TEXT_QUERY_BYTES
    assert query.endswith("{tea}")  # the short last word still fits after the long ones
    assert query.startswith("{" + "a" * TEXT_TOKEN_BYTES + "} ACCUM ")


def test_text_query_of_short_words_is_unchanged() -> None:
    assert text_query(["which", "db", "or"]) == "{which} ACCUM {db} ACCUM {or}"


def test_store_keyword_bind_of_a_pasted_blob_stays_small(fake: SimpleNamespace) -> None:
    conn = FakeConnection()
    store = OracleStore(conn)
    terms = keyword_terms("error " + "A" * 5000 + " " + "b" * 40 * MAX_TERMS)
    store.keyword(SearchFilters(), terms, 5, include_invalid=False)
    binds = next(b for name, b in conn.sent if name == "select-keyword-hits")
    assert len(binds["text_query"].encode()) <= TEXT_QUERY_BYTES
    assert binds["text_query"].startswith("{error} ACCUM {aaa")
