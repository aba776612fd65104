"""One extraction: read the window, ask the LLM (and, by mode, retrieve link
candidates), then write the records and links in one transaction.

:func:`plan_extraction` makes every model call, outside any write transaction;
:func:`write_extraction` writes, re-checking link proposals against the store as
it is then. Record and relation ids derive from the job id and the position in
the reply (``<job>-r<N>``, ``<job>-l<N>``), so a job that runs again after a
crash cannot write the same record twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from graphmem.ai.protocols import LlmProtocol
from graphmem.core.validation import SearchFilters, format_time, utc_now
from graphmem.extraction.config import (
    MAX_LINK_CANDIDATES,
    MemoryExtractionConfig,
    MemoryLinkExtractionMode,
)
from graphmem.extraction.linking import (
    LinkPlan,
    ask_links,
    candidates_near,
    checked_links,
    link_scope,
)
from graphmem.extraction.models import (
    PROVENANCE_KEY,
    ExtractedRecord,
    ExtractionResult,
    WindowMessage,
)
from graphmem.extraction.prompting import (
    extraction_prompt,
    extraction_schema,
    fit_window,
    parse_links,
    parse_records,
)
from graphmem.extraction.resolving import PromptChoice, prompt_for_work
from graphmem.stores.base import NewMemory
from graphmem.stores.job_base import StoredJob
from graphmem.thread_models import ThreadInfo

if TYPE_CHECKING:
    from graphmem.memory import GraphMemory

__all__ = ["ExtractionRequest", "Plan", "plan_extraction", "write_extraction"]

_EMPTY = np.zeros((0, 0), dtype=np.float32)


JOB_KIND = "extract"
"""The ``kind`` of an extraction job's row."""


@dataclass(frozen=True)
class ExtractionRequest:
    """What a job asks for (its payload): the effective config, the messages
    (``message_ids``, or the window ending before position ``upto``), the
    registry prompt, if any, with what the reference recorded of it
    (``prompt_born``: :func:`~graphmem.extraction.resolving.referenced_at`), and
    the creation time of the thread it was queued for (``thread_born``: a thread
    deleted and made again under the same id is another thread, whose messages
    the job must not read)."""

    job_id: str
    thread_id: str
    config: dict[str, Any]
    upto: int | None = None
    message_ids: tuple[str, ...] | None = None
    prompt_id: str | None = None
    prompt_vid: int | None = None
    thread_born: str | None = None
    prompt_born: str | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "upto": self.upto,
            "message_ids": None if self.message_ids is None else list(self.message_ids),
            "prompt_id": self.prompt_id,
            "prompt_vid": self.prompt_vid,
            "prompt_created_at": self.prompt_born,
            "thread_created_at": self.thread_born,
        }

    def for_thread(self, info: ThreadInfo | None) -> bool:
        """Whether ``info`` is the thread this request was made for (a request
        from before ``thread_born`` was kept trusts any thread of its id)."""
        if info is None:
            return False
        return self.thread_born is None or format_time(info.created_at) == self.thread_born

    def job_row(
        self, status: str, result: dict[str, Any] | None = None, now: datetime | None = None
    ) -> StoredJob:
        """The job row of this request, new ``now`` (None: now): ``queued``, or
        ``done`` with its ``result`` for an extraction run at once."""
        now = now or utc_now()
        return StoredJob(
            job_id=self.job_id,
            kind=JOB_KIND,
            thread_id=self.thread_id,
            status=status,
            attempts=int(status == "done"),
            failures=0,
            owner=None,
            lease_until=None,
            not_before=now,
            last_error=None,
            payload=self.payload(),
            result=result,
            created_at=now,
            updated_at=now,
        )

    @classmethod
    def from_payload(
        cls, job_id: str, thread_id: str, payload: dict[str, Any]
    ) -> ExtractionRequest:
        ids = payload.get("message_ids")
        return cls(
            job_id=job_id,
            thread_id=thread_id,
            config=dict(payload.get("config") or {}),
            upto=payload.get("upto"),
            message_ids=None if ids is None else tuple(ids),
            prompt_id=payload.get("prompt_id"),
            prompt_vid=payload.get("prompt_vid"),
            thread_born=payload.get("thread_created_at"),
            prompt_born=payload.get("prompt_created_at"),
        )


