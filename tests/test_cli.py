"""The command line: demo, sql, help and error handling."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.cli import main


def test_cli_demo_prints_statuses_and_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "pizza-thin-crust=invalid, pizza-sourdough=invalid" in out
    assert "supersedes changed to supports:    pizza-thin-crust=valid" in out
    assert "deleted by directed triple:        pizza-thin-crust=valid, pizza-sourdough=valid" in out
    assert "<relation_type>supersedes</relation_type>" in out
    assert "1 direct result(s)" in out


def test_cli_demo_reruns_on_the_same_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "demo.db"
    assert main(["demo", "--db", str(db)]) == 0
    first = capsys.readouterr().out
    assert main(["demo", "--db", str(db)]) == 0
    assert capsys.readouterr().out == first


def test_cli_sql_sqlite_installs_with_sqlite3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sql", "--dialect", "sqlite", "--prefix", "T_GRAPH"]) == 0
    ddl = capsys.readouterr().out
    conn = sqlite3.connect(tmp_path / "x.db")
    conn.executescript(ddl)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"T_GRAPH__memory", "T_GRAPH__link", "T_GRAPH__meta"} <= names
    conn.close()


def test_cli_sql_bad_prefix_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sql", "--dialect", "sqlite", "--prefix", "x; DROP TABLE y"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("graphmem: error: --prefix:")
    assert "Traceback" not in err


def test_cli_help_shows_examples() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "demo", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Example:" in out and "graphmem demo --db" in out


def test_cli_sql_oracle_applies_the_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sql", "--dialect", "oracle", "--prefix", "T_GRAPH_MEMORY"]) == 0
    ddl = capsys.readouterr().out
    assert "CREATE TABLE IF NOT EXISTS T_GRAPH_MEMORY__MEMORY" in ddl
    assert "CREATE OR REPLACE PROPERTY GRAPH T_GRAPH_MEMORY__graph" in ddl
    code = [line for line in ddl.splitlines() if not line.lstrip().startswith("--")]
    assert not any("GRAPHMEM_" in line.upper() for line in code)


def test_cli_sql_uninstall_removes_what_install_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = sqlite3.connect(tmp_path / "x.db")
    assert main(["sql", "--dialect", "sqlite"]) == 0
    conn.executescript(capsys.readouterr().out)
    assert main(["sql", "--dialect", "sqlite", "--uninstall"]) == 0
    conn.executescript(capsys.readouterr().out)
    tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    # SQLite's own AUTOINCREMENT table (for the vector log) cannot be dropped; its
    # row for the log went with the log.
    assert tables in ([], [("sqlite_sequence",)])
    assert conn.execute("SELECT COUNT(*) FROM sqlite_sequence").fetchone() == (0,)
    conn.close()
