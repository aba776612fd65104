"""Documentation is tested: the doctest examples of every graphmem module run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import graphmem

# Running __main__ would start the CLI; it holds no examples.
_SKIP = {"graphmem.__main__"}
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(graphmem.__path__, "graphmem.")
    if info.name not in _SKIP
)
# Modules whose docstrings carry examples today; losing them is a regression.
WITH_EXAMPLES = [
    "graphmem.ai.embedder",
    "graphmem.ai.llm",
    "graphmem.ai.local",
    "graphmem.ai.reranker",
    "graphmem.ai.wrappers",
    "graphmem.core.relations",
    "graphmem.core.render",
    "graphmem.core.times",
    "graphmem.core.tree",
    "graphmem.core.validation",
    "graphmem.core.vector",
    "graphmem.embedders",
    "graphmem.memory",
    "graphmem.models",
    "graphmem.sqlfiles",
    "graphmem.testing.model_server",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_doctests_present(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    examples = sum(len(t.examples) for t in finder.find(module, name))
    assert examples > 0


def test_doctests_cover_known_modules() -> None:
    assert set(WITH_EXAMPLES) <= set(MODULES)
