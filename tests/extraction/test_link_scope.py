"""The link candidates of an extraction come from the thread's scope only: its
user's records (any agent), or, for a thread without a user (imported so), the
records of its agent that have no user, never another user's."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

import pytest

from graphmem import GraphMemory
from graphmem.testing import ModelServer

from ._support import EXTRACT_MARK, LINK_MARK, config, memory, prompt_of, records, reply

PIZZA = "The user likes pizza."
OWNERS = {
    "alice-bot": ("alice", "bot"),
    "alice": ("alice", None),
    "bot": (None, "bot"),
    "nobody": (None, None),
    "bob-bot": ("bob", "bot"),
}


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def _thread_of(mem: GraphMemory, user_id: str | None, agent_id: str | None) -> None:
    """A thread ``t`` of this user and agent, None included (as an import makes it)."""
    line = {"kind": "thread", "thread_id": "t", "user_id": user_id, "agent_id": agent_id}
    line["settings"] = {"enable_context_summary": False}
    mem.import_jsonl(io.BytesIO(json.dumps(line).encode() + b"\n"))


def _candidates(server: ModelServer) -> list[str]:
    prompt = prompt_of(server.requests_to("chat/completions")[-1].body)
    section = prompt.split("===== STORED MEMORIES =====")[1]
    return re.findall(r"^mem-\d+ .*$", section, re.MULTILINE)


@pytest.mark.parametrize("mode", ["POST_EXTRACTION", "DURING_EXTRACTION"])
@pytest.mark.parametrize(
    ("thread_owner", "seen"),
    [
        ((None, "bot"), ["bot"]),
        ((None, None), ["nobody"]),
        (("alice", "helper"), ["alice", "alice-bot"]),
    ],
    ids=["agent-only", "no-owner", "user"],
)
def test_extraction_link_candidates_are_the_threads_scope(
    server: ModelServer, mode: str, thread_owner: tuple[str | None, str | None], seen: list[str]
) -> None:
    server.add_rule(LINK_MARK, reply(links=[("new-0", "mem-0", "supersedes")]))
    server.add_rule(
        EXTRACT_MARK,
        reply(records(("preference", PIZZA)), links=[("new-0", "mem-0", "supersedes")]),
    )
    with memory(server, extraction_workers=0) as mem:
        for owner, (user, agent) in OWNERS.items():
            mem.add_memory(
                PIZZA, memory_id=owner, memory_type="preference", user_id=user, agent_id=agent
            )
        _thread_of(mem, *thread_owner)
        thread = mem.get_thread("t")
        (message,) = thread.add_messages([{"role": "user", "content": "I like pizza."}])
        thread.extract_memories(
            [message], config=config(memory_link_extraction_mode=mode).model_dump()
        )
        assert len(_candidates(server)) == len(seen)
        (link,) = mem.list_record_links()
        assert link.target_record_id in seen
        invalid = sorted(m.id for m in mem.list_memories(limit=100) if m.status == "invalid")
        assert invalid == [link.target_record_id]
