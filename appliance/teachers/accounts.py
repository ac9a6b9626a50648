"""Teacher logins: accounts with argon2id password hashes, sessions that expire, and a
login guard that locks a user name (or an address) after repeated failures.

Accounts live in the ``teachers`` table; sessions and failure counts live in memory
(a daemon restart logs every teacher out). Every time source is injected, so expiry
and lockout are tested without sleeping.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from appliance.db import review_sql
from appliance.common.clock import Clock, utc_now
from appliance.db.store import Store

log = logging.getLogger(__name__)

Seconds = Callable[[], float]

MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
_USERNAME = re.compile(r"^[\w.\-]{1,32}$")
MAX_TRACKED = 10_000
# argon2id verifications running at once (each takes 64 MiB and a core for ~0.1 s); a
# login that cannot get a slot within HASH_WAIT_S is refused as busy.
MAX_PARALLEL_HASHES = 2
HASH_WAIT_S = 3.0


class TeacherError(ValueError):
    """Base of the account errors a teacher or admin can fix (printed as one line)."""


class BadUsernameError(TeacherError):
    """The user name is empty, too long or has characters other than letters, digits, . _ -."""


class WeakPasswordError(TeacherError):
    """The password is too short (or absurdly long)."""


class TeacherExistsError(TeacherError):
    """``add`` for a user name that already has an account."""


class UnknownTeacherError(TeacherError):
    """No account with that user name."""


class LoginRefused(Exception):
    """Wrong user name or password (deliberately not saying which)."""


class LoginBusy(Exception):
    """Too many logins are being checked at once; try again in a moment."""


class LoginLocked(Exception):
    """Too many failed logins: refused without checking the password."""

    def __init__(self, retry_after_s: float):
        self.retry_after_s = max(1.0, retry_after_s)
        super().__init__(f"too many failed logins; try again in {int(self.retry_after_s // 60) + 1} minute(s)")


def canonical_username(username: str | None) -> str:
    """The one form of a teacher's name, used for lookup, lockout, display and storage:
    NFKC (full-width ｄａｖｅ is dave), outer spaces stripped, case folded. Never raises."""
    folded = unicodedata.normalize("NFKC", username or "").strip().casefold()
    return unicodedata.normalize("NFKC", folded)[:64]


def normalise_username(username: str) -> str:
    name = canonical_username(username)
    if not _USERNAME.match(name):
        raise BadUsernameError("user names are 1-32 letters, digits, '.', '_' or '-'")
    return name


def check_password(password: str) -> None:
    if len(password or "") < MIN_PASSWORD_CHARS:
        raise WeakPasswordError(f"passwords need at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise WeakPasswordError(f"passwords are at most {MAX_PASSWORD_CHARS} characters")


def hash_fingerprint(password_hash: str) -> str:
    """A short, non-secret tag of a stored hash: a session remembers it, so changing the
    password (or removing the account) ends the sessions made with the old one."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


