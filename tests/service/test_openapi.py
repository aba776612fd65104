"""The OpenAPI document says what the service does: its error body and statuses,
the 202 of queued blocks, and the bearer credential."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .inproc import Service


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    service = Service()
    yield service
    service.close()


def test_every_v1_operation_lists_the_answers_the_service_gives(svc: Service) -> None:
    doc = svc.call("GET", "/openapi.json").json()
    assert "422" not in json.dumps(doc["paths"]) and "HTTPValidationError" not in json.dumps(doc)
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    error = doc["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"code", "message", "status"}
    operations = [
        (path, method, operation)
        for path, methods in doc["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) > 20
    for path, method, operation in operations:
        answers = operation["responses"]
        if not path.startswith("/v1/"):
            assert "security" not in operation and set(answers) == {"200"}
            continue
        assert operation["security"] == [{"bearer": []}], (method, path)
        for status in ("400", "401", "403"):
            schema = answers[status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
    queued = [(m, p) for p, m, o in operations if "202" in o["responses"]]
    assert sorted(queued) == [
        ("patch", "/v1/sessions/{session_id}/memory/{block_id}"),
        ("post", "/v1/sessions/{session_id}/memory"),
    ]


def test_a_bad_body_answers_as_the_document_says(svc: Service) -> None:
    answer = svc.call("POST", "/v1/users", json={"user_id": 1})
    assert answer.status_code == 400
    assert set(answer.json()) == {"code", "message", "status"}


def test_the_document_lists_the_statuses_the_routes_answer(svc: Service) -> None:
    """Each status below was seen from its route (the service answers it), so the
    document lists it there."""
    paths = svc.call("GET", "/openapi.json").json()["paths"]

    def listed(method: str, path: str) -> set[str]:
        return set(paths[path][method]["responses"])

    assert {"404", "503"} <= listed("get", "/v1/prompts/{prompt_id}")
    assert {"409", "413", "415"} <= listed("post", "/v1/prompts")
    assert {"409", "413", "415"} <= listed("post", "/v1/users")
    assert {"404", "502"} <= listed("post", "/v1/sessions/{session_id}/memory")
    assert {"404", "502"} <= listed("post", "/v1/memories")
    assert "502" in listed("post", "/v1/search") and "404" not in listed("get", "/v1/users")
    answers = {
        ("get", "/v1/prompts/{prompt_id}"): svc.call("GET", "/v1/prompts/nope").status_code,
        ("post", "/v1/prompts"): svc.http.post(
            "/v1/prompts", content=b"x", headers={**svc.headers(), "Content-Type": "text/plain"}
        ).status_code,
    }
    for (method, path), status in answers.items():
        assert str(status) in listed(method, path), (method, path, status)
