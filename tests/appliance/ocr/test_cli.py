"""``ocr`` and ``eval-ocr`` as the lead will register them: config from ctx.obj."""

from __future__ import annotations

import json
import shutil

import click
import pytest
from click.testing import CliRunner

from appliance.bench.ocr_eval import eval_ocr
from appliance.ocr.cli import ocr


def runner_for(config):
    @click.group()
    @click.pass_context
    def main(ctx):
        ctx.obj = config

    main.add_command(ocr)
    main.add_command(eval_ocr)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def run(config, reader, monkeypatch):
    """Invoke a command with the session's models (loading them per command is slow)."""
    monkeypatch.setattr("appliance.ocr.cli.reader_for", lambda config: reader)
    return runner_for(config)


def test_ocr_prints_the_question_text(config, photo_set):
    result = runner_for(config)("ocr", str(photo_set / "q001.jpg"))  # loads its own models
    assert result.exit_code == 0, result.output
    assert "解方程" in result.stdout.splitlines()[0]


def test_ocr_json_has_the_whole_result(run, photo_set):
    result = run("ocr", str(photo_set / "q001.jpg"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"text", "confidence", "lines", "stage_ms", "sha256"} <= set(data)
    assert list(data["stage_ms"]) == ["decode", "det", "cls", "rec", "layout"]


def test_ocr_bad_input_is_one_error_line(run, tmp_path):
    fake = tmp_path / "photo.jpg"
    fake.write_text("not a photo")
    for path in (fake, tmp_path / "missing.jpg"):
        result = run("ocr", str(path))
        assert result.exit_code == 2
        assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.output


def test_ocr_blank_sheet_says_no_text_found(run, tmp_path):
    from PIL import Image

    path = tmp_path / "blank.png"
    Image.new("RGB", (800, 600), (240, 240, 236)).save(path)
    result = run("ocr", str(path))
    assert result.exit_code == 2
    assert "No text found" in result.stderr


def test_eval_ocr_json(run, photo_set, tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    lines = (photo_set / "truth.csv").read_text(encoding="utf-8").splitlines()[:3]
    (folder / "truth.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for line in lines[1:]:
        qid = line.split(",")[0]
        shutil.copy(photo_set / f"{qid}.jpg", folder / f"{qid}.jpg")
    result = run("eval-ocr", str(folder), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"cer", "n", "median_ms", "ambiguous"} and data["n"] == 2 and data["cer"] < 0.05
    text = run("eval-ocr", str(folder))
    assert "CER" in text.stdout and "q001" in text.stdout


def test_eval_ocr_bad_folder(run, tmp_path):
    result = run("eval-ocr", str(tmp_path))
    assert result.exit_code == 2 and "truth.csv" in result.stderr
    (tmp_path / "truth.csv").write_text("id,question\n", encoding="utf-8")
    result = run("eval-ocr", str(tmp_path))
    assert result.exit_code == 2 and "header must be qid,text" in result.stderr
