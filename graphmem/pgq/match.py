"""Parse the inside of ``GRAPH_TABLE ( ... )``: MATCH patterns, WHERE and COLUMNS.

Patterns are parsed here token by token; the SQL expressions inside them (inline
WHERE, graph-pattern WHERE, COLUMNS items) are handed to sqlglot's own parser.
Constructs outside graphmem's subset raise :class:`PgqSyntaxError` at the
offending token.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from graphmem.errors import PgqSyntaxError
from graphmem.pgq._tokens import Cursor, Token, error_at
from graphmem.pgq.ast import (
    ColumnItem,
    Direction,
    EdgePattern,
    GraphTable,
    PathItem,
    PathPattern,
    Quantified,
    SqlExpr,
    VertexPattern,
)

__all__ = ["MAX_UPPER_BOUND", "parse_graph_table"]

#: Oracle documents 10 as the largest quantifier upper bound (23.x-24.2).
MAX_UPPER_BOUND = 10

_PREFIXES = {"ANY", "ALL", "SHORTEST", "CHEAPEST", "WALK", "TRAIL", "ACYCLIC", "SIMPLE"}
_UNBOUNDED = {"STAR": "*", "PLUS": "+", "PLACEHOLDER": "?"}
_OPEN = {"L_PAREN", "L_BRACKET", "L_BRACE"}
_CLOSE = {"R_PAREN", "R_BRACKET", "R_BRACE"}
_NO_KINDS: set[str] = set()


def parse_graph_table(cur: Cursor, dialect: str) -> GraphTable:
    """Parse ``g MATCH ... [WHERE ...] COLUMNS (...)`` from ``cur`` to its end.

    Args:
        cur: a cursor over the tokens between GRAPH_TABLE's parentheses.
        dialect: the sqlglot dialect of the embedded SQL expressions.

    Raises:
        PgqSyntaxError: at the first token outside the supported subset.
    """
    first = cur.name("property graph name")
    graph = first.spelling
    if cur.at("DOT"):
        cur.advance()
        graph += "." + cur.name("property graph name").spelling
    if cur.at_word("AS", "OF"):
        raise cur.error("AS OF on a property graph reference is not supported")
    cur.expect_word("MATCH")
    paths = [_path(cur, dialect)]
    while cur.at("COMMA"):
        cur.advance()
        paths.append(_path(cur, dialect))
    if not (cur.at_word("WHERE") or cur.at_word("COLUMNS") or cur.at_word("ONE")):
        raise cur.error(
            "expected a vertex pattern, an edge pattern (-[ ]->, <-[ ]-, -[ ]-, ->, <-, -), "
            "',', WHERE or COLUMNS"
        )
    where = None
    if cur.at_word("WHERE"):
        cur.advance()
        where = _expression(cur, _span(cur, clause_end=True), dialect)
    if cur.at_word("ONE"):
        raise cur.error("ONE ROW PER ... is not supported")
    cur.expect_word("COLUMNS")
    columns = _columns(cur, dialect)
    if not cur.at_end():
        raise cur.error("unexpected text after COLUMNS (...)")
    return GraphTable(graph, first.start, tuple(paths), where, columns)


def _path(cur: Cursor, dialect: str) -> PathPattern:
    token = cur.peek()
    if token is not None and token.is_name and cur.at("EQ", 1):
        raise cur.error("path variables (p = ...) are not supported")
    if token is not None and token.word in _PREFIXES:
        raise cur.error(f"path prefix {token.word} is not supported (Oracle matches walks)")
    items: list[PathItem] = []
    while _at_element(cur):
        items.append(_item(cur, dialect, in_group=False))
    if not items:
        raise cur.error("expected a path pattern")
    return PathPattern(tuple(items))


def _at_element(cur: Cursor) -> bool:
    return cur.at("L_PAREN") or cur.at("DASH") or cur.at("LT") or cur.at("ARROW")


def _item(cur: Cursor, dialect: str, *, in_group: bool) -> PathItem:
    start = cur.peek()
    assert start is not None
    if cur.at("L_PAREN") and not _at_group(cur):
        vertex = _vertex(cur, dialect)
        _reject_quantifier(cur, "a vertex pattern cannot be quantified")
        return vertex
    if cur.at("L_PAREN"):
        if in_group:
            raise cur.error("nested parenthesised path patterns are not supported")
        cur.advance()
        items: list[PathItem] = []
        while _at_element(cur):
            items.append(_item(cur, dialect, in_group=True))
        cur.expect("R_PAREN", "an element or ) in the parenthesised path pattern")
        if not any(isinstance(i, EdgePattern) for i in items):
            raise cur.error("a quantified path pattern must contain an edge", start)
        if not cur.at("L_BRACE"):
            _reject_quantifier(cur, "")
            raise cur.error("a parenthesised path pattern needs a bounded quantifier {n,m}")
        return _quantifier(cur, tuple(i for i in items if not isinstance(i, Quantified)), start)
    edge = _edge(cur, dialect)
    if cur.at("L_BRACE"):
        if in_group:
            raise cur.error("nested quantifiers are not supported")
        return _quantifier(cur, (edge,), start)
    _reject_quantifier(cur, "")
    return edge


def _at_group(cur: Cursor) -> bool:
    return cur.at("L_PAREN", 1) or cur.at("DASH", 1) or cur.at("LT", 1) or cur.at("ARROW", 1)


def _reject_quantifier(cur: Cursor, message: str) -> None:
    token = cur.peek()
    if token is not None and token.kind in _UNBOUNDED:
        raise cur.error(f"quantifier {_UNBOUNDED[token.kind]} is not supported (bounded only)")
    if message and cur.at("L_BRACE"):
        raise cur.error(message)


def _quantifier(
    cur: Cursor, items: tuple[VertexPattern | EdgePattern, ...], start: Token
) -> Quantified:
    brace = cur.expect("L_BRACE", "{")
    has_lower = cur.at("NUMBER")
    lower = _bound(cur) if has_lower else 0
    upper = lower
    if cur.at("COMMA"):
        cur.advance()
        if not cur.at("NUMBER"):
            raise cur.error("unbounded quantifiers {n,} are not supported")
        upper = _bound(cur)
    elif not has_lower:
        raise cur.error("expected a quantifier bound")
    cur.expect("R_BRACE", "} closing the quantifier")
    if upper < 1 or upper < lower:
        raise cur.error("quantifier needs upper bound >= 1 and >= lower bound", brace)
    if upper > MAX_UPPER_BOUND:
        raise cur.error(f"quantifier upper bound above {MAX_UPPER_BOUND}", brace)
    return Quantified(items, lower, upper, start.start)


def _bound(cur: Cursor) -> int:
    token = cur.expect("NUMBER", "a quantifier bound")
    if not token.text.isdigit():
        raise cur.error("a quantifier bound must be a non-negative integer", token)
    return int(token.text)


def _vertex(cur: Cursor, dialect: str) -> VertexPattern:
    start = cur.expect("L_PAREN", "(")
    var, labels, where = _filler(cur, dialect, closer="R_PAREN")
    cur.expect("R_PAREN", ") closing the vertex pattern")
    return VertexPattern(var, _names(labels), where, start.start, _offsets(labels))


def _edge(cur: Cursor, dialect: str) -> EdgePattern:
    start = cur.peek()
    assert start is not None
    if cur.at("ARROW"):
        cur.advance()
        return EdgePattern(None, None, None, "right", start.start)
    left = cur.at("LT")
    if left:
        cur.advance()
        if cur.at("ARROW"):
            raise cur.error("the abbreviated edge <-> is not supported; use -[]- or -")
    cur.expect("DASH", "- of an edge pattern")
    if not cur.at("L_BRACKET"):
        return EdgePattern(None, None, None, "left" if left else "any", start.start)
    cur.advance()
    var, label_tokens, where = _filler(cur, dialect, closer="R_BRACKET")
    cur.expect("R_BRACKET", "] closing the edge pattern")
    labels, offsets = _names(label_tokens), _offsets(label_tokens)
    if cur.at("ARROW"):
        cur.advance()
        direction: Direction = "any" if left else "right"
    else:
        cur.expect("DASH", "-> or - after ]")
        direction = "left" if left else "any"
    return EdgePattern(var, labels, where, direction, start.start, offsets)


def _names(tokens: tuple[Token, ...] | None) -> tuple[str, ...] | None:
    return None if tokens is None else tuple(t.spelling for t in tokens)


def _offsets(tokens: tuple[Token, ...] | None) -> tuple[int, ...]:
    return () if tokens is None else tuple(t.start for t in tokens)


def _filler(
    cur: Cursor, dialect: str, *, closer: str
) -> tuple[str | None, tuple[Token, ...] | None, SqlExpr | None]:
    var = None
    token = cur.peek()
    if token is not None and token.is_name and token.word not in {"IS", "WHERE"}:
        var = cur.advance().spelling
    labels = None
    if cur.at_word("IS"):
        cur.advance()
        labels = _label_expression(cur)
    where = None
    if cur.at_word("WHERE"):
        cur.advance()
        where = _expression(cur, _span(cur, stop_kinds={closer}), dialect)
    if not cur.at(closer):
        raise cur.error("unexpected token in element pattern")
    return var, labels, where


def _label_expression(cur: Cursor) -> tuple[Token, ...]:
    if cur.at("NOT") or cur.at("PERCENT") or cur.at("L_PAREN"):
        raise cur.error("only label names and | are supported in label expressions")
    labels = [cur.name("label name")]
    while cur.at("PIPE"):
        cur.advance()
        labels.append(cur.name("label name"))
    if cur.at("AMP") or cur.at("NOT") or cur.at("EXCLAMATION") or cur.at("PERCENT"):
        raise cur.error("only label names and | are supported in label expressions")
    return tuple(labels)


def _span(
    cur: Cursor, *, stop_kinds: set[str] = _NO_KINDS, clause_end: bool = False
) -> list[Token]:
    """Consume the tokens of one expression, up to a stop token at bracket depth 0.

    With ``clause_end`` the expression also stops before ``COLUMNS (`` and
    ``ONE ROW`` (the clauses that may follow the graph-pattern WHERE).
    """
    tokens: list[Token] = []
    depth = 0
    while not cur.at_end():
        token = cur.peek()
        assert token is not None
        if depth == 0 and (token.kind in stop_kinds or (clause_end and _at_clause(cur, tokens))):
            break
        if token.kind in _OPEN:
            depth += 1
        elif token.kind in _CLOSE:
            if depth == 0:
                break
            depth -= 1
        tokens.append(cur.advance())
    if not tokens:
        raise cur.error("expected an expression")
    return tokens


def _at_clause(cur: Cursor, before: list[Token]) -> bool:
    if before and before[-1].kind == "DOT":
        return False
    return (cur.at_word("COLUMNS") and cur.at("L_PAREN", 1)) or cur.at_word("ONE", "ROW")


def _expression(cur: Cursor, tokens: list[Token], dialect: str) -> SqlExpr:
    start, end = tokens[0].start, tokens[-1].end
    text = cur.source[start:end]
    try:
        parsed = sqlglot.parse_one(text, read=dialect)
    except ParseError as e:
        raise _parse_error(cur.source, start, text, e) from e
    if not isinstance(parsed, exp.Expression) or isinstance(parsed, exp.Query):
        raise error_at(cur.source, start, "expected an expression")
    return SqlExpr(parsed, start)


def _parse_error(source: str, start: int, text: str, e: ParseError) -> PgqSyntaxError:
    detail = e.errors[0] if e.errors else {}
    line, col = int(detail.get("line") or 1), int(detail.get("col") or 1)
    lines = text.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + max(0, col - 1)
    message = str(detail.get("description") or e).split("\n")[0]
    return error_at(source, start + min(offset, len(text)), f"invalid SQL expression: {message}")


def _columns(cur: Cursor, dialect: str) -> tuple[ColumnItem, ...]:
    cur.expect("L_PAREN", "( after COLUMNS")
    items: list[ColumnItem] = []
    names: set[str] = set()
    while True:
        item = _column(cur, _span(cur, stop_kinds={"COMMA"}), dialect)
        if item.name.strip('"').casefold() in names:
            raise error_at(cur.source, item.expr.offset, f"duplicate column name {item.name}")
        names.add(item.name.strip('"').casefold())
        items.append(item)
        if not cur.at("COMMA"):
            break
        cur.advance()
    cur.expect("R_PAREN", ", or ) in COLUMNS")
    return tuple(items)


def _column(cur: Cursor, tokens: list[Token], dialect: str) -> ColumnItem:
    parsed = _expression(cur, tokens, dialect)
    node = parsed.expression
    if isinstance(node, exp.Alias):
        name = node.args["alias"]
        return ColumnItem(SqlExpr(node.this, parsed.offset), _spell(name))
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Star):
        raise error_at(cur.source, parsed.offset, "v.* in COLUMNS is not supported")
    if isinstance(node, exp.Column) and node.table:
        return ColumnItem(parsed, _spell(node.this))
    raise error_at(cur.source, parsed.offset, "a COLUMNS expression needs AS name")


def _spell(identifier: exp.Expression) -> str:
    name = str(identifier.name)
    return f'"{name}"' if identifier.args.get("quoted") else name
