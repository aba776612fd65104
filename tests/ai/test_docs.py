"""The model documentation's examples hold: constructors, names and the ModelServer example."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_docs_readme_models_example_builds_objects(tmp_path: Path) -> None:
    (code,) = [b for b in _python_blocks(ROOT / "README.md") if "Reranker(" in b]
    namespace: dict[str, object] = {"__name__": "readme"}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code + "\nmemory.close()\n", "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert type(namespace["memory"]).__name__ == "GraphMemory"
    assert namespace["embedder"].name == "nomic-embed-text"  # type: ignore[attr-defined]


def test_docs_models_modelserver_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = [b for b in _python_blocks(ROOT / "docs" / "models.md") if "ModelServer()" in b]
    preamble = "from pydantic import BaseModel\n"
    preamble += "class Preference(BaseModel):\n    subject: str\n    value: str\n"
    exec(compile(preamble + code, "docs/models.md", "exec"), {"__name__": "docs"})
    assert "subject='pizza' value='sourdough'" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["README.md", "docs/models.md"])
def test_docs_name_the_default_model(name: str) -> None:
    assert "l2_supercat" in (ROOT / name).read_text(encoding="utf-8")
