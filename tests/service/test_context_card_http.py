"""The context card over HTTP takes the embedded call's parameters, and every
route refuses query parameters it does not take (they were silently ignored)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphmem.client import AgentMemoryClient, ApiArgumentError, ChatMessage

from .conftest import Served
from .inproc import Service


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service()
    service.session()
    for content, kind in [
        ("Ships to Oslo.", "fact"),
        ("Ships by sea.", "fact"),
        ("Always greet by name.", "guideline"),
    ]:
        body = {"content": content, "memory_type": kind, "session_id": "s"}
        assert service.call("POST", "/v1/memories", json=body).status_code == 201
    turn = {"user_content": "Where does my order ship?", "assistant_content": "Let me see."}
    block = {"messages": [turn], "async_processing": False}
    assert service.call("POST", "/v1/sessions/s/memory", json=block).status_code == 201
    yield service
    service.close()


def _types(answer: object) -> list[str]:
    body = answer.json()  # type: ignore[attr-defined]
    assert answer.status_code == 200, body  # type: ignore[attr-defined]
    return [r["record_type"] for r in body["relevant_records"]]


def test_card_minimums_and_fallback_count_over_http(svc: Service) -> None:
    path = "/v1/sessions/s/context_card"
    with_minimum = _types(
        svc.call("GET", path, params={
            "max_relevant_results": 2, "min_relevant_results_by_type": '{"guideline": 1}',
        })
    )  # fmt: skip
    assert "guideline" in with_minimum and len(with_minimum) == 2
    for params, named in [
        ({"fallback_message_count": 0}, "fallback_message_count"),
        ({"min_relevant_results_by_type": "[1]"}, "min_relevant_results_by_type"),
        ({"min_relevant_results_by_type": "{not json"}, "min_relevant_results_by_type"),
        ({"min_relevant_results_by_type": '{"note": 1}'}, "min_relevant_results_by_type"),
        ({"max_relevant_results": 5, "bogus": "1"}, "bogus"),
    ]:
        answer = svc.call("GET", path, params=params)
        body = answer.json()
        assert (answer.status_code, body["code"]) == (400, "INVALID_ARGUMENT"), params
        assert body["message"].startswith(named), body


@pytest.mark.parametrize(
    "path", ["/v1/users", "/v1/sessions", "/v1/prompts", "/v1/sessions/s/memory"]
)
def test_an_unknown_query_parameter_is_refused(svc: Service, path: str) -> None:
    answer = svc.call("GET", path, params={"limit": 5, "offest": 1})
    assert answer.status_code == 400
    assert answer.json()["message"].startswith("offest:")


def test_the_client_passes_the_card_options(served: Served) -> None:
    with AgentMemoryClient(served.url, served.admin_key) as client:
        client.create_user("card_u")
        session = client.create_session(user_id="card_u", session_id="card_s")
        client.add_record("Always answer in French.", "guideline", session_id="card_s")
        client.add_record("Lives in Lyon.", "fact", session_id="card_s")
        turn = ChatMessage(user_content="Where do I live?", assistant_content="Let me see.")
        session.add_memory(messages=[turn], async_processing=False)
        card = session.get_context_card(
            max_relevant_results=1, min_relevant_results_by_type={"guideline": 1}
        )
        assert [r.record_type for r in card.relevant_records] == ["guideline"]
        with pytest.raises(ApiArgumentError, match="fallback_message_count"):
            session.get_context_card(fallback_message_count=0)
