"""Teacher accounts, password hashing, login lockout and session expiry (fake clocks)."""

from __future__ import annotations

import click
import pytest
from argon2 import PasswordHasher
from click.testing import CliRunner

from appliance.db.store import Store
from appliance.teachers.cli import teacher
from appliance.teachers.accounts import (
    BadUsernameError,
    LoginGuard,
    LoginLocked,
    LoginRefused,
    SessionManager,
    TeacherAccounts,
    TeacherAuth,
    TeacherExistsError,
    UnknownTeacherError,
    WeakPasswordError,
)
from appliance.ui_config import UiConfig, UiConfigError, check_ui_config

# Cheap argon2id parameters keep the suite fast; the real defaults are tested once below.
FAST = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "eduqa.db")
    yield s
    s.close()


@pytest.fixture
def accounts(store):
    return TeacherAccounts(store, hasher=FAST)


def test_password_is_stored_as_argon2id_hash_never_plain(store):
    accounts = TeacherAccounts(store)  # library defaults
    accounts.add("Alice", "correct horse battery")
    (stored,) = store.query("SELECT password_hash FROM teachers WHERE username = 'alice'")[0]
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    assert accounts.verify("alice", "correct horse battery") == "alice"
    assert accounts.verify("alice", "correct horse batterY") is None


def test_usernames_are_normalised_and_checked(accounts):
    assert accounts.add("  Ms.Wang ", "secret-pass") == "ms.wang"
    assert accounts.verify("MS.WANG", "secret-pass") == "ms.wang"
    assert accounts.add("王老师", "secret-pass") == "王老师"
    for bad in ("", "a b", "x" * 33, "bob;drop", "../etc"):
        with pytest.raises(BadUsernameError):
            accounts.add(bad, "secret-pass")
    assert accounts.verify("a b", "secret-pass") is None


def test_add_passwd_remove_errors(accounts):
    accounts.add("bob", "first-password")
    with pytest.raises(TeacherExistsError):
        accounts.add("BOB", "other-password")
    with pytest.raises(WeakPasswordError):
        accounts.add("carol", "short")
    with pytest.raises(UnknownTeacherError):
        accounts.set_password("nobody", "new-password")
    accounts.set_password("bob", "second-password")
    assert accounts.verify("bob", "first-password") is None
    assert accounts.verify("bob", "second-password") == "bob"
    accounts.remove("bob")
    assert accounts.verify("bob", "second-password") is None
    with pytest.raises(UnknownTeacherError):
        accounts.remove("bob")
    assert accounts.usernames() == []


def test_old_hash_parameters_are_upgraded_on_login(store):
    TeacherAccounts(store, hasher=FAST).add("dan", "dan-password")
    strong = TeacherAccounts(store, hasher=PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1))
    assert strong.verify("dan", "dan-password") == "dan"
    (stored,) = store.query("SELECT password_hash FROM teachers WHERE username = 'dan'")[0]
    assert "m=2048,t=2" in stored


def test_guard_locks_a_name_after_repeated_failures_and_unlocks_later():
    clock = FakeClock()
    guard = LoginGuard(max_failures=3, window_s=600, lockout_s=900, clock=clock)
    for _ in range(2):
        guard.check("alice", "10.0.0.1")
        guard.failed("alice", "10.0.0.1")
    guard.check("alice", "10.0.0.1")  # two failures: still allowed
    guard.failed("ALICE", "10.0.0.2")  # third, other address, other case: same name
    with pytest.raises(LoginLocked) as locked:
        guard.check("alice", "10.0.0.9")
    assert 899 <= locked.value.retry_after_s <= 900
    guard.check("bob", "10.0.0.9")  # other names are not affected
    clock.advance(901)
    guard.check("alice", "10.0.0.1")


def test_guard_window_forgets_old_failures():
    clock = FakeClock()
    guard = LoginGuard(max_failures=3, window_s=60, lockout_s=900, clock=clock)
    for _ in range(5):
        guard.failed("alice", f"10.0.0.{_}")
        clock.advance(40)  # never 3 inside one minute
    guard.check("alice", "10.0.0.1")


def test_guard_locks_an_address_that_tries_many_names():
    clock = FakeClock()
    guard = LoginGuard(max_failures=2, window_s=600, lockout_s=60, clock=clock, address_factor=4)
    for i in range(8):
        guard.failed(f"user{i}", "10.9.9.9")
    with pytest.raises(LoginLocked):
        guard.check("someone-new", "10.9.9.9")
    guard.check("someone-new", "10.9.9.8")


