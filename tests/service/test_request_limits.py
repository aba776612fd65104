"""Per-request bounds of the service: the search ceiling, prompt versions past the
store's integers, and JSON nested too deep to parse; each a 400 naming what was sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphmem.errors import InvalidArgumentError
from graphmem.service import ServiceConfig
from graphmem.service.config import DEFAULT_MAX_SEARCH_RESULTS

from .inproc import ScriptedLlm, Service


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service(process_blocks=False)
    for i in range(5):
        service.memory.add_memory(f"Pizza note {i}.", memory_id=f"n{i}", user_id="u")
    yield service
    service.close()


def _refused(answer: Any, argument: str) -> None:
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert (body["code"], body["status"]) == ("INVALID_ARGUMENT", 400)
    assert body["message"].startswith(f"{argument}: "), body


def _search(svc: Service, **body: Any) -> Any:
    return svc.call("POST", "/v1/search", key=svc.read_key, json={"query": "pizza", **body})


@pytest.mark.parametrize("asked", [DEFAULT_MAX_SEARCH_RESULTS + 1, 2**31 - 1])
def test_search_max_results_over_the_default_ceiling_is_refused(svc: Service, asked: int) -> None:
    answer = _search(svc, max_results=asked, num_hops=2)
    _refused(answer, "max_results")
    assert f"at most {DEFAULT_MAX_SEARCH_RESULTS}" in answer.json()["message"]


def test_search_max_results_at_the_default_ceiling_is_answered(svc: Service) -> None:
    answer = _search(svc, max_results=DEFAULT_MAX_SEARCH_RESULTS)
    assert answer.status_code == 200, answer.text
    assert answer.json()["count"] == 5


def test_search_ceiling_is_a_service_setting() -> None:
    service = Service(process_blocks=False, max_search_results=3)
    try:
        for i in range(5):
            service.memory.add_memory(f"Pizza note {i}.", memory_id=f"n{i}")
        assert _search(service, max_results=3).json()["count"] == 3
        _refused(_search(service, max_results=4), "max_results")
    finally:
        service.close()


@pytest.mark.parametrize("ceiling", [0, -1, True, 2.5])
def test_service_config_refuses_a_ceiling_below_one(ceiling: Any) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^max_search_results: "):
        ServiceConfig(max_search_results=ceiling)


@pytest.fixture
def registry() -> Iterator[Service]:
    service = Service(process_blocks=False, llm=ScriptedLlm())
    service.session()
    body = {"prompt_id": "p", "prompt": "Extract order numbers.", "description": "d"}
    assert service.call("POST", "/v1/prompts", json=body).status_code == 201
    yield service
    service.close()


@pytest.mark.parametrize("vid", [2**31, 2**63, 10**20])
@pytest.mark.parametrize(
    ("method", "path", "body", "argument"),
    [
        ("GET", "/v1/prompts/p?vid={vid}", None, "vid"),
        ("POST", "/v1/prompts/p/archive", {"vid": "{vid}"}, "vid"),
        ("POST", "/v1/prompts/p/purge", {"vid": "{vid}"}, "vid"),
        ("POST", "/v1/sessions/s/memory", {"facts": ["a"], "prompt_id": "p",
                                           "prompt_vid": "{vid}", "async_processing": False},
         "prompt_vid"),
    ],
)  # fmt: skip
def test_a_prompt_version_past_the_largest_count_is_refused(
    registry: Service, method: str, path: str, body: Any, argument: str, vid: int
) -> None:
    sent = None if body is None else {k: vid if v == "{vid}" else v for k, v in body.items()}
    answer = registry.call(method, path.format(vid=vid), json=sent)
    _refused(answer, argument)
    assert answer.json()["message"].endswith(f"got {vid}")
    assert registry.call("GET", "/v1/prompts/p").json()["version_count"] == 1


def test_a_block_prompt_vid_below_zero_names_prompt_vid(registry: Service) -> None:
    body = {"facts": ["a"], "prompt_id": "p", "prompt_vid": -1, "async_processing": False}
    _refused(registry.call("POST", "/v1/sessions/s/memory", json=body), "prompt_vid")


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, '{"fact": ' + "9" * 5000 + "}"])
def test_a_card_minimum_that_cannot_be_parsed_is_refused(svc: Service, value: str) -> None:
    svc.session()
    answer = svc.call(
        "GET", "/v1/sessions/s/context_card", params={"min_relevant_results_by_type": value}
    )
    _refused(answer, "min_relevant_results_by_type")
