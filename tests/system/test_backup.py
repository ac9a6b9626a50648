"""Backup and restore: online, checked, identical round trip, retention by an injected clock,
content (not name) decides what may be restored, no restore under a running daemon."""

from __future__ import annotations

import os
import pwd
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from appliance.ops import backup as bk
from appliance.asklog.log import AskLog, AskRecord
from appliance.bank.kb import QuestionBank
from appliance.db.store import Store
from tests.system.conftest import REPO, require_root

T0 = datetime(2026, 11, 30, 2, 30, 0, tzinfo=timezone.utc)


def record(i: int) -> AskRecord:
    return AskRecord(client=f"10.0.0.{i % 200}", kind="text", question=f"第{i}题：解方程 2x + {i} = 13",
                     truncated=False, matched_id=None, confidence=0.1, abstained=True,
                     stage_ms={"encode": 1.0}, backend="test")


def make_db(data_dir: Path, asks: int = 50) -> Path:
    store = Store(data_dir / "eduqa.db")
    QuestionBank(store).load_demo_if_empty()
    log = AskLog(store, clock=lambda: "2026-11-30T08:00:00.000Z")
    for i in range(asks):
        log.record(record(i))
    log.close()
    store.close()
    return data_dir / "eduqa.db"


def dump(path: Path) -> list[str]:
    """Every row of every table (FTS shadow tables included), as SQL text."""
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


def clock(when: datetime):
    return lambda: when


def test_backup_then_restore_round_trip_is_identical(tmp_path):
    db = make_db(tmp_path / "data")
    before = dump(db)
    result = bk.backup(db, tmp_path / "backups", now=clock(T0))
    assert result.path.name == "eduqa-20261130T023000Z.db"
    assert result.counts == {"kb_entries": 164, "asks": 50}
    # A self-contained single file: rollback-journal header, no -wal beside it, owner-only.
    assert result.path.read_bytes()[18:20] == b"\x01\x01"
    assert not Path(str(result.path) + "-wal").exists()
    assert oct(result.path.stat().st_mode & 0o777) == "0o600"
    assert dump(result.path) == before

    # The database moves on after the backup...
    store = Store(db)
    log = AskLog(store)
    for i in range(50, 80):
        log.record(record(i))
    log.close()
    with store.transaction() as conn:
        conn.execute("DELETE FROM kb_entries WHERE id LIKE 'demo-math-%'")
    store.close()
    assert dump(db) != before

    # ...and the restore brings back exactly what was backed up, keeping the replaced one.
    restored = bk.restore(result.path, db, now=clock(T0 + timedelta(hours=5)))
    assert dump(db) == before
    assert restored.replaced == db.with_name("eduqa.db.replaced-20261130T073000Z")
    with sqlite3.connect(restored.replaced) as old:
        assert old.execute("SELECT count(*) FROM asks").fetchone()[0] == 80
    # The restored database is a normal WAL database the daemon can open and write.
    store = Store(db)
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert AskLog(store).count() == 50
    assert store.writable()
    store.close()


