"""Memory blocks: one add-memory call's messages and facts, stored and processed together.

A block is checked whole (its session, its content, its prompt reference) before
anything is embedded or written, then stored ``pending``. Processing (at once, or
by the background worker when ``async_processing``) moves it to ``processing``,
adds its messages to the session's thread (queuing no extraction job: the block
extracts them) and its facts as ``fact`` memories,
resolves its prompt once (a late-bound block takes the current version, recorded
as ``resolved_vid``; an archived prompt still resolves; a purged one falls back to
the base prompt, and so does a prompt registered under the id after a whole
purge: the block keeps the ``created_at`` of the prompt it referred to),
extracts memories from its messages (when the server has an LLM and
``context_required`` holds; the prompt's text steers the extraction), writes a
summary under the same prompt (its text delimited as untrusted, as in
extraction), and ends ``ready`` (or ``failed``, with the error kept).
Changing the prompt of a block re-runs extraction and the summary under the new
prompt: the records of the earlier extraction are deleted, its messages and
facts are not written or embedded again.

Extraction runs under a job id fixed on the block before the LLM is asked, and
writes its records with a job row in one transaction: a block retried after a
crash finds the job done and takes its records instead of extracting again.
Who processes a block, and when another server may take it over, is
:mod:`graphmem.service.block_worker`'s part.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from graphmem.core.registry_rules import DEFAULT_PROMPT_ID
from graphmem.core.validation import check_id, utc_now
from graphmem.errors import GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.extraction.resolving import PromptChoice, prompt_for_work, referenced_at
from graphmem.registry_checks import check_vid
from graphmem.registry_errors import PromptArgumentError
from graphmem.service.block_content import (
    REFERENCED,
    block_text,
    checked_content,
    restarted,
    summary_messages,
    turn_messages,
)
from graphmem.service.block_worker import BlockWorker
from graphmem.service.errors import client_text
from graphmem.service.schemas import AddMemoryBody, UpdateMemoryBody
from graphmem.stores.service_base import StoredBlock

if TYPE_CHECKING:
    from datetime import datetime

    from graphmem.ai.protocols import LlmProtocol
    from graphmem.memory import GraphMemory

__all__ = ["BlockService"]

_MAX_SUMMARY = 2000
_log = logging.getLogger("graphmem.service")
_MAX_ERROR = 2000
_MAX_ERROR_BYTES = 4000  # Oracle's VARCHAR2(4000 CHAR) holds 4000 bytes at most


def _cut(text: str) -> str:
    """``text`` cut to what a block's error column holds: :data:`_MAX_ERROR`
    characters and :data:`_MAX_ERROR_BYTES` bytes of UTF-8, on a character."""
    return text[:_MAX_ERROR].encode()[:_MAX_ERROR_BYTES].decode(errors="ignore")


class ClaimLost(GraphMemError):
    """The block is no longer held by this claim (changed, taken over or deleted):
    the write that found it out is rolled back, and the claim writes nothing more."""


class BlockService(BlockWorker):
    """Adds, changes, reads and processes the blocks of the sessions of one store."""

    def __init__(self, memory: GraphMemory, llm: LlmProtocol | None) -> None:
        self.memory = memory
        self.llm = llm
        self._store = memory._store
        self._init_worker()

    # checks -----------------------------------------------------------------------

    def _prompt_ref(
        self, prompt_id: str | None, prompt_vid: int | None, context_required: bool
    ) -> tuple[str | None, int | None, dict[str, Any] | None]:
        """The checked prompt reference (``default``: none) and the extraction
        state that records which prompt it means. Raises before any write."""
        if prompt_id is None or prompt_id == DEFAULT_PROMPT_ID:
            if prompt_vid is not None:
                raise InvalidArgumentError("prompt_vid", "needs a registered prompt_id")
            return None, None, None
        if not context_required:
            raise PromptArgumentError(
                "context_required",
                "prompt_id needs semantic extraction: leave context_required true",
                code="PROMPT_EXTRACTION_DISABLED",
            )
        if self.llm is None:
            raise PromptArgumentError(
                "prompt_id",
                "semantic extraction is disabled: the server has no LLM configured",
                code="PROMPT_EXTRACTION_DISABLED",
            )
        found = self.memory.resolve_prompt(prompt_id, check_vid(prompt_vid, "prompt_vid"))
        return prompt_id, prompt_vid, {REFERENCED: referenced_at(found)}

    def _session(self, session_id: str) -> None:
        check_id("session_id", session_id)
        with self._store.transaction(write=False):
            if self._store.get_thread(session_id) is None:
                raise NotFoundError(f"session_id: no session {session_id!r}")

    # calls ------------------------------------------------------------------------

    def add(self, session_id: str, body: AddMemoryBody) -> StoredBlock:
        """Check and store a block, then process it now or queue it."""
        self._session(session_id)
        content = checked_content(body)
        prompt_id, prompt_vid, state = self._prompt_ref(
            body.prompt_id, body.prompt_vid, body.context_required
        )
        with self._store.transaction():
            # in the write, the session's row locked: blocks are accepted in
            # created_at order, on every backend
            self._store.lock_thread(session_id)
            now = utc_now()
            block = StoredBlock(
                f"block_{uuid.uuid4().hex}",
                session_id,
                "pending",
                content,
                prompt_id,
                prompt_vid,
                None,
                body.context_required,
                None,
                [],
                None,
                now,
                now,
                extraction=state,
            )
            block = self._taken(block, now, body.async_processing)
            self._store.insert_block(block)
        return self._run(block, body.async_processing)

    def update(self, session_id: str, block_id: str, body: UpdateMemoryBody) -> StoredBlock:
        """Switch or clear the block's prompt and process it again (no new embedding)."""
        block = self.get(session_id, block_id)
        if body.prompt_id is None:
            raise InvalidArgumentError("prompt_id", "give a registered prompt_id or 'default'")
        prompt_id, prompt_vid, state = self._prompt_ref(
            body.prompt_id, body.prompt_vid, block.context_required
        )
        now = utc_now()
        with self._store.transaction():
            self._store.lock_block(block_id)
            current = self._store.get_block(block_id) or block
            changed = replace(
                current,
                prompt_id=prompt_id,
                prompt_vid=prompt_vid,
                resolved_vid=None,
                error=None,
                updated_at=now,
                extraction=restarted(current.extraction, state),
            )
            changed = self._taken(changed, now, body.async_processing)
            self._store.update_block(changed)
        return self._run(changed, body.async_processing)

    def get(self, session_id: str, block_id: str) -> StoredBlock:
        check_id("block_id", block_id)
        self._session(session_id)
        with self._store.transaction(write=False):
            found = self._store.get_block(block_id)
        if found is None or found.thread_id != session_id:
            raise NotFoundError(f"block_id: no block {block_id!r} in session {session_id!r}")
        return found

    def list_blocks(
        self, session_id: str, limit: int, offset: int
    ) -> tuple[list[StoredBlock], int]:
        self._session(session_id)
        with self._store.transaction(write=False):
            return (
                self._store.list_blocks(session_id, limit, offset),
                self._store.count_blocks(session_id),
            )

    def _taken(self, block: StoredBlock, now: datetime, in_background: bool) -> StoredBlock:
        """The block as written: pending for the worker, or already held here (a
        synchronous call processes it at once, and no other server may take it first)."""
        if in_background:
            return replace(block, status="pending", owner=None, lease_until=None)
        return replace(block, status="processing", owner=self.owner, lease_until=self._lease(now))

    def _run(self, block: StoredBlock, in_background: bool) -> StoredBlock:
        if in_background:  # without a running worker, it waits for a worker's next look
            if self._worker is not None:
                self._enqueue(block.block_id)
            with self._store.transaction(write=False):
                found = self._store.get_block(block.block_id)
            assert found is not None
            return found
        self._leases.hold(block.block_id)
        try:
            self._await_turn(block)  # the session's earlier blocks first
        except BaseException:
            self._leases.let_go(block.block_id)
            raise
        return self._process_held(block)

    # processing -------------------------------------------------------------------

    def process(self, block_id: str) -> StoredBlock:
        """Process a pending block (another holder's claim wins); returns it as stored."""
        block = self._claim(block_id)
        if block is not None:
            return self._process_held(block)
        return self._stored(block_id)

    def _process_held(self, block: StoredBlock) -> StoredBlock:
        try:
            self._finish(block, self._processed(block))
        finally:
            self._leases.let_go(block.block_id)
        with contextlib.suppress(GraphMemError):  # the next look queues it anyway
            self._queue_next(block.thread_id)
        return self._stored(block.block_id)

    def _stored(self, block_id: str) -> StoredBlock:
        with self._store.transaction(write=False):
            found = self._store.get_block(block_id)
        if found is None:
            raise NotFoundError(f"block_id: block {block_id!r} is gone (its session was deleted)")
        return found

    def _processed(self, block: StoredBlock) -> StoredBlock:
        try:
            prompt = self._resolve(block)
            block = self._write_content(block)
            block = self._extract(block, prompt)
            summary = self._summarize(block, prompt.text)
        except GraphMemError as exc:
            _log.warning("block %s failed: %s", block.block_id, exc)
            return replace(block, status="failed", error=_cut(client_text(exc)))
        return replace(
            block, status="ready", summary=summary, resolved_vid=prompt.registry_vid, error=None
        )

    @staticmethod
    def _held(current: StoredBlock | None, claim: StoredBlock) -> bool:
        """Whether the block as stored (``current``) is still in ``claim``'s hands:
        processing, by the same holder, with the claim's ``updated_at``."""
        return (
            current is not None
            and current.status == "processing"
            and (current.updated_at, current.owner) == (claim.updated_at, claim.owner)
        )

    def _holding(self, block: StoredBlock) -> StoredBlock:
        """Inside a write: the block as stored, while this claim still holds it (else
        :class:`ClaimLost`, which rolls the write back)."""
        self._store.lock_block(block.block_id)
        current = self._store.get_block(block.block_id)
        if current is None or not self._held(current, block):
            raise ClaimLost(f"block_id: block {block.block_id!r} was changed or taken over")
        return current

    def _keep_ids(self, block: StoredBlock, record_ids: list[str]) -> None:
        """Inside the write of the block's records: keep their ids on the block, so
        that they are never written twice (by a retry, or by another holder)."""
        self._store.update_block(replace(self._holding(block), record_ids=record_ids))

    def _finish(self, claimed: StoredBlock, final: StoredBlock) -> None:
        """Store the outcome, unless the block was changed (and re-queued) or taken
        over meanwhile: a claim is known by its holder and ``updated_at``."""
        with self._store.transaction():
            self._store.lock_block(claimed.block_id)
            current = self._store.get_block(claimed.block_id)
            if current is None or not self._held(current, claimed):
                return
            self._store.update_block(
                replace(
                    final,
                    record_ids=current.record_ids,
                    extraction=current.extraction,
                    updated_at=utc_now(),
                    owner=None,
                    lease_until=None,
                )
            )

    def _resolve(self, block: StoredBlock) -> PromptChoice:
        """The prompt to process with, resolved once for the extraction and the
        summary: work in flight still resolves an archived prompt; a purged one (or
        a prompt registered under the id since the block referred to it) falls back
        to the base prompt."""
        referenced = (block.extraction or {}).get(REFERENCED)
        return prompt_for_work(self.memory, block.prompt_id, block.prompt_vid, referenced)

    def _write_content(self, block: StoredBlock) -> StoredBlock:
        """Store what is not stored yet: the messages (one call), then each fact. Each
        write keeps its ids on the block in its own transaction, and only while this
        claim holds the block, so a retry or another holder resumes without writing
        anything twice, and a holder that lost the block writes nothing."""
        messages = turn_messages(block.content["messages"])
        facts = block.content["facts"]
        if len(block.record_ids) == len(messages) + len(facts):
            return block
        thread = self.memory.get_thread(block.thread_id)
        claim = block
        if messages and not block.record_ids:
            ids = thread._add_messages(
                messages, inside=lambda new: self._keep_ids(claim, new), queue_extraction=False
            )
            block = replace(block, record_ids=ids)
        for fact in facts[len(block.record_ids) - len(messages) :]:
            kept = block.record_ids

            def keep(new: str, kept: list[str] = kept) -> None:
                self._keep_ids(claim, [*kept, new])

            block = replace(
                block, record_ids=[*kept, thread._add_memory(fact, "fact", inside=keep)]
            )
        return block

    def _extract(self, block: StoredBlock, prompt: PromptChoice) -> StoredBlock:
        """Extract memories from the block's messages (once per prompt; see the module
        doc); the new records' and links' ids are kept in ``block.extraction``."""
        messages = len(turn_messages(block.content["messages"]))
        state = dict(block.extraction or {})
        if not block.context_required or self.llm is None or not messages:
            return block
        if "record_ids" in state:
            return block
        for record_id in state.pop("stale", []):
            with contextlib.suppress(NotFoundError):
                self.memory.delete_memory(record_id)
        state["job_id"] = state.get("job_id") or f"{block.block_id}-{uuid.uuid4().hex[:12]}"
        block = self._save_extraction(block, state)
        with self._store.transaction(write=False):
            job = self._store.get_job(state["job_id"])
        if job is not None and job.status == "done" and job.result is not None:
            found = job.result
        else:
            thread = self.memory.get_thread(block.thread_id)
            found = thread._extract(
                block.record_ids[:messages],
                None if prompt.registry_vid is None else block.prompt_id,
                prompt.registry_vid,
                None,
                job_id=state["job_id"],
                in_flight=True,
                inside=lambda: self._holding(block),
                prompt=prompt,
            ).model_dump(mode="json")
        state = {
            **{k: state[k] for k in (REFERENCED,) if k in state},
            "job_id": state["job_id"],
            "record_ids": list(found["record_ids"]),
            "relation_ids": list(found["relation_ids"]),
        }
        return self._save_extraction(block, state)

    def _save_extraction(self, block: StoredBlock, state: dict[str, Any]) -> StoredBlock:
        """Keep the extraction state on the block, while this claim holds. Records
        written under a claim lost meanwhile (the block was changed or taken over)
        are not the block's: they are deleted at once, in the same transaction as the
        check, so that no later write of the block's state can lose track of them."""
        with self._store.transaction():
            self._store.lock_block(block.block_id)
            current = self._store.get_block(block.block_id)
            if current is None:
                return block
            if self._held(current, block):
                self._store.update_block(replace(current, extraction=state))
            elif "record_ids" in state:
                for record_id in state["record_ids"]:
                    with contextlib.suppress(NotFoundError):
                        self.memory.delete_memory(record_id)
        return replace(block, extraction=state)

    def _summarize(self, block: StoredBlock, instructions: str | None) -> str:
        if self.llm is None:
            return " ".join(block_text(block.content).split())[:_MAX_SUMMARY]
        reply = self.llm.chat(summary_messages(block.content, instructions))
        return reply.strip()[:_MAX_SUMMARY]
