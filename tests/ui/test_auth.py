"""Teacher login over HTTP against the live daemon: redirects, 401s from every protected
Gradio route, cookies, lockout, logout, session expiry (fake clock), open-redirect guard,
and that the JSON API and the student page stay open."""

from __future__ import annotations

import httpx
import pytest

from tests.ui.conftest import PASSWORD, TEACHER
from ui.auth import COOKIE, safe_next


@pytest.fixture
def http(live_server):
    with httpx.Client(base_url=live_server.url, follow_redirects=False, timeout=60) as client:
        yield client


def log_in(http, username=TEACHER, password=PASSWORD, next_page="/teacher/"):
    return http.post("/teacher/login", data={"username": username, "password": password, "next": next_page})


def test_student_page_and_api_need_no_login(http):
    page = http.get("/")
    assert page.status_code == 200 and "gradio_config" in page.text
    answer = http.post("/api/v1/ask", json={"text": "水的沸点是多少"})
    assert answer.status_code == 200 and answer.json()["matched_id"]
    assert http.get("/healthz").json() == {"status": "alive"}


@pytest.mark.parametrize("path", ["/teacher/", "/status/", "/teacher/?lang=en"])
def test_protected_pages_redirect_to_the_login_form(http, path):
    response = http.get(path)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/teacher/login?next=")


@pytest.mark.parametrize("method, path", [
    ("GET", "/teacher/config"), ("GET", "/status/config"), ("GET", "/teacher/gradio_api/info"),
    ("POST", "/teacher/gradio_api/queue/join"), ("POST", "/status/gradio_api/queue/join"),
    ("POST", "/teacher/gradio_api/upload"),
])
def test_gradio_routes_of_protected_pages_answer_401_without_a_session(http, method, path):
    assert http.request(method, path, json={}).status_code == 401


def test_wrong_password_is_refused_and_sets_no_cookie(http):
    response = log_in(http, password="wrong-password")
    assert response.status_code == 401 and "用户名或密码不对" in response.text
    assert COOKIE not in response.cookies
    assert log_in(http, username="nobody").status_code == 401


def test_login_sets_a_strict_http_only_cookie_and_opens_the_pages(http):
    response = log_in(http, username="  ALICE ")
    assert response.status_code == 303 and response.headers["location"] == "/teacher/"
    cookie = response.headers["set-cookie"].lower()
    assert f"{COOKIE}=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert http.get("/teacher/").status_code == 200
    assert http.get("/teacher/config").status_code == 200
    assert http.get("/status/config").status_code == 200
    logout = http.get("/teacher/logout")
    assert logout.status_code == 303
    http.cookies.clear()
    http.cookies.set(COOKIE, response.cookies[COOKIE])  # the old token, after logout
    assert http.get("/teacher/config").status_code == 401


def test_repeated_failures_lock_the_account(live_server, http):
    live_server.mounted.auth.accounts.add("lockme", "lockme-password")
    for _ in range(5):
        assert log_in(http, username="lockme", password="bad-password").status_code == 401
    locked = log_in(http, username="lockme", password="lockme-password")
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) > 60
    assert "分钟后再试" in locked.text


def test_session_expires_after_idle_time(live_server, http):
    sessions = live_server.mounted.auth.sessions
    real_clock = sessions.clock
    now = [real_clock()]
    sessions.clock = lambda: now[0]
    try:
        assert log_in(http).status_code == 303
        assert http.get("/teacher/config").status_code == 200
        now[0] += sessions.idle_s + 1
        assert http.get("/teacher/config").status_code == 401
        assert http.get("/teacher/").status_code == 303
    finally:
        sessions.clock = real_clock


def test_login_form_only_redirects_within_the_site(http):
    for evil in ("https://evil.example/", "//evil.example/x", "/\\evil", "javascript:alert(1)", "/api/v1/asks/1"):
        assert safe_next(evil) == "/teacher/"
    assert safe_next("/status/") == "/status/"
    response = log_in(http, next_page="https://evil.example/")
    assert response.headers["location"] == "/teacher/"
    form = http.get("/teacher/login", params={"next": '"><script>alert(1)</script>'})
    assert "<script>alert(1)" not in form.text


def test_private_files_are_not_served(live_server, http):
    db = live_server.config.db_path.resolve()
    for path in (f"/gradio_api/file={db}", f"/gradio_api/file/{db}", "/gradio_api/file=/etc/passwd"):
        response = http.get(path)
        assert response.status_code in (403, 404), (path, response.status_code)


@pytest.mark.parametrize("path", [
    "/gradio_api/file=http://1.1.1.1/x.png", "/gradio_api/file=https://example.com/a.js",
    "/gradio_api/file=HTTPS://example.com/a", "/teacher/gradio_api/file=http://1.1.1.1/",
    "/gradio_api/file=http%3A%2F%2F1.1.1.1%2Fx", "/gradio_api/proxy=https://x.hf.space/file=a",
])
def test_pages_never_fetch_web_addresses_for_a_browser(live_server, http, path):
    """Gradio would download these itself; the guard refuses them (and the server-side
    outbound guard of the fixture would record any attempt)."""
    assert http.get(path).status_code == 403
    assert live_server.outbound == []


def test_cross_site_writes_are_refused_even_with_a_teacher_session(http):
    assert log_in(http).status_code == 303
    evil = {"Origin": "http://evil.example"}
    refused = http.post("/teacher/gradio_api/queue/join", json={}, headers=evil)
    assert refused.status_code == 403
    assert http.post("/teacher/login", data={"username": TEACHER, "password": PASSWORD}, headers=evil).status_code == 403


@pytest.mark.parametrize("bare, page", [("/teacher", "/teacher/"), ("/status", "/status/")])
def test_bare_page_urls_reach_the_page_after_login_like_a_browser(live_server, bare, page):
    """README gives /teacher and /status without the slash: follow every redirect as a
    browser does (303 to the form, the form posts back next=, 303 to the page)."""
    with httpx.Client(base_url=live_server.url, follow_redirects=True, timeout=60) as browser:
        form = browser.get(bare)
        assert form.status_code == 200 and form.url.path == "/teacher/login"
        target = form.url.params["next"]
        assert target.startswith(page)
        opened = browser.post("/teacher/login", data={"username": TEACHER, "password": PASSWORD, "next": target})
        assert opened.status_code == 200 and opened.url.path == page
        assert "gradio_config" in opened.text
        again = browser.get(f"{bare}?lang=en")  # with a live session the bare URL still lands on the page
        assert again.status_code == 200 and again.url.path == page and again.url.params["lang"] == "en"
        assert "gradio_config" in again.text


def test_a_bookmarked_login_link_with_a_bare_next_lands_on_the_page(http):
    assert safe_next("/teacher") == "/teacher/"
    assert safe_next("/status?lang=en") == "/status/?lang=en"
    assert log_in(http, next_page="/status").headers["location"] == "/status/"
