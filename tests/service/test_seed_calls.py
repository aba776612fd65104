"""The prompt registry how-to's calls, in its order, through graphmem.client against a
real ``graphmem serve`` subprocess."""

from __future__ import annotations

import time

import pytest

from graphmem import ConflictError, PromptConflictError, PromptNotFoundError
from graphmem.client import AgentMemoryClient, ChatMessage, MemoryBlock, Session

from .conftest import Served


def _settled(session: Session, block_id: str) -> MemoryBlock:
    deadline = time.monotonic() + 30
    while True:
        block = session.get_memory(block_id)
        if block.status in ("ready", "failed") or time.monotonic() > deadline:
            return block
        time.sleep(0.05)


def test_seed_registry_and_session_calls(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    client = AgentMemoryClient(served.url, served.admin_key)
    client.create_user("customer_1")
    session = client.create_session(user_id="customer_1", session_id="support_1")

    # Register and use a custom prompt.
    prompt = client.create_prompt(
        prompt_id="support_tickets",
        prompt="Extract only numeric data points, including: dates, quantities, percentages, "
        "and amounts. Discard all non-numeric information.",
        description="Use for support ticket extraction, focusing on order numbers, issues, "
        "and resolution steps",
        annotations={"team": "support"},
    )
    print(prompt.current_vid, prompt.version_count)  # 0, 1

    response = session.add_memory(
        messages=[
            ChatMessage(
                user_content="My order #123 hasn't shipped.",
                assistant_content="I'll look into that.",
            )
        ],
        prompt_id="support_tickets",
        async_processing=False,
    )
    assert response.status == "ready"
    assert (response.prompt_id, response.resolved_vid) == ("support_tickets", 0)
    assert response.summary == "custom: " + prompt.prompt
    assert len(response.record_ids) == 2  # the user and assistant messages
    assert [m.content for m in session.get_messages()] == [
        "My order #123 hasn't shipped.",
        "I'll look into that.",
    ]

    # prompt_id without semantic extraction is refused before anything is written.
    with pytest.raises(Exception) as refused:
        session.add_memory(facts=["x"], prompt_id="support_tickets", context_required=False)
    assert (refused.value.code, refused.value.status) == ("PROMPT_EXTRACTION_DISABLED", 400)  # type: ignore[attr-defined]

    # Pin a prompt to a specific version: version 1 is made by the first update, so
    # before it the pin does not resolve, and nothing is written.
    with pytest.raises(PromptNotFoundError) as early:
        session.add_memory(
            facts=["Customer escalated to a supervisor."],
            prompt_id="support_tickets",
            prompt_vid=1,
        )
    assert (early.value.code, early.value.status) == ("PROMPT_VERSION_NOT_FOUND", 404)
    assert len(session.list_memory()) == 1

    # Update a prompt.
    updated = client.update_prompt(
        "support_tickets", prompt="Focus on billing disputes and refund policy exceptions."
    )
    print(updated.current_vid, updated.version_count)  # 1, 2

    # Pin a prompt to a specific version, now that version 1 exists.
    pinned = session.add_memory(
        facts=["Customer escalated to a supervisor."], prompt_id="support_tickets", prompt_vid=1
    )
    pinned = _settled(session, pinned.block_id)
    assert (pinned.status, pinned.prompt_vid, pinned.resolved_vid) == ("ready", 1, 1)
    assert pinned.summary == "custom: Focus on billing disputes and refund policy exceptions."

    # Switch or clear a block's prompt: its content is reprocessed, not re-embedded;
    # only each new extraction's record is.
    embeds = len(served.models.requests_to("embeddings"))
    switched = session.update_memory(
        block_id=response.block_id, prompt_id="support_tickets", async_processing=False
    )
    assert (switched.resolved_vid, switched.summary) == (1, pinned.summary)
    pinned_v0 = session.update_memory(
        block_id=response.block_id, prompt_id="support_tickets", prompt_vid=0,
        async_processing=False,
    )  # fmt: skip
    assert (pinned_v0.prompt_vid, pinned_v0.resolved_vid) == (0, 0)
    cleared = session.update_memory(
        block_id=response.block_id, prompt_id="default", async_processing=False
    )
    assert (cleared.prompt_id, cleared.prompt_vid, cleared.summary) == (None, None, "base")
    assert cleared.record_ids == response.record_ids
    assert len(cleared.extracted_record_ids) == 1
    assert cleared.extracted_record_ids != response.extracted_record_ids
    new_embeds = [r.body["input"] for r in served.models.requests_to("embeddings")[embeds:]]
    assert len(new_embeds) == 3
    assert all(len(texts) == 1 and texts[0].startswith("Order #7") for texts in new_embeds)

    # Get and list prompts.
    current = client.get_prompt("support_tickets")
    v0 = client.get_prompt("support_tickets", vid=0)
    assert (current.vid, v0.vid, v0.prompt) == (1, 0, prompt.prompt)
    prompts = client.list_prompts(limit=50, offset=0)
    print(f"{prompts.count} of {prompts.total} prompts")
    versions = client.list_prompt_versions("support_tickets", limit=50, offset=0)
    for v in versions.versions:
        print(v.vid, v.is_current, v.archived)

    # Retiring the current version alone is a ConflictError.
    with pytest.raises(ConflictError) as current_archive:
        client.archive_prompt("support_tickets", vid=1)
    assert current_archive.value.code == "PROMPT_CURRENT_VERSION_ARCHIVE"  # type: ignore[attr-defined]

    # Archive just one version: new pins to it are refused.
    client.archive_prompt("support_tickets", vid=0)
    with pytest.raises(PromptConflictError) as pin:
        session.add_memory(facts=["late"], prompt_id="support_tickets", prompt_vid=0)
    assert (pin.value.code, pin.value.status) == ("PROMPT_VERSION_ARCHIVED", 409)

    # Purge just one version (the archived 0), leaving the rest of the history.
    client.purge_prompt("support_tickets", vid=0)
    assert [v.vid for v in client.list_prompt_versions("support_tickets").versions] == [1]

    # Purge the whole prompt: its id is free again.
    client.purge_prompt("support_tickets", vid="all")
    with pytest.raises(PromptNotFoundError) as gone:
        client.get_prompt("support_tickets")
    assert (gone.value.code, gone.value.status) == ("PROMPT_NOT_FOUND", 404)
    again = client.create_prompt("support_tickets", "Extract order numbers.", "reused id")
    assert (again.current_vid, again.version_count) == (0, 1)

    # Archive the whole prompt: new references refused, the id reserved for good.
    client.archive_prompt("support_tickets", vid="all")
    with pytest.raises(PromptConflictError) as archived:
        session.add_memory(facts=["again"], prompt_id="support_tickets")
    assert archived.value.code == "PROMPT_ID_ARCHIVED"
    client.purge_prompt("support_tickets", vid="all")  # deletes versions, keeps the id
    with pytest.raises(PromptConflictError) as reserved:
        client.create_prompt("support_tickets", "Extract dates.", "third try")
    assert (reserved.value.code, reserved.value.status) == ("PROMPT_ID_ARCHIVED", 409)

    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["0 1", "1 2"]
    assert out[2] == "1 of 1 prompts"
    assert out[3:] == ["0 False False", "1 True False"]
    client.close()


def test_seed_retire_calls_in_the_order_written(served: Served) -> None:
    """The how-to lists archive-all, archive-0, purge-all, purge-0 as alternatives; run
    one after another they give these answers."""
    client = AgentMemoryClient(served.url, served.admin_key)
    client.create_prompt("retired", "Extract dates.", "retire in order")
    client.update_prompt("retired", prompt="Extract amounts.")
    archived = client.archive_prompt("retired", vid="all")
    assert archived.archived is True
    with pytest.raises(PromptConflictError) as second:
        client.archive_prompt("retired", vid=0)
    assert second.value.code == "PROMPT_ID_ARCHIVED"
    client.purge_prompt("retired", vid="all")
    with pytest.raises(PromptNotFoundError) as third:
        client.purge_prompt("retired", vid=0)
    assert third.value.code == "PROMPT_NOT_FOUND"
    with pytest.raises(PromptConflictError) as reuse:
        client.create_prompt("retired", "Extract names.", "reserved for good")
    assert reuse.value.code == "PROMPT_ID_ARCHIVED"
    client.close()


def test_seed_update_memory_calls_in_order(served: Served) -> None:
    client = AgentMemoryClient(served.url, served.admin_key)
    client.create_user("customer_2")
    session = client.create_session(user_id="customer_2", session_id="support_2")
    client.create_prompt("tickets_2", "Extract order numbers.", "switch target")
    client.update_prompt("tickets_2", prompt="Extract refund amounts.")
    block = session.add_memory(facts=["Order #9 arrived broken."], async_processing=False)
    assert (block.prompt_id, block.summary) == (None, "base")
    block_abc = block.block_id
    switched = session.update_memory(block_id=block_abc, prompt_id="tickets_2")
    switched = _settled(session, switched.block_id)
    assert (switched.prompt_id, switched.resolved_vid) == ("tickets_2", 1)
    session.update_memory(block_id=block_abc, prompt_id="tickets_2", prompt_vid=1)
    pinned = _settled(session, block_abc)
    assert (pinned.prompt_vid, pinned.summary) == (1, "custom: Extract refund amounts.")
    session.update_memory(block_id=block_abc, prompt_id="default")
    cleared = _settled(session, block_abc)
    assert (cleared.prompt_id, cleared.summary) == (None, "base")
    # An unresolvable switch is refused whole: the block keeps its state.
    with pytest.raises(PromptNotFoundError):
        session.update_memory(block_id=block_abc, prompt_id="no_such_prompt")
    assert session.get_memory(block_abc).updated_at == cleared.updated_at
    client.close()
