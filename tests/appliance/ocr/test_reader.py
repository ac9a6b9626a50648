"""The OCR reader end to end on generated photos, the blank sheet, and the sha256 cache."""

from __future__ import annotations

import csv
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from appliance.common.batcher import DeadlineExceeded, Overloaded
from appliance.wording.cer import cer
from appliance.ocr.errors import ImageRejected, NoTextFound
from appliance.ocr.reader import OcrReader
from appliance.ocr.result import STAGES
from appliance.ocr.settings import OcrSettings
from tests.appliance.ocr.helpers import CountingPipeline, encode


def truth(folder) -> dict[str, str]:
    with (folder / "truth.csv").open(encoding="utf-8") as fh:
        return {row["qid"]: row["text"] for row in csv.DictReader(fh)}


@pytest.mark.parametrize("index", [0, 3, 7], ids=["upright", "turned-180", "turned-90"])
def test_a_generated_photo_is_read_correctly(reader, photo_set, index):
    qid, text = list(truth(photo_set).items())[index]
    result = reader.read((photo_set / f"{qid}.jpg").read_bytes())
    assert cer(text, result.text) < 0.05, (text, result.text)
    assert result.confidence > 0.8
    assert list(result.stage_ms)[:5] == list(STAGES)
    assert len(result.sha256) == 64 and result.lines
    assert result.rotation == {0: 0, 3: 180, 7: 90}[index]


def test_blank_sheet_is_no_text_found(reader):
    paper = np.full((1200, 1600, 3), 236, np.uint8)
    paper += np.random.default_rng(1).integers(0, 6, paper.shape, dtype=np.uint8)
    result = reader.read(encode(Image.fromarray(paper), "JPEG", quality=80))
    assert result.empty and result.text == "" and result.confidence == 0.0
    with pytest.raises(NoTextFound) as info:
        result.require_text()
    assert info.value.result is result and "No text found" in str(info.value)


def test_the_same_photo_twice_comes_from_the_cache(page_jpeg):
    pipeline = CountingPipeline()
    reader = OcrReader(pipeline)
    first, second = reader.read(page_jpeg), reader.read(page_jpeg)
    assert pipeline.calls == 1
    assert not first.cached and second.cached
    assert second.text == first.text and second.sha256 == first.sha256
    assert set(second.stage_ms) == {"cache"}


def test_cache_is_lru_and_bounded(page_jpeg):
    other = encode(Image.new("RGB", (64, 64), "white"), "PNG")
    pipeline = CountingPipeline()
    reader = OcrReader(pipeline, cache_size=1)
    reader.read(page_jpeg), reader.read(other), reader.read(page_jpeg)
    assert pipeline.calls == 3
    assert OcrReader(CountingPipeline(), cache_size=0).read(page_jpeg).cached is False


def test_rejected_photos_are_not_cached_and_do_not_reach_the_models():
    pipeline = CountingPipeline()
    reader = OcrReader(pipeline)
    for _ in range(2):
        with pytest.raises(ImageRejected):
            reader.read(b"not an image")
    assert pipeline.calls == 0


def test_settings_come_from_the_ocr_section_of_the_appliance_config(tmp_path, monkeypatch):
    from appliance.config import load_config

    monkeypatch.delenv("EDUQA_CONFIG", raising=False)
    toml = tmp_path / "eduqa.toml"
    toml.write_text("[ocr]\ndet_max_side = 736\ncache_size = 5\nthreads = 2\nuse_cls = false\n", encoding="utf-8")
    settings = OcrSettings.from_config(load_config(toml, data_dir=tmp_path))
    assert (settings.det_max_side, settings.cache_size, settings.threads, settings.use_cls) == (736, 5, 2, False)
    assert settings.max_bytes == OcrSettings().max_bytes  # keys left out keep their defaults
    assert OcrSettings.from_config(object()) == OcrSettings()


def test_bad_settings_are_refused():
    from appliance.ocr.errors import OcrError

    with pytest.raises(OcrError, match="ocr.backend"):
        OcrSettings(backend="tesseract")
    with pytest.raises(OcrError, match="det_max_side"):
        OcrSettings(det_max_side=100)


