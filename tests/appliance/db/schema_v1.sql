-- The schema of eduqa 0.1 (the release before versioned migrations), as its Store created it:
-- sql.SCHEMA plus the FTS5 trigram index and triggers sqlite-utils' enable_fts() made.
-- A test builds an old database from this file and upgrades it. Never edit: it is history.

CREATE TABLE kb_entries (
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

CREATE TABLE kb_embeddings (
    entry_id TEXT NOT NULL,
    model_key TEXT NOT NULL,
    text_sha TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (entry_id, model_key)
);

CREATE TABLE asks (
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

CREATE INDEX asks_by_time ON asks (asked_at);

CREATE TABLE teachers (
    username TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE VIRTUAL TABLE "kb_entries_fts" USING FTS5 (
    "search_text",
    tokenize='trigram',
    content="kb_entries"
);

CREATE TRIGGER "kb_entries_ai" AFTER INSERT ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" (rowid, "search_text") VALUES (new.rowid, new."search_text");
END;

CREATE TRIGGER "kb_entries_ad" AFTER DELETE ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" ("kb_entries_fts", rowid, "search_text") VALUES('delete', old.rowid, old."search_text");
END;

CREATE TRIGGER "kb_entries_au" AFTER UPDATE ON "kb_entries" BEGIN
  INSERT INTO "kb_entries_fts" ("kb_entries_fts", rowid, "search_text") VALUES('delete', old.rowid, old."search_text");
  INSERT INTO "kb_entries_fts" (rowid, "search_text") VALUES (new.rowid, new."search_text");
END;

CREATE VIRTUAL TABLE kb_entries_fts_vocab USING fts5vocab(kb_entries_fts, 'row');
