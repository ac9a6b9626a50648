"""``eduqa backup`` and ``eduqa restore``: the operator's commands for the database.

Registered on the main group in ``appliance/cli.py``::

    from appliance.ops.cli import backup_command, restore_command
    main.add_command(backup_command)
    main.add_command(restore_command)

Run as root on an installed appliance, both first switch to the user that owns the data
directory (``eduqa``), so every file they create belongs to the daemon's user.
Known failures print one ``error:`` line and exit with status 2, like every eduqa command.
"""

from __future__ import annotations

import functools
import os
import pwd
import sys
from pathlib import Path

import click

from appliance.ops.backup import DEFAULT_KEEP_DAYS, BackupError, default_backup_dir
from appliance.config import Config


def _ops_errors(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from appliance.db.store import StoreError

        try:
            return func(*args, **kwargs)
        except (BackupError, StoreError) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def _backup_settings(config: Config) -> tuple[Path, int]:
    """``[backup] dir`` and ``keep_days`` from the config when it has them (the section is
    optional), else ``<data_dir>/backups`` and 14 days."""
    section = getattr(config, "backup", None)
    configured_dir = getattr(section, "dir", None)
    keep_days = getattr(section, "keep_days", None) or DEFAULT_KEEP_DAYS
    dest = Path(configured_dir) if configured_dir and str(configured_dir) not in ("", ".") else default_backup_dir(config.data_dir)
    return dest, int(keep_days)


def run_as_data_owner(data_dir: Path) -> str | None:
    """As root, become the owner of ``data_dir`` (the service user) so that files created
    in it are the daemon's. Returns the user name switched to, or None when nothing changed."""
    if os.geteuid() != 0:
        return None
    try:
        st = Path(data_dir).stat()
    except FileNotFoundError:
        return None
    if st.st_uid == 0:
        return None
    try:
        user = pwd.getpwuid(st.st_uid)
        name, gid = user.pw_name, user.pw_gid
    except KeyError:
        name, gid = str(st.st_uid), st.st_gid
    os.setgroups([])
    os.setgid(gid)
    os.setuid(st.st_uid)
    return name


@click.command("backup")
@click.option("--dir", "dest", type=click.Path(file_okay=False),
              help="Directory for the backups (default: backup.dir, or <data_dir>/backups).")
@click.option("--keep-days", type=click.IntRange(min=1),
              help=f"Delete backups older than this many days (default: backup.keep_days, or {DEFAULT_KEEP_DAYS}); "
                   "the newest is always kept.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
@_ops_errors
def backup_command(config: Config, dest: str | None, keep_days: int | None, as_json: bool) -> None:
    """Online backup of the database (the daemon keeps serving), checked with
    PRAGMA integrity_check; old backups pruned."""
    from appliance.ops.backup import backup

    default_dest, default_keep = _backup_settings(config)
    switched = run_as_data_owner(config.data_dir)
    if switched:
        click.echo(f"note: running as {switched}, the owner of {config.data_dir}", err=True)
    result = backup(config.db_path, Path(dest) if dest else default_dest, keep_days or default_keep)
    if as_json:
        import json

        click.echo(json.dumps({"path": str(result.path), "bytes": result.bytes, "seconds": round(result.seconds, 3),
                               "counts": result.counts, "removed": [str(p) for p in result.removed]}))
        return
    counts = ", ".join(f"{n} {table}" for table, n in result.counts.items())
    click.echo(f"backup {result.path}: {result.bytes / 2**20:.1f} MB, integrity ok ({counts}) in {result.seconds:.1f} s")
    for path in result.removed:
        click.echo(f"removed old backup {path.name}")


@click.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_obj
@_ops_errors
def restore_command(config: Config, file: str) -> None:
    """Replace the database with the backup FILE. Stop the daemon first
    (systemctl stop eduqa). FILE is checked (SQLite content, integrity, eduqa tables)
    before anything changes; the replaced database is kept beside it."""
    from appliance.ops.backup import restore

    switched = run_as_data_owner(config.data_dir)
    if switched:
        click.echo(f"note: running as {switched}, the owner of {config.data_dir}", err=True)
        if not os.access(file, os.R_OK):
            raise BackupError(f"{switched} cannot read {file}: copy it into {default_backup_dir(config.data_dir)} "
                              f"or make it readable by {switched}")
    result = restore(Path(file), config.db_path)
    counts = ", ".join(f"{n} {table}" for table, n in result.counts.items())
    click.echo(f"restored {result.db_path} from {result.restored_from} ({counts})")
    if result.schema:
        click.echo(f"schema upgraded from version {result.schema[0]} to {result.schema[1]}")
    if result.replaced:
        click.echo(f"the previous database is kept as {result.replaced}")
    click.echo("start the daemon again: systemctl start eduqa")
