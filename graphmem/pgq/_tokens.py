"""Tokens with source offsets, and a cursor to parse them.

graphmem reuses sqlglot's dialect tokenizers so that strings, quoted
identifiers, comments and binds are read exactly as sqlglot reads them. One
change: SQLite's tokenizer treats ``[...]`` as a quoted identifier, which would
swallow edge patterns such as ``-[e IS knows]->``, so bracket quoting is
switched off for the PGQ scan.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError

from graphmem.errors import PgqSyntaxError

__all__ = ["Cursor", "Token", "error_at", "identifier_key", "tokenize"]

_WORD_KINDS = {"VAR", "IDENTIFIER"}


@dataclass(frozen=True)
class Token:
    """One token of the original text.

    Attributes:
        kind: sqlglot's token type name, e.g. ``"VAR"``, ``"L_PAREN"``.
        text: the token text as sqlglot reads it (quotes removed from identifiers).
        start: offset of the first character in the original text.
        end: offset one past the last character in the original text.
    """

    kind: str
    text: str
    start: int
    end: int

    @property
    def word(self) -> str:
        """The upper-cased text, for keyword comparisons (empty for quoted identifiers)."""
        return "" if self.kind == "IDENTIFIER" else self.text.upper()

    @property
    def is_name(self) -> bool:
        """Whether the token can serve as an identifier (a name or an unreserved keyword)."""
        if self.kind in _WORD_KINDS:
            return True
        if "STRING" in self.kind or self.kind == "NUMBER" or not self.text:
            return False
        return self.text.replace("_", "a").replace("$", "a").isalnum() and self.text[0].isalpha()

    @property
    def spelling(self) -> str:
        """The identifier as SQL spells it: quoted identifiers keep their double quotes."""
        return f'"{self.text}"' if self.kind == "IDENTIFIER" else self.text


def identifier_key(spelling: str) -> str:
    """Return the comparison key of an identifier spelling.

    graphmem compares graph names, labels, variables and properties
    case-insensitively, with or without double quotes.

    >>> identifier_key('"Memory"') == identifier_key("MEMORY")
    True
    """
    return spelling.strip('"').casefold()


@functools.lru_cache(maxsize=8)
def _tokenizer_class(dialect: str) -> Any:
    base = Dialect.get_or_raise(dialect).tokenizer_class
    quotes = [q for q in base.IDENTIFIERS if q not in ("[", ("[", "]"))]
    return type("PgqTokenizer", (base,), {"IDENTIFIERS": quotes})


def tokenize(source: str, dialect: str) -> list[Token]:
    """Tokenize ``source`` with ``dialect``'s tokenizer (bracket quoting off).

    Raises:
        PgqSyntaxError: the text cannot be tokenized (e.g. an unterminated string).
    """
    try:
        raw = _tokenizer_class(dialect)().tokenize(source)
    except TokenError as e:
        raise error_at(source, len(source), f"cannot tokenize: {e}") from e
    return [Token(t.token_type.name, t.text, t.start, t.end + 1) for t in raw]


def error_at(source: str, offset: int, message: str) -> PgqSyntaxError:
    """Build a :class:`PgqSyntaxError` positioned at ``offset`` of ``source``."""
    offset = max(0, min(offset, len(source)))
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return PgqSyntaxError(message, line, column)


class Cursor:
    """A position in a token list, with helpers that raise positioned errors."""

    def __init__(self, source: str, tokens: Sequence[Token], end: int | None = None) -> None:
        self.source = source
        self.tokens = tokens
        self.pos = 0
        self.end = len(source) if end is None else end

    def peek(self, ahead: int = 0) -> Token | None:
        """Return the token ``ahead`` positions on, or None past the end."""
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def at_end(self) -> bool:
        """Whether every token has been consumed."""
        return self.pos >= len(self.tokens)

    def at(self, kind: str, ahead: int = 0) -> bool:
        """Whether the token ``ahead`` positions on has type ``kind``."""
        token = self.peek(ahead)
        return token is not None and token.kind == kind

    def at_word(self, *words: str) -> bool:
        """Whether the next tokens are the keywords ``words``, in order."""
        for i, word in enumerate(words):
            token = self.peek(i)
            if token is None or token.word != word:
                return False
        return True

    def advance(self) -> Token:
        """Consume and return the next token."""
        token = self.peek()
        if token is None:
            raise self.error("unexpected end of text")
        self.pos += 1
        return token

    def expect(self, kind: str, what: str) -> Token:
        """Consume a token of type ``kind``, or raise naming ``what`` was expected."""
        if not self.at(kind):
            raise self.error(f"expected {what}")
        return self.advance()

    def expect_word(self, *words: str) -> Token:
        """Consume the keywords ``words``; return the first one."""
        if not self.at_word(*words):
            raise self.error(f"expected {' '.join(words)}")
        first = self.advance()
        for _ in words[1:]:
            self.advance()
        return first

    def accept_word(self, *words: str) -> bool:
        """Consume the keywords ``words`` if they come next; say whether they did."""
        if not self.at_word(*words):
            return False
        self.expect_word(*words)
        return True

    def name(self, what: str) -> Token:
        """Consume an identifier, or raise naming ``what`` was expected."""
        token = self.peek()
        if token is None or not token.is_name:
            raise self.error(f"expected {what}")
        return self.advance()

    def error(self, message: str, token: Token | None = None) -> PgqSyntaxError:
        """Return an error at ``token`` (default: the next token, or the end of the text)."""
        token = token or self.peek()
        offset = token.start if token is not None else self.end
        found = f", found {token.text!r}" if token is not None else ""
        return error_at(self.source, offset, message + found)
