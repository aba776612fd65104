"""The Oracle store: Oracle AI Database 23ai/26ai through python-oracledb (thin mode).

Statements come from ``sql/oracle/`` and, for the graph, ``sql/pgq/`` (the
``expand-level`` GRAPH_TABLE query runs natively, or lowered to plain SQL by
:mod:`graphmem.pgq` when ``use_native_pgq=False``). Values are always bound; the
only text graphmem changes is the validated ``memory_store_id`` prefix.
Connections, transactions and error translation live in
:mod:`graphmem.stores.oracle_session`.

Types (see ``sql/oracle/install.sql``): times are the fixed-format UTC text that
SQLite stores, so binds are the same strings on both backends; metadata is
JSON text in a CLOB, fetched as ``str``; embeddings are ``VECTOR(*, FLOAT32)``,
bound and fetched as ``array.array('f')``. The top k is found in the database
(``VECTOR_DISTANCE ... FETCH FIRST``) and ranked exactly by graphmem (numpy), as
on SQLite.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.metadata import canonical_scalar
from graphmem.core.validation import SearchFilters
from graphmem.errors import InvalidArgumentError, SchemaError
from graphmem.models import SchemaPolicy
from graphmem.sqlfiles import (
    DEFAULT_PREFIX,
    Statement,
    load_pgq_statement,
    load_statements,
    object_prefix,
)
from graphmem.stores.oracle_session import OracleSession, id_lists, vector_bind
from graphmem.stores.sql_store import SqlStore

__all__ = [
    "NEAREST_SLACK",
    "SCHEMA_GRAPHS",
    "SCHEMA_TABLES",
    "SCHEMA_TRIGGERS",
    "SCHEMA_UPGRADE_COLUMNS",
    "TEXT_QUERY_BYTES",
    "TEXT_TOKEN_BYTES",
    "OracleStore",
]

NEAREST_SLACK = 1e-5
"""``select-nearest`` also returns rows this close to the k-th distance, far more
than the database's and numpy's cosine arithmetic can differ, so that the exact
ranking in numpy sees every row that can belong to the top k."""

SCHEMA_TABLES = 16
"""Tables and work tables that ``count-schema-tables`` finds in a complete schema."""
SCHEMA_TRIGGERS = 4
"""VALID triggers that ``count-schema-tables`` finds in a complete schema."""
SCHEMA_GRAPHS = 1
"""Property graphs that ``count-schema-tables`` finds in a complete schema."""
SCHEMA_UPGRADE_COLUMNS = 7
"""The columns that upgrades add, which ``count-schema-tables`` finds in a complete
schema: the neighbour's filter columns of the adjacency table (5, schema version 9)
and the block lease (2, version 10); fewer means a store made before them, which
``install.sql`` upgrades."""
_SCHEMA_PARTS = (
    (SCHEMA_TABLES, "tables"),
    (SCHEMA_TRIGGERS, "valid triggers"),
    (SCHEMA_GRAPHS, "property graph"),
    (SCHEMA_UPGRADE_COLUMNS, "columns added by upgrades"),
)


TEXT_TOKEN_BYTES = 255
"""The longest word Oracle Text indexes, in bytes (VARCHAR2(255 BYTE) token tables
since 18c); a longer token is indexed as its first 255 bytes, see
https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/token-limitations-oracle-text-indexes.html"""
TEXT_QUERY_BYTES = 3900
"""The longest ``CONTAINS`` query graphmem binds, below the 4000 bytes of a plain
VARCHAR2 bind in SQL (``MAX_STRING_SIZE=STANDARD``), as for the id lists."""
_ACCUM = " ACCUM "


def text_query(terms: Sequence[str]) -> str:
    """The Oracle Text query matching any of ``terms`` (plain words), at most
    :data:`TEXT_QUERY_BYTES` bytes long.

    Braces make Oracle Text read a word literally (no operator, no stopword
    expansion); the terms hold only word characters, so no brace to escape.
    ``ACCUM`` scores a memory higher the more of the words it holds. A word longer
    than :data:`TEXT_TOKEN_BYTES` is cut to that many bytes (at a character
    boundary), all that Oracle Text keeps of such a token; a word that no longer
    fits in the query is left out, the words after it still tried.

    >>> text_query(["tea", "oven"])
    '{tea} ACCUM {oven}'
    >>> len(text_query(["a" * 5000]).encode())
    257
    """
    words: list[str] = []
    size = 0
    for term in terms:
        word = "{" + _cut_token(term) + "}"
        width = len(word.encode("utf-8")) + (len(_ACCUM) if words else 0)
        if size + width > TEXT_QUERY_BYTES:
            continue
        words.append(word)
        size += width
    return _ACCUM.join(words)


def _cut_token(term: str) -> str:
    """``term`` cut to at most :data:`TEXT_TOKEN_BYTES` UTF-8 bytes, whole characters only."""
    data = term.encode("utf-8")
    if len(data) <= TEXT_TOKEN_BYTES:
        return term
    return data[:TEXT_TOKEN_BYTES].decode("utf-8", errors="ignore")


def _meta_key(key: str) -> str:
    """Keys are stored as canonical JSON text: Oracle turns '' into NULL."""
    text = canonical_scalar(key)
    assert text is not None
    return text


class OracleStore(SqlStore):
    """A graphmem store in an Oracle AI Database 23ai/26ai schema.

    Args:
        connection: an ``oracledb.ConnectionPool`` (a connection is acquired per
            transaction), an ``oracledb.Connection`` (shared under a lock), or a
            DSN ``user/password@host:port/service`` (the store opens and closes
            its own connection).
        prefix: the validated ``memory_store_id`` that prefixes every object name.
        schema_policy: create missing objects (``install.sql``), or require them.
        use_native_pgq: send ``GRAPH_TABLE`` as written (default); ``False`` sends
            the plain SQL that :func:`graphmem.pgq.lower` produces, for sessions
            that reject SQL/PGQ.

    Raises:
        BackendError: python-oracledb is missing or the connection fails.
        SchemaError: the server is older than 23.4; the schema is incomplete
            (a table or the property graph missing, a trigger not VALID, the
            adjacency without the columns of schema version 9, the memory
            blocks without the lease columns of version 10) under
            ``REQUIRE_EXISTING``; or ``install.sql`` reported a compilation
            error or left the schema incomplete.
    """

    dialect = "oracle"

    def __init__(
        self,
        connection: Any,
        prefix: str = DEFAULT_PREFIX,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        *,
        use_native_pgq: bool = True,
    ) -> None:
        self._sql = load_statements("oracle", prefix)
        self._pgq = load_statements("pgq", prefix)
        self._prefix = prefix
        self._use_native_pgq = use_native_pgq
        self._text_index = False  # found by count-text-index (keyword search)
        self._session = OracleSession(connection, prefix)
        try:
            self._setup(schema_policy)
        except BaseException:
            self._session.close()
            raise

    # connection and schema -------------------------------------------------

    def _setup(self, schema_policy: SchemaPolicy) -> None:
        found = self._schema_counts()
        if int(found[0]) == 0:
            self._refuse_legacy_layout()
        gaps = self._schema_gaps(found)
        if gaps and schema_policy is SchemaPolicy.REQUIRE_EXISTING:
            raise SchemaError(
                f"the store {self._prefix!r} has no complete schema ({gaps}; "
                "schema_policy=REQUIRE_EXISTING); run sql/oracle/install.sql or use "
                "SchemaPolicy.CREATE_IF_NECESSARY"
            )
        if gaps:
            # install.sql is idempotent: it creates what is missing and recompiles
            # the triggers (CREATE OR REPLACE), which repairs a partial install.
            self._session.run_script("install")
            gaps = self._schema_gaps(self._schema_counts())
            if gaps:
                raise SchemaError(
                    f"install.sql ran but the store {self._prefix!r} is still incomplete "
                    f"({gaps}); check USER_OBJECTS and USER_ERRORS"
                )

    def _schema_counts(self) -> tuple[Any, ...]:
        """``count-schema-tables``: tables, valid triggers, property graphs, filter columns."""
        with self.transaction(write=False):
            return tuple(self._run("count-schema-tables").fetchone())

    @staticmethod
    def _schema_gaps(found: tuple[Any, ...]) -> str:
        """What is missing from ``found``, e.g. ``1 of 2 valid triggers``."""
        return ", ".join(
            f"{int(n)} of {want} {what}"
            for n, (want, what) in zip(found, _SCHEMA_PARTS, strict=True)
            if int(n) < want
        )

    def _refuse_legacy_layout(self) -> None:
        """Refuse to install next to this store's tables of before schema version 3.

        Their names were ``<id>_MEMORY``, ...; graphmem does not rename Oracle
        objects itself (docs/oracle.md shows how to move the rows).
        """
        if object_prefix(self._prefix) == f"{DEFAULT_PREFIX}_":
            return
        names = {
            f"{t}_table": f"{self._prefix}_{t}" for t in ("meta", "memory", "memory_meta", "link")
        }
        with self.transaction(write=False):
            found = int(self._run("count-legacy-tables", **names).fetchone()[0])
        if found:
            raise SchemaError(
                f"the store {self._prefix!r} has tables named {self._prefix.upper()}_* from "
                f"before schema version 3, which names them {self._prefix.upper()}__*; move "
                "their rows as docs/oracle.md shows ('Stores created before version 3')"
            )

    def uninstall(self) -> None:
        """Drop the graph and every table of this store (``uninstall.sql``), data included.

        The work tables keep rows only within a transaction, so open pools do
        not block the drop; a transaction of another session that is using them
        at that moment does (ORA-14452, raised as :class:`graphmem.BackendError`).
        """
        self._session.run_script("uninstall")

    def close(self) -> None:
        self._session.close()

    def transaction(self, write: bool = True) -> AbstractContextManager[None]:
        # Oracle reads are consistent per statement (READ COMMITTED); a read-only
        # transaction would forbid the work-table DML that searches need.
        return self._session.transaction()

    # statements -------------------------------------------------------------

    def _statement(self, name: str) -> tuple[Statement, str]:
        if name in self._sql:
            stmt = self._sql[name]
            return stmt, stmt.sql
        stmt = self._pgq[name]
        if self._use_native_pgq:
            return stmt, stmt.sql
        lowered = load_pgq_statement(name, self._prefix, lower_to="oracle")
        return stmt, lowered.sql

    def _run(self, name: str, **binds: Any) -> Any:
        """Execute inside the current transaction; fetch before it ends."""
        stmt, sql = self._statement(name)
        stmt.check_binds(binds)
        return self._session.execute(sql, binds)

    def _run_many(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        stmt, sql = self._statement(name)
        for row in rows:
            stmt.check_binds(row)
        self._session.executemany(sql, rows)

    # encodings ----------------------------------------------------------------

    def _id_binds(self, ids: list[str]) -> list[str]:
        # Each JSON array stays below an ordinary VARCHAR2 bind (oracle_session).
        return list(id_lists(ids))

    def _meta_key(self, key: str) -> str:
        return _meta_key(key)

    def _vector_bind(self, vector: npt.NDArray[np.float32]) -> array.array[float]:
        return vector_bind(vector)

    def _text_query(self, terms: Sequence[str]) -> str:
        return text_query(terms)

    # search -------------------------------------------------------------------

    def keyword(
        self,
        filters: SearchFilters,
        terms: Sequence[str],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        """See :meth:`Store.keyword`.

        Raises:
            SchemaError: the store has no Oracle Text index (install.sql creates
                it only where Oracle Text is installed).
        """
        if terms and k != 0:
            self._require_text_index()
        return super().keyword(filters, terms, k, include_invalid)

    def _require_text_index(self) -> None:
        """Check once that the keyword index exists; asked again until it does, so a
        DBA who installs Oracle Text and re-runs install.sql needs no reopen."""
        if self._text_index:
            return
        with self.transaction(write=False):
            found = int(self._run("count-text-index").fetchone()[0])
        if not found:
            name = f"{object_prefix(self._prefix)}memory_text_ix".upper()
            raise SchemaError(
                f"keyword and hybrid search need the Oracle Text index {name}, which the "
                f"store {self._prefix!r} does not have: install.sql creates it only where "
                "Oracle Text (the CTXSYS.CONTEXT indextype) is installed, which 'slim' "
                "container images leave out. Install Oracle Text and re-run install.sql, "
                "or search with strategy='vector'"
            )
        self._text_index = True

    def nearest(
        self,
        filters: SearchFilters,
        vector: npt.NDArray[np.float32],
        k: int,
        include_invalid: bool,
    ) -> list[tuple[str, float]]:
        if k == 0:
            return []
        with self.transaction(write=False):
            _, dim = self.stored_embedder()
            if dim is not None and vector.shape[0] != dim:
                raise InvalidArgumentError(
                    "embedder", f"query vector has {vector.shape[0]} dimensions, store has {dim}"
                )
            binds = {**self._use_filter(filters), **filters.owner_binds()}
            rows = self._run(
                "select-nearest",
                include_invalid=int(include_invalid),
                query=self._vector_bind(vector),
                k=k,
                slack=NEAREST_SLACK,
                **binds,
            ).fetchall()
        return self._rank_rows(rows, vector, k)
