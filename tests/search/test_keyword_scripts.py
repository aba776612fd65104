"""SQLite keyword search folds a query's words exactly as its FTS5 index folds the
memories' content (the unicode61 tokenizer): case in every script, the accent of a
Latin letter carrying one, nothing else. Real SQLite files."""

import sqlite3
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import GraphMemory, HashingEmbedder
from graphmem.core import fusion
from graphmem.testing.model import ManualClock

CONTENTS = {
    "ru": "Мой любимый напиток чай",
    "yo": "Ёлка стоит в углу",
    "el": "Ο σκύλος μου λέγεται Άρης",
    "caps": "ΚΑΦΕΣ ΧΩΡΙΣ ΖΑΧΑΡΗ",
    "vi": "Tôi thích phở bò",
    "fr": "Le café est noir, près du ñandú.",
    "en": "Orders ship on Mondays.",
}

FOUND = [
    # Cyrillic: й and ё are letters of their own, case is folded
    ("любимый", "ru"),
    ("Мой", "ru"),
    ("МОЙ", "ru"),
    ("мой любимый", "ru"),
    ("ёлка", "yo"),
    ("ЁЛКА", "yo"),
    # Greek: accents kept, case folded, final sigma is sigma
    ("σκύλος", "el"),
    ("ΣΚΎΛΟΣ", "el"),
    ("Άρης", "el"),
    ("άρης", "el"),
    ("ΆΡΗΣ", "el"),
    ("καφες", "caps"),
    ("Καφες χωρις", "caps"),
    # Vietnamese: stacked diacritics kept, single ones folded
    ("phở", "vi"),
    ("PHỞ", "vi"),
    ("thích", "vi"),
    ("thich", "vi"),
    ("Tôi", "vi"),
    ("toi", "vi"),
    # Latin: without regard to case or accents
    ("café", "fr"),
    ("cafe", "fr"),
    ("CAFÉ", "fr"),
    ("nandu", "fr"),
    ("Ñandú", "fr"),
]

# The index keeps these letters apart from their look-alikes (as documented).
NOT_FOUND = ["любимыи", "елка", "σκυλος", "αρης", "pho", "φ"]


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphMemory]:
    path = tmp_path_factory.mktemp("scripts") / "k.db"
    memory = GraphMemory(path, clock=ManualClock())
    memory.add_memories([{"content": c, "memory_id": i} for i, c in CONTENTS.items()])
    yield memory
    memory.close()


@pytest.mark.parametrize(("query", "expected"), FOUND)
def test_keyword_finds_the_stored_word_in_every_script(
    memory: GraphMemory, query: str, expected: str
) -> None:
    assert [r.id for r in memory.search(query, strategy="keyword")] == [expected]
    assert memory.search(query, strategy="hybrid")[0].id == expected


@pytest.mark.parametrize(("query", "expected"), [(q, e) for q, e in FOUND if not q.isascii()])
def test_a_decomposed_query_finds_what_the_composed_one_finds(
    memory: GraphMemory, query: str, expected: str
) -> None:
    """A query typed as letters and combining marks (NFD, as some keyboards and
    file names give it) matches the composed content."""
    decomposed = unicodedata.normalize("NFD", query)
    assert [r.id for r in memory.search(decomposed, strategy="keyword")] == [expected]


def test_a_combining_mark_does_not_split_a_word(tmp_path: Path) -> None:
    """A mark with no composed form (``q\u0301``) stays inside its word, as the
    index keeps it (and folds it away); content stored decomposed is found by
    composed and decomposed queries alike."""
    memory = GraphMemory(tmp_path / "m.db", embedder=HashingEmbedder(dim=8))
    memory.add_memory("the q\u0301uiz", memory_id="mark")
    memory.add_memory("the q uiz", memory_id="split")
    memory.add_memory(unicodedata.normalize("NFD", "ÉCOLE du soir"), memory_id="nfd")
    assert [r.id for r in memory.search("q\u0301uiz", strategy="keyword")] == ["mark"]
    for query in ("école", unicodedata.normalize("NFD", "école"), "ECOLE"):
        assert [r.id for r in memory.search(query, strategy="keyword")] == ["nfd"], query
    memory.close()