def test_sessions_expire_when_idle_and_at_max_age():
    clock = FakeClock()
    sessions = SessionManager(idle_s=60, max_s=300, clock=clock)
    token = sessions.create("alice", "fp")
    assert sessions.lookup(token).username == "alice"
    clock.advance(59)
    assert sessions.lookup(token) is not None  # use keeps it alive...
    clock.advance(59)
    assert sessions.lookup(token) is not None
    clock.advance(61)
    assert sessions.lookup(token) is None  # ...idle too long: gone
    token = sessions.create("alice", "fp")
    for _ in range(6):
        clock.advance(50)
        alive = sessions.lookup(token)
    assert alive is None  # 300 s after login even though used every 50 s
    assert sessions.lookup("made-up") is None and sessions.lookup(None) is None


def test_tokens_are_long_and_unique():
    sessions = SessionManager(60, 60, clock=FakeClock())
    tokens = {sessions.create("a", "fp") for _ in range(200)}
    assert len(tokens) == 200 and min(len(t) for t in tokens) >= 40


def _auth(store, clock, **ui):
    return TeacherAuth.from_settings(store, UiConfig(**ui), clock=clock, hasher=FAST)


def test_auth_login_refuses_wrong_password_then_locks(store):
    clock = FakeClock()
    auth = _auth(store, clock, login_max_failures=3, login_lockout_minutes=10)
    auth.accounts.add("alice", "right-password")
    for _ in range(3):
        with pytest.raises(LoginRefused):
            auth.login("alice", "wrong-password", "10.0.0.1")
    with pytest.raises(LoginLocked):
        auth.login("alice", "right-password", "10.0.0.1")  # locked: even the right one
    clock.advance(10 * 60 + 1)
    token = auth.login("alice", "right-password", "10.0.0.1")
    assert auth.user_for(token) == "alice"
    with pytest.raises(LoginRefused):
        auth.login("nobody", "whatever-pass", "10.0.0.1")


def test_password_change_and_removal_end_sessions(store):
    clock = FakeClock()
    auth = _auth(store, clock)
    auth.accounts.add("alice", "right-password")
    token = auth.login("alice", "right-password", "h")
    other = TeacherAccounts(store, hasher=FAST)  # e.g. the CLI, another process
    other.set_password("alice", "newer-password")
    assert auth.user_for(token) is None
    token = auth.login("alice", "newer-password", "h")
    other.remove("alice")
    assert auth.user_for(token) is None


def test_session_expiry_through_auth(store):
    clock = FakeClock()
    auth = _auth(store, clock, session_idle_minutes=30, session_max_hours=8)
    auth.accounts.add("alice", "right-password")
    token = auth.login("alice", "right-password", "h")
    clock.advance(29 * 60)
    assert auth.user_for(token) == "alice"
    clock.advance(31 * 60)
    assert auth.user_for(token) is None
    token = auth.login("alice", "right-password", "h")
    auth.logout(token)
    assert auth.user_for(token) is None


def test_ui_config_checks():
    check_ui_config(UiConfig())
    for bad in (UiConfig(default_language="fr"), UiConfig(session_idle_minutes=0),
                UiConfig(timezone="Mars/Olympus"), UiConfig(login_max_failures=0)):
        with pytest.raises(UiConfigError):
            check_ui_config(bad)


# -- CLI -----------------------------------------------------------------------------------------
@pytest.fixture
def cli(config):
    @click.group()
    @click.pass_context
    def main(ctx):
        ctx.obj = config

    main.add_command(teacher)
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(main, list(args), input=input)


