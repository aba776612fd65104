"""Free text of users, agents and the prompt registry: text that cannot be stored as
UTF-8 (a lone surrogate) is refused with the argument named, and nothing is written."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest

from graphmem import GraphMemory, InvalidArgumentError
from graphmem.registry_errors import PromptArgumentError
from graphmem.transfer import ImportLineError

LONE = "hi \ud800"


@pytest.mark.parametrize("kind", ["user", "agent"])
def test_information_that_is_not_unicode_text_is_refused(memory: GraphMemory, kind: str) -> None:
    add: Callable[..., str] = getattr(memory, f"add_{kind}")
    with pytest.raises(InvalidArgumentError, match=r"^information: is not valid Unicode text"):
        add("p1", LONE)
    assert memory.list_users() == [] and memory.list_agents() == []
    assert add("p1", "hi") == "p1"


def test_prompt_description_that_is_not_unicode_text_is_refused(memory: GraphMemory) -> None:
    with pytest.raises(PromptArgumentError, match=r"^description: is not valid Unicode text"):
        memory.create_prompt("p", "Extract dates.", description=LONE)
    assert memory.list_prompts().total == 0
    memory.create_prompt("p", "Extract dates.", description="dates")
    with pytest.raises(PromptArgumentError, match=r"^description: is not valid Unicode text"):
        memory.update_prompt("p", description=LONE)
    assert memory.get_prompt("p").description == "dates"


@pytest.mark.parametrize(
    ("line", "argument"),
    [
        ({"kind": "user", "user_id": "u1", "information": LONE}, "information"),
        ({"kind": "agent", "agent_id": "a1", "information": LONE}, "information"),
        (
            {
                "kind": "prompt",
                "prompt_id": "p",
                "description": LONE,
                "versions": [{"vid": 0, "prompt": "Extract dates."}],
            },
            "description",
        ),
    ],
)
def test_import_of_such_text_names_its_line(
    memory: GraphMemory, line: dict[str, object], argument: str
) -> None:
    text = json.dumps({"kind": "memory", "memory_id": "m", "content": "x"}) + "\n"
    text += json.dumps(line) + "\n"  # ASCII JSON: the surrogate as an escape
    with pytest.raises(ImportLineError, match=rf"^line 2: {argument}: is not valid Unicode"):
        memory.import_jsonl(io.BytesIO(text.encode()))
    assert memory.list_users() == [] and memory.list_agents() == []
    assert memory.list_prompts().total == 0
