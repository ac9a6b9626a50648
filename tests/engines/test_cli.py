"""The engines command group and doctor, through click's runner."""

from __future__ import annotations

import json
import types

import pytest
from click.testing import CliRunner

from engines.cli import doctor, engines_group


@pytest.fixture
def data_dir(tmp_path, model_cache):
    data = tmp_path / "data"
    data.mkdir()
    (data / "cache").symlink_to(model_cache, target_is_directory=True)
    return data


@pytest.mark.slow
def test_ensure_builds_then_reuses(data_dir, rtx):
    runner = CliRunner()
    args = ["ensure", "--model", "ocr-cls", "--flavour", "tensorrt-rtx", "--aot-compute-capability", "8.6",
            "--data-dir", str(data_dir)]
    first = runner.invoke(engines_group, args)
    assert first.exit_code == 0, first.output
    assert "note: --flavour tensorrt-rtx overrides engines.flavours" in first.stderr
    assert "[ocr-cls] building with tensorrt-rtx: no engine built yet" in first.output
    assert "built in" in first.output and "verification: unverified" in first.output
    assert (data_dir / "engines" / "ocr-cls-tensorrt-rtx.engine").is_file()
    second = runner.invoke(engines_group, args + ["--json"])
    assert second.exit_code == 0, second.output
    (status,) = json.loads(second.stdout)
    assert status["serving"] == "onnxruntime" and "no GPU" in status["reason"]
    again = runner.invoke(engines_group, args)
    assert "reusing ocr-cls-tensorrt-rtx.engine: engine key matches" in again.output


@pytest.mark.slow
def test_status_and_doctor_take_dirs_from_ctx_obj(data_dir, rtx):
    obj = types.SimpleNamespace(cache_dir=data_dir / "cache", data_dir=data_dir)
    runner = CliRunner()
    status = runner.invoke(engines_group, ["status", "--json"], obj=obj)
    assert status.exit_code == 0, status.output
    rows = {row["model_id"]: row for row in json.loads(status.stdout)}
    assert {"use-m3", "minilm", "ocr-det", "ocr-rec", "ocr-cls"} <= set(rows)
    assert all(row["serving"].startswith("onnxruntime") for row in rows.values())
    report = runner.invoke(doctor, [], obj=obj)
    assert report.exit_code == 0, report.output
    assert "GPU:        no NVIDIA GPU (no NVIDIA driver" in report.output
    assert "tensorrt-rtx:" in report.output and "disk:" in report.output
    assert "use-m3" in report.output


def test_export_triton(data_dir, tmp_path):
    out = tmp_path / "repo"
    result = CliRunner().invoke(engines_group, ["export-triton", str(out), "--model", "ocr-cls",
                                                "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert (out / "ocr-cls" / "config.pbtxt").is_file() and "onnxruntime" in result.output


def test_text_data_from_files_or_parent_context(tmp_path):
    import click

    from engines.cli import TEXT_DATA_META, _text_data
    from engines.precision_plan import TextData

    bank = tmp_path / "bank.jsonl"
    bank.write_text('{"id": "a", "question": "What is 2+2?", "answer": "4"}\n{"id": "b", "question": "Why?"}\n')
    queries = tmp_path / "q.csv"
    queries.write_text("qid,query,expected_id\n1,what's two plus two,a\n")
    ctx = click.Context(click.Command("x"))
    data = _text_data(ctx, [str(bank)], [str(queries)], [str(bank)])
    assert data.calibration == ("What is 2+2?", "4", "Why?")
    assert data.queries == ("what's two plus two",) and data.bank == ("What is 2+2?", "Why?")
    assert _text_data(ctx, (), (), ()) is None
    given = TextData(("a",), ("b",), ("c",))
    ctx.meta[TEXT_DATA_META] = lambda: given
    assert _text_data(ctx, (), (), ()) is given


def test_unknown_model_is_one_error_line(data_dir):
    result = CliRunner().invoke(engines_group, ["ensure", "--model", "gpt-9", "--data-dir", str(data_dir)])
    assert result.exit_code == 2
    assert result.output.startswith("error: unknown model(s) gpt-9; known:") and "Traceback" not in result.output


def test_doctor_only_reads(tmp_path):
    """On an empty data dir doctor reports and writes nothing: no folder, no exported model."""
    data = tmp_path / "data"
    report = CliRunner().invoke(doctor, ["--data-dir", str(data)])
    assert report.exit_code == 0, report.output
    assert not data.exists(), sorted(p.name for p in data.rglob("*"))
    assert "insufficient" not in report.output and "onnxruntime:" in report.output
    assert "not exported yet" in report.output
    from engines.trt.cuda import driver_present

    if not driver_present():
        assert "GPU:        no NVIDIA GPU (no NVIDIA driver" in report.output
        assert "built yet" not in report.output  # no advice to build what cannot run here
