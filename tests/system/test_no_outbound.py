"""The daemon makes no outbound connection: during start-up and a burst of asks every
socket it holds is a listener or a loopback connection (/proc), and every connect, send,
bind and name lookup its Python code makes (a Python audit hook) is for loopback.

Run twice: in a network namespace with nothing but loopback (root: proves it needs no
network at all, and that nothing could have left), and on the host's network (anywhere).
HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE are removed from its environment: the daemon must be
offline on its own. A probe that does connect out shows the checks can fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.system.conftest import REPO, require_root, require_tool

LOCAL_NAMES = {"127.0.0.1", "::1", "localhost", "0.0.0.0", "::", "", None}


def is_local(host) -> bool:
    if isinstance(host, str) and (host.startswith("127.") or host.startswith("::ffff:127.")):
        return True
    return host in LOCAL_NAMES


def outbound(report: dict) -> list:
    """Everything in the report that points off the machine."""
    bad = []
    for text in report["sockets"]:
        sock = json.loads(text)
        host, port = sock["remote"]
        if not (is_local(host) or (host in ("0.0.0.0", "::") and port == 0)):
            bad.append(sock)
    for event in report["events"]:
        name, args = event["event"], event["args"]
        if name in ("socket.connect", "socket.sendto", "socket.bind"):
            address = args[1] if name != "socket.sendto" else args[-1]
            if isinstance(address, list) and not is_local(address[0]):
                bad.append(event)
        elif name in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "http.client.connect"):
            host = args[0] if name != "http.client.connect" else args[1]
            if not is_local(host):
                bad.append(event)
        elif name in ("urllib.Request", "ftplib.connect", "smtplib.connect", "webbrowser.open", "socket.sendmsg",
                      "socket.getnameinfo"):
            bad.append(event)
    return bad


def run_driver(config, tmp_path, netns: bool) -> dict:
    command = [sys.executable, "-m", "tests.system.netns_driver", str(config.data_dir), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if netns:
        command = ["unshare", "--net", "--", *command]
        env["EDUQA_NETNS"] = "1"
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["netns", "host"])
def test_daemon_makes_no_outbound_connection(config, tmp_path, isolation):
    if isolation == "netns":
        require_root("a network namespace")
        require_tool("unshare", "util-linux")
        require_tool("ip", "iproute2")
    report = run_driver(config, tmp_path, netns=isolation == "netns")
    assert report["sent"] == 450 and report["ok"] == 450 and report["errors_5xx"] == 0, report
    if isolation == "netns":
        assert "unreachable" in report["outside"].lower(), report["outside"]
    listening = [json.loads(s) for s in report["sockets"] if json.loads(s)["state"] == "LISTEN"]
    assert [s["local"] for s in listening] == [["127.0.0.1", report["port"]]]
    assert any(e["event"] == "socket.bind" for e in report["events"]), "the audit hook saw nothing"
    assert outbound(report) == []


def test_the_checks_catch_an_outbound_attempt(tmp_path):
    log = tmp_path / "audit.jsonl"
    probe = ("import socket, urllib.request\n"
             "s = socket.socket(); s.settimeout(0.2)\n"
             "try: s.connect(('192.0.2.1', 443))\n"
             "except OSError: pass\n"
             "try: socket.getaddrinfo('telemetry.example.invalid', 443)\n"
             "except OSError: pass\n")
    subprocess.run([sys.executable, "-m", "tests.system.audited", str(log), "-c", probe], check=True, cwd=REPO,
                   timeout=60)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    found = outbound({"sockets": [json.dumps({"proto": "tcp", "local": ["10.0.0.5", 50000],
                                              "remote": ["93.184.216.34", 443], "state": "ESTABLISHED"})],
                      "events": events})
    assert {f.get("event", "socket") for f in found} >= {"socket", "socket.connect", "socket.getaddrinfo"}
