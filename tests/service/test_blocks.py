"""Memory blocks and prompts: checks before any write, late binding, in-flight work
under archive and purge, reprocessing without re-embedding, failures, restarts."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from graphmem.core.validation import utc_now
from graphmem.errors import ModelError

from .inproc import ScriptedLlm, Service


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service(llm=ScriptedLlm())
    service.session()
    yield service
    service.close()


def _prompt(svc: Service, prompt_id: str = "p", text: str = "Extract order numbers.") -> None:
    body = {"prompt_id": prompt_id, "prompt": text, "description": "d"}
    assert svc.call("POST", "/v1/prompts", json=body).status_code == 201


def _add(svc: Service, **body: object) -> object:
    return svc.call("POST", "/v1/sessions/s/memory", json={"facts": ["Order #7 is late."], **body})


def _nothing_written(svc: Service, texts_before: int) -> None:
    assert svc.embedder.texts == texts_before
    blocks = svc.call("GET", "/v1/sessions/s/memory").json()
    assert blocks["total"] == 0
    assert svc.memory.list_memories() == []


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ({"prompt_id": "nope"}, "PROMPT_NOT_FOUND", 404),
        ({"prompt_id": "p", "prompt_vid": 5}, "PROMPT_VERSION_NOT_FOUND", 404),
        ({"prompt_id": "p", "context_required": False}, "PROMPT_EXTRACTION_DISABLED", 400),
        ({"prompt_id": "bad id!"}, "INVALID_ARGUMENT", 400),
        ({"prompt_vid": 0}, "INVALID_ARGUMENT", 400),
        ({"prompt_id": "p", "prompt_vid": -1}, "INVALID_ARGUMENT", 400),
    ],
)
def test_prompt_reference_checked_before_any_embedding_or_write(
    svc: Service, body: dict[str, object], code: str, status: int
) -> None:
    _prompt(svc)
    before = svc.embedder.texts
    answer = _add(svc, async_processing=False, **body)
    assert (answer.status_code, answer.json()["code"]) == (status, code)
    _nothing_written(svc, before)


def test_without_an_llm_a_prompt_id_is_extraction_disabled() -> None:
    svc = Service(llm=None)
    try:
        svc.session()
        _prompt(svc)
        before = svc.embedder.texts
        answer = _add(svc, prompt_id="p", async_processing=False)
        assert (answer.status_code, answer.json()["code"]) == (400, "PROMPT_EXTRACTION_DISABLED")
        _nothing_written(svc, before)
        plain = _add(svc, async_processing=False)  # no prompt: processed, plain summary
        assert plain.json()["status"] == "ready"
        assert plain.json()["summary"] == "fact: Order #7 is late."
    finally:
        svc.close()


def test_archived_and_purging_prompts_refuse_new_blocks(svc: Service) -> None:
    _prompt(svc)
    store = svc.memory._store
    head = store.get_prompt("p")
    with store.transaction():
        store.update_prompt(replace(head, purging_since=utc_now()))
    answer = _add(svc, prompt_id="p")
    assert (answer.status_code, answer.json()["code"]) == (409, "PROMPT_ALREADY_PURGING")
    with store.transaction():
        store.update_prompt(replace(head, purging_since=None))
    svc.call("POST", "/v1/prompts/p/archive", json={"vid": "all"})
    answer = _add(svc, prompt_id="p")
    assert (answer.status_code, answer.json()["code"]) == (409, "PROMPT_ID_ARCHIVED")


def test_late_bound_block_takes_the_current_version_when_processed(svc: Service) -> None:
    _prompt(svc)
    queued = _add(svc, prompt_id="p")
    assert (queued.status_code, queued.json()["status"]) == (202, "pending")
    svc.call("PATCH", "/v1/prompts/p", json={"prompt": "Extract refund amounts."})
    done = svc.blocks.process(queued.json()["block_id"])
    assert (done.status, done.prompt_vid, done.resolved_vid) == ("ready", None, 1)
    assert done.summary == "custom: Extract refund amounts."


def test_in_flight_block_still_resolves_an_archived_prompt(svc: Service) -> None:
    _prompt(svc)
    queued = _add(svc, prompt_id="p").json()
    svc.call("POST", "/v1/prompts/p/archive", json={"vid": "all"})
    done = svc.blocks.process(queued["block_id"])
    assert (done.status, done.resolved_vid, done.summary) == (
        "ready", 0, "custom: Extract order numbers."
    )  # fmt: skip


def test_in_flight_block_falls_back_to_the_base_prompt_when_purged(svc: Service) -> None:
    _prompt(svc)
    svc.call("PATCH", "/v1/prompts/p", json={"prompt": "Extract refund amounts."})
    pinned = _add(svc, prompt_id="p", prompt_vid=0).json()  # a session's blocks: in order
    whole = _add(svc, prompt_id="p").json()
    svc.call("POST", "/v1/prompts/p/purge", json={"vid": 0})
    done = svc.blocks.process(pinned["block_id"])
    assert (done.status, done.resolved_vid, done.summary) == ("ready", None, "base")
    svc.call("POST", "/v1/prompts/p/purge", json={"vid": "all"})
    done = svc.blocks.process(whole["block_id"])
    assert (done.status, done.resolved_vid, done.summary) == ("ready", None, "base")


def _content(svc: Service, record_ids: list[str]) -> list[str]:
    return [svc.memory.get_memory(r).content for r in record_ids]


def test_switching_the_prompt_reprocesses_without_embedding(svc: Service) -> None:
    _prompt(svc)
    block = _add(svc, messages=[{"user_content": "hi", "assistant_content": "hello"}],
                 async_processing=False).json()  # fmt: skip
    assert block["summary"] == "base" and len(block["record_ids"]) == 3
    assert _content(svc, block["extracted_record_ids"]) == ["Order #7 is late (base)."]
    before = svc.embedder.texts
    path = f"/v1/sessions/s/memory/{block['block_id']}"
    switched = svc.call("PATCH", path, json={"prompt_id": "p", "async_processing": False}).json()
    assert (switched["summary"], switched["resolved_vid"]) == ("custom: Extract order numbers.", 0)
    assert switched["record_ids"] == block["record_ids"]
    # Only the new extraction's record is embedded; the block's content is not again,
    # and the earlier extraction's record is gone.
    assert _content(svc, switched["extracted_record_ids"]) == ["Order #7 is late (custom)."]
    assert svc.embedder.texts == before + 1
    assert len(svc.memory.list_memories(record_types=["fact"])) == 2
    assert len(svc.memory.get_thread("s").get_messages()) == 2


def test_block_extraction_is_not_repeated_by_a_retry(svc: Service) -> None:
    """A block whose extraction was written but whose outcome was lost (a crash
    between the two) takes the job's records on the next run instead of asking the
    LLM again."""
    block = _add(svc, messages=[{"user_content": "Order #7?", "assistant_content": "Late."}],
                 async_processing=False).json()  # fmt: skip
    stored = svc.memory._store.get_block(block["block_id"])
    assert stored is not None and stored.extraction is not None
    calls = svc.llm.calls
    # Back to the state of a crash after the extraction's commit: processing, with
    # the job id kept but the records not yet noted on the block.
    lost = replace(stored, status="pending", extraction={"job_id": stored.extraction["job_id"]})
    with svc.memory._store.transaction():
        svc.memory._store.update_block(lost)
    again = svc.blocks.process(block["block_id"])
    assert again.status == "ready"
    assert again.extraction is not None
    assert again.extraction["record_ids"] == block["extracted_record_ids"]
    assert svc.llm.calls == calls + 1  # the summary only
    facts = svc.memory.list_memories(record_types=["fact"])
    assert sorted(m.content for m in facts) == ["Order #7 is late (base).", "Order #7 is late."]


def test_a_failure_is_recorded_on_the_block(svc: Service) -> None:
    svc.blocks.llm.fail = True
    block = _add(svc, async_processing=False).json()
    assert block["status"] == "failed"
    assert "chat failed" in block["error"]
    assert len(block["record_ids"]) == 1  # the fact was stored before the summary failed


def test_unfinished_blocks_are_processed_after_a_restart(svc: Service) -> None:
    first = _add(svc).json()
    second = _add(svc).json()
    store = svc.memory._store
    with store.transaction():  # as a process that ended mid-way left it
        store.update_block(replace(store.get_block(first["block_id"]), status="processing"))
    svc.blocks.start()
    try:
        svc.blocks.wait_idle()
        for block_id in (first["block_id"], second["block_id"]):
            deadline_ok = _wait_ready(svc, block_id)
            assert deadline_ok.status == "ready"
    finally:
        svc.blocks.stop()


def _wait_ready(svc: Service, block_id: str) -> object:
    import time

    deadline = time.monotonic() + 20
    while True:
        block = svc.memory._store.get_block(block_id)
        if block.status in ("ready", "failed") or time.monotonic() > deadline:
            return block
        time.sleep(0.02)


def test_a_change_during_processing_wins_over_the_stale_outcome(svc: Service) -> None:
    _prompt(svc)
    queued = _add(svc).json()
    claimed = svc.blocks._claim(queued["block_id"])  # a worker took it...
    assert claimed is not None and claimed.status == "processing"
    path = f"/v1/sessions/s/memory/{queued['block_id']}"
    changed = svc.call("PATCH", path, json={"prompt_id": "p"})  # ...and the prompt changed
    assert changed.json()["status"] == "pending"
    svc.blocks._finish(claimed, svc.blocks._processed(claimed))  # the stale outcome
    stored = svc.memory._store.get_block(queued["block_id"])
    assert (stored.status, stored.prompt_id, stored.summary) == ("pending", "p", None)
    assert stored.record_ids == []  # the holder that lost the block wrote nothing
    done = svc.blocks.process(queued["block_id"])
    assert (done.status, done.summary, len(done.record_ids)) == (
        "ready", "custom: Extract order numbers.", 1
    )  # fmt: skip
    assert [m.id for m in svc.memory.list_memories()] == done.record_ids


def test_a_retry_resumes_the_content_without_writing_twice(svc: Service) -> None:
    body = {"messages": [{"user_content": "hi"}], "facts": ["one", "two"]}
    queued = svc.call("POST", "/v1/sessions/s/memory", json=body).json()
    store = svc.memory._store
    original = svc.embedder.embed
    calls = []

    def fail_second_fact(texts: list[str]) -> object:
        calls.append(texts)
        if len(calls) == 3:  # the messages, the first fact, then the second fact
            raise ModelError("embedding failed", status=503, provider_message="down")
        return original(texts)

    svc.embedder.embed = fail_second_fact  # type: ignore[method-assign,assignment]
    try:
        failed = svc.blocks.process(queued["block_id"])
    finally:
        del svc.embedder.embed
    assert failed.status == "failed" and len(failed.record_ids) == 2  # the message, "one"
    with store.transaction():
        store.update_block(replace(failed, status="pending"))
    done = svc.blocks.process(queued["block_id"])
    assert done.status == "ready" and len(done.record_ids) == 3
    stored = sorted(m.content for m in svc.memory.list_memories())
    assert stored == ["Order #7 is late (base).", "one", "two"]  # the facts, one extracted
    assert [m.content for m in svc.memory.get_thread("s").get_messages()] == ["hi"]


def test_a_blocks_error_text_fits_its_column_in_bytes() -> None:
    """Oracle's VARCHAR2(4000 CHAR) holds 4000 bytes at most: 2000 characters of a
    three-byte script would not fit."""
    from graphmem.service.blocks import _cut

    assert _cut("e" * 3000) == "e" * 2000
    cut = _cut("東" * 2000)
    assert cut == "東" * 1333 and len(cut.encode()) <= 4000
    assert _cut("ab東") == "ab東"
