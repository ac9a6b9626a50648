"""Whether a model at a lower precision serves on *this* CPU: measured here, once, and remembered.

Speed and agreement at INT8 or BF16 depend on the CPU (VNNI, AVX512-BF16, AMX or plain
AVX2), so the lower-precision model serves only where, on inputs drawn for the purpose (not
any photo set the OCR is tuned or scored on), it agrees with the FP32 model (``min_agreement``)
and is ``min_speedup`` times as fast:

- the INT8 text detector (:func:`measure`): the share of the FP32 detector's lines it also
  finds, matched by overlap;
- the BF16 recogniser (:func:`measure_reading`): the share of the FP32 recogniser's
  characters it reads alike, on drawn lines (:func:`gate_lines`).

The verdict is kept beside the model, keyed by the CPU's model name and flags, so a data
dir moved to another box is gated anew.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

#: The recogniser's gate: photos of drawn lines, from this seed (never a photo set).
GATE_PHOTOS = 4
GATE_SEED = 48_2026
GATE_GLYPHS = "ABCDEFGHKLMNPRSTUVWXYZabcdefghkmnprstuwxyz0123456789+-=()[].,:;?%/<>  "

MIN_SPEEDUP = 1.2
MIN_AGREEMENT = 0.95
#: The BF16 recogniser must read this share of the FP32 one's characters alike.
MIN_READING_AGREEMENT = 0.99
#: How the detector's agreement reads in a verdict; the recogniser's.
FINDS = "finds {:.1%} of the FP32 lines"
READS = "reads {:.1%} of the FP32 characters alike"


@dataclass(frozen=True)
class GateVerdict:
    speedup: float  # FP32 median time ÷ the lower precision's median time on the gate's inputs
    agreement: float  # share of the FP32 model's lines (detector) or characters (recogniser) it agrees on
    serves: bool
    reason: str


def decide(speedup: float, agreement: float, min_speedup: float = MIN_SPEEDUP,
           min_agreement: float = MIN_AGREEMENT, agrees: str = FINDS) -> GateVerdict:
    """The verdict from the two measurements (pure: tests feed it any figures); ``agrees``
    words the agreement (:data:`FINDS`, :data:`READS`)."""
    if agreement < min_agreement:
        return GateVerdict(speedup, agreement, False, f"{agrees.format(agreement)} (< {min_agreement:.0%})")
    if speedup < min_speedup:
        return GateVerdict(speedup, agreement, False, f"{speedup:.2f}× as fast as FP32 (< {min_speedup}×)")
    return GateVerdict(speedup, agreement, True, f"{speedup:.2f}× as fast, {agrees.format(agreement)}")


def cpu_key() -> str:
    """A short key for this CPU: its model name and instruction-set flags."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        fields = [line for line in info.splitlines() if line.startswith(("model name", "flags"))][:2]
    except OSError:
        import platform

        fields = [platform.machine(), platform.processor()]
    return hashlib.sha256("\n".join(fields).encode()).hexdigest()[:12]


def cached_verdict(folder: Path, model_name: str, measure) -> GateVerdict:
    """The verdict remembered for this CPU under ``folder``, else ``measure()``'s, saved."""
    path = Path(folder) / f"{model_name}.gate-{cpu_key()}.json"
    try:
        return GateVerdict(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    verdict = measure()
    try:
        path.write_text(json.dumps(asdict(verdict)), encoding="utf-8")
    except OSError as exc:
        log.warning("OCR: could not keep the gate's verdict in %s (%s): it is measured again next start", path, exc)
    return verdict


def measure(fp32, int8, pages: list[np.ndarray], rounds: int = 2) -> GateVerdict:
    """Detect the same pages with both detectors (``detect(page)`` → items with a ``quad``),
    timing them in turns."""
    times: dict[str, list[float]] = {"fp32": [], "int8": []}
    found, matched = 0, 0
    for _ in range(rounds):
        for page in pages:
            boxes = {}
            for name, detector in (("fp32", fp32), ("int8", int8)):
                started = time.perf_counter()
                boxes[name] = [_rect(d.quad) for d in detector.detect(page)]
                times[name].append(time.perf_counter() - started)
            found += len(boxes["fp32"])
            matched += sum(any(_iou(a, b) >= 0.5 for b in boxes["int8"]) for a in boxes["fp32"])
    speedup = statistics.median(times["fp32"]) / max(1e-9, statistics.median(times["int8"]))
    return decide(round(speedup, 2), round(matched / found, 4) if found else 0.0)


def measure_reading(fp32: Callable[[list[np.ndarray]], list[str]], low: Callable[[list[np.ndarray]], list[str]],
                    photos: list[list[np.ndarray]], rounds: int = 2) -> GateVerdict:
    """Read the same photos' line crops with both recognisers (``read(crops)`` → texts),
    timing them in turns: how many of the FP32 texts' characters the other reads alike."""
    times: dict[str, list[float]] = {"fp32": [], "low": []}
    texts: dict[str, list[str]] = {"fp32": [], "low": []}
    for _ in range(rounds):
        for crops in photos:
            for name, read in (("fp32", fp32), ("low", low)):
                started = time.perf_counter()
                texts[name] += read(crops)
                times[name].append(time.perf_counter() - started)
    read = sum(len(text) for text in texts["fp32"])
    alike = sum(_alike(a, b) for a, b in zip(texts["fp32"], texts["low"]))
    speedup = statistics.median(times["fp32"]) / max(1e-9, statistics.median(times["low"]))
    return decide(round(speedup, 2), round(alike / read, 4) if read else 0.0, min_agreement=MIN_READING_AGREEMENT,
                  agrees=READS)


def gate_lines(photos: int = GATE_PHOTOS, lines: int = 6) -> list[list[np.ndarray]]:
    """Line crops as the recogniser gets them (48 px tall, BGR), drawn: ``photos`` groups of
    ``lines`` lines of letters, digits and signs in several sizes, widths, inks and blurs."""
    rng = np.random.default_rng(GATE_SEED)
    return [[_drawn_line(rng) for _ in range(lines)] for _ in range(photos)]


def _drawn_line(rng: np.random.Generator) -> np.ndarray:
    size = int(rng.integers(24, 44))
    text = "".join(rng.choice(list(GATE_GLYPHS), int(rng.integers(4, 36))))
    font = ImageFont.load_default(size=size)
    left, top, right, bottom = font.getbbox(text)
    paper = int(rng.integers(180, 250))
    image = Image.new("L", (right + size, bottom - top + size // 2), paper)
    ImageDraw.Draw(image).text((size // 2, size // 4 - top), text, fill=int(rng.integers(0, 90)), font=font)
    pixels = np.asarray(image, np.float32) + rng.normal(0, rng.uniform(1, 6), (image.height, image.width))
    pixels = cv2.GaussianBlur(np.clip(pixels, 0, 255).astype(np.uint8), (0, 0), float(rng.uniform(0.3, 1.2)))
    width = max(8, round(image.width * 48 / image.height))
    return cv2.cvtColor(cv2.resize(pixels, (width, 48), interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2BGR)


def _alike(a: str, b: str) -> int:
    """Characters of ``a`` that ``b`` reads alike (in order)."""
    return sum(block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


def _rect(quad: np.ndarray) -> tuple[float, float, float, float]:
    return float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()), float(quad[:, 1].max())


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)
