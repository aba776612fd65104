"""Search configs: defaults, checks, serialisation, and how GraphMemory takes them."""

import pytest

from graphmem import (
    GraphMemory,
    InvalidArgumentError,
    Llm,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    Reranker,
    TopKMemorySearchConfig,
)
from graphmem.search.config import ModelRef

from ._models import JudgingLlm, ScriptedReranker, fruit_memory


def test_config_defaults_are_documented_values() -> None:
    config = PruningMemorySearchConfig()
    assert (config.max_results, config.reranker, config.reranker_max_candidates) == (10, None, 50)
    assert (config.token_budget, config.soft_token_budget) == (None, None)
    assert config.evaluation_mode is PruningEvaluationMode.FAST
    assert (config.num_probe_points, config.probe_points, config.protected_fraction) == (
        None,
        3,
        0.1,
    )


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"max_results": -1}, "max_results"),
        ({"max_results": True}, "max_results"),
        ({"max_results": "5"}, "max_results"),
        ({"reranker_max_candidates": 0}, "reranker_max_candidates"),
        ({"token_budget": 0}, "token_budget"),
        ({"soft_token_budget": -5}, "soft_token_budget"),
        ({"protected_fraction": -0.1}, "protected_fraction"),
        ({"protected_fraction": 1.5}, "protected_fraction"),
        ({"protected_fraction": float("nan")}, "protected_fraction"),
        ({"num_probe_points": 0}, "num_probe_points"),
        ({"evaluation_mode": "exhaustive", "num_probe_points": 3}, "num_probe_points"),
        ({"evaluation_mode": "slow"}, "evaluation_mode"),
        ({"reranker": object()}, "reranker"),
        ({"pruner": object()}, "pruner"),
    ],
)
def test_config_bad_value_names_the_argument(kwargs: dict, argument: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        PruningMemorySearchConfig(**kwargs)
    assert info.value.argument == argument


def test_config_round_trips_through_json_data() -> None:
    config = PruningMemorySearchConfig(
        max_results=7,
        token_budget=900,
        soft_token_budget=300,
        evaluation_mode=PruningEvaluationMode.EXTENDED,
        num_probe_points=4,
        protected_fraction=0.25,
    )
    data = config.model_dump(mode="json")
    assert data["evaluation_mode"] == "extended"
    assert PruningMemorySearchConfig.model_validate(data) == config


def test_config_dumps_models_as_references_without_keys() -> None:
    config = PruningMemorySearchConfig(
        reranker=Reranker("rr", api_base="http://h/v1", api_key="sk-secret"),
        pruner=Llm("judge", api_base="http://h/v1", api_key="sk-secret"),
    )
    data = config.model_dump(mode="json")
    assert data["reranker"] == {"kind": "Reranker", "model": "rr", "api_base": "http://h/v1"}
    assert data["pruner"]["model"] == "judge"
    assert "sk-secret" not in repr(data)


def test_config_read_back_holds_references_until_models_are_supplied() -> None:
    data = PruningMemorySearchConfig(pruner=JudgingLlm(bool)).model_dump()
    stored = PruningMemorySearchConfig.model_validate(data)
    assert isinstance(stored.pruner, ModelRef)
    memory = fruit_memory()
    with pytest.raises(InvalidArgumentError) as info:
        memory.search("apple", search_config=stored)
    assert info.value.argument == "search_config.pruner"
    llm = JudgingLlm(lambda text: True)
    resolved = stored.with_models(pruner=llm)
    assert resolved.pruner is llm
    memory.search("apple", search_config=resolved)
    assert llm.prompts


def test_graphmemory_default_config_is_top_k() -> None:
    memory = fruit_memory()
    assert memory.search_config == TopKMemorySearchConfig()


def test_graphmemory_pruner_llm_turns_on_fast_pruning() -> None:
    llm = JudgingLlm(lambda text: "apple" in text)
    memory = fruit_memory(pruner_llm=llm, search_config=TopKMemorySearchConfig(max_results=4))
    config = memory.search_config
    assert isinstance(config, PruningMemorySearchConfig)
    assert config.evaluation_mode is PruningEvaluationMode.FAST
    assert (config.pruner, config.max_results) == (llm, 4)
    results = memory.search("apple")
    assert results.stats.pruner_calls >= 1


def test_graphmemory_pruning_config_without_pruner_takes_pruner_llm() -> None:
    llm = JudgingLlm(lambda text: True)
    config = PruningMemorySearchConfig(evaluation_mode="exhaustive")
    memory = fruit_memory(search_config=config, pruner_llm=llm)
    assert memory.search_config.pruner is llm
    assert memory.search_config.evaluation_mode is PruningEvaluationMode.EXHAUSTIVE


def test_graphmemory_pruning_config_without_any_pruner_is_refused() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(search_config=PruningMemorySearchConfig())
    assert info.value.argument == "search_config.pruner"


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"search_config": {"max_results": 3}}, "search_config"),
        ({"pruner_llm": "gpt"}, "pruner_llm"),
        ({"token_counter": 5}, "token_counter"),
    ],
)
def test_graphmemory_bad_search_arguments(kwargs: dict, argument: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        GraphMemory(**kwargs)
    assert info.value.argument == argument


def test_config_max_results_is_the_search_default() -> None:
    memory = fruit_memory(search_config=TopKMemorySearchConfig(max_results=2))
    assert len(memory.search("apple")) == 2
    assert len(memory.search("apple", max_results=4)) == 4


def test_search_negative_max_results_is_refused() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        fruit_memory().search("apple", max_results=-1)
    assert info.value.argument == "max_results"


def test_per_call_config_replaces_the_handles() -> None:
    reranker = ScriptedReranker()
    memory = fruit_memory()
    memory.search("apple", search_config=TopKMemorySearchConfig(reranker=reranker))
    assert len(reranker.seen) == 1
    memory.search("apple")
    assert len(reranker.seen) == 1
