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
    teacher_answer TEXT
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

#: The FTS5 trigram index over ``kb_entries.search_text``, kept by triggers (the statements
#: sqlite-utils' ``enable_fts`` wrote in release 0.1), and its term/document-count view.
FTS_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS "kb_entries_fts" USING FTS5 (
    "search_text",
    tokenize='trigram',
    content="kb_entries"
);
CREATE TRIGGER IF NOT EXISTS "kb_entries_ai" AFTER INSERT ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" (rowid, "search_text") VALUES (new.rowid, new."search_text");
END;
CREATE TRIGGER IF NOT EXISTS "kb_entries_ad" AFTER DELETE ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" ("kb_entries_fts", rowid, "search_text") VALUES('delete', old.rowid, old."search_text");
END;
CREATE TRIGGER IF NOT EXISTS "kb_entries_au" AFTER UPDATE ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" ("kb_entries_fts", rowid, "search_text") VALUES('delete', old.rowid, old."search_text");
  INSERT INTO "kb_entries_fts" (rowid, "search_text") VALUES (new.rowid, new."search_text");
END;
CREATE VIRTUAL TABLE IF NOT EXISTS kb_entries_fts_vocab USING fts5vocab(kb_entries_fts, 'row');
"""

# --- schema migrations (numbered steps: appliance/db/migrations.py) ----------------------
#: Step 2: ``kb remove-demo`` and the statistics by origin read entries by origin.
MIGRATE_2_ORIGIN_INDEX = "CREATE INDEX IF NOT EXISTS kb_entries_by_origin ON kb_entries (origin);"
#: Step 3: a random identity for this database (kept by backups), so that `eduqa ask` uses
#: a running daemon only when it serves the same database.
MIGRATE_3_STORE_ID = "INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));"
#: Step 5: a photo ask's text edited by the student is logged as a correction of that ask.
MIGRATE_5_ASK_CORRECTS = "ALTER TABLE asks ADD COLUMN corrects_ask_id INTEGER;"
SCHEMA_VERSION_GET = "PRAGMA user_version"
#: ``PRAGMA`` takes no parameters; the value is always an int from the step list.
SCHEMA_VERSION_SET = "PRAGMA user_version = {version:d}"
TABLE_COUNT = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"

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
KB_QUESTIONS_SEARCH_TEXTS = "SELECT question, search_text FROM kb_entries"
KB_QUESTIONS_ANSWERS = "SELECT question, answer FROM kb_entries ORDER BY id"
KB_COUNT_BY_SUBJECT = "SELECT subject, count(*) FROM kb_entries GROUP BY subject ORDER BY subject"
KB_COUNT_BY_ORIGIN = "SELECT origin, count(*) FROM kb_entries GROUP BY origin ORDER BY origin"
KB_BM25 = (
    "SELECT kb_entries.id, bm25(kb_entries_fts) AS score "
    "FROM kb_entries_fts JOIN kb_entries ON kb_entries.rowid = kb_entries_fts.rowid "
    "WHERE kb_entries_fts MATCH ? ORDER BY score LIMIT ?"
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

# --- teacher memory: aliases and known negatives (issue 11) ---------------------------------
#: A separate block (applied after SCHEMA): the integrator turns it into a migration step.
TEACHER_MEMORY_SCHEMA = """
CREATE TABLE IF NOT EXISTS kb_aliases (
    wording_form TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    wording TEXT NOT NULL,
    ask_id INTEGER,
    teacher TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (wording_form, entry_id)
);
CREATE TABLE IF NOT EXISTS kb_negatives (
    wording_form TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    wording TEXT NOT NULL,
    ask_id INTEGER,
    teacher TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (wording_form, entry_id)
);
"""
ALIAS_UPSERT = (
    "INSERT INTO kb_aliases (wording_form, entry_id, wording, ask_id, teacher, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (wording_form, entry_id) DO UPDATE SET "
    "wording = excluded.wording, ask_id = excluded.ask_id, teacher = excluded.teacher"
)
ALIAS_DELETE = "DELETE FROM kb_aliases WHERE wording_form = ? AND entry_id = ?"
#: Aliases of entries still in the bank.
ALIAS_ALL = (
    "SELECT a.entry_id, a.wording FROM kb_aliases a JOIN kb_entries e ON e.id = a.entry_id "
    "ORDER BY a.rowid"
)
NEGATIVE_UPSERT = (
    "INSERT INTO kb_negatives (wording_form, entry_id, wording, ask_id, teacher, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (wording_form, entry_id) DO UPDATE SET "
    "wording = excluded.wording, ask_id = excluded.ask_id, teacher = excluded.teacher"
)
NEGATIVE_DELETE = "DELETE FROM kb_negatives WHERE wording_form = ? AND entry_id = ?"
NEGATIVE_ALL = "SELECT wording, entry_id FROM kb_negatives ORDER BY rowid"
#: The teacher's judgements that came from asks (recalibration labels): approved
#: wordings (right) and rejected ones (wrong), with the entry judged.
TEACHER_LABELS = (
    "SELECT wording, entry_id, 1 FROM kb_aliases WHERE ask_id IS NOT NULL "
    "UNION ALL SELECT wording, entry_id, 0 FROM kb_negatives WHERE ask_id IS NOT NULL"
)
TEACHER_LABEL_COUNT = (
    "SELECT (SELECT count(*) FROM kb_aliases WHERE ask_id IS NOT NULL) "
    "+ (SELECT count(*) FROM kb_negatives WHERE ask_id IS NOT NULL)"
)
TEACHER_MEMORY_VERSION_KEY = "teacher_memory_version"
