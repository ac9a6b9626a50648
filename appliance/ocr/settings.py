"""The OCR step's settings (the ``[ocr]`` section of the appliance config)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from appliance.ocr.errors import OcrError

BACKENDS = ("onnx", "paddleocr")


@dataclass(frozen=True)
class OcrSettings:
    # "onnx": the PP-OCRv6 models bundled in rapidocr, run through engines (default, offline);
    # "paddleocr": a PaddleOCR installation with its models on disk (optional).
    backend: str = "onnx"
    max_bytes: int = 15_000_000  # larger uploads are refused
    max_pixels: int = 40_000_000  # larger images are refused before decoding
    det_max_side: int = 640  # the detector sees the photo shrunk to this longest side
    # A photo with more text lines than this has only those nearest the centre read (a whole
    # book page; a pattern made to cost work: 1,000 lines took 16 s to recognise, 34 s to lay out).
    max_lines: int = 150
    threads: int = 1  # ONNX Runtime intra-op threads (0: all cores); 1 wins on a busy 2-core box
    cache_size: int = 256  # OCR results kept in memory, keyed by the photo's sha256
    min_confidence: float = 0.5  # lines read with less confidence are left out
    use_cls: bool = True  # decide upside-down pages with the angle classifier
    model_dir: str = ""  # folder holding PP-OCR ONNX (or PaddleOCR) models; "" = bundled
    queue_max: int = 48  # photos waiting for the reader beyond this get 503 + Retry-After at once (a class of 40)
    per_client_max: int = 2  # photos of one address waiting or being read at most (more: 503)
    deadline_s: float = 20.0  # a photo not read within this gets 503
    rec_batch_wait_ms: float = 5.0  # recognition waits this long for other photos' lines
    # One photo's recognition batches run on this many threads at once (ONNX Runtime only;
    # 1: one after another). Two cut a worksheet photo's reading time on a 2-core box.
    rec_threads: int = 2
    # With this many photos waiting (0: never), the detector sees the next photo shrunk to
    # ``det_max_side_busy`` (about 0.56 of the work at 480). Off by default since the INT8
    # detector: a burst drained no faster with it, and 480 px misread small print.
    busy_queue: int = 0
    det_max_side_busy: int = 480
    # With this many photos waiting (0: never), a page is read from the frame's centre
    # outwards, band by band, and no further than the problem chosen needs
    # (appliance.ocr.centre_first): half to two thirds of a worksheet page's recognition.
    centre_first_queue: int = 1
    # Run the detector as an INT8 model on the CPU (built once from the FP32 one, ~4× less
    # CPU time on VNNI/AMX; appliance.ocr.det_int8), kept in ``int8_dir``
    # ("": <data_dir>/cache/ocr; with no data dir, a temporary folder per start).
    det_int8: bool = True
    int8_dir: str = ""
    # Run the recogniser in BF16 through OpenVINO (the ``openvino`` extra) where this CPU
    # computes BF16 (AVX512-BF16, AMX) and its gate passes there; the verdict is kept in
    # ``int8_dir`` (appliance.ocr.pipeline.bf16_recognizer). Off by default: one photo alone
    # reads about a fifth faster, but classroom bursts drained no faster (docs/OCR.md).
    rec_bf16: bool = False

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise OcrError(f"ocr.backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.det_max_side < 320 or self.det_max_side % 32:
            raise OcrError("ocr.det_max_side must be a multiple of 32, at least 320")
        if self.max_lines < 1:
            raise OcrError("ocr.max_lines must be at least 1")
        if self.centre_first_queue < 0:
            raise OcrError("ocr.centre_first_queue must be at least 0")
        if self.busy_queue < 0 or (self.det_max_side_busy and (self.det_max_side_busy < 320
                                                              or self.det_max_side_busy % 32)):
            raise OcrError("ocr.busy_queue must be at least 0 and ocr.det_max_side_busy 0 or a multiple "
                           "of 32, at least 320")
        if self.max_bytes < 1 or self.max_pixels < 1 or self.cache_size < 0 or self.threads < 0:
            raise OcrError("ocr.max_bytes and ocr.max_pixels must be positive; ocr.cache_size and "
                           "ocr.threads at least 0")
        if not 1 <= self.rec_threads <= 64:
            raise OcrError("ocr.rec_threads must be between 1 and 64")
        if self.per_client_max < 1:
            raise OcrError("ocr.per_client_max must be at least 1")
        if self.queue_max < 1 or self.deadline_s <= 0 or self.rec_batch_wait_ms < 0:
            raise OcrError("ocr.queue_max must be at least 1, ocr.deadline_s positive and "
                           "ocr.rec_batch_wait_ms at least 0")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise OcrError("ocr.min_confidence must be between 0 and 1")

    @property
    def limits(self):  # -> ImageLimits; imported here to keep this module light
        from appliance.ocr.image import ImageLimits

        return ImageLimits(max_bytes=self.max_bytes, max_pixels=self.max_pixels)

    @classmethod
    def from_config(cls, config: Any) -> OcrSettings:
        """From ``config.ocr`` when the appliance config has that section, else defaults."""
        section = getattr(config, "ocr", None)
        if section is None:
            return cls()
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in dataclasses.asdict(section).items() if k in names}
        cache_dir = getattr(config, "cache_dir", None)
        if not values.get("int8_dir") and cache_dir is not None:
            values["int8_dir"] = str(cache_dir / "ocr")
        return cls(**values)
