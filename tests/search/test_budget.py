"""Token budgets: the seed's worked example, per-call overrides, the counter."""

import pytest

from graphmem import GraphMemory, InvalidArgumentError, TopKMemorySearchConfig
from graphmem.testing.memory_store import MemoryStore
from graphmem.testing.model import ManualClock

from ._models import ScriptedReranker

SIZES = {"first": 420, "second": 300, "third": 250}
RANK = {"first": 3.0, "second": 2.0, "third": 1.0}


def _counter(text: str) -> int:
    """The seed's estimates: each formatted result's size is named by its content."""
    return next(size for name, size in SIZES.items() if f"<content>{name} " in text)


def _memory(counter=_counter, **config: int) -> GraphMemory:
    """Three results ranked first (420 tokens), second (300), third (250): a
    reranker fixes the order the example speaks of."""
    reranker = ScriptedReranker(lambda query, text: RANK[text.split()[0]])
    memory = GraphMemory(
        MemoryStore(),
        clock=ManualClock(),
        token_counter=counter,
        search_config=TopKMemorySearchConfig(reranker=reranker, **config),
    )
    for name in SIZES:
        memory.add_memory(f"{name} result about databases", memory_id=name)
    return memory


def _ids(memory: GraphMemory, **kwargs: int) -> list[str]:
    return [r.id for r in memory.search("databases", **kwargs)]


def test_budget_none_configured_returns_all_in_rank_order() -> None:
    assert _ids(_memory()) == ["first", "second", "third"]


def test_budget_seed_example_soft_800_returns_all_three() -> None:
    assert _ids(_memory(soft_token_budget=800)) == ["first", "second", "third"]


def test_budget_seed_example_adding_hard_900_returns_first_two() -> None:
    memory = _memory(soft_token_budget=800, token_budget=900)
    results = memory.search("databases")
    assert [r.id for r in results] == ["first", "second"]
    assert results.stats.budget_dropped == 1


def test_budget_soft_stops_after_the_result_that_reaches_it() -> None:
    assert _ids(_memory(soft_token_budget=720)) == ["first", "second"]
    assert _ids(_memory(soft_token_budget=721)) == ["first", "second", "third"]


def test_budget_soft_keeps_the_first_result_even_when_larger() -> None:
    assert _ids(_memory(soft_token_budget=10)) == ["first"]


def test_budget_hard_smaller_than_first_result_returns_nothing() -> None:
    assert _ids(_memory(token_budget=419)) == []
    assert _ids(_memory(token_budget=420)) == ["first"]


def test_budget_per_call_positive_overrides_configured() -> None:
    memory = _memory(soft_token_budget=800, token_budget=900)
    assert _ids(memory, token_budget=1000) == ["first", "second", "third"]
    assert _ids(memory, soft_token_budget=400) == ["first"]


def test_budget_per_call_non_positive_disables_configured() -> None:
    memory = _memory(soft_token_budget=100, token_budget=500)
    assert _ids(memory, token_budget=0) == ["first"]  # soft still on
    assert _ids(memory, token_budget=0, soft_token_budget=-1) == ["first", "second", "third"]


def test_budget_per_call_applies_without_configured_budgets() -> None:
    assert _ids(_memory(), soft_token_budget=800, token_budget=900) == ["first", "second"]


@pytest.mark.parametrize("value", [1.5, "900", True])
def test_budget_per_call_non_int_is_refused(value: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        _memory().search("databases", token_budget=value)
    assert info.value.argument == "token_budget"


def test_budget_counts_formatted_content_with_linked_records() -> None:
    seen: list[str] = []

    def counter(text: str) -> int:
        seen.append(text)
        return 1

    memory = _memory(counter=counter, token_budget=100)
    memory.link_records("first", "memory", "second", "memory", "supports")
    results = memory.search("databases", num_hops=1)
    assert seen == [r.format_content() for r in results]
    assert "<linked_records>" in seen[0]


def test_budget_counter_bad_output_is_refused() -> None:
    memory = _memory(counter=lambda text: -1, token_budget=100)
    with pytest.raises(InvalidArgumentError) as info:
        memory.search("databases")
    assert info.value.argument == "token_counter"


def test_budget_default_counter_is_four_characters_a_token() -> None:
    memory = GraphMemory(MemoryStore(), clock=ManualClock())
    memory.add_memory("x" * 400, memory_id="big")
    memory.add_memory("y" * 40, memory_id="small")
    first = memory.search("x")[0]
    budget = (len(first.format_content()) + 3) // 4
    assert [r.id for r in memory.search("x", token_budget=budget)] == [first.id]
    assert [r.id for r in memory.search("x", token_budget=budget - 1)] == []
