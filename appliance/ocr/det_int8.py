"""The text detector in INT8: the PP-OCR DB model quantised for CPUs with VNNI/AMX.

On this appliance's CPU (Xeon, AVX512-VNNI, AMX) the detector in INT8 costs about a
quarter of its FP32 CPU time (640×480: ~85 vs ~355 ms), which is what lets a classroom
burst of 4 photos a second drain. Quantisation is static (QDQ, per-tensor, activations
uint8, weights int8): activation ranges are calibrated on synthetic pages drawn here
(dark lines of text on shaded paper, at the detector's two sizes), not on any photo set
that the OCR is tuned or scored on. The quantised file is built once (about 10 s) and
kept under ``folder`` named by the FP32 model's sha256, so a restart loads it at once.
Any failure leaves the FP32 detector in place (logged): the INT8 model is an optimisation,
never a reason for photos to stop being read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

#: Bumped when the recipe changes, so an old cached file is not reused.
RECIPE = 1
#: Detector input sizes calibrated (the normal and the busy size).
CALIBRATION_SIDES = (640, 480)
PAGE_SIZE = (1600, 1200)
GLYPHS = "ABCDEFGHKMNPRSTWXYabcdefghkmnpqrstuvwxyz0123456789+-=()/.,:?x²_"


def int8_model(fp32_model: str | Path, folder: str | Path) -> Path:
    """The INT8 detector for ``fp32_model``, built into ``folder`` unless already there."""
    fp32_model, folder = Path(fp32_model), Path(folder)
    digest = hashlib.sha256(fp32_model.read_bytes()).hexdigest()[:16]
    target = folder / f"{fp32_model.stem}.int8-r{RECIPE}-{digest}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    log.info("OCR: quantising the text detector to INT8 (once, about 10 s) into %s", target)
    with tempfile.TemporaryDirectory(dir=folder) as work:
        built = Path(work) / target.name
        quantize(fp32_model, built, Path(work))
        os.replace(built, target)  # atomic: a reader never sees half a file
    return target


def quantize(fp32_model: Path, out: Path, work: Path) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    prepared = work / "prepared.onnx"
    quant_pre_process(str(fp32_model), str(prepared), skip_symbolic_shape=True)
    input_name = _input_name(prepared)

    class Pages(CalibrationDataReader):
        def __init__(self) -> None:
            self._feeds: Iterator[dict] = ({input_name: t} for t in calibration_tensors())

        def get_next(self) -> dict | None:
            return next(self._feeds, None)

    quantize_static(str(prepared), str(out), Pages(), quant_format=QuantFormat.QDQ, per_channel=False,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def _input_name(model: Path) -> str:
    import onnx

    graph = onnx.load(str(model), load_external_data=False).graph
    initialisers = {i.name for i in graph.initializer}
    return next(i.name for i in graph.input if i.name not in initialisers)


#: Pages the INT8 detector is gated on (:mod:`appliance.inference.precision_gate`): drawn, never a photo set.
GATE_PAGES = 6
GATE_SEED = 7_2026


def gate_pages() -> list[np.ndarray]:
    rng = np.random.default_rng(GATE_SEED)
    return [synthetic_page(rng) for _ in range(GATE_PAGES)]


def calibration_tensors(count: int = 12, seed: int = 20261201) -> Iterator[np.ndarray]:
    """The detector's inputs for ``count`` synthetic pages at each calibrated size."""
    from appliance.ocr.det import detector_input

    rng = np.random.default_rng(seed)
    for _ in range(count):
        page = synthetic_page(rng)
        for side in CALIBRATION_SIDES:
            yield detector_input(page, side)[0]


def synthetic_page(rng: np.random.Generator) -> np.ndarray:
    """A BGR photo-like page: shaded paper, lines of dark text of several sizes, a little
    tilt, blur and sensor noise."""
    width, height = PAGE_SIZE
    paper = int(rng.integers(185, 250))
    image = Image.new("L", PAGE_SIZE, paper)
    draw = ImageDraw.Draw(image)
    y = int(rng.integers(20, 120))
    while y < height - 60:
        size = int(rng.integers(22, 70))
        font = ImageFont.load_default(size=size)
        x = int(rng.integers(20, 200))
        text = "".join(rng.choice(list(GLYPHS + "    "), int(rng.integers(8, 40))))
        draw.text((x, y), text, fill=int(rng.integers(0, 80)), font=font)
        if rng.random() < 0.2:  # a blank to fill in
            left = x + int(rng.integers(50, 600))
            draw.line((left, y + size, left + int(rng.integers(60, 200)), y + size), fill=40, width=2)
        y += int(size * rng.uniform(1.4, 2.6))
    pixels = np.asarray(image, np.float32)
    shade = np.linspace(rng.uniform(0.6, 1.0), rng.uniform(0.8, 1.1), width, dtype=np.float32)
    pixels = pixels * shade[None, :] + rng.normal(0, rng.uniform(1, 8), pixels.shape).astype(np.float32)
    angle = float(rng.uniform(-6, 6))
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    pixels = cv2.warpAffine(np.clip(pixels, 0, 255).astype(np.uint8), turn, PAGE_SIZE, borderValue=paper)
    pixels = cv2.GaussianBlur(pixels, (0, 0), float(rng.uniform(0.3, 1.5)))
    tint = rng.uniform(0.85, 1.0, 3)
    return np.clip(pixels[:, :, None] * tint[None, None, :], 0, 255).astype(np.uint8)
