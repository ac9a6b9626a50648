"""Schema upgrades: a database of the release before versioned migrations (built here from
the checked-in ``schema_v1.sql``) is brought up to date with everything kept; a failing
step leaves the file as it was and eduqa refuses to start on it with one clear line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from appliance.db import migrations
from appliance.db.migrations import Step
from appliance.db.store import Store, StoreError

SCHEMA_V1 = Path(__file__).with_name("schema_v1.sql")
TABLES = ("kb_entries", "kb_embeddings", "asks", "teachers", "meta")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_v1_database(path: Path) -> None:
    """The release-0.1 schema (no user_version) with bank entries, asks, a teacher, meta."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA_V1.read_text(encoding="utf-8"))
    stamp = "2026-10-01T08:00:00+00:00"
    conn.executemany(
        "INSERT INTO kb_entries (id, subject, grade, question, answer, knowledge_points, source, origin, "
        "search_text, created_at, updated_at) VALUES (?, ?, '7', ?, ?, '[\"方程\"]', 'book', ?, ?, ?, ?)",
        [("m1", "math", "解方程 2x+3=13", "x=5", "import", "解方程2x+3=13", stamp, stamp),
         ("d1", "physics", "光速是多少", "3e8 m/s", "demo", "光速是多少", stamp, stamp)])
    conn.execute("INSERT INTO kb_embeddings VALUES ('m1', 'use-m3', 'sha', x'00000000')")
    conn.executemany(
        "INSERT INTO asks (asked_at, client, kind, question, matched_id, confidence, abstained, stage_ms, "
        "backend, feedback, review_status, teacher_answer) VALUES (?, '10.0.0.5', 'text', ?, ?, ?, ?, '{}', "
        "'onnxruntime-cpu', ?, ?, ?)",
        [(stamp, "解方程 2x+3=13", "m1", 0.93, 0, "up", "approved", None),
         (stamp, "what is love", None, 0.12, 1, None, "corrected", "a teacher's answer")])
    conn.execute("INSERT INTO teachers VALUES ('alice', '$argon2id$v=19$hash', ?)", (stamp,))
    conn.execute("INSERT INTO meta VALUES ('bank_version', '7')")
    conn.close()


def dump(path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(path) as conn:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}


def assert_all_kept(before: dict[str, list[tuple]], after: dict[str, list[tuple]]) -> None:
    """Every old row is there unchanged (columns a step added come after the old ones); the
    only new row is the database's id (step 3)."""
    after = {t: [row[:len(before[t][0])] if before[t] else row for row in rows] for t, rows in after.items()}
    for table in TABLES:
        assert set(before[table]) <= set(after[table]), table
    added = {t: sorted(set(after[t]) - set(before[t])) for t in TABLES}
    assert [row[0] for row in added.pop("meta")] == ["store_id"]
    assert not any(added.values()), added


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def test_steps_are_numbered_in_order():
    migrations.check_steps(migrations.STEPS)
    with pytest.raises(ValueError):
        migrations.check_steps([Step(1, "a", ""), Step(3, "c", "")])


def test_a_release_0_1_database_upgrades_with_everything_kept(tmp_path):
    db = tmp_path / "eduqa.db"
    make_v1_database(db)
    before = dump(db)
    assert user_version(db) == 0

    store = Store(db)
    try:
        assert store.migration is not None and store.migration.from_version == 0
        assert store.migration.to_version == migrations.latest_version()
        # every step's change is there (step 2: the origin index)
        indexes = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "kb_entries_by_origin" in indexes
        # the full-text index still finds the old rows
        assert store.query("SELECT rowid FROM kb_entries_fts WHERE kb_entries_fts MATCH ?", ('"2x+3"',))
    finally:
        store.close()
    assert_all_kept(before, dump(db))
    assert user_version(db) == migrations.latest_version()
    # the automatic copy holds the old database as it was
    copy = db.with_name("eduqa.db.schema-v0.bak")
    assert dump(copy) == before and user_version(copy) == 0


