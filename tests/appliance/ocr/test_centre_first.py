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
    assert plan.bands[0] == (4, 5, 6, 7, 8)  # the row at the centre (6), two rows each side
    assert plan.bands[1] == (3, 4, 5, 6, 7, 8, 9)


def test_bands_are_counted_in_rows_whatever_the_print_size():
    """Large print (rows 200 px apart) and small (50 px): the first band holds five rows of
    either; in shares of the frame's height it would hold two of one and 13 of the other."""
    for step, count in ((200, 7), (50, 27)):
        quads = [_quad(100, y, 900, y + 0.4 * step) for y in range(700 - step * (count // 2), 1400, step)][:count]
        band = plan_reading(quads, SIZE).bands[0]
        assert len(band) == 5, step


def test_a_page_of_very_many_lines_is_read_whole():
    """Each band is laid out anew, and the layout is quadratic in lines: past ``max_lines``
    reading part of a dense page (or a photo of noise) would cost more than it saves."""
    quads = _rows(lefts=tuple((x, x + 80) for x in range(0, 1000, 100)))  # 13 rows of 10
    assert len(plan_reading(quads, SIZE, CentreFirstParams(max_lines=130)).bands) > 2
    assert plan_reading(quads, SIZE).bands == (tuple(range(130)),)  # the default: 100


def test_a_page_with_columns_gives_each_band_but_the_last_its_gutter():
    plan = plan_reading(_rows(lefts=((60, 440), (560, 940))), SIZE)
    assert len(plan.bands) > 2 and plan.bands[-1] == tuple(range(26))
    (start, end), = plan.gutters
    assert 440 <= start < end <= 560
    assert plan.gutters_for(0) == plan.gutters and plan.gutters_for(len(plan.bands) - 1) is None
    assert plan_reading(_rows(), SIZE).gutters_for(0) is None  # one column: found as in any read


def test_a_band_of_a_two_column_page_is_laid_out_in_its_columns():
    """A few rows of a two-column page, read alone, show no gutter (too few rows to tell
    columns from words spaced apart), so their rows would run across both columns; given
    the page's gutter, each column's problem keeps its own two lines."""
    from appliance.ocr.layout import TextBox
    from appliance.ocr.page import arrange_page

    boxes = []
    for k in range(6):  # problems of two 60-px lines, an 80-px gutter between the columns
        y = 60 + 250 * k
        for side, (x0, x1) in (("左", (60, 460)), ("右", (540, 940))):
            number = 2 * k + (1 if side == "左" else 2)
            boxes.append(TextBox(f"{number}. {side}栏第{number}题第一行", 0.95, _quad(x0, y, x1, y + 60)))
            boxes.append(TextBox(f"{side}栏第{number}题第二行？", 0.95, _quad(x0, y + 70, x1, y + 130)))
    plan = plan_reading([b.quad for b in boxes], SIZE, CentreFirstParams(rows_out=(1, 3)))
    read = [boxes[i] for i in plan.bands[0]]
    problems = arrange_page(read, SIZE, gutters=plan.gutters_for(0)).page_text.splitlines()
    assert len(problems) >= 4 and all(("左" in p) != ("右" in p) for p in problems)  # one column each
    across = arrange_page(read, SIZE).page_text.splitlines()  # the band's own rows: no gutter seen
    assert any("左" in p and "右" in p for p in across)


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


def _options_page():
    """Problems with short stems and their options set out in four places across the
    page: from the boxes alone, the "D" options look like a column of their own."""
    from appliance.ocr.layout import TextBox

    boxes = []
    for k in range(7):
        y = 60 + 190 * k
        boxes.append(TextBox(f"{k + 1}. 第{k + 1}题是哪一个？", 0.95, _quad(60, y, 560, y + 40)))
        for letter, (x0, x1) in zip("ABCD", ((100, 190), (330, 420), (560, 650), (840, 930))):
            boxes.append(TextBox(f"{letter}、{k + 2}", 0.95, _quad(x0, y + 70, x1, y + 110)))
    return boxes


def test_a_gutter_seen_in_the_boxes_alone_is_checked_against_what_was_read():
    """Read as a whole the page has no columns (the "D" options go with the options to
    their left); the plan's gutter, found before anything was read, is dropped once the
    band's options are read, as the whole read would have it."""
    from appliance.ocr.blocks import BlockParams, page_gutters

    boxes = _options_page()
    plan = plan_reading([b.quad for b in boxes], SIZE, CentreFirstParams(rows_out=(1, 3)))
    assert plan.gutters  # the boxes alone: a gutter before the "D" options
    assert page_gutters(boxes, 40.0, BlockParams()) == ()  # the whole read: none
    read = {i: boxes[i].text for i in plan.bands[0]}
    assert plan.gutters_for(0, read) is None
    assert plan.gutters_for(0) == plan.gutters  # nothing read yet: the boxes' gutter


def test_a_real_gutter_stays_when_its_band_is_read():
    boxes = []
    for k in range(6):
        y = 60 + 250 * k
        for side, (x0, x1) in (("左", (60, 460)), ("右", (540, 940))):
            boxes.append(_text_box(f"{2 * k + 1}. {side}栏的题目第一行", _quad(x0, y, x1, y + 60)))
            boxes.append(_text_box(f"{side}栏的题目第二行？", _quad(x0, y + 70, x1, y + 130)))
    plan = plan_reading([b.quad for b in boxes], SIZE, CentreFirstParams(rows_out=(1, 3)))
    read = {i: boxes[i].text for i in plan.bands[0]}
    assert plan.gutters and plan.gutters_for(0, read) == plan.gutters


def _text_box(text, quad):
    from appliance.ocr.layout import TextBox

    return TextBox(text, 0.95, quad)


def test_a_mark_in_the_margin_does_not_hide_the_page_s_columns():
    """One star drawn beside the right column is a column of one row from the boxes alone;
    a one-glyph box not yet read is no column, so the page's gutter is still seen."""
    quads = _rows(lefts=((60, 440), (560, 940)))
    star = _quad(960, 660, 990, 690)
    plan = plan_reading([*quads, star], SIZE)
    (start, end), = plan.gutters
    assert 440 <= start < end <= 560
    assert not plan_reading([*quads, _quad(960, 660, 1200, 690)], SIZE).gutters  # a word: a column of one row


def test_a_sub_question_chosen_under_a_stem_not_yet_read_is_read_on():
    """Rows 4-8 read: 「…it fall in 2 s?」 then "1) Show your working." at the centre. The
    stem's start (its number) is above the band, so "1)" may be its part: read on. Under a
    read problem number, or as "(5)" under another problem's last line, it settles."""
    quads = _rows(top=70)
    plan = plan_reading(quads, SIZE)

    def texts(row5, row6):
        rows = {4: "10 m/s², how far does", 5: row5, 6: row6, 7: "2) What would change?", 8: "3) Explain."}
        return {i: rows.get(i, "") for i in plan.bands[0]}

    first = OcrLine("1) Show your working.", 0.9, _line(quads[6]).box)
    assert not plan.settled(0, (first,), (), texts("it fall in 2 s?", "1) Show your working."))
    assert plan.settled(0, (first,), (), texts("9. How far does it fall in 2 s?", "1) Show your working."))
    third = OcrLine("3) Explain.", 0.9, _line(quads[6]).box)
    parts = {4: "1) Show your working.", 5: "2) What would change?", 6: "3) Explain.", 7: "", 8: ""}
    assert not plan.settled(0, (third,), (), parts)  # up to "1)", nothing read above it
    fifth = OcrLine("(5) 秦朝建立于哪一年？", 0.9, _line(quads[6]).box)
    assert plan.settled(0, (fifth,), (), texts("C. 12  D. 13", "(5) 秦朝建立于哪一年？"))
    assert plan.settled(0, (first,), ())  # nothing read given: rows alone, as before