@dataclass(frozen=True)
class Plan:
    """An extraction decided, ready to write."""

    request: ExtractionRequest
    info: ThreadInfo
    config: MemoryExtractionConfig
    window: tuple[WindowMessage, ...] = ()
    records: tuple[ExtractedRecord, ...] = ()
    vectors: npt.NDArray[np.float32] = field(default_factory=lambda: _EMPTY)
    links: LinkPlan = field(default_factory=LinkPlan)
    dropped: int = 0
    llm_calls: int = 0
    prompt: PromptChoice = field(default_factory=PromptChoice)
    model: str | None = None


def _window(
    memory: GraphMemory, request: ExtractionRequest, info: ThreadInfo
) -> list[WindowMessage]:
    store, now = memory._store, memory._clock()
    size = MemoryExtractionConfig.model_validate(request.config).memory_extraction_window
    if request.message_ids is not None:
        found = store.get_messages(list(request.message_ids))
        chosen = sorted(
            (m for m in found.values() if m.thread_id == request.thread_id),
            key=lambda m: m.position,
        )
    else:  # the last ``size`` unexpired messages before the job's mark
        upto = info.message_count if request.upto is None else request.upto
        chosen = store.window_messages(request.thread_id, now, upto, size)
    return [WindowMessage(m.id, m.role, m.content, dict(m.metadata)) for m in chosen]


def _model_name(llm: LlmProtocol) -> str:
    name = getattr(llm, "model", None)
    return name if isinstance(name, str) else type(llm).__name__


def _scope(memory: GraphMemory, info: ThreadInfo) -> SearchFilters:
    """Link candidates: the thread user's memory-like records, from any agent (a
    thread's agent defaults to a fresh id, which would hide every stored memory);
    for a thread without a user, the records of its agent that have no user."""
    return link_scope(
        info.user_id, info.agent_id, memory._clock(), any_agent=info.user_id is not None
    )


def plan_extraction(
    memory: GraphMemory,
    request: ExtractionRequest,
    llm: LlmProtocol,
    info: ThreadInfo,
    prompt: PromptChoice | None = None,
) -> Plan:
    """Every model call of one extraction (none when the window is empty), under
    ``prompt`` (None: the request's prompt reference, resolved now).

    Raises:
        ModelError: the LLM or the embedder failed, or a reply is out of schema.
        PromptError: the registry prompt's stored text breaks a text rule.
    """
    config = MemoryExtractionConfig.model_validate(request.config)
    window = fit_window(_window(memory, request, info), config.memory_extraction_token_limit)
    plan = Plan(request, info, config, tuple(window), model=_model_name(llm))
    if not window:
        return plan
    if prompt is None:
        prompt = prompt_for_work(memory, request.prompt_id, request.prompt_vid, request.prompt_born)
    mode = config.memory_link_extraction_mode
    during = mode is MemoryLinkExtractionMode.DURING_EXTRACTION
    candidates = None
    if during:
        query = memory._embed(["\n".join(m.content for m in window)])
        candidates = candidates_near(
            memory._store, _scope(memory, info), query, MAX_LINK_CANDIDATES
        )
    reply = llm.chat(
        [
            {
                "role": "user",
                "content": extraction_prompt(
                    window,
                    custom_instructions=config.memory_extraction_custom_instructions,
                    registry_text=prompt.text,
                    candidates=candidates,
                    link_instructions=config.memory_link_extraction_custom_instructions,
                ),
            }
        ],
        json_schema=extraction_schema(during),
    )
    records, dropped = parse_records(reply, len(window))
    vectors = memory._embed([r.content for r in records]) if records else _EMPTY
    links = LinkPlan()
    if during and candidates is not None:
        proposals, malformed = parse_links(reply, "extraction", optional=True)
        links = LinkPlan(candidates, tuple(proposals), malformed, 0)
    elif mode is MemoryLinkExtractionMode.POST_EXTRACTION:
        links = ask_links(
            memory._store,
            llm,
            _scope(memory, info),
            records,
            vectors,
            config.memory_link_extraction_custom_instructions,
        )
    return replace(
        plan,
        records=tuple(records),
        vectors=vectors,
        links=links,
        dropped=dropped,
        llm_calls=1 + links.llm_calls,
        prompt=prompt,
    )


