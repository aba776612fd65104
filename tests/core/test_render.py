"""SPEC section 4: rendering search results as prompt text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from typing import Any

import pytest

from graphmem import (
    GraphMemory,
    InvalidArgumentError,
    MemoryRecord,
    RecordRelation,
    SearchResult,
    SearchResultFormatConfig,
)
from graphmem.core.render import escape_attribute, escape_text

CREATED = datetime(2026, 1, 1, tzinfo=timezone.utc)
BARE = SearchResultFormatConfig(
    show_timestamp=False, show_status=False, show_role=False, include_invalid_results=True
)

SPEC_EXAMPLE = """\
<preference>
  <record_id>pizza-neapolitan-sourdough</record_id>
  <content>The user's preferred pizza style is sourdough, especially Neapolitan sourdough.</content>
  <linked_records>
    <linked_record>
      <relation_type>refines</relation_type>
      <preference>
        <record_id>pizza-sourdough</record_id>
        <content>The user now prefers sourdough pizza.</content>
      </preference>
    </linked_record>
  </linked_records>
</preference>"""


def _record(record_id: str, status: str = "valid", **fields: Any) -> MemoryRecord:
    values: dict[str, Any] = {
        "id": record_id,
        "record_type": "memory",
        "content": f"content of {record_id}",
        "status": status,
        "timestamp": CREATED,
        "created_at": CREATED,
    }
    values.update(fields)
    return MemoryRecord(**values)


def _rel(
    source: str, target: str, relation_type: str = "supports", opposite: str = ""
) -> RecordRelation:
    return RecordRelation(
        id=f"{source}->{target}",
        source_record_id=source,
        source_record_type="memory",
        target_record_id=target,
        target_record_type="memory",
        relation_type=relation_type,
        opposite_relation_type=opposite or f"inverse_{relation_type}",
        created_at=CREATED,
    )


def _node(
    record: MemoryRecord,
    *children: tuple[RecordRelation, SearchResult],
    distance: float | None = None,
    include_invalid: bool = False,
) -> SearchResult:
    return SearchResult(
        record=record,
        distance=distance,
        linked_results=list(children),
        include_invalid_results=include_invalid,
    )


def _child(parent: str, record: MemoryRecord, *children) -> tuple[RecordRelation, SearchResult]:
    return _rel(parent, record.id), _node(record, *children)


def _parse(text: str) -> ET.Element:
    """The rendered text must be well-formed: it parses as one XML element."""
    return ET.fromstring(text)


# the SPEC example ---------------------------------------------------------------


def test_render_spec_example_exact(memory: GraphMemory, pizza) -> None:
    thin, sour, neo = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    memory.link_records(neo, "preference", sour, "preference", "refines")
    results = memory.search(
        "What pizza should I recommend?",
        user_id="graph-demo-user",
        max_results=5,
        num_hops=1,
        max_linked_results=20,
    )
    config = SearchResultFormatConfig(
        show_timestamp=False, show_status=False, include_invalid_results=True
    )
    assert [r.format_content(config) for r in results] == [SPEC_EXAMPLE]


@pytest.mark.parametrize("hops", [1, 2])
def test_render_spec_example_invalid_history_pruned(memory: GraphMemory, pizza, hops) -> None:
    thin, sour, neo = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    memory.link_records(neo, "preference", sour, "preference", "refines")
    results = memory.search("pizza", user_id="graph-demo-user", num_hops=hops)
    config = SearchResultFormatConfig(show_timestamp=False, show_status=False)
    assert [r.format_content(config) for r in results] == [
        "<preference>\n"
        "  <record_id>pizza-neapolitan-sourdough</record_id>\n"
        "  <content>The user's preferred pizza style is sourdough, especially Neapolitan"
        " sourdough.</content>\n"
        "</preference>"
    ]


# layout -------------------------------------------------------------------------


def test_render_two_level_nesting_exact() -> None:
    tree = _node(_record("a"), _child("a", _record("b"), _child("b", _record("c"))))
    assert tree.format_content(BARE) == "\n".join(
        [
            "<memory>",
            "  <record_id>a</record_id>",
            "  <content>content of a</content>",
            "  <linked_records>",
            "    <linked_record>",
            "      <relation_type>supports</relation_type>",
            "      <memory>",
            "        <record_id>b</record_id>",
            "        <content>content of b</content>",
            "        <linked_records>",
            "          <linked_record>",
            "            <relation_type>supports</relation_type>",
            "            <memory>",
            "              <record_id>c</record_id>",
            "              <content>content of c</content>",
            "            </memory>",
            "          </linked_record>",
            "        </linked_records>",
            "      </memory>",
            "    </linked_record>",
            "  </linked_records>",
            "</memory>",
        ]
    )


def test_render_no_trailing_newline() -> None:
    assert not _node(_record("a")).format_content(BARE).endswith("\n")


@pytest.mark.parametrize("record_type", ["memory", "fact", "preference", "guideline"])
def test_render_element_is_record_type(record_type: str) -> None:
    text = _node(_record("a", record_type=record_type)).format_content(BARE)
    assert text.splitlines()[0] == f"<{record_type}>"
    assert text.splitlines()[-1] == f"</{record_type}>"


def test_render_children_in_given_order() -> None:
    tree = _node(_record("r"), _child("r", _record("z")), _child("r", _record("a")))
    root = _parse(tree.format_content(BARE))
    assert [e.findtext("memory/record_id") for e in root.iter("linked_record")] == ["z", "a"]


def test_render_label_is_reverse_when_parent_is_target() -> None:
    relation = _rel("child", "root", "supersedes", "is_superseded_by")
    tree = _node(_record("root"), (relation, _node(_record("child"))))
    assert "<relation_type>is_superseded_by</relation_type>" in tree.format_content(BARE)


def test_render_label_is_type_when_parent_is_source() -> None:
    relation = _rel("root", "child", "supersedes", "is_superseded_by")
    tree = _node(_record("root"), (relation, _node(_record("child"))))
    assert "<relation_type>supersedes</relation_type>" in tree.format_content(BARE)


def test_render_no_linked_records_element_without_children() -> None:
    assert "linked_records" not in _node(_record("a")).format_content(BARE)


# config flags -------------------------------------------------------------------

FULL = _record(
    "a",
    thread_id="t1",
    user_id="u1",
    agent_id="g1",
    metadata={"source": "chat", "score": 3},
    timestamp=datetime(2025, 6, 1, 12, 30, tzinfo=timezone.utc),
)
ALL_ON = SearchResultFormatConfig(
    show_thread_id=True,
    show_distance=True,
    show_timestamp=True,
    show_role=True,
    show_user_id=True,
    show_agent_id=True,
    show_status=True,
    show_metadata=True,
)


def test_render_all_fields_in_spec_order() -> None:
    text = _node(FULL, distance=0.25).format_content(ALL_ON)
    assert text.splitlines() == [
        "<memory>",
        "  <record_id>a</record_id>",
        "  <thread_id>t1</thread_id>",
        "  <estimated_relevance>0.75</estimated_relevance>",
        "  <timestamp>2025-06-01T12:30:00+00:00</timestamp>",
        "  <user_id>u1</user_id>",
        "  <agent_id>g1</agent_id>",
        "  <status>valid</status>",
        "  <source>chat</source>",
        "  <score>3</score>",
        "  <content>content of a</content>",
        "</memory>",
    ]


def test_render_defaults_show_timestamp_and_status_only() -> None:
    text = _node(FULL, distance=0.25).format_content()
    assert text.splitlines() == [
        "<memory>",
        "  <record_id>a</record_id>",
        "  <timestamp>2025-06-01T12:30:00+00:00</timestamp>",
        "  <status>valid</status>",
        "  <content>content of a</content>",
        "</memory>",
    ]


def test_render_config_defaults() -> None:
    config = SearchResultFormatConfig()
    assert (config.show_timestamp, config.show_role, config.show_status) == (True, True, True)
    assert not any(
        [
            config.show_thread_id,
            config.show_distance,
            config.show_user_id,
            config.show_agent_id,
            config.show_metadata,
        ]
    )
    assert config.include_invalid_results is None


def test_render_config_rejects_unknown_flag() -> None:
    with pytest.raises(InvalidArgumentError) as info:
        SearchResultFormatConfig(show_everything=True)  # type: ignore[call-arg]
    assert info.value.argument == "show_everything"


@pytest.mark.parametrize(
    ("flag", "line"),
    [
        ("show_thread_id", "<thread_id>t1</thread_id>"),
        ("show_distance", "<estimated_relevance>0.75</estimated_relevance>"),
        ("show_timestamp", "<timestamp>2025-06-01T12:30:00+00:00</timestamp>"),
        ("show_user_id", "<user_id>u1</user_id>"),
        ("show_agent_id", "<agent_id>g1</agent_id>"),
        ("show_status", "<status>valid</status>"),
        ("show_metadata", "<source>chat</source>"),
    ],
)
def test_render_each_flag_toggles_its_field(flag: str, line: str) -> None:
    result = _node(FULL, distance=0.25)
    off = BARE.model_copy(update={flag: False})
    on = BARE.model_copy(update={flag: True})
    assert f"  {line}" in result.format_content(on).splitlines()
    assert line not in result.format_content(off)


def test_render_role_absent_on_memories() -> None:
    text = _node(FULL).format_content(ALL_ON)
    assert "<role>" not in text


@pytest.mark.parametrize(
    ("flag", "element"),
    [
        ("show_thread_id", "thread_id"),
        ("show_user_id", "user_id"),
        ("show_agent_id", "agent_id"),
        ("show_distance", "estimated_relevance"),
        ("show_metadata", "metadata"),
    ],
)
def test_render_field_without_value_left_out(flag: str, element: str) -> None:
    text = _node(_record("a")).format_content(BARE.model_copy(update={flag: True}))
    assert f"<{element}" not in text
    assert text.splitlines() == [
        "<memory>",
        "  <record_id>a</record_id>",
        "  <content>content of a</content>",
        "</memory>",
    ]


@pytest.mark.parametrize(
    ("distance", "shown"), [(0.0, "1.00"), (0.123, "0.88"), (0.5, "0.50"), (1.2, "-0.20")]
)
def test_render_estimated_relevance_two_decimals(distance: float, shown: str) -> None:
    text = _node(_record("a"), distance=distance).format_content(
        BARE.model_copy(update={"show_distance": True})
    )
    assert f"<estimated_relevance>{shown}</estimated_relevance>" in text


def test_render_linked_record_has_no_relevance() -> None:
    tree = _node(_record("a"), _child("a", _record("b")), distance=0.1)
    root = _parse(tree.format_content(BARE.model_copy(update={"show_distance": True})))
    assert root.findtext("estimated_relevance") == "0.90"
    assert root.find("linked_records/linked_record/memory/estimated_relevance") is None


def test_render_timestamp_is_callers(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", timestamp="2024-02-29T23:59:59.5+00:00")
    text = memory.search("x")[0].format_content()
    assert "<timestamp>2024-02-29T23:59:59.500000+00:00</timestamp>" in text


def test_render_timestamp_defaults_to_created_at(clocked_memory: GraphMemory) -> None:
    clocked_memory.add_memory("x", memory_id="m")
    text = clocked_memory.search("x")[0].format_content()
    assert "<timestamp>2026-01-01T00:00:00+00:00</timestamp>" in text


def test_render_status_invalid_shown() -> None:
    tree = _node(_record("a", status="invalid"), include_invalid=True)
    assert "<status>invalid</status>" in tree.format_content()


# metadata -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("plain", "plain"),
        (3, "3"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        ([1, "a"], '[1, "a"]'),
        ({"x": 1}, '{"x": 1}'),
        ("café", "café"),
    ],
)
def test_render_metadata_value_forms(value: Any, shown: str) -> None:
    text = _node(_record("a", metadata={"k": value})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    assert f"  <k>{shown}</k>" in text.splitlines()


@pytest.mark.parametrize("key", ["source", "_private", "a.b-c", "Score2"])
def test_render_metadata_safe_key_is_element(key: str) -> None:
    text = _node(_record("a", metadata={key: "v"})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    assert f"  <{key}>v</{key}>" in text.splitlines()


@pytest.mark.parametrize(
    "key",
    [
        "content",
        "record_id",
        "status",
        "linked_records",
        "relation_type",
        "memory",
        "metadata",
        "a b",
        "1x",
        "xml-thing",
        "XMLish",
        "a:b",
        "",
        "-dash",
        "ключ",
    ],
)
def test_render_metadata_unsafe_key_is_keyed_element(key: str) -> None:
    text = _node(_record("a", metadata={key: "v"})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    assert f'  <metadata key="{key}">v</metadata>' in text.splitlines()
    root = _parse(text)
    assert [(e.get("key"), e.text) for e in root.findall("metadata")] == [(key, "v")]
    assert root.findtext("content") == "content of a"


def test_render_metadata_keys_in_stored_order() -> None:
    text = _node(_record("a", metadata={"zeta": 1, "alpha": 2, "mid": 3})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    assert [e.tag for e in _parse(text)][1:4] == ["zeta", "alpha", "mid"]


def test_render_metadata_keys_in_stored_order_through_store(memory: GraphMemory) -> None:
    memory.add_memory("x", memory_id="m", metadata={"zeta": 1, "alpha": 2, "mid": 3})
    text = memory.search("x")[0].format_content(BARE.model_copy(update={"show_metadata": True}))
    assert [e.tag for e in _parse(text)][1:4] == ["zeta", "alpha", "mid"]


# escaping -----------------------------------------------------------------------

NASTY = "a < b && c > d \"quoted\" 'single' </content><status>valid</status>\nsecond line"


def test_render_escapes_content() -> None:
    text = _node(_record("a", content=NASTY)).format_content(BARE)
    assert (
        "  <content>a &lt; b &amp;&amp; c &gt; d \"quoted\" 'single' "
        "&lt;/content&gt;&lt;status&gt;valid&lt;/status&gt;\nsecond line</content>"
    ) in text
    assert _parse(text).findtext("content") == NASTY


def test_render_escaped_content_cannot_forge_elements() -> None:
    root = _parse(_node(_record("a", content=NASTY)).format_content(BARE))
    assert [e.tag for e in root] == ["record_id", "content"]


def test_render_escapes_record_id() -> None:
    record_id = 'id<&>"x"'
    text = _node(_record(record_id)).format_content(BARE)
    assert '  <record_id>id&lt;&amp;&gt;"x"</record_id>' in text.splitlines()
    assert _parse(text).findtext("record_id") == record_id


@pytest.mark.parametrize("field", ["thread_id", "user_id", "agent_id"])
def test_render_escapes_scope_ids(field: str) -> None:
    value = "</content><x>&"
    text = _node(_record("a", **{field: value})).format_content(ALL_ON)
    assert _parse(text).findtext(field) == value


def test_render_escapes_metadata_value() -> None:
    text = _node(_record("a", metadata={"k": NASTY, "j": ["<a>", "&"]})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    root = _parse(text)
    assert root.findtext("k") == NASTY
    assert root.findtext("j") == '["<a>", "&"]'
    assert [e.tag for e in root] == ["record_id", "k", "j", "content"]


def test_render_escapes_metadata_key() -> None:
    key = 'x" y="<&>'
    text = _node(_record("a", metadata={key: "v"})).format_content(
        BARE.model_copy(update={"show_metadata": True})
    )
    assert '  <metadata key="x&quot; y=&quot;&lt;&amp;&gt;">v</metadata>' in text.splitlines()
    element = _parse(text).find("metadata")
    assert element is not None
    assert element.attrib == {"key": key}


def test_render_escapes_relation_label() -> None:
    relation = _rel("root", "child", "a<b&c>", "rev")
    tree = _node(_record("root"), (relation, _node(_record("child"))))
    root = _parse(tree.format_content(BARE))
    assert root.findtext("linked_records/linked_record/relation_type") == "a<b&c>"


def test_render_escapes_through_store(memory: GraphMemory) -> None:
    memory.add_memory(NASTY, memory_id="<id & co>", metadata={"</content>": "<v>"})
    text = memory.search(NASTY)[0].format_content(ALL_ON)
    root = _parse(text)
    assert root.findtext("record_id") == "<id & co>"
    assert root.findtext("content") == NASTY
    keyed = root.find("metadata")
    assert keyed is not None
    assert (keyed.get("key"), keyed.text) == ("</content>", "<v>")


def test_escape_text_order_avoids_double_escaping() -> None:
    assert escape_text("&lt;") == "&amp;lt;"


def test_escape_attribute_escapes_quotes() -> None:
    assert escape_attribute("\"&'") == "&quot;&amp;'"


# invalid records ----------------------------------------------------------------

HIDE = BARE.model_copy(update={"include_invalid_results": False})


def test_render_invalid_leading_to_valid_keeps_place_without_content() -> None:
    tree = _node(
        _record("root"),
        _child("root", _record("old", status="invalid"), _child("old", _record("new"))),
    )
    assert tree.format_content(HIDE) == "\n".join(
        [
            "<memory>",
            "  <record_id>root</record_id>",
            "  <content>content of root</content>",
            "  <linked_records>",
            "    <linked_record>",
            "      <relation_type>supports</relation_type>",
            "      <memory>",
            "        <record_id>old</record_id>",
            "        <linked_records>",
            "          <linked_record>",
            "            <relation_type>supports</relation_type>",
            "            <memory>",
            "              <record_id>new</record_id>",
            "              <content>content of new</content>",
            "            </memory>",
            "          </linked_record>",
            "        </linked_records>",
            "      </memory>",
            "    </linked_record>",
            "  </linked_records>",
            "</memory>",
        ]
    )


def test_render_invalid_only_branch_left_out() -> None:
    tree = _node(
        _record("root"),
        _child("root", _record("x", status="invalid"), _child("x", _record("y", status="invalid"))),
        _child("root", _record("ok")),
    )
    root = _parse(tree.format_content(HIDE))
    assert [e.text for e in root.iter("record_id")] == ["root", "ok"]


def test_render_all_children_pruned_drops_linked_records() -> None:
    tree = _node(_record("root"), _child("root", _record("x", status="invalid")))
    assert tree.format_content(HIDE).splitlines() == [
        "<memory>",
        "  <record_id>root</record_id>",
        "  <content>content of root</content>",
        "</memory>",
    ]


def test_render_invalid_direct_result_keeps_element_without_content() -> None:
    tree = _node(_record("root", status="invalid"), include_invalid=True)
    text = tree.format_content(HIDE.model_copy(update={"show_status": True}))
    assert text.splitlines() == [
        "<memory>",
        "  <record_id>root</record_id>",
        "  <status>invalid</status>",
        "</memory>",
    ]


def test_render_invalid_direct_result_keeps_valid_children() -> None:
    tree = _node(
        _record("root", status="invalid"),
        _child("root", _record("x", status="invalid")),
        _child("root", _record("ok")),
        include_invalid=True,
    )
    root = _parse(tree.format_content(HIDE))
    assert root.find("content") is None
    assert [e.text for e in root.iter("record_id")] == ["root", "ok"]


def test_render_invalid_shown_when_config_includes() -> None:
    tree = _node(
        _record("root"),
        _child("root", _record("x", status="invalid"), _child("x", _record("y", status="invalid"))),
    )
    root = _parse(tree.format_content(BARE))
    assert [e.text for e in root.iter("content")] == [
        "content of root",
        "content of x",
        "content of y",
    ]


def test_render_unset_config_follows_search_including() -> None:
    tree = _node(
        _record("root"), _child("root", _record("x", status="invalid")), include_invalid=True
    )
    config = BARE.model_copy(update={"include_invalid_results": None})
    assert "<content>content of x</content>" in tree.format_content(config)


def test_render_unset_config_follows_search_excluding() -> None:
    tree = _node(_record("root"), _child("root", _record("x", status="invalid")))
    config = BARE.model_copy(update={"include_invalid_results": None})
    assert "<record_id>x</record_id>" not in tree.format_content(config)


def test_render_config_false_overrides_search_true() -> None:
    tree = _node(
        _record("root"), _child("root", _record("x", status="invalid")), include_invalid=True
    )
    assert "<record_id>x</record_id>" not in tree.format_content(HIDE)


def test_render_config_true_overrides_search_false() -> None:
    tree = _node(_record("root"), _child("root", _record("x", status="invalid")))
    assert "<content>content of x</content>" in tree.format_content(BARE)


def test_render_no_config_follows_search(memory: GraphMemory, pizza) -> None:
    thin, sour, _ = pizza(memory)
    memory.link_records(sour, "preference", thin, "preference", "supersedes")
    excluded = memory.search("pizza", num_hops=1)
    included = memory.search("pizza", num_hops=1, include_invalid_results=True)
    by_id = {r.id: r for r in included}
    assert thin not in [r.id for r in excluded]
    assert (
        "<content>The user's preferred pizza style is thin crust.</content>"
        in by_id[sour].format_content()
    )
    excluded_sour = next(r for r in excluded if r.id == sour)
    assert "thin crust" not in excluded_sour.format_content()
