"""The default OCR pipeline: PP-OCRv6 detection → page orientation → batched recognition
→ layout, each model run through an :class:`engines.backend.InferenceBackend`.

Faster than RapidOCR's defaults on phone photos of printed questions because the
detector runs on the photo shrunk to ``det_max_side`` (RapidOCR keeps a 1600×1200
photo at full size), orientation is decided once per page from a handful of lines
instead of classifying every line, and recognition crops are batched by width so
little of each batch is padding. Crops come from the full-resolution photo.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
from pathlib import Path
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from appliance.ocr.cls import AngleClassifier, is_sideways, reads_better_turned
from appliance.ocr.det import DetParams, TextDetector
from appliance.ocr.det_int8 import gate_pages, int8_model
from appliance.ocr.geometry import crop_line, rotate_page
from appliance.ocr.glyphs import blanks_beside, refine
from appliance.ocr.blocks import Gutters
from appliance.ocr.image import DecodedImage
from appliance.ocr.layout import LayoutParams, TextBox, cut_by_frame
from appliance.ocr.page import arrange_page
from appliance.ocr.rec import HEIGHT, Reading, RecParams, TextRecognizer, with_ring_nearly_read
from appliance.ocr.result import LineEvidence, OcrLine
from appliance.ocr.settings import OcrSettings
from appliance.ocr.timing import Stopwatch
from engines.backend import InferenceBackend

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageText:
    text: str
    lines: tuple[OcrLine, ...]
    confidence: float = 0.0
    dropped: int = 0
    rotation: int = 0
    stage_ms: dict[str, float] = field(default_factory=dict)
    page_text: str = ""  # everything read; ``text`` is the problem chosen from it
    choices: tuple[str, ...] = ()  # problems with equal claim (the student picks)
    unread: int = 0  # lines found and never read (a busy reader read the page centre-first)
    look_alikes: tuple[tuple[str, str], ...] = ()  # of the chosen problem's characters
    evidence: tuple[LineEvidence, ...] = ()  # the chosen problem's boxes as the recogniser saw them


class OcrPipeline(Protocol):
    name: str

    def read(self, image: DecodedImage) -> PageText:
        """The page's text; an empty ``text`` when none is found."""
        ...


#: ``factory(role, path)`` → the backend running one PP-OCR model; role is "det", "cls" or "rec".
BackendFactory = Callable[[str, str], InferenceBackend]


@dataclass
class FoundLines:
    """A page after detection and orientation: upright pixels, line boxes and crops."""

    pixels: np.ndarray
    quads: list[np.ndarray]
    crops: list[np.ndarray]
    rotation: int
    watch: Stopwatch
    cut: int = 0  # lines dropped before recognition: cut by the frame's edge, or past ``max_lines``
    # The classifier could not tell which way up (:class:`ClsParams`): the crops are read as
    # they are and turned 180°, and :meth:`PpOcrPipeline.settle` keeps the better reading.
    unsure: bool = False