def test_a_200_mb_upload_is_refused_before_hashing_or_decoding(monkeypatch):
    from appliance.ocr import reader as reader_module

    hashed = []
    monkeypatch.setattr(reader_module.hashlib, "sha256", lambda data=b"": hashed.append(len(data)))
    pipeline = CountingPipeline()
    upload = bytes(200_000_000)  # zero pages: cheap to allocate
    with pytest.raises(ImageRejected) as info:
        OcrReader(pipeline).read(upload)
    assert hashed == []
    assert info.value.code == "too_many_bytes" and "200 MB" in str(info.value)
    assert pipeline.calls == 0


class _SlowLinesPipeline:
    """Detection waits for ``release``; every line reads as "x"."""

    name = "slow"

    def __init__(self):
        from appliance.ocr.rec import Reading

        self.release, self.entered = threading.Event(), threading.Event()
        self.recognizer = SimpleNamespace(read_photos=lambda photos, parallel=True: [
            [Reading("x", 1.0) for _ in crops] for crops in photos])
        self.sides: list[int | None] = []

    def find_lines(self, image, det_max_side=None):
        from appliance.ocr.pipeline import FoundLines
        from appliance.ocr.timing import Stopwatch

        self.sides.append(det_max_side)
        self.entered.set()
        self.release.wait(5)
        return FoundLines(image.pixels, [np.zeros((4, 2), np.float32)], [image.pixels[:48]], 0, Stopwatch())

    def finish(self, lines, readings):
        from appliance.ocr.pipeline import PageText

        return PageText("".join(r.text for r in readings), (), 1.0)


def _photo(seed: int) -> bytes:
    return encode(Image.new("RGB", (96, 96), (seed, seed, seed)), "PNG")


def test_photos_beyond_the_queue_are_refused_at_once_and_late_ones_give_up():
    pipeline = _SlowLinesPipeline()
    reader = OcrReader(pipeline, queue_max=1, deadline_s=2.0)  # long enough for a stalled CI box
    first_failed = []

    def first_photo():
        try:
            reader.read(_photo(1))
        except DeadlineExceeded as exc:  # held past its own deadline by the test
            first_failed.append(exc)

    first = threading.Thread(target=first_photo)
    first.start()
    assert pipeline.entered.wait(5)  # photo 1 is being read
    second_failed = []

    def second():
        try:
            reader.read(_photo(2))
        except DeadlineExceeded as exc:
            second_failed.append(exc)

    waiting = threading.Thread(target=second)
    waiting.start()
    deadline = time.monotonic() + 5
    while reader._waiting < 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    with pytest.raises(Overloaded):
        reader.read(_photo(3))  # photo 2 already waits: the queue (1) is full
    waiting.join()
    assert second_failed  # photo 2 gave up at its deadline
    pipeline.release.set()
    first.join()
    assert reader.read(_photo(4)).text == "x"  # the reader recovers
    reader.close()


def test_a_queue_of_photos_is_detected_smaller_until_it_drains():
    pipeline = _SlowLinesPipeline()
    reader = OcrReader(pipeline, queue_max=8, busy_queue=2, det_max_side_busy=480)
    first = threading.Thread(target=reader.read, args=(_photo(1),))
    first.start()
    assert pipeline.entered.wait(5)
    others = [threading.Thread(target=reader.read, args=(_photo(n),)) for n in (2, 3, 4)]
    for t in others:
        t.start()
    deadline = time.monotonic() + 5
    while reader._waiting < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    pipeline.release.set()
    for t in [first, *others]:
        t.join()
    reader.read(_photo(5))  # alone again
    # photo 1 found no queue; the next ones were read with 2 and then 1 waiting behind
    # them (the last of the three with none); photo 5 alone.
    assert pipeline.sides == [None, 480, None, None, None]
    reader.close()


