"""The clients refuse what the embedded registry refuses, with the same error: a
malformed prompt id (checked before it becomes a URL path), annotations that are not
a JSON object, and a version scope that is neither "all" nor a version number."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from graphmem import GraphMemory, PromptArgumentError
from graphmem.client import AgentMemoryClient, AsyncAgentMemoryClient

from .conftest import Served

Call = Callable[[Any], Any]

BAD_IDS: dict[str, Call] = {
    "get": lambda t: t.get_prompt("a/b"),
    "get-encoded": lambda t: t.get_prompt("a%2Fb"),
    "get-dot": lambda t: t.get_prompt(".."),
    "versions": lambda t: t.list_prompt_versions("a/b"),
    "update": lambda t: t.update_prompt("a/b", description="d"),
    "archive": lambda t: t.archive_prompt("a/b"),
    "purge": lambda t: t.purge_prompt("a/b"),
    "create": lambda t: t.create_prompt("a/b", "Extract.", "d"),
    "create-int": lambda t: t.create_prompt(5, "Extract.", "d"),
}
BAD_ANNOTATIONS: dict[str, Call] = {
    "create-pairs": lambda t: t.create_prompt("q", "Extract.", "d", [("a", 1)]),
    "create-list": lambda t: t.create_prompt("q", "Extract.", "d", [1]),
    "create-nan": lambda t: t.create_prompt("q", "Extract.", "d", {"x": float("nan")}),
    "update-pairs": lambda t: t.update_prompt("kept", annotations=[("a", 1)]),
}
BAD_SCOPES: dict[str, Call] = {
    "archive-text": lambda t: t.archive_prompt("kept", vid="1"),
    "archive-float": lambda t: t.archive_prompt("kept", vid=1.0),
    "purge-upper": lambda t: t.purge_prompt("kept", vid="ALL"),
}
CASES = {**BAD_IDS, **BAD_ANNOTATIONS, **BAD_SCOPES}


@pytest.fixture(scope="module")
def embedded() -> Iterator[GraphMemory]:
    with GraphMemory(":memory:") as memory:
        memory.create_prompt("kept", "Extract order numbers.", "d")
        yield memory


@pytest.fixture(scope="module")
def client(served: Served) -> Iterator[AgentMemoryClient]:
    with AgentMemoryClient(served.url, served.admin_key) as made:
        made.create_prompt("kept", "Extract order numbers.", "d")
        yield made


def _refusal(call: Call, target: Any) -> tuple[str, str, int, str]:
    with pytest.raises(PromptArgumentError) as info:
        call(target)
    error = info.value
    return error.argument, error.code, error.status, str(error)


@pytest.mark.parametrize("case", CASES)
def test_client_refuses_as_the_embedded_registry(
    case: str, client: AgentMemoryClient, embedded: GraphMemory
) -> None:
    assert _refusal(CASES[case], client) == _refusal(CASES[case], embedded)


@pytest.mark.parametrize("case", CASES)
def test_async_client_refuses_as_the_embedded_registry(
    case: str, served: Served, client: AgentMemoryClient, embedded: GraphMemory
) -> None:
    async def refusal() -> tuple[str, str, int, str]:
        async with AsyncAgentMemoryClient(served.url, served.admin_key) as remote:
            with pytest.raises(PromptArgumentError) as info:
                await CASES[case](remote)
        error = info.value
        return error.argument, error.code, error.status, str(error)

    assert asyncio.run(refusal()) == _refusal(CASES[case], embedded)


def test_client_bad_ids_send_no_request(served: Served, client: AgentMemoryClient) -> None:
    sent: list[httpx.Request] = []
    client._http.event_hooks["request"].append(sent.append)
    try:
        for call in BAD_IDS.values():
            with pytest.raises(PromptArgumentError):
                call(client)
        client.get_prompt("kept")
    finally:
        client._http.event_hooks["request"].remove(sent.append)
    assert [r.url.path for r in sent] == ["/v1/prompts/kept"]


@pytest.mark.parametrize("action", ["archive", "purge"])
@pytest.mark.parametrize("vid", ["1", 1.0, True, None, [0], "ALL"])
def test_http_scope_neither_all_nor_a_number_named_plainly(
    served: Served, action: str, vid: object
) -> None:
    headers = {"Authorization": f"Bearer {served.admin_key}"}
    answer = httpx.post(
        f"{served.url}/v1/prompts/kept/{action}", json={"vid": vid}, headers=headers
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "code": "INVALID_ARGUMENT",
        "message": f'vid: must be "all" or an integer from 0 to 2147483647; got {vid!r}',
        "status": 400,
    }
