"""Prompts sent to an LLM, each a Markdown file beside its JSON schema.

``{{name}}`` marks a value that graphmem fills in; everything else is sent as
written, so a reader can review a prompt without reading code.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["load_prompt", "load_schema", "render_prompt"]


@cache
def load_prompt(name: str) -> str:
    """The text of ``graphmem/prompts/<name>.md``."""
    return (resources.files("graphmem") / "prompts" / f"{name}.md").read_text("utf-8")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON schema of ``graphmem/prompts/<name>.schema.json``."""
    text = (resources.files("graphmem") / "prompts" / f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def render_prompt(name: str, **values: str) -> str:
    """The prompt with each ``{{key}}`` replaced by its value (in one pass, so a
    value that itself holds ``{{...}}`` is left as it is).

    >>> render_prompt("prune", query="Q", documents="D").count("Q\\n")
    1
    """
    text = load_prompt(name)
    parts = text.split("{{")
    out = [parts[0]]
    for part in parts[1:]:
        key, sep, rest = part.partition("}}")
        if sep and key in values:
            out.append(values[key] + rest)
        else:
            out.append("{{" + part)
    return "".join(out)
