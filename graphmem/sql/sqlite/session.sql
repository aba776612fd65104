-- graphmem embedded store: per-connection work tables for the traversal.
--
-- graphmem.stores.sqlite.SqliteStore runs this script on every connection it
-- opens (traverse.sql uses the tables). They live in the temp schema, so a
-- search never takes the database write lock. Idempotent.

-- Work tables live in memory, not in a temporary file (set before they exist).
PRAGMA temp_store = MEMORY;

-- Nodes reached from each root of the current search, with the chosen parent link.
-- Roots and nodes are node numbers (graphmem_node.node_no).
CREATE TEMP TABLE IF NOT EXISTS graphmem_reached (
    root_no         INTEGER NOT NULL,
    node_no         INTEGER NOT NULL,
    depth           INTEGER NOT NULL,
    parent_no       INTEGER,
    relation_id     TEXT,
    link_created_at TEXT,
    link_no         INTEGER,
    -- A frontier node with many links reads them only up to this one (bound-level).
    bound_created_at  TEXT,
    bound_relation_id TEXT,
    -- A capped level's first pass read this frontier node's links up to this one
    -- (bound-level-root): the second pass keeps only the links after it.
    read_created_at   TEXT,
    read_relation_id  TEXT,
    PRIMARY KEY (root_no, node_no)
) WITHOUT ROWID;

-- The nodes of the level being expanded: expand-level-keep writes each node's
-- best parent link here (an upsert keeping the minimum), the store trims the roots
-- over their quota and moves the level into graphmem_reached (move-level).
CREATE TEMP TABLE IF NOT EXISTS graphmem_level (
    root_no         INTEGER NOT NULL,
    node_no         INTEGER NOT NULL,
    parent_no       INTEGER NOT NULL,
    relation_id     TEXT NOT NULL,
    link_created_at TEXT NOT NULL,
    link_no         INTEGER NOT NULL,
    PRIMARY KEY (root_no, node_no)
) WITHOUT ROWID;

-- The frontier of a level is read by depth.
CREATE INDEX IF NOT EXISTS temp.graphmem_reached_depth_ix ON graphmem_reached (depth, root_no);

-- Roots of the current search; open = 0 once a root holds its cap.
CREATE TEMP TABLE IF NOT EXISTS graphmem_roots (
    root_no INTEGER PRIMARY KEY,
    open    INTEGER NOT NULL
);

-- The metadata filter of the current read: (key, canonical value) pairs that a
-- memory's graphmem_memory_meta rows must all match.
CREATE TEMP TABLE IF NOT EXISTS graphmem_filter (
    meta_key   TEXT PRIMARY KEY,
    meta_value TEXT NOT NULL
) WITHOUT ROWID;

-- The keyword index's vocabulary: per word, how many memories hold it (read by
-- select-term-counts, search.sql).
CREATE VIRTUAL TABLE IF NOT EXISTS temp.graphmem_memory_fts_vocab
    USING fts5vocab(main, graphmem_memory_fts, row);

-- The words of the current keyword search, one row each (rowid: the word's place
-- in the query), tokenized as the keyword index tokenizes memories: the same
-- tokenizer as graphmem_memory_fts (install.sql), so select-query-tokens reads back
-- each word in the form the index holds it (case and accents folded as FTS5 folds
-- them, a word with `_` split into its parts). Contentless: only the tokens are kept.
CREATE VIRTUAL TABLE IF NOT EXISTS temp.graphmem_query_fts USING fts5(content, content='');

CREATE VIRTUAL TABLE IF NOT EXISTS temp.graphmem_query_fts_vocab
    USING fts5vocab(temp, graphmem_query_fts, instance);
