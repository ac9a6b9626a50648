"""The eduqa command line, run in-process with click's runner."""

import json
import socket

import pytest
from click.testing import CliRunner

from appliance.cli import main

HEADER = "id,subject,grade,question,answer,knowledge_points,source"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_file(tmp_path, port: int, extra: str = "") -> str:
    """A config whose server port is this test's own: `eduqa ask` must not find another
    engineer's (or the box's) daemon on the default port."""
    path = tmp_path / f"eduqa-{port}.toml"
    path.write_text(f"[server]\nport = {port}\n{extra}", encoding="utf-8")
    return str(path)


@pytest.fixture
def run(config, tmp_path):
    runner = CliRunner()
    conf = config_file(tmp_path, free_port())

    def invoke(*args):
        return runner.invoke(main, ["--config", conf, "--data-dir", str(config.data_dir), *args],
                             catch_exceptions=False)

    return invoke


def test_ask_json_card(run):
    result = run("ask", "解方程：2x + 3 = 13", "--json")
    assert result.exit_code == 0, result.output
    card = json.loads(result.output[result.output.index("{"):])
    assert card["abstained"] is False and card["matched_id"].startswith("demo-math")
    tail = run("log", "tail", "--json")
    assert json.loads(tail.output.strip().splitlines()[-1])["id"] == card["ask_id"]


def test_empty_ask_is_a_clear_error(run):
    result = run("ask", "   ")
    assert result.exit_code == 2
    assert "error: the question is empty" in result.output
    assert "Traceback" not in result.output


