"""Context-card retrieval rules: minimums in the caller's order, fill-up, cap, errors."""

from __future__ import annotations

import contextvars
import threading

import pytest

from graphmem import GraphMemory, InvalidArgumentError
from graphmem.threads.cards import (
    ALL_MEMORY_TYPES,
    DEFAULT_MAX_RELEVANT_RESULTS,
    Candidate,
    CardPlan,
    check_card_plan,
    run_searches,
    select_relevant,
)

# A fixed corpus: (id, type, distance). The fake search returns, for a kind, the
# k best of the matching records (all memory-like ones for ALL_MEMORY_TYPES).
CORPUS = [
    ("f1", "fact", 0.10),
    ("f2", "fact", 0.15),
    ("m1", "memory", 0.20),
    ("f3", "fact", 0.25),
    ("g1", "guideline", 0.60),
    ("p1", "preference", 0.70),
    ("p2", "preference", 0.80),
    ("x1", "message", 0.05),
    ("x2", "message", 0.50),
]


def _search(calls: list[tuple[str, int]] | None = None):  # type: ignore[no-untyped-def]
    def search(kind: str, k: int) -> list[Candidate]:
        if calls is not None:
            calls.append((kind, k))
        if kind == ALL_MEMORY_TYPES:
            rows = [r for r in CORPUS if r[1] != "message"]
        else:
            rows = [r for r in CORPUS if r[1] == kind]
        rows.sort(key=lambda r: (r[2], r[0]))
        return [Candidate(i, t, d) for i, t, d in rows[:k]]

    return search


def _ids(plan: CardPlan, concurrency: int = 1) -> list[str]:
    return [c.record_id for c in select_relevant(plan, _search(), concurrency)]


def test_card_without_minimums_merges_memories_and_messages_by_relevance() -> None:
    assert _ids(CardPlan(4)) == ["x1", "f1", "f2", "m1"]


def test_card_minimums_come_first_in_the_callers_order_then_fill() -> None:
    plan = check_card_plan(6, {"preference": 1, "guideline": 1, "message": 1})
    assert _ids(plan) == ["p1", "g1", "x1", "f1", "f2", "m1"]
    plan = check_card_plan(6, {"message": 1, "guideline": 1, "preference": 1})
    assert _ids(plan) == ["x1", "g1", "p1", "f1", "f2", "m1"]


def test_card_minimums_are_best_effort_and_fill_uses_the_slots_left() -> None:
    plan = check_card_plan(5, {"preference": 4})  # only two preferences exist
    assert _ids(plan) == ["p1", "p2", "f1", "f2", "m1"]


def test_card_fill_never_repeats_a_chosen_record() -> None:
    plan = check_card_plan(4, {"fact": 2})
    ids = _ids(plan)
    assert ids == ["f1", "f2", "m1", "f3"]
    assert len(set(ids)) == len(ids)


def test_card_cap_holds_when_minimums_fill_it() -> None:
    plan = check_card_plan(3, {"fact": 2, "message": 1})
    assert _ids(plan) == ["f1", "f2", "x1"]
    assert _ids(CardPlan(0)) == []


def test_card_default_cap_grows_to_the_minimum_total() -> None:
    assert check_card_plan(None, None).cap == DEFAULT_MAX_RELEVANT_RESULTS
    assert check_card_plan(None, {"fact": 7, "memory": 6}).cap == 13
    assert check_card_plan(None, {"fact": 2}).cap == DEFAULT_MAX_RELEVANT_RESULTS


@pytest.mark.parametrize(
    ("cap", "minimums", "named"),
    [
        (None, {"episode": 1}, "min_relevant_results_by_type"),
        (None, {"message": 0}, r"min_relevant_results_by_type\['message'\]"),
        (None, {"fact": -1}, r"min_relevant_results_by_type\['fact'\]"),
        (None, {"fact": True}, r"min_relevant_results_by_type\['fact'\]"),
        (None, {"fact": 1.5}, r"min_relevant_results_by_type\['fact'\]"),
        (None, [("fact", 1)], "min_relevant_results_by_type"),
        (2, {"fact": 2, "message": 1}, "max_relevant_results"),
        (-1, None, "max_relevant_results"),
    ],
)
def test_card_bad_plan_is_named(cap: object, minimums: object, named: str) -> None:
    with pytest.raises(InvalidArgumentError, match=named):
        check_card_plan(cap, minimums)


