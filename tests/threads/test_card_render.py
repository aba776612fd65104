"""Card rendering: layout, escaping, empty sections and the empty card."""

from __future__ import annotations

from datetime import datetime, timezone
from xml.etree import ElementTree

from graphmem.threads.render import CardLine, render_card

T = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)

SEED_LAYOUT = """\
<context_card>
  <summary>
    User is planning dinner recommendations.
  </summary>
  <topics>
    <topic>pizza planning</topic>
    <topic>dinner</topic>
  </topics>
  <relevant_information>
    <preference>
      <content>User prefers vegetarian restaurants.</content>
    </preference>
    <guideline>
      <content>Offer concise recommendations with clear tradeoffs.</content>
    </guideline>
    <memory>
      <content>User is comparing pizza places for Friday.</content>
    </memory>
  </relevant_information>
  <recent_messages>
    <message>
      <timestamp>2026-01-02T03:04:05+00:00</timestamp>
      <role>user</role>
      <content>I need vegetarian dinner recommendations for Friday.</content>
    </message>
  </recent_messages>
</context_card>"""


def test_render_card_seed_layout() -> None:
    text = render_card(
        "User is planning dinner recommendations.",
        ["pizza planning", "dinner"],
        [
            CardLine("preference", "User prefers vegetarian restaurants."),
            CardLine("guideline", "Offer concise recommendations with clear tradeoffs."),
            CardLine("memory", "User is comparing pizza places for Friday."),
        ],
        [CardLine("message", "I need vegetarian dinner recommendations for Friday.", "user", T)],
    )
    assert text == SEED_LAYOUT


def test_render_card_escapes_every_text() -> None:
    text = render_card(
        "a </summary><x> & b",
        ["</topic>&"],
        [CardLine("fact", "<content>forged</content>")],
        [CardLine("message", "1 < 2 && 3 > 2", "user", T)],
    )
    assert "a &lt;/summary&gt;&lt;x&gt; &amp; b" in text
    assert "<topic>&lt;/topic&gt;&amp;</topic>" in text
    assert "<content>&lt;content&gt;forged&lt;/content&gt;</content>" in text
    assert "<content>1 &lt; 2 &amp;&amp; 3 &gt; 2</content>" in text
    # The structure is the layout's, and each text reads back as given.
    root = ElementTree.fromstring(text)
    assert [child.tag for child in root] == [
        "summary",
        "topics",
        "relevant_information",
        "recent_messages",
    ]
    assert root.findtext("relevant_information/fact/content") == "<content>forged</content>"
    assert root.findtext("topics/topic") == "</topic>&"
    assert root.findtext("recent_messages/message/content") == "1 < 2 && 3 > 2"


def test_render_card_leaves_out_empty_sections() -> None:
    text = render_card(None, [], [CardLine("fact", "x")], [])
    assert text.splitlines() == [
        "<context_card>",
        "  <relevant_information>",
        "    <fact>",
        "      <content>x</content>",
        "    </fact>",
        "  </relevant_information>",
        "</context_card>",
    ]
    assert "<summary>" not in render_card("   ", ["t"], [], [])


def test_render_card_empty_is_empty_string() -> None:
    assert render_card(None, [], [], []) == ""
    assert render_card("", (), (), ()) == ""


def test_render_card_multiline_summary_is_indented() -> None:
    lines = render_card("line one\nline two", [], [], []).splitlines()
    assert lines[1:5] == ["  <summary>", "    line one", "    line two", "  </summary>"]
