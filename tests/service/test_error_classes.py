"""Error codes of the service for every library error, and the client's classes
for every answer: what a caller catches is the same class embedded and remote."""

from __future__ import annotations

import pytest

from graphmem.client import ApiArgumentError, ApiBackendError, ApiModelError
from graphmem.client.errors import error_from_response
from graphmem.errors import (
    BackendError,
    ClosedError,
    ExtractionError,
    ExtractionTimeoutError,
    GraphMemError,
    InvalidArgumentError,
    ModelError,
    SchemaError,
)
from graphmem.registry_errors import PromptArgumentError
from graphmem.service.errors import status_of


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (ModelError("m", status=500, provider_message="x"), "MODEL_ERROR", 502),
        (ExtractionError("e", job_ids=["j"]), "EXTRACTION_ERROR", 502),
        (ExtractionTimeoutError("t"), "EXTRACTION_TIMEOUT", 504),
        (BackendError("b"), "BACKEND_ERROR", 503),
        (ClosedError("c"), "UNAVAILABLE", 503),
        (SchemaError("s"), "SCHEMA_ERROR", 500),
        (GraphMemError("g"), "ERROR", 500),
    ],
)
def test_every_library_error_has_its_code(error: GraphMemError, code: str, status: int) -> None:
    assert status_of(error) == (code, status)


@pytest.mark.parametrize(
    ("status", "code", "classes"),
    [
        (502, "MODEL_ERROR", (ApiModelError, ModelError)),
        (502, "EXTRACTION_ERROR", (ApiModelError, ModelError)),
        (413, "PAYLOAD_TOO_LARGE", (ApiArgumentError, InvalidArgumentError)),
        (503, "BACKEND_ERROR", (ApiBackendError, BackendError)),
    ],
)
def test_the_client_raises_the_class_a_caller_catches(
    status: int, code: str, classes: tuple[type, ...]
) -> None:
    error = error_from_response(status, {"code": code, "message": "m", "status": status})
    assert isinstance(error, classes)
    assert (error.code, error.status) == (code, status)  # type: ignore[attr-defined]


def test_a_refused_registry_argument_is_a_prompt_argument_error() -> None:
    body = {"code": "INVALID_ARGUMENT", "message": "prompt_id: must match ...", "status": 400}
    for error in (
        error_from_response(400, body),  # named prompt_... on any route
        error_from_response(400, {**body, "message": "description: too long"}, registry=True),
    ):
        assert isinstance(error, PromptArgumentError)
        assert error.code == "INVALID_ARGUMENT"
    other = error_from_response(400, {**body, "message": "user_id: bad"})
    assert isinstance(other, ApiArgumentError) and not isinstance(other, PromptArgumentError)
