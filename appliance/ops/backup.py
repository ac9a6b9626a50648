"""Online backup and restore of the appliance's SQLite database.

Backup (``eduqa backup``, nightly from ``eduqa-backup.timer``) runs while the daemon
serves: SQLite's backup API copies a consistent snapshot inside one read transaction,
which in WAL mode never blocks the daemon's writers. The copy is turned into a plain
single-file database (``journal_mode=DELETE``), checked with ``PRAGMA integrity_check``,
flushed to disk and only then renamed to its final name ``eduqa-YYYYmmddTHHMMSSZ.db``
(UTC). A copy that fails the check is deleted and the backup fails loudly. Backups older
than ``keep_days`` are then removed; only files whose names match that exact pattern are
ever removed, and the newest backup is always kept.

Restore (``eduqa restore FILE``) refuses while any other process has the database open
(the daemon: ``systemctl stop eduqa`` first). FILE is judged by its content, never by its
name: it must start with the SQLite header, pass ``integrity_check`` and hold the eduqa
tables. The database it replaces is kept aside as ``eduqa.db.replaced-<stamp>`` (with
its ``-wal`` if it had one), so a restore can itself be undone. A backup from an older
release is brought to today's schema (``appliance.db.migrations``) before it replaces anything.

The clock is injected (``now``) so retention can be tested without waiting for days.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import sqlite3
import struct
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterator

from appliance.db import migrations

log = logging.getLogger(__name__)

Now = Callable[[], datetime]

DEFAULT_KEEP_DAYS = 14
BACKUP_DIRNAME = "backups"
SQLITE_HEADER = b"SQLite format 3\x00"
STAMP_FORMAT = "%Y%m%dT%H%M%SZ"
BACKUP_NAME = re.compile(r"^eduqa-(\d{8}T\d{6}Z)(?:-(\d{1,3}))?\.db$")
PARTIAL_NAME = re.compile(r"^\.eduqa-(\d{8}T\d{6}Z)(?:-(\d{1,3}))?\.db\.partial$")
#: Tables every eduqa database has; a file without them is not an eduqa database.
REQUIRED_TABLES = ("kb_entries", "asks")
#: In the ``-shm`` file every connection holds a read lock on this byte (SQLite's
#: "dead man switch", UNIX_SHM_DMS = (22 + 8) * 4 + 8) for as long as it has the database open.
SHM_DMS_BYTE = 128


class BackupError(RuntimeError):
    """A backup or restore could not be done; the message says why and what to do."""


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class BackupResult:
    path: Path
    bytes: int
    seconds: float
    counts: dict[str, int]
    removed: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class RestoreResult:
    restored_from: Path
    db_path: Path
    replaced: Path | None
    counts: dict[str, int]
    #: (old, new) schema version when the backup came from an older release.
    schema: tuple[int, int] | None = None


def default_backup_dir(data_dir: Path) -> Path:
    return Path(data_dir) / BACKUP_DIRNAME


def stamp_of(path: Path) -> datetime | None:
    """The UTC time in a backup's name, or None when the name is not a backup's."""
    match = BACKUP_NAME.match(path.name)
    if not match:
        return None
    # fromisoformat reads the basic ISO form (20261130T023512Z) in C; strptime would import
    # _strptime lazily, after `eduqa backup` has switched to the service user.
    return datetime.fromisoformat(match.group(1))


def list_backups(dest_dir: Path) -> list[tuple[datetime, Path]]:
    """Backups in ``dest_dir`` (regular files named like ours), oldest first."""
    found = []
    try:
        entries = list(Path(dest_dir).iterdir())
    except FileNotFoundError:
        return []
    for path in entries:
        when = stamp_of(path)
        if when is not None and path.is_file() and not path.is_symlink():
            found.append((when, path))
    return sorted(found)


# -- backup ------------------------------------------------------------------------------------
def backup(db_path: Path, dest_dir: Path, keep_days: int = DEFAULT_KEEP_DAYS,
           now: Now = utc_now) -> BackupResult:
    """Copy the live database to ``dest_dir`` (online), check it, prune old backups."""
    db_path, dest_dir = Path(db_path), Path(dest_dir)
    if keep_days < 1:
        raise BackupError("keep_days must be at least 1")
    if not db_path.is_file():
        raise BackupError(f"no database at {db_path} (is data_dir right?)")
    try:
        dest_dir.mkdir(mode=0o750, parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"cannot create the backup directory {dest_dir}: {exc}") from None
    started = time.monotonic()
    taken_at = now().astimezone(timezone.utc)
    with _dir_lock(dest_dir):
        final, partial = _free_names(dest_dir, taken_at)
        try:
            counts = _copy_and_check(db_path, partial)
            _fsync_file(partial)
            os.rename(partial, final)
            _fsync_dir(dest_dir)
        except BaseException:
            _unlink_quietly(partial)
            _unlink_quietly(Path(str(partial) + "-journal"))
            raise
        removed = prune(dest_dir, keep_days, now=lambda: taken_at)
    size = final.stat().st_size
    seconds = time.monotonic() - started
    log.info("backup %s: %d bytes, integrity ok, %s, %.2f s", final, size, counts, seconds)
    return BackupResult(final, size, seconds, counts, removed)


def _free_names(dest_dir: Path, taken_at: datetime) -> tuple[Path, Path]:
    stamp = taken_at.strftime(STAMP_FORMAT)
    for n in range(1000):
        suffix = f"-{n}" if n else ""
        final = dest_dir / f"eduqa-{stamp}{suffix}.db"
        partial = dest_dir / f".eduqa-{stamp}{suffix}.db.partial"
        if not final.exists() and not partial.exists():
            return final, partial
    raise BackupError(f"too many backups stamped {stamp} in {dest_dir}")


def _copy_and_check(db_path: Path, partial: Path) -> dict[str, int]:
    # Created here with 0600: a backup holds the student questions and teacher password hashes.
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    try:
        with closing(_open_source(db_path)) as src, closing(sqlite3.connect(partial)) as dst:
            src.backup(dst)  # all pages in one step: one consistent snapshot
            # The copy carries the source's WAL flag; make it a self-contained single file.
            dst.execute("PRAGMA journal_mode=DELETE")
            _check_integrity(dst, partial)
            counts = _counts(dst)
    except sqlite3.Error as exc:
        raise BackupError(f"backup of {db_path} failed: {exc}") from None
    return counts


def _open_source(db_path: Path) -> sqlite3.Connection:
    # Read-write open (the daemon's own user): a read-only one cannot join a WAL database
    # whose -shm it may not create. Nothing is written; busy_timeout rides out a checkpoint.
    conn = sqlite3.connect(f"file:{_uri_path(db_path)}?mode=rw", uri=True, timeout=30)
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def _uri_path(path: Path) -> str:
    from urllib.parse import quote

    return quote(str(Path(path).resolve()))


def _check_integrity(conn: sqlite3.Connection, path: Path) -> None:
    rows = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    if rows != ["ok"]:
        shown = "; ".join(str(r) for r in rows[:5])
        raise BackupError(f"integrity check of {path} failed: {shown}")


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise BackupError(f"not an eduqa database: no table(s) {', '.join(missing)}")
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in REQUIRED_TABLES}


def prune(dest_dir: Path, keep_days: int, now: Now = utc_now) -> list[Path]:
    """Delete backups stamped more than ``keep_days`` before ``now()``, keeping the newest
    whatever its age; also leftovers of interrupted backups older than a day. Files that
    are not named like ours, directories and symlinks are never touched."""
    cutoff = now().astimezone(timezone.utc) - timedelta(days=keep_days)
    backups = list_backups(dest_dir)
    removed = []
    for when, path in backups[:-1]:  # the newest is always kept
        if when < cutoff:
            path.unlink()
            removed.append(path)
    for path in Path(dest_dir).iterdir():
        match = PARTIAL_NAME.match(path.name)
        if match and path.is_file() and not path.is_symlink():
            when = datetime.fromisoformat(match.group(1))
            if when < now().astimezone(timezone.utc) - timedelta(days=1):
                path.unlink()
                removed.append(path)
    for path in removed:
        log.info("backup: removed %s (older than %d days)", path.name, keep_days)
    return removed


# -- restore -----------------------------------------------------------------------------------
def restore(backup_file: Path, db_path: Path, now: Now = utc_now) -> RestoreResult:
    """Replace the database with ``backup_file`` after checking it; keep the old one aside."""
    source, db_path = Path(backup_file), Path(db_path)
    if not source.is_file():
        raise BackupError(f"no backup file at {source}")
    check_sqlite_header(source)
    holder = database_in_use(db_path)
    if holder:
        raise BackupError(
            f"the database {db_path} is open by process {holder} (the daemon?): "
            "stop it first (systemctl stop eduqa), restore, then start it again")
    data_dir = db_path.parent
    data_dir.mkdir(parents=True, exist_ok=True)
    stamp = now().astimezone(timezone.utc).strftime(STAMP_FORMAT)
    staging = data_dir / f".{db_path.name}.restoring-{stamp}"
    _remove_db_files(staging)
    try:
        # Copy first (with the source's -wal if it has one), then let SQLite open the copy:
        # the source is never opened for writing, and recovery happens on our copy.
        shutil.copyfile(source, staging)
        source_wal = Path(str(source) + "-wal")
        if source_wal.is_file():
            shutil.copyfile(source_wal, str(staging) + "-wal")
        try:
            with closing(sqlite3.connect(staging)) as conn:
                _check_integrity(conn, source)
                counts = _counts(conn)
                conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as exc:
            raise BackupError(f"{source} is not a usable SQLite database: {exc}") from None
        schema = _upgrade_schema(staging, source)
        _match_owner(staging, data_dir)
        _fsync_file(staging)
        holder = database_in_use(db_path)  # checked again just before the swap
        if holder:
            raise BackupError(f"the database {db_path} was opened by process {holder} during the restore; "
                              "stop the daemon and try again")
        replaced = _move_aside(db_path, stamp)
        os.rename(staging, db_path)
        _fsync_dir(data_dir)
    except BaseException:
        _remove_db_files(staging)
        raise
    log.info("restored %s from %s (%s); previous database kept as %s", db_path, source, counts, replaced)
    return RestoreResult(source, db_path, replaced, counts, schema)


def _upgrade_schema(staging: Path, source: Path) -> tuple[int, int] | None:
    """Bring a backup from an older release to today's schema before it replaces anything
    (the backup file itself is the copy from before)."""
    try:
        upgraded = migrations.migrate_file(staging, backup_first=False)
    except migrations.MigrationError as exc:
        raise BackupError(f"{source} cannot be brought to this release's schema: {exc}") from None
    return (upgraded.from_version, upgraded.to_version) if upgraded else None


def check_sqlite_header(path: Path) -> None:
    """Refuse a file whose content is not an SQLite database, whatever its name."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise BackupError(f"cannot read {path}: {exc}") from None
    if header != SQLITE_HEADER:
        raise BackupError(f"{path} is not an SQLite database (its content does not start with the SQLite header)")