# -- accounts -------------------------------------------------------------------------------
class TeacherAccounts:
    def __init__(self, store: Store, hasher: PasswordHasher | None = None, clock: Clock = utc_now,
                 max_parallel_hashes: int = MAX_PARALLEL_HASHES, hash_wait_s: float = HASH_WAIT_S):
        self.store = store
        self.hasher = hasher or PasswordHasher()  # argon2id, RFC 9106 low-memory profile
        self.clock = clock
        self._hash_slots = threading.BoundedSemaphore(max_parallel_hashes)
        self._hash_wait_s = hash_wait_s
        # Verifying against this for unknown names makes them cost the same as known ones.
        self._dummy_hash = self.hasher.hash(secrets.token_hex(16))

    def add(self, username: str, password: str) -> str:
        name = normalise_username(username)
        check_password(password)
        digest = self.hasher.hash(password)
        with self.store.transaction() as conn:
            if conn.execute(review_sql.TEACHER_HASH, (name,)).fetchone():
                raise TeacherExistsError(f"teacher {name!r} already exists (use passwd to change the password)")
            conn.execute(review_sql.TEACHER_INSERT, (name, digest, self.clock()))
        log.info("teacher account %s added", name)
        return name

    def set_password(self, username: str, password: str) -> None:
        name = normalise_username(username)
        check_password(password)
        digest = self.hasher.hash(password)
        with self.store.transaction() as conn:
            if conn.execute(review_sql.TEACHER_SET_HASH, (digest, name)).rowcount == 0:
                raise UnknownTeacherError(f"no teacher called {name!r}")
        log.info("teacher %s: password changed", name)

    def remove(self, username: str) -> None:
        name = normalise_username(username)
        with self.store.transaction() as conn:
            if conn.execute(review_sql.TEACHER_DELETE, (name,)).rowcount == 0:
                raise UnknownTeacherError(f"no teacher called {name!r}")
        log.info("teacher account %s removed", name)

    def usernames(self) -> list[str]:
        return [row[0] for row in self.store.query(review_sql.TEACHER_LIST)]

    def fingerprint(self, username: str) -> str | None:
        rows = self.store.query(review_sql.TEACHER_HASH, (username,))
        return hash_fingerprint(rows[0][0]) if rows else None

    def verify(self, username: str, password: str) -> str | None:
        """The normalised name when the password is right, else None (constant-ish time)."""
        try:
            name = normalise_username(username)
        except BadUsernameError:
            name = ""
        rows = self.store.query(review_sql.TEACHER_HASH, (name,)) if name else []
        stored = rows[0][0] if rows else self._dummy_hash
        if not self._hash_slots.acquire(timeout=self._hash_wait_s):
            raise LoginBusy("too many logins at once; try again in a moment")
        try:
            self.hasher.verify(stored, password or "")
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        finally:
            self._hash_slots.release()
        if not rows:
            return None
        if self.hasher.check_needs_rehash(stored):
            with self.store.transaction() as conn:
                conn.execute(review_sql.TEACHER_SET_HASH, (self.hasher.hash(password), name))
        return name


# -- login guard ----------------------------------------------------------------------------
class LoginGuard:
    """Failed logins counted per user name and per client address in a sliding window;
    reaching the limit locks that key for ``lockout_s``."""

    def __init__(self, max_failures: int, window_s: float, lockout_s: float, clock: Seconds = time.monotonic,
                 address_factor: int = 4):
        self.limits = {"user": max_failures, "addr": max_failures * address_factor}
        self.window_s = window_s
        self.lockout_s = lockout_s
        self.clock = clock
        self._failures: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._locked_until: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def check(self, username: str, client: str) -> None:
        """Raise :class:`LoginLocked` when the name or the address is locked now."""
        now = self.clock()
        with self._lock:
            waits = [self._locked_until.get(key, 0.0) - now for key in self._keys(username, client)]
        wait = max(waits)
        if wait > 0:
            raise LoginLocked(wait)

    def attempt(self, username: str, client: str) -> None:
        """Before any password is hashed: raise :class:`LoginLocked` when the name or the
        address is locked, else count this attempt as a failure now (:meth:`succeeded`
        takes it back). So concurrent guesses are counted before they cost a hash."""
        now = self.clock()
        with self._lock:
            wait = max(self._locked_until.get(key, 0.0) - now for key in self._keys(username, client))
            if wait > 0:
                raise LoginLocked(wait)
            self._count_failure(username, client, now)

    def failed(self, username: str, client: str) -> None:
        with self._lock:
            self._count_failure(username, client, self.clock())

    def _count_failure(self, username: str, client: str, now: float) -> None:
        for key in self._keys(username, client):
            times = self._failures.pop(key, deque())
            while times and now - times[0] > self.window_s:
                times.popleft()
            times.append(now)
            self._failures[key] = times
            if len(times) >= self.limits[key[0]]:
                self._locked_until[key] = now + self.lockout_s
                times.clear()
                log.warning("login locked for %s %s (%d s)", key[0], key[1], self.lockout_s)
        self._forget_oldest()

    def succeeded(self, username: str, client: str) -> None:
        """A right password: the name's failures are forgotten, and the attempt counted
        for the address by :meth:`attempt` is taken back."""
        with self._lock:
            self._failures.pop(("user", canonical_username(username)), None)
            times = self._failures.get(("addr", client or ""))
            if times:
                times.pop()

    def _keys(self, username: str, client: str) -> list[tuple[str, str]]:
        return [("user", canonical_username(username)), ("addr", client or "")]

    def _forget_oldest(self) -> None:
        while len(self._failures) > MAX_TRACKED:
            self._failures.popitem(last=False)
        if len(self._locked_until) > MAX_TRACKED:
            now = self.clock()
            for key in [k for k, until in self._locked_until.items() if until <= now]:
                del self._locked_until[key]


