"""Glyph positions: drawn blanks and raised/lowered digits, on hand-made line crops."""

from dataclasses import replace

import numpy as np
import pytest

from appliance.ocr.glyphs import refine
from appliance.ocr.rec import STRIDE, Reading


def crop(width: int = 240) -> np.ndarray:
    return np.full((48, width, 3), 240, np.uint8)


def ink(image: np.ndarray, rows: tuple[int, int], cols: tuple[int, int]) -> None:
    image[rows[0]:rows[1], cols[0]:cols[1]] = 20


def step(column: int) -> int:
    return (column - STRIDE // 2) // STRIDE


def test_a_raised_digit_after_a_letter_is_a_superscript():
    image = crop()
    ink(image, (18, 40), (22, 34))  # x
    ink(image, (18, 40), (54, 66))  # y
    ink(image, (6, 22), (80, 88))  # a small 2 up high
    reading = Reading("xy2", 0.9, (step(28), step(60), step(84)))
    assert refine(reading, image).text == "xy²"


def test_a_lowered_digit_after_a_letter_is_a_subscript():
    image = crop()
    ink(image, (10, 40), (20, 36))  # H
    ink(image, (28, 46), (44, 52))  # a small 2 down low
    ink(image, (10, 40), (60, 76))  # O
    reading = Reading("H2O", 0.9, (step(28), step(48), step(68)))
    assert refine(reading, image).text == "H₂O"


def _a_ten_and_after(after: tuple[int, int]) -> np.ndarray:
    """「求a₁₀」: 求 and a on the line, 1 and 0 lowered, then a mark at rows ``after``."""
    image = crop()
    ink(image, (8, 40), (10, 38))  # 求
    ink(image, (18, 40), (50, 62))  # a
    ink(image, (26, 46), (78, 84))  # a small 1 down low
    ink(image, (26, 46), (98, 108))  # a small 0 down low
    ink(image, after, (120, 128))
    return image


def test_digits_lowered_on_from_a_subscript_are_subscripts_and_a_small_ring_after_them_a_full_stop():
    reading = Reading("求a100", 0.9, (step(24), step(56), step(81), step(103), step(124)))
    assert refine(reading, _a_ten_and_after((36, 44))).text == "求a₁₀。"  # the ring: 8 rows of the digits' 20
    assert refine(reading, _a_ten_and_after((26, 46))).text == "求a₁₀₀"  # as tall as they are: a digit
    assert refine(reading, _a_ten_and_after((31, 46))).text == "求a₁₀。"  # about 3/4 of them: a ring still
    assert refine(reading, _a_ten_and_after((28, 46))).text == "求a₁₀₀"  # 9/10 of them: a digit
    assert refine(replace(reading, text="求a10o"), _a_ten_and_after((36, 44))).text == "求a₁₀。"


def test_a_box_with_one_letter_still_shows_its_lowered_digits():
    # the detector boxed 「a₁₀。」 apart from 「…求」: its one letter is the line's measure
    image = crop()
    ink(image, (18, 40), (50, 62))  # a
    ink(image, (30, 46), (78, 84))  # a small 1 down low
    ink(image, (30, 46), (98, 108))  # a small 0 down low
    ink(image, (38, 44), (120, 128))  # the full stop
    reading = Reading("a100", 0.9, (step(56), step(81), step(103), step(124)))
    assert refine(reading, image).text == "a₁₀."  # no Chinese in the box: the problem's text tells (「…求a₁₀。」)
    ink(image, (10, 40), (78, 84))  # 1 and 0 printed as tall as a capital: on the line
    ink(image, (10, 40), (98, 108))
    ink(image, (10, 40), (120, 128))
    assert refine(reading, image).text == "a100"


def test_a_ring_with_a_figure_after_it_is_a_digit_of_the_term_whatever_its_size():
    image = _a_ten_and_after((36, 44))  # a full stop after the 0...
    image[26:46, 98:108] = 240
    ink(image, (31, 46), (98, 108))  # ...and the 0 itself shorter than the 1
    reading = Reading("求a10o", 0.9, (step(24), step(56), step(81), step(103), step(124)))
    assert refine(reading, image).text == "求a₁₀。"


def test_a_digit_between_two_chinese_characters_is_no_script():
    # 「第3题」: the characters' ink reaches lower than the digit's, which then looks raised.
    image = crop()
    ink(image, (6, 46), (6, 32))  # 第
    ink(image, (6, 22), (54, 62))  # 3, no lower than a raised one
    ink(image, (6, 46), (70, 100))  # 题
    ink(image, (6, 46), (110, 140))  # 计
    reading = Reading("第3题计", 0.9, (step(24), step(58), step(84), step(124)))
    assert refine(reading, image) == reading
    unit = crop()
    ink(unit, (6, 46), (10, 40))  # 方
    ink(unit, (6, 46), (50, 80))  # 米
    ink(unit, (6, 22), (92, 104))  # 2 up high, before the full stop: a unit's square
    raised = Reading("方米2。", 0.9, (step(24), step(64), step(100), step(130)))
    assert refine(raised, unit).text == "方米²。"


def test_a_digit_on_the_line_stays_as_it_is():
    image = crop()
    ink(image, (18, 40), (22, 34))
    ink(image, (18, 40), (54, 66))
    ink(image, (16, 40), (80, 92))
    reading = Reading("ab2", 0.9, (step(28), step(60), step(86)))
    assert refine(reading, image) == reading


def test_spaces_over_a_drawn_line_are_a_blank():
    image = crop(320)
    ink(image, (10, 38), (10, 40))  # "He"
    ink(image, (40, 43), (60, 180))  # the line to write on
    ink(image, (10, 38), (200, 230))  # "to"
    reading = Reading("He  to", 0.9, (step(16), step(34), step(90), step(150), step(206), step(224)))
    assert refine(reading, image).text == "He ____ to"


def test_spaces_over_blank_paper_stay_spaces():
    image = crop(320)
    ink(image, (10, 38), (10, 40))
    ink(image, (10, 38), (200, 230))
    reading = Reading("He  to", 0.9, (step(16), step(34), step(90), step(150), step(206), step(224)))
    assert refine(reading, image).text == "He  to"


def test_a_short_line_read_as_one_space_is_a_blank():
    # The recogniser's steps put the space's neighbours close; the line reaches under the next one.
    image = crop(320)
    ink(image, (10, 32), (10, 40))  # "He"
    ink(image, (35, 37), (49, 98))  # the line to write on
    ink(image, (10, 32), (100, 130))  # "to"
    reading = Reading("He to", 0.9, (step(16), step(34), step(60), step(96), step(124)))
    assert refine(reading, image).text == "He ____ to"


def _written_on_a_line(line: tuple[int, int]) -> np.ndarray:
    """「He go to」: "go" written on a line drawn across ``line``."""
    image = crop(320)
    ink(image, (10, 38), (10, 40))  # He
    ink(image, (40, 43), line)
    ink(image, (14, 38), (90, 140))  # go, by hand
    ink(image, (10, 38), (200, 230))  # to
    return image


_HE_GO_TO = Reading("He go to", 0.9, (step(16), step(34), step(62), step(100), step(128), step(170), step(206), step(224)))


def test_a_word_written_on_a_blanks_line_is_the_blank():
    # the line runs on bare past the word: the blank, with the student's answer on it
    assert refine(_HE_GO_TO, _written_on_a_line((60, 180))).text == "He __ to"
    assert refine(_HE_GO_TO, _written_on_a_line((66, 150))).text == "He __ to"  # 14 columns bare before it


def test_a_word_underlined_by_hand_stays():
    assert refine(_HE_GO_TO, _written_on_a_line((88, 142))).text == "He go to"  # no bare stretch
    assert refine(_HE_GO_TO, _written_on_a_line((8, 142))).text == "He go to"  # under two words
    broken = _written_on_a_line((8, 150))
    broken[40, 8:60] = 240  # ...its top row broken under the first word: the rows below still reach it
    assert refine(_HE_GO_TO, broken).text == "He go to"
    sums = _written_on_a_line((60, 240))  # under 「go 3」: the word and a figure
    ink(sums, (10, 38), (160, 176))
    assert refine(replace(_HE_GO_TO, text="He go 3o"), sums).text == "He go 3o"


def test_an_underlined_phrase_has_no_blank():
    image = crop(320)
    ink(image, (10, 32), (10, 40))
    ink(image, (10, 32), (100, 130))
    ink(image, (35, 37), (8, 132))  # a line under both words and the space between them
    reading = Reading("He to", 0.9, (step(16), step(34), step(60), step(96), step(124)))
    assert refine(reading, image).text == "He to"




def page_with_boxes() -> tuple[np.ndarray, list[np.ndarray]]:
    """A page with two lines of one sentence: "Fill in: " ␣ "apple" on the first, "and more" below."""
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, y0], [x1, y0], [x1, y0 + 40], [x0, y0 + 40]], np.float32)
             for x0, x1, y0 in ((100, 300, 100), (420, 560, 100), (100, 340, 150))]
    for quad in quads:  # letters in each box
        x0, y0 = quad[0]
        x1 = quad[1][0]
        page[int(y0) + 8:int(y0) + 30, int(x0) + 4:int(x1) - 4:14] = 30
    return page, quads


