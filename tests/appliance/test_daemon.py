"""The composition root: what `eduqa engines ensure` builds (with the config's [engines]
settings, or a flag for one run) is what the daemon serves, for the OCR models as for the
encoder; the card, /metrics and `engines status` say what really serves, also after a
failover.

No TensorRT GPU is at hand, so a stand-in accelerator (tests/engines/fake_accelerator.py)
is registered for these tests: it builds a real engine file (the model after the real
precision pass) and its backend really runs it and counts its runs.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from appliance import daemon
from appliance.config import load_config
from engines.accelerators import ACCELERATORS
from tests.engines.fake_accelerator import NAME, FakeAccelerator

OCR = ("ocr-det", "ocr-cls", "ocr-rec")
MODEL_ARGS = [arg for model in OCR for arg in ("--model", model)]


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from tests.photos.make_photos import FontMissing, make_set

    folder = tmp_path_factory.mktemp("photos")
    try:
        samples = make_set(folder, count=2, seed=5)
    except FontMissing as exc:
        pytest.skip(f"CJK font missing (apt-get install fonts-noto-cjk): {exc}")
    return [(folder / f"{s.qid}.jpg").read_bytes() for s in samples]


@pytest.fixture
def fake(monkeypatch):
    accelerator = FakeAccelerator()
    monkeypatch.setitem(ACCELERATORS, NAME, accelerator)
    return accelerator


def write_config(tmp_path, config, extra: str = "", encoder: str = "use-m3") -> str:
    """A config file: the test's data dir, ``encoder``, the stand-in first in engines.flavours."""
    path = tmp_path / "eduqa.toml"
    path.write_text(f'data_dir = "{config.data_dir}"\n[encoder]\nmodel = "{encoder}"\n'
                    f'[engines]\nflavours = ["{NAME}", "onnxruntime"]\n{extra}', encoding="utf-8")
    return str(path)


def eduqa(config_file: str, *args: str):
    from appliance.cli import main

    return CliRunner().invoke(main, ["--config", config_file, *args])


def status_rows(config_file: str) -> dict[str, dict]:
    result = eduqa(config_file, "engines", "status", "--json")
    assert result.exit_code == 0, result.output
    return {row["model_id"]: row for row in json.loads(result.stdout)}


def metric(text: str, model: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("eduqa_model_backend{") and f'model="{model}"' in line]


def test_ensure_fp16_flag_then_the_daemon_reads_photos_with_that_engine_until_it_fails_over(
        tmp_path, config, fake, photos):
    config_file = write_config(tmp_path, config)
    built = eduqa(config_file, "engines", "ensure", "--precision", "fp16", *MODEL_ARGS)
    assert built.exit_code == 0, built.output
    assert "note: --precision fp16 overrides engines.precision (auto) for this run only" in built.stderr
    assert len(fake.built) == 3 and all("fp16" in p.name for p in fake.built)  # the FP16 pass's models
    rows = status_rows(config_file)
    assert {m: (rows[m]["serving"], rows[m]["precision"]) for m in OCR} == {m: (NAME, "fp16") for m in OCR}

    running = daemon.build(load_config(config_file), pages=False, progress=False)
    with TestClient(running.app) as client:
        card = client.post("/api/v1/ask", files={"photo": ("q.jpg", photos[0], "image/jpeg")}).json()
        assert card["question"] and not card["abstained"], card
        assert {m: card["served_by"][m] for m in OCR} == {m: f"{NAME} fp16" for m in OCR}
        assert all(fake.runs.get(f"{m}-{NAME}.engine", 0) >= 1 for m in OCR), fake.runs
        text = client.get("/metrics").text
        for m in OCR:
            assert metric(text, m) == [f'eduqa_model_backend{{backend="{NAME}",model="{m}",precision="fp16"}} 1.0']

        fake.broken = True  # every engine call fails from now on
        card = client.post("/api/v1/ask", files={"photo": ("q.jpg", photos[1], "image/jpeg")}).json()
        assert card["question"] and not card["abstained"], card  # read all the same, by the fallback
        assert all(card["served_by"][m].startswith("onnxruntime ") for m in OCR), card["served_by"]
        text = client.get("/metrics").text
        for m in OCR:
            (line,) = metric(text, m)
            assert 'backend="onnxruntime"' in line, line
        from ui.status_data import manager_engines  # the status page's engine table

        table = {row.model: row for row in manager_engines(running.engines)()}
        assert all(table[m].backend == "onnxruntime" and "failed over" in table[m].reason for m in OCR), table
    rows = status_rows(config_file)
    for m in OCR:
        assert rows[m]["serving"] == "onnxruntime" and "failed at run time" in rows[m]["reason"], rows[m]


