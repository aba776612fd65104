"""POST /v1/memories while its session or user is deleted: the record is embedded
outside the write, and the session or user is checked again inside it, so a scope
deleted meanwhile (or deleted and made again under the same id, maybe for another
user) is a 404 and nothing is written."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from graphmem.testing import Fault

from .conftest import Served

_DELAY = 1.5
"""Seconds the embedding of the record takes (the deletion happens meanwhile)."""


def _call(served: Served, method: str, path: str, **kwargs: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {served.admin_key}"}
    return httpx.request(method, served.url + path, headers=headers, timeout=60, **kwargs)


def _add_while(served: Served, body: dict[str, Any], meanwhile: Callable[[], None]) -> Any:
    """POST the record with a slow embedding; ``meanwhile`` runs once the embedder
    has the record's request (the route has checked the scope by then)."""
    before = len(served.models.requests_to("embeddings"))
    served.models.inject("embeddings", Fault(delay=_DELAY))
    answers: list[httpx.Response] = []
    post = threading.Thread(
        target=lambda: answers.append(_call(served, "POST", "/v1/memories", json=body))
    )
    post.start()
    deadline = time.monotonic() + 30
    while len(served.models.requests_to("embeddings")) == before:
        assert time.monotonic() < deadline, "the record was never embedded"
        time.sleep(0.01)
    meanwhile()
    post.join()
    assert not post.is_alive() and len(served.models.requests_to("embeddings")) == before + 1
    return answers[0]


def _stored(served: Served, content: str) -> list[tuple[str | None, str | None]]:
    """(user_id, thread_id) of the stored records that hold ``content``."""
    with sqlite3.connect(served.db, timeout=30) as conn:
        rows = conn.execute(
            "SELECT user_id, thread_id FROM graphmem_memory WHERE content = ?", (content,)
        ).fetchall()
    return [(r[0], r[1]) for r in rows]


def _user(served: Served, user_id: str) -> None:
    assert _call(served, "POST", "/v1/users", json={"user_id": user_id}).status_code == 201


def _session(served: Served, user_id: str, session_id: str) -> None:
    body = {"user_id": user_id, "session_id": session_id}
    assert _call(served, "POST", "/v1/sessions", json=body).status_code == 201


def _deleted(served: Served, path: str) -> Callable[[], None]:
    return lambda: _call(served, "DELETE", path).raise_for_status()


@pytest.mark.parametrize("made_again", [False, True])
def test_a_session_deleted_while_its_record_is_embedded_gets_nothing(
    served: Served, made_again: bool
) -> None:
    first, session = f"owner-{made_again}", f"s-{made_again}"
    _user(served, first)
    _user(served, f"other-{made_again}")
    _session(served, first, session)
    content = f"The user's home is 1 Main St ({made_again})."

    def meanwhile() -> None:
        _deleted(served, f"/v1/sessions/{session}")()
        if made_again:  # the same session id, now another user's
            _session(served, f"other-{made_again}", session)

    body = {"content": content, "memory_type": "fact", "session_id": session}
    answer = _add_while(served, body, meanwhile)
    assert answer.status_code == 404, answer.text
    assert answer.json()["message"] == f"session_id: no session {session!r}"
    assert _stored(served, content) == []
    if made_again:
        found = _call(served, "POST", "/v1/search", json={"query": content, "session_id": session})
        assert found.status_code == 200 and found.json()["results"] == []


@pytest.mark.parametrize("made_again", [False, True])
def test_a_user_deleted_while_their_record_is_embedded_gets_nothing(
    served: Served, made_again: bool
) -> None:
    user = f"leaving-{made_again}"
    _user(served, user)
    content = f"{user}'s card number is 4111 1111 1111 1111."

    def meanwhile() -> None:
        _deleted(served, f"/v1/users/{user}")()
        if made_again:
            _user(served, user)

    body = {"content": content, "memory_type": "fact", "user_id": user}
    answer = _add_while(served, body, meanwhile)
    assert answer.status_code == 404, answer.text
    assert answer.json()["message"] == f"user_id: no user {user!r}"
    assert _stored(served, content) == []


def test_a_record_of_a_user_or_session_that_stays_is_written(served: Served) -> None:
    _user(served, "staying")
    _session(served, "staying", "s-staying")
    for scope in ({"user_id": "staying"}, {"session_id": "s-staying"}):
        content = f"Stays: {sorted(scope)}."
        answer = _add_while(served, {"content": content, **scope}, lambda: None)
        assert answer.status_code == 201, answer.text
        thread = scope.get("session_id")
        assert _stored(served, content) == [("staying", thread)]