def beside(page: np.ndarray, quads: list[np.ndarray], texts: list[str]) -> list[str]:
    from appliance.ocr.geometry import crop_line
    from appliance.ocr.glyphs import blanks_beside

    crops = [crop_line(page, q, 48) for q in quads]
    return blanks_beside(page, quads, texts, crops)


def test_a_line_drawn_between_two_boxes_of_a_row_is_a_blank():
    page, quads = page_with_boxes()
    page[134:137, 308:414] = 30  # the line to write on, in the gap between the first two boxes
    assert beside(page, quads, ["Fill in:", "apple", "and more"]) == ["Fill in: ____", "apple", "and more"]


def test_a_blank_after_a_word_of_two_letters_is_found_and_not_after_a_number():
    page, quads = page_with_boxes()
    page[134:137, 308:414] = 30
    assert beside(page, quads, ["He", "to school", "by bike"]) == ["He ____", "to school", "by bike"]
    assert beside(page, quads, ["12", "to school", "by bike"])[0] == "12"  # a number's own rule: no blank


def test_a_gap_of_bare_paper_a_box_or_a_finished_sentence_has_no_blank():
    page, quads = page_with_boxes()
    texts = ["Fill in:", "apple", "and more"]
    assert beside(page, quads, texts) == texts  # paper only
    boxed = page.copy()
    boxed[104:137, 306:309] = 30  # an answer box across the gap: its left side and its bottom edge
    boxed[134:137, 306:416] = 30
    assert beside(boxed, quads, texts) == texts
    lined = page.copy()
    lined[134:137, 308:414] = 30
    assert beside(lined, quads, ["What is it?", "apple", "and more"])[0] == "What is it?"  # the answer's line
    ruled = page.copy()
    ruled[134:137, 40:880] = 30  # ruled paper: the line runs under the letters too
    assert beside(ruled, quads, texts) == texts


