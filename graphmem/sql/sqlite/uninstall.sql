-- graphmem embedded store: remove every object install.sql creates (data included).
-- Run with the sqlite3 shell: `sqlite3 memories.db < uninstall.sql`.
DROP TABLE IF EXISTS graphmem_job;
DROP TABLE IF EXISTS graphmem_memory_block;
DROP TABLE IF EXISTS graphmem_api_key;
DROP TABLE IF EXISTS graphmem_prompt_version;
DROP TABLE IF EXISTS graphmem_prompt;
DROP TABLE IF EXISTS graphmem_memory_fts;
DROP TABLE IF EXISTS graphmem_memory_text;
DROP VIEW IF EXISTS graphmem_keyword_filing;
DROP TABLE IF EXISTS graphmem_keyword_user;
DROP TABLE IF EXISTS graphmem_adjacency_recheck;
DROP TABLE IF EXISTS graphmem_adjacency;
DROP TABLE IF EXISTS graphmem_link;
DROP TABLE IF EXISTS graphmem_thread;
DROP TABLE IF EXISTS graphmem_profile;
DROP TABLE IF EXISTS graphmem_link_recheck;
DROP TABLE IF EXISTS graphmem_memory_meta;
DROP TABLE IF EXISTS graphmem_memory;
DROP TABLE IF EXISTS graphmem_node;
DROP TABLE IF EXISTS graphmem_meta;
DROP TABLE IF EXISTS graphmem_vector_log;
