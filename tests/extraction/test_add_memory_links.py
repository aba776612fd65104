"""add_memory's links: an explicit link written with the memory, bad link
arguments that write nothing, and automatic linking through a model server."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from graphmem import (
    ConflictError,
    GraphMemory,
    HashingEmbedder,
    InvalidArgumentError,
    MemoryExtractionConfig,
    NotFoundError,
)
from graphmem.testing import ModelServer

from ._support import LINK_MARK, graph, invariant_violations, memory, prompt_of, ref_of, reply


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def test_add_memory_explicit_link_is_written_with_the_memory() -> None:
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as mem:
        old = mem.add_memory("Thin crust.", memory_type="preference")
        new = mem.add_memory(
            "Sourdough.",
            memory_type="preference",
            memory_id_to_link=old,
            link_type="supersedes",
            link_id="l1",
            link_timestamp="2026-01-01T00:00:00Z",
            link_metadata={"why": "changed mind"},
        )
        link = mem.get_record_link("l1")
        assert (link.source_record_id, link.target_record_id) == (new, old)
        assert link.metadata == {"why": "changed mind"}
        assert mem.get_memory(old).status == "invalid"


@pytest.mark.parametrize(
    ("arguments", "error", "named"),
    [
        (
            {"memory_id_to_link": "missing", "link_type": "supersedes"},
            NotFoundError,
            "memory_id_to_link",
        ),
        (
            {"memory_id_to_link": "old", "link_type": "bogus type!"},
            InvalidArgumentError,
            "link_type",
        ),
        ({"memory_id_to_link": "old"}, InvalidArgumentError, "link_type"),
        ({"link_type": "supersedes"}, InvalidArgumentError, "memory_id_to_link"),
        (
            {"memory_id_to_link": "new", "link_type": "supports"},
            InvalidArgumentError,
            "memory_id_to_link",
        ),
        (
            {"memory_id_to_link": "old", "link_type": "supports", "link_id": "l0"},
            ConflictError,
            "link_id",
        ),
        ({"autonomous_linking": True}, InvalidArgumentError, "autonomous_linking"),
    ],
)
def test_add_memory_bad_link_writes_nothing(arguments: dict, error: type, named: str) -> None:  # type: ignore[type-arg]
    with GraphMemory(":memory:", embedder=HashingEmbedder(dim=8)) as mem:
        mem.add_memory("Old.", memory_id="old")
        mem.add_memory("Other.", memory_id="other")
        mem.link_records("other", "memory", "old", "memory", "supports", relation_id="l0")
        with pytest.raises(error, match=named):
            mem.add_memory("New.", memory_id="new", **arguments)
        assert {m.id for m in mem.list_memories()} == {"old", "other"}
        assert [link.id for link in mem.list_record_links()] == ["l0"]


def test_add_memory_autonomous_linking_links_one_memory(server: ModelServer) -> None:
    thin = "The user prefers thin crust pizza."
    server.add_rule(
        LINK_MARK,
        lambda body: reply(
            links=[
                ("new-0", ref_of(prompt_of(body), thin), "supersedes"),
                ("new-0", "mem-9", "supports"),
            ]
        ),
    )
    with memory(server) as mem:
        mem.add_memory(thin, memory_type="preference", user_id="u")
        mem.add_memory(
            "Sourdough now.", memory_type="preference", user_id="u", autonomous_linking=True
        )
        _, edges = graph(mem)
        assert edges == {("Sourdough now.", "supersedes", thin)}
        assert invariant_violations(mem) == []
        (request,) = server.requests_to("chat/completions")
        assert 'new-0 (preference): "Sourdough now."' in prompt_of(request.body)


OWNERS = {
    "alice-bot": ("alice", "bot"),
    "alice": ("alice", None),
    "bot": (None, "bot"),
    "nobody": (None, None),
    "bob-bot": ("bob", "bot"),
}


@pytest.mark.parametrize("owner", sorted(OWNERS))
def test_add_memory_autonomous_linking_sees_exactly_its_own_scope(
    server: ModelServer, owner: str
) -> None:
    """The candidates share the new memory's user_id and agent_id, None matching
    only None: a memory without a user never sees (nor supersedes) a user's."""
    user_id, agent_id = OWNERS[owner]
    server.add_rule(LINK_MARK, reply(links=[("new-0", "mem-0", "supersedes")]))
    with memory(server) as mem:
        for other, (user, agent) in OWNERS.items():
            mem.add_memory("The user likes pizza.", memory_id=other, user_id=user, agent_id=agent)
        new = mem.add_memory(
            "The user likes pizza.",
            user_id=user_id,
            agent_id=agent_id,
            autonomous_linking=True,
        )
        (request,) = server.requests_to("chat/completions")
        shown = re.findall(r"^mem-\d+ .*$", prompt_of(request.body), re.MULTILINE)
        assert len(shown) == 1
        assert [
            (link.source_record_id, link.target_record_id) for link in mem.list_record_links()
        ] == [(new, owner)]
        invalid = [m.id for m in mem.list_memories() if m.status == "invalid"]
        assert invalid == [owner]


def test_add_memory_autonomous_linking_fills_its_candidates_from_its_scope(
    server: ModelServer,
) -> None:
    """Records of other scopes nearer to the new memory take no candidate's place:
    the candidates are chosen among the scope's records, five of them."""
    server.add_rule(LINK_MARK, reply(links=[]))
    with memory(server) as mem:
        for i in range(6):  # the nearest records, all another user's
            mem.add_memory("Pizza on Fridays.", memory_id=f"alice-{i}", user_id="alice")
        for i in range(6):
            mem.add_memory(f"Pizza dough recipe number {i}.", memory_id=f"shared-{i}")
        mem.add_memory("Pizza on Fridays.", autonomous_linking=True)
        (request,) = server.requests_to("chat/completions")
        prompt = prompt_of(request.body)
        assert len(re.findall(r"^mem-\d+ ", prompt, re.MULTILINE)) == 5
        assert "recipe number" in prompt and prompt.count("Pizza on Fridays.") == 1


def test_add_memory_autonomous_linking_follows_the_link_instructions(server: ModelServer) -> None:
    server.add_rule(LINK_MARK, reply(links=[]))
    rule = "Never propose supersedes links."
    cfg = MemoryExtractionConfig(memory_link_extraction_custom_instructions=rule)
    with memory(server, memory_extraction_config=cfg) as mem:
        mem.add_memory("The user likes tea.", user_id="u")
        mem.add_memory("The user likes green tea.", user_id="u", autonomous_linking=True)
        (request,) = server.requests_to("chat/completions")
        assert f"Linking instructions:\n{rule}\n" in prompt_of(request.body)