def test_a_line_blurred_thin_and_grey_between_two_boxes_is_a_blank():
    # a blurred photo: the line reaches only about four fifths of the paper's brightness,
    # while the letters stay dark
    page, quads = page_with_boxes()
    page[133:138, 308:414] = 190
    assert beside(page, quads, ["Fill in:", "apple", "and more"]) == ["Fill in: ____", "apple", "and more"]


def test_grey_ruled_paper_or_a_shadows_edge_is_no_blank():
    texts = ["Fill in:", "apple", "and more"]
    page, quads = page_with_boxes()
    ruled = page.copy()
    ruled[133:138, 40:880] = 190  # a grey ruled line runs under the letters too
    assert beside(ruled, quads, texts) == texts
    shaded = page.copy()
    shaded[133:260, 302:418] = 190  # a pen's shadow falling into the gap from below: grey down to the page's end
    assert beside(shaded, quads, texts) == texts


def test_a_grey_line_thin_and_level_at_a_rows_end_is_a_blank_and_grey_ruled_paper_is_not():
    # a blank printed grey ("…"an": ___" ⏎ "university"): with no box after it, a grey line
    # is a blank when it is thin and level; a ruled line runs under the box's letters too
    page, quads = page_with_boxes()
    row_end, texts = [quads[0], quads[2]], ["Fill in:", "and more"]
    grey = page.copy()
    grey[133:138, 308:500] = 190
    assert beside(grey, row_end, texts) == ["Fill in: ____", "and more"]
    for rows in ((133, 138), (141, 146)):  # on the letters' base line, or just under the box
        ruled = page.copy()
        ruled[rows[0]:rows[1], 40:880] = 190
        assert beside(ruled, row_end, texts) == texts
    shaded = page.copy()
    shaded[133:260, 308:500] = 190  # a shadow's edge: grey all the way down, no line
    assert beside(shaded, row_end, texts) == texts
    blurred = page.copy()  # a character the box left out, blurred grey: its foot is no blank
    blurred[110:126, 310:360] = 190
    blurred[133:138, 308:362] = 190
    assert beside(blurred, row_end, texts) == texts


