"""``python -m tests.system.netns_driver DATA_DIR WORK_DIR``: start ``eduqa serve`` under the
audit hook, ask a burst of questions, sample the server's sockets from /proc meanwhile,
stop it with SIGTERM and print one JSON report. Run inside ``unshare --net`` to give the
daemon a network namespace with nothing but loopback."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from appliance.bench.serving import drive, free_port, running

TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
              "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN",
              "0B": "CLOSING"}


def _address(hex_address: str) -> tuple[str, int]:
    host, port = hex_address.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        ip = ipaddress.IPv4Address(raw[::-1])
    else:  # four little-endian 32-bit words
        ip = ipaddress.IPv6Address(b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
    return str(ip), int(port, 16)


def sockets_of(pid: int) -> list[dict]:
    """The inet sockets process ``pid`` holds, from /proc (no ss/netstat needed)."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in list(fd_dir.iterdir()) if fd_dir.exists() else []:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6"):
        try:
            lines = Path(f"/proc/{pid}/net/{proto}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[9] in inodes:
                local, remote = _address(fields[1]), _address(fields[2])
                found.append({"proto": proto, "local": local, "remote": remote,
                              "state": TCP_STATES.get(fields[3], fields[3]) if proto.startswith("tcp") else fields[3]})
    return found


def outside_reachable() -> str:
    """What connecting to a documentation address (192.0.2.1, never routed) does here."""
    with socket.socket() as s:
        s.settimeout(1)
        try:
            s.connect(("192.0.2.1", 9))
            return "connected"
        except OSError as exc:
            return type(exc).__name__ + ": " + os.strerror(exc.errno) if exc.errno else repr(exc)


def main() -> None:
    data_dir, work = Path(sys.argv[1]), Path(sys.argv[2])
    if os.environ.get("EDUQA_NETNS") == "1":
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    events = work / "audit.jsonl"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    # No rate limit: the burst comes from one address.
    config = work / "eduqa.toml"
    config.write_text("[serving]\nrate_per_minute = 1000000\nrate_burst = 1000000\n")
    command = [sys.executable, "-m", "tests.system.audited", str(events), "appliance.cli", "--config", str(config),
               "--data-dir", str(data_dir), "serve", "--port", str(port)]
    samples: list[dict] = []
    report: dict = {"netns": os.environ.get("EDUQA_NETNS") == "1", "outside": outside_reachable()}
    # env=None in running() merges os.environ; pass the cleaned one explicitly
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        with running(command, port) as server:
            queries = [f"第{i}题：解方程 2x + {i % 20} = 13" for i in range(400)] + ["What is photosynthesis?"] * 50
            done = threading.Event()

            def sample() -> None:
                while not done.is_set():
                    samples.extend(sockets_of(server.pid))
                    time.sleep(0.1)

            sampler = threading.Thread(target=sample)
            sampler.start()
            result = drive(port, queries, clients=8, requests=len(queries))
            done.set()
            sampler.join()
            report.update(ok=result.ok, sent=result.sent, errors_5xx=result.errors_5xx)
            server.send_signal(signal.SIGTERM)
            report["exit"] = server.wait(timeout=60)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    report["port"] = port
    report["sockets"] = sorted({json.dumps(s, sort_keys=True) for s in samples})
    report["events"] = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
    print(json.dumps(report))


if __name__ == "__main__":
    main()