def test_cli_add_passwd_remove(cli, config):
    result = cli("teacher", "add", "Alice", input="pass-word-1\npass-word-1\n")
    assert result.exit_code == 0 and "teacher alice added" in result.output
    store = Store(config.db_path)
    assert TeacherAccounts(store, hasher=FAST).verify("alice", "pass-word-1") == "alice"
    assert cli("teacher", "list").output.split() == ["alice"]
    again = cli("teacher", "add", "alice", "--password-stdin", input="another-pass\n")
    assert again.exit_code == 2 and "already exists" in again.output
    short = cli("teacher", "add", "bob", "--password-stdin", input="short\n")
    assert short.exit_code == 2 and "at least 8" in short.output
    mismatch = cli("teacher", "add", "bob", input="pass-word-1\npass-word-2\npass-word-3\npass-word-3\n")
    assert mismatch.exit_code == 0  # click asks again after a mismatch
    assert cli("teacher", "passwd", "alice", "--password-stdin", input="pass-word-9\n").exit_code == 0
    assert TeacherAccounts(store, hasher=FAST).verify("alice", "pass-word-9") == "alice"
    missing = cli("teacher", "passwd", "nobody", "--password-stdin", input="pass-word-9\n")
    assert missing.exit_code == 2 and "no teacher" in missing.output
    assert cli("teacher", "remove", "alice").exit_code == 0
    gone = cli("teacher", "remove", "alice")
    assert gone.exit_code == 2 and "no teacher" in gone.output
    bad = cli("teacher", "add", "bad name", "--password-stdin", input="pass-word-1\n")
    assert bad.exit_code == 2 and "user names" in bad.output
    store.close()


# -- hostile logins (issue 12) -----------------------------------------------------------------
@pytest.mark.parametrize("look_alike", ["ｄａｖｅ", "DAVE", " Dave ", "ＤＡＶＥ"])
def test_a_locked_name_stays_locked_under_every_spelling_that_logs_in_as_it(store, look_alike):  # F2
    clock = FakeClock()
    auth = _auth(store, clock, login_max_failures=5)
    auth.accounts.add("dave", "right-password")
    for _ in range(5):
        with pytest.raises(LoginRefused):
            auth.login("dave", "wrong-password", "10.0.0.1")
    with pytest.raises(LoginLocked):
        auth.login(look_alike, "right-password", "10.0.0.2")


def test_each_spelling_does_not_get_fresh_guesses(store):  # F2
    auth = _auth(store, FakeClock(), login_max_failures=3)
    auth.accounts.add("dave", "right-password")
    for spelling in ("dave", "ｄａｖｅ", "DAVE"):
        with pytest.raises(LoginRefused):
            auth.login(spelling, "wrong-password", f"10.0.1.{len(spelling)}")
    with pytest.raises(LoginLocked):
        auth.login("Ｄave", "wrong-password", "10.0.2.1")


class _GatedHasher(PasswordHasher):
    """FAST argon2, but every verify waits (up to 1 s) for ``expected`` verifies to be in
    progress at once, and records how many were."""

    def __init__(self, expected: int):
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        import threading

        self.lock = threading.Lock()
        self.all_in = threading.Event()
        self.expected, self.calls, self.running, self.peak = expected, 0, 0, 0

    def verify(self, hash, password):
        with self.lock:
            self.calls += 1
            self.running += 1
            self.peak = max(self.peak, self.running)
            if self.calls >= self.expected:
                self.all_in.set()
        self.all_in.wait(1.0)
        try:
            return super().verify(hash, password)
        finally:
            with self.lock:
                self.running -= 1


def _concurrently(n, fn):
    import threading

    threads = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_concurrent_guesses_are_counted_before_any_hash(store):
    hasher = _GatedHasher(expected=40)
    auth = TeacherAuth.from_settings(store, UiConfig(login_max_failures=5), clock=FakeClock(), hasher=hasher)
    auth.accounts.add("alice", "right-password")
    hasher.calls = 0
    outcomes = []

    def guess(i):
        try:
            auth.login("alice", f"wrong-{i}", "10.0.0.1")
        except (LoginRefused, LoginLocked) as exc:
            outcomes.append(type(exc).__name__)

    _concurrently(40, guess)
    assert hasher.calls <= 5, f"{hasher.calls} passwords hashed for 40 concurrent guesses"
    assert outcomes.count("LoginLocked") >= 35


def test_argon2_work_is_bounded(store):
    from appliance.teachers.accounts import LoginBusy

    hasher = _GatedHasher(expected=10)
    auth = TeacherAuth.from_settings(store, UiConfig(), clock=FakeClock(), hasher=hasher)
    hasher.calls = 0
    busy = []

    def guess(i):  # ten names from ten addresses: the guard does not stop them
        try:
            auth.login(f"user{i}", "wrong-password", f"10.0.3.{i}")
        except LoginRefused:
            pass
        except LoginBusy:
            busy.append(i)

    _concurrently(10, guess)
    assert hasher.peak <= 2, f"{hasher.peak} argon2 hashes ran at once"
