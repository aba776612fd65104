"""Ids and scopes over HTTP: ids that could never be used in a URL path are refused,
blank ids too, a record of a session takes the session's user and agent, errors
under session routes name the session, and a block's errors name the body's field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from graphmem.client import ApiArgumentError
from graphmem.client.errors import error_from_response

from .inproc import Service


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service()
    service.session(user_id="u", session_id="s")
    yield service
    service.close()


def _refused(answer: object, status: int, code: str, argument: str) -> None:
    body = answer.json()  # type: ignore[attr-defined]
    assert (answer.status_code, body["code"]) == (status, code), body  # type: ignore[attr-defined]
    assert body["message"].startswith(f"{argument}"), body


@pytest.mark.parametrize(
    ("path", "body", "argument"),
    [
        ("/v1/users", {"user_id": "a/b"}, "user_id"),
        ("/v1/sessions", {"user_id": "u", "session_id": "s/1"}, "session_id"),
        ("/v1/memories", {"content": "x", "memory_id": "m/1"}, "memory_id"),
        ("/v1/users", {"user_id": "  "}, "user_id"),
        ("/v1/sessions", {"user_id": "u", "session_id": " "}, "session_id"),
        ("/v1/memories", {"content": "x", "memory_id": "\t"}, "memory_id"),
        ("/v1/users", {"user_id": "."}, "user_id"),
        ("/v1/sessions", {"user_id": "u", "session_id": ".."}, "session_id"),
        ("/v1/memories", {"content": "x", "memory_id": ".."}, "memory_id"),
    ],
)
def test_ids_a_path_could_not_carry_are_refused(
    svc: Service, path: str, body: dict[str, object], argument: str
) -> None:
    before = svc.memory.list_memories()
    _refused(svc.call("POST", path, json=body), 400, "INVALID_ARGUMENT", argument)
    assert svc.memory.list_memories() == before
    assert [u.id for u in svc.memory.list_users()] == ["u"]
    assert [t.thread_id for t in svc.memory.list_threads()] == ["s"]


def test_a_record_of_a_session_takes_its_user_and_agent(svc: Service) -> None:
    created = svc.call("POST", "/v1/memories", json={"content": "Tea.", "session_id": "s"})
    assert created.status_code == 201, created.text
    record = svc.memory.get_memory(created.json()["id"])
    assert (record.user_id, record.thread_id) == ("u", "s")
    same = {"content": "Milk.", "session_id": "s", "user_id": "u"}
    assert svc.call("POST", "/v1/memories", json=same).status_code == 201


def test_a_record_must_name_a_known_session_and_user(svc: Service) -> None:
    assert svc.call("POST", "/v1/users", json={"user_id": "v"}).status_code == 201
    cases = [
        ({"session_id": "nope"}, 404, "NOT_FOUND", "session_id: no session 'nope'"),
        ({"user_id": "nobody"}, 404, "NOT_FOUND", "user_id: no user 'nobody'"),
        ({"session_id": "s", "user_id": "v"}, 400, "INVALID_ARGUMENT", "user_id: session 's'"),
        ({"session_id": "s", "agent_id": "a"}, 400, "INVALID_ARGUMENT", "agent_id: session"),
    ]
    for extra, status, code, start in cases:
        answer = svc.call("POST", "/v1/memories", json={"content": "x", **extra})
        _refused(answer, status, code, start)
    assert svc.memory.list_memories() == []


def test_errors_under_session_routes_name_the_session(svc: Service) -> None:
    for method, path in (
        ("GET", "/v1/sessions/nope"),
        ("DELETE", "/v1/sessions/nope"),
        ("GET", "/v1/sessions/nope/messages"),
        ("GET", "/v1/sessions/nope/context_card"),
    ):
        _refused(svc.call(method, path), 404, "NOT_FOUND", "session_id: no session 'nope'")
    too_long = {"user_id": "u", "session_id": "x" * 129}
    _refused(svc.call("POST", "/v1/sessions", json=too_long), 400, "INVALID_ARGUMENT", "session_id")
    again = {"user_id": "u", "session_id": "s"}
    _refused(
        svc.call("POST", "/v1/sessions", json=again),
        409,
        "CONFLICT",
        "session_id: a session 's' exists already",
    )


@pytest.mark.parametrize(
    ("turns", "named"),
    [
        ([{"user_content": "hi", "assistant_content": "x" * 100_001}],
         "messages[0].assistant_content: must be at most 100000 characters"),
        ([{"user_content": "a"}, {"user_content": "b", "assistant_content": "  "}],
         "messages[1].assistant_content: must contain some text"),
        ([{"assistant_content": "a"}, {"user_content": " "}],
         "messages[1].user_content: must contain some text"),
        ([{"user_content": "a\ud800"}], "messages[0].user_content: is not valid Unicode"),
        ([{"user_content": "a"}, {}], "messages[1]: give user_content and/or"),
    ],
)  # fmt: skip
def test_a_block_error_names_the_turn_and_field_of_the_body(
    svc: Service, turns: list[dict[str, str]], named: str
) -> None:
    block = {"messages": turns, "facts": ["Ships Friday."], "async_processing": False}
    body = json.dumps(block).encode()  # ASCII: a lone surrogate travels escaped
    headers = {**svc.headers(), "content-type": "application/json"}
    answer = svc.http.post("/v1/sessions/s/memory", content=body, headers=headers)
    _refused(answer, 400, "INVALID_ARGUMENT", named)
    assert svc.memory.get_thread("s").get_messages() == []
    assert svc.memory.list_memories() == []


@pytest.mark.parametrize(
    ("block", "named"),
    [
        ({"messages": [{"user_content": 5}]}, "messages[0].user_content: "),
        ({"messages": [{"user_content": "a"}, {"user_content": "b", "role": "system"}]},
         "messages[1].role: unknown field"),
        ({"messages": [{"user_content": "a"}, 7]}, "messages[1]: "),
        ({"facts": ["a", "b", 3]}, "facts[2]: "),
        ({"facts": ["a"], "async_processing": "no"}, "async_processing: "),
    ],
)  # fmt: skip
def test_a_body_of_the_wrong_shape_names_its_field_as_the_library_does(
    svc: Service, block: dict[str, Any], named: str
) -> None:
    answer = svc.call("POST", "/v1/sessions/s/memory", json=block)
    _refused(answer, 400, "INVALID_ARGUMENT", named)
    refused = error_from_response(answer.status_code, answer.json())
    assert isinstance(refused, ApiArgumentError)
    assert refused.argument == named.split(":")[0]
    assert svc.memory.get_thread("s").get_messages() == []


def test_link_errors_name_the_body_fields(svc: Service) -> None:
    made = svc.call("POST", "/v1/memories", json={"content": "Tea.", "memory_id": "a"})
    assert made.status_code == 201
    link = {"source_id": "a", "source_type": "memory", "target_id": "nope",
            "target_type": "memory", "relation_type": "supports"}  # fmt: skip
    _refused(svc.call("POST", "/v1/links", json=link), 404, "NOT_FOUND", "target_id: ")
    made = svc.call("POST", "/v1/memories", json={"content": "Milk.", "memory_id": "b"})
    assert made.status_code == 201
    wrong = {**link, "target_id": "b", "source_type": "fact"}  # a is a memory
    _refused(svc.call("POST", "/v1/links", json=wrong), 400, "INVALID_ARGUMENT", "source_type: ")
    blank = {**link, "source_id": " "}
    _refused(svc.call("POST", "/v1/links", json=blank), 400, "INVALID_ARGUMENT", "source_id: ")
    search = {"query": "tea", "session_id": " "}
    _refused(svc.call("POST", "/v1/search", json=search), 400, "INVALID_ARGUMENT", "session_id: ")


def test_a_search_in_an_unknown_session_is_not_found(svc: Service) -> None:
    answer = svc.call("POST", "/v1/search", json={"query": "x", "session_id": "nope"})
    _refused(answer, 404, "NOT_FOUND", "session_id")
    known = svc.call("POST", "/v1/search", json={"query": "x", "session_id": "s"})
    assert known.status_code == 200 and known.json()["count"] == 0
