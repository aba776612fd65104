"""Over HTTP (a ``graphmem serve`` on 127.0.0.1): a user's information or a prompt's
description holding a lone surrogate (``\\ud800`` in the JSON) is a 400 naming the
field, and nothing is stored."""

from __future__ import annotations

import json

import httpx

from .conftest import Served

LONE = "hi \ud800"


def _send(
    served: Served, method: str, path: str, body: dict[str, object] | None = None
) -> httpx.Response:
    """``body`` as ASCII JSON: the surrogate travels as an escape, as any client may send it."""
    headers = {
        "Authorization": f"Bearer {served.admin_key}",
        "Content-Type": "application/json",
    }
    content = None if body is None else json.dumps(body).encode("ascii")
    return httpx.request(method, served.url + path, content=content, headers=headers)


def _refused(answer: httpx.Response, argument: str) -> None:
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert (body["code"], body["status"]) == ("INVALID_ARGUMENT", 400)
    assert body["message"].startswith(f"{argument}: is not valid Unicode text"), body


def test_user_information_that_is_not_unicode_text_is_a_400(served: Served) -> None:
    _refused(
        _send(served, "POST", "/v1/users", {"user_id": "lone", "information": LONE}), "information"
    )
    assert _send(served, "GET", "/v1/users/lone").status_code == 404


def test_prompt_description_that_is_not_unicode_text_is_a_400(served: Served) -> None:
    create = {"prompt_id": "lone", "prompt": "Extract dates.", "description": LONE}
    _refused(_send(served, "POST", "/v1/prompts", create), "description")
    assert _send(served, "GET", "/v1/prompts/lone").status_code == 404
    created = _send(served, "POST", "/v1/prompts", {**create, "description": "dates"})
    assert created.status_code == 201, created.text
    _refused(_send(served, "PATCH", "/v1/prompts/lone", {"description": LONE}), "description")
    assert _send(served, "GET", "/v1/prompts/lone").json()["description"] == "dates"
