"""A queued job keeps the identity of the prompt it was queued for: after a whole
purge, a prompt registered again under the same id is another prompt, and the job
falls back to the base prompt rather than run under the new text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from graphmem import GraphMemory, Thread
from graphmem.extraction.models import BASE_PROMPT_ID, ExtractionResult
from graphmem.testing import ModelServer

from ._support import EXTRACT_MARK, memory, prompt_of, records, reply

CFG = {"memory_link_extraction_mode": "DISABLED"}


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        running.add_rule(EXTRACT_MARK, reply(records(("fact", "Pays 5 euros on 3 May."))))
        yield running


def _queued(mem: GraphMemory, **reference: int) -> tuple[str, Thread]:
    mem.create_prompt("p", "Extract only dates.", "dates")
    mem.update_prompt("p", prompt="Extract only times.")
    thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
    thread.add_messages([{"role": "user", "content": "We pay 5 euros on 3 May."}])
    return thread.schedule_extraction(prompt_id="p", config=CFG, **reference), thread


def _result(mem: GraphMemory, job_id: str) -> ExtractionResult:
    result = mem.get_job(job_id).result
    assert result is not None
    return result


def _operator_texts(server: ModelServer) -> list[bool]:
    return [
        "OPERATOR INSTRUCTIONS" in prompt_of(r.body) for r in server.requests_to("chat/completions")
    ]


@pytest.mark.parametrize("reference", [{"prompt_vid": 0}, {}], ids=["pinned", "late-bound"])
def test_identity_job_falls_back_when_its_prompt_id_is_registered_again(
    server: ModelServer, reference: dict[str, int]
) -> None:
    with memory(server, extraction_workers=0) as mem:
        job_id, thread = _queued(mem, **reference)
        mem.purge_prompt("p")
        mem.create_prompt("p", "Extract only names of competitors.", "another team's prompt")
        thread.wait_for_memory_extraction(timeout=30)
        result = _result(mem, job_id)
        assert (result.prompt_id, result.prompt_fallback) == (BASE_PROMPT_ID, True)
        assert _operator_texts(server) == [False]
        assert mem.get_job(job_id).payload["prompt_created_at"] is not None


def test_identity_late_bound_job_takes_the_version_current_when_it_runs(
    server: ModelServer,
) -> None:
    with memory(server, extraction_workers=0) as mem:
        job_id, thread = _queued(mem)
        mem.update_prompt("p", prompt="Extract only amounts.")
        mem.archive_prompt("p")
        thread.wait_for_memory_extraction(timeout=30)
        result = _result(mem, job_id)
        assert (result.prompt_id, result.prompt_vid, result.prompt_fallback) == ("p", 2, False)
        sent = prompt_of(server.requests_to("chat/completions")[0].body)
        assert "\nExtract only amounts.\n=====" in sent


def test_identity_job_queued_without_the_record_trusts_the_prompt_of_the_id(
    server: ModelServer,
) -> None:
    with memory(server, extraction_workers=0) as mem:
        mem.create_prompt("p", "Extract only dates.", "dates")
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "We pay 5 euros on 3 May."}])
        request, _ = thread._request(None, "p", 0, CFG)
        assert request.prompt_born is not None
        with mem._store.transaction():  # as a job queued before the record was kept
            mem._queue(replace(request, prompt_born=None))
        thread.wait_for_memory_extraction(timeout=30)
        result = _result(mem, request.job_id)
        assert (result.prompt_id, result.prompt_vid, result.prompt_fallback) == ("p", 0, False)


def test_identity_extract_now_under_a_prompt_registered_again_meanwhile_falls_back(
    server: ModelServer,
) -> None:
    with memory(server) as mem:
        mem.create_prompt("p", "Extract only dates.", "dates")
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages([{"role": "user", "content": "We pay 5 euros on 3 May."}])
        original = mem.resolve_prompt

        def swapped(*args: object, **kwargs: object) -> object:
            if kwargs.get("in_flight"):  # between the check and the run
                mem.purge_prompt("p")
                mem.create_prompt("p", "Extract only names.", "another")
            return original(*args, **kwargs)  # type: ignore[arg-type]

        mem.resolve_prompt = swapped  # type: ignore[method-assign]
        result = thread.extract_memories(prompt_id="p", config=CFG)
        assert (result.prompt_id, result.prompt_fallback) == (BASE_PROMPT_ID, True)
        assert _operator_texts(server) == [False]
