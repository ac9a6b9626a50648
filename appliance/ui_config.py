"""Settings of the web pages and teacher logins (the ``[ui]`` section of the config)."""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("zh", "en")


@dataclass(frozen=True)
class UiConfig:
    # Language of the pages when the browser asks for none (?lang=en switches): "zh" or "en".
    default_language: str = "zh"
    # IANA time zone the teacher pages show times and bucket plots in; "" = the box's own.
    timezone: str = ""
    # A teacher session ends after this long without a request...
    session_idle_minutes: int = 60
    # ...and in any case this long after logging in.
    session_max_hours: int = 12
    # This many failed logins for one user name within login_window_minutes lock that name
    # for login_lockout_minutes; four times as many from one address lock the address.
    login_max_failures: int = 5
    login_window_minutes: int = 15
    login_lockout_minutes: int = 15
    # Send the session cookie with the Secure flag (only when the box is served over HTTPS).
    secure_cookies: bool = False
    # Student asks answered at the same time by the student page (the encoder batches them).
    student_concurrency: int = 32
    # Megabytes one client address may upload to the pages within an hour (uploads stay in
    # Gradio's cache for up to an hour); a class behind one NAT address shares it.
    upload_quota_mb: int = 256


class UiConfigError(ValueError):
    """A ``[ui]`` setting is out of range."""


def check_ui_config(ui: UiConfig) -> None:
    if ui.default_language not in LANGUAGES:
        raise UiConfigError(f"ui.default_language must be one of {', '.join(LANGUAGES)}")
    if ui.session_idle_minutes < 1 or ui.session_max_hours < 1:
        raise UiConfigError("ui.session_idle_minutes and ui.session_max_hours must be ≥ 1")
    if ui.login_max_failures < 1 or ui.login_window_minutes < 1 or ui.login_lockout_minutes < 1:
        raise UiConfigError("ui.login_max_failures, login_window_minutes and login_lockout_minutes must be ≥ 1")
    if ui.student_concurrency < 1:
        raise UiConfigError("ui.student_concurrency must be ≥ 1")
    if ui.upload_quota_mb < 1:
        raise UiConfigError("ui.upload_quota_mb must be ≥ 1")
    if ui.timezone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(ui.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise UiConfigError(f"ui.timezone {ui.timezone!r} is not a known time zone") from None
