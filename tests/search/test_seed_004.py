"""Seed 004 ("Como melhorar a relevância do resultado da pesquisa"): its complete
code ("Código Inteiro") with only the setup changed: an SQLite file instead of
an Oracle pool, and every model behind graphmem.testing.ModelServer."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import (
    Embedder,
    GraphMemory,
    Llm,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    Reranker,
    SchemaPolicy,
    TopKMemorySearchConfig,
)
from graphmem.testing import ModelServer

from ._models import judgements

# The seed's code after its setup, verbatim. `OracleAgentMemory` is GraphMemory.
SEED_SEARCH = """
top_k_config = TopKMemorySearchConfig(
    max_results=5,
    reranker=reranker
)
memory = OracleAgentMemory(
    connection=db_pool,
    embedder=embedder,
    llm=search_llm,
    schema_policy=SchemaPolicy.CREATE_IF_NECESSARY,
    memory_store_id=memory_store_id,
    search_config=top_k_config,
)
user_id = "user_123"
"""

SEED_PRUNING = """
pruning_memory = OracleAgentMemory(
    connection=db_pool,
    embedder=embedder,
    llm=search_llm,
    memory_store_id=memory_store_id,
    pruner_llm=search_llm,
)
thread = pruning_memory.create_thread(
    thread_id="search_result_pruning_demo",
    user_id=user_id,
)
pruned_results = thread.search(
    query="Which database does the service use?",
    max_results=50,
)
#Use PruningMemorySearchConfig for advanced modes and tuning.
extended_pruning_config = PruningMemorySearchConfig(
    pruner=search_llm,
    evaluation_mode=PruningEvaluationMode.EXTENDED,
    num_probe_points=3,
    protected_fraction=0.1,
)
"""

SEED_BUDGETS = """
results = memory.search(
    query="Which database does the service use?",
    user_id=user_id,
    soft_token_budget=1_000,
    token_budget=3_000,
)

#Per-call values override the configured budgets.
larger_results = memory.search(
    query="Which database does the service use?",
    user_id=user_id,
    soft_token_budget=4_000,
    token_budget=12_000,
)
"""


@pytest.fixture
def setup(tmp_path: Path):
    """The seed's "Configure search components", pointed at a local ModelServer."""
    with ModelServer() as server:
        server.add_rule(
            lambda body: True,
            lambda body: judgements(body["messages"][-1]["content"], lambda t: "data" in t),
        )
        namespace = {
            "OracleAgentMemory": GraphMemory,
            "PruningEvaluationMode": PruningEvaluationMode,
            "PruningMemorySearchConfig": PruningMemorySearchConfig,
            "SchemaPolicy": SchemaPolicy,
            "TopKMemorySearchConfig": TopKMemorySearchConfig,
            "embedder": Embedder(model="YOUR_EMBEDDING_MODEL", api_base=server.url),
            "search_llm": Llm(model="provider/search-llm-model", api_base=server.url),
            "reranker": Reranker(model="provider/reranker-model", api_base=server.url),
            "db_pool": str(tmp_path / "seed004.db"),
            "memory_store_id": "T_SEARCH_RESULTS",
        }
        yield server, namespace


def _fill(path: str, embedder: Embedder) -> None:
    with GraphMemory(path, embedder=embedder, memory_store_id="T_SEARCH_RESULTS") as memory:
        for i, text in enumerate(
            [
                "The service uses PostgreSQL as its database.",
                "The service stores cached data in Redis.",
                "The office coffee machine is broken.",
                "Deploys happen on Tuesdays.",
                "The database backups run nightly.",
                "The team lunch is on Friday.",
            ]
        ):
            memory.add_memory(text, user_id="user_123", memory_id=f"m{i}")


def test_seed_004_complete_code_runs(setup) -> None:
    """The whole code, threads included. A thread's own search does not apply its
    stored pruning config yet (docs/guide/planned.md), and it searches the thread's
    user AND agent scope, so the seed's user-only memories are not its results."""
    server, namespace = setup
    _fill(namespace["db_pool"], namespace["embedder"])
    exec(SEED_SEARCH + SEED_PRUNING + SEED_BUDGETS, namespace)
    assert [len(namespace["results"]), len(namespace["larger_results"])] == [5, 5]
    assert len(server.requests_to("rerank")) == 2
    assert namespace["pruned_results"] == []


def test_seed_004_search_parts_run_on_sqlite(setup) -> None:
    """The seed's top-k, pruning-config and budget code; without the `llm=` argument
    (an LLM for threads, which do not exist yet) and with the handle's own search
    instead of the thread's."""
    server, namespace = setup
    _fill(namespace["db_pool"], namespace["embedder"])
    code = (SEED_SEARCH + SEED_BUDGETS).replace("    llm=search_llm,\n", "")
    exec(code, namespace)
    assert [len(namespace["results"]), len(namespace["larger_results"])] == [5, 5]
    assert len(server.requests_to("rerank")) == 2
    pruning = SEED_PRUNING.replace("    llm=search_llm,\n", "")
    pruning = pruning.replace(
        'thread = pruning_memory.create_thread(\n    thread_id="search_result_pruning_demo",\n'
        "    user_id=user_id,\n)\npruned_results = thread.search(",
        "pruned_results = pruning_memory.search(",
    )
    exec(pruning, namespace)
    pruned = namespace["pruned_results"]
    assert pruned.stats.pruner_calls >= 1
    assert all("data" in r.content for r in pruned[1:])  # the protected first, then relevant
    assert namespace["extended_pruning_config"].evaluation_mode is PruningEvaluationMode.EXTENDED
