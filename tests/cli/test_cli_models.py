"""The data verbs open a store with the embedder it was built with: the embedder
options or GRAPHMEM_EMBEDDER_*, as ``serve`` takes them (a ModelServer serves it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import Embedder, GraphMemory
from graphmem.testing import ModelServer


@pytest.fixture
def models() -> Iterator[ModelServer]:
    with ModelServer(dimension=32) as server:
        yield server


@pytest.fixture
def built(db: Path, models: ModelServer) -> Path:
    """A store whose vectors come from the server's ``test-embed``."""
    embedder = Embedder("test-embed", api_base=models.url, max_retries=0)
    with GraphMemory(db, embedder=embedder) as memory:
        memory.add_memory("Likes sourdough pizza.", memory_id="pizza")
        memory.add_memory("Drinks green tea.", memory_id="tea")
    return db


def _env(models: ModelServer) -> dict[str, str]:
    return {"GRAPHMEM_EMBEDDER_MODEL": "test-embed", "GRAPHMEM_EMBEDDER_API_BASE": models.url}


def test_search_and_add_use_the_embedder_of_the_environment(
    graphmem, built: Path, models: ModelServer
) -> None:
    before = len(models.requests_to("embeddings"))
    run = graphmem("search", "sourdough pizza", "--max-results", "1", "--json", env=_env(models))
    assert run.code == 0, run.err
    assert [r["record"]["id"] for r in run.json()] == ["pizza"]
    run = graphmem("add", "--id", "bread", "Bakes bread.", env=_env(models))
    assert (run.code, run.out.strip()) == (0, "bread")
    assert len(models.requests_to("embeddings")) == before + 2


def test_the_embedder_flags_win_over_the_environment(
    graphmem, built: Path, models: ModelServer
) -> None:
    flags = ["--embedder-model", "test-embed", "--embedder-api-base", models.url]
    other = {"GRAPHMEM_EMBEDDER_MODEL": "local"}
    run = graphmem("update", "tea", "--content", "Drinks oolong tea.", *flags, env=other)
    assert run.code == 0, run.err
    run = graphmem("search", "oolong", "--max-results", "1", "--json", *flags, env=other)
    assert [r["record"]["id"] for r in run.json()] == ["tea"]


def test_import_embeds_with_the_embedder_options(
    graphmem, built: Path, models: ModelServer, tmp_path: Path
) -> None:
    dump = tmp_path / "dump.jsonl"
    assert graphmem("export", "-o", str(dump)).code == 0
    copy = str(tmp_path / "copy.db")
    run = graphmem("import", "--db", copy, str(dump), env=_env(models))
    assert run.code == 0, run.err
    embedder = Embedder("test-embed", api_base=models.url, max_retries=0)
    with GraphMemory(copy, embedder=embedder) as memory:
        assert [r.id for r in memory.search("green tea", max_results=1)] == ["tea"]


def test_the_default_embedder_on_such_a_store_says_how_to_choose(
    graphmem, built: Path, user_error
) -> None:
    run = graphmem("search", "pizza")
    user_error(run, "open the store with the embedder it was built with")
    assert "--embedder-model" in run.err and "GRAPHMEM_EMBEDDER_MODEL" in run.err


def test_an_unknown_local_embedder_is_reported_under_its_option(graphmem, built: Path, user_error):
    run = graphmem("search", "pizza", "--embedder-model", "local/nope")
    user_error(run, "--embedder-model: unknown local model 'local/nope'")


@pytest.mark.parametrize(
    ("option", "value"),
    [("--embedder-api-base", "http://127.0.0.1:9/v1"), ("--embedder-api-key", "sk-test")],
)
def test_an_embedder_base_or_key_without_a_model_is_refused(
    graphmem, db: Path, user_error, option: str, value: str
) -> None:
    """Without a model the offline default would build the store, silently."""
    run = graphmem("add", "Likes tea.", option, value)
    user_error(
        run,
        "--embedder-model (or GRAPHMEM_EMBEDDER_MODEL): is required with an embedder API"
        " base or key",
    )
    assert not db.exists()


def test_a_refused_setting_is_named_by_the_variable_it_came_from(
    graphmem, built: Path, user_error
) -> None:
    run = graphmem("search", "pizza", env={"GRAPHMEM_EMBEDDER_MODEL": "local/nope"})
    user_error(run, "GRAPHMEM_EMBEDDER_MODEL: unknown local model 'local/nope'")
    assert "--embedder-model" not in run.err
    run = graphmem(  # the flag wins over the variable, and names the error
        "search", "pizza", "--embedder-model", "local/nope", env={"GRAPHMEM_EMBEDDER_MODEL": "x"}
    )
    user_error(run, "--embedder-model: unknown local model 'local/nope'")
