"""Memory blocks: one add-memory call's messages and facts, stored and processed together.

A block is checked whole (its session, its content, its prompt reference) before
anything is embedded or written, then stored ``pending``. Processing (at once, or
by the background worker when ``async_processing``) moves it to ``processing``,
adds its messages to the session's thread and its facts as ``fact`` memories,
resolves its prompt (a late-bound block takes the current version, recorded as
``resolved_vid``; an archived prompt still resolves; a purged one falls back to
the base prompt), extracts memories from its messages (when the server has an
LLM and ``context_required`` holds; the prompt's text steers the extraction),
writes a summary, and ends ``ready`` (or ``failed``, with the error kept).
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
import uuid
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from graphmem.core.registry_rules import DEFAULT_PROMPT_ID
from graphmem.core.validation import check_content, check_id, utc_now
from graphmem.errors import GraphMemError, InvalidArgumentError, NotFoundError
from graphmem.registry_errors import PromptArgumentError, PromptNotFoundError
from graphmem.service.block_worker import BlockWorker
from graphmem.service.schemas import AddMemoryBody, UpdateMemoryBody
from graphmem.stores.service_base import StoredBlock
from graphmem.threads.messages import check_messages

if TYPE_CHECKING:
    from datetime import datetime

    from graphmem.ai.protocols import LlmProtocol
    from graphmem.memory import GraphMemory

__all__ = ["BlockService"]

_MAX_SUMMARY = 2000
_MAX_ERROR = 2000


@cache
def _summary_prompt() -> str:
    return (resources.files("graphmem.prompts") / "block_summary.md").read_text("utf-8").strip()


def _turn_messages(turns: list[dict[str, Any]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for turn in turns:
        for role in ("user", "assistant"):
            text = turn.get(f"{role}_content")
            if text is not None:
                out.append({"role": role, "content": text})
    return out


def block_text(content: dict[str, Any]) -> str:
    """The block's exchanges and facts as plain text (what the summary is made from)."""
    lines = [f"{m['role']}: {m['content']}" for m in _turn_messages(content["messages"])]
    lines += [f"fact: {fact}" for fact in content["facts"]]
    return "\n".join(lines)


