"""A model server's failure, as the service's callers see it: the error names the
operation and what the model server said, never the model server's address."""

from __future__ import annotations

import time

import httpx

from .conftest import Served


def _headers(served: Served) -> dict[str, str]:
    return {"Authorization": f"Bearer {served.admin_key}"}


def test_a_failed_embedding_answers_502_without_the_model_servers_address(
    served: Served,
) -> None:
    served.models.fail("embeddings", 400, "the input is too long")
    answer = httpx.post(
        served.url + "/v1/search", json={"query": "pizza"}, headers=_headers(served), timeout=30
    )
    assert answer.status_code == 502
    body = answer.json()
    assert body["code"] == "MODEL_ERROR"
    assert "the input is too long" in body["message"]
    assert "the model server" in body["message"]
    assert served.models.url not in body["message"]
    assert "127.0.0.1" not in body["message"]
    # The server's own log keeps the address, for its operator.
    deadline = time.monotonic() + 10
    while served.models.url not in served.db.with_suffix(".log").read_text():
        assert time.monotonic() < deadline, "the failure was not logged"
        time.sleep(0.1)


def test_a_failed_block_records_its_error_without_the_model_servers_address(
    served: Served,
) -> None:
    headers = _headers(served)
    assert httpx.post(
        served.url + "/v1/users", json={"user_id": "faulty"}, headers=headers
    ).status_code in (201, 409)
    session = {"user_id": "faulty", "session_id": "faulty-s"}
    assert httpx.post(served.url + "/v1/sessions", json=session, headers=headers).status_code == 201
    served.models.fail("chat/completions", 400, "the prompt is refused")
    answer = httpx.post(
        served.url + "/v1/sessions/faulty-s/memory",
        json={"facts": ["Order #7 is late."], "async_processing": False},
        headers=headers,
        timeout=60,
    )
    block = answer.json()
    assert block["status"] == "failed", block
    assert "the prompt is refused" in block["error"]
    assert served.models.url not in block["error"]