def test_ensure_fp16_flag_then_the_daemon_encodes_with_the_fp16_engine(tmp_path, config, fake):
    """The encoder's own precision is int8; one `ensure --precision fp16` run and a config
    left at auto: the daemon serves the FP16 engine (the precision is taken from what was built)."""
    config_file = write_config(tmp_path, config, encoder="minilm")
    built = eduqa(config_file, "engines", "ensure", "--precision", "fp16", "--model", "minilm")
    assert built.exit_code == 0, built.output
    assert status_rows(config_file)["minilm"]["serving"] == NAME
    running = daemon.build(load_config(config_file), pages=False, progress=False)
    with TestClient(running.app) as client:
        card = client.post("/api/v1/ask", json={"text": "What is the boiling point of water?"}).json()
        metrics = client.get("/metrics").text
    assert card["served_by"] == {"minilm": f"{NAME} fp16"} and card["backend"] == NAME, card
    assert fake.runs.get(f"minilm-{NAME}.engine", 0) >= 1
    assert metric(metrics, "minilm") == [f'eduqa_model_backend{{backend="{NAME}",model="minilm",precision="fp16"}} 1.0']


def test_the_config_precision_is_what_ensure_builds_and_what_the_daemon_serves(tmp_path, config, fake):
    config_file = write_config(tmp_path, config, '[engines.precision]\nocr-det = "fp32"\n')
    result = eduqa(config_file, "engines", "ensure", "--model", "ocr-det")
    assert result.exit_code == 0 and "note:" not in result.stderr, result.output
    running = daemon.build(load_config(config_file), pages=False, progress=False)
    running.service._photo_reader()  # opens det/cls/rec through the manager, as the first photo does
    assert running.service.served_by(photo=True)["ocr-det"] == f"{NAME} fp32"
    running.service.close()

    # An engine of another precision than the config's is not served: the key says so.
    other = eduqa(config_file, "engines", "ensure", "--model", "ocr-det", "--precision", "fp16")
    assert other.exit_code == 0, other.output
    row = status_rows(config_file)["ocr-det"]
    assert row["serving"] == "onnxruntime" and "engine key changed (precision)" in row["reason"], row


@pytest.mark.parametrize("section,message", [
    ('[engines]\nflavours = ["tensorrt-xl", "onnxruntime"]\n', "engines.flavours: unknown flavour(s) 'tensorrt-xl'"),
    ('[engines.precision]\ngpt-9 = "fp16"\n', "engines.precision: unknown model(s) 'gpt-9'"),
    ('[engines.precision]\nocr-det = "fp8"\n', "engines.precision: ocr-det = 'fp8'"),
])
def test_an_unknown_model_or_flavour_in_the_config_is_one_error_line(tmp_path, section, message):
    path = tmp_path / "bad.toml"
    path.write_text(section, encoding="utf-8")
    for command in (["engines", "status"], ["serve"]):
        result = eduqa(str(path), *command)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), result.output


def test_the_daemon_builds_one_rate_limiter_for_the_api_and_the_pages(config):
    import dataclasses

    from appliance.config import ServingConfig

    config = dataclasses.replace(config, serving=ServingConfig(rate_per_minute=1, rate_burst=2))
    running = daemon.build(config, progress=False)
    with TestClient(running.app) as client:
        codes = [client.post("/api/v1/ask", json={"text": "水的沸点是多少"}).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert running.pages.desk.limiter is running.limiter
    assert running.limiter.allow("testclient")[0] is False  # the API spent this limiter's budget


def test_overload_shedding_wraps_the_whole_app_with_the_pages_mounted(config):
    from appliance.serve.admission import ShedOverload

    running = daemon.build(config, progress=False)
    assert running.pages is not None
    assert isinstance(running.asgi, ShedOverload) and running.asgi.app is running.app
    assert running.asgi.admission is running.app.state.admission
    assert ShedOverload not in [layer.cls for layer in running.app.user_middleware]
    gate = running.app.state.admission
    gate.max_in_flight = gate.always_admit = 0  # saturated: every JSON ask is refused
    with TestClient(running.asgi) as client:
        refused = client.post("/api/v1/ask", json={"text": "水的沸点是多少"})
        health = client.get("/healthz")
    assert refused.status_code == 503 and health.status_code == 200