def database_in_use(db_path: Path) -> int | None:
    """The id of another process that has the database open, or None.

    Every SQLite connection to a WAL database holds a shared lock on one byte of the
    ``-shm`` file while it is open; F_GETLK asks the kernel who holds it, without taking
    it. (Locks held by this very process are not reported: POSIX locks are per process.)
    """
    shm = Path(str(db_path) + "-shm")
    try:
        fd = os.open(shm, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BackupError(f"cannot check whether {db_path} is in use: {exc}") from None
    try:
        query = struct.pack("@hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, SHM_DMS_BYTE, 1, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        l_type, _, _, _, l_pid = struct.unpack("@hhqqi4x", answer)
    finally:
        os.close(fd)
    return None if l_type == fcntl.F_UNLCK else (l_pid or -1)


def _move_aside(db_path: Path, stamp: str) -> Path | None:
    if not db_path.exists():
        for suffix in ("-wal", "-shm"):
            _unlink_quietly(Path(str(db_path) + suffix))
        return None
    aside = db_path.with_name(f"{db_path.name}.replaced-{stamp}")
    n = 0
    while aside.exists():
        n += 1
        aside = db_path.with_name(f"{db_path.name}.replaced-{stamp}-{n}")
    os.rename(db_path, aside)
    wal = Path(str(db_path) + "-wal")
    if wal.exists():  # un-checkpointed commits: keep them with their database
        os.rename(wal, str(aside) + "-wal")
    _unlink_quietly(Path(str(db_path) + "-shm"))  # shared memory only; rebuilt on open
    return aside


def _match_owner(path: Path, like: Path) -> None:
    """Run as root on a data dir owned by the service user: hand the file to that user,
    or the daemon could not write its own database."""
    if os.geteuid() != 0:
        return
    st = like.stat()
    for p in (path, Path(str(path) + "-wal"), Path(str(path) + "-shm")):
        if p.exists():
            os.chown(p, st.st_uid, st.st_gid)


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        _unlink_quietly(Path(str(path) + suffix))


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _dir_lock(dest_dir: Path) -> Iterator[None]:
    """Serialise backups into one directory (the timer and a manual run at once)."""
    fd = os.open(dest_dir / ".backup.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