def test_a_grey_line_before_a_rows_first_box_is_a_blank():
    # "…I have lived here" ⏎ "___ ten years.", the blank printed thin and grey
    page, quads = two_rows()
    page[184:187, 170:250] = 190
    assert beside(page, quads, ["I have lived here", "ten years."])[1] == "____ ten years."
    page[184:187, 40:880] = 190  # ruled paper instead: it runs on under the row's letters
    assert beside(page, quads, ["I have lived here", "ten years."])[1] == "ten years."


def test_a_short_blank_at_a_rows_end_is_found_and_a_dash_is_not():
    # "…I have lived here ___" ⏎ "2010.": four underscores, about 0.8 of a line height
    page, quads = page_with_boxes()
    row_end = [quads[0], quads[2]]
    page[134:137, 308:340] = 30
    assert beside(page, row_end, ["I have lived here", "2010."]) == ["I have lived here ____", "2010."]
    page[134:137, 322:340] = 235  # a hyphen's length is no blank
    assert beside(page, row_end, ["I have lived here", "2010."]) == ["I have lived here", "2010."]


def test_a_blank_at_the_end_of_a_line_that_runs_near_the_frames_side_is_found():
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, y0], [x1, y0], [x1, y0 + 40], [x0, y0 + 40]], np.float32)
             for x0, x1, y0 in ((300, 800, 100), (100, 340, 150))]
    for quad in quads:
        page[int(quad[0][1]) + 8:int(quad[0][1]) + 30, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    page[134:137, 810:885] = 30  # the line runs on to 15 px from the frame's right side
    assert beside(page, quads, ['Fill in "a" or "an":', "university"]) == ['Fill in "a" or "an": ____', "university"]
    bare = np.full((400, 900, 3), 235, np.uint8)
    bare[:, :800] = page[:, :800]
    assert beside(bare, quads, ['Fill in "a" or "an":', "university"]) == ['Fill in "a" or "an":', "university"]


def test_a_blank_in_a_gap_shorter_than_a_line_height_is_found():
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, 100], [x1, 100], [x1, 140], [x0, 140]], np.float32) for x0, x1 in ((100, 300), (330, 470))]
    for quad in quads:
        page[108:130, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    page[134:137, 302:328] = 30  # the gap is three quarters of a line height
    assert beside(page, quads, ["The word: He", "to school"]) == ["The word: He ____", "to school"]


def test_a_blank_that_runs_on_into_the_next_boxes_start_is_found_and_an_underline_is_not():
    # the detector began "ten years." on the blank's own line: the line runs 40 px into that
    # box, with paper above it, before its letters start
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, 100], [x1, 100], [x1, 140], [x0, 140]], np.float32) for x0, x1 in ((100, 300), (340, 560))]
    page[108:130, 104:296:14] = 30
    page[108:130, 384:556:14] = 30  # "ten years." starts 44 px into its box
    page[134:137, 304:380] = 30
    assert beside(page, quads, ["I have lived here", "ten years."]) == ["I have lived here ____", "ten years."]
    page[108:130, 344:384:3] = 30  # letters over the line's end: the next box's words are underlined
    assert beside(page, quads, ["I have lived here", "ten years."]) == ["I have lived here", "ten years."]


