"""Mount the web pages into the daemon's FastAPI app: the student page at ``/``, the
teacher page at ``/teacher`` and the status page at ``/status`` (both behind the teacher
login at ``/teacher/login``). Call after :func:`appliance.serve.api.create_app`, so the JSON
API's routes are matched first, and before the server starts."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import ui  # noqa: F401  (switches Gradio's network features off before it is imported)

import gradio as gr
from gradio import utils as gr_utils
from fastapi import FastAPI

from appliance.bank.bank_editor import BankEditor
from appliance.serve.ratelimit import RateLimiter
from appliance.asklog.review import PhotoArchive, ReviewService, school_tz
from appliance.ask.service import AskService
from appliance.teachers.accounts import TeacherAuth
from appliance.ui_config import UiConfig
from ui.auth import auth_dependency, install_login
from ui.guard import NoRemoteFetch
from ui.page_language import PageLanguage
from ui.uploads import UploadGuard, UploadLedger
from ui.render import CSS
from ui.status import STATUS_CSS, build_status
from ui.status_data import EnginesProvider, Rebuilder, default_rebuild
from ui.student import StudentDesk, build_student
from ui.teacher import build_teacher

log = logging.getLogger(__name__)

PROTECTED = ("/teacher", "/status")
_SYSTEM_FONTS = ["system-ui", "-apple-system", "Segoe UI", "PingFang SC", "Microsoft YaHei",
                 "Noto Sans CJK SC", "sans-serif"]
_MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]


@dataclass(frozen=True)
class MountedUi:
    """What :func:`mount_pages` built, for tests and for the daemon."""

    auth: TeacherAuth
    student: gr.Blocks
    teacher: gr.Blocks
    status: gr.Blocks
    desk: StudentDesk | None = None


def offline_theme() -> gr.themes.Base:
    """Gradio's default look with the system's fonts (no font is fetched from anywhere)."""
    return gr.themes.Default(font=[gr.themes.Font(f) for f in _SYSTEM_FONTS],
                             font_mono=[gr.themes.Font(f) for f in _MONO_FONTS])


def mount_pages(app: FastAPI, service: AskService, config, *, limiter: RateLimiter,
                auth: TeacherAuth | None = None, engines: EnginesProvider | None = None,
                rebuild: Rebuilder | None = None) -> MountedUi:
    """Mount the pages. ``config`` is the appliance's Config (already checked by
    ``load_config``); its ``ui`` section (a :class:`UiConfig`) is used when present.
    ``limiter`` is the daemon's one rate limiter (shared with the API), ``engines`` reports
    the engine table (the engines manager's hook), ``rebuild`` runs when an admin presses
    rebuild."""
    ui_config: UiConfig = getattr(config, "ui", None) or UiConfig()
    tz = school_tz(ui_config.timezone)
    auth = auth or TeacherAuth.from_settings(service.store, ui_config)
    archive = service.photos or PhotoArchive(config.data_dir / "photos")
    editor = BankEditor(service.store, service.bank)
    review = ReviewService(service.store, service.bank)

    desk = StudentDesk(service, archive, limiter)
    student = build_student(desk, ui_config)
    teacher = build_teacher(service.store, review, editor, archive, ui_config, tz)
    status = build_status(service, ui_config, engines, rebuild or default_rebuild(service))

    install_login(app, auth, ui_config, PROTECTED)
    app.add_middleware(NoRemoteFetch)
    app.add_middleware(PageLanguage, pages=("/", *(p + "/" for p in PROTECTED)), default_language=ui_config.default_language)
    app.add_middleware(UploadGuard, ledger=UploadLedger(ui_config.upload_quota_mb * 2**20), limiter=limiter,
                       cache_dir=Path(gr_utils.get_upload_folder()), trusted_prefixes=PROTECTED)
    common = dict(theme=offline_theme(), footer_links=[], run_history=False, pwa=False, mcp_server=False,
                  enable_monitoring=False, ssr_mode=False)
    who = auth_dependency(auth)
    archive.folder.mkdir(parents=True, exist_ok=True)
    gr.mount_gradio_app(app, teacher, "/teacher", auth_dependency=who, css=CSS, show_error=True,
                        allowed_paths=[str(archive.folder.resolve())], **common)
    gr.mount_gradio_app(app, status, "/status", auth_dependency=who, css=STATUS_CSS, show_error=True, **common)
    # Last: "/" catches every path not matched before it.
    gr.mount_gradio_app(app, student, "/", css=CSS, show_error=False,
                        max_file_size=config.serving.max_photo_bytes, **common)
    log.info("web pages mounted: / (students), /teacher and /status (teacher login)")
    return MountedUi(auth, student, teacher, status, desk)