def _inherited(plan: Plan, record: ExtractedRecord) -> dict[str, Any]:
    keep = plan.config.memory_extraction_inherit_message_metadata
    meta: dict[str, Any] = {}
    if keep:
        for index in record.sources:
            source = plan.window[index].metadata
            meta.update(source if keep is True else {k: source[k] for k in keep if k in source})
    return meta


def _new_records(memory: GraphMemory, plan: Plan) -> list[NewMemory]:
    now = memory._clock()
    built = []
    for index, record in enumerate(plan.records):
        provenance = {
            "job_id": plan.request.job_id,
            "message_ids": [plan.window[i].record_id for i in record.sources],
            "model": plan.model,
            "prompt_id": plan.prompt.prompt_id,
            "prompt_vid": plan.prompt.vid,
        }
        built.append(
            NewMemory(
                record_id=f"{plan.request.job_id}-r{index}",
                record_type=record.record_type,
                content=record.content,
                user_id=plan.info.user_id,
                agent_id=plan.info.agent_id,
                thread_id=plan.info.thread_id,
                metadata=_inherited(plan, record) | {PROVENANCE_KEY: provenance},
                timestamp=None,
                created_at=now,
                expires_at=None,
                embedding=plan.vectors[index],
            )
        )
    return built


class JobLost(Exception):
    """The job was taken from this worker (re-queued after its lease); nothing written."""


def write_extraction(
    memory: GraphMemory,
    plan: Plan,
    finish: Callable[[ExtractionResult], bool] | None = None,
) -> ExtractionResult:
    """Write the plan in one transaction; ``finish(result)`` runs last inside it
    (marks the job done) and its False rolls everything back (:class:`JobLost`)."""
    store = memory._store
    with store.transaction():
        thread = store.get_thread(plan.info.thread_id)  # not deleted, nor made again
        same = thread is not None and thread.created_at == plan.info.created_at
        new = _new_records(memory, plan) if same else []
        if new:
            memory._use_embedder(int(plan.vectors.shape[1]))
        stored = store.get_record_types([m.record_id for m in new])
        store.insert_memories([m for m in new if m.record_id not in stored])
        links, rejected = checked_links(
            store,
            {r.ref: m.record_id for r, m in zip(plan.records, new, strict=False)},
            plan.links.candidates,
            plan.links.proposals if new else (),
            id_prefix=f"{plan.request.job_id}-l",
            now=memory._clock(),
            metadata={PROVENANCE_KEY: {"job_id": plan.request.job_id}},
        )
        existing = store.get_links([link.relation_id for link in links])
        for link in links:
            if link.relation_id not in existing:
                store.insert_link(link)
        result = _result(plan, new, links, rejected + plan.links.malformed)
        if finish is not None and not finish(result):
            raise JobLost(plan.request.job_id)
    return result


def _result(
    plan: Plan, new: Sequence[NewMemory], links: Sequence[Any], rejected: int
) -> ExtractionResult:
    return ExtractionResult(
        job_id=plan.request.job_id,
        thread_id=plan.request.thread_id,
        record_ids=[m.record_id for m in new],
        relation_ids=[link.relation_id for link in links],
        rejected_links=rejected,
        dropped_records=plan.dropped,
        llm_calls=plan.llm_calls,
        message_ids=[m.record_id for m in plan.window],
        prompt_id=plan.prompt.prompt_id,
        prompt_vid=plan.prompt.vid,
        prompt_fallback=plan.prompt.fallback,
        model=plan.model,
    )