def test_a_long_blank_between_two_boxes_is_found():
    # a drawn blank four line heights long between "…or \"an\":" and "university"
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, 100], [x1, 100], [x1, 140], [x0, 140]], np.float32) for x0, x1 in ((60, 300), (470, 640))]
    for quad in quads:
        page[108:130, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    page[134:137, 306:462] = 30
    assert beside(page, quads, ['Fill in "a" or "an":', "university"]) == ['Fill in "a" or "an": ____', "university"]


def test_a_short_blank_at_a_rows_end_is_found_with_writing_far_along_the_row():
    # "…I have lived here ___" ⏎ "2010.", and a student's "A since" four line heights on
    page, quads = page_with_boxes()
    written = np.array([[460, 100], [560, 100], [560, 140], [460, 140]], np.float32)
    page[134:137, 308:340] = 30
    boxes = [quads[0], quads[2], written]
    assert beside(page, boxes, ["I have lived here", "2010.", "A since"])[0] == "I have lived here ____"


def test_a_drawn_line_with_no_space_read_over_it_is_a_blank():
    # the recogniser read "Heto": its steps for "e" and "t" stand either side of the line
    image = crop(320)
    ink(image, (10, 38), (10, 40))  # "He"
    ink(image, (40, 43), (60, 130))  # the line to write on, 70 px
    ink(image, (10, 38), (150, 180))  # "to"
    reading = Reading("Heto", 0.9, (step(16), step(34), step(156), step(174)))
    assert refine(reading, image).text == "He ____ to"
    assert refine(reading, crop(320)).text == "Heto"  # no line drawn: nothing added


def test_a_short_drawn_line_between_two_latin_words_read_as_one_is_a_blank():
    # "He ___ to" read "Heto" over a line of 48 px (a short blank: three underscores)
    image = crop(320)
    ink(image, (10, 38), (10, 40))  # "He"
    ink(image, (40, 43), (70, 118))  # the line
    ink(image, (10, 38), (140, 170))  # "to"
    assert refine(Reading("Heto", 0.9, (step(16), step(34), step(146), step(164))), image).text == "He ____ to"


def test_a_short_drawn_line_inside_a_word_or_between_chinese_characters_is_no_blank():
    # the line is as long as 一's stroke: only between two Latin words is it taken for a blank
    image = crop(320)
    ink(image, (10, 38), (10, 40))
    ink(image, (40, 43), (70, 118))
    ink(image, (10, 38), (140, 170))
    assert refine(Reading("哪条", 0.9, (step(24), step(154))), image).text == "哪条"
    assert refine(Reading("goes", 0.9, (step(24), step(146), step(156), step(166))), image).text == "goes"  # "g" alone before it


def test_a_shadow_across_the_line_is_paper_not_ink():
    # the paper darkens from 250 at the right to 150 at the left; the ink is 60 darker
    image = crop(320)
    shade = np.linspace(150, 250, 320).astype(np.uint8)
    image[:] = shade[None, :, None]
    for rows, cols in (((10, 38), (10, 40)), ((40, 43), (60, 180)), ((10, 38), (200, 230))):
        image[rows[0]:rows[1], cols[0]:cols[1]] = shade[cols[0]:cols[1]][None, :, None] - 90
    reading = Reading("He  to", 0.9, (step(16), step(34), step(90), step(150), step(206), step(224)))
    assert refine(reading, image).text == "He ____ to"


def test_underscores_read_over_a_drawn_line_get_no_more_blanks():
    # "here____ten": the recogniser read the line as underscores; they are the blank already
    image = crop(320)
    ink(image, (10, 38), (10, 40))
    ink(image, (40, 43), (60, 180))
    ink(image, (10, 38), (220, 250))
    reading = Reading("e__t", 0.9, (step(24), step(90), step(150), step(236)))
    assert refine(reading, image).text == "e__t"


def two_rows() -> tuple[np.ndarray, list[np.ndarray]]:
    """A sentence's first row (x 100–600) and its second (x 260–640) under it, letters in both."""
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, y0], [x1, y0], [x1, y0 + 40], [x0, y0 + 40]], np.float32)
             for x0, x1, y0 in ((100, 600, 100), (260, 640, 150))]
    for quad in quads:
        page[int(quad[0][1]) + 8:int(quad[0][1]) + 30, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    return page, quads


@pytest.mark.parametrize("gap, found", [(30, True), (50, False)])
def test_a_blank_before_a_justified_rows_first_box_is_found_within_a_word_space(gap, found):
    # "…correct word: He" ⏎ "___    to    school": a justified line spreads its words, and the
    # blank that starts it ends a word space before the row's first box (30 px at a 40-px
    # line height: 36 at the 48-px scale); 50 px (60) is more than a line height away
    page, quads = two_rows()
    page[184:187, 260 - gap - 60:260 - gap] = 30  # the blank, 60 px long, on the row's base line
    texts = ["Choose the correct word: He", "to school by bike"]
    assert (beside(page, quads, texts)[1] == "____ to school by bike") is found


def test_a_stroke_with_a_mark_between_it_and_a_rows_first_box_is_no_blank():
    # 「一、植物细胞…」: the numeral's stroke lies like a blank a word space before the row's
    # words, but its mark 「、」 stands between them, where a justified line has bare paper
    page, quads = two_rows()
    page[184:187, 170:230] = 30  # the stroke, ending 30 px before the box
    texts = ["Check Your Understanding", "植物细胞具有而动物细胞通常没有的结构有哪些？"]
    assert beside(page, quads, texts)[1].startswith("____")  # bare paper between: taken for a blank
    page[180:188, 240:246] = 30  # the mark 「、」 between the stroke and the box
    assert beside(page, quads, texts)[1] == texts[1]


def _two_rows(gap: int, above: str) -> tuple[np.ndarray, list[np.ndarray], list[str]]:
    """「"an":」 on one row, ``gap`` px of paper below it, then "___ apple" (the blank drawn
    before the row's only box)."""
    page = np.full((500, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, y0], [x1, y0], [x1, y0 + 40], [x0, y0 + 40]], np.float32)
             for x0, x1, y0 in ((100, 220, 100), (200, 330, 140 + gap))]
    for quad in quads:
        page[int(quad[0][1]) + 8:int(quad[0][1]) + 30, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    page[174 + gap:177 + gap, 120:192] = 30  # the blank, ending just before "apple"
    return page, quads, [above, "apple"]


def test_a_blank_starting_a_row_below_a_wide_band_after_a_colon_is_found():
    # a problem printed in pieces: 「"an":」, a band of paper two line heights tall, 「___ apple」
    page, quads, texts = _two_rows(60, '"an":')
    assert beside(page, quads, texts) == ['"an":', "____ apple"]
    page, quads, texts = _two_rows(10, '"an":')  # the next row, as before
    assert beside(page, quads, texts) == ['"an":', "____ apple"]


def test_below_a_wide_band_only_a_colon_carries_the_sentence_on():
    page, quads, texts = _two_rows(60, "Fill in the blank with")  # no colon: the band parts two pieces
    assert beside(page, quads, texts) == texts
    page, quads, texts = _two_rows(150, '"an":')  # farther than the reach
    assert beside(page, quads, texts) == texts


def test_a_blank_the_detector_took_partly_into_the_box_before_it_is_found_and_an_underline_is_not():
    # "He" ␣ "to school": the box of "He" runs 30 px on over the blank's start, with paper
    # above it there; under its letters it would be the word's underline
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, 100], [x1, 100], [x1, 140], [x0, 140]], np.float32) for x0, x1 in ((100, 300), (340, 560))]
    page[108:130, 104:266:14] = 30  # "He" ends 34 px before its box does
    page[108:130, 344:556:14] = 30
    page[134:137, 270:338] = 30  # the blank, from inside the first box to the second
    assert beside(page, quads, ["He", "to school"]) == ["He ____", "to school"]
    page[134:137, 150:270] = 30  # the line runs on under "He": an underlined word
    assert beside(page, quads, ["He", "to school"]) == ["He", "to school"]


