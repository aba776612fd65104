"""Extraction faults: bad replies, timeouts and bad link proposals change nothing they
should not, are reported, and leave the validity invariant holding."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphmem import ExtractionError, ModelError
from graphmem.testing import ModelServer

from ._support import (
    EXTRACT_MARK,
    LINK_MARK,
    config,
    graph,
    invariant_violations,
    llm,
    memory,
    prompt_of,
    records,
    ref_of,
    reply,
)

OLD = "The user prefers tea."
NEW = "The user now prefers coffee."


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def _thread(mem, mode: str = "POST_EXTRACTION"):  # type: ignore[no-untyped-def]
    mem.add_memory(OLD, memory_id="old", memory_type="preference", user_id="u")
    return mem.create_thread(
        "t",
        user_id="u",
        memory_extraction_config=config(memory_link_extraction_mode=mode),
        enable_context_summary=False,
    )


@pytest.mark.parametrize("garbage", ["not json {", '{"records": "many"}', "[1, 2]"])
def test_fault_garbage_reply_fails_the_job_and_writes_nothing(
    server: ModelServer, garbage: str
) -> None:
    with memory(server, extraction_max_attempts=1) as mem:
        thread = _thread(mem)
        before = graph(mem)
        server.queue_replies(garbage)
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        with pytest.raises(ExtractionError) as raised:
            thread.wait_for_memory_extraction(timeout=30)
        (failed,) = mem.list_jobs(status="failed")
        assert raised.value.job_ids == [failed.job_id]
        assert failed.last_error is not None and "ModelError" in failed.last_error
        assert (failed.attempts, failed.failures, failed.result) == (1, 1, None)
        assert graph(mem) == before and invariant_violations(mem) == []


def test_fault_garbage_reply_on_the_sync_call_raises_and_writes_nothing(
    server: ModelServer,
) -> None:
    with memory(server) as mem:
        thread = _thread(mem, "DISABLED")
        mem.update_thread("t", memory_extraction_config={"extract_memories": False})
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        before = graph(mem)
        server.queue_replies("```json\n{oops\n```")
        with pytest.raises(ModelError, match="not JSON"):
            thread.extract_memories()
        assert graph(mem) == before and mem.list_jobs() == []


def test_fault_garbage_link_reply_fails_the_whole_extraction(server: ModelServer) -> None:
    with memory(server, extraction_max_attempts=1) as mem:
        thread = _thread(mem)
        before = graph(mem)
        server.queue_replies(reply(records(("preference", NEW))), '{"links": 5}')
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        with pytest.raises(ExtractionError):
            thread.wait_for_memory_extraction(timeout=30)
        assert graph(mem) == before  # the extracted record was not written alone


def test_fault_llm_timeout_fails_the_job(server: ModelServer) -> None:
    with memory(server, llm=llm(server, timeout=0.3), extraction_max_attempts=1) as mem:
        thread = _thread(mem)
        before = graph(mem)
        server.stall("chat/completions", 2.0)
        server.queue_replies(reply(records(("preference", NEW))))
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        with pytest.raises(ExtractionError, match=r"no answer within 0\.3 s"):
            thread.wait_for_memory_extraction(timeout=30)
        assert graph(mem) == before and invariant_violations(mem) == []


def _ref(body: dict[str, object], name: str) -> str:
    """``ref:<content>``: the label the prompt gives that stored record."""
    return ref_of(prompt_of(body), name[4:]) if name.startswith("ref:") else name


def _links_run(server: ModelServer, links: list[tuple[str, str, str]]) -> tuple[object, object]:
    with memory(server) as mem:
        thread = _thread(mem)
        mem.add_memory("The user drinks water.", memory_id="water", user_id="u")
        mem.link_records("old", "preference", "water", "memory", "supports", relation_id="r0")
        server.queue_replies(reply(records(("preference", NEW))))
        server.add_rule(
            LINK_MARK,
            lambda body: reply(links=[(_ref(body, s), _ref(body, t), r) for s, t, r in links]),
        )
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert job.result is not None and invariant_violations(mem) == []
        return job.result, graph(mem)


def test_fault_link_to_a_missing_record_is_dropped_and_counted(server: ModelServer) -> None:
    result, (_nodes, edges) = _links_run(
        server, [("new-0", "mem-99", "supersedes"), ("new-0", "ref:" + OLD, "supersedes")]
    )
    assert result.rejected_links == 1 and len(result.relation_ids) == 1  # type: ignore[attr-defined]
    assert (NEW, "supersedes", OLD) in edges


def test_fault_self_link_and_bad_type_and_unknown_source_are_dropped(server: ModelServer) -> None:
    result, (nodes, edges) = _links_run(
        server,
        [
            ("new-0", "new-0", "supersedes"),
            ("new-0", "ref:" + OLD, "replaces"),
            ("ref:" + OLD, "ref:The user drinks water.", "supports"),
            ("new-7", "ref:" + OLD, "supports"),
        ],
    )
    assert result.rejected_links == 4 and result.relation_ids == []  # type: ignore[attr-defined]
    assert ("preference", NEW, "valid") in nodes
    assert edges == {(OLD, "supports", "The user drinks water.")}


def test_fault_reverse_of_a_stored_lifecycle_link_is_dropped(server: ModelServer) -> None:
    water = "The user drinks water."
    with memory(server) as mem:
        thread = _thread(mem)
        mem.add_memory(water, memory_id="water", user_id="u")

        def decide(body: dict[str, object]) -> str:
            # While the LLM "thinks", another writer stores old -> water (supersedes);
            # the LLM then proposes water -> old, its reverse, and one good link.
            mem.link_records("old", "preference", "water", "memory", "supersedes")
            proposals = [
                ("ref:" + water, "ref:" + OLD, "supersedes"),
                ("new-0", "ref:" + OLD, "refines"),
            ]
            return reply(links=[(_ref(body, s), _ref(body, t), r) for s, t, r in proposals])

        server.queue_replies(reply(records(("preference", NEW))))
        server.add_rule(LINK_MARK, decide)
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert job.result is not None
        assert (job.result.rejected_links, len(job.result.relation_ids)) == (1, 1)
        nodes, edges = graph(mem)
        assert edges == {(OLD, "supersedes", water), (NEW, "refines", OLD)}
        assert ("memory", water, "invalid") in nodes and ("preference", OLD, "invalid") in nodes
        assert invariant_violations(mem) == []


def test_fault_reverse_within_one_reply_keeps_the_first(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = _thread(mem, "DURING_EXTRACTION")
        two = records(("preference", NEW), ("preference", "The user prefers espresso."))
        both_ways = [("new-0", "new-1", "supersedes"), ("new-1", "new-0", "supersedes")]
        server.queue_replies(reply(two, both_ways))
        thread.add_messages([{"role": "user", "content": "Coffee, espresso really."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert job.result is not None and job.result.rejected_links == 1
        _nodes, edges = graph(mem)
        assert edges == {(NEW, "supersedes", "The user prefers espresso.")}
        assert invariant_violations(mem) == []


@pytest.mark.parametrize("mode", ["DURING_EXTRACTION", "POST_EXTRACTION"])
def test_fault_dropped_record_keeps_the_reply_numbering(server: ModelServer, mode: str) -> None:
    # new-N is the N-th record of the reply: new-0 is dropped (not a memory type),
    # so the link naming it is rejected, and new-1 is still the coffee preference.
    paris = "The user lives in Paris."
    extracted = records(("opinion", "Tea is overrated."), ("preference", NEW), ("fact", paris))
    links = [("new-1", "ref:" + OLD, "supersedes"), ("new-0", "ref:" + OLD, "supports")]
    with memory(server) as mem:
        thread = _thread(mem, mode)

        def answer(body: dict[str, object]) -> str:
            proposed = [(_ref(body, s), _ref(body, t), r) for s, t, r in links]
            return reply(extracted if mode == "DURING_EXTRACTION" else None, proposed)

        server.add_rule(LINK_MARK, answer)
        server.add_rule(EXTRACT_MARK, answer if mode == "DURING_EXTRACTION" else reply(extracted))
        thread.add_messages([{"role": "user", "content": "Coffee now, and I live in Paris."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert job.result is not None
        assert (job.result.dropped_records, job.result.rejected_links) == (1, 1)
        _nodes, edges = graph(mem)
        assert edges == {(NEW, "supersedes", OLD)}
        assert invariant_violations(mem) == []
        if mode == "POST_EXTRACTION":
            (linking,) = [
                r for r in server.requests_to("chat/completions") if LINK_MARK in prompt_of(r.body)
            ]
            listed = f'new-1 (preference): "{NEW}"\nnew-2 (fact): "{paris}"\n'
            assert listed in prompt_of(linking.body)


def test_fault_link_between_two_stored_records_is_dropped(server: ModelServer) -> None:
    water = "The user drinks water."
    links = [("ref:" + OLD, "ref:" + water, "supersedes"), ("new-0", "ref:" + OLD, "refines")]
    with memory(server) as mem:
        thread = _thread(mem, "DURING_EXTRACTION")
        mem.add_memory(water, memory_id="water", user_id="u")
        server.add_rule(
            EXTRACT_MARK,
            lambda body: reply(
                records(("preference", NEW)),
                [(_ref(body, s), _ref(body, t), r) for s, t, r in links],
            ),
        )
        thread.add_messages([{"role": "user", "content": "I now prefer coffee."}])
        thread.wait_for_memory_extraction(timeout=30)
        (job,) = mem.list_jobs()
        assert job.result is not None
        assert (job.result.rejected_links, len(job.result.relation_ids)) == (1, 1)
        nodes, edges = graph(mem)
        assert edges == {(NEW, "refines", OLD)}
        assert ("memory", water, "valid") in nodes and invariant_violations(mem) == []


def test_fault_add_memory_link_between_two_stored_records_is_dropped(server: ModelServer) -> None:
    tea, green = "The user prefers tea.", "The user prefers green tea."

    def answer(body: dict[str, object]) -> str:
        prompt = prompt_of(body)
        return reply(links=[(ref_of(prompt, tea), ref_of(prompt, green), "supersedes")])

    server.add_rule(LINK_MARK, answer)
    with memory(server) as mem:
        mem.add_memory(tea, memory_id="tea", memory_type="preference", user_id="u")
        mem.add_memory(green, memory_id="green", memory_type="preference", user_id="u")
        mem.add_memory("The user likes Japanese tea.", user_id="u", autonomous_linking=True)
        assert mem.list_record_links() == []
        assert {m.id: m.status for m in mem.list_memories()}["green"] == "valid"
