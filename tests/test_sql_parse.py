"""Every SQL file under sql/ parses: SQLite scripts and statements with sqlglot,
SQL/PGQ statements with graphmem.pgq (and their lowered SQL with sqlglot again)."""

from __future__ import annotations

import re

import pytest
import sqlglot
from sqlglot import exp

from graphmem.sqlfiles import load_pgq_statement, load_script, parse_statements, sql_root

_TRIGGER = re.compile(
    r"CREATE TRIGGER IF NOT EXISTS \w+\s+(?:BEFORE|AFTER|INSTEAD OF) .*? ON \w+\s+"
    r"(?:WHEN (?P<when>.*?)\s+)?BEGIN(?P<body>.*?)END",
    re.DOTALL,
)


def _script_statements(text: str) -> list[str]:
    """Split a SQLite script into statements; a trigger runs to its ``END;`` line."""
    parts: list[str] = []
    current: list[str] = []
    in_trigger = False
    for line in re.sub(r"--[^\n]*", "", text).splitlines():
        if not current and not line.strip():
            continue
        if not current and line.startswith("CREATE TRIGGER"):
            in_trigger = True
        current.append(line)
        done = line.strip() == "END;" if in_trigger else line.rstrip().endswith(";")
        if done:
            parts.append("\n".join(current).strip().rstrip(";"))
            current, in_trigger = [], False
    assert not "".join(current).strip(), "unterminated statement at the end of the script"
    return parts


def _parse_sqlite(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="sqlite")
    assert not isinstance(tree, exp.Command), f"parsed only as an opaque command: {sql[:80]}"
    return tree


@pytest.mark.parametrize("script", ["install", "session", "uninstall"])
def test_sql_sqlite_script_statements_parse(script: str) -> None:
    statements = _script_statements(load_script("sqlite", script))
    assert statements
    for sql in statements:
        trigger = _TRIGGER.fullmatch(sql)
        if trigger:
            if trigger["when"]:
                _parse_sqlite(f"SELECT 1 WHERE {trigger['when']}")
            body = [s for s in trigger["body"].split(";") if s.strip()]
            assert body
            for inner in body:
                _parse_sqlite(inner.replace("NEW.", "new_.").replace("OLD.", "old_."))
        elif sql.upper().startswith("PRAGMA"):
            continue
        else:
            # sqlglot's SQLite dialect knows neither the WITHOUT ROWID table option
            # nor an FTS5 table's options (content='': a contentless table).
            _parse_sqlite(sql.replace("WITHOUT ROWID", "").replace(", content=''", ""))


def test_sql_sqlite_script_split_finds_every_trigger() -> None:
    text = load_script("sqlite", "install")
    statements = _script_statements(text)
    triggers = [s for s in statements if s.startswith("CREATE TRIGGER")]
    assert len(triggers) == text.count("CREATE TRIGGER")
    assert all(_TRIGGER.fullmatch(t) for t in triggers)


def _pgq_names() -> list[str]:
    names: list[str] = []
    for entry in sorted((sql_root() / "pgq").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".sql"):
            names.extend(parse_statements(entry.read_text(encoding="utf-8"), entry.name))
    return [n for n in names if n != "create-property-graph"]


@pytest.mark.parametrize("name", _pgq_names())
@pytest.mark.parametrize("dialect", ["sqlite", "oracle"])
def test_sql_pgq_statement_lowers_and_parses(name: str, dialect: str) -> None:
    native = load_pgq_statement(name)
    lowered = load_pgq_statement(name, lower_to=dialect)
    assert "GRAPH_TABLE" in native.sql.upper()
    assert "GRAPH_TABLE" not in lowered.sql.upper()
    assert lowered.binds == native.binds
    tree = sqlglot.parse_one(lowered.sql, read=dialect)
    assert not isinstance(tree, exp.Command)
