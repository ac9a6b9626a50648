"""``eduqa teacher add|passwd|remove|list``: teacher accounts for the review pages.

Registered on the main CLI with ``main.add_command(teacher)``; the parent group puts the
:class:`Config` in ``ctx.obj``. Passwords are read from a hidden prompt (typed twice) or,
for scripts, one line of stdin with ``--password-stdin``.
"""

from __future__ import annotations

import functools
import sys

import click

from appliance.config import Config


def _accounts(config: Config):
    from appliance.db.store import Store
    from appliance.teachers.accounts import TeacherAccounts

    return TeacherAccounts(Store(config.db_path))


def _known_errors(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from appliance.db.store import StoreError
        from appliance.teachers.accounts import TeacherError

        try:
            return func(*args, **kwargs)
        except (TeacherError, StoreError) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return click.prompt("password", hide_input=True, confirmation_prompt=True)


@click.group()
def teacher() -> None:
    """Teacher accounts (log in at /teacher)."""


@teacher.command("add")
@click.argument("username")
@click.option("--password-stdin", is_flag=True, help="Read the password from one line of stdin.")
@click.pass_obj
@_known_errors
def teacher_add(config: Config, username: str, password_stdin: bool) -> None:
    """Create an account for USERNAME."""
    from appliance.teachers.accounts import check_password, normalise_username

    normalise_username(username)  # refuse a bad name before asking for a password
    password = _password(password_stdin)
    check_password(password)
    name = _accounts(config).add(username, password)
    click.echo(f"teacher {name} added")


@teacher.command("passwd")
@click.argument("username")
@click.option("--password-stdin", is_flag=True, help="Read the password from one line of stdin.")
@click.pass_obj
@_known_errors
def teacher_passwd(config: Config, username: str, password_stdin: bool) -> None:
    """Set a new password for USERNAME (ends the sessions logged in with the old one)."""
    from appliance.teachers.accounts import UnknownTeacherError, normalise_username

    accounts = _accounts(config)
    name = normalise_username(username)
    if name not in accounts.usernames():
        raise UnknownTeacherError(f"no teacher called {name!r}")
    accounts.set_password(name, _password(password_stdin))
    click.echo(f"password of {name} changed")


@teacher.command("remove")
@click.argument("username")
@click.pass_obj
@_known_errors
def teacher_remove(config: Config, username: str) -> None:
    """Delete the account of USERNAME (its sessions end at their next request)."""
    from appliance.teachers.accounts import normalise_username

    _accounts(config).remove(username)
    click.echo(f"teacher {normalise_username(username)} removed")


@teacher.command("list")
@click.pass_obj
@_known_errors
def teacher_list(config: Config) -> None:
    """List the teacher accounts."""
    for name in _accounts(config).usernames():
        click.echo(name)