@pytest.mark.parametrize("query", NOT_FOUND)
def test_keyword_keeps_apart_what_the_index_keeps_apart(memory: GraphMemory, query: str) -> None:
    assert memory.search(query, strategy="keyword") == []


def test_query_words_are_tokenized_as_the_index_tokenizes_content(tmp_path: Path) -> None:
    words = ["Мой", "ЁЛКА", "ΣΚΎΛΟΣ", "Άρης", "ΐ", "PHỞ", "ệ", "Café", "naïve", "straße"]
    words += ["İstanbul", "ǅ", "²", "user_ID", "E4711", "___", "ꭰ", "Ꭰ"]
    path = tmp_path / "t.db"
    memory = GraphMemory(path, clock=ManualClock())
    memory.add_memory(" ".join(words), memory_id="all")
    store = memory._store
    with store.transaction(write=False):
        tokens = store._index_tokens(words)  # type: ignore[attr-defined]
        assert store._index_tokens(words) == tokens  # type: ignore[attr-defined]
    memory.close()
    assert tokens[:3] == [("мой",), ("ёлка",), ("σκύλοσ",)]
    assert tokens[words.index("user_ID")] == ("user", "id")
    assert tokens[words.index("___")] == ()
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, graphmem_memory_fts, instance)")
    held = [t for (t,) in conn.execute('SELECT term FROM temp.v ORDER BY "offset"')]
    conn.close()
    assert [t for word in tokens for t in word] == held


def test_common_words_of_any_script_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fusion, "COMMON_MIN_DOCUMENTS", 0)  # words common in a small store
    memory = GraphMemory(tmp_path / "c.db", clock=ManualClock())
    memory.add_memories(
        [{"content": f"Ο σκύλος τρέχει {i}", "memory_id": f"s{i:02}"} for i in range(20)]
    )
    memory.add_memory("Ο Άρης κοιμάται", memory_id="ares")
    store = memory._store
    with store.transaction(write=False):
        # σκύλος is in 20 of 21 memories: matched only when Άρης finds too few
        assert store._match_terms(["σκύλος", "άρης"]) == [["άρης"], ["σκύλος", "άρης"]]
        # one word per form in the index; a word no memory holds is kept
        assert store._match_terms(["άρης", "ΆΡΗΣ", "γάτα"]) == [["άρης", "γάτα"]]
    assert [r.id for r in memory.search("σκύλος Άρης", strategy="keyword", max_results=1)] == [
        "ares"
    ]
    found = [r.id for r in memory.search("ΣΚΎΛΟΣ Άρης", strategy="keyword", max_results=5)]
    assert found[0] == "ares" and len(found) == 5
    memory.close()


@pytest.mark.parametrize("letters", [5_000, 11_000])  # 15 and 33 KB: FTS5 cuts at 32 KiB
def test_a_word_longer_than_fts5_keeps_whole_is_found(tmp_path: Path, letters: int) -> None:
    word = "東" * letters
    memory = GraphMemory(tmp_path / "long.db", embedder=HashingEmbedder(dim=8))
    memory.add_memory(f"a long word {word} here", memory_id="long")
    memory.add_memory("東京 is short", memory_id="short")
    memory.add_memory(f"西{'東' * (letters - 1)}", memory_id="near")  # its first letter differs
    assert [r.id for r in memory.search(word, strategy="keyword")] == ["long"]
    assert memory.search(word, strategy="hybrid")[0].id == "long"
    memory.close()


def test_long_words_are_not_kept_by_the_token_cache(tmp_path: Path) -> None:
    memory = GraphMemory(tmp_path / "kept.db", embedder=HashingEmbedder(dim=8))
    memory.add_memory("Ο σκύλος", memory_id="dog")
    store = memory._store
    long = "σ" * 200
    with store.transaction(write=False):
        assert store._index_tokens(["σκύλος", long]) == [("σκύλοσ",), ("σ" * 200,)]  # type: ignore[attr-defined]
    assert set(store._word_tokens) == {"σκύλος"}  # type: ignore[attr-defined]
    memory.close()
