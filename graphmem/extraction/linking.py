"""Automatic linking: bounded candidate retrieval and the checks a proposal must pass.

Candidates are the stored memory-like records nearest to a vector, valid ones
only, of the new records' owner (:func:`link_scope`): the same user, where no
user means only records without one, and the same agent (no agent: only records
without one), except that an extraction for a thread with a user takes that
user's records of any agent. ``POST_EXTRACTION`` takes up to
:data:`LINK_CANDIDATES_PER_RECORD` per new record, ``DURING_EXTRACTION`` up to
:data:`MAX_LINK_CANDIDATES` near the messages; both stop at
:data:`MAX_LINK_CANDIDATES`.

A proposal becomes a link only if it passes what ``link_records`` checks, at
write time inside the writing transaction: both ends among the records shown
to the LLM (the new ones and the candidates) and still stored, at least one of
them new (a link between two stored records could invalidate a memory that the
new ones have nothing to do with); a built-in relation type; no self link; no
stored link with the same pair and type in either orientation; and no earlier
proposal of the same batch with that pair and type. Anything else is dropped
and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.ai.protocols import LlmProtocol
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.relations import resolve_opposite
from graphmem.core.validation import SearchFilters
from graphmem.extraction.config import LINK_CANDIDATES_PER_RECORD, MAX_LINK_CANDIDATES
from graphmem.extraction.models import Candidate, ExtractedRecord, LinkProposal
from graphmem.extraction.prompting import LINK_TYPES, link_prompt, link_schema, parse_links
from graphmem.stores.base import NewLink, Store

__all__ = ["LinkPlan", "ask_links", "candidates_near", "checked_links", "link_scope"]


@dataclass(frozen=True)
class LinkPlan:
    """What linking decided outside the transaction."""

    candidates: tuple[Candidate, ...] = ()
    proposals: tuple[LinkProposal, ...] = ()
    malformed: int = 0
    llm_calls: int = 0


def link_scope(
    user_id: str | None, agent_id: str | None, now: datetime, *, any_agent: bool = False
) -> SearchFilters:
    """The stored records a new record of ``user_id`` and ``agent_id`` may be linked
    to: exactly that user's (None: only the records without a user, never another
    user's) and that agent's (None: only the records without an agent), or, with
    ``any_agent``, the user's records of every agent.

    >>> from datetime import datetime, timezone
    >>> scope = link_scope(None, "bot", datetime.now(timezone.utc))
    >>> scope.owner_binds(), scope.agent_id
    ({'without_user': 1, 'without_agent': 0}, 'bot')
    """
    return SearchFilters(
        user_id=user_id,
        agent_id=None if any_agent else agent_id,
        record_types=MEMORY_TYPES,
        now=now,
        without_user=user_id is None,
        without_agent=not any_agent and agent_id is None,
    )


def candidates_near(
    store: Store,
    filters: SearchFilters,
    vectors: npt.NDArray[np.float32],
    per_vector: int,
) -> tuple[Candidate, ...]:
    """The stored records of ``filters``' scope (:func:`link_scope`) nearest to each
    vector, merged in order, at most :data:`MAX_LINK_CANDIDATES`."""
    scoped = replace(filters, thread_id=None, record_types=MEMORY_TYPES, metadata_filter=None)
    ids: list[str] = []
    with store.transaction(write=False):
        for vector in vectors:
            for record_id, _ in store.nearest(scoped, vector, per_vector, False):
                if record_id not in ids:
                    ids.append(record_id)
        found = store.get_memories(ids[:MAX_LINK_CANDIDATES])
    return tuple(
        Candidate(f"mem-{i}", rid, found[rid].record_type, found[rid].content)
        for i, rid in enumerate(r for r in ids[:MAX_LINK_CANDIDATES] if r in found)
    )


def ask_links(
    store: Store,
    llm: LlmProtocol,
    filters: SearchFilters,
    records: Sequence[ExtractedRecord],
    vectors: npt.NDArray[np.float32],
    instructions: str | None,
) -> LinkPlan:
    """``POST_EXTRACTION``: the candidates of ``records`` and the LLM's links (one
    call, none when there are no records or no candidates).

    Raises:
        ModelError: the LLM failed or its reply is not JSON with a ``links`` list.
    """
    if not records:
        return LinkPlan()
    candidates = candidates_near(store, filters, vectors, LINK_CANDIDATES_PER_RECORD)
    if not candidates and len(records) < 2:
        return LinkPlan(candidates=candidates)
    prompt = link_prompt(records, candidates, instructions)
    reply = llm.chat([{"role": "user", "content": prompt}], json_schema=link_schema())
    proposals, malformed = parse_links(reply, "linking")
    return LinkPlan(candidates, tuple(proposals), malformed, 1)


def checked_links(
    store: Store,
    new: Mapping[str, str],
    candidates: Sequence[Candidate],
    proposals: Sequence[LinkProposal],
    *,
    id_prefix: str,
    now: datetime,
    metadata: dict[str, Any],
) -> tuple[list[NewLink], int]:
    """The proposals that pass the checks (module docstring), as links to insert,
    and how many were dropped. ``new`` maps ``new-N`` to the new records' ids.
    Runs inside the writing transaction, after the new records are inserted."""
    stored = store.get_record_types([c.record_id for c in candidates])
    targets = dict(new) | {c.ref: c.record_id for c in candidates if c.record_id in stored}
    new_ids = set(new.values())
    links: list[NewLink] = []
    seen: set[tuple[str, str, str]] = set()
    for index, proposal in enumerate(proposals):
        source, target = targets.get(proposal.source), targets.get(proposal.target)
        rtype = proposal.relation_type
        if source is None or target is None or source == target or rtype not in LINK_TYPES:
            continue
        if source not in new_ids and target not in new_ids:
            continue
        pair = (min(source, target), max(source, target), rtype)
        if pair in seen or store.find_link_conflict(source, target, rtype, "") is not None:
            continue
        seen.add(pair)
        _, opposite = resolve_opposite(rtype, None)
        links.append(
            NewLink(f"{id_prefix}{index}", source, target, rtype, opposite, None, metadata, now)
        )
    return links, len(proposals) - len(links)
