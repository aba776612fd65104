"""Every example in README.md and docs/ runs, and the docs site builds without warnings.

- ``python`` blocks of a page run in order, in one namespace, in a fresh
  directory, **twice** (examples must survive a second run on the same files);
- ``console`` blocks are transcripts: each ``$ graphmem ...`` line runs through
  the installed script in that directory and its standard output must equal
  the lines that follow (``...`` matches any text);
- ``sh``, ``sql`` and ``text`` blocks are shown, not run (installs, DBA scripts,
  output samples).

docs/oracle.md's Python examples need a live Oracle Database; the Oracle suite
(tests/oracle) covers them when ``GRAPHMEM_ORACLE_DSN`` is set. docs/models.md's
examples point at model servers (OpenAI, Ollama, vLLM) or optional packages;
tests/ai/test_docs.py runs its server-free examples against
:class:`graphmem.testing.ModelServer`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "graphmem"
PAGES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")], key=lambda p: str(p.relative_to(ROOT))
)
NEEDS_ORACLE = {"docs/oracle.md"}
NEEDS_MODEL_SERVER = {"docs/models.md"}
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks(page: Path, lang: str) -> list[str]:
    return [body for kind, body in _BLOCK.findall(page.read_text("utf-8")) if kind == lang]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _runnable(lang: str) -> list[Path]:
    skipped = NEEDS_ORACLE | NEEDS_MODEL_SERVER
    return [p for p in PAGES if _blocks(p, lang) and _name(p) not in skipped]


def _run_python(page: Path, directory: Path) -> str:
    code = "\n".join(_blocks(page, "python"))
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, _name(page), "exec"), {"__name__": "docs_example"})
    finally:
        os.chdir(cwd)
    return out.getvalue()


def _matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual, flags=re.DOTALL) is not None


def _transcript(block: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before any command: {line!r}"
            steps[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in steps]


def _run_console(page: Path, directory: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    for block in _blocks(page, "console"):
        for command, expected in _transcript(block):
            argv = shlex.split(command)
            assert argv[0] == "graphmem", f"{_name(page)}: only graphmem commands run: {command}"
            done = subprocess.run(
                [str(SCRIPT), *argv[1:]], cwd=directory, env=env, capture_output=True, text=True
            )
            assert done.returncode == 0, f"{command}\n{done.stderr}"
            actual = done.stdout.rstrip("\n")
            assert _matches(expected, actual), (
                f"{command}\n--- expected\n{expected}\n--- got\n{actual}"
            )


@pytest.mark.parametrize("page", _runnable("python"), ids=_name)
def test_docs_python_examples_run_twice(page: Path, tmp_path: Path) -> None:
    first = _run_python(page, tmp_path)
    second = _run_python(page, tmp_path)
    assert second == first


@pytest.mark.parametrize("page", _runnable("console"), ids=_name)
def test_docs_console_transcripts_match(page: Path, tmp_path: Path) -> None:
    if _blocks(page, "python"):
        _run_python(page, tmp_path)
    _run_console(page, tmp_path)


def test_docs_cli_page_documents_every_verb() -> None:
    from graphmem.cli import cli

    text = (ROOT / "docs" / "guide" / "cli.md").read_text("utf-8")
    missing = [name for name in cli.commands if f"$ graphmem {name}" not in text]
    assert missing == []


def test_docs_site_builds_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        # The theme's end-of-life banner is not a build warning.
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "reference" / "index.html").exists()
    _every_public_method_has_an_entry(tmp_path / "site" / "reference" / "index.html")


def _every_public_method_has_an_entry(reference: Path) -> None:
    """The API reference shows each public method (async twins included) of the
    classes users call, inherited from a mixin or not."""
    from graphmem import GraphMemory, Thread

    html = reference.read_text("utf-8")
    for cls in (GraphMemory, Thread):
        names = [n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))]
        missing = [n for n in names if f'id="graphmem.{cls.__name__}.{n}"' not in html]
        assert missing == [], f"{cls.__name__} methods missing from docs/reference.md: {missing}"


def _reference_objects() -> list[tuple[str, object]]:
    """What docs/reference.md renders (its ``:::`` entries), with their public members."""
    found: list[tuple[str, object]] = []
    text = (ROOT / "docs" / "reference.md").read_text("utf-8")
    for path in re.findall(r"^::: ([\w.]+)$", text, re.MULTILINE):
        module, _, name = path.rpartition(".")
        try:
            target = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            target = importlib.import_module(path)  # a module entry
        found.append((path, target))
        members = inspect.getmembers(target) if inspect.isclass(target) else []
        found += [(f"{path}.{n}", m) for n, m in members if not n.startswith("_")]
    return found


def test_docs_reference_defers_nothing_to_a_later_version() -> None:
    """The docstrings behind the API reference describe what this version does."""
    stale = [
        path
        for path, target in _reference_objects()
        if "later version" in (inspect.getdoc(target) or "")
    ]
    assert stale == []