def test_the_upgraded_database_works_through_the_cli(tmp_path):
    from appliance.cli import main

    make_v1_database(tmp_path / "eduqa.db")
    runner = CliRunner()
    stats = runner.invoke(main, ["--data-dir", str(tmp_path), "kb", "stats", "--json"])
    assert stats.exit_code == 0, stats.output
    assert '"entries": 2' in stats.output and '"asks": 2' in stats.output
    teachers = runner.invoke(main, ["--data-dir", str(tmp_path), "teacher", "list"])
    assert "alice" in teachers.output


def test_an_up_to_date_database_is_left_alone(tmp_path):
    db = tmp_path / "eduqa.db"
    Store(db).close()  # new: no copy of an empty file
    assert not list(tmp_path.glob("*.bak"))
    store = Store(db)
    assert store.migration is None
    store.close()
    assert not list(tmp_path.glob("*.bak"))


NEXT = migrations.latest_version() + 1
BROKEN = Step(NEXT, "a step that fails half-way",
              "ALTER TABLE asks ADD COLUMN note TEXT; UPDATE asks SET note = 'x'; SELECT no_such_function();")


def test_a_failing_step_leaves_the_old_database_untouched(tmp_path):
    db = tmp_path / "eduqa.db"
    make_v1_database(db)
    before = dump(db)
    with pytest.raises(StoreError, match=rf"failed at step {NEXT} \(a step that fails half-way\).*unchanged"):
        Store(db, steps=migrations.STEPS + (BROKEN,))
    assert dump(db) == before
    assert user_version(db) == 0  # every earlier step was rolled back with the broken one
    with sqlite3.connect(db) as conn:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(asks)")}
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "note" not in columns and "kb_entries_by_origin" not in indexes


def test_the_daemon_refuses_to_start_with_one_clear_line(tmp_path, monkeypatch):
    from appliance.cli import main

    make_v1_database(tmp_path / "eduqa.db")
    monkeypatch.setattr(migrations, "STEPS", migrations.STEPS + (BROKEN,))
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "serve", "--port", str(free_port())])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: upgrading the schema of"), result.output
    assert "Traceback" not in result.output


def test_a_database_from_a_newer_release_is_refused(tmp_path):
    db = tmp_path / "eduqa.db"
    Store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer than this eduqa"):
        Store(db)


def test_restoring_an_old_backup_upgrades_it(tmp_path):
    from appliance.ops.backup import restore

    old = tmp_path / "old-backup.db"
    make_v1_database(old)
    with sqlite3.connect(old) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = dump(old)
    live = tmp_path / "data" / "eduqa.db"
    Store(live).close()
    result = restore(old, live)
    assert result.schema == (0, migrations.latest_version())
    assert user_version(live) == migrations.latest_version()
    assert_all_kept(before, dump(live))
    assert user_version(old) == 0  # the backup file itself is never changed


def test_split_statements_keeps_triggers_whole():
    script = "CREATE TABLE t (a);\nCREATE TRIGGER x AFTER INSERT ON t BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;\n"
    assert len(migrations.split_statements(script)) == 2


def test_restoring_a_backup_from_a_newer_release_is_refused_and_changes_nothing(tmp_path):
    from appliance.ops.backup import BackupError, restore

    newer = tmp_path / "newer.db"
    Store(newer).close()
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    live = tmp_path / "data" / "eduqa.db"
    make_v1_database(tmp_path / "seed.db")
    restore(tmp_path / "seed.db", live)
    before = dump(live)
    with pytest.raises(BackupError, match="newer than this eduqa"):
        restore(newer, live)
    assert dump(live) == before and user_version(live) == migrations.latest_version()


def test_each_database_gets_its_own_lasting_id(tmp_path):
    ids = []
    for name in ("a.db", "b.db", "a.db"):
        store = Store(tmp_path / name)
        ids.append(store.store_id())
        store.close()
    assert len(ids[0]) == 32 and ids[0] != ids[1] and ids[0] == ids[2]
