"""Named SQL statements loaded from the ``sql/<dialect>/`` files shipped in the package.

A file holds blocks headed ``-- name: verb-noun``; the comment lines that follow
are the statement's doc, the rest up to the next header is its text. Binds are
named (``:memory_id``), which both sqlite3 and python-oracledb accept.

Object names in the files start with ``graphmem_`` (``GRAPHMEM_`` in Oracle
scripts) so that the files run as is; a store with ``memory_store_id=X`` gets the
same text with that prefix replaced by ``X_``, after ``X`` is validated.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from graphmem.errors import InvalidArgumentError

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # pragma: no cover - Python 3.10
    from importlib.abc import Traversable

__all__ = [
    "DEFAULT_PREFIX",
    "Statement",
    "StatementSet",
    "bind_names",
    "load_pgq_statement",
    "load_script",
    "load_statements",
    "sql_root",
    "validate_identifier",
]

DEFAULT_PREFIX = "graphmem"
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,29}")
_PREFIX_TOKEN = re.compile(r"\bgraphmem_(?=[A-Za-z])", re.IGNORECASE)
_NAME_HEADER = re.compile(r"^--\s*name:\s*([a-z][a-z0-9-]*)\s*$")
# Strings, quoted identifiers and comments are skipped when looking for binds.
_LEXEME = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|::|(?<![\w:]):([A-Za-z_]\w*)",
    re.DOTALL,
)


def validate_identifier(argument: str, value: object) -> str:
    """Check an identifier such as ``memory_store_id`` (docs/semantics.md section 5).

    >>> validate_identifier("memory_store_id", "T_GRAPH_MEMORY")
    'T_GRAPH_MEMORY'

    Raises:
        InvalidArgumentError: unless it matches ``^[A-Za-z][A-Za-z0-9_]{0,29}$``.
    """
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise InvalidArgumentError(
            argument,
            f"{value!r} is not an identifier: a letter, then at most 29 letters, "
            "digits or underscores",
        )
    return value


def bind_names(sql: str) -> frozenset[str]:
    """The named binds a statement uses, ignoring strings and comments.

    >>> sorted(bind_names("SELECT ':no' FROM t WHERE a = :a AND b = :b -- :c"))
    ['a', 'b']
    """
    return frozenset(m.group(1) for m in _LEXEME.finditer(sql) if m.group(1))


@dataclass(frozen=True)
class Statement:
    """One named statement."""

    name: str
    sql: str
    doc: str
    binds: frozenset[str]
    source: str

    def check_binds(self, binds: Mapping[str, object]) -> None:
        """Raise ``AssertionError`` when the call site's binds differ from the statement's."""
        given = frozenset(binds)
        if given != self.binds:
            raise AssertionError(
                f"{self.source}:{self.name}: binds {sorted(given)} given, "
                f"statement uses {sorted(self.binds)}"
            )


class StatementSet(Mapping[str, Statement]):
    """The named statements of one dialect, with the store prefix applied."""

    def __init__(self, statements: dict[str, Statement]) -> None:
        self._statements = statements

    def __getitem__(self, name: str) -> Statement:
        return self._statements[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._statements)

    def __len__(self) -> int:
        return len(self._statements)


def sql_root() -> Traversable:
    """The ``sql/`` folder shipped inside the package."""
    return resources.files("graphmem") / "sql"


def _apply_prefix(text: str, prefix: str) -> str:
    validate_identifier("memory_store_id", prefix)
    if prefix == DEFAULT_PREFIX:
        return text

    def repl(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"{prefix.upper()}_" if word.isupper() else f"{prefix}_"

    return _PREFIX_TOKEN.sub(repl, text)


def parse_statements(text: str, source: str) -> dict[str, Statement]:
    """Split a file into its named statements."""
    found: dict[str, Statement] = {}
    name: str | None = None
    doc: list[str] = []
    body: list[str] = []

    def flush() -> None:
        if name is None:
            return
        sql = "\n".join(body).strip().rstrip(";").rstrip()
        if name in found:
            raise ValueError(f"{source}: statement {name!r} is defined twice")
        found[name] = Statement(name, sql, "\n".join(doc), bind_names(sql), source)

    for line in text.splitlines():
        header = _NAME_HEADER.match(line.strip())
        if header:
            flush()
            name, doc, body = header.group(1), [], []
        elif name is not None and not body and line.startswith("--"):
            doc.append(line[2:].strip())
        elif name is not None:
            body.append(line)
    flush()
    return found


@cache
def _read(dialect: str, filename: str) -> str:
    text: str = (sql_root() / dialect / filename).read_text(encoding="utf-8")
    return text


def load_statements(dialect: str, prefix: str = DEFAULT_PREFIX) -> StatementSet:
    """Every named statement of ``sql/<dialect>/*.sql`` (scripts excluded)."""
    statements: dict[str, Statement] = {}
    folder = sql_root() / dialect
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".sql") or entry.name in _SCRIPTS:
            continue
        text = _apply_prefix(_read(dialect, entry.name), prefix)
        for name, stmt in parse_statements(text, f"{dialect}/{entry.name}").items():
            if name in statements:
                raise ValueError(f"{dialect}: statement {name!r} is defined twice")
            statements[name] = stmt
    return StatementSet(statements)


_SCRIPTS = frozenset({"install.sql", "uninstall.sql", "session.sql"})


@cache
def load_pgq_statement(
    name: str, prefix: str = DEFAULT_PREFIX, lower_to: str | None = None
) -> Statement:
    """A named SQL/PGQ statement of ``sql/pgq/``, as written or lowered to plain SQL.

    Args:
        name: the statement name, e.g. ``expand-level``.
        prefix: the store prefix, applied before parsing.
        lower_to: ``None`` for the SQL/PGQ text (Oracle runs it natively), or a
            dialect (``sqlite``, ``oracle``) to get the plain SQL that
            :func:`graphmem.pgq.lower` makes of it over the store's property graph.
    """
    from graphmem import pgq

    statements: dict[str, Statement] = {}
    for entry in sorted((sql_root() / "pgq").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".sql"):
            text = _apply_prefix(_read("pgq", entry.name), prefix)
            statements.update(parse_statements(text, f"pgq/{entry.name}"))
    stmt = statements[name]
    if lower_to is None:
        return stmt
    graph = pgq.parse_property_graph(statements["create-property-graph"].sql)
    # graphmem's link table has enforced foreign keys on both ends.
    sql = pgq.lower(stmt.sql, graph, dialect=lower_to, assume_integrity=True)
    return Statement(stmt.name, sql, stmt.doc, bind_names(sql), f"{stmt.source} ({lower_to})")


def load_script(dialect: str, name: str, prefix: str = DEFAULT_PREFIX) -> str:
    """A whole script (``install``, ``uninstall``, ``session``) with the prefix applied."""
    return _apply_prefix(_read(dialect, f"{name}.sql"), prefix)