def test_photos_read_at_once_get_the_same_text_as_one_by_one(photo_set):
    from appliance.ocr.reader import open_pipeline

    photos = [(photo_set / f"{qid}.jpg").read_bytes() for qid in list(truth(photo_set))[:4]]
    alone = [OcrReader(open_pipeline(OcrSettings()), cache_size=0).read(p).text for p in photos]
    reader = OcrReader(open_pipeline(OcrSettings()), cache_size=0)
    together: dict[int, str] = {}
    threads = [threading.Thread(target=lambda i=i: together.__setitem__(i, reader.read(photos[i]).text))
               for i in range(len(photos))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reader.close()
    assert [together[i] for i in range(len(photos))] == alone
    assert reader.rec_batcher.stats.items >= len(photos)  # every photo's lines went through the batcher


class _TurnPipeline:
    """Detection waits for a token per photo and records whose photo it is (the grey level
    of the photo's first pixel)."""

    name = "turns"

    def __init__(self):
        from appliance.ocr.rec import Reading

        self.tokens, self.served, self.entered = threading.Semaphore(0), [], threading.Event()
        self.recognizer = SimpleNamespace(read_photos=lambda photos, parallel=True: [
            [Reading("x", 1.0) for _ in crops] for crops in photos])

    def find_lines(self, image, det_max_side=None):
        from appliance.ocr.pipeline import FoundLines
        from appliance.ocr.timing import Stopwatch

        self.served.append(int(image.pixels[0, 0, 0]))
        self.entered.set()
        self.tokens.acquire(timeout=10)
        return FoundLines(image.pixels, [np.zeros((4, 2), np.float32)], [image.pixels[:48]], 0, Stopwatch())

    def finish(self, lines, readings):
        from appliance.ocr.pipeline import PageText

        return PageText("".join(r.text for r in readings), (), 1.0)


def _wait_for(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


def test_one_address_flooding_photos_does_not_block_another_address(tmp_path):  # issue 12, F5
    pipeline = _TurnPipeline()
    reader = OcrReader(pipeline, queue_max=8, deadline_s=10)
    outcomes: dict[str, list] = {"attacker": [], "student": []}

    def send(who, client, grey):
        try:
            outcomes[who].append(reader.read(_photo(grey), client=client).text)
        except Overloaded as exc:
            outcomes[who].append(exc)

    flood = [threading.Thread(target=send, args=("attacker", "10.0.0.66", 10 + i)) for i in range(10)]
    for t in flood:
        t.start()
    assert pipeline.entered.wait(5)
    _wait_for(lambda: sum(isinstance(o, Overloaded) for o in outcomes["attacker"]) + reader._waiting + 1 >= 10)
    queued = reader._waiting  # the attacker's photos waiting behind the one being read
    student = threading.Thread(target=send, args=("student", "10.0.0.7", 200))
    student.start()
    _wait_for(lambda: 200 in pipeline.served or outcomes["student"] or reader._waiting > queued)
    for _ in range(12):
        pipeline.tokens.release()
    student.join()
    for t in flood:
        t.join()
    reader.close()
    assert outcomes["student"] == ["x"], outcomes["student"]
    assert pipeline.served.index(200) <= 1  # right after the photo that was being read
    # past its share of 2, an address is admitted only while under half the queue (8 // 2) waits
    assert sum(isinstance(o, Overloaded) for o in outcomes["attacker"]) >= 10 - (1 + 8 // 2)


def test_one_address_may_pass_its_share_only_while_the_queue_is_under_half_full():
    """A class behind one NAT address fills an idle reader; one sender never holds more than
    half of the queue."""
    from appliance.ocr.fair import ClientOverloaded, FairTurns

    turns = FairTurns(queue_max=8, per_client_max=2)
    gate = threading.Event()
    refused = []

    def photo():
        try:
            with turns.turn("10.0.0.9", 1, time.monotonic() + 5):
                gate.wait(5)
        except ClientOverloaded as exc:
            refused.append(exc)

    threads = []
    for n in range(7):
        threads.append(threading.Thread(target=photo))
        threads[-1].start()
        _wait_for(lambda n=n: turns.waiting + int(turns._busy) + len(refused) >= n + 1)
    assert turns.waiting == 4 and len(refused) == 2  # 1 read + 4 waiting; the 6th and 7th refused
    gate.set()
    for t in threads:
        t.join()


def test_big_photos_cost_their_sender_turns():
    from appliance.ocr.fair import FairTurns

    turns = FairTurns(queue_max=8, per_client_max=8)
    order = []
    gate = threading.Event()

    def hold():
        with turns.turn("first", 1, time.monotonic() + 5):
            gate.wait(5)

    def photo(client, pixels):
        with turns.turn(client, pixels, time.monotonic() + 5):
            order.append(client)

    holder = threading.Thread(target=hold)
    holder.start()
    _wait_for(lambda: turns._busy)
    threads = []
    for client, pixels in [("huge", 40_000_000), ("huge", 40_000_000), ("small", 2_000_000), ("small", 2_000_000)]:
        threads.append(threading.Thread(target=photo, args=(client, pixels)))
        threads[-1].start()
        expected = len(threads)
        _wait_for(lambda n=expected: turns.waiting >= n)
    gate.set()
    for t in [holder, *threads]:
        t.join()
    assert order == ["huge", "small", "small", "huge"]


class _HeldPipeline:
    """Each photo's detection waits for its own event (keyed by the photo's grey level);
    recognition records whether it was allowed to spread over several threads."""

    name = "held"

    def __init__(self, levels):
        from appliance.ocr.rec import Reading

        self.release = {level: threading.Event() for level in levels}
        self.entered = {level: threading.Event() for level in levels}
        self.parallel: list[bool] = []
        self.recognizer = SimpleNamespace(read_photos=lambda photos, parallel=True: (
            self.parallel.append(parallel), [[Reading("x", 1.0) for _ in crops] for crops in photos])[1])

    def find_lines(self, image, det_max_side=None):
        from appliance.ocr.pipeline import FoundLines
        from appliance.ocr.timing import Stopwatch

        level = int(image.pixels[0, 0, 0])
        self.entered[level].set()
        self.release[level].wait(5)
        return FoundLines(image.pixels, [np.zeros((4, 2), np.float32)], [image.pixels[:48]], 0, Stopwatch())

    def finish(self, lines, readings):
        from appliance.ocr.pipeline import PageText

        return PageText("".join(r.text for r in readings), (), 1.0)


def test_a_photos_lines_spread_over_cores_only_while_no_other_photo_is_detected():
    pipeline = _HeldPipeline((1, 2))
    # recognition waits 300 ms for company, so photo 2 is in detection when photo 1's lines run
    reader = OcrReader(pipeline, cache_size=0, rec_batch_wait_ms=300)
    first = threading.Thread(target=reader.read, args=(_photo(1),))
    second = threading.Thread(target=reader.read, args=(_photo(2),))
    first.start()
    assert pipeline.entered[1].wait(5)
    second.start()
    _wait_for(lambda: reader._waiting == 1)
    pipeline.release[1].set()  # photo 1's lines go to recognition while photo 2 is detected
    assert pipeline.entered[2].wait(5)
    first.join(5)
    pipeline.release[2].set()  # photo 2's lines: no other photo in the reader
    second.join(5)
    reader.close()
    assert pipeline.parallel == [False, True]


class _LinesByWidth:
    """A recogniser that knows each line of a stub page by its crop's width."""

    threads = 1
    backend = SimpleNamespace(name="stub")

    def __init__(self, texts: dict[int, str]):
        self.texts = texts
        self.widths_read: list[int] = []

    def pad_widths(self, crops):
        return [c.shape[1] for c in crops]

    def read_photos(self, photos, parallel=True):
        from appliance.ocr.rec import PaddedLines, Reading

        out = []
        for lines in photos:
            crops = lines.crops if isinstance(lines, PaddedLines) else lines
            self.widths_read += [c.shape[1] for c in crops]
            out.append([Reading(self._text(c.shape[1]), 0.95) for c in crops])
        return out

    def _text(self, width: int) -> str:
        return self.texts[min(self.texts, key=lambda w: abs(w - width))]


class _HeldDetector:
    """Thirteen one-line problems down a 1000×1400 page; the first photo's detection waits for ``release``."""

    def __init__(self):
        from appliance.ocr.det import Detection

        self.release, self.entered = threading.Event(), threading.Event()
        self.calls = 0
        self.detections = [Detection(np.array([[100, y], [700 + 10 * i, y], [700 + 10 * i, y + 40], [100, y + 40]],
                                              np.float32), 0.9) for i, y in enumerate(range(60, 1360, 100))]

    def detect(self, pixels, max_side=None):
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            self.release.wait(5)
        return self.detections


def _worksheet_reader():
    from appliance.ocr.pipeline import PpOcrPipeline

    detector = _HeldDetector()
    texts = {round(48 * (600 + 10 * i) / 40): f"{i + 1}. 第{i + 1}题的答案是多少？" for i in range(13)}
    recognizer = _LinesByWidth(texts)
    reader = OcrReader(PpOcrPipeline(detector, None, recognizer), cache_size=0, centre_first_queue=1)
    return reader, detector, recognizer


def _page(seed: int) -> bytes:
    return encode(Image.new("RGB", (1000, 1400), (230, 230, 230 - seed)), "PNG")


def test_a_photo_read_while_another_is_in_flight_is_read_from_the_centre_and_chooses_as_a_whole_read():
    reader, detector, recognizer = _worksheet_reader()
    first: list = []
    one = threading.Thread(target=lambda: first.append(reader.read(_page(1))))
    one.start()
    assert detector.entered.wait(5)
    two = threading.Thread(target=reader.read, args=(_page(2),))
    two.start()
    _wait_for(lambda: reader._turns.waiting == 1)  # photo 2 is in flight while photo 1 is detected
    detector.release.set()
    one.join()
    two.join()
    recognizer.widths_read.clear()
    alone = reader.read(_page(3))  # nothing else in flight: read whole
    assert len(recognizer.widths_read) == 13 and alone.unread == 0
    assert alone.text == "第7题的答案是多少？"  # the problem at the frame's centre
    centre_first = first[0]
    assert centre_first.text == alone.text and centre_first.unread > 0
    assert len(centre_first.page_text.splitlines()) == 13 - centre_first.unread
    reader.close()


def test_centre_first_reading_can_be_turned_off():
    reader, detector, recognizer = _worksheet_reader()
    reader.centre_first_queue = 0
    detector.release.set()
    reader._others_in_flight = lambda: 5  # a busy reader
    assert reader.read(_page(1)).unread == 0 and len(recognizer.widths_read) == 13
    reader.close()


def test_a_photo_of_a_thousand_short_lines_is_read_round_its_centre_only(reader):
    """A page made to cost work (a grid of short words: 1,000 lines once took 16 s to
    recognise and 34 s to lay out, holding a core from every other student): only the
    ``max_lines`` lines nearest the centre are read; the rest count as dropped."""
    import cv2

    page = np.full((1200, 1600, 3), 255, np.uint8)
    for y in range(0, 1200, 24):
        for x in range(0, 1600, 80):
            cv2.putText(page, "ab 12", (x + 5, y + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 2)
    result = reader.read(encode(Image.fromarray(page), "PNG"))
    assert result.dropped >= 800
    assert len(result.page_text.split()) <= 2 * OcrSettings().max_lines  # "ab 12": two words a line


def _centre_first_read_with_gutters(monkeypatch, columns_change_choice: bool):
    """Photo 1 of a busy reader, its plan given a gutter; a band laid out in columns
    chooses otherwise than laid out as found in its lines when ``columns_change_choice``."""
    import dataclasses

    import appliance.ocr.reader as reader_module
    from appliance.ocr.centre_first import ReadingPlan

    planned = reader_module.plan_reading
    monkeypatch.setattr(reader_module, "plan_reading",
                        lambda *a, **k: dataclasses.replace(planned(*a, **k), gutters=((20.0, 60.0),)))
    monkeypatch.setattr(ReadingPlan, "gutters_for",
                        lambda plan, band, read=None: plan.gutters if band < len(plan.bands) - 1 else None)
    reader, detector, recognizer = _worksheet_reader()
    lay_out = reader.pipeline.lay_out

    def lay_out_in_columns(page, boxes, gutters=None):
        laid_out = lay_out(page, boxes, gutters)
        return dataclasses.replace(laid_out, text="另一道题？") if gutters and columns_change_choice else laid_out

    monkeypatch.setattr(reader.pipeline, "lay_out", lay_out_in_columns)
    monkeypatch.setattr(reader, "_others_in_flight", lambda: 5)
    detector.release.set()
    detector.calls = 1
    result = reader.read(_page(1))
    reader.close()
    return result


def test_a_band_whose_choice_hangs_on_unsure_columns_is_read_on(monkeypatch):
    """The gutters of a page read in part are found before most of it is read; where the
    band's problem differs with and without them, the page is read on (here: to the end)."""
    result = _centre_first_read_with_gutters(monkeypatch, columns_change_choice=True)
    assert result.unread == 0 and result.text == "第7题的答案是多少？"


def test_a_band_that_chooses_alike_with_and_without_columns_stops_early(monkeypatch):
    result = _centre_first_read_with_gutters(monkeypatch, columns_change_choice=False)
    assert result.unread > 0 and result.text == "第7题的答案是多少？"