def test_backup_is_online_while_another_process_writes(tmp_path):
    db = make_db(tmp_path / "data", asks=10)
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sys, itertools\n"
        "from pathlib import Path\n"
        "from appliance.asklog.log import AskLog\n"
        "from appliance.db.store import Store\n"
        "from tests.system.test_backup import record\n"
        "log = AskLog(Store(Path(sys.argv[1])))\n"
        "print('writing', flush=True)\n"
        "for i in itertools.count(1000):\n"
        "    log.record(record(i))\n"), str(db)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert writer.stdout.readline().strip() == "writing"
        results = [bk.backup(db, tmp_path / "backups", now=clock(T0 + timedelta(seconds=n))) for n in range(3)]
        assert writer.poll() is None, "the writer was blocked or died"
    finally:
        writer.kill()
        writer.wait()
    counts = [r.counts["asks"] for r in results]
    assert counts == sorted(counts) and counts[-1] > 10, counts  # snapshots of a growing log
    for r in results:
        with sqlite3.connect(r.path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("SELECT count(*) FROM asks").fetchone()[0] == r.counts["asks"]


def test_retention_keeps_n_days_by_the_injected_clock(tmp_path):
    db = make_db(tmp_path / "data", asks=1)
    dest = tmp_path / "backups"
    made = [bk.backup(db, dest, keep_days=30, now=clock(T0 - timedelta(days=d))).path for d in (20, 10, 8, 6, 1)]
    assert len(bk.list_backups(dest)) == 5
    # Things that are not our backups, even when named nearly like them, are never touched.
    outside = tmp_path / "precious.db"
    outside.write_text("keep me")
    (dest / "eduqa-20200101T000000Z.db.txt").write_text("x")
    (dest / "eduqa-latest.db").write_text("x")
    (dest / "notes.txt").write_text("x")
    (dest / "eduqa-20190101T000000Z.db").symlink_to(outside)
    (dest / "eduqa-20180101T000000Z.db").mkdir()
    (dest / ".eduqa-20200101T000000Z.db.partial").write_text("crashed backup")

    result = bk.backup(db, dest, keep_days=7, now=clock(T0))
    kept = [p.name for _, p in bk.list_backups(dest)]
    assert kept == [made[3].name, made[4].name, result.path.name]  # 6 and 1 days old, and today's
    assert sorted(p.name for p in result.removed) == sorted(
        [made[0].name, made[1].name, made[2].name, ".eduqa-20200101T000000Z.db.partial"])
    assert outside.read_text() == "keep me"
    for name in ("eduqa-20200101T000000Z.db.txt", "eduqa-latest.db", "notes.txt",
                 "eduqa-20190101T000000Z.db", "eduqa-20180101T000000Z.db"):
        assert (dest / name).exists() or (dest / name).is_symlink(), name


def test_the_newest_backup_is_kept_whatever_its_age(tmp_path):
    db = make_db(tmp_path / "data", asks=1)
    only = bk.backup(db, tmp_path / "b", keep_days=1, now=clock(T0 - timedelta(days=100))).path
    assert bk.prune(tmp_path / "b", keep_days=1, now=clock(T0)) == []
    assert only.exists()


def test_two_backups_in_the_same_second_get_distinct_names(tmp_path):
    db = make_db(tmp_path / "data", asks=1)
    a = bk.backup(db, tmp_path / "b", now=clock(T0)).path
    b = bk.backup(db, tmp_path / "b", now=clock(T0)).path
    assert a != b and b.name == "eduqa-20261130T023000Z-1.db"


def test_a_corrupt_database_gives_no_backup(tmp_path):
    db = make_db(tmp_path / "data", asks=200)
    with sqlite3.connect(db) as conn:  # fold the WAL into the file, then damage a page
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    with open(db, "r+b") as fh:
        for page in range(2, pages, 3):
            fh.seek(page * page_size + 40)
            fh.write(b"\xde\xad\xbe\xef" * 64)
    with pytest.raises(bk.BackupError) as err:
        bk.backup(db, tmp_path / "b", now=clock(T0))
    assert "integrity" in str(err.value) or "malformed" in str(err.value)
    assert list((tmp_path / "b").glob("*eduqa-*")) == []  # no partial or final file left


@pytest.mark.parametrize("content, name, message", [
    (b"id,question\n1,hello\n", "eduqa-20261130T023000Z.db", "not an SQLite database"),
    (b"", "backup.db", "not an SQLite database"),
    (b"SQLite format 3\x00" + b"\x00" * 200, "truncated.db", "not a usable SQLite database"),
])
def test_restore_judges_the_file_by_content_not_name(tmp_path, content, name, message):
    db = make_db(tmp_path / "data", asks=3)
    before = dump(db)
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(bk.BackupError) as err:
        bk.restore(bad, db)
    assert message in str(err.value)
    assert dump(db) == before and not list((tmp_path / "data").glob("*replaced*"))
    assert not list((tmp_path / "data").glob(".eduqa.db.restoring*"))


def test_restore_refuses_an_sqlite_file_that_is_not_an_eduqa_database(tmp_path):
    db = make_db(tmp_path / "data", asks=3)
    other = tmp_path / "photos.txt"  # any name: SQLite content, wrong tables
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(bk.BackupError, match="not an eduqa database"):
        bk.restore(other, db)


def test_restore_accepts_a_good_backup_under_any_name(tmp_path):
    db = make_db(tmp_path / "data", asks=3)
    good = bk.backup(db, tmp_path / "b", now=clock(T0)).path
    renamed = tmp_path / "from-usb-stick.txt"
    renamed.write_bytes(good.read_bytes())
    assert bk.restore(renamed, db).counts["asks"] == 3


def test_restore_refuses_while_the_daemon_has_the_database_open(tmp_path):
    db = make_db(tmp_path / "data", asks=3)
    good = bk.backup(db, tmp_path / "b", now=clock(T0)).path
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom pathlib import Path\nfrom appliance.db.store import Store\n"
        "s = Store(Path(sys.argv[1])); s.query('SELECT count(*) FROM asks')\n"
        "print('open', flush=True); time.sleep(60)\n"), str(db)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "open"
        assert bk.database_in_use(db) == holder.pid
        with pytest.raises(bk.BackupError) as err:
            bk.restore(good, db)
        assert f"open by process {holder.pid}" in str(err.value) and "systemctl stop eduqa" in str(err.value)
    finally:
        holder.kill()
        holder.wait()
    assert bk.database_in_use(db) is None
    assert bk.restore(good, db).counts["asks"] == 3


