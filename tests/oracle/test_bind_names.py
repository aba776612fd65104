"""No statement run on Oracle names a bind after an Oracle SQL reserved word: the
database refuses such a statement with ORA-01745 (invalid host/bind variable name)
at every call, and only a live database would show it otherwise."""

from __future__ import annotations

import pytest

from graphmem.sqlfiles import load_pgq_statement, load_statements

# Oracle Database SQL Language Reference, "Oracle SQL Reserved Words".
_WORDS = """
    access add all alter and any as asc audit between by char check cluster column
    comment compress connect create current date decimal default delete desc distinct
    drop else exclusive exists file float for from grant group having identified
    immediate in increment index initial insert integer intersect into is level like
    lock long maxextents minus mlslabel mode modify noaudit nocompress not nowait null
    number of offline on online option or order pctfree prior public raw rename
    resource revoke row rowid rownum rows select session set share size smallint start
    successful synonym sysdate table then to trigger uid union unique update user
    validate values varchar varchar2 view whenever where with
"""
RESERVED = frozenset(_WORDS.split())

ORACLE = load_statements("oracle")
PGQ = load_statements("pgq")
STATEMENTS = {
    **{f"oracle:{name}": stmt for name, stmt in ORACLE.items()},
    **{f"pgq:{name}": stmt for name, stmt in PGQ.items()},
    **{
        f"pgq-lowered:{name}": load_pgq_statement(name, lower_to="oracle")
        for name in PGQ
        if name != "create-property-graph"
    },
}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_no_bind_is_named_after_a_reserved_word(name: str) -> None:
    assert not {b.lower() for b in STATEMENTS[name].binds} & RESERVED
