"""The extraction and linking prompts (files in ``graphmem/prompts/``) and their replies.

Pure: text in, text or checked values out. A registry prompt is untrusted: it is
inserted between delimiter lines that registered text cannot contain or imitate
(delimiter runs and the prompts' delimiter labels are refused at registration
and at resolution, :mod:`graphmem.core.registry_rules`). Message and record texts
(user and stored text, never checked against those rules) are each inserted as
one JSON string literal on the line graphmem starts (:func:`quoted`), so that no
such text can start a line of the prompt: not a delimiter, not a message number
or role, not a record label.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.ai.llm import strip_json_fences
from graphmem.core.record_types import MEMORY_TYPES
from graphmem.core.relations import LIFECYCLE_TYPES
from graphmem.core.validation import MAX_CONTENT_LENGTH
from graphmem.errors import ModelError
from graphmem.extraction.config import MAX_RECORDS_PER_EXTRACTION
from graphmem.extraction.models import Candidate, ExtractedRecord, LinkProposal, WindowMessage
from graphmem.prompts import load_prompt, load_schema, quoted, render_prompt

__all__ = [
    "LINK_TYPES",
    "approx_tokens",
    "extraction_prompt",
    "extraction_schema",
    "fit_window",
    "link_prompt",
    "link_schema",
    "operator_instructions",
    "parse_links",
    "parse_records",
    "quoted",
]

LINK_TYPES = frozenset({*LIFECYCLE_TYPES, "supports", "contradicts"})
"""The relation types extraction may propose."""


def approx_tokens(text: str) -> int:
    """One token per 4 characters, rounded up."""
    return -(-len(text) // 4)


def fit_window(messages: Sequence[WindowMessage], token_limit: int) -> list[WindowMessage]:
    """The newest messages whose text fits ``token_limit`` (the newest always kept)."""
    kept: list[WindowMessage] = []
    used = 0
    for message in reversed(messages):
        cost = approx_tokens(message.content) + 4
        if kept and token_limit > 0 and used + cost > token_limit:
            break
        kept.append(message)
        used += cost
    return kept[::-1]


def _transcript(messages: Sequence[WindowMessage]) -> str:
    return "\n".join(f"[{i}] {m.role}: {quoted(m.content)}" for i, m in enumerate(messages, 1))


def _records(items: Sequence[Candidate] | Sequence[ExtractedRecord]) -> str:
    return "\n".join(f"{r.ref} ({r.record_type}): {quoted(r.content)}" for r in items)


def _candidates(candidates: Sequence[Candidate]) -> str:
    return _records(candidates) or "(none)"


def _custom(label: str, text: str | None) -> str:
    return f"\n{label}:\n{text.strip()}\n" if text and text.strip() else ""


def operator_instructions(text: str | None, purpose: str) -> str:
    """A registry prompt's text, delimited as untrusted (``graphmem/prompts/operator.md``),
    or ``""`` without one; ``purpose`` says what the text may steer.

    >>> operator_instructions("Only dates.", "what to extract").splitlines()[-2:]
    ['Only dates.', '===== END OF OPERATOR INSTRUCTIONS =====']
    """
    if not text or not text.strip():
        return ""
    return "\n" + render_prompt("operator", purpose=purpose, instructions=text.strip())


def extraction_prompt(
    messages: Sequence[WindowMessage],
    *,
    custom_instructions: str | None,
    registry_text: str | None,
    candidates: Sequence[Candidate] | None,
    link_instructions: str | None,
) -> str:
    """The extraction prompt; with ``candidates`` (``DURING_EXTRACTION``) it asks for links too."""
    link_task = ""
    if candidates is not None:
        link_task = render_prompt(
            "extract_links_task",
            candidates=_candidates(candidates),
            link_instructions=_custom("Linking instructions", link_instructions),
        )
    return render_prompt(
        "extract",
        link_task=link_task,
        custom_instructions=_custom("Instructions of this application", custom_instructions),
        operator_instructions=operator_instructions(
            registry_text, "what to extract and how to phrase it"
        ),
        messages=_transcript(messages),
    )


def extraction_schema(with_links: bool) -> dict[str, Any]:
    return load_schema("extract_links" if with_links else "extract")


def link_prompt(
    records: Sequence[ExtractedRecord],
    candidates: Sequence[Candidate],
    link_instructions: str | None,
) -> str:
    """The ``POST_EXTRACTION`` linking prompt (the new records by their :attr:`ref`)."""
    return render_prompt(
        "link",
        new_records=_records(records),
        candidates=_candidates(candidates),
        link_instructions=_custom("Linking instructions", link_instructions),
    )


def link_schema() -> dict[str, Any]:
    return load_schema("link")


def base_prompt_text() -> str:
    """The base extraction prompt as shipped (for documentation and review)."""
    return load_prompt("extract")


def _bad_reply(what: str, problem: str) -> ModelError:
    return ModelError(
        f"memory extraction: the LLM's {what} reply {problem}",
        status=None,
        provider_message=problem,
    )


def _load(what: str, reply: object, key: str) -> list[Any]:
    if not isinstance(reply, str):
        raise _bad_reply(what, f"is {type(reply).__name__}, not text")
    try:
        data = json.loads(strip_json_fences(reply))
    except ValueError:
        raise _bad_reply(what, f"is not JSON: {reply[:80]!r}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get(key), list):
        raise _bad_reply(what, f"has no list {key!r}")
    items: list[Any] = data[key]
    return items


def _has_key(reply: object, key: str) -> bool:
    try:
        data = json.loads(strip_json_fences(str(reply)))
    except ValueError:
        return True  # let _load report the reply
    return not isinstance(data, Mapping) or key in data


def _record(item: object, window: int, position: int) -> ExtractedRecord | None:
    if not isinstance(item, Mapping):
        return None
    rtype, content = item.get("record_type"), item.get("content")
    if rtype not in MEMORY_TYPES or not isinstance(content, str):
        return None
    text = " ".join(content.split())
    if not text or len(text) > MAX_CONTENT_LENGTH:
        return None
    raw = item.get("source_messages")
    numbers = raw if isinstance(raw, list) else []
    sources = sorted({n - 1 for n in numbers if type(n) is int and 1 <= n <= window})
    return ExtractedRecord(str(rtype), text, tuple(sources or range(window)), position)


def parse_records(reply: object, window: int) -> tuple[list[ExtractedRecord], int]:
    """The records of an extraction reply and how many were dropped. Each keeps
    its position in the reply, so ``new-N`` names the reply's N-th record even
    when records before it were dropped.

    Raises:
        ModelError: the reply is not JSON with a ``records`` list.
    """
    items = _load("extraction", reply, "records")
    checked = (_record(item, window, position) for position, item in enumerate(items))
    kept = [r for r in checked if r is not None]
    dropped = len(items) - len(kept) + max(0, len(kept) - MAX_RECORDS_PER_EXTRACTION)
    return kept[:MAX_RECORDS_PER_EXTRACTION], dropped


def parse_links(
    reply: object, what: str, *, optional: bool = False
) -> tuple[list[LinkProposal], int]:
    """The well-formed link proposals of a reply and how many were malformed
    (``optional``: a reply without ``links`` proposes none).

    Raises:
        ModelError: the reply is not JSON with a ``links`` list.
    """
    if optional and not _has_key(reply, "links"):
        return [], 0
    items = _load(what, reply, "links")
    kept: list[LinkProposal] = []
    for item in items:
        if isinstance(item, Mapping) and all(
            isinstance(item.get(k), str) for k in ("source", "target", "relation_type")
        ):
            kept.append(LinkProposal(item["source"], item["target"], item["relation_type"]))
    return kept, len(items) - len(kept)
