"""Public config models: bad input raises InvalidArgumentError naming the field.

Every way of building a config (the constructor, ``model_validate`` for stored
data, ``model_validate_json`` for stored text) refuses a bad field with the same
error, the field named by its path (``hybrid.candidates`` inside a config).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pydantic
import pytest

import graphmem
from graphmem import (
    HybridConfig,
    InvalidArgumentError,
    MemoryExtractionConfig,
    MemoryLinkExtractionMode,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    SearchResultFormatConfig,
    TopKMemorySearchConfig,
)
from graphmem.search.config import ModelRef

Build = Callable[[type[pydantic.BaseModel], dict[str, Any]], object]

BUILDS: dict[str, Build] = {
    "constructor": lambda cls, data: cls(**data),
    "model_validate": lambda cls, data: cls.model_validate(data),
    "model_validate_json": lambda cls, data: cls.model_validate_json(json.dumps(data)),
}


def _public_configs() -> list[type[pydantic.BaseModel]]:
    found = [getattr(graphmem, name) for name in graphmem.__all__]
    return [
        cls
        for cls in found
        if isinstance(cls, type)
        and issubclass(cls, pydantic.BaseModel)
        and cls.__name__.endswith("Config")
    ]


def _refused(build: Build, cls: type[pydantic.BaseModel], data: dict[str, Any]) -> Any:
    with pytest.raises(InvalidArgumentError) as info:
        build(cls, data)
    error = info.value
    assert not isinstance(error, pydantic.ValidationError)
    text = str(error)
    assert text == f"{error.argument}: {error.detail}"
    assert "Value error" not in text and "pydantic" not in text, text
    return error


def test_every_public_config_is_checked() -> None:
    assert set(_public_configs()) == {
        HybridConfig,
        MemoryExtractionConfig,
        PruningMemorySearchConfig,
        SearchResultFormatConfig,
        TopKMemorySearchConfig,
    }


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize("cls", [*_public_configs(), ModelRef], ids=lambda c: c.__name__)
def test_unknown_field_is_named(how: str, cls: type[pydantic.BaseModel]) -> None:
    data = {"kind": "Llm", "bogus": 1} if cls is ModelRef else {"bogus": 1}
    error = _refused(BUILDS[how], cls, data)
    assert error.argument == "bogus"


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize(
    ("cls", "data", "argument"),
    [
        (MemoryExtractionConfig, {"memory_extraction_frequency": 0}, "memory_extraction_frequency"),
        (MemoryExtractionConfig, {"memory_extraction_window": 0}, "memory_extraction_window"),
        (
            MemoryExtractionConfig,
            {"memory_extraction_inherit_message_metadata": ["k", 3]},
            "memory_extraction_inherit_message_metadata",
        ),
        (MemoryExtractionConfig, {"memory_link_extraction_mode": "SOMETIMES"}, None),
        (TopKMemorySearchConfig, {"max_results": -3}, "max_results"),
        (TopKMemorySearchConfig, {"token_budget": 0}, "token_budget"),
        (TopKMemorySearchConfig, {"hybrid": {"candidates": 0}}, "hybrid.candidates"),
        (TopKMemorySearchConfig, {"hybrid": {"candidates": "x"}}, "hybrid.candidates"),
        (TopKMemorySearchConfig, {"hybrid": {"bogus": 1}}, "hybrid.bogus"),
        (
            TopKMemorySearchConfig,
            {"hybrid": {"vector_weight": 0, "keyword_weight": 0}},
            "hybrid.keyword_weight",
        ),
        (TopKMemorySearchConfig, {"reranker": {"kind": 1}}, "reranker.kind"),
        (TopKMemorySearchConfig, {"reranker": {"kind": "R", "x": 1}}, "reranker.x"),
        (PruningMemorySearchConfig, {"protected_fraction": 2}, "protected_fraction"),
        (PruningMemorySearchConfig, {"evaluation_mode": "slow"}, "evaluation_mode"),
        (
            PruningMemorySearchConfig,
            {"evaluation_mode": "exhaustive", "num_probe_points": 2},
            "num_probe_points",
        ),
        (HybridConfig, {"candidates": 0}, "candidates"),
        (HybridConfig, {"c": -1.0}, "c"),
    ],
)
def test_bad_field_is_named_by_its_path(
    how: str, cls: type[pydantic.BaseModel], data: dict[str, Any], argument: str | None
) -> None:
    error = _refused(BUILDS[how], cls, data)
    assert error.argument == (argument or next(iter(data)))


def test_stored_data_that_is_not_a_mapping_names_the_config() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        TopKMemorySearchConfig.model_validate(5)
    assert info.value.argument == "TopKMemorySearchConfig"
    with pytest.raises(InvalidArgumentError) as info:
        PruningMemorySearchConfig.model_validate_json('{"max_results": ')
    assert info.value.argument == "PruningMemorySearchConfig"


@pytest.mark.parametrize("cls", _public_configs(), ids=lambda c: c.__name__)
def test_good_configs_round_trip(cls: type[pydantic.BaseModel]) -> None:
    config = cls()
    assert cls.model_validate(config.model_dump(mode="json")) == config
    assert cls.model_validate_json(config.model_dump_json()) == config


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize(
    ("cls", "field", "value"),
    [
        (SearchResultFormatConfig, "show_timestamp", "no"),
        (SearchResultFormatConfig, "show_distance", 1),
        (SearchResultFormatConfig, "include_invalid_results", "true"),
        (MemoryExtractionConfig, "extract_memories", "false"),
        (MemoryExtractionConfig, "extract_memories", 0),
        (MemoryExtractionConfig, "memory_extraction_window", "5"),
        (MemoryExtractionConfig, "memory_extraction_window", 5.0),
        (MemoryExtractionConfig, "memory_extraction_frequency", True),
        (MemoryExtractionConfig, "memory_extraction_token_limit", "800"),
        (MemoryExtractionConfig, "memory_extraction_inherit_message_metadata", "yes"),
        (TopKMemorySearchConfig, "max_results", 5.0),
        (PruningMemorySearchConfig, "protected_fraction", "0.5"),
        (PruningMemorySearchConfig, "protected_fraction", True),
        (HybridConfig, "c", "60"),
        (HybridConfig, "vector_weight", False),
    ],
)
def test_types_are_strict(
    how: str, cls: type[pydantic.BaseModel], field: str, value: object
) -> None:
    error = _refused(BUILDS[how], cls, {field: value})
    assert error.argument == field


def test_strict_types_still_take_their_own_values() -> None:
    show = SearchResultFormatConfig(show_timestamp=False, include_invalid_results=True)
    assert (show.show_timestamp, show.include_invalid_results) == (False, True)
    assert HybridConfig(c=5).c == 5.0  # an int is a number
    assert PruningMemorySearchConfig(protected_fraction=1).protected_fraction == 1.0
    extraction = MemoryExtractionConfig(
        memory_extraction_window=3, memory_extraction_inherit_message_metadata=["lang"]
    )
    assert extraction.memory_extraction_window == 3
    assert extraction.memory_extraction_inherit_message_metadata == ["lang"]


@pytest.mark.parametrize(
    ("search_config", "argument"),
    [
        ({"type": "top_k", "max_results": -1}, "search_config.max_results"),
        ({"max_results": "3"}, "search_config.max_results"),
        ({"type": "top_k", "bogus": 1}, "search_config.bogus"),
        ({"type": "top_k", "hybrid": {"candidates": 0}}, "search_config.hybrid.candidates"),
        ({"type": "top_k", "reranker": {"kind": 7}}, "search_config.reranker.kind"),
        ({"type": "pruning", "protected_fraction": 2.0}, "search_config.protected_fraction"),
        ({"type": "pruning", "evaluation_mode": "slow"}, "search_config.evaluation_mode"),
        ({"type": "other"}, "search_config.type"),
        (["not", "a", "config"], "search_config"),
    ],
)
def test_config_given_to_a_thread_call_is_named_under_the_argument(
    search_config: object, argument: str
) -> None:
    with graphmem.GraphMemory(":memory:", embedder=graphmem.HashingEmbedder(dim=8)) as memory:
        with pytest.raises(InvalidArgumentError) as info:
            memory.create_thread("x", search_config=search_config)
        assert info.value.argument == argument
        assert memory.list_threads() == []
        memory.create_thread("y", search_config={"type": "top_k", "max_results": 4})
        with pytest.raises(InvalidArgumentError) as info:
            memory.update_thread("y", search_config=search_config)
        assert info.value.argument == argument
        assert memory.get_thread("y").settings.search_config == TopKMemorySearchConfig(
            max_results=4
        )


@pytest.mark.parametrize(
    ("config", "argument"),
    [
        ({"memory_extraction_window": 0}, "memory_extraction_window"),
        ({"extract_memories": "no"}, "extract_memories"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_extraction_config_given_to_a_call_is_named_under_the_argument(
    config: dict[str, Any], argument: str
) -> None:
    with graphmem.GraphMemory(":memory:", embedder=graphmem.HashingEmbedder(dim=8)) as memory:
        with pytest.raises(InvalidArgumentError) as info:
            memory.create_thread("x", memory_extraction_config=config)
        assert info.value.argument == f"memory_extraction_config.{argument}"
        thread = memory.create_thread("y", enable_context_summary=False)
        with pytest.raises(InvalidArgumentError) as info:
            memory.update_thread("y", memory_extraction_config=config)
        assert info.value.argument == f"memory_extraction_config.{argument}"
        (message_id,) = thread.add_messages([{"role": "user", "content": "hi"}])
        with pytest.raises(InvalidArgumentError) as info:
            thread.extract_memories([message_id], config=config)
        assert info.value.argument == f"config.{argument}"
    with pytest.raises(InvalidArgumentError) as info:
        graphmem.GraphMemory(":memory:", memory_extraction_config=config)
    assert info.value.argument == f"memory_extraction_config.{argument}"


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize(
    ("given", "member"),
    [
        ("FAST", PruningEvaluationMode.FAST),
        ("fast", PruningEvaluationMode.FAST),
        ("Extended", PruningEvaluationMode.EXTENDED),
        ("EXHAUSTIVE", PruningEvaluationMode.EXHAUSTIVE),
    ],
)
def test_evaluation_mode_takes_its_name_in_any_case(
    how: str, given: str, member: PruningEvaluationMode
) -> None:
    config: Any = BUILDS[how](PruningMemorySearchConfig, {"evaluation_mode": given})
    assert config.evaluation_mode is member
    assert config.model_dump(mode="json")["evaluation_mode"] == member.value  # as stored before
    assert PruningMemorySearchConfig(evaluation_mode=member) == config


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize(
    ("given", "member"),
    [
        ("DISABLED", MemoryLinkExtractionMode.DISABLED),
        ("disabled", MemoryLinkExtractionMode.DISABLED),
        ("During_Extraction", MemoryLinkExtractionMode.DURING_EXTRACTION),
        ("post_extraction", MemoryLinkExtractionMode.POST_EXTRACTION),
    ],
)
def test_link_extraction_mode_takes_its_name_in_any_case(
    how: str, given: str, member: MemoryLinkExtractionMode
) -> None:
    config: Any = BUILDS[how](MemoryExtractionConfig, {"memory_link_extraction_mode": given})
    assert config.memory_link_extraction_mode is member
    assert config.model_dump(mode="json")["memory_link_extraction_mode"] == member.value


def test_mode_enums_take_their_names_in_any_case() -> None:
    assert PruningEvaluationMode("EXTENDED") is PruningEvaluationMode.EXTENDED
    assert PruningEvaluationMode("extended") is PruningEvaluationMode.EXTENDED
    assert MemoryLinkExtractionMode("disabled") is MemoryLinkExtractionMode.DISABLED


@pytest.mark.parametrize("how", BUILDS)
@pytest.mark.parametrize(
    ("cls", "field", "value"),
    [
        (PruningMemorySearchConfig, "evaluation_mode", "slow"),
        (PruningMemorySearchConfig, "evaluation_mode", "FAST "),
        (PruningMemorySearchConfig, "evaluation_mode", 1),
        (PruningMemorySearchConfig, "evaluation_mode", "DISABLED"),
        (MemoryExtractionConfig, "memory_link_extraction_mode", "fast"),
        (MemoryExtractionConfig, "memory_link_extraction_mode", None),
    ],
)
def test_unknown_mode_is_refused_with_the_names(
    how: str, cls: type[pydantic.BaseModel], field: str, value: object
) -> None:
    error = _refused(BUILDS[how], cls, {field: value})
    assert error.argument == field
    assert "(any case)" in error.detail


def test_thread_stores_a_mode_given_by_name_as_before() -> None:
    with graphmem.GraphMemory(":memory:", embedder=graphmem.HashingEmbedder(dim=8)) as memory:
        memory.create_thread("t", search_config={"type": "pruning", "evaluation_mode": "FAST"})
        stored = memory.get_thread("t").info().settings["search_config"]
        assert stored["evaluation_mode"] == "fast"
        memory.update_thread(
            "t", memory_extraction_config={"memory_link_extraction_mode": "disabled"}
        )
        stored = memory.get_thread("t").info().settings["memory_extraction_config"]
        assert stored == {"memory_link_extraction_mode": "DISABLED"}
