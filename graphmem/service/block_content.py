"""A memory block's content: its checks, its messages and its text, and what an
earlier extraction left (graphmem.service.blocks)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from graphmem.core.validation import check_content
from graphmem.errors import InvalidArgumentError
from graphmem.extraction.prompting import operator_instructions
from graphmem.service.schemas import AddMemoryBody

__all__ = [
    "REFERENCED",
    "block_text",
    "checked_content",
    "restarted",
    "summary_messages",
    "summary_prompt",
    "turn_messages",
]


@cache
def summary_prompt() -> str:
    return (resources.files("graphmem.prompts") / "block_summary.md").read_text("utf-8").strip()


def summary_messages(content: dict[str, Any], instructions: str | None) -> list[dict[str, str]]:
    """The summary request of a block: the summary prompt (with a registry prompt's
    text, delimited as untrusted, when there is one) and the block's text."""
    system = (
        summary_prompt()
        + "\n"
        + operator_instructions(instructions, "what to keep in the summary and how to phrase it")
    )
    return [
        {"role": "system", "content": system.rstrip("\n")},
        {"role": "user", "content": block_text(content)},
    ]


def turn_messages(turns: list[dict[str, Any]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for turn in turns:
        for role in ("user", "assistant"):
            text = turn.get(f"{role}_content")
            if text is not None:
                out.append({"role": role, "content": text})
    return out


def block_text(content: dict[str, Any]) -> str:
    """The block's exchanges and facts as plain text (what the summary is made from)."""
    lines = [f"{m['role']}: {m['content']}" for m in turn_messages(content["messages"])]
    lines += [f"fact: {fact}" for fact in content["facts"]]
    return "\n".join(lines)


REFERENCED = "prompt_created_at"
"""The key of a block's extraction state that records which prompt the block's
reference means: the prompt's ``created_at`` when the reference was taken
(:func:`graphmem.extraction.resolving.referenced_at`)."""


def restarted(
    state: dict[str, Any] | None, reference: dict[str, Any] | None
) -> dict[str, Any] | None:
    """A block's extraction state when it is to be extracted again under a new
    prompt reference (``reference``: its :data:`REFERENCED` entry, None for none):
    what an earlier run wrote is stale."""
    stale = [*(state or {}).get("stale", []), *(state or {}).get("record_ids", [])]
    fresh = {**(reference or {}), **({"stale": stale} if stale else {})}
    return fresh or None


def _check_text(where: str, text: str) -> None:
    """A turn's text or a fact, checked as memory content; an error names it by its
    place in the request's body (``messages[0].assistant_content``, ``facts[2]``)."""
    try:
        check_content(text)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(where, exc.detail) from exc


def checked_content(body: AddMemoryBody) -> dict[str, Any]:
    """The block's content from the request, checked: raises before any write."""
    turns = [t.model_dump() for t in body.messages]
    for i, turn in enumerate(turns):
        if turn["user_content"] is None and turn["assistant_content"] is None:
            raise InvalidArgumentError(
                f"messages[{i}]", "give user_content and/or assistant_content"
            )
        for field in ("user_content", "assistant_content"):
            if turn[field] is not None:
                _check_text(f"messages[{i}].{field}", turn[field])
    for i, fact in enumerate(body.facts):
        _check_text(f"facts[{i}]", fact)
    if not turns and not body.facts:
        raise InvalidArgumentError("messages", "a block needs messages and/or facts")
    return {"messages": turns, "facts": list(body.facts)}
