"""The pipeline's pieces without the models: geometry, DB post-processing, CTC decoding, batching."""

import threading

import numpy as np
import pytest

from appliance.ocr.cls import is_sideways
from appliance.ocr.det import DetParams, TextDetector
from appliance.ocr.geometry import crop_line, order_quad, quad_size, rotate_page
from appliance.ocr.rec import PaddedLines, Reading, RecParams, TextRecognizer, plan_batches, with_ring_nearly_read


class FakeBackend:
    name = "fake"
    input_names = ("x",)
    output_names = ("y",)

    def __init__(self, output=None):
        self.output = output
        self.batches = []

    def run(self, feeds):
        self.batches.append(feeds["x"].shape)
        return {"y": self.output(feeds["x"]) if callable(self.output) else self.output}


def test_order_quad_starts_top_left_clockwise():
    shuffled = np.array([[10, 50], [200, 10], [10, 10], [200, 50]], np.float32)
    assert order_quad(shuffled).tolist() == [[10, 10], [200, 10], [200, 50], [10, 50]]


def test_rotate_page_carries_boxes_with_the_pixels():
    image = np.zeros((100, 200, 3), np.uint8)
    image[10:20, 30:80] = 255
    quad = np.array([[30, 10], [79, 10], [79, 19], [30, 19]], np.float32)
    for degrees in (90, 180, 270):
        turned, (moved,) = rotate_page(image, [quad], degrees)
        x0, y0 = moved.min(axis=0).astype(int)
        x1, y1 = moved.max(axis=0).astype(int)
        assert turned[y0:y1 + 1, x0:x1 + 1].min() == 255, degrees
        assert turned.sum() == image.sum()


def test_crop_line_is_48_rows_and_keeps_aspect():
    image = np.full((300, 400, 3), 255, np.uint8)
    quad = np.array([[50, 100], [350, 100], [350, 160], [50, 160]], np.float32)
    assert crop_line(image, quad, 48).shape == (48, 240, 3)


def test_sideways_pages_are_told_by_box_shape():
    wide = np.array([[0, 0], [300, 0], [300, 40], [0, 40]], np.float32)
    tall = np.array([[0, 0], [40, 0], [40, 300], [0, 300]], np.float32)
    assert not is_sideways([wide, wide, tall])
    assert is_sideways([tall, tall])


def test_db_postprocess_finds_the_text_region_in_photo_pixels():
    prob = np.zeros((1, 1, 480, 640), np.float32)
    prob[0, 0, 100:120, 100:400] = 0.9  # shrunk text kernel, detector pixels
    detector = TextDetector(FakeBackend(prob), DetParams(max_side=640))
    found = detector.detect(np.zeros((1200, 1600, 3), np.uint8))
    assert len(found) == 1
    (x0, y0), (x1, y1) = found[0].quad.min(axis=0), found[0].quad.max(axis=0)
    # ×2.5 to photo pixels, grown by the unclip distance 299×19×1.6 / (2×318) ≈ 14.3
    assert 200 < x0 < 230 and 1020 < x1 < 1045
    assert 200 < y0 < 230 and 320 < y1 < 345
    assert found[0].score > 0.8


def bent_line(prob, x0=60, x1=420, top=200, sag=18, thick=8, gaps=()):
    """A text line's kernel bowed by a curled page: a parabola ``sag`` px deep."""
    for x in range(x0, x1):
        t = (x - x0) / (x1 - x0)
        y = top + 4 * sag * t * (1 - t)
        prob[0, 0, round(y): round(y) + thick, x] = 0.35 if x in gaps else 0.9


def test_a_line_bent_by_the_page_curl_is_found_as_straight_pieces():
    prob = np.zeros((1, 1, 480, 640), np.float32)
    bent_line(prob)
    found = TextDetector(FakeBackend(prob), DetParams(max_side=640)).detect(np.zeros((1200, 1600, 3), np.uint8))
    assert len(found) >= 2  # one rectangle round the whole bow scored under box_thresh: nothing was read
    for piece in found:
        across = min(quad_size(piece.quad)) / 2.5  # detector pixels; unclip adds about 2 × 6.4
        assert across < 32, "each piece is about a line high (9 + 2 × 8 grown), not the bow (45)"
        assert piece.score > 0.6
    spans = sorted((q.quad[:, 0].min() / 2.5, q.quad[:, 0].max() / 2.5) for q in (d for d in found))
    assert spans[0][0] < 60 and spans[-1][1] > 419  # the whole line, ends grown as before
    overlaps = [a[1] - b[0] for a, b in zip(spans, spans[1:])]
    assert all(-1 <= o <= 8 for o in overlaps), overlaps  # pieces meet; no character read twice


