"""``MemoryExtractionConfig``: what memory extraction does, at client, thread and call level.

The effective config of one extraction is built in this order, each level
overriding only the fields it sets: the client's (``GraphMemory(...,
memory_extraction_config=...)``), the thread's stored config, the thread's
``memory_extraction_window`` / ``_frequency`` / ``_token_limit`` settings when
they are set (not ``-1`` / ``-1`` / ``0``), then the config given to one call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator

from graphmem.core.config_model import CheckedModel, ModeEnum, fields_of, mode_of
from graphmem.core.validation import MAX_COUNT
from graphmem.errors import InvalidArgumentError

__all__ = [
    "LINK_CANDIDATES_PER_RECORD",
    "MAX_LINK_CANDIDATES",
    "MAX_RECORDS_PER_EXTRACTION",
    "THREAD_OVERRIDES",
    "MemoryExtractionConfig",
    "MemoryLinkExtractionMode",
    "check_extraction_config",
    "check_thread_override",
    "effective_config",
]

LINK_CANDIDATES_PER_RECORD = 5
"""``POST_EXTRACTION``: stored records retrieved per new record as link candidates."""

MAX_LINK_CANDIDATES = 20
"""Link candidates shown to the LLM in one extraction, in any mode."""

MAX_RECORDS_PER_EXTRACTION = 20
"""Records kept from one extraction reply (the rest are dropped and counted)."""

THREAD_OVERRIDES: dict[str, int] = {
    "memory_extraction_window": -1,
    "memory_extraction_frequency": -1,
    "memory_extraction_token_limit": 0,
}
"""The thread settings that override the config field of the same name, each
with its value that means "not set"."""


class MemoryLinkExtractionMode(ModeEnum):
    """How extraction links new records to stored ones (a config takes the
    member or its name in any case; the name is stored).

    * ``POST_EXTRACTION`` (default): extract first, then retrieve up to
      :data:`LINK_CANDIDATES_PER_RECORD` stored records per new record (at most
      :data:`MAX_LINK_CANDIDATES` in all) and ask the LLM once more for links.
    * ``DURING_EXTRACTION``: retrieve up to :data:`MAX_LINK_CANDIDATES` stored
      records close to the messages first and let the extraction call itself
      propose links (one LLM call).
    * ``DISABLED``: no automatic links.
    """

    POST_EXTRACTION = "POST_EXTRACTION"
    DURING_EXTRACTION = "DURING_EXTRACTION"
    DISABLED = "DISABLED"


def _inherited_keys(value: object) -> bool | list[str]:
    if isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(key, str) for key in value):
        return list(value)
    raise ValueError(f"must be True, False or a list of metadata keys; got {value!r:.60}")


class MemoryExtractionConfig(CheckedModel):
    """How memories are extracted from a thread's messages.

    Attributes:
        extract_memories: extract at all (an LLM is needed too).
        memory_extraction_frequency: extract each time the thread's message
            count reaches a multiple of this; ``-1``: once per ``add_messages`` call.
        memory_extraction_window: the last this many messages are read.
        memory_extraction_token_limit: the window is cut, oldest messages first,
            to about this many tokens (4 characters each); 0 or less: no limit.
        memory_extraction_custom_instructions: extra instructions for extraction.
        memory_link_extraction_custom_instructions: extra instructions for linking.
        memory_extraction_inherit_message_metadata: copy the metadata of a
            record's source messages onto it: ``True`` every key, a list of keys
            those keys, ``False`` none.
        memory_link_extraction_mode: see :class:`MemoryLinkExtractionMode`.
    """

    extract_memories: bool = True
    memory_extraction_frequency: int = Field(default=5)
    memory_extraction_window: int = Field(default=10, ge=1, le=1000)
    memory_extraction_token_limit: int = Field(default=8000, le=MAX_COUNT)
    memory_extraction_custom_instructions: str | None = Field(default=None, max_length=4000)
    memory_link_extraction_custom_instructions: str | None = Field(default=None, max_length=4000)
    memory_extraction_inherit_message_metadata: Annotated[
        bool | list[str], BeforeValidator(_inherited_keys)
    ] = False
    memory_link_extraction_mode: Annotated[
        MemoryLinkExtractionMode, BeforeValidator(mode_of(MemoryLinkExtractionMode))
    ] = MemoryLinkExtractionMode.POST_EXTRACTION

    @field_validator("memory_extraction_frequency")
    @classmethod
    def _frequency(cls, value: int) -> int:
        if value != -1 and not 1 <= value <= MAX_COUNT:
            raise ValueError("must be -1 or an integer >= 1")
        return value


def _validated(argument: str, data: Mapping[str, Any]) -> MemoryExtractionConfig:
    with fields_of(argument):
        return MemoryExtractionConfig.model_validate(dict(data))


def check_extraction_config(argument: str, value: object) -> dict[str, Any] | None:
    """A config given by a caller, as the JSON of the fields it sets (``None``: none).

    Accepts a :class:`MemoryExtractionConfig` or a mapping of its fields.
    """
    if value is None:
        return None
    if isinstance(value, MemoryExtractionConfig):
        return value.model_dump(mode="json", exclude_unset=True)
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(
            argument, f"must be a MemoryExtractionConfig or a mapping, not {type(value).__name__}"
        )
    checked = _validated(argument, value)
    return checked.model_dump(mode="json", include=set(value))


def check_thread_override(argument: str, value: object) -> int:
    """A thread setting of :data:`THREAD_OVERRIDES`: its "not set" value, or a
    value the config field of the same name takes (nothing else, so that the
    setting can never make the thread's effective config invalid).

    Raises:
        InvalidArgumentError: anything else, named ``argument``.
    """
    unset = THREAD_OVERRIDES[argument]
    if type(value) is int and value == unset:
        return value
    try:
        checked = MemoryExtractionConfig.model_validate({argument: value})
    except InvalidArgumentError as error:
        raise InvalidArgumentError(
            argument,
            f"must be {unset} (not set) or a value the config's field takes "
            f"({error.detail}); got {value!r:.60}",
        ) from None
    taken: int = getattr(checked, argument)
    return taken


def stored_fields(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The known fields of a stored config (keys of other versions ignored)."""
    known = MemoryExtractionConfig.model_fields
    return {k: v for k, v in (stored or {}).items() if k in known}


def effective_config(
    client: MemoryExtractionConfig,
    thread_config: Mapping[str, Any] | None,
    thread_settings: Mapping[str, int],
    call: Mapping[str, Any] | None = None,
) -> MemoryExtractionConfig:
    """The config one extraction runs with (levels as in the module docstring)."""
    data = client.model_dump(mode="json")
    data.update(stored_fields(thread_config))
    for name, unset in THREAD_OVERRIDES.items():
        value = thread_settings.get(name, unset)
        if value != unset:
            data[name] = value
    data.update(stored_fields(call))
    return _validated("memory_extraction_config", data)
