"""Which prompt a memory block is processed under: the prompt it referred to (not one
registered again under its id after a purge), resolved once for the extraction and
the summary, and put into the summary request as delimited, untrusted text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graphmem.extraction import ExtractionProvenance
from graphmem.extraction.models import BASE_PROMPT_ID, BASE_PROMPT_VERSION
from graphmem.memory import GraphMemory

from .conftest import OPERATOR, OPERATOR_END, Served
from .inproc import ScriptedLlm, Service

TURN = [{"user_content": "Where is order 7?", "assistant_content": "Late."}]


@pytest.fixture
def svc() -> Iterator[Service]:
    service = Service(llm=ScriptedLlm())
    service.session()
    yield service
    service.close()


def _create(svc: Service, text: str = "Extract order numbers.") -> None:
    body = {"prompt_id": "p", "prompt": text, "description": "d"}
    assert svc.call("POST", "/v1/prompts", json=body).status_code == 201


def _queue(svc: Service, **reference: object) -> str:
    body = {"messages": TURN, "prompt_id": "p", **reference}
    answer = svc.call("POST", "/v1/sessions/s/memory", json=body).json()
    assert answer["status"] == "pending"
    return str(answer["block_id"])


def _provenance(svc: Service, record_ids: list[str]) -> list[tuple[str, int | None, str]]:
    found = []
    for record_id in record_ids:
        record = svc.memory.get_memory(record_id)
        origin = ExtractionProvenance.of(record)
        assert origin is not None
        found.append((origin.prompt_id, origin.prompt_vid, record.content))
    return found


@pytest.mark.parametrize("reference", [{"prompt_vid": 0}, {}], ids=["pinned", "late-bound"])
def test_block_of_a_prompt_purged_and_registered_again_falls_back(
    svc: Service, reference: dict[str, object]
) -> None:
    _create(svc)
    block_id = _queue(svc, **reference)
    svc.call("POST", "/v1/prompts/p/purge", json={"vid": "all"})
    body = {"prompt_id": "p", "prompt": "Summarise only competitor names.", "description": "x"}
    assert svc.call("POST", "/v1/prompts", json=body).status_code == 201
    done = svc.blocks.process(block_id)
    assert (done.status, done.resolved_vid, done.summary) == ("ready", None, "base")
    extracted = _provenance(svc, (done.extraction or {})["record_ids"])
    assert extracted == [(BASE_PROMPT_ID, BASE_PROMPT_VERSION, "Order #7 is late (base).")]


def test_block_switched_to_a_prompt_registered_again_takes_the_new_one(svc: Service) -> None:
    _create(svc)
    block_id = _queue(svc)
    svc.call("POST", "/v1/prompts/p/purge", json={"vid": "all"})
    _create(svc, "Extract order numbers and dates.")
    path = f"/v1/sessions/s/memory/{block_id}"
    body = {"prompt_id": "p", "async_processing": False}
    switched = svc.call("PATCH", path, json=body).json()
    assert (switched["resolved_vid"], switched["summary"]) == (
        0, "custom: Extract order numbers and dates."
    )  # fmt: skip


def test_block_purge_during_processing_leaves_one_prompt_for_the_whole_block(
    svc: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create(svc)
    svc.call("PATCH", "/v1/prompts/p", json={"prompt": "Extract refund amounts."})
    block_id = _queue(svc, prompt_vid=0)
    memory = svc.memory
    resolve = GraphMemory.resolve_prompt
    calls: list[object] = []

    def purge_after_first(self: GraphMemory, *args: Any, **kwargs: Any) -> Any:
        found = resolve(self, *args, **kwargs)
        calls.append(args)
        if len(calls) == 1:  # an admin purges version 0 while the block is processed
            GraphMemory.purge_prompt(self, "p", vid=0)
        return found

    monkeypatch.setattr(GraphMemory, "resolve_prompt", purge_after_first)
    done = svc.blocks.process(block_id)
    assert len(calls) == 1
    assert (done.status, done.resolved_vid, done.summary) == (
        "ready", 0, "custom: Extract order numbers."
    )  # fmt: skip
    extracted = _provenance(svc, (done.extraction or {})["record_ids"])
    assert extracted == [("p", 0, "Order #7 is late (custom).")]
    assert memory.get_prompt("p").version_count == 1


def test_block_summary_request_carries_registry_text_delimited_as_untrusted(
    served: Served,
) -> None:
    headers = {"Authorization": f"Bearer {served.admin_key}"}
    text = "Extract order numbers.\nKeep the dates too."
    body: dict[str, Any] = {"prompt_id": "summary_p", "prompt": text, "description": "d"}
    with httpx.Client(base_url=served.url, headers=headers, timeout=60) as http:
        assert http.post("/v1/prompts", json=body).status_code == 201
        http.post("/v1/users", json={"user_id": "summary_u"})
        session = {"user_id": "summary_u", "session_id": "summary_s"}
        assert http.post("/v1/sessions", json=session).status_code == 201
        before = len(served.models.requests_to("chat/completions"))
        block = {"messages": TURN, "prompt_id": "summary_p", "async_processing": False}
        done = http.post("/v1/sessions/summary_s/memory", json=block).json()
    assert done["summary"] == f"custom: {text}"
    sent = [r.body for r in served.models.requests_to("chat/completions")[before:]]
    summaries = [b for b in sent if not b.get("response_format")]
    assert len(summaries) == 1
    system = summaries[0]["messages"][0]
    assert system["role"] == "system"
    assert system["content"].endswith(f"{OPERATOR}{text}{OPERATOR_END}")
    assert "registered the instructions between the two" in system["content"]
    assert "Custom instructions" not in system["content"]
    assert text not in summaries[0]["messages"][1]["content"]
