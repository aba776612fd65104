-- graphmem embedded store: remove every object install.sql creates (data included).
-- Run with the sqlite3 shell: `sqlite3 memories.db < uninstall.sql`.
DROP TABLE IF EXISTS graphmem_link;
DROP TABLE IF EXISTS graphmem_link_recheck;
DROP TABLE IF EXISTS graphmem_memory_meta;
DROP TABLE IF EXISTS graphmem_memory;
DROP TABLE IF EXISTS graphmem_meta;
DROP TABLE IF EXISTS graphmem_vector_log;
