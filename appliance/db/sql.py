"""Every SQL statement the appliance runs, in one place.

Tables are described in ../shared/DESIGN.md (store). Values always travel as
parameters; no statement is ever built from user text.
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS kb_entries (
    id TEXT PRIMARY KEY,
    subject TEXT NOT NULL,
    grade TEXT NOT NULL DEFAULT '',
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    knowledge_points TEXT NOT NULL DEFAULT '[]',
    source TEXT NOT NULL DEFAULT '',
    media TEXT,
    origin TEXT NOT NULL DEFAULT 'import',
    search_text TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kb_embeddings (
    entry_id TEXT NOT NULL,
    model_key TEXT NOT NULL,
    text_sha TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (entry_id, model_key)
);
CREATE TABLE IF NOT EXISTS asks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    asked_at TEXT NOT NULL,
    client TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL,
    question TEXT NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0,
    ocr_text TEXT,
    ocr_confidence REAL,
    photo_sha256 TEXT,
    matched_id TEXT,
    confidence REAL NOT NULL,
    abstained INTEGER NOT NULL,
    stage_ms TEXT NOT NULL,
    backend TEXT NOT NULL,
    feedback TEXT,
    review_status TEXT NOT NULL DEFAULT 'pending',
    teacher_answer TEXT,
    corrects_ask_id INTEGER
);
CREATE INDEX IF NOT EXISTS asks_by_time ON asks (asked_at);
CREATE TABLE IF NOT EXISTS teachers (
    username TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

# --- question bank -------------------------------------------------------------
KB_COUNT = "SELECT count(*) FROM kb_entries"
KB_IDS_BY_ORIGIN = "SELECT id FROM kb_entries WHERE origin = ?"
KB_DELETE_BY_ORIGIN = "DELETE FROM kb_entries WHERE origin = ?"
KB_EXISTING_IDS = "SELECT id FROM kb_entries WHERE id IN ({placeholders})"
KB_ALL = (
    "SELECT id, subject, grade, question, answer, knowledge_points, source, origin "
    "FROM kb_entries ORDER BY id"
)
KB_BY_IDS = (
    "SELECT id, subject, grade, question, answer, knowledge_points, source, origin, search_text "
    "FROM kb_entries WHERE id IN ({placeholders})"
)
KB_SEARCH_TEXTS = "SELECT search_text FROM kb_entries"
KB_QUESTIONS_ANSWERS = "SELECT question, answer FROM kb_entries ORDER BY id"
KB_COUNT_BY_SUBJECT = "SELECT subject, count(*) FROM kb_entries GROUP BY subject ORDER BY subject"
KB_COUNT_BY_ORIGIN = "SELECT origin, count(*) FROM kb_entries GROUP BY origin ORDER BY origin"
KB_BM25 = (
    "SELECT kb_entries.id, bm25(kb_entries_fts) AS score "
    "FROM kb_entries_fts JOIN kb_entries ON kb_entries.rowid = kb_entries_fts.rowid "
    "WHERE kb_entries_fts MATCH ? ORDER BY score LIMIT ?"
)
#: The FTS index's terms (trigrams) with the number of entries holding each.
FTS_VOCAB_CREATE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS kb_entries_fts_vocab USING fts5vocab(kb_entries_fts, 'row')"
)
FTS_DOC_FREQ = "SELECT term, doc FROM kb_entries_fts_vocab WHERE term IN ({placeholders})"

# --- stored embeddings -----------------------------------------------------------
EMB_FOR_MODEL = (
    "SELECT e.id, e.question, v.text_sha, v.vector FROM kb_entries e "
    "LEFT JOIN kb_embeddings v ON v.entry_id = e.id AND v.model_key = ? ORDER BY e.rowid"
)
EMB_UPSERT = (
    "INSERT INTO kb_embeddings (entry_id, model_key, text_sha, vector) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (entry_id, model_key) DO UPDATE SET text_sha = excluded.text_sha, "
    "vector = excluded.vector"
)
EMB_DELETE_ORPHANS = "DELETE FROM kb_embeddings WHERE entry_id NOT IN (SELECT id FROM kb_entries)"
EMB_COUNT_FOR_MODEL = "SELECT count(*) FROM kb_embeddings WHERE model_key = ?"

# --- meta --------------------------------------------------------------------------
META_GET = "SELECT value FROM meta WHERE key = ?"
META_SET_ONCE = "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)"
META_SET = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)

# --- ask log -------------------------------------------------------------------------
ASK_INSERT = (
    "INSERT INTO asks (asked_at, client, kind, question, truncated, ocr_text, ocr_confidence, "
    "photo_sha256, matched_id, confidence, abstained, stage_ms, backend, corrects_ask_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
ASK_COLUMNS = (
    "id, asked_at, client, kind, question, truncated, ocr_text, ocr_confidence, photo_sha256, "
    "matched_id, confidence, abstained, stage_ms, backend, feedback, review_status, teacher_answer, "
    "corrects_ask_id"
)
ASK_GET = f"SELECT {ASK_COLUMNS} FROM asks WHERE id = ?"
ASK_TAIL = f"SELECT {ASK_COLUMNS} FROM asks ORDER BY id DESC LIMIT ?"
ASK_ALL = f"SELECT {ASK_COLUMNS} FROM asks ORDER BY id"
ASK_COUNT = "SELECT count(*) FROM asks"
ASK_SET_FEEDBACK = "UPDATE asks SET feedback = ? WHERE id = ?"
#: Columns added after the first release: (column, declaration), added to older databases.
ASK_ADDED_COLUMNS = (("corrects_ask_id", "INTEGER"),)
ASK_TABLE_COLUMNS = "SELECT name FROM pragma_table_info('asks')"
ASK_ADD_COLUMN = "ALTER TABLE asks ADD COLUMN {column} {declaration}"
#: Distinct questions asked, newest first (engine calibration text).
ASK_RECENT_QUESTIONS = (
    "SELECT question FROM asks WHERE question != '' GROUP BY question ORDER BY max(id) DESC LIMIT ?"
)

KB_UPSERT = (
    "INSERT INTO kb_entries (id, subject, grade, question, answer, knowledge_points, source, "
    "origin, search_text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET subject = excluded.subject, grade = excluded.grade, "
    "question = excluded.question, answer = excluded.answer, "
    "knowledge_points = excluded.knowledge_points, source = excluded.source, "
    "origin = excluded.origin, search_text = excluded.search_text, "
    "updated_at = excluded.updated_at"
)
