"""Summary and topics: the LLM's rewrite every N messages, the fallback, get_summary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from graphmem import GraphMemory, HashingEmbedder, Llm, MemoryExtractionConfig, ModelError
from graphmem.testing import ModelServer
from graphmem.threads.summary import MAX_TOPICS, fallback_summary, summary_schema


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(dimension=16) as running:
        yield running


# These tests script every chat reply for the summary: no extraction jobs.
_NO_EXTRACTION = {"memory_extraction_config": MemoryExtractionConfig(extract_memories=False)}


def _llm(server: ModelServer) -> Llm:
    return Llm("test-chat", api_base=server.url, max_retries=0)


def _with_llm(server: ModelServer, handles: ExitStack) -> GraphMemory:
    """A store whose summaries are the server's LLM's, closed with ``handles``."""
    memory = GraphMemory(
        ":memory:", embedder=HashingEmbedder(dim=16), llm=_llm(server), **_NO_EXTRACTION
    )
    return handles.enter_context(memory)


def _reply(summary: str, topics: list[str]) -> str:
    return json.dumps({"summary": summary, "topics": topics})


def _say(*texts: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in texts]


def test_summary_written_by_llm_every_n_messages(server: ModelServer, handles: ExitStack) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t", context_summary_update_frequency=3)
    server.queue_replies(_reply("User plans dinner.", ["dinner", "Dinner", " friday "]))
    thread.add_messages(_say("one", "two"))
    assert thread.info().summary is None and server.requests_to("chat/completions") == []
    thread.add_messages(_say("three"))
    info = thread.info()
    assert (info.summary, info.topics, info.summarized_count) == (
        "User plans dinner.",
        ("dinner", "friday"),
        3,
    )
    (request,) = server.requests_to("chat/completions")
    prompt = request.body["messages"][-1]["content"]
    assert 'user: "one"\nuser: "two"\nuser: "three"' in prompt
    assert request.body["response_format"]["json_schema"]["schema"] == summary_schema()
    server.queue_replies(_reply("User plans a vegetarian dinner.", ["dinner"]))
    thread.add_messages(_say("four", "five", "six"))
    second = server.requests_to("chat/completions")[1].body["messages"][-1]["content"]
    assert '"User plans dinner."' in second and '"dinner", "friday"' in second
    assert 'user: "four"\nuser: "five"\nuser: "six"' in second and "three" not in second
    assert thread.info().summary == "User plans a vegetarian dinner."


def test_summary_default_frequency_is_once_per_add_messages(
    server: ModelServer, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t")
    server.queue_replies(_reply("a", []), _reply("b", []))
    thread.add_messages(_say("one", "two", "three"))
    thread.add_messages(_say("four"))
    assert len(server.requests_to("chat/completions")) == 2
    assert thread.info().summary == "b"


def test_summary_topics_are_capped_and_deduplicated(
    server: ModelServer, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t")
    topics = [f"topic {i % 10}" for i in range(20)]
    server.queue_replies(_reply("s", topics))
    thread.add_messages(_say("x"))
    assert thread.info().topics == tuple(f"topic {i}" for i in range(MAX_TOPICS))


def test_summary_without_llm_is_the_deterministic_fallback(handles: ExitStack) -> None:
    memory = handles.enter_context(GraphMemory(":memory:", embedder=HashingEmbedder(dim=16)))
    thread = memory.create_thread("t")
    thread.add_messages(_say("Vegetarian dinner on Friday?", "Dinner for four people"))
    expected = fallback_summary(
        [("user", "Vegetarian dinner on Friday?"), ("user", "Dinner for four people")]
    )
    info = thread.info()
    assert (info.summary, info.topics) == expected
    assert info.topics[0] == "dinner"


def test_summary_disabled_keeps_the_fallback_even_with_llm(
    server: ModelServer, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t", enable_context_summary=False)
    thread.add_messages(_say("tea please"))
    assert server.requests_to("chat/completions") == []
    assert thread.info().summary == "user: tea please"


def test_summary_llm_failure_warns_keeps_messages_and_retries(
    server: ModelServer, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t")
    server.queue_replies("not json")
    with pytest.warns(RuntimeWarning, match="summary was not updated"):
        thread.add_messages(_say("first"))
    info = thread.info()
    assert (info.summary, info.summarized_count, info.message_count) == (None, 0, 1)
    server.queue_replies(_reply("covers both", ["x"]))
    thread.add_messages(_say("second"))
    prompt = server.requests_to("chat/completions")[-1].body["messages"][-1]["content"]
    assert 'user: "first"\nuser: "second"' in prompt
    assert thread.info().summary == "covers both"


def test_get_summary_uses_the_stored_one_when_it_covers_the_messages(handles: ExitStack) -> None:
    memory = handles.enter_context(GraphMemory(":memory:", embedder=HashingEmbedder(dim=16)))
    thread = memory.create_thread("t")
    thread.add_messages(_say("alpha", "beta", "gamma"))
    assert thread.get_summary() == thread.info().summary
    assert thread.get_summary(except_last=1) == "user: alpha\nuser: beta"
    assert thread.get_summary(except_last=3) == ""
    assert thread.get_summary(token_budget=3) == "user:..."


def test_get_summary_except_last_with_llm_summarizes_only_those(
    server: ModelServer, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t", context_summary_update_frequency=10)
    thread.add_messages(_say("alpha", "beta", "gamma"))
    server.queue_replies(_reply("alpha and beta", []))
    assert thread.get_summary(except_last=1) == "alpha and beta"
    prompt = server.requests_to("chat/completions")[-1].body["messages"][-1]["content"]
    assert 'user: "alpha"\nuser: "beta"' in prompt and "gamma" not in prompt
    assert thread.info().summary is None  # a view: nothing stored


def test_get_summary_llm_failure_is_a_model_error(server: ModelServer, handles: ExitStack) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t", context_summary_update_frequency=10)
    thread.add_messages(_say("alpha"))
    server.queue_replies(json.dumps({"topics": []}))
    with pytest.raises(ModelError, match="summary"):
        thread.get_summary()


def test_card_query_comes_from_summary_and_topics(server: ModelServer, handles: ExitStack) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t", user_id="u", agent_id="a")
    thread.add_memory("pizza margherita", memory_id="pizza")
    server.queue_replies(_reply("User wants pizza.", ["pizza"]))
    thread.add_messages(_say("what should I eat"))
    card = thread.get_context_card()
    assert card.summary == "User wants pizza." and card.topics == ("pizza",)
    assert card.relevant_records[0].id == "pizza"
    assert "<topic>pizza</topic>" in card.content


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "```\n{}\n```"])
def test_summary_reply_in_a_json_fence_is_read(
    server: ModelServer, fence: str, handles: ExitStack
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t")
    server.queue_replies(fence.replace("{}", _reply("The user wants tea.", ["tea"])))
    thread.add_messages(_say("I want tea."))
    info = thread.info()
    assert (info.summary, info.topics, info.summarized_count) == (
        "The user wants tea.",
        ("tea",),
        1,
    )


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps({"summary": "", "topics": ["x"]}),
        json.dumps({"summary": "   ", "topics": []}),
        json.dumps({"summary": "S2"}),
        json.dumps({"summary": "S3", "topics": [1, None]}),
        json.dumps({"summary": "S4", "topics": "tea"}),
        json.dumps({"summary": "S5", "topics": [], "notes": "extra"}),
    ],
)
def test_a_reply_outside_the_schema_keeps_the_summary_and_warns(
    server: ModelServer,
    reply: str,
    handles: ExitStack,
) -> None:
    memory = _with_llm(server, handles)
    thread = memory.create_thread("t")
    server.queue_replies(_reply("A good summary.", ["tea"]))
    thread.add_messages(_say("first"))
    server.queue_replies(reply)
    with pytest.warns(RuntimeWarning, match="summary was not updated"):
        thread.add_messages(_say("second"))
    info = thread.info()
    assert (info.summary, info.topics, info.summarized_count) == ("A good summary.", ("tea",), 1)
