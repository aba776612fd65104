"""Which prompt a piece of extraction work runs with.

Work refers to a registry prompt by id and version (None: the current one) and
records the prompt's ``created_at`` when the reference is taken. When the work
runs, the reference is resolved as work in flight: an archived prompt or version
still resolves; a purged one falls back to the base prompt. A whole purge frees
the id, and a prompt registered under it later is another prompt: work that
referred to the purged one (pinned or late-bound) falls back to the base prompt
too, since its ``created_at`` differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.core.validation import format_time, parse_time
from graphmem.extraction.models import BASE_PROMPT_ID, BASE_PROMPT_VERSION
from graphmem.registry_errors import PromptNotFoundError

if TYPE_CHECKING:
    from graphmem.memory import GraphMemory
    from graphmem.registry_models import Prompt

__all__ = ["PromptChoice", "prompt_for_work", "referenced_at"]


@dataclass(frozen=True)
class PromptChoice:
    """The prompt one extraction runs with: a registry prompt's ``text`` (None:
    the base prompt) and what provenance records of it (``fallback``: a registry
    prompt was asked for but is gone, so the base prompt runs)."""

    text: str | None = None
    prompt_id: str = BASE_PROMPT_ID
    vid: int | None = BASE_PROMPT_VERSION
    fallback: bool = False

    @property
    def registry_vid(self) -> int | None:
        """The registry version that runs; None for the base prompt."""
        return None if self.text is None else self.vid


def referenced_at(prompt: Prompt) -> str:
    """What work records of the prompt it refers to (its ``created_at``, as text)."""
    return format_time(prompt.created_at)


def prompt_for_work(
    memory: GraphMemory, prompt_id: str | None, vid: int | None, referenced: str | None
) -> PromptChoice:
    """The prompt of a reference taken earlier (``referenced``: what
    :func:`referenced_at` gave then; None for work queued before it was recorded,
    which trusts any prompt of the id), resolved as work in flight.

    Raises:
        PromptError: ``PROMPT_ERROR``: the stored text breaks a text rule.
    """
    if prompt_id is None:
        return PromptChoice()
    try:
        born = None if referenced is None else parse_time(referenced)
    except (TypeError, ValueError):  # unreadable: the prompt meant cannot be told
        return PromptChoice(fallback=True)
    try:
        found = memory.resolve_prompt(prompt_id, vid, in_flight=True, created_at=born)
    except PromptNotFoundError:  # purged meanwhile: the base prompt runs
        return PromptChoice(fallback=True)
    return PromptChoice(found.prompt, found.prompt_id, found.vid)
