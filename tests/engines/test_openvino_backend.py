"""The OpenVINO backend: the same outputs as ONNX Runtime in FP32, close ones in BF16 where
this CPU computes it, one infer request per thread, and clear errors."""

from __future__ import annotations

import builtins
import importlib.util
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from engines.backend import BackendError, InferenceBackend
from engines.ocr_models import bundled_models
from engines.openvino_backend import OpenVinoBackend, cpu_computes
from engines.ort_backend import OnnxRuntimeBackend
from tests.needs import missing

pytestmark = pytest.mark.skipif(importlib.util.find_spec("openvino") is None,
                                reason=missing("openvino", "pip install -e '.[openvino]'; ./install.sh --dev installs it"))


@pytest.fixture(scope="module")
def rec_model():
    return bundled_models().rec


def _lines(seed: int, batch: int = 2, width: int = 320) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (batch, 3, 48, width)).astype(np.float32)


def _drawn_line(text: str) -> np.ndarray:
    """One printed line as the recogniser takes it: 1×3×48×W in [-1, 1]."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (16 * len(text), 48), 235)
    ImageDraw.Draw(image).text((8, 6), text, fill=30, font=ImageFont.load_default(size=32))
    pixels = np.asarray(image, np.float32) / 127.5 - 1.0
    return np.repeat(pixels[None, None], 3, axis=1)


def test_fp32_gives_onnx_runtimes_outputs(rec_model):
    ov, ort = OpenVinoBackend(rec_model, "f32"), OnnxRuntimeBackend(rec_model, threads=1, use_cuda=False)
    assert isinstance(ov, InferenceBackend) and ov.name == "openvino-cpu-f32"
    assert ov.input_names == ort.input_names and ov.output_names == ort.output_names
    feeds = {ov.input_names[0]: _lines(1, width=400)}
    got, want = ov.run(feeds)[ov.output_names[0]], ort.run(feeds)[ort.output_names[0]]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_bf16_keeps_the_best_class_where_this_cpu_computes_it(rec_model):
    if not cpu_computes("bf16"):
        pytest.skip("this CPU computes no BF16 (AVX512-BF16 or AMX)")
    bf16, ort = OpenVinoBackend(rec_model, "bf16"), OnnxRuntimeBackend(rec_model, threads=1, use_cuda=False)
    feeds = {bf16.input_names[0]: _drawn_line("Solve 2x + 3 = 11 for x.")}
    got, want = bf16.run(feeds)[bf16.output_names[0]], ort.run(feeds)[ort.output_names[0]]
    assert np.abs(got - want).max() > 0  # computed in another precision, not FP32 again...
    assert (got.argmax(-1) == want.argmax(-1)).mean() >= 0.95  # ...to nearly the same classes


def test_threads_at_once_get_what_each_would_alone(rec_model):
    backend = OpenVinoBackend(rec_model, "f32", streams=2)
    name, out = backend.input_names[0], backend.output_names[0]
    inputs = [_lines(seed, width=160 + 32 * seed) for seed in range(6)]
    alone = [backend.run({name: x})[out] for x in inputs]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(lambda x: backend.run({name: x})[out], inputs))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)


def test_outputs_are_the_callers_own(rec_model):
    backend = OpenVinoBackend(rec_model, "f32")
    name, out = backend.input_names[0], backend.output_names[0]
    first = backend.run({name: _lines(3)})[out]
    kept = first.copy()
    backend.run({name: _lines(4)})
    np.testing.assert_array_equal(first, kept)  # the next run did not write into it


def test_errors_are_backend_errors(rec_model, tmp_path, monkeypatch):
    with pytest.raises(BackendError, match="precision"):
        OpenVinoBackend(rec_model, "int4")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(BackendError, match="could not compile"):
        OpenVinoBackend(broken)
    backend = OpenVinoBackend(rec_model, "f32")
    for wrong in ((1, 2, 48, 64), (1, 3, 47, 64), (48, 64)):  # OpenVINO itself would run them
        with pytest.raises(BackendError, match="run failed.*shape"):
            backend.run({backend.input_names[0]: np.zeros(wrong, np.float32)})
    with pytest.raises(BackendError, match="missing"):
        backend.run({"pixels": np.zeros((1, 3, 48, 64), np.float32)})

    real_import = builtins.__import__

    def no_openvino(name, *args, **kwargs):
        if name == "openvino":
            raise ImportError("No module named 'openvino'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_openvino)
    with pytest.raises(BackendError, match="not installed"):
        OpenVinoBackend(rec_model)
    assert not cpu_computes("bf16") and cpu_computes("f32")


def test_one_infer_request_a_stream(rec_model):
    backend = OpenVinoBackend(rec_model, "f32", streams=2)
    assert backend._idle.qsize() == 2  # one infer request per stream, however many threads run it


def test_openvino_never_reports_its_use(rec_model, tmp_path):
    """OpenVINO's package sends each import to Google Analytics (openvino_telemetry) unless
    told not to; the appliance never phones home. Run in a fresh process, outside CI (the
    telemetry keeps quiet in CI on its own), with a home of its own."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import json, sys\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(event) if event.startswith(('urllib', 'socket.connect', "
        "'http.client')) else None)\n"
        "from engines.openvino_backend import OpenVinoBackend, cpu_computes\n"
        f"cpu_computes('bf16'); OpenVinoBackend({str(rec_model)!r}, 'f32')\n"
        "import openvino.tools.ovc.telemetry_utils as used\n"
        "print(json.dumps({'telemetry': sys.modules.get('openvino_telemetry') is not None, "
        "'sender': used.tm.__name__, 'network': seen}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TF_BUILD", "JENKINS_URL")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"telemetry": False, "sender": "openvino.tools.ovc.telemetry_stub", "network": []}
    assert not (tmp_path / "intel").exists()  # no usage counter or client id written either