class PpOcrPipeline:
    def __init__(self, detector: TextDetector, classifier: AngleClassifier | None,
                 recognizer: TextRecognizer, layout: LayoutParams = LayoutParams(), max_lines: int = 150):
        self.detector = detector
        self.classifier = classifier
        self.recognizer = recognizer
        self.layout = layout
        self.max_lines = max_lines  # more lines found: only those nearest the frame's centre are read

    @property
    def lowered(self) -> dict[str, tuple[str, str]]:
        """Role → (backend, precision) of the models swapped in here, past the engines
        manager: the gated INT8 detector, the gated BF16 recogniser."""
        swapped = {}
        path = getattr(self.detector.backend, "model_path", None)
        if path is not None and ".int8-" in Path(path).name:
            swapped["det"] = ("onnxruntime", "int8")
        if getattr(self.recognizer.backend, "precision", "") == "bf16":
            swapped["rec"] = ("openvino", "bf16")
        return swapped

    @property
    def name(self) -> str:
        """What reads now (a backend's name changes when it fails over)."""
        return f"ppocrv6/{self.recognizer.backend.name}"

    @classmethod
    def open(cls, settings: OcrSettings, backend_factory: BackendFactory | None = None) -> PpOcrPipeline:
        """The bundled PP-OCRv6 models (or ``settings.model_dir``'s) on ONNX Runtime by default;
        ``backend_factory(role, path)`` lets the engines manager serve them (TensorRT, ...)."""
        from engines.ocr_models import bundled_models, character_table

        models = bundled_models(settings.model_dir or None)
        factory = backend_factory or _onnxruntime(settings.threads)
        det_backend = factory("det", str(models.det))
        if settings.det_int8:
            det_backend = int8_detector(det_backend, str(models.det), settings)
        detector = TextDetector(det_backend, DetParams(max_side=settings.det_max_side))
        classifier = AngleClassifier(factory("cls", str(models.cls))) if settings.use_cls else None
        characters = character_table(models.rec)
        rec_backend = factory("rec", str(models.rec))
        if settings.rec_bf16:
            rec_backend = bf16_recognizer(rec_backend, str(models.rec), settings, characters)
        recognizer = TextRecognizer(rec_backend, characters, RecParams(threads=settings.rec_threads))
        log.info("OCR: %s models from %s", models.version, models.det.parent)
        return cls(detector, classifier, recognizer, LayoutParams(min_confidence=settings.min_confidence),
                   settings.max_lines)

    def read(self, image: DecodedImage) -> PageText:
        page = self.find_lines(image)
        readings = self.recognizer.read(page.crops) if page.crops else []
        if page.unsure:
            page, readings = self.settle(page, readings, self.recognizer.read(turned(page.crops)))
        return self.finish(page, readings)

    def find_lines(self, image: DecodedImage, det_max_side: int | None = None) -> FoundLines:
        """Detection and page orientation: the text lines as upright crops, not yet read.
        (The reader runs this per photo and sends the crops of all photos in flight to
        recognition in shared batches.)"""
        watch = Stopwatch()
        found, quads = self.detect(image.pixels, det_max_side)
        watch.lap("det")
        if not quads:
            return FoundLines(image.pixels, [], [], 0, watch)
        pixels, quads, crops, rotation, unsure = self.upright(image.pixels, quads, watch)
        if rotation and not unsure:
            found, quads, crops = self.found_again(pixels, det_max_side, (found, quads, crops), watch)
        cut = cut_by_frame(quads, (pixels.shape[1], pixels.shape[0]), self.layout)
        kept = [i for i, is_cut in enumerate(cut) if not is_cut]
        return FoundLines(pixels, [quads[i] for i in kept], [crops[i] for i in kept], rotation, watch,
                          len(found) - len(kept), unsure)

    def detect(self, pixels: np.ndarray, det_max_side: int | None) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Every line box found, and those to read: at most ``max_lines``, the nearest the centre."""
        found = [d.quad for d in self.detector.detect(pixels, det_max_side)]
        quads = nearest_centre(found, (pixels.shape[1], pixels.shape[0]), self.max_lines)
        if len(quads) < len(found):
            log.warning("OCR: %d lines found, only the %d nearest the centre are read", len(found), len(quads))
        return found, quads

    def found_again(self, pixels: np.ndarray, det_max_side: int | None, first: tuple[list, list, list],
                    watch: Stopwatch) -> tuple[list, list[np.ndarray], list[np.ndarray]]:
        """A turned page's lines found again on it upright: the detector, trained on upright
        text, cuts and joins a line differently upside down or sideways (a line's number
        under a teacher's tick was lost that way). ``first``: the boxes found as it came
        (all, those kept, their crops), which stay if none are found now."""
        found, quads = self.detect(pixels, det_max_side)
        watch.lap("det")
        if not quads:
            return first
        crops = [crop_line(pixels, q, HEIGHT) for q in quads]
        watch.lap("rec")  # cropping is recognition's preparation
        return found, quads, crops

    def settle(self, page: FoundLines, readings: list[Reading],
               turned_readings: list[Reading]) -> tuple[FoundLines, list[Reading]]:
        """An unsure page, read as it is and turned 180°: the way its longest lines read
        with more confidence (:func:`cls.reads_better_turned`), and that way's readings."""
        sample = self.classifier.params.confirm_sample if self.classifier is not None else 3
        if not reads_better_turned(page.crops, readings, turned_readings, sample):
            return dataclasses.replace(page, unsure=False), readings
        pixels, quads = rotate_page(page.pixels, page.quads, 180)
        return dataclasses.replace(page, pixels=pixels, quads=quads, crops=turned(page.crops),
                                   rotation=page.rotation + 180, unsure=False), turned_readings

    def finish(self, page: FoundLines, readings: list[Reading], gutters: Gutters | None = None) -> PageText:
        """Layout of the read lines into the question text (``gutters``: :func:`page.arrange_page`)."""
        if not page.quads:
            return PageText("", (), stage_ms={**page.watch.stages, "cls": 0.0, "rec": 0.0, "layout": 0.0})
        return self.lay_out(page, self.read_boxes(page, readings), gutters)

    def read_boxes(self, page: FoundLines, readings: list[Reading]) -> list[TextBox]:
        """The read lines as boxes, their blanks, x² and a₁ told from the crops."""
        page.watch.lap("rec")
        seen = [LineEvidence(r.text, r.steps, r.odds) for r in readings]
        readings = [refine(with_ring_nearly_read(r), crop) for r, crop in zip(readings, page.crops)]  # ⑪, blanks, x², a₁
        texts = blanks_beside(page.pixels, page.quads, [r.text for r in readings], page.crops)
        return [TextBox(t, r.confidence, q, look_alikes=r.look_alikes, evidence=(e,))
                for t, r, q, e in zip(texts, readings, page.quads, seen)]

    def lay_out(self, page: FoundLines, boxes: list[TextBox], gutters: Gutters | None = None) -> PageText:
        """:func:`page.arrange_page` of the boxes of ``page`` (from :meth:`read_boxes`)."""
        watch = page.watch
        layout = arrange_page(boxes, (page.pixels.shape[1], page.pixels.shape[0]), self.layout, gutters=gutters)
        watch.lap("layout")
        return PageText(layout.text, layout.lines, layout.confidence, layout.dropped + page.cut, page.rotation,
                        watch.stages, layout.page_text, layout.choices, look_alikes=layout.look_alikes,
                        evidence=layout.evidence)

    def upright(self, pixels: np.ndarray, quads: list[np.ndarray], watch: Stopwatch):
        """Turn the page (and its boxes) to read upright; returns pixels, quads, 48-px crops,
        degrees and whether the half turn is still to be settled by reading both ways."""
        rotation = 90 if is_sideways(quads) else 0
        pixels, quads = rotate_page(pixels, quads, rotation)
        crops = [crop_line(pixels, q, HEIGHT) for q in quads]
        watch.lap("rec")  # cropping is recognition's preparation
        turn, unsure = self.half_turn(crops)
        if turn:
            pixels, quads = rotate_page(pixels, quads, 180)
            crops = turned(crops)
            rotation += 180
        watch.lap("cls")
        return pixels, quads, crops, rotation, unsure

    def half_turn(self, crops: list[np.ndarray]) -> tuple[bool, bool]:
        """(turn the page, unsure): the classifier's verdict, or, where it is unsure
        (:class:`ClsParams`), no turn yet: recognition reads both ways and :meth:`settle`
        decides, so the one-at-a-time detection stage never waits for recognition."""
        if self.classifier is None:
            return False, False
        turn, p180 = self.classifier.upside_down(crops)
        params = self.classifier.params
        unsure = params.confirm_from <= p180 < params.confirm_to
        return (False, True) if unsure else (turn, False)


def nearest_centre(quads: list[np.ndarray], size: tuple[int, int], most: int) -> list[np.ndarray]:
    """At most ``most`` boxes, those whose middles lie nearest the frame's centre, in their
    order. A page of more lines than any problem needs (a whole book page, or a pattern
    made to cost work: recognition and layout grow with the lines, the layout faster)
    is read round the centre the student aimed at."""
    if len(quads) <= most:
        return quads
    centre = np.array(size, np.float64) / 2
    distance = [float(np.hypot(*(q.mean(axis=0) - centre))) for q in quads]
    nearest = sorted(sorted(range(len(quads)), key=distance.__getitem__)[:most])
    return [quads[i] for i in nearest]


def turned(crops: list[np.ndarray]) -> list[np.ndarray]:
    """The line crops turned 180°."""
    return [cv2.rotate(c, cv2.ROTATE_180) for c in crops]


def int8_detector(fp32: InferenceBackend, model: str, settings: OcrSettings) -> InferenceBackend:
    """The detector in INT8 on ONNX Runtime where ``fp32`` runs on the CPU (an accelerator's
    backend is kept) and this CPU's gate passes (:mod:`appliance.inference.precision_gate`); ``fp32`` itself when the
    INT8 model cannot be built or loaded, or is not faster and as good here."""
    if fp32.name != "onnxruntime-cpu":
        return fp32
    try:
        if settings.int8_dir:
            return _gated_int8(fp32, model, Path(settings.int8_dir), settings)
        with tempfile.TemporaryDirectory(prefix="eduqa-ocr-int8-") as folder:  # ORT keeps the model in memory
            return _gated_int8(fp32, model, Path(folder), settings)
    except Exception as exc:  # quantisation, loading or the gate: any failure keeps the FP32 detector
        log.warning("OCR: INT8 detector unavailable, the FP32 one reads (%s: %s)", type(exc).__name__, exc)
        return fp32


def _gated_int8(fp32: InferenceBackend, model: str, folder: Path, settings: OcrSettings) -> InferenceBackend:
    from appliance.inference.precision_gate import cached_verdict, measure
    from engines.ort_backend import OnnxRuntimeBackend

    path = int8_model(model, folder)
    int8 = OnnxRuntimeBackend(path, threads=settings.threads, use_cuda=False)
    params = DetParams(max_side=settings.det_max_side)
    verdict = cached_verdict(folder, path.stem, lambda: measure(TextDetector(fp32, params),
                                                                TextDetector(int8, params), gate_pages()))
    log.info("OCR: INT8 detector %s on this CPU: %s", "serves" if verdict.serves else "not used", verdict.reason)
    return int8 if verdict.serves else fp32


def bf16_recognizer(fp32: InferenceBackend, model: str, settings: OcrSettings, characters: list[str]) -> InferenceBackend:
    """The recogniser computing in BF16 on OpenVINO where ``fp32`` runs on the CPU, the CPU
    computes BF16 (AVX512-BF16, AMX) and its gate passes (:mod:`appliance.inference.precision_gate`);
    ``fp32`` itself else, or when OpenVINO is missing or fails."""
    if fp32.name != "onnxruntime-cpu":
        return fp32
    try:
        from appliance.inference.precision_gate import cached_verdict, gate_lines, measure_reading
        from engines.openvino_backend import OpenVinoBackend, cpu_computes

        if not cpu_computes("bf16"):
            log.info("OCR: this CPU computes no BF16: the recogniser reads in FP32")
            return fp32
        bf16 = OpenVinoBackend(model, "bf16", streams=settings.rec_threads, threads=max(1, settings.threads))

        def gate():
            fp32_read, bf16_read = (TextRecognizer(b, characters) for b in (fp32, bf16))
            return measure_reading(lambda crops: [r.text for r in fp32_read.read(crops)],
                                   lambda crops: [r.text for r in bf16_read.read(crops)], gate_lines())

        name = f"{Path(model).stem}.bf16-openvino"
        verdict = cached_verdict(Path(settings.int8_dir), name, gate) if settings.int8_dir else gate()
    except Exception as exc:  # OpenVINO missing, compiling or the gate: any failure keeps FP32
        log.warning("OCR: BF16 recogniser unavailable, the FP32 one reads (%s: %s)", type(exc).__name__, exc)
        return fp32
    log.info("OCR: BF16 recogniser %s on this CPU: %s", "serves" if verdict.serves else "not used", verdict.reason)
    return bf16 if verdict.serves else fp32


def _onnxruntime(threads: int) -> BackendFactory:
    from engines.ort_backend import OnnxRuntimeBackend

    def make(role: str, path: str) -> InferenceBackend:
        return OnnxRuntimeBackend(path, threads=threads)

    return make