def test_a_blank_drawn_at_a_slant_between_two_boxes_is_found():
    # a short box's direction misjudged: the blank falls three rows across the gap
    page = np.full((400, 900, 3), 235, np.uint8)
    quads = [np.array([[x0, 100], [x1, 100], [x1, 140], [x0, 140]], np.float32) for x0, x1 in ((100, 220), (350, 560))]
    for quad in quads:
        page[108:130, int(quad[0][0]) + 4:int(quad[1][0]) - 4:14] = 30
    for i, x in enumerate(range(228, 344, 40)):  # 2 px thick, one row lower every 40 px
        page[133 + i:135 + i, x:x + 40] = 30
    assert beside(page, quads, ['"an":', "university"]) == ['"an": ____', "university"]
    assert beside(page, quads, ["质量/g", "83"]) == ["质量/g", "83"]  # a table's rule before its numbers


def test_a_cross_drawn_in_the_margin_before_a_rows_blank_does_not_hide_it():
    # 「"an":」 ⏎ 「✗ ___ apple」: the cross is a box of its own before the blank
    page, quads, texts = _two_rows(0, 'Fill in "a" or "an":')
    cross = np.array([[60, 135], [110, 135], [110, 185], [60, 185]], np.float32)
    page[140:170, 70:100:6] = 30
    assert beside(page, [*quads, cross], [*texts, "X"])[1] == "____ apple"