def test_a_bent_line_is_cut_at_the_gaps_between_its_characters():
    prob = np.zeros((1, 1, 480, 640), np.float32)
    gaps = set(range(178, 181)) | set(range(298, 301))  # weaker columns near the thirds
    bent_line(prob, gaps=gaps)
    found = TextDetector(FakeBackend(prob), DetParams(max_side=640)).detect(np.zeros((1200, 1600, 3), np.uint8))
    assert len(found) == 3
    ends = sorted(d.quad[:, 0].max() / 2.5 for d in found)[:2]
    assert all(min(abs(e - g) for g in (179, 299)) < 4 for e in ends), ends


def test_a_straight_line_at_a_slant_stays_one_box():
    prob = np.zeros((480, 640), np.float32)
    import cv2
    cv2.line(prob, (60, 300), (420, 240), 0.9, thickness=8)
    detector = TextDetector(FakeBackend(prob[None, None]), DetParams(max_side=640))
    assert len(detector.detect(np.zeros((1200, 1600, 3), np.uint8))) == 1


def test_nothing_above_threshold_means_no_boxes():
    detector = TextDetector(FakeBackend(np.full((1, 1, 480, 640), 0.1, np.float32)))
    assert detector.detect(np.zeros((1200, 1600, 3), np.uint8)) == []


def one_hot(indices, classes=5, p=0.9):
    probs = np.full((len(indices), classes), (1 - p) / (classes - 1), np.float32)
    probs[np.arange(len(indices)), indices] = p
    return probs


def test_ctc_collapses_repeats_and_drops_blanks():
    rec = TextRecognizer(FakeBackend(), ["<blank>", "a", "b", "c", " "])
    reading = rec.decode(one_hot([0, 1, 1, 0, 1, 2, 2, 0, 4, 3, 0]))
    assert reading.text == "aab c"
    assert abs(reading.confidence - 0.9) < 1e-6
    assert rec.decode(one_hot([0, 0, 0])).text == ""


def test_a_character_whose_runner_up_came_close_has_it_as_a_look_alike():
    rec = TextRecognizer(FakeBackend(), ["<blank>", "g", "q", "o", "l"])
    probs = one_hot([4, 0, 3, 0, 2])  # "loq"
    probs[4] = [0.0, 0.3, 0.7, 0.0, 0.0]  # q, with g close behind
    probs[2] = [0.4, 0.0, 0.0, 0.6, 0.0]  # o, or perhaps nothing: the blank is no look-alike
    probs[0] = [0.0, 0.0, 0.0, 0.1, 0.9]  # l, o far behind
    reading = rec.decode(probs)
    assert reading.text == "loq" and reading.look_alikes == (("q", "g"),)
    assert rec.decode(one_hot([4, 0, 3])).look_alikes == ()


def test_a_character_that_came_close_where_the_blank_won_is_kept_as_perhaps_dropped():
    rec = TextRecognizer(FakeBackend(), ["<blank>", "a", "n", "}", "{"])
    probs = one_hot([4, 1, 0, 0, 3])  # "{a}" with two blank steps between a and }
    probs[2] = [0.55, 0.05, 0.4, 0.0, 0.0]  # the lowered n nearly read
    probs[3] = [0.6, 0.35, 0.05, 0.0, 0.0]  # a's tail: the character before is no dropped one
    reading = rec.decode(probs)
    assert reading.text == "{a}" and reading.look_alikes == (("", "n"),)


def test_a_ring_nearly_read_before_a_lines_first_character_is_its_label():
    rec = TextRecognizer(FakeBackend(), ["<blank>", "求", "⑪", "①", "2"])
    probs = one_hot([0, 0, 0, 1, 0, 4])  # 「求2」
    probs[1] = [0.43, 0.0, 0.34, 0.23, 0.0]  # ⑪ nearly read where the blank won
    assert with_ring_nearly_read(rec.decode(probs)).text == "⑪求2"
    assert with_ring_nearly_read(rec.decode(probs)).steps == (1, 3, 5)
    probs[1] = [0.8, 0.0, 0.12, 0.08, 0.0]  # a faint trace: no label
    assert with_ring_nearly_read(rec.decode(probs)).text == "求2"
    probs = one_hot([0, 1, 0, 0, 4])  # a ring after the first character is none of its label
    probs[2] = [0.5, 0.0, 0.5, 0.0, 0.0]
    assert with_ring_nearly_read(rec.decode(probs)).text == "求2"
    assert with_ring_nearly_read(Reading("", 0.0)).text == ""


