"""Teacher login for the protected pages: a plain HTML login form, the session cookie,
logout, and a redirect to the form for a browser that opens a protected page without a
live session. Gradio asks :func:`auth_dependency` about every request to those pages
(page, config, queue, uploads, files) and answers 401 when it returns None."""

from __future__ import annotations

import html
import logging
from typing import Callable
from urllib.parse import quote, urlsplit

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from appliance.teachers.accounts import MAX_PASSWORD_CHARS, LoginBusy, LoginLocked, LoginRefused, TeacherAuth
from appliance.ui_config import UiConfig
from ui.i18n import pick_language

log = logging.getLogger(__name__)

COOKIE = "eduqa_session"
LOGIN_PATH = "/teacher/login"
LOGOUT_PATH = "/teacher/logout"
HOME = "/teacher/"


def auth_dependency(auth: TeacherAuth) -> Callable[[Request], str | None]:
    def current_teacher(request: Request) -> str | None:
        return auth.user_for(request.cookies.get(COOKIE))

    return current_teacher


def safe_next(target: str | None) -> str:
    """Only same-site paths under the protected pages; anything else goes home."""
    if not target:
        return HOME
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or target.startswith("//") or "\\" in target:
        return HOME
    if not (parts.path.startswith("/teacher") or parts.path.startswith("/status")):
        return HOME
    if parts.path in ("/teacher", "/status"):  # the pages live under the slash form
        return parts.path + "/" + (f"?{parts.query}" if parts.query else "")
    return target


class LoginRedirect:
    """ASGI middleware for GET of a protected page: the bare path (``/teacher``) → 307 to
    the slash form, where the page is mounted; without a live session → 303 to the login
    form (the page's other requests get Gradio's 401)."""

    def __init__(self, app, auth: TeacherAuth, pages: tuple[str, ...]):
        self.app = app
        self.auth = auth
        self.bare = {p.rstrip("/") for p in pages}
        self.pages = {p + "/" for p in self.bare}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            path, query = scope["path"], scope["query_string"].decode("latin-1")
            suffix = f"?{query}" if query else ""
            if path in self.bare:
                return await RedirectResponse(path + "/" + suffix, status_code=307)(scope, receive, send)
            if path in self.pages and self.auth.user_for(Request(scope).cookies.get(COOKIE)) is None:
                response = RedirectResponse(f"{LOGIN_PATH}?next={quote(path + suffix, safe='')}", status_code=303)
                return await response(scope, receive, send)
        return await self.app(scope, receive, send)


