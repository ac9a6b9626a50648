"""Overload refusals written by the HTTP protocol (issue 12, F7): a refused ask gets the
same 503 + Retry-After as from the app, without any ASGI work; an admitted ask, other
routes and keep-alive connections behave as with uvicorn's own protocol."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
import uvicorn

from appliance.serve.admission import AdmissionControl, ShedOverload, busy_response
from appliance.serve.shed_protocol import shedding_protocol


class Clock:
    def __call__(self):
        return 100.0


class Recorder:
    """The ASGI app uvicorn is given: notes every request that reaches ASGI at all."""

    def __init__(self, app):
        self.app, self.seen = app, []

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.seen.append((scope["method"], scope["path"]))
        await self.app(scope, receive, send)


async def answer(scope, receive, send):
    if scope["type"] == "lifespan":
        return
    while (await receive()).get("more_body"):
        pass
    if scope["path"] == "/slow":  # longer than the server's keep-alive timeout
        await asyncio.sleep(1.5)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})


@pytest.fixture
def server():
    """A real uvicorn (httptools) on a free port, serving ``Recorder(shed)`` with the
    shedding protocol; the gate has one place."""
    gate = AdmissionControl(deadline_s=1.0, max_in_flight=1, clock=Clock())
    refused_calls: list = []
    shed = ShedOverload(answer, admission=gate, on_refused=lambda: refused_calls.append(1))
    recorder = Recorder(shed)
    protocol = shedding_protocol(shed)
    assert protocol not in ("httptools", "auto"), "the installed uvicorn can no longer be hooked"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(recorder, host="127.0.0.1", port=port, http=protocol, loop="asyncio",
                            lifespan="off", log_level="warning", timeout_keep_alive=1)
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield port, gate, recorder, refused_calls
    uv.should_exit = True
    thread.join(timeout=10)


def _request(path: str, body: bytes = b'{"text": "x"}', content_type: str = "application/json",
             close: bool = False) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body


class Connection:
    """A client socket that reads whole responses (several may come in one read)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, n: int) -> bytes:
        if self.buffer:
            data, self.buffer = self.buffer[:n], self.buffer[n:]
            return data
        return self.sock.recv(n)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, "connection closed before a response"
        self.buffer += chunk


def _read_response(conn: Connection) -> tuple[int, dict, bytes]:
    while b"\r\n\r\n" not in conn.buffer:
        conn._fill()
    head, conn.buffer = conn.buffer.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers["content-length"])
    while len(conn.buffer) < length:
        conn._fill()
    body, conn.buffer = conn.buffer[:length], conn.buffer[length:]
    return int(lines[0].split()[1]), headers, body


def _connect(port: int) -> Connection:
    return Connection(port)


def test_a_refused_ask_is_answered_503_by_the_protocol_without_reaching_the_app(server):
    port, gate, recorder, refused_calls = server
    gate.enter()  # the one place is taken
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask"))
        status, headers, body = _read_response(sock)
    assert status == 503 and int(headers["retry-after"]) >= 1
    assert body == busy_response(1).split(b"\r\n\r\n", 1)[1]
    assert recorder.seen == []  # no ASGI request at all
    assert refused_calls == [1] and gate.refused == 1 and gate.in_flight == 1


def test_an_admitted_ask_and_other_routes_go_to_the_app(server):
    port, gate, recorder, _ = server
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask"))
        assert _read_response(sock)[0] == 200
    _wait_until(lambda: gate.in_flight == 0)  # the answered ask leaves its place just after answering
    gate.enter()
    with _connect(port) as sock:  # while full: a form post and another route are not the gate's
        sock.sendall(_request("/api/v1/ask", b"x=1", "application/x-www-form-urlencoded"))
        assert _read_response(sock)[0] == 200
        sock.sendall(_request("/other"))
        assert _read_response(sock)[0] == 200
    assert recorder.seen == [("POST", "/api/v1/ask")] * 2 + [("POST", "/other")]
    assert gate.in_flight == 1  # the admitted ask left its place


def test_a_kept_alive_connection_serves_the_next_request_after_a_refusal(server):
    port, gate, recorder, _ = server
    gate.enter()
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask"))
        assert _read_response(sock)[0] == 503
        gate.leave()  # the place is free again
        sock.sendall(_request("/api/v1/ask"))
        assert _read_response(sock)[0] == 200
    assert recorder.seen == [("POST", "/api/v1/ask")]


def test_a_refusal_before_a_body_still_on_its_way_leaves_the_connection_usable(server):
    port, gate, _, _ = server
    gate.enter()
    body = b'{"text": "' + b"y" * 300_000 + b'"}'
    request = _request("/api/v1/ask", body)
    with _connect(port) as sock:
        head_end = request.index(b"\r\n\r\n") + 4
        sock.sendall(request[:head_end])  # the headers alone: refused on them
        status, _, _ = _read_response(sock)
        sock.sendall(request[head_end:])  # the body follows and is dropped
        gate.leave()
        sock.sendall(_request("/api/v1/ask"))
        assert status == 503 and _read_response(sock)[0] == 200


def test_connection_close_is_honoured(server):
    port, gate, _, _ = server
    gate.enter()
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask", close=True))
        status, headers, _ = _read_response(sock)
        assert status == 503 and headers["connection"] == "close"
        assert sock.recv(1) == b""  # closed by the server


def test_pipelined_asks_are_each_decided_on_their_own_request(server):
    port, gate, recorder, _ = server
    gate.enter()
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask") + _request("/other") + _request("/api/v1/ask"))
        statuses = [_read_response(sock)[0] for _ in range(3)]
    assert statuses == [503, 200, 503]
    assert recorder.seen == [("POST", "/other")]


def test_an_ask_refused_from_the_pipeline_starts_the_next_pipelined_request(server):
    port, gate, recorder, _ = server
    with _connect(port) as sock:
        # A is admitted and takes the one place; B and C wait in uvicorn's pipeline. B is
        # decided when A's response completes (A still holds its place): refused, and C,
        # another route, must start after it.
        sock.sendall(_request("/api/v1/ask") + _request("/api/v1/ask", b'{"text": "b"}') + _request("/other"))
        statuses = [_read_response(sock)[0] for _ in range(3)]
    assert statuses == [200, 503, 200]
    assert recorder.seen == [("POST", "/api/v1/ask"), ("POST", "/other")]


def test_a_request_after_a_refusal_in_the_same_read_is_not_cut_by_the_keep_alive_timeout(server):
    port, gate, _, _ = server
    gate.enter()
    with _connect(port) as sock:
        sock.sendall(_request("/api/v1/ask") + _request("/slow"))
        assert [_read_response(sock)[0] for _ in range(2)] == [503, 200]


def _wait_until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_without_the_hook_uvicorns_own_protocol_serves(monkeypatch):
    from uvicorn.protocols.http import httptools_impl

    monkeypatch.delattr(httptools_impl.HttpToolsProtocol, "_start_asgi_task")
    shed = ShedOverload(answer, admission=AdmissionControl(1.0, 1))
    assert shedding_protocol(shed) == "httptools"


def test_the_refusal_bytes_match_the_apps_own_503():
    async def run() -> list:
        from appliance.serve.admission import _send_503

        sent: list = []

        async def send(message):
            sent.append(message)
        await _send_503(send, 7)
        return sent

    start, body = asyncio.run(run())
    raw = busy_response(7)
    head, payload = raw.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 503 Service Unavailable" and payload == body["body"]
    assert sorted(tuple(line.split(b": ", 1)) for line in lines[1:]) == sorted(start["headers"])