def test_a_blank_at_a_rows_end_in_a_shadow_over_the_boxs_end_is_found():
    # a shadow falls across the end of "He" and the page beyond it: in the box's crop its end
    # reads dark all over, which is no line running on under the letters
    page, quads = page_with_boxes()
    row_end, texts = [quads[0], quads[2]], ["Choose: He", "and more"]
    page[60:300, 250:900] = 110
    page[108:130, 254:296:14] = 30  # the box's last letters, in the shadow
    page[134:137, 308:420] = 20  # the blank after "He"
    assert beside(page, row_end, texts) == ["Choose: He ____", "and more"]
    page[134:137, 308:420] = 110  # no blank: the shadow alone
    assert beside(page, row_end, texts) == texts


def test_a_blank_before_a_rows_first_box_whose_end_by_the_box_is_lighter_is_found():
    # "…I have lived here" ⏎ "________ 2010.": blur and compression left the line's end by the
    # box lighter than the paper share, its far part dark, so only from its middle on is it
    # dark enough, too far from the box; at the faint share it reaches the box
    page, quads = two_rows()
    page[185:188, 140:200] = 30
    page[185:188, 200:258] = 190
    assert beside(page, quads, ["I have lived here", "2010."])[1] == "____ 2010."


def test_a_blank_at_a_rows_end_drawn_a_little_aslant_is_found():
    # 「"a" or "an": ___」 ⏎ "apple": the line starts by the box's end a row lower than it goes on
    page, quads = page_with_boxes()
    row_end = [quads[0], quads[2]]
    page[136:139, 306:350] = 30
    page[135:138, 350:420] = 30
    assert beside(page, row_end, ['"a" or "an":', "apple"]) == ['"a" or "an": ____', "apple"]


def test_a_blank_before_a_rows_first_box_drawn_a_little_aslant_is_found():
    # "…I have lived here" ⏎ "___ ten years.": its end by the box a row lower than the rest
    page, quads = two_rows()
    page[184:187, 140:226] = 30
    page[185:188, 226:258] = 30
    assert beside(page, quads, ["I have lived here", "ten years."])[1] == "____ ten years."
