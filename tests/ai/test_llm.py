"""graphmem.Llm over /chat/completions, through ModelServer."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pydantic import BaseModel

from graphmem import Llm, LlmProtocol, ModelError
from graphmem.errors import InvalidArgumentError
from graphmem.testing import ModelServer


class Answer(BaseModel):
    city: str
    confidence: float


GOOD = json.dumps({"city": "Denver", "confidence": 0.9})


def _llm(server: ModelServer, **kwargs: object) -> Llm:
    options: dict[str, object] = {"api_base": server.url, "max_retries": 1, **kwargs}
    return Llm("test-chat", **options)  # type: ignore[arg-type]


def test_llm_chat_returns_queued_reply(server: ModelServer) -> None:
    server.queue_replies("first", "second")
    llm = _llm(server)
    assert [llm.chat("hi"), llm.chat("again")] == ["first", "second"]


def test_llm_chat_request_shape(server: ModelServer) -> None:
    server.queue_replies("ok")
    _llm(server, temperature=0.3, max_tokens=50, api_key="sk-x").chat(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
    )
    (request,) = server.requests_to("chat/completions")
    assert request.body == {
        "model": "test-chat",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hello"},
        ],
        "temperature": 0.3,
        "max_tokens": 50,
    }
    assert request.headers["authorization"] == "Bearer sk-x"


def test_llm_chat_rule_reply(server: ModelServer) -> None:
    server.add_rule("weather", "sunny")
    server.add_rule(lambda body: body["model"] == "test-chat", "fallback rule")
    llm = _llm(server)
    assert llm.chat("how is the weather?") == "sunny"
    assert llm.chat("anything else") == "fallback rule"


def test_llm_chat_no_scripted_reply_is_model_error(server: ModelServer) -> None:
    with pytest.raises(ModelError) as caught:
        _llm(server).chat("hi")
    assert caught.value.status == 400
    assert "no scripted chat reply" in caught.value.provider_message


def test_llm_chat_retries_429(server: ModelServer) -> None:
    server.fail("chat/completions", 429, "rate limited")
    server.queue_replies("after retry")
    assert _llm(server).chat("hi") == "after retry"
    assert len(server.requests_to("chat/completions")) == 2


def test_llm_chat_malformed_answer(server: ModelServer) -> None:
    server.send_malformed("chat/completions")
    with pytest.raises(ModelError, match="not JSON"):
        _llm(server).chat("hi")


def test_llm_structured_uses_json_schema(server: ModelServer) -> None:
    server.queue_replies(GOOD)
    answer = _llm(server).structured("Where did they move?", Answer)
    assert answer == Answer(city="Denver", confidence=0.9)
    (request,) = server.requests_to("chat/completions")
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"] == Answer.model_json_schema()


def test_llm_structured_accepts_fenced_json(server: ModelServer) -> None:
    server.queue_replies(f"```json\n{GOOD}\n```")
    assert _llm(server).structured("q", Answer).city == "Denver"


def test_llm_another_400_fails_the_call_and_keeps_json_schema(server: ModelServer) -> None:
    """A 400 that is not about the schema (the context length, say) is that call's
    failure: later calls still ask for json_schema."""
    server.add_rule(lambda body: True, GOOD)
    server.fail("chat/completions", 400, "This model's maximum context length is 8192 tokens")
    llm = _llm(server)
    with pytest.raises(ModelError, match="maximum context length"):
        llm.structured("too long", Answer)
    assert llm.structured("q", Answer).city == "Denver"
    kinds = [r.body["response_format"]["type"] for r in server.requests_to("chat/completions")]
    assert kinds == ["json_schema", "json_schema"]


def test_llm_structured_falls_back_to_json_mode() -> None:
    with ModelServer(json_schema=False) as server:
        server.add_rule(lambda body: True, GOOD)
        llm = _llm(server)
        assert llm.structured("q", Answer).city == "Denver"
        first, second = server.requests_to("chat/completions")
        assert first.body["response_format"]["type"] == "json_schema"
        assert second.body["response_format"] == {"type": "json_object"}
        system = second.body["messages"][0]
        assert system["role"] == "system" and '"confidence"' in system["content"]
        llm.structured("again", Answer)  # remembered: straight to JSON mode
        third = server.requests_to("chat/completions")[2]
        assert third.body["response_format"] == {"type": "json_object"}
        assert len(server.requests_to("chat/completions")) == 3


def test_llm_structured_repairs_once(server: ModelServer) -> None:
    server.queue_replies('{"city": "Denver"}', GOOD)
    assert _llm(server).structured("q", Answer).confidence == 0.9
    _, repair = server.requests_to("chat/completions")
    assert repair.body["messages"][-2] == {"role": "assistant", "content": '{"city": "Denver"}'}
    assert "confidence" in repair.body["messages"][-1]["content"]


def test_llm_structured_repair_fails(server: ModelServer) -> None:
    server.queue_replies("not json at all", '{"city": 5}')
    with pytest.raises(ModelError, match="does not match Answer after one repair"):
        _llm(server).structured("q", Answer)
    assert len(server.requests_to("chat/completions")) == 2


def test_llm_async_calls(server: ModelServer) -> None:
    server.queue_replies("plain", GOOD)
    llm = _llm(server)

    async def both() -> tuple[str, Answer]:
        return await llm.achat("hi"), await llm.astructured("q", Answer)

    text, answer = asyncio.run(both())
    assert text == "plain" and answer.city == "Denver"


def test_llm_sync_concurrency_limit(server: ModelServer) -> None:
    server.add_rule(lambda body: True, "ok")
    server.stall("chat/completions", 0.3, times=6)
    llm = _llm(server, max_concurrent_requests=2)
    threads = [threading.Thread(target=llm.chat, args=("hi",)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(server.requests_to("chat/completions")) == 6
    assert server.peak_in_flight == 2


def test_llm_async_concurrency_limit(server: ModelServer) -> None:
    server.add_rule(lambda body: True, "ok")
    server.stall("chat/completions", 0.3, times=6)
    llm = _llm(server, max_concurrent_requests=3)

    async def many() -> list[str]:
        return list(await asyncio.gather(*(llm.achat("hi") for _ in range(6))))

    assert asyncio.run(many()) == ["ok"] * 6
    assert server.peak_in_flight == 3


def test_llm_satisfies_protocol(server: ModelServer) -> None:
    assert isinstance(_llm(server), LlmProtocol)


def test_llm_repr_hides_key() -> None:
    assert "sk-hidden" not in repr(Llm("m", api_key="sk-hidden"))


@pytest.mark.parametrize(
    ("argument", "kwargs"),
    [
        ("temperature", {"temperature": 3}),
        ("max_tokens", {"max_tokens": 0}),
        ("max_concurrent_requests", {"max_concurrent_requests": 0}),
        ("api_base", {"api_base": "localhost:8000"}),
    ],
)
def test_llm_bad_arguments(argument: str, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Llm("m", **kwargs)  # type: ignore[arg-type]
    assert caught.value.argument == argument


@pytest.mark.parametrize("messages", [[], [{"role": "robot", "content": "x"}], [{"role": "user"}]])
def test_llm_bad_messages(server: ModelServer, messages: object) -> None:
    with pytest.raises(InvalidArgumentError, match="messages"):
        _llm(server).chat(messages)  # type: ignore[arg-type]
    assert server.requests == []


class _RefusingTogether(ModelServer):
    """Refuses json_schema only once ``together`` such requests are in flight at once,
    so every one of them is refused while the others are still waiting."""

    def __init__(self, together: int) -> None:
        super().__init__(json_schema=False)
        self._barrier = threading.Barrier(together, timeout=30)

    def _chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            self._barrier.wait()
        return super()._chat(body)


def test_llm_concurrent_calls_all_fall_back_to_json_mode() -> None:
    with _RefusingTogether(4) as server:
        server.add_rule(lambda body: True, GOOD)
        llm = _llm(server, max_retries=0)
        with ThreadPoolExecutor(4) as pool:
            futures = [pool.submit(llm.structured, "q", Answer) for _ in range(4)]
            assert [f.result().city for f in futures] == ["Denver"] * 4
        kinds = [r.body["response_format"]["type"] for r in server.requests_to("chat/completions")]
    assert sorted(kinds) == ["json_object"] * 4 + ["json_schema"] * 4


def test_llm_concurrent_async_calls_all_fall_back_to_json_mode() -> None:
    with _RefusingTogether(4) as server:
        server.add_rule(lambda body: True, GOOD)
        llm = _llm(server, max_retries=0)

        async def many() -> list[Answer]:
            return list(await asyncio.gather(*(llm.astructured("q", Answer) for _ in range(4))))

        assert [a.city for a in asyncio.run(many())] == ["Denver"] * 4
