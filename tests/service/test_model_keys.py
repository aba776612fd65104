"""A model API key read from the environment with a trailing newline (as a secret
file gives it): stripped, and never in an answer's body nor in the service's log."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from graphmem import GraphMemory
from graphmem.service import ServiceConfig, create_app
from graphmem.service.config import ModelSettings, embedder_from
from graphmem.service.keys import create_key
from graphmem.testing import ModelServer

SECRET = "sk-proj-TOPSECRET"


def _search(models: ModelServer, key: str) -> tuple[int, str]:
    env = {
        "GRAPHMEM_EMBEDDER_MODEL": "embed-model",
        "GRAPHMEM_EMBEDDER_API_BASE": models.url,
        "GRAPHMEM_EMBEDDER_API_KEY": key,
    }
    memory = GraphMemory(":memory:", embedder=embedder_from(ModelSettings.resolve("embedder", env)))
    admin, _ = create_key(memory._store, "admin")
    app = create_app(memory, config=ServiceConfig(process_blocks=False))
    with TestClient(app, raise_server_exceptions=False) as http:
        answer = http.post(
            "/v1/search", json={"query": "pizza"}, headers={"Authorization": f"Bearer {admin}"}
        )
    memory.close()
    return answer.status_code, answer.text


def test_model_key_trailing_newline_is_stripped() -> None:
    with ModelServer(dimension=8, api_key=SECRET) as models:
        status, _ = _search(models, SECRET + "\n")
        assert status == 200
        (request,) = models.requests_to("embeddings")
    assert request.headers["authorization"] == f"Bearer {SECRET}"


def test_model_key_refused_is_not_in_the_502_body_nor_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    with ModelServer(dimension=8, api_key="sk-the-right-key") as models:
        status, body = _search(models, SECRET + "\n")  # the server echoes the key it got
    assert status == 502
    assert "MODEL_ERROR" in body
    assert "TOPSECRET" not in body
    assert "TOPSECRET" not in caplog.text