def test_backup_of_a_missing_database_says_so(tmp_path):
    with pytest.raises(bk.BackupError, match="no database at"):
        bk.backup(tmp_path / "nothing" / "eduqa.db", tmp_path / "b")


# -- the commands --------------------------------------------------------------------------------
def test_backup_and_restore_commands(tmp_path, eduqa_cli):
    data = tmp_path / "data"
    make_db(data, asks=4)
    runner = CliRunner()
    out = runner.invoke(eduqa_cli, ["--data-dir", str(data), "backup", "--keep-days", "3"])
    assert out.exit_code == 0, out.output
    assert "integrity ok" in out.output and "4 asks" in out.output
    made = bk.list_backups(data / "backups")
    assert len(made) == 1
    out = runner.invoke(eduqa_cli, ["--data-dir", str(data), "restore", str(made[0][1])])
    assert out.exit_code == 0, out.output
    assert "restored" in out.output and "kept as" in out.output

    bad = tmp_path / "bank.csv"
    bad.write_text("id,subject\n")
    out = runner.invoke(eduqa_cli, ["--data-dir", str(data), "restore", str(bad)])
    assert out.exit_code == 2 and out.output.startswith("error: ") and "Traceback" not in out.output
    out = runner.invoke(eduqa_cli, ["--data-dir", str(tmp_path / "empty"), "backup"])
    assert out.exit_code == 2 and "no database at" in out.output
    out = runner.invoke(eduqa_cli, ["--data-dir", str(data), "backup", "--keep-days", "0"])
    assert out.exit_code == 2 and "keep-days" in out.output


def test_backup_to_a_full_disk_fails_cleanly(tmp_path):
    require_root("mounting a tmpfs")
    db = make_db(tmp_path / "data", asks=20)
    full = tmp_path / "full"
    full.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with pytest.raises(bk.BackupError) as err:
            bk.backup(db, full, now=clock(T0))
        assert "full" in str(err.value)
        assert [p.name for p in full.iterdir()] == [".backup.lock"]  # the partial copy is gone
    finally:
        subprocess.run(["umount", str(full)], check=True)


def test_run_as_root_the_commands_become_the_data_owner(tmp_path):
    """``sudo eduqa backup`` must not leave root-owned files the daemon cannot touch."""
    require_root("switching users")
    owner = pwd.getpwnam("nobody")
    base = Path(tempfile.mkdtemp(prefix="eduqa-owner-", dir="/tmp"))  # reachable by nobody
    try:
        base.chmod(0o755)
        data = base / "data"
        make_db(data, asks=2)
        for path in [data, *data.iterdir()]:
            os.chown(path, owner.pw_uid, owner.pw_gid)
        env = {**os.environ, "EDUQA_DATA_DIR": str(data)}
        out = subprocess.run([sys.executable, "-m", "tests.system.eduqa_ops", "backup"], capture_output=True,
                             text=True, env=env, cwd=REPO)
        assert out.returncode == 0, out.stderr
        assert "running as nobody" in out.stderr
        made = bk.list_backups(data / "backups")[0][1]
        for path in (data / "backups", made):
            assert path.stat().st_uid == owner.pw_uid, path
        # restore as root: the new database belongs to the data dir's owner as well
        out = subprocess.run([sys.executable, "-m", "tests.system.eduqa_ops", "restore", str(made)],
                             capture_output=True, text=True, env=env, cwd=REPO)
        assert out.returncode == 0, out.stderr
        assert (data / "eduqa.db").stat().st_uid == owner.pw_uid
        # a file the data owner cannot read gets a clear message, not a traceback
        secret = base / "root-only.db"
        secret.write_bytes(made.read_bytes())
        secret.chmod(0o600)
        out = subprocess.run([sys.executable, "-m", "tests.system.eduqa_ops", "restore", str(secret)],
                             capture_output=True, text=True, env=env, cwd=REPO)
        assert out.returncode == 2 and "nobody cannot read" in out.stderr
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=True)


def test_backup_timing_is_reported(tmp_path):
    db = make_db(tmp_path / "data", asks=5)
    started = time.monotonic()
    result = bk.backup(db, tmp_path / "b", now=clock(T0))
    assert 0 <= result.seconds <= time.monotonic() - started + 0.01
    assert result.bytes == result.path.stat().st_size