def test_each_step_keeps_its_likely_classes_for_the_search_to_weigh():
    rec = TextRecognizer(FakeBackend(), ["<blank>", "t", "l", "a"], RecParams(odds_least=0.05))
    probs = np.array([[0.0, 0.0, 0.0, 1.0],  # a, sure: only its best is kept
                      [0.96, 0.04, 0.0, 0.0],  # the blank; t below the least share is left out
                      [0.1, 0.6, 0.3, 0.0]], np.float32)  # t, l behind it, the blank last
    reading = rec.decode(probs)
    assert reading.text == "at"
    assert reading.odds == ((("a", 1.0),), (("", pytest.approx(0.96)),),
                            (("t", pytest.approx(0.6)), ("l", pytest.approx(0.3)), ("", pytest.approx(0.1))))


def test_recognition_is_batched_and_answers_in_input_order():
    crops = [np.zeros((48, w, 3), np.uint8) for w in (400, 80, 410, 90)]

    def fake_output(batch):  # "W" for a batch of wide crops, "N" for a narrow one
        out = np.full((batch.shape[0], batch.shape[3] // 8, 3), 0.1, np.float32)
        out[:, 0, 1 if batch.shape[3] >= 400 else 2] = 1.0
        return out

    backend = FakeBackend(fake_output)
    readings = TextRecognizer(backend, ["<blank>", "W", "N"], RecParams(min_width=0)).read(crops)
    assert [r.text for r in readings] == ["W", "N", "W", "N"]
    assert backend.batches == [(2, 3, 48, 410), (2, 3, 48, 90)]


def test_batches_keep_padding_small():
    assert plan_batches([1000, 100, 980, 120, 200], RecParams(max_padding=0.25)) == [[0, 2], [4, 3], [1]]
    assert plan_batches([100] * 5, RecParams(max_batch=2)) == [[0, 1], [2, 3], [4]]


def test_with_two_threads_one_photos_lines_make_at_least_two_batches():
    assert plan_batches([100] * 6, RecParams(), threads=2) == [[0, 1, 2], [3, 4, 5]]
    assert plan_batches([100] * 40, RecParams(max_batch=16), threads=2)[0] == list(range(16))
    assert plan_batches([100], RecParams(), threads=2) == [[0]]


class ThreadSafeBackend(FakeBackend):
    thread_safe = True

    def __init__(self, output):
        super().__init__(output)
        self.threads = set()
        self.gate = threading.Barrier(2, timeout=5)

    def run(self, feeds):
        self.threads.add(threading.get_ident())
        self.gate.wait()  # both batches must be running at once to pass
        return super().run(feeds)


def test_batches_run_at_once_on_a_thread_safe_backend_and_answer_in_order():
    crops = [np.zeros((48, w, 3), np.uint8) for w in (400, 80, 410, 90)]

    def fake_output(batch):
        out = np.full((batch.shape[0], batch.shape[3] // 8, 3), 0.1, np.float32)
        out[:, 0, 1 if batch.shape[3] >= 400 else 2] = 1.0
        return out

    backend = ThreadSafeBackend(fake_output)
    readings = TextRecognizer(backend, ["<blank>", "W", "N"], RecParams(min_width=0, threads=2, parallel_min=2)).read(crops)
    assert [r.text for r in readings] == ["W", "N", "W", "N"]
    assert len(backend.threads) == 2


class RecordingThreadSafeBackend(FakeBackend):
    thread_safe = True


def test_a_call_of_few_lines_or_one_told_not_to_spread_stays_on_one_thread():
    crops = [np.zeros((48, 100, 3), np.uint8)] * 4
    backend = RecordingThreadSafeBackend(lambda b: np.full((b.shape[0], b.shape[3] // 8, 3), 0.1, np.float32))

    def batches(params, **kwargs):
        backend.batches.clear()
        TextRecognizer(backend, ["<blank>", "W"], params).read(crops, **kwargs)
        return sorted(shape[0] for shape in backend.batches)

    assert batches(RecParams(min_width=0, threads=2, parallel_min=4)) == [2, 2]  # spread
    assert batches(RecParams(min_width=0, threads=2, parallel_min=5)) == [4]  # too few lines
    # cores busy: the same batches, one after the other (a photo reads the same whatever the load)
    assert batches(RecParams(min_width=0, threads=2, parallel_min=4), parallel=False) == [2, 2]


def _width_dependent(batch):
    """"W" where the batch is padded to 340 columns or more, "N" below: a reading that
    depends on the batch, as a real recogniser's does a little."""
    out = np.full((batch.shape[0], batch.shape[3] // 8, 3), 0.1, np.float32)
    out[:, 0, 1 if batch.shape[3] >= 340 else 2] = 1.0
    return out


def test_a_photo_reads_the_same_whatever_is_read_with_it_and_whatever_the_load():
    mine = [np.zeros((48, w, 3), np.uint8) for w in (300, 310, 320, 330, 340, 350)]
    wide = [np.zeros((48, 420, 3), np.uint8)]
    rec = TextRecognizer(RecordingThreadSafeBackend(_width_dependent), ["<blank>", "W", "N"],
                         RecParams(min_width=0, threads=2, parallel_min=4))
    alone = [r.text for r in rec.read(mine)]
    assert alone == ["N", "N", "N", "W", "W", "W"]  # two batches: 300–320 and 330–350 wide
    assert [r.text for r in rec.read_photos([wide, mine])[1]] == alone  # another photo in the same call
    assert [r.text for r in rec.read(mine, parallel=False)] == alone  # the cores busy
    assert [r.text for r in rec.read_photos([wide, mine])[0]] == ["W"]


def test_a_photo_read_part_by_part_at_its_pad_widths_reads_as_it_does_whole():
    mine = [np.zeros((48, w, 3), np.uint8) for w in (300, 310, 320, 330, 340, 350)]
    rec = TextRecognizer(RecordingThreadSafeBackend(_width_dependent), ["<blank>", "W", "N"],
                         RecParams(min_width=0, threads=2, parallel_min=4))
    alone = [r.text for r in rec.read(mine)]
    widths = rec.pad_widths(mine)
    assert widths == [320, 320, 320, 350, 350, 350]
    got = {}
    for part in ([0, 3], [1, 2, 4, 5]):  # the centre first, then the rest
        readings = rec.read_photos([PaddedLines([mine[i] for i in part], [widths[i] for i in part])])[0]
        got.update(zip(part, (r.text for r in readings)))
    assert [got[i] for i in range(6)] == alone
    assert rec.read([mine[0], mine[4]])[0].text == "W"  # unpadded, line 0 would read otherwise...
    assert rec.read([mine[3]])[0].text == "N"  # ...and so would line 3 (330 wide, 350 in a whole read)


def test_a_backend_that_does_not_say_it_is_thread_safe_runs_one_batch_at_a_time():
    assert TextRecognizer(FakeBackend(), ["<blank>"], RecParams(threads=4)).threads == 1


class StubDetector:
    def __init__(self, detections):
        self.detections = detections

    def detect(self, pixels, max_side=None):
        return self.detections


class CountingRecognizer:
    def __init__(self):
        self.crops = []

    def read(self, crops):
        self.crops.extend(crops)
        return [Reading(f"第{i}行文字", 0.95) for i in range(len(crops))]


def test_lines_cut_by_the_frame_are_not_sent_to_recognition():
    from appliance.ocr.det import Detection
    from appliance.ocr.image import DecodedImage
    from appliance.ocr.pipeline import PpOcrPipeline

    def line(y, h):
        return Detection(np.array([[100, y], [700, y], [700, y + h], [100, y + h]], np.float32), 0.9)

    detections = [line(0, 20), line(300, 40), line(360, 40), line(1180, 19)]
    recognizer = CountingRecognizer()
    pipeline = PpOcrPipeline(StubDetector(detections), None, recognizer)
    page = pipeline.read(DecodedImage(np.full((1200, 1600, 3), 230, np.uint8), (1600, 1200), "JPEG"))
    assert len(recognizer.crops) == 2  # only the two whole lines were read
    assert page.dropped == 2  # still counted as dropped, as when they were read and then dropped
    assert page.text == "第0行文字第1行文字"


def test_a_page_of_more_lines_than_max_lines_is_read_round_its_centre():
    from appliance.ocr.det import Detection
    from appliance.ocr.image import DecodedImage
    from appliance.ocr.pipeline import PpOcrPipeline, nearest_centre

    def box(x, y):
        return np.array([[x, y], [x + 100, y], [x + 100, y + 30], [x, y + 30]], np.float32)

    grid = [box(40 + 150 * c, 100 + 50 * r) for r in range(20) for c in range(10)]  # 200 lines
    recognizer = CountingRecognizer()
    pipeline = PpOcrPipeline(StubDetector([Detection(q, 0.9) for q in grid]), None, recognizer, max_lines=150)
    page = pipeline.read(DecodedImage(np.full((1200, 1600, 3), 230, np.uint8), (1600, 1200), "JPEG"))
    assert len(recognizer.crops) == 150 and page.dropped == 50
    kept = nearest_centre(grid, (1600, 1200), 150)
    assert any(q is grid[10 * 10 + 5] for q in kept)  # beside the centre
    assert not any(q is grid[0] or q is grid[-1] for q in kept)  # the corners
    assert nearest_centre(grid, (1600, 1200), 200) == grid
