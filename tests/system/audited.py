"""``python -m tests.system.audited LOG MODULE [ARGS...]`` (or ``LOG -c CODE``): run MODULE as ``__main__`` with a
Python audit hook that appends every network-related event (connect, sendto, name
lookups, bind, HTTP clients) to LOG as one JSON line each, as it happens (a process
stopped by a signal runs no exit handlers, so nothing is buffered)."""

from __future__ import annotations

import json
import os
import runpy
import socket
import sys

WATCHED = {
    "socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo",
    "http.client.connect", "urllib.Request", "ftplib.connect", "smtplib.connect", "webbrowser.open",
}


def _plain(value):
    if isinstance(value, socket.socket):
        try:
            return {"family": int(value.family)}
        except OSError:
            return {"family": None}
    if isinstance(value, (str, int, float, type(None))):
        return value
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return repr(value)[:200]


def main() -> None:
    log_path, module, *args = sys.argv[1:]
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def hook(event: str, event_args: tuple) -> None:
        if event in WATCHED:
            line = json.dumps({"event": event, "args": _plain(event_args)}, ensure_ascii=False) + "\n"
            os.write(fd, line.encode())

    sys.addaudithook(hook)
    if module == "-c":  # python -c CODE, for the test's own probes
        sys.argv = ["-c", *args[1:]]
        exec(compile(args[0], "<audited -c>", "exec"), {"__name__": "__main__"})
        return
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
