"""The eduqa command line, run in-process with click's runner."""

import json

import pytest
from click.testing import CliRunner

from appliance.cli import main

HEADER = "id,subject,grade,question,answer,knowledge_points,source"


@pytest.fixture
def run(config):
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, ["--data-dir", str(config.data_dir), *args], catch_exceptions=False)

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
