"""Before ``eduqa serve`` loads anything: is the address free to listen on?"""

from __future__ import annotations

import socket


class PortBusyError(RuntimeError):
    """The daemon cannot listen on the configured address (in use, or not allowed)."""


def check_port_free(host: str, port: int) -> None:
    """Bind (and release) ``host:port`` the way uvicorn will (``SO_REUSEADDR``); raises
    :class:`PortBusyError` with a plain reason when that fails."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            hint = " (is eduqa already running? systemctl status eduqa)" if exc.errno == 98 else ""
            raise PortBusyError(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None