def install_login(app: FastAPI, auth: TeacherAuth, ui: UiConfig, pages: tuple[str, ...]) -> None:
    """Add the login/logout routes and the redirect. Call before mounting the pages."""
    max_age = ui.session_max_hours * 3600

    @app.get(LOGIN_PATH, response_class=HTMLResponse, include_in_schema=False)
    def login_form(request: Request, next: str = HOME, lang: str = "") -> HTMLResponse:
        return _page(pick_language(lang, ui.default_language), safe_next(next), "", "", 200)

    @app.post(LOGIN_PATH, response_class=HTMLResponse, include_in_schema=False)
    async def login_submit(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=8)
        username = str(form.get("username") or "")[:64]
        password = str(form.get("password") or "")
        target = safe_next(str(form.get("next") or HOME))
        lang = pick_language(str(form.get("lang") or ""), ui.default_language)
        client = request.client.host if request.client else ""
        if len(password) > MAX_PASSWORD_CHARS:
            password = ""  # refused below without hashing a huge input
        try:
            token = await run_in_threadpool(auth.login, username, password, client)
        except LoginLocked as exc:
            minutes = int(exc.retry_after_s // 60) + 1
            return _page(lang, target, username, "locked", 429, minutes=minutes,
                         headers={"Retry-After": str(int(exc.retry_after_s) + 1)})
        except LoginBusy:
            return _page(lang, target, username, "busy", 503, headers={"Retry-After": "5"})
        except LoginRefused:
            return _page(lang, target, username, "refused", 401)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, token, max_age=max_age, httponly=True, samesite="strict",
                            secure=ui.secure_cookies, path="/")
        return response

    @app.get(LOGOUT_PATH, include_in_schema=False)
    def logout(request: Request) -> Response:
        auth.logout(request.cookies.get(COOKIE))
        response = RedirectResponse(LOGIN_PATH, status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    app.add_middleware(LoginRedirect, auth=auth, pages=pages)


_WORDS = {
    "zh": {"title": "教师登录", "username": "用户名", "password": "密码", "submit": "登录",
           "refused": "用户名或密码不对。", "locked": "登录失败次数太多，请 {minutes} 分钟后再试。",
           "busy": "现在登录的人太多，请几秒后再试。",
           "hint": "账号由管理员用 eduqa teacher add 创建。", "switch": "English", "other": "en"},
    "en": {"title": "Teacher login", "username": "User name", "password": "Password", "submit": "Log in",
           "refused": "Wrong user name or password.", "locked": "Too many failed logins; try again in {minutes} minute(s).",
           "busy": "Too many logins at once; try again in a few seconds.",
           "hint": "Accounts are created by the administrator with eduqa teacher add.", "switch": "中文", "other": "zh"},
}

_PAGE = """<!doctype html>
<html lang="{html_lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, "PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif; background: #f3f4f6;
       margin: 0; display: flex; min-height: 100vh; align-items: center; justify-content: center; color: #111827; }}
form {{ background: #fff; padding: 2rem; border-radius: .75rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); width: min(22rem, 90vw); }}
h1 {{ margin: 0 0 1.2rem; font-size: 1.4rem; }}
label {{ display: block; margin: .8rem 0 .3rem; font-weight: 600; }}
input[type=text], input[type=password] {{ width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem;
       border: 1px solid #d1d5db; border-radius: .4rem; }}
button {{ margin-top: 1.2rem; width: 100%; padding: .7rem; font-size: 1rem; border: 0; border-radius: .4rem;
         background: #f97316; color: #fff; cursor: pointer; }}
.error {{ background: #fef2f2; color: #991b1b; padding: .6rem; border-radius: .4rem; }}
.hint {{ color: #6b7280; font-size: .85rem; margin-top: 1rem; }}
.switch {{ float: right; font-size: .9rem; }}
</style></head>
<body><form method="post" action="{action}" id="login">
<a class="switch" href="{switch_href}">{switch}</a>
<h1>{title}</h1>
{error}
<label for="username">{username_label}</label>
<input type="text" id="username" name="username" value="{username}" autocomplete="username" autocapitalize="none" required autofocus>
<label for="password">{password_label}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<input type="hidden" name="next" value="{next}">
<input type="hidden" name="lang" value="{lang}">
<button type="submit" id="login-submit">{submit}</button>
<p class="hint">{hint}</p>
</form></body></html>
"""


def _page(lang: str, target: str, username: str, error: str, status: int, minutes: int = 0,
          headers: dict | None = None) -> HTMLResponse:
    w = _WORDS[lang]
    e = html.escape
    message = f'<p class="error" role="alert" id="login-error">{e(w[error].format(minutes=minutes))}</p>' if error else ""
    body = _PAGE.format(
        html_lang="zh-CN" if lang == "zh" else "en", title=e(w["title"]), action=LOGIN_PATH,
        switch_href=e(f"{LOGIN_PATH}?lang={w['other']}&next={quote(target, safe='')}"), switch=e(w["switch"]),
        error=message, username_label=e(w["username"]), username=e(username), password_label=e(w["password"]),
        next=e(target), lang=e(lang), submit=e(w["submit"]), hint=e(w["hint"]),
    )
    response = HTMLResponse(body, status_code=status, headers=headers)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
    return response
