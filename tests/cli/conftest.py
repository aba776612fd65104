"""Fixtures for the CLI tests: every command runs the installed ``graphmem`` script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphMemory

SCRIPT = Path(sys.executable).parent / "graphmem"


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


Runner = Callable[..., Run]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def graphmem(db: Path) -> Runner:
    """Run ``graphmem ARGS`` with ``GRAPHMEM_DB`` set to this test's file (and no other
    ``GRAPHMEM_*`` variable of the calling shell); ``closed`` names the standard
    streams to close in the child (``"stdin"``, ``"stdout"``)."""

    def run(
        *args: str,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        closed: tuple[str, ...] = (),
    ) -> Run:
        assert SCRIPT.exists(), f"the console script is not installed at {SCRIPT}"
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
        environ = {**inherited, "GRAPHMEM_DB": str(db), **(env or {})}
        fds = [("stdin", "stdout").index(name) for name in closed]
        done = subprocess.run(
            [str(SCRIPT), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=environ,
            timeout=120,
            preexec_fn=(lambda: [os.close(fd) for fd in fds]) if fds else None,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    return run


@pytest.fixture
def pizza_db(db: Path) -> Path:
    """thin <-supersedes- sour <-refines- neap, made through the library."""
    with GraphMemory(db) as memory:
        for mid, text in (
            ("thin", "Thin crust."),
            ("sour", "Sourdough."),
            ("neap", "Neapolitan sourdough."),
        ):
            memory.add_memory(text, memory_id=mid, memory_type="preference", user_id="u1")
        memory.link_records(
            "sour", "preference", "thin", "preference", "supersedes", relation_id="l-sup"
        )
        memory.link_records(
            "neap", "preference", "sour", "preference", "refines", relation_id="l-ref"
        )
    return db


def _user_error(run: Run, fragment: str) -> None:
    assert run.code == 1, (run.code, run.err)
    assert run.err.startswith("graphmem: error: "), run.err
    assert run.err.count("\n") == 1, run.err
    assert fragment in run.err, run.err
    assert "Traceback" not in run.err


@pytest.fixture
def user_error() -> Callable[[Run, str], None]:
    """Checks exit 1, one line on standard error naming the problem, no traceback."""
    return _user_error


@pytest.fixture
def script() -> Path:
    """The installed console script."""
    return SCRIPT
