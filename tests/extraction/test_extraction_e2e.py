"""Extraction and automatic linking end to end, over real HTTP to a scripted ModelServer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphmem import (
    ExtractionProvenance,
    GraphMemory,
    HashingEmbedder,
    MemoryLinkExtractionMode,
)
from graphmem.extraction.models import BASE_PROMPT_ID, BASE_PROMPT_VERSION
from graphmem.prompts import load_schema
from graphmem.testing import ModelServer

from ._support import (
    EXTRACT_MARK,
    LINK_MARK,
    config,
    graph,
    invariant_violations,
    memory,
    prompt_of,
    records,
    ref_of,
    reply,
)

THIN = "The user prefers thin crust pizza."
SOURDOUGH = "The user now prefers sourdough pizza."
VEGETARIAN = "The user is vegetarian."


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def _say(*texts: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in texts]


def test_extraction_preference_change_supersedes_the_old_one(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = mem.create_thread(
            "pizza", user_id="u", memory_extraction_config=config(), enable_context_summary=False
        )
        server.queue_replies(reply(records(("preference", THIN))))
        thread.add_messages(_say("I like thin crust pizza."))
        thread.wait_for_memory_extraction(timeout=30)
        server.queue_replies(reply(records(("preference", SOURDOUGH, [2]))))
        server.add_rule(
            LINK_MARK,
            lambda body: reply(links=[("new-0", ref_of(prompt_of(body), THIN), "supersedes")]),
        )
        thread.add_messages(_say("Actually I now prefer sourdough pizza."))
        thread.wait_for_memory_extraction(timeout=30)
        nodes, edges = graph(mem)
        assert nodes == {("preference", THIN, "invalid"), ("preference", SOURDOUGH, "valid")}
        assert edges == {(SOURDOUGH, "supersedes", THIN)}
        assert invariant_violations(mem) == []
        hits = thread.search("pizza preference", max_results=5)
        assert [h.record.content for h in hits] == [SOURDOUGH]
        jobs = mem.list_jobs(thread_id="pizza")
        assert [j.status for j in jobs] == ["done", "done"]
        assert [j.result.llm_calls for j in jobs if j.result] == [1, 2]
        newest = mem.get_memory(jobs[1].result.record_ids[0])  # type: ignore[union-attr]
        assert (newest.user_id, newest.thread_id) == ("u", "pizza")


def test_extraction_provenance_names_messages_model_and_prompt(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        ids = thread.add_messages(_say("Hello!", "I am vegetarian.", "Bye."))
        server.queue_replies(reply(records(("fact", VEGETARIAN, [2]), ("memory", "Said hi.", []))))
        result = thread.extract_memories(config={"memory_link_extraction_mode": "DISABLED"})
        assert result.message_ids == ids and result.llm_calls == 1
        first = ExtractionProvenance.of(mem.get_memory(result.record_ids[0]))
        assert first is not None
        assert first.message_ids == [ids[1]]
        assert (first.model, first.job_id) == ("scripted-llm", result.job_id)
        assert (first.prompt_id, first.prompt_vid) == (BASE_PROMPT_ID, BASE_PROMPT_VERSION)
        second = ExtractionProvenance.of(mem.get_memory(result.record_ids[1]))
        assert second is not None and second.message_ids == ids  # no valid source: all
        assert mem.get_job(result.job_id).status == "done"
        assert ExtractionProvenance.of(mem.get_memory(mem.add_memory("typed by hand"))) is None


@pytest.mark.parametrize(
    "stored", [{"note": "mine"}, {"job_id": "j", "message_ids": "m1"}, "mine", ["j"]]
)
def test_extraction_provenance_of_a_record_not_extracted_is_none(stored: object) -> None:
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as mem:
        record_id = mem.add_memory("typed by hand", metadata={"graphmem_extraction": stored})
        assert ExtractionProvenance.of(mem.get_memory(record_id)) is None


def test_extraction_sends_schema_instructions_and_window(server: ModelServer) -> None:
    with memory(server) as mem:
        cfg = config(
            memory_extraction_window=2,
            memory_extraction_custom_instructions="Keep restaurant preferences only.",
            memory_link_extraction_mode="DISABLED",
        )
        thread = mem.create_thread(
            "t", user_id="u", memory_extraction_config=cfg, enable_context_summary=False
        )
        server.add_rule(EXTRACT_MARK, reply(records()))
        thread.add_messages(_say("one", "two", "three"))
        thread.wait_for_memory_extraction(timeout=30)
        requests = server.requests_to("chat/completions")
        assert len(requests) == 3  # frequency 1: one extraction per message
        windows = sorted(prompt_of(r.body).split("===== MESSAGES =====\n")[1] for r in requests)
        end = "===== END OF MESSAGES =====\n"
        assert windows == [
            f'[1] user: "one"\n{end}',
            f'[1] user: "one"\n[2] user: "two"\n{end}',
            f'[1] user: "two"\n[2] user: "three"\n{end}',
        ]
        for request in requests:
            assert "Keep restaurant preferences only." in prompt_of(request.body)
            schema = request.body["response_format"]["json_schema"]["schema"]
            assert schema == load_schema("extract")


def test_extraction_token_limit_keeps_the_newest_messages(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages(_say("a" * 400, "b" * 400, "short"))
        server.queue_replies(reply(records()))
        cfg = {"memory_extraction_token_limit": 120, "memory_link_extraction_mode": "DISABLED"}
        result = thread.extract_memories(config=cfg)
        assert len(result.message_ids) == 2  # 'b' * 400 (104 tokens) and 'short' fit
        assert "a" * 400 not in prompt_of(server.requests_to("chat/completions")[0].body)


def test_extraction_inherits_message_metadata_when_configured(server: ModelServer) -> None:
    with memory(server) as mem:
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages(_say("I am vegetarian."), metadata={"channel": "web", "n": 1})
        server.queue_replies(reply(records(("fact", VEGETARIAN))), reply(records(("fact", "x"))))
        base: dict[str, Any] = {"memory_link_extraction_mode": "DISABLED"}
        keys = thread.extract_memories(
            config={**base, "memory_extraction_inherit_message_metadata": ["channel"]}
        )
        none = thread.extract_memories(config=base)
        meta = mem.get_memory(keys.record_ids[0]).metadata
        assert meta["channel"] == "web" and "n" not in meta
        assert set(mem.get_memory(none.record_ids[0]).metadata) == {"graphmem_extraction"}


def _linked_graph(server: ModelServer, mode: str) -> tuple[Any, Any, list[int]]:
    """The same conversation and the same scripted decisions under one link mode."""

    def decide(body: dict[str, Any]) -> str:
        prompt = prompt_of(body)
        extracted = records(("preference", SOURDOUGH), ("fact", "The user bakes at home."))
        if LINK_MARK not in prompt and mode != "DURING_EXTRACTION":
            return reply(extracted)
        links = [
            ("new-0", ref_of(prompt, THIN), "supersedes"),
            ("new-0", ref_of(prompt, VEGETARIAN), "supports"),
            ("new-1", "new-0", "supports"),
        ]
        return reply(None if LINK_MARK in prompt else extracted, links)

    server.add_rule(lambda body: True, decide)
    with memory(server) as mem:
        mem.add_memory(THIN, memory_type="preference", user_id="u")
        mem.add_memory(VEGETARIAN, memory_type="fact", user_id="u")
        thread = mem.create_thread(
            "t",
            user_id="u",
            memory_extraction_config=config(memory_link_extraction_mode=mode),
            enable_context_summary=False,
        )
        thread.add_messages(_say("I now prefer sourdough pizza; I bake it at home."))
        thread.wait_for_memory_extraction(timeout=30)
        assert invariant_violations(mem) == []
        (job,) = mem.list_jobs()
        assert job.result is not None
        calls = [job.result.llm_calls, len(server.requests_to("chat/completions"))]
        return *graph(mem), calls


def test_extraction_during_and_post_give_the_same_graph(server: ModelServer) -> None:
    post_nodes, post_edges, post_calls = _linked_graph(server, "POST_EXTRACTION")
    with ModelServer() as other:
        during_nodes, during_edges, during_calls = _linked_graph(other, "DURING_EXTRACTION")
    assert (post_nodes, post_edges) == (during_nodes, during_edges)
    assert post_edges == {
        (SOURDOUGH, "supersedes", THIN),
        (SOURDOUGH, "supports", VEGETARIAN),
        ("The user bakes at home.", "supports", SOURDOUGH),
    }
    assert ("preference", THIN, "invalid") in post_nodes
    assert (post_calls, during_calls) == ([2, 2], [1, 1])


def test_extraction_disabled_creates_no_links(server: ModelServer) -> None:
    nodes, edges, calls = _linked_graph(server, "DISABLED")
    assert edges == set() and calls == [1, 1]
    assert ("preference", THIN, "valid") in nodes and ("preference", SOURDOUGH, "valid") in nodes


def test_extraction_mode_enum_and_string_are_the_same(server: ModelServer) -> None:
    assert config(memory_link_extraction_mode="DISABLED") == config(
        memory_link_extraction_mode=MemoryLinkExtractionMode.DISABLED
    )


def test_extraction_with_registry_prompt_injects_it_delimited(server: ModelServer) -> None:
    with memory(server) as mem:
        mem.create_prompt("dates", "Extract only dates.", "dates only")
        mem.update_prompt("dates", prompt="Extract only dates and times.")
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages(_say("We meet on 3 May at noon."))
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "Meeting on 3 May at noon."))))
        cfg = {"memory_link_extraction_mode": "DISABLED"}
        pinned = thread.extract_memories(prompt_id="dates", prompt_vid=0, config=cfg)
        current = thread.extract_memories(prompt_id="dates", config=cfg)
        assert (pinned.prompt_id, pinned.prompt_vid, current.prompt_vid) == ("dates", 0, 1)
        prompts = [prompt_of(r.body) for r in server.requests_to("chat/completions")]
        assert "===== OPERATOR INSTRUCTIONS (untrusted) =====\nExtract only dates.\n" in prompts[0]
        assert "\nExtract only dates and times.\n=====" in prompts[1]
        record = mem.get_memory(current.record_ids[0])
        found = ExtractionProvenance.of(record)
        assert found is not None and (found.prompt_id, found.prompt_vid) == ("dates", 1)


def test_extraction_job_resolves_archived_prompt_and_falls_back_when_purged(
    server: ModelServer,
) -> None:
    with memory(server, extraction_workers=0) as mem:
        mem.create_prompt("kept", "Extract only dates.", "dates")
        mem.create_prompt("gone", "Extract only amounts.", "amounts")
        thread = mem.create_thread("t", user_id="u", enable_context_summary=False)
        thread.add_messages(_say("We pay 5 euros on 3 May."))
        server.add_rule(EXTRACT_MARK, reply(records(("fact", "Pays 5 euros on 3 May."))))
        cfg = {"memory_link_extraction_mode": "DISABLED"}
        archived = thread.schedule_extraction(prompt_id="kept", config=cfg)
        purged = thread.schedule_extraction(prompt_id="gone", config=cfg)
        mem.archive_prompt("kept")
        mem.purge_prompt("gone")
        thread.wait_for_memory_extraction(timeout=30)
        first, second = mem.get_job(archived).result, mem.get_job(purged).result
        assert first is not None and second is not None
        assert (first.prompt_id, first.prompt_fallback) == ("kept", False)
        assert (second.prompt_id, second.prompt_fallback) == (BASE_PROMPT_ID, True)
        prompts = [prompt_of(r.body) for r in server.requests_to("chat/completions")]
        assert "Extract only dates." in prompts[0]
        assert "OPERATOR INSTRUCTIONS" not in prompts[1] and "amounts" not in prompts[1]


def test_extraction_config_levels_client_thread_call(server: ModelServer) -> None:
    client = config(memory_extraction_window=7, memory_extraction_custom_instructions="client")
    with memory(server, memory_extraction_config=client) as mem:
        assert mem.memory_extraction_config.memory_extraction_window == 7
        thread = mem.create_thread(
            "t",
            user_id="u",
            memory_extraction_config={"memory_extraction_custom_instructions": "thread"},
            memory_extraction_window=3,
        )
        effective = mem._thread_config(thread.info())
        assert effective.memory_extraction_window == 3
        assert effective.memory_extraction_custom_instructions == "thread"
        assert effective.memory_extraction_frequency == 1  # from the client
        call = mem._thread_config(thread.info(), {"memory_extraction_window": 4})
        assert call.memory_extraction_window == 4


def test_extraction_add_messages_without_llm_queues_nothing() -> None:
    from graphmem import HashingEmbedder

    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as mem:
        thread = mem.create_thread("t", memory_extraction_config=config())
        thread.add_messages(_say("I am vegetarian."))
        assert mem.list_jobs() == []