def test_kb_import_into_an_empty_bank_imports_only_that_file(run, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(f"{HEADER}\nm1,math,7,q1,a1,kp,s\nm2,physics,8,q2,a2,kp,s\n", encoding="utf-8")
    result = run("kb", "import", str(path))
    assert result.exit_code == 0, result.output
    assert "imported 2 new, 0 updated, 0 skipped" in result.output
    stats = json.loads(run("kb", "stats", "--json").output)
    assert stats["entries"] == 2 and stats["by_origin"] == {"import": 2}


def test_kb_import_bad_file_reports_rows_and_imports_nothing(run, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(f"{HEADER}\nm1,math,7,q1,a1,,\nm1,math,7,q2,a2,,\nm3,math,7,,a3,,\n", encoding="utf-8")
    result = run("kb", "import", str(path))
    assert result.exit_code == 2
    assert "2 bad row(s), nothing imported" in result.output
    assert "line 3 (id m1): duplicate id" in result.output
    assert "line 4 (id m3): missing question" in result.output
    assert json.loads(run("kb", "stats", "--json").output)["entries"] == 0
    skipped = run("kb", "import", str(path), "--skip-bad")
    assert "imported 1 new" in skipped.output


def test_kb_import_wrong_header_and_encoding(run, tmp_path):
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("question,answer\nq,a\n", encoding="utf-8")
    assert "wrong CSV header" in run("kb", "import", str(wrong)).output
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes(f"{HEADER}\n".encode() + "m1,math,7,解方程,答案,,\n".encode("gbk"))
    result = run("kb", "import", str(gbk))
    assert result.exit_code == 2 and "not UTF-8" in result.output


def test_kb_export_and_remove_demo(run, tmp_path):
    run("ask", "水的沸点")  # loads the demo bank into the empty bank
    out = tmp_path / "bank.csv"
    result = run("kb", "export", str(out))
    assert result.exit_code == 0
    exported = int(result.output.split()[1])
    assert exported >= 150
    assert f"removed {exported} demo entries" in run("kb", "remove-demo").output


def test_log_export_csv(run, tmp_path):
    run("ask", "水的沸点是多少")
    out = tmp_path / "asks.csv"
    assert "exported 1 asks" in run("log", "export", "--csv", str(out)).output
    assert out.read_text(encoding="utf-8").splitlines()[0].startswith("id,asked_at,client,kind,question")


def test_bad_config_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[search]\nthreshold = 2\n")
    result = CliRunner().invoke(main, ["--config", str(path), "kb", "stats"])
    assert result.exit_code == 2 and "unknown config key(s): search.threshold" in result.output


def test_eval_json_keys(run, tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("qid,query,expected_id,kind\nq1,解方程：2x + 3 = 13,demo-math-001,exact\n"
                    "q2,今天食堂吃什么,,unanswerable\n", encoding="utf-8")
    result = run("eval", "--queries", str(path), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert set(summary) >= {"by_kind", "abstain", "n"} and summary["n"] == 2
    assert summary["by_kind"]["unanswerable"]["n"] == 1


# -- the first hour (issue 14): one clear line for every mistake -------------------------------
def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_kb_export_into_a_missing_folder_is_one_error_line(run, tmp_path):
    line = one_error_line(run("kb", "export", str(tmp_path / "nowhere" / "x.csv")))
    assert "cannot write" in line and "nowhere" in line


def test_kb_export_refuses_a_name_that_says_no_format(run, tmp_path):
    line = one_error_line(run("kb", "export", str(tmp_path / "x.txt")))
    assert "'x.txt'" in line and ".csv" in line and ".jsonl" in line
    assert not (tmp_path / "x.txt").exists()


def test_log_tail_refuses_a_negative_count(run):
    run("ask", "水的沸点是多少")
    result = run("log", "tail", "-n", "-3")
    assert result.exit_code == 2
    assert "-3 is not in the range x>=1" in result.output and "#1 " not in result.output


def test_eval_show_failures_go_to_stdout(config, tmp_path):
    queries = tmp_path / "q.csv"
    queries.write_text("qid,query,expected_id,kind\nq1,解方程：2x + 3 = 13,demo-math-002,exact\n", encoding="utf-8")
    runner = CliRunner()  # click 8.2+: result.stdout holds stdout only
    args = ["--config", config_file(tmp_path, free_port()), "--data-dir", str(config.data_dir),
            "eval", "--queries", str(queries), "--show-failures"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "q1 [exact] expected demo-math-002" in result.stdout
    as_json = json.loads(runner.invoke(main, args + ["--json"]).stdout.strip().splitlines()[-1])
    assert [f["qid"] for f in as_json["failures"]] == ["q1"]


def test_ordinary_calls_print_no_log_lines_and_verbose_does(tmp_path):
    """In a process of its own (pytest owns this one's logging): a fresh data dir logs its
    schema steps at INFO, which only -v shows."""
    import os
    import subprocess
    import sys

    def stats(*flags, data):
        return subprocess.run([sys.executable, "-m", "appliance.cli", *flags, "--data-dir", str(tmp_path / data),
                               "kb", "stats"], capture_output=True, text=True, env={**os.environ}, timeout=120)

    quiet = stats(data="a")
    assert quiet.returncode == 0 and "entries: 0" in quiet.stdout
    assert quiet.stderr == ""
    loud = stats("-v", data="b")
    assert " INFO appliance.db.migrations: database schema upgraded" in loud.stderr


def test_serve_on_a_busy_port_fails_before_loading_models(config, tmp_path, monkeypatch):
    import appliance.cli as cli

    monkeypatch.setattr(cli, "_service", lambda *a, **k: pytest.fail("serve loaded the models"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["--data-dir", str(config.data_dir), "serve", "--port", str(port)])
    line = one_error_line(result)
    assert f"cannot listen on 127.0.0.1:{port}" in line and "already running" in line


def test_serve_refuses_overload_in_the_http_protocol(config, monkeypatch):
    """`eduqa serve` hands uvicorn the shedding protocol built on the app it serves."""
    import asyncio
    import types

    import appliance.daemon as daemon
    from appliance.serve import sdnotify
    from appliance.serve.admission import AdmissionControl, ShedOverload

    shed = ShedOverload(None, admission=AdmissionControl(1.0, 1))
    service = types.SimpleNamespace(prepare_photos=lambda: None,
                                    encoder=types.SimpleNamespace(backend_name="test"))
    monkeypatch.setattr(daemon, "build", lambda cfg: types.SimpleNamespace(asgi=shed, service=service))
    served = {}
    monkeypatch.setattr(sdnotify, "serve_uvicorn", lambda app, **kw: served.update(app=app, **kw))
    monkeypatch.setattr("gc.freeze", lambda: None)
    result = CliRunner().invoke(main, ["--data-dir", str(config.data_dir), "serve", "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    protocol = served["http"]
    assert served["app"] is shed and isinstance(protocol, type)
    shed.admission.enter()  # full: the protocol's refusal comes from this very gate
    scope = {"type": "http", "method": "POST", "path": "/api/v1/ask", "headers": [(b"content-type", b"application/json")]}

    async def refusal():  # as the protocol asks, on the event loop
        return shed.refusal_bytes(scope)

    assert asyncio.run(refusal()).startswith(b"HTTP/1.1 503") and shed.admission.refused == 1


def test_unknown_encoder_names_the_encoder_choices(tmp_path):
    conf = config_file(tmp_path, free_port(), '[encoder]\nmodel = "bogus"\n')
    line = one_error_line(CliRunner().invoke(main, ["--config", conf, "kb", "stats"]))
    assert "encoder.model" in line and "'bogus'" in line and "use-m3, minilm" in line
    assert "ocr" not in line


CANNED_CARD = {"ask_id": 41, "question": "水的沸点", "abstained": False, "confidence": 0.91,
               "answer": "100 °C（标准大气压下）", "matched_id": "demo-phys-009", "matched_question": "水的沸点是多少",
               "subject": "physics", "knowledge_points": ["沸点"], "source": "demo",
               "similar": [{"entry_id": "demo-phys-010", "question": "冰的熔点", "score": 0.5}],
               "message": "", "notices": [], "truncated": False, "stage_ms": {"total": 3.0},
               "backend": "onnxruntime-int8", "cached": False, "ask_token": "t"}


@pytest.fixture
def fake_daemon(tmp_path):
    """Something that answers like a running eduqa daemon serving the database in
    ``tmp_path``: /healthz (with that database's id) and /api/v1/ask."""
    from appliance.db.store import Store

    store = Store(tmp_path / "eduqa.db")
    served = {"store_id": store.store_id()}
    store.close()
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    received = []

    class Handler(BaseHTTPRequestHandler):
        def _json(self, body, status=200):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            data = json.dumps({"status": "alive"}).encode()
            self.send_response(200)
            self.send_header("X-Eduqa-Store", served["store_id"])
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            kind = self.headers["Content-Type"]
            received.append(json.loads(body) if kind == "application/json" else (kind, body))
            if received[-1] == {"text": "refuse me"}:
                self._json({"detail": "too many questions from this address; wait a moment"}, 429)
            else:
                self._json(CANNED_CARD)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], received, served
    server.shutdown()
    server.server_close()


def test_ask_goes_through_a_running_daemon(fake_daemon, tmp_path, monkeypatch):
    import appliance.cli as cli

    port, received, _ = fake_daemon
    monkeypatch.setattr(cli, "_service", lambda *a, **k: pytest.fail("ask loaded the models"))
    result = CliRunner().invoke(main, ["--config", config_file(tmp_path, port), "--data-dir", str(tmp_path),
                                       "ask", "水的沸点"])
    assert result.exit_code == 0, result.output
    assert received == [{"text": "水的沸点"}]
    assert "[demo-phys-009] 水的沸点是多少" in result.output and "ask #41" in result.output
    assert "similar: [demo-phys-010]" in result.output


def test_a_refusal_by_the_daemon_is_one_error_line(fake_daemon, tmp_path):
    port, _, _ = fake_daemon
    result = CliRunner().invoke(main, ["--config", config_file(tmp_path, port), "--data-dir", str(tmp_path),
                                       "ask", "refuse me"])
    line = one_error_line(result)
    assert "refused the question (429): too many questions" in line


def test_ask_photo_goes_through_a_running_daemon(fake_daemon, tmp_path, monkeypatch):
    import appliance.cli as cli

    port, received, _ = fake_daemon
    monkeypatch.setattr(cli, "_service", lambda *a, **k: pytest.fail("ask loaded the models"))
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8 not really a jpeg \xff\xd9")
    result = CliRunner().invoke(main, ["--config", config_file(tmp_path, port), "--data-dir", str(tmp_path),
                                       "ask", "--photo", str(photo), "--json"])
    assert result.exit_code == 0, result.output
    (kind, body), = received
    assert kind.startswith("multipart/form-data") and b'name="photo"' in body and photo.read_bytes() in body
    assert json.loads(result.output)["matched_id"] == "demo-phys-009"


def test_find_daemon_reaches_a_wildcard_listener_and_ignores_a_closed_port(fake_daemon):
    from appliance.serve.client import find_daemon

    port, _, served = fake_daemon
    assert find_daemon("0.0.0.0", port, served["store_id"]) is not None
    assert find_daemon("127.0.0.1", free_port(), served["store_id"]) is None


def test_a_daemon_of_another_database_is_not_used(fake_daemon, tmp_path, monkeypatch):
    """Another data dir (another school's copy, a test) on the same port: answer in-process."""
    import appliance.cli as cli

    port, received, served = fake_daemon
    served["store_id"] = "0123456789abcdef0123456789abcdef"

    class InProcess(Exception):
        pass

    def in_process(*args, **kwargs):
        raise InProcess

    monkeypatch.setattr(cli, "_service", in_process)
    result = CliRunner().invoke(main, ["--config", config_file(tmp_path, port), "--data-dir", str(tmp_path),
                                       "ask", "水的沸点"])
    assert isinstance(result.exception, InProcess) and received == []

def test_readme_names_every_command_and_subcommand():
    import re
    from pathlib import Path

    import click

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    tour = readme.split("\n## Using it\n", 1)[1].split("```", 2)[1]
    words = {}  # first word after "eduqa" -> every word on those lines
    for line in tour.splitlines():
        found = re.search(r"\beduqa ([a-z-]+)(.*)", line.split("#")[0])
        if found:
            words.setdefault(found.group(1), set()).update(re.findall(r"[a-z][a-z0-9-]*", found.group(2)))
    missing = [name for name in main.commands if name not in words]
    for name, command in main.commands.items():
        if isinstance(command, click.Group):
            missing += [f"{name} {sub}" for sub in command.commands if sub not in words.get(name, set())]
    assert missing == [], f"README's command list lacks: {missing}"
