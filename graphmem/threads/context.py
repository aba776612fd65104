"""Context-card assembly for :class:`graphmem.threads.Thread` (the summary's
upkeep is :mod:`graphmem.threads.upkeep`).

Model calls (the embedder for the card's query) happen outside store
transactions; the store is read in short transactions around them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.validation import MAX_CONTENT_LENGTH, SearchFilters, check_non_negative
from graphmem.errors import InvalidArgumentError
from graphmem.search.budget import BudgetConfig, TokenCounter, fitting_texts
from graphmem.search.config import TopKMemorySearchConfig
from graphmem.search.postprocess import postprocess, stage_configs
from graphmem.search.ranked import Hit
from graphmem.thread_models import ThreadInfo
from graphmem.threads.card_model import CardRecord, ContextCard
from graphmem.threads.cards import ALL_MEMORY_TYPES, Candidate, check_card_plan, select_relevant
from graphmem.threads.settings import ThreadSettings, resolve_search_config

if TYPE_CHECKING:
    from graphmem.threads.handle import Thread

__all__ = ["build_card", "search_config"]


def _query(thread: Thread, info: ThreadInfo, fallback_count: int) -> str:
    if info.summary:
        text = "\n".join([info.summary, *info.topics])
    else:
        text = "\n".join(m.content for m in thread.get_messages(-fallback_count))
    return text[:MAX_CONTENT_LENGTH]


def _filters(thread: Thread, info: ThreadInfo, kind: str) -> SearchFilters:
    now = thread._memory._clock()
    if kind == "message":
        return SearchFilters(thread_id=thread.thread_id, record_types=("message",), now=now)
    types = MEMORY_TYPES if kind == ALL_MEMORY_TYPES else (kind,)
    return SearchFilters(user_id=info.user_id, agent_id=info.agent_id, record_types=types, now=now)


def search_config(thread: Thread, info: ThreadInfo | None = None) -> TopKMemorySearchConfig:
    """The thread's search config, its models bound (see ``Thread.search``).

    Raises:
        InvalidArgumentError: the stored config needs a model that is not available.
    """
    memory = thread._memory
    stored = ThreadSettings.from_json((info or thread.info()).settings).search_config
    return resolve_search_config(
        thread.thread_id,
        stored,
        thread._search_models,
        memory._search_config,
        memory._pruner_llm,
    )


def _contents(thread: Thread, hits: list[Hit], kind: str) -> dict[str, tuple[str, str]]:
    """``{id: (record type, content)}`` of a card search's hits."""
    store, ids = thread._memory._store, [h[0] for h in hits]
    if kind == "message":
        return {i: ("message", m.content) for i, m in store.get_messages(ids).items()}
    return {i: (r.record_type, r.content) for i, r in store.get_memories(ids).items()}


def _card_search(
    thread: Thread,
    info: ThreadInfo,
    request: tuple[str, npt.NDArray[np.float32]],
    config: TopKMemorySearchConfig,
) -> Callable[[str, int], list[Candidate]]:
    """One card search: the ``k`` nearest of a kind, then the thread's config's
    rerank, prune and token budgets on this search's results alone (measured on
    each record's content), before the card combines the searches."""
    query, vector = request
    memory = thread._memory
    rerank_config, prune_config = stage_configs(config, query)
    budget = BudgetConfig(config.token_budget, config.soft_token_budget, memory._token_counter)

    def search(kind: str, k: int) -> list[Candidate]:
        found: list[Hit] = list(
            memory._store.nearest(_filters(thread, info, kind), vector, k, False)
        )
        records = _contents(thread, found, kind)
        hits = [h for h in found if h[0] in records]  # deleted meanwhile: left out
        texts = {i: content for i, (_, content) in records.items()}
        hits, _ = postprocess(hits, texts, rerank_config, prune_config)
        hits = hits[: fitting_texts([texts[i] for i, _ in hits], budget)]
        # Vector hits always carry a distance (only keyword hits have none).
        return [Candidate(i, records[i][0], 1.0 if d is None else d) for i, d in hits]

    return search


def _records(thread: Thread, info: ThreadInfo, chosen: list[Candidate]) -> list[CardRecord]:
    """The chosen records as they are now, in one read: those deleted, and memories
    that no longer pass the card's filters or became invalid while the models ran
    (the searches read them in earlier transactions), are left out."""
    store = thread._memory._store
    ids = [c.record_id for c in chosen]
    memory_ids = [c.record_id for c in chosen if c.record_type != "message"]
    with store.transaction(write=False):
        passing = store.passing_ids(memory_ids, _filters(thread, info, ALL_MEMORY_TYPES), False)
        memories = store.get_memories([i for i in memory_ids if i in passing])
        messages = store.get_messages([c.record_id for c in chosen if c.record_type == "message"])
    found: list[CardRecord] = []
    for c, record_id in zip(chosen, ids, strict=True):
        if record_id in messages:
            m = messages[record_id]
            found.append(
                CardRecord(
                    id=m.id,
                    record_type="message",
                    content=m.content,
                    distance=c.distance,
                    timestamp=m.timestamp,
                    role=m.role,
                )
            )
        elif record_id in memories:
            r = memories[record_id]
            found.append(
                CardRecord(
                    id=r.id,
                    record_type=r.record_type,
                    content=r.content,
                    distance=c.distance,
                    timestamp=r.timestamp,
                )
            )
    return found


def _within_budget(
    records: list[CardRecord], config: TopKMemorySearchConfig, counter: TokenCounter
) -> list[CardRecord]:
    """The combined records that fit the config's token budgets, in card order."""
    budget = BudgetConfig(config.token_budget, config.soft_token_budget, counter)
    return records[: fitting_texts([r.content for r in records], budget)]


def build_card(
    thread: Thread,
    max_relevant_results: object,
    min_relevant_results_by_type: object,
    recent_message_count: object,
    fallback_message_count: object,
) -> ContextCard:
    """See :meth:`graphmem.threads.Thread.get_context_card`."""
    memory = thread._memory
    memory._check_open()
    if min_relevant_results_by_type is not None and not isinstance(
        min_relevant_results_by_type, Mapping
    ):
        raise InvalidArgumentError(
            "min_relevant_results_by_type", "must be a mapping of record type to count"
        )
    plan = check_card_plan(max_relevant_results, min_relevant_results_by_type)
    recent_count = check_non_negative("recent_message_count", recent_message_count)
    fallback = check_non_negative("fallback_message_count", fallback_message_count)
    if fallback < 1:
        raise InvalidArgumentError("fallback_message_count", "must be at least 1")
    info = thread.info()
    config = search_config(thread, info)
    recent = thread.get_messages(-recent_count) if recent_count else []
    query = _query(thread, info, fallback)
    relevant: list[CardRecord] = []
    if query.strip() and plan.cap:
        vector = memory._embed_query(query)
        with memory._store.transaction(write=False):
            memory._check_embedder(int(vector.shape[0]))
        search = _card_search(thread, info, (query, vector), config)
        chosen = select_relevant(plan, search, thread.context_card_type_search_concurrency)
        relevant = _within_budget(_records(thread, info, chosen), config, memory._token_counter)
    return ContextCard(
        thread_id=thread.thread_id,
        summary=info.summary,
        topics=info.topics,
        relevant_records=tuple(relevant),
        recent_messages=tuple(recent),
    )
