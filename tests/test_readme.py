"""The README's commands and examples are true."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.DOTALL)


def test_readme_test_command_is_what_ci_runs() -> None:
    marker = README.index("<!-- test-command -->")
    command = _blocks("sh")[1].strip()
    assert README.index(command) > marker
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines


def test_readme_first_command_runs_the_demo() -> None:
    assert _blocks("sh")[0].strip().endswith("graphmem demo")


def _run_examples(directory: Path) -> None:
    code = "\n".join(_blocks("python"))
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    finally:
        os.chdir(cwd)


def test_readme_quickstart_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run_examples(tmp_path)
    out = capsys.readouterr().out
    assert "<record_id>pizza-neapolitan-sourdough</record_id>" in out
    assert "<relation_type>refines</relation_type>" in out
    assert (tmp_path / "memories.db").exists()


def test_readme_examples_run_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run_examples(tmp_path)
    first = capsys.readouterr().out
    _run_examples(tmp_path)
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("command", ["graphmem demo", "graphmem sql"])
def test_readme_documents_cli_command(command: str) -> None:
    assert command in README
