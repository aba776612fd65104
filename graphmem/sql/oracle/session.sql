-- graphmem Oracle store: settings of every session the store uses.
--
-- graphmem.stores.oracle.OracleStore runs this block once per connection it
-- uses (each pool acquire, or once for a connection it was given). The tie rule
-- of docs/semantics.md section 3 and the time comparisons order ids and fixed-format time
-- text by their bytes, as SQLite does; Oracle orders strings by NLS_SORT and
-- compares them by NLS_COMP, which a database or logon trigger may set to a
-- linguistic order. BINARY makes both byte order (AL32UTF8 byte order equals
-- the code point order SQLite uses). Run it in SQL*Plus before the statements
-- of this folder to get the same answers as graphmem.
BEGIN
    EXECUTE IMMEDIATE 'ALTER SESSION SET NLS_SORT = BINARY';
    EXECUTE IMMEDIATE 'ALTER SESSION SET NLS_COMP = BINARY';
END;
/
