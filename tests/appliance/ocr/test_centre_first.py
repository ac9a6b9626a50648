"""Centre-first reading's plan: bands from the frame's centre, and when a choice is settled."""

from __future__ import annotations

import numpy as np

from appliance.ocr.centre_first import CentreFirstParams, plan_reading
from appliance.ocr.result import OcrLine

SIZE = (1000, 1400)


def _quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _rows(lefts=((100, 900),), top=60, step=100, count=13):
    return [_quad(x0, y, x1, y + 40) for y in range(top, top + step * count, step) for x0, x1 in lefts]


def _line(quad) -> OcrLine:
    return OcrLine("text", 0.9, tuple((float(x), float(y)) for x, y in quad))


def test_bands_grow_from_the_centre_and_the_last_holds_every_line():
    quads = _rows()
    plan = plan_reading(quads, SIZE)
    assert len(plan.bands) > 2 and plan.bands[-1] == tuple(range(13))
    for inner, outer in zip(plan.bands, plan.bands[1:]):
        assert set(inner) < set(outer)
    first = [float(quads[i][:, 1].mean()) for i in plan.bands[0]]
    assert all(abs(y - 700) <= 0.15 * 1400 for y in first)
    outside = [i for i in range(13) if i not in plan.bands[0]]
    assert all(abs(float(quads[i][:, 1].mean()) - 700) > 0.15 * 1400 for i in outside)


def test_a_page_with_columns_is_read_whole():
    plan = plan_reading(_rows(lefts=((60, 440), (560, 940))), SIZE)
    assert plan.bands == (tuple(range(26)),)


def test_a_choice_is_settled_with_two_read_rows_above_and_below_it():
    quads = _rows(top=70)
    plan = plan_reading(quads, SIZE)
    centre = quads[6]  # the row at the frame's centre; band 0 holds rows 4-8
    assert set(plan.bands[0]) == {4, 5, 6, 7, 8}
    assert plan.settled(0, (_line(centre),), ())
    assert not plan.settled(0, (_line(quads[6]), _line(quads[7])), ())  # one read row below it
    assert not plan.settled(0, (_line(centre),), ("a", "b"))  # the student is to choose: read on
    assert not plan.settled(0, (), ())
    assert plan.settled(len(plan.bands) - 1, (_line(quads[12]),), ())  # everything is read
    strict = plan_reading(quads, SIZE, CentreFirstParams(rows_beyond=3))
    assert not strict.settled(0, (_line(centre),), ())


def test_a_choice_at_the_top_of_the_page_waits_for_the_whole_page():
    quads = _rows(top=70)
    plan = plan_reading(quads, SIZE)
    assert not any(plan.settled(k, (_line(quads[0]),), ()) for k in range(len(plan.bands) - 1))
