"""Which records a context card shows: the retrieval rules, pure over a search function.

Without minimums: one search over the memory-like records (the thread's user
and agent scope) and one over the thread's messages, merged by relevance (each
search's own order kept, so a reranked order survives), at most
``max_relevant_results`` in all. With ``min_relevant_results_by_type``:
one search per requested type, in the caller's order, each contributing up to
its minimum; then one search over every memory-like type fills the slots left
with records not chosen yet. Every search is independent of the others, so they
may run at the same time and the card is the same as when they run one by one.
"""

from __future__ import annotations

import contextvars
import heapq
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.validation import MAX_COUNT
from graphmem.errors import InvalidArgumentError

__all__ = [
    "ALL_MEMORY_TYPES",
    "CARD_TYPES",
    "DEFAULT_MAX_RELEVANT_RESULTS",
    "THREAD_MESSAGES",
    "Candidate",
    "CardPlan",
    "check_card_plan",
    "run_searches",
    "select_relevant",
]

DEFAULT_MAX_RELEVANT_RESULTS = 10
"""Relevant records on a card when ``max_relevant_results`` is omitted (it grows
to the total of the minimums when they ask for more)."""
CARD_TYPES: tuple[str, ...] = (*MEMORY_TYPES, "message")
"""The keys ``min_relevant_results_by_type`` accepts."""
ALL_MEMORY_TYPES = "*memory-like*"
"""The search kind of the search over every memory-like type."""
THREAD_MESSAGES = "message"
"""The search kind of the search over the thread's messages."""

T = TypeVar("T")


@dataclass(frozen=True)
class Candidate:
    """A search hit: record id, its type, and cosine distance (lower is more relevant)."""

    record_id: str
    record_type: str
    distance: float


@dataclass(frozen=True)
class CardPlan:
    """Checked card arguments: the cap and the minimums in the caller's order."""

    cap: int
    minimums: tuple[tuple[str, int], ...] = ()


def _check_minimums(value: object) -> tuple[tuple[str, int], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(
            "min_relevant_results_by_type", "must be a mapping of record type to count"
        )
    minimums: list[tuple[str, int]] = []
    for key, count in value.items():
        if key not in CARD_TYPES:
            raise InvalidArgumentError(
                "min_relevant_results_by_type",
                f"unsupported key {key!r:.60}; supported: {', '.join(CARD_TYPES)}",
            )
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
            raise InvalidArgumentError(
                f"min_relevant_results_by_type[{key!r}]",
                f"must be a positive integer; got {count!r:.60}",
            )
        minimums.append((key, count))
    return tuple(minimums)


def check_card_plan(max_relevant_results: object, min_relevant_results_by_type: object) -> CardPlan:
    """The card's plan; the default cap grows to the total of the minimums.

    >>> check_card_plan(None, {"fact": 8, "message": 4})
    CardPlan(cap=12, minimums=(('fact', 8), ('message', 4)))

    Raises:
        InvalidArgumentError: an unsupported type, a count below 1, or a cap below
            the total of the minimums.
    """
    minimums = _check_minimums(min_relevant_results_by_type)
    total = sum(count for _, count in minimums)
    if max_relevant_results is None:
        return CardPlan(max(DEFAULT_MAX_RELEVANT_RESULTS, total), minimums)
    cap = max_relevant_results
    if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= MAX_COUNT:
        raise InvalidArgumentError(
            "max_relevant_results", f"must be an integer from 0 to {MAX_COUNT}; got {cap!r:.60}"
        )
    if cap < total:
        raise InvalidArgumentError(
            "max_relevant_results",
            f"is {cap}, below the total of min_relevant_results_by_type ({total})",
        )
    return CardPlan(cap, minimums)


def run_searches(tasks: Sequence[Callable[[], T]], concurrency: int) -> list[T]:
    """Each task's result, in task order; at most ``concurrency`` run at once, each
    in a copy of the caller's context (a reranker may read its context variables)."""
    if concurrency <= 1 or len(tasks) <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(tasks))) as pool:
        futures = [pool.submit(contextvars.copy_context().run, task) for task in tasks]
        return [f.result() for f in futures]


def _merged(*searches: Sequence[Candidate]) -> list[Candidate]:
    """The searches' hits interleaved by relevance, each search's own order kept
    (a reranked search's order is its reranker's, not its distances')."""
    return list(heapq.merge(*searches, key=lambda c: (c.distance, c.record_id)))


def select_relevant(
    plan: CardPlan,
    search: Callable[[str, int], list[Candidate]],
    concurrency: int,
) -> list[Candidate]:
    """The card's relevant records: requested types first (caller's order), then the rest.

    ``search(kind, k)`` returns at most ``k`` hits, best first, for ``kind`` = a
    record type (``"message"``: the thread's messages), or :data:`ALL_MEMORY_TYPES`.
    """
    if plan.cap == 0:
        return []
    if not plan.minimums:
        memories, messages = run_searches(
            [lambda: search(ALL_MEMORY_TYPES, plan.cap), lambda: search(THREAD_MESSAGES, plan.cap)],
            concurrency,
        )
        return _merged(memories, messages)[: plan.cap]
    tasks = [partial(search, kind, count) for kind, count in plan.minimums]
    # The fill search does not depend on what the others find: with k = cap it
    # holds every record that can fill the slots left, so it runs with them.
    tasks.append(partial(search, ALL_MEMORY_TYPES, plan.cap))
    *per_type, fill = run_searches(tasks, concurrency)
    chosen: list[Candidate] = []
    seen: set[str] = set()
    for (_, count), hits in zip(plan.minimums, per_type, strict=True):
        for hit in [h for h in hits if h.record_id not in seen][:count]:
            chosen.append(hit)
            seen.add(hit.record_id)
    rest = [h for h in fill if h.record_id not in seen][: plan.cap - len(chosen)]
    return (chosen + rest)[: plan.cap]
