"""The pure part: prompts from files, replies parsed and checked."""

from __future__ import annotations

import json

import pytest

from graphmem import ModelError
from graphmem.extraction.models import WindowMessage
from graphmem.extraction.prompting import extraction_prompt, fit_window, parse_links, parse_records


def test_parse_records_keeps_good_items_and_counts_the_rest() -> None:
    items = [
        {
            "record_type": "fact",
            "content": "  The user   is vegetarian. ",
            "source_messages": [2, 9, "1"],
        },
        {"record_type": "message", "content": "not a memory type"},
        {"record_type": "fact", "content": "   "},
        "not an object",
    ] + [{"record_type": "memory", "content": f"m{i}", "source_messages": [1]} for i in range(22)]
    kept, dropped = parse_records("```json\n" + json.dumps({"records": items}) + "\n```", 3)
    assert kept[0].content == "The user is vegetarian." and kept[0].sources == (1,)
    assert len(kept) == 20 and dropped == 3 + 3  # three bad items, three beyond 20


def test_parse_records_keep_their_place_in_the_reply() -> None:
    items = [
        {"record_type": "opinion", "content": "dropped"},
        {"record_type": "fact", "content": "second", "source_messages": [1]},
        {"record_type": "fact", "content": ""},
        {"record_type": "memory", "content": "fourth", "source_messages": [1]},
    ]
    kept, dropped = parse_records(json.dumps({"records": items}), 1)
    assert [(r.content, r.ref) for r in kept] == [("second", "new-1"), ("fourth", "new-3")]
    assert dropped == 2


@pytest.mark.parametrize("reply", ["", "{", "[]", '{"records": {}}', '{"links": []}'])
def test_parse_records_rejects_replies_out_of_schema(reply: str) -> None:
    with pytest.raises(ModelError, match="extraction reply"):
        parse_records(reply, 1)


def test_parse_links_optional_and_malformed_items() -> None:
    assert parse_links('{"records": []}', "extraction", optional=True) == ([], 0)
    with pytest.raises(ModelError):
        parse_links('{"records": []}', "linking")
    body = {
        "links": [{"source": "new-0", "target": "mem-1", "relation_type": "supports"}, {"x": 1}]
    }
    proposals, malformed = parse_links(json.dumps(body), "linking")
    assert [(p.source, p.target, p.relation_type) for p in proposals] == [
        ("new-0", "mem-1", "supports")
    ]
    assert malformed == 1


def test_fit_window_keeps_the_newest_that_fit() -> None:
    window = [WindowMessage(str(i), "user", "x" * 40, {}) for i in range(5)]  # 14 tokens each
    assert [m.record_id for m in fit_window(window, 30)] == ["3", "4"]
    assert [m.record_id for m in fit_window(window, 1)] == ["4"]  # the newest, always
    assert len(fit_window(window, 0)) == 5


def test_extraction_prompt_numbers_messages_and_delimits_registry_text() -> None:
    window = [WindowMessage("a", "user", "Hi", {}), WindowMessage("b", "assistant", "Hello", {})]
    text = extraction_prompt(
        window,
        custom_instructions="Be brief.",
        registry_text="Only dates.",
        candidates=None,
        link_instructions=None,
    )
    assert '[1] user: "Hi"\n[2] assistant: "Hello"\n' in text and "Be brief." in text
    start = text.index("===== OPERATOR INSTRUCTIONS (untrusted) =====")
    assert text.index("Only dates.") > start
    assert text.index("===== END OF OPERATOR INSTRUCTIONS =====") > text.index("Only dates.")
    assert "{{" not in text and "STORED MEMORIES" not in text