def _restarted(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A block's extraction state when it is to be extracted again: what an earlier
    run wrote is stale."""
    stale = [*(state or {}).get("stale", []), *(state or {}).get("record_ids", [])]
    return {"stale": stale} if stale else None


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
    ) -> tuple[str | None, int | None]:
        """The checked prompt reference (``default``: none). Raises before any write."""
        if prompt_id is None or prompt_id == DEFAULT_PROMPT_ID:
            if prompt_vid is not None:
                raise InvalidArgumentError("prompt_vid", "needs a registered prompt_id")
            return None, None
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
        self.memory.resolve_prompt(prompt_id, prompt_vid)
        return prompt_id, prompt_vid

    def _session(self, session_id: str) -> None:
        check_id("session_id", session_id)
        with self._store.transaction(write=False):
            if self._store.get_thread(session_id) is None:
                raise NotFoundError(f"session_id: no session {session_id!r}")

    @staticmethod
    def _content(body: AddMemoryBody) -> dict[str, Any]:
        turns = [t.model_dump() for t in body.messages]
        for i, turn in enumerate(turns):
            if turn["user_content"] is None and turn["assistant_content"] is None:
                raise InvalidArgumentError(
                    f"messages[{i}]", "give user_content and/or assistant_content"
                )
        if turns:
            check_messages(_turn_messages(turns))
        for i, fact in enumerate(body.facts):
            try:
                check_content(fact)
            except InvalidArgumentError as exc:
                raise InvalidArgumentError(f"facts[{i}]", exc.detail) from exc
        if not turns and not body.facts:
            raise InvalidArgumentError("messages", "a block needs messages and/or facts")
        return {"messages": turns, "facts": list(body.facts)}

    # calls ------------------------------------------------------------------------

    def add(self, session_id: str, body: AddMemoryBody) -> StoredBlock:
        """Check and store a block, then process it now or queue it."""
        self._session(session_id)
        content = self._content(body)
        prompt_id, prompt_vid = self._prompt_ref(
            body.prompt_id, body.prompt_vid, body.context_required
        )
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
        )
        block = self._taken(block, now, body.async_processing)
        with self._store.transaction():
            self._store.insert_block(block)
        return self._run(block, body.async_processing)

    def update(self, session_id: str, block_id: str, body: UpdateMemoryBody) -> StoredBlock:
        """Switch or clear the block's prompt and process it again (no new embedding)."""
        block = self.get(session_id, block_id)
        if body.prompt_id is None:
            raise InvalidArgumentError("prompt_id", "give a registered prompt_id or 'default'")
        prompt_id, prompt_vid = self._prompt_ref(
            body.prompt_id, body.prompt_vid, block.context_required
        )
        now = utc_now()
        with self._store.transaction():
            current = self._store.get_block(block_id) or block
            changed = replace(
                current,
                prompt_id=prompt_id,
                prompt_vid=prompt_vid,
                resolved_vid=None,
                error=None,
                updated_at=now,
                extraction=_restarted(current.extraction),
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
        self._hold(block.block_id)
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
            self._let_go(block.block_id)
        return self._stored(block.block_id)

    def _stored(self, block_id: str) -> StoredBlock:
        with self._store.transaction(write=False):
            found = self._store.get_block(block_id)
        if found is None:
            raise NotFoundError(f"block_id: block {block_id!r} is gone (its session was deleted)")
        return found

    def _processed(self, block: StoredBlock) -> StoredBlock:
        try:
            instructions, resolved = self._resolve(block)
            block = self._write_content(block)
            block = self._extract(block, resolved)
            summary = self._summarize(block, instructions)
        except GraphMemError as exc:
            return replace(block, status="failed", error=str(exc)[:_MAX_ERROR])
        return replace(block, status="ready", summary=summary, resolved_vid=resolved, error=None)

    def _save_record_ids(self, block: StoredBlock) -> None:
        """Keep the ids of the records written at once, so they are never written twice."""
        with self._store.transaction():
            current = self._store.get_block(block.block_id)
            if current is not None:
                self._store.update_block(replace(current, record_ids=block.record_ids))

    def _finish(self, claimed: StoredBlock, final: StoredBlock) -> None:
        """Store the outcome, unless the block was changed (and re-queued) or taken
        over meanwhile: a claim is known by its holder and ``updated_at``."""
        with self._store.transaction():
            current = self._store.get_block(claimed.block_id)
            if current is None or current.status != "processing":
                return
            if (current.updated_at, current.owner) != (claimed.updated_at, claimed.owner):
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

    def _resolve(self, block: StoredBlock) -> tuple[str | None, int | None]:
        """The prompt text and version to process with: work in flight still resolves
        an archived prompt; a purged one falls back to the base prompt (None)."""
        if block.prompt_id is None:
            return None, None
        try:
            prompt = self.memory.resolve_prompt(block.prompt_id, block.prompt_vid, in_flight=True)
        except PromptNotFoundError:
            return None, None
        return prompt.prompt, prompt.vid

    def _write_content(self, block: StoredBlock) -> StoredBlock:
        """Store what is not stored yet: the messages (one call), then each fact; the
        ids are kept after each step, so a retry resumes without writing anything twice."""
        messages = _turn_messages(block.content["messages"])
        facts = block.content["facts"]
        if len(block.record_ids) == len(messages) + len(facts):
            return block
        thread = self.memory.get_thread(block.thread_id)
        if messages and not block.record_ids:
            block = replace(block, record_ids=thread.add_messages(messages))
            self._save_record_ids(block)
        for fact in facts[len(block.record_ids) - len(messages) :]:
            added = thread.add_memory(fact, memory_type="fact")
            block = replace(block, record_ids=[*block.record_ids, added])
            self._save_record_ids(block)
        return block

    def _extract(self, block: StoredBlock, resolved: int | None) -> StoredBlock:
        """Extract memories from the block's messages (once per prompt; see the module
        doc); the new records' and links' ids are kept in ``block.extraction``."""
        messages = len(_turn_messages(block.content["messages"]))
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
                None if resolved is None else block.prompt_id,
                resolved,
                None,
                job_id=state["job_id"],
                in_flight=True,
            ).model_dump(mode="json")
        state = {
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
            current = self._store.get_block(block.block_id)
            if current is None:
                return block
            held = (current.updated_at, current.owner) == (block.updated_at, block.owner)
            if current.status == "processing" and held:
                self._store.update_block(replace(current, extraction=state))
            elif "record_ids" in state:
                for record_id in state["record_ids"]:
                    with contextlib.suppress(NotFoundError):
                        self.memory.delete_memory(record_id)
        return replace(block, extraction=state)

    def _summarize(self, block: StoredBlock, instructions: str | None) -> str:
        text = block_text(block.content)
        if self.llm is None:
            return " ".join(text.split())[:_MAX_SUMMARY]
        system = _summary_prompt()
        if instructions is not None:
            system += "\n\nCustom instructions from the application:\n" + instructions
        reply = self.llm.chat(
            [{"role": "system", "content": system}, {"role": "user", "content": text}]
        )
        return reply.strip()[:_MAX_SUMMARY]
