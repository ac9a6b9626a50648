"""The composition root: every service of the running daemon, built once, wired together.

``build(config)`` makes, in order: the engines manager (from ``[engines]``, the settings
``eduqa engines ensure`` builds with), the ask service over the store (its encoder and, on the
first photo, its OCR models served through that manager), the one per-client rate limiter
(shared by the JSON API and the student page), the API, and the web pages. ``eduqa serve``
and the test fixtures use it. This is the one module of ``appliance`` that imports ``ui``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from fastapi import FastAPI

from appliance.ask.service import AskService
from appliance.config import Config
from appliance.inference.engine_wiring import open_engines
from appliance.serve.admission import ShedOverload, shedding
from appliance.serve.api import create_app
from appliance.serve.ratelimit import RateLimiter

log = logging.getLogger(__name__)


@dataclass
class Daemon:
    config: Config
    #: The engines manager serving every model; None with ``encoder.engines = false``.
    engines: object | None
    service: AskService
    limiter: RateLimiter
    app: FastAPI
    #: What the web pages mounted (``ui.mount.MountedUi``); None without pages.
    pages: object | None = None
    #: What ``eduqa serve`` serves: ``app`` behind overload shedding (``admission.shedding``).
    asgi: ShedOverload | None = None


def rate_limiter(config: Config) -> RateLimiter:
    """The daemon's one per-client rate limiter (``serving.rate_per_minute``, ``rate_burst``)."""
    return RateLimiter(config.serving.rate_per_minute, config.serving.rate_burst)


def api_app(service: AskService, close_service_on_shutdown: bool = False) -> FastAPI:
    """The JSON API alone over ``service``, with its own limiter (tests, ``eduqa openapi``)."""
    return create_app(service, limiter=rate_limiter(service.config), close_service_on_shutdown=close_service_on_shutdown)


def build(config: Config, *, pages: bool = True, make_auth=None, progress: bool = True) -> Daemon:
    """Every service once. ``make_auth(store)``: the teacher login (default: from the config's
    ``[ui]``); ``progress``: show the dense index's first embedding of the bank."""
    engines = open_engines(config)
    service = AskService.open(config, progress=progress, engines=engines)
    limiter = rate_limiter(config)
    app = create_app(service, limiter=limiter, close_service_on_shutdown=True)
    auth = make_auth(service.store) if make_auth else None
    mounted = _mount_pages(app, service, config, limiter, engines, auth) if pages else None
    # Outside every layer (the pages' and the framework's): a refused ask costs none of them.
    return Daemon(config, engines, service, limiter, app, mounted, asgi=shedding(app))


def _mount_pages(app: FastAPI, service: AskService, config: Config, limiter: RateLimiter, engines, auth):
    from ui.mount import mount_pages
    from ui.status_data import manager_engines

    return mount_pages(app, service, config, limiter=limiter, auth=auth,
                       engines=manager_engines(engines) if engines is not None else None)
