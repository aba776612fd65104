"""demo and sql through the installed script, and what every verb shares."""

from __future__ import annotations

import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.cli import cli


def test_demo_runs_and_keeps_its_file(graphmem, tmp_path: Path) -> None:
    run = graphmem("demo", "--db", str(tmp_path / "demo.db"))
    assert run.code == 0, run.err
    assert "<relation_type>supersedes</relation_type>" in run.out
    again = graphmem("demo", "--db", str(tmp_path / "demo.db"))
    assert (again.code, again.out) == (0, run.out)


def test_demo_with_db_says_how_to_look_at_the_kept_store(graphmem, tmp_path: Path) -> None:
    kept = tmp_path / "demo.db"
    run = graphmem("demo", "--db", str(kept))
    assert run.code == 0, run.err
    command = f"graphmem list --db {kept} --store T_GRAPH_MEMORY"
    assert run.err == f"kept in {kept} (store T_GRAPH_MEMORY): {command}\n"
    assert "kept in" not in run.out
    listed = graphmem(*command.split()[1:])
    assert listed.code == 0 and "pizza-neapolitan-sourdough" in listed.out
    assert graphmem("demo").err == ""


def test_sql_prints_a_script_that_sqlite3_applies(graphmem, tmp_path: Path) -> None:
    run = graphmem("sql", "--dialect", "sqlite", "--prefix", "T_X")
    assert run.code == 0, run.err
    conn = sqlite3.connect(tmp_path / "x.db")
    conn.executescript(run.out)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert {"T_X__memory", "T_X__link", "T_X__thread", "T_X__prompt"} <= tables


def test_sql_bad_prefix_is_a_user_error(graphmem, user_error) -> None:
    user_error(graphmem("sql", "--dialect", "sqlite", "--prefix", "x; DROP"), "--prefix:")


def test_sql_unknown_dialect_is_a_usage_error(graphmem) -> None:
    run = graphmem("sql", "--dialect", "postgres")
    assert run.code == 2 and "Traceback" not in run.err and "postgres" in run.err


def test_a_file_that_is_not_a_store_is_a_user_error(graphmem, tmp_path: Path, user_error):
    other = tmp_path / "notes.txt"
    other.write_text("not a database\n")
    user_error(graphmem("get", "--db", str(other), "x"), "not a database")


@pytest.mark.parametrize("verb", sorted(cli.commands))
def test_every_verb_has_help_with_an_example(graphmem, verb: str) -> None:
    run = graphmem(verb, "--help")
    assert run.code == 0, run.err
    assert "Example:" in run.out and f"graphmem {verb}" in run.out


def _documented_statuses() -> list[tuple[int, str]]:
    """``(status, command)`` of the examples in the exit-status table of the CLI page."""
    page = Path(__file__).resolve().parents[2] / "docs" / "guide" / "cli.md"
    found = []
    for line in page.read_text("utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        status = re.fullmatch(r"`(\d+)`", cells[0])
        if line.startswith("| `") and status and len(cells) == 3:
            found += [(int(status[1]), c) for c in re.findall(r"`(graphmem [^`]*)`", cells[2])]
    return found


def test_the_documented_exit_statuses_hold(script: Path, tmp_path: Path) -> None:
    examples = _documented_statuses()
    assert {status for status, _ in examples} == {1, 2}, examples
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    subprocess.run(
        [str(script), "add", "--db", "pizza.db", "--id", "thin", "Thin crust."],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    for status, command in examples:
        done = subprocess.run(
            [str(script), *shlex.split(command)[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == status, (command, done.stderr)
        assert "Traceback" not in done.stderr
        if status == 1:
            assert done.stderr.startswith("graphmem: error: "), (command, done.stderr)
        else:
            assert "Usage: graphmem" in done.stderr, (command, done.stderr)


_WITHOUT_SERVICE_EXTRA = """
import sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "starlette", "uvicorn"):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Missing())
from graphmem.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_keys_work_without_the_service_extra_and_serve_says_what_is_missing(
    tmp_path: Path,
) -> None:
    """A base install (no fastapi) makes and lists keys; serving names the extra."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", _WITHOUT_SERVICE_EXTRA, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    db = str(tmp_path / "k.db")
    made = run("keys", "create", "--db", db, "--role", "read", "--label", "ci")
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("gm_")
    listed = run("keys", "list", "--db", db)
    assert listed.returncode == 0 and "ci" in listed.stdout
    served = run("serve", "--db", db, "--port", "1")
    assert served.returncode == 1
    assert served.stderr.strip().startswith("graphmem: error:")
    assert "graphmem[service]" in served.stderr and "Traceback" not in served.stderr
