"""Seed 000 ("Customize Context Card Content"): its Full Code, with only the setup changed.

The setup: graphmem's imports, a SQLite file for the connection, and the
embedder and LLM pointed at graphmem.testing.ModelServer (real HTTP, scripted
summary reply). The code between the markers is the seed's, unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem import Embedder, GraphMemory, Llm, MemoryExtractionConfig, SchemaPolicy
from graphmem.testing import ModelServer

SUMMARY = {"summary": "User is planning dinner recommendations.", "topics": ["dinner", "friday"]}


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(dimension=32) as running:
        running.add_rule(lambda body: "response_format" in body, json.dumps(SUMMARY))
        yield running


def _run_seed(server: ModelServer, path: Path, prepare: Any = None) -> None:
    # -- setup (changed) -----------------------------------------------------------
    embedder = Embedder(model="test-embed", api_base=server.url)
    llm = Llm(model="test-chat", api_base=server.url)
    db_pool = str(path)
    memory_store_id = "T_CARD_CONTENT"
    OracleAgentMemory = GraphMemory  # the seed's name for the client
    if prepare is not None:
        with GraphMemory(db_pool, embedder=embedder, memory_store_id=memory_store_id) as prepared:
            prepare(prepared)
    # -- the seed's code (unchanged) -------------------------------------------------
    # fmt: off
    memory = OracleAgentMemory(
        connection=db_pool,
        embedder=embedder,
        llm=llm,
        schema_policy=SchemaPolicy.CREATE_IF_NECESSARY,
        memory_store_id=memory_store_id
    )

    thread = memory.create_thread(
        thread_id="context_card_customization_demo",
        user_id="user_123",
        agent_id="assistant_456",
        memory_extraction_config=MemoryExtractionConfig(
            memory_extraction_custom_instructions=(
                "Extract restaurant preferences as preference records and assistant "
                "response-style instructions as guideline records."
            )
        ),
    )
    thread.add_messages(
        [
            {
                "role": "user",
                "content": "I need vegetarian dinner recommendations for Friday.",
            },
            {
                "role": "assistant",
                "content": "I can compare concise options and tradeoffs.",
            },
        ]
    )

    card = thread.get_context_card(
        max_relevant_results=6,
        min_relevant_results_by_type={
            "preference": 1,
            "guideline": 1,
            "message": 1,
        },
    )

    prompt_context = card.content
    print(prompt_context)

    ##Tune type search concurrency

    thread = memory.get_thread(
        "context_card_customization_demo",
        context_card_type_search_concurrency=2,
    )

    card = thread.get_context_card(
        max_relevant_results=6,
        min_relevant_results_by_type={
            "preference": 1,
            "guideline": 1,
            "message": 1,
        },
    )
    # fmt: on
    # -- end of the seed's code ------------------------------------------------------
    print(card.content)
    memory.close()


def _relevant_types(text: str) -> list[str]:
    section = text.split("<relevant_information>")[1].split("</relevant_information>")[0]
    return re.findall(r"^    <(\w+)>$", section, flags=re.M)


def test_seed_000_full_code_prints_a_card(
    server: ModelServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run_seed(server, tmp_path / "seed.db")
    first, second = capsys.readouterr().out.strip().split("\n</context_card>\n")
    first += "\n</context_card>"
    assert first == second
    assert first.startswith("<context_card>\n  <summary>\n    User is planning dinner")
    assert "<topic>dinner</topic>" in first and "<topic>friday</topic>" in first
    # No extraction yet: the thread's messages are the only records there are.
    assert _relevant_types(first) == ["message"]
    assert first.count("      <role>") == 2  # both messages as recent messages


def _earlier_memories(memory: GraphMemory) -> None:
    """What extraction from earlier turns would have stored for this user and agent."""
    scope = {"user_id": "user_123", "agent_id": "assistant_456"}
    memory.add_memory("User is comparing pizza places for Friday.", **scope)
    memory.add_memory("User's friend is vegan.", memory_type="fact", **scope)
    memory.add_memory("User prefers vegetarian restaurants.", memory_type="preference", **scope)
    memory.add_memory(
        "Offer concise recommendations with clear tradeoffs.", memory_type="guideline", **scope
    )
    memory.close()


def test_seed_000_card_lists_the_requested_types_first(
    server: ModelServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run_seed(server, tmp_path / "seed.db", prepare=_earlier_memories)
    text = capsys.readouterr().out.split("\n</context_card>\n")[0]
    types = _relevant_types(text)
    assert types[:3] == ["preference", "guideline", "message"]
    assert sorted(types[3:]) == ["fact", "memory"]
    assert "<content>User prefers vegetarian restaurants.</content>" in text
