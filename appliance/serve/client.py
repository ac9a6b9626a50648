"""``eduqa ask`` through a daemon already running on this box: no models loaded here.

:func:`find_daemon` asks ``GET /healthz`` on the configured port (a wildcard listen
address is reached through loopback), gives up quickly, and takes the daemon only when it
serves the same database (its ``X-Eduqa-Store`` header is this data dir's store id); :func:`ask_daemon` posts the
question (JSON, or the photo as multipart) and returns the daemon's answer card.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import httpx

from appliance.ask.card import AnswerCard, SimilarQuestion

#: On ``GET /healthz``: the served database's random identity (``Store.store_id``).
STORE_HEADER = "X-Eduqa-Store"
#: How long to wait for a daemon to say it is alive before answering in-process.
PROBE_TIMEOUT_S = 0.5
_LOOPBACK = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


class DaemonAskError(RuntimeError):
    """The daemon answered the question with an error (bad question, photo refused, busy)."""


@dataclass(frozen=True)
class Daemon:
    base_url: str


def find_daemon(host: str, port: int, store_id: str, timeout_s: float = PROBE_TIMEOUT_S) -> Daemon | None:
    """The eduqa daemon listening on ``host:port`` and serving the database ``store_id``, or
    None when nothing answers, something else does, or a daemon of another database does."""
    address = _LOOPBACK.get(host, host)
    base = f"http://[{address}]:{port}" if ":" in address else f"http://{address}:{port}"
    try:
        reply = httpx.get(f"{base}/healthz", timeout=timeout_s)
        alive = reply.status_code == 200 and reply.json() == {"status": "alive"}
    except (httpx.HTTPError, ValueError):
        return None
    same_store = bool(store_id) and reply.headers.get(STORE_HEADER) == store_id
    return Daemon(base) if alive and same_store else None


def ask_daemon(daemon: Daemon, text: str | None = None, photo: bytes | None = None,
               timeout_s: float = 60.0) -> AnswerCard:
    url = f"{daemon.base_url}/api/v1/ask"
    try:
        if photo is not None:
            reply = httpx.post(url, files={"photo": ("photo", photo)}, timeout=timeout_s)
        else:
            reply = httpx.post(url, json={"text": text}, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise DaemonAskError(f"the daemon at {daemon.base_url} did not answer: {exc}") from None
    if reply.status_code != 200:
        raise DaemonAskError(f"the daemon at {daemon.base_url} refused the question "
                             f"({reply.status_code}): {_detail(reply)}")
    return card_from_dict(reply.json())


def card_from_dict(data: dict) -> AnswerCard:
    known = {f.name for f in fields(AnswerCard)}
    similar = [SimilarQuestion(**s) for s in data.get("similar", [])]
    return AnswerCard(**{k: v for k, v in data.items() if k in known and k != "similar"}, similar=similar)


def _detail(reply: httpx.Response) -> str:
    try:
        detail = reply.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    return str(detail) if detail else reply.text[:200]