# -- sessions -------------------------------------------------------------------------------
@dataclass
class Session:
    username: str
    fingerprint: str
    created: float
    last_seen: float


class SessionManager:
    """Random opaque tokens → sessions; a session ends after ``idle_s`` without use or
    ``max_s`` after login, whichever comes first."""

    def __init__(self, idle_s: float, max_s: float, clock: Seconds = time.monotonic, max_sessions: int = MAX_TRACKED):
        self.idle_s = idle_s
        self.max_s = max_s
        self.clock = clock
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, username: str, fingerprint: str) -> str:
        token = secrets.token_urlsafe(32)
        now = self.clock()
        with self._lock:
            self._sessions[token] = Session(username, fingerprint, now, now)
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        return token

    def lookup(self, token: str | None) -> Session | None:
        """The live session for ``token`` (and mark it used), or None."""
        if not token:
            return None
        now = self.clock()
        with self._lock:
            session = self._sessions.get(token)
            if session is None:
                return None
            if now - session.last_seen >= self.idle_s or now - session.created >= self.max_s:
                del self._sessions[token]
                return None
            session.last_seen = now
            return session

    def revoke(self, token: str | None) -> None:
        with self._lock:
            self._sessions.pop(token or "", None)

    def count(self) -> int:
        with self._lock:
            return len(self._sessions)


# -- the three together ---------------------------------------------------------------------
class TeacherAuth:
    def __init__(self, accounts: TeacherAccounts, guard: LoginGuard, sessions: SessionManager):
        self.accounts = accounts
        self.guard = guard
        self.sessions = sessions

    @classmethod
    def from_settings(cls, store: Store, ui, clock: Seconds = time.monotonic,
                      hasher: PasswordHasher | None = None) -> "TeacherAuth":
        """Build from an :class:`appliance.ui_config.UiConfig`."""
        guard = LoginGuard(ui.login_max_failures, ui.login_window_minutes * 60.0,
                           ui.login_lockout_minutes * 60.0, clock=clock)
        sessions = SessionManager(ui.session_idle_minutes * 60.0, ui.session_max_hours * 3600.0, clock=clock)
        return cls(TeacherAccounts(store, hasher=hasher), guard, sessions)

    def login(self, username: str, password: str, client: str) -> str:
        """A new session token; raises :class:`LoginLocked`, :class:`LoginBusy` or
        :class:`LoginRefused`. The attempt is counted against the name and the address
        before the password is hashed."""
        self.guard.attempt(username, client)
        name = self.accounts.verify(username, password)
        if name is None:
            log.info("failed teacher login for %r from %s", canonical_username(username)[:40], client)
            raise LoginRefused("wrong user name or password")
        self.guard.succeeded(name, client)
        fingerprint = self.accounts.fingerprint(name) or ""
        log.info("teacher %s logged in from %s", name, client)
        return self.sessions.create(name, fingerprint)

    def user_for(self, token: str | None) -> str | None:
        """The teacher a session token belongs to, or None (expired, logged out, password
        changed or account removed since)."""
        session = self.sessions.lookup(token)
        if session is None:
            return None
        if self.accounts.fingerprint(session.username) != session.fingerprint:
            self.sessions.revoke(token)
            return None
        return session.username

    def logout(self, token: str | None) -> None:
        self.sessions.revoke(token)