def test_card_searches_run_concurrently_up_to_the_bound() -> None:
    running, peak, target = 0, 0, 0
    changed = threading.Condition()
    inner = _search()

    def slow(kind: str, k: int) -> list[Candidate]:
        # each search stays until `target` run at once (or, for the last ones of a
        # plan that cannot fill the bound, a second): the peak is then the
        # bound however slowly the machine starts threads
        nonlocal running, peak
        with changed:
            running += 1
            peak = max(peak, running)
            changed.notify_all()
            changed.wait_for(lambda: running >= target, timeout=1.0)
        try:
            return inner(kind, k)
        finally:
            with changed:
                running -= 1

    plan = check_card_plan(8, {"fact": 1, "guideline": 1, "preference": 1, "message": 1})
    sequential = [c.record_id for c in select_relevant(plan, inner, 1)]
    target = 2
    assert [c.record_id for c in select_relevant(plan, slow, 2)] == sequential
    assert peak == 2
    peak, target = 0, 5
    assert [c.record_id for c in select_relevant(plan, slow, 5)] == sequential
    assert peak == 5  # four per-type searches and the fill search at once


def test_card_searches_see_the_callers_context() -> None:
    request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
        "request_id", default=None
    )
    request_id.set("caller")
    tasks = [request_id.get for _ in range(4)]
    assert run_searches(tasks, 4) == ["caller"] * 4


# -- through the thread handle ----------------------------------------------------------


def _store(memory: GraphMemory) -> None:
    thread = memory.create_thread("t", user_id="u", agent_id="a", enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "tea time planning"}])
    for i in range(4):
        thread.add_memory(f"tea fact {i}", memory_type="fact", memory_id=f"f{i}")
    thread.add_memory("likes green tea", memory_type="preference", memory_id="p")
    thread.add_memory("answer briefly about tea", memory_type="guideline", memory_id="g")
    memory.add_memory("another user's tea", memory_id="other-user", user_id="v", agent_id="a")
    memory.add_memory("another agent's tea", memory_id="other-agent", user_id="u", agent_id="b")
    memory.create_thread("t2", user_id="u", agent_id="a").add_messages(
        [{"role": "user", "content": "tea time planning in another thread"}]
    )


def test_card_through_handle_puts_requested_types_first(memory: GraphMemory) -> None:
    _store(memory)
    thread = memory.get_thread("t")
    card = thread.get_context_card(
        max_relevant_results=6,
        min_relevant_results_by_type={"preference": 1, "guideline": 1, "message": 1},
    )
    types = [r.record_type for r in card.relevant_records]
    assert types[:3] == ["preference", "guideline", "message"]
    assert len(types) == 6 and set(types[3:]) <= {"fact", "memory"}
    assert card.relevant_records[2].content == "tea time planning"
    ids = [r.id for r in card.relevant_records]
    assert not {"other-user", "other-agent"} & set(ids)


def test_card_through_handle_concurrent_equals_sequential(memory: GraphMemory) -> None:
    _store(memory)
    minimums = {"fact": 2, "preference": 1, "guideline": 1, "message": 1}
    one = memory.get_thread("t", context_card_type_search_concurrency=1)
    many = memory.get_thread("t", context_card_type_search_concurrency=5)
    assert one.get_context_card(min_relevant_results_by_type=minimums) == many.get_context_card(
        min_relevant_results_by_type=minimums
    )


def test_card_message_minimum_reads_only_this_thread(memory: GraphMemory) -> None:
    _store(memory)
    card = memory.get_thread("t").get_context_card(min_relevant_results_by_type={"message": 5})
    messages = [r for r in card.relevant_records if r.record_type == "message"]
    assert [m.content for m in messages] == ["tea time planning"]


def test_card_of_an_empty_thread_renders_empty(memory: GraphMemory) -> None:
    card = memory.create_thread("empty").get_context_card()
    assert (card.summary, card.topics, card.relevant_records, card.recent_messages) == (
        None,
        (),
        (),
        (),
    )
    assert card.content == ""


def test_card_bad_arguments_through_handle(memory: GraphMemory) -> None:
    thread = memory.create_thread("t")
    with pytest.raises(InvalidArgumentError, match="max_relevant_results"):
        thread.get_context_card(max_relevant_results=1, min_relevant_results_by_type={"fact": 2})
    with pytest.raises(InvalidArgumentError, match="recent_message_count"):
        thread.get_context_card(recent_message_count=-1)
    with pytest.raises(InvalidArgumentError, match="fallback_message_count"):
        thread.get_context_card(fallback_message_count=0)
