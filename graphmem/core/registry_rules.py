"""The prompt registry's rules: ids, field limits and prompt text validation.

Pure functions over plain values. Registered prompt text is placed inside the
extraction system prompt, so it is untrusted: :func:`prompt_text_problem` names
what is wrong with a text, and the registry checks it when a prompt is
registered and again every time one is resolved for use (text may reach the
tables by a direct database write).

>>> prompt_text_problem("Extract order numbers and refund amounts.") is None
True
>>> prompt_text_problem("<|im_start|>system")
'contains a chat-template control token (<|im_start|>)'
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

__all__ = [
    "DEFAULT_PROMPT_ID",
    "DELIMITER_CHARS",
    "MAX_DELIMITER_RUN",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_PROMPT_ID_LENGTH",
    "MAX_PROMPT_LENGTH",
    "PROMPT_ID_PATTERN",
    "SECTION_NAMES",
    "prompt_id_problem",
    "prompt_text_problem",
]

MAX_PROMPT_ID_LENGTH = 128
MAX_PROMPT_LENGTH = 4000
MAX_DESCRIPTION_LENGTH = 200
PROMPT_ID_PATTERN = re.compile(r"[a-zA-Z0-9_-]+")
DEFAULT_PROMPT_ID = "default"
"""Reserved: it names the base extraction prompt (clearing a block's prompt)."""

MAX_DELIMITER_RUN = 2
"""The longest run of one delimiter character a prompt may hold (``--`` yes, ``---`` no)."""

DELIMITER_CHARS = frozenset("-=_*#~`+<>|\u2013\u2014\u2015\u2500\u2501\u2550")
"""Characters that, repeated, draw a separator line between prompt sections."""

SECTION_NAMES = frozenset(
    {
        "system",
        "system prompt",
        "instructions",
        "custom instructions",
        "extraction instructions",
        "rules",
        "output",
        "output format",
        "response format",
        "json schema",
        "schema",
        "examples",
        "conversation",
        "messages",
        "facts",
        "memory block",
        "summary",
    }
)
"""Section names of the extraction system prompt: a line naming one is a forged header."""

# Characters a prompt line may hold although they are control characters.
_ALLOWED_CONTROLS = frozenset("\n\t\r")
# Invisible characters outside the control / format categories.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp", "Co", "Cs"})

_CHAT_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>"  # <|im_start|>, <|eot_id|>, <|system|>
    r"|\[/?INST\]|<</?SYS>>"  # Llama 2
    r"|</?s>|<bos>|<eos>|<(?:start|end)_of_turn>",  # sentence and Gemma turn tokens
    re.IGNORECASE,
)
_ROLES = r"system|assistant|user|human|ai|developer|tool|function|model"
_ROLE_LINE = re.compile(rf"^\W*(?:{_ROLES})\s*:", re.IGNORECASE | re.MULTILINE)
_ROLE_TAG = re.compile(rf"</?\s*(?:{_ROLES})\s*/?>", re.IGNORECASE)
_MARKDOWN_HEADING = re.compile(r"^\s*#{1,6}\s+\S", re.MULTILINE)
_TAG_LINE = re.compile(r"^\s*(?:\[[A-Za-z][\w -]{0,40}\]|</?[A-Za-z][\w-]{0,40}>)\s*$")
_DECORATION = " \t#*=[]<>/:_-"


def prompt_id_problem(value: str) -> str | None:
    """What is wrong with a prompt id, or None.

    >>> prompt_id_problem("support_tickets") is None
    True
    >>> prompt_id_problem("default")
    "'default' is reserved (it names the base extraction prompt)"
    """
    if not 1 <= len(value) <= MAX_PROMPT_ID_LENGTH:
        return f"must be 1 to {MAX_PROMPT_ID_LENGTH} characters; got {len(value)}"
    if PROMPT_ID_PATTERN.fullmatch(value) is None:
        return "may hold only letters a-z and A-Z, digits, '_' and '-'"
    if value == DEFAULT_PROMPT_ID:
        return "'default' is reserved (it names the base extraction prompt)"
    return None


def _hidden_character(text: str) -> str | None:
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cc" and ch not in _ALLOWED_CONTROLS:
            return f"contains the control character U+{ord(ch):04X}"
        if category in _INVISIBLE_CATEGORIES or ch in _INVISIBLE or _is_selector(ch):
            return f"contains the invisible character U+{ord(ch):04X}"
    return None


def _is_selector(ch: str) -> bool:
    code = ord(ch)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _section_header(text: str) -> str | None:
    if _MARKDOWN_HEADING.search(text):
        return "forges a section header (a markdown heading)"
    for line in text.splitlines():
        if _TAG_LINE.match(line):
            return f"forges a section header ({line.strip()!r})"
        name = " ".join(line.strip(_DECORATION).lower().split())
        if name in SECTION_NAMES:
            return f"forges a section header ({line.strip()!r})"
    return None


def _delimiter_run(text: str) -> str | None:
    run = 1
    for before, ch in pairwise(text):
        run = run + 1 if ch == before and ch in DELIMITER_CHARS else 1
        if run > MAX_DELIMITER_RUN:
            return f"contains a run of {ch!r} longer than {MAX_DELIMITER_RUN} (a delimiter line)"
    return None


def _chat_template(text: str) -> str | None:
    token = _CHAT_TOKEN.search(text)
    if token:
        return f"contains a chat-template control token ({token.group(0)})"
    marker = _ROLE_LINE.search(text) or _ROLE_TAG.search(text)
    if marker:
        return f"contains a role marker ({marker.group(0).strip()!r})"
    return None


def prompt_text_problem(text: str) -> str | None:
    """What makes ``text`` unfit to enter the extraction prompt, or None.

    The classes, checked in this order: control and invisible characters,
    forged section headers, long delimiter runs, chat-template tokens and role
    markers. (Length and emptiness are the caller's checks.)
    """
    for check in (_hidden_character, _section_header, _delimiter_run, _chat_template):
        problem = check(text)
        if problem is not None:
            return problem
    return None
