-- graphmem Oracle store: remove every object install.sql creates (data included).
--
-- Run in SQL*Plus or SQLcl as the schema owner:
--     sqlplus graphmem/graphmem@localhost:1521/FREEPDB1 @sql/oracle/uninstall.sql
-- (from a checkout; from an installed package, save this script first:
--     graphmem sql --dialect oracle --uninstall > uninstall.sql, then @uninstall.sql)
-- or call graphmem.stores.oracle.OracleStore.uninstall(). Names start with
-- GRAPHMEM_; graphmem substitutes the validated memory_store_id prefix.
-- The graph goes first (it depends on the tables), then the tables; dropping a
-- table drops its indexes and triggers. The work tables are global temporary
-- tables whose rows live for one transaction: per the ORA-14452 action text,
-- their DROP fails only while another session's transaction is using them.

DROP PROPERTY GRAPH IF EXISTS graphmem_graph;

DROP TABLE IF EXISTS GRAPHMEM_JOB PURGE;
DROP TABLE IF EXISTS GRAPHMEM_MEMORY_BLOCK PURGE;

DROP TABLE IF EXISTS GRAPHMEM_API_KEY PURGE;

DROP TABLE IF EXISTS GRAPHMEM_PROMPT_VERSION PURGE;

DROP TABLE IF EXISTS GRAPHMEM_PROMPT PURGE;

DROP TABLE IF EXISTS GRAPHMEM_ADJACENCY PURGE;

DROP TABLE IF EXISTS GRAPHMEM_LINK PURGE;

DROP TABLE IF EXISTS GRAPHMEM_THREAD PURGE;

DROP TABLE IF EXISTS GRAPHMEM_PROFILE PURGE;

DROP TABLE IF EXISTS GRAPHMEM_MEMORY_META PURGE;

DROP TABLE IF EXISTS GRAPHMEM_MEMORY PURGE;

DROP TABLE IF EXISTS GRAPHMEM_NODE PURGE;

DROP TABLE IF EXISTS GRAPHMEM_META PURGE;

-- TRUNCATE unbinds this session from a temporary table (needed for work tables
-- that an earlier install created with ON COMMIT PRESERVE ROWS); only the tables
-- that exist are truncated, so the script stays idempotent.
BEGIN
    FOR t IN (SELECT table_name FROM user_tables
              WHERE table_name IN ('GRAPHMEM_REACHED', 'GRAPHMEM_ROOTS', 'GRAPHMEM_FILTER')
                AND temporary = 'Y') LOOP
        EXECUTE IMMEDIATE 'TRUNCATE TABLE "' || t.table_name || '"';
    END LOOP;
END;
/

DROP TABLE IF EXISTS GRAPHMEM_REACHED;

DROP TABLE IF EXISTS GRAPHMEM_ROOTS;

DROP TABLE IF EXISTS GRAPHMEM_FILTER;
