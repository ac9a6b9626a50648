"""The OCR step's one entry point: photo bytes in, :class:`OcrResult` out.

    reader = OcrReader.open(OcrSettings.from_config(config))
    result = reader.read(photo_bytes)     # ImageRejected on bad input
    if result.empty: ...                  # blank sheet: log the ask, tell the student
    question = result.text

Results are cached by the sha256 of the photo's bytes (LRU, ``cache_size`` entries):
the same photo sent twice is read once; cache hits do not wait for a read.

Thread-safe and bounded. Detection and orientation run for one photo at a time; the
text-line crops of every photo in flight go to recognition through one micro-batcher, so
one photo's lines are read while the next photo is being detected, and lines of several
photos share recognition calls; the batcher has a worker per recognition thread, so while
photos queue each core recognises its own. While other photos are in flight, a page is
read from the frame's centre outwards and no further than its chosen problem needs
(:mod:`appliance.ocr.centre_first`; ``OcrResult.unread`` counts the lines left). At most ``queue_max`` photos wait for the reader: one
more raises :class:`Overloaded` at once (the API answers 503 + Retry-After), and a photo
not read within ``deadline_s`` raises :class:`DeadlineExceeded`. Waiting photos take
turns fairly between client addresses, weighted by their pixels, and one address has at
most ``per_client_max`` photos waiting or being read (:mod:`appliance.ocr.fair`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from pathlib import Path

from appliance.common.batcher import MicroBatcher

from appliance.ocr.centre_first import CentreFirstParams, plan_reading
from appliance.ocr.errors import OcrBackendUnavailable
from appliance.ocr.fair import FairTurns
from appliance.ocr.image import ImageLimits, check_size, decode_photo, enable_heic, header_pixels, read_photo_file
from appliance.ocr.pipeline import BackendFactory, FoundLines, OcrPipeline, PageText, PpOcrPipeline, turned
from appliance.ocr.rec import PaddedLines, Reading
from appliance.ocr.result import STAGES, OcrResult
from appliance.ocr.settings import OcrSettings

log = logging.getLogger(__name__)


class OcrReader:
    def __init__(self, pipeline: OcrPipeline, limits: ImageLimits = ImageLimits(), cache_size: int = 256,
                 queue_max: int = 48, deadline_s: float = 20.0, rec_batch_wait_ms: float = 5.0,
                 per_client_max: int = 2, busy_queue: int = 0, det_max_side_busy: int = 0,
                 centre_first_queue: int = 0, centre_first: CentreFirstParams | None = None):
        self.pipeline = pipeline
        self.limits = limits
        self.cache_size = cache_size
        self.queue_max = queue_max
        self.deadline_s = deadline_s
        # With ``busy_queue`` or more photos waiting, detect on ``det_max_side_busy`` (0: never).
        self.busy_queue = busy_queue
        self.det_max_side_busy = det_max_side_busy
        # With ``centre_first_queue`` or more other photos in flight (0: never), a page is read
        # from its centre outwards and no further than its framed problem needs (:mod:`centre_first`).
        self.centre_first_queue = centre_first_queue
        self.centre_first = centre_first or CentreFirstParams()
        self._in_flight = 0  # photos between their turn's request and their result
        self._in_flight_lock = threading.Lock()
        self._recognising = 0  # rec batcher workers running a batch
        self._cache: OrderedDict[str, OcrResult] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._turns = FairTurns(queue_max, per_client_max)
        self.heic = enable_heic()
        recognizer = getattr(pipeline, "recognizer", None)
        self.rec_batcher = None if recognizer is None or not hasattr(pipeline, "find_lines") else MicroBatcher(
            # one item a photo's lines, read in batches of that photo alone; as many workers as
            # the recogniser has threads, so photos queued for recognition use every core
            self._recognise, "ocr-rec", max_batch=16, max_wait_ms=rec_batch_wait_ms,
            max_queue=64 * max(1, queue_max), workers=getattr(recognizer, "threads", 1))

    @classmethod
    def open(cls, settings: OcrSettings = OcrSettings(), backend_factory: BackendFactory | None = None) -> OcrReader:
        """``backend_factory(role, path)`` serves the PP-OCR models (the engines manager's);
        None: ONNX Runtime."""
        return cls(open_pipeline(settings, backend_factory), settings.limits, settings.cache_size, settings.queue_max,
                   settings.deadline_s, settings.rec_batch_wait_ms, settings.per_client_max,
                   settings.busy_queue, settings.det_max_side_busy, settings.centre_first_queue)

    @property
    def backend(self) -> str:
        return self.pipeline.name

    @property
    def _waiting(self) -> int:
        """Photos waiting for their turn (not counting the one being read)."""
        return self._turns.waiting

    def read(self, photo: bytes, client: str = "") -> OcrResult:
        """Read the question in one photo (JPEG, PNG, WebP, HEIC) sent from ``client``
        (an address; empty for local callers).

        Raises :class:`ImageRejected` for input that is not a usable photo; a photo with
        no text gives a result whose ``empty`` is true (``require_text()`` raises
        :class:`NoTextFound`)."""
        started = time.perf_counter()
        check_size(photo, self.limits)  # before hashing 200 MB
        sha256 = hashlib.sha256(photo).hexdigest()
        hit = self._cached(sha256)
        if hit is not None:
            ms = round((time.perf_counter() - started) * 1000, 3)
            return dataclasses.replace(hit, cached=True, stage_ms={"cache": ms})
        pixels = header_pixels(photo, self.limits)  # refuses bombs and non-images before queueing
        result = self._read(photo, sha256, time.monotonic() + self.deadline_s, client, pixels)
        self._remember(result)
        return result

    def close(self) -> None:
        if self.rec_batcher is not None:
            self.rec_batcher.close()

    def read_file(self, path: str | Path) -> OcrResult:
        """:meth:`read` for a file; an oversize file is refused from its size alone."""
        return self.read(read_photo_file(path, self.limits))

    def _read(self, photo: bytes, sha256: str, deadline: float, client: str, pixels: int) -> OcrResult:
        with self._in_flight_lock:
            self._in_flight += 1
        try:
            return self._read_in_turn(photo, sha256, deadline, client, pixels)
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1

    def _read_in_turn(self, photo: bytes, sha256: str, deadline: float, client: str, pixels: int) -> OcrResult:
        with self._turns.turn(client, pixels, deadline):  # decoding too: one full-size photo in memory at a time
            started = time.perf_counter()
            image = decode_photo(photo, self.limits)
            decode_ms = round((time.perf_counter() - started) * 1000, 3)
            if self.rec_batcher is None:  # a pipeline read as a whole (PaddleOCR)
                page = self.pipeline.read(image)
            else:
                lines = self.pipeline.find_lines(image, self._det_side())
                centre_first = 0 < self.centre_first_queue <= self._others_in_flight()
        if self.rec_batcher is not None:
            if centre_first and lines.crops and not lines.unsure:
                page = self._read_centre_first(lines, deadline)
            else:
                page = self._read_whole(lines, deadline)
        result = OcrResult(
            text=page.text, confidence=page.confidence, lines=page.lines,
            stage_ms=ordered_stages({"decode": decode_ms, **page.stage_ms}), sha256=sha256,
            backend=self.pipeline.name, rotation=page.rotation, dropped=page.dropped,
            image_size=image.source_size, page_text=page.page_text or page.text, choices=page.choices,
            unread=page.unread, look_alikes=page.look_alikes, evidence=page.evidence,
        )
        log.debug("OCR %s: %d line(s), confidence %.2f, %.0f ms", sha256[:12], len(result.lines),
                  result.confidence, result.total_ms)
        return result

    def _read_whole(self, lines: FoundLines, deadline: float) -> PageText:
        readings = self.rec_batcher.submit(lines.crops, _left(deadline)) if lines.crops else []
        if lines.unsure:  # which way up is told by reading the page both ways
            other_way = self.rec_batcher.submit(turned(lines.crops), _left(deadline))
            lines, readings = self.pipeline.settle(lines, readings, other_way)
        return self.pipeline.finish(lines, readings)

    def _read_centre_first(self, lines: FoundLines, deadline: float) -> PageText:
        """Band after band from the frame's centre (:func:`centre_first.plan_reading`), until
        the problem chosen from what is read is settled (on a page with columns, also chosen
        alike with the band's own rows, as a whole read finds them); the lines never read
        are counted."""
        plan = plan_reading(lines.quads, (lines.pixels.shape[1], lines.pixels.shape[0]), self.centre_first)
        widths = self.pipeline.recognizer.pad_widths(lines.crops)  # each line reads as in a whole read
        readings: dict[int, Reading] = {}
        for number, band in enumerate(plan.bands):
            new = [i for i in band if i not in readings]
            batch = PaddedLines([lines.crops[i] for i in new], [widths[i] for i in new])
            readings.update(zip(new, self.rec_batcher.submit(batch, _left(deadline))))
            read = dataclasses.replace(lines, quads=[lines.quads[i] for i in band],
                                       crops=[lines.crops[i] for i in band])
            gutters = plan.gutters_for(number, {i: reading.text for i, reading in readings.items()})
            boxes = self.pipeline.read_boxes(read, [readings[i] for i in band])
            page = self.pipeline.lay_out(read, boxes, gutters)
            if plan.settled(number, page.lines, page.choices, {i: readings[i].text for i in band}) and not (
                    gutters and self.pipeline.lay_out(read, boxes).text != page.text):  # unsure columns: read on
                return dataclasses.replace(page, unread=len(lines.quads) - len(band))
        raise AssertionError("the last band holds every line and is always settled")

    def _recognise(self, photos: list) -> list:
        """One rec batcher worker's batch of photos. One photo's lines are spread over the
        recogniser's threads only while nothing else runs: no photo being decoded or
        detected, none queued for recognition, no other worker reading."""
        with self._in_flight_lock:
            self._recognising += 1
            alone = self._recognising == 1
        try:
            spread = alone and self._turns.idle and self.rec_batcher.depth == 0
            return self.pipeline.recognizer.read_photos(photos, parallel=spread)
        finally:
            with self._in_flight_lock:
                self._recognising -= 1

    def _others_in_flight(self) -> int:
        """Other photos waiting for their turn, being detected or being recognised."""
        with self._in_flight_lock:
            return self._in_flight - 1

    def _det_side(self) -> int | None:
        """A smaller detector input while a queue of photos waits (a class photographing at once)."""
        busy = self.busy_queue > 0 and self._turns.waiting >= self.busy_queue
        return self.det_max_side_busy if busy and self.det_max_side_busy else None

    def _cached(self, sha256: str) -> OcrResult | None:
        with self._cache_lock:
            hit = self._cache.get(sha256)
            if hit is not None:
                self._cache.move_to_end(sha256)
            return hit

    def _remember(self, result: OcrResult) -> None:
        if self.cache_size <= 0:
            return
        with self._cache_lock:
            self._cache[result.sha256] = result
            self._cache.move_to_end(result.sha256)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def ordered_stages(stages: dict[str, float]) -> dict[str, float]:
    """decode, det, cls, rec, layout first, then any others (PaddleOCR's single stage)."""
    return {**{name: stages[name] for name in STAGES if name in stages}, **stages}


def open_pipeline(settings: OcrSettings, backend_factory: BackendFactory | None = None) -> OcrPipeline:
    if settings.backend == "paddleocr":
        from appliance.ocr.paddle import PaddleOcrPipeline

        return PaddleOcrPipeline.open(settings)
    if settings.backend == "onnx":
        return PpOcrPipeline.open(settings, backend_factory)
    raise OcrBackendUnavailable(f"unknown OCR backend {settings.backend!r}")
