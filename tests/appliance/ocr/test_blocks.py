"""Blocks: where one problem ends and the next begins when the page gives weak cues."""

import numpy as np
import pytest

from appliance.ocr.blocks import find_blocks
from appliance.ocr.layout import TextBox
from appliance.ocr.page import arrange_page

SIZE = (1280, 960)
PITCH = 44  # the rows of every problem below, and the problems, stand this far apart


def box(text: str, x: float, y: float, w: float, h: float = 34) -> TextBox:
    return TextBox(text, 0.95, np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32))


def column(rows: list[tuple[str, float]], top: float, x: float = 200) -> list[TextBox]:
    """Rows of (text, width) one pitch apart from ``top`` down: no wider space between problems."""
    return [box(text, x, top + i * PITCH, width) for i, (text, width) in enumerate(rows)]


FRAMED = [("Solve 2x + 3 = 11 and check your", 520), ("answer by substitution.", 330)]


def test_a_problem_whose_number_was_lost_is_parted_from_the_one_above_by_the_numbers_either_side():
    # "4." was not read; 3 right above 5 shows that problem 4 was read on into problem 3
    rows = [("3. A train travels 120 km in 2 hours. What is", 560), ("its speed?", 150), *FRAMED,
            ("5. Find the LCM of 24 and 36.", 450)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH), SIZE)
    assert layout.text == "Solve 2x + 3 = 11 and check your answer by substitution."


def test_a_problem_whose_number_was_lost_is_parted_from_the_one_below_it():
    rows = [("3. What is 7 x 8?", 300), ("4. " + FRAMED[0][0], 560), FRAMED[1], ("Find the LCM of 24 and 36.", 450),
            ("6. Write 3/4 as a decimal.", 400)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH), SIZE)
    assert layout.text == "Solve 2x + 3 = 11 and check your answer by substitution."


def test_a_chinese_problem_whose_number_was_lost_is_parted_the_same_way():
    rows = [("3．一列火车 2 小时行驶 120 千米，它的速度", 560), ("是多少？", 120), ("解方程：2x + 3 = 11，并检验你的", 520),
            ("答案。", 90), ("5．求 24 和 36 的最小公倍数。", 450)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH), SIZE)
    assert layout.text == "解方程：2x + 3 = 11，并检验你的答案。"


def test_a_problem_of_two_sentences_stays_whole_where_the_next_number_stands_in_the_other_column():
    # problems set in a grid: 1, 3, 5 on the left, 2, 4, 6 on the right
    left = column([("1. Add 3 and 4.", 250), ("3. A box holds 12 eggs.", 300), ("How many eggs are in 5 boxes?", 420),
                   ("5. Find the LCM of 24 and 36.", 420)], 400)
    right = column([("2. Write 3/4 as a decimal.", 400), ("4. Round 3.46 to one place.", 400),
                    ("6. Write 0.5 as a fraction.", 400)], 400, x=700)
    texts = [b.text for b in find_blocks(left + right, SIZE)]
    assert "3. A box holds 12 eggs. How many eggs are in 5 boxes?" in texts


def test_a_problem_of_two_sentences_stays_whole_where_its_next_number_follows():
    rows = [("3. A box holds 12 eggs.", 300), ("How many eggs are in 5 boxes?", 420), ("4. Find the LCM of 24 and 36.", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "3. A box holds 12 eggs. How many eggs are in 5 boxes?"


def test_no_part_is_made_where_the_problem_shows_no_end_before_its_last_row():
    # a sentence running on over the rows: nowhere for a lost problem to start
    rows = [("3. A train travels 120 km in 2 hours and then", 560), ("stops for a while before", 400),
            ("5. Find the LCM of 24 and 36.", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "3. A train travels 120 km in 2 hours and then stops for a while before"


def test_answer_options_end_a_problem_on_a_page_whose_numbers_were_all_lost():
    # the options of a problem above the frame's edge, then two unnumbered problems with theirs
    rows = [("(C) 3", 120), ("(D) 9", 120), ("北回归线的纬度大约是多少？", 420), ("(A) 23.5°  (B) 30°", 300),
            ("水面下 2 m 深处，水产生的压强是多少？", 560), ("(A) 2×10⁴ Pa  (B) 2×10³ Pa", 420), ("(C) 20 Pa  (D) 200 Pa", 420),
            ("一个长方形的长是 8 厘米，它的周长是多少？", 600)]
    layout = arrange_page(column(rows, 480 - 4.5 * PITCH), SIZE)
    assert layout.text == "水面下 2 m 深处，水产生的压强是多少？"


def test_answer_options_alone_are_no_problem():
    # the options at the frame's centre belong to a problem whose stem is above the frame
    rows = [("A. 2984   B. 1892", 300), ("C. 1492   D. 746", 300), ("Which river is the longest in China?", 520)]
    layout = arrange_page(column(rows, 480 - PITCH), SIZE)
    assert layout.text == "Which river is the longest in China?"


def test_a_problem_keeps_its_options_and_the_sentence_that_goes_on_after_them():
    rows = [("3. Which of these is a prime number?", 520), ("A. 4   B. 6   C. 7   D. 9", 400),
            ("4. Find the LCM of 24 and 36.", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "3. Which of these is a prime number? A. 4   B. 6   C. 7   D. 9"


@pytest.mark.parametrize("labels", [("A3 ", "A4 ", "A5 "), ("3.10 ", "3.11 ", "3.12 "), ("VI. ", "VII. ", "VIII. "), ("• ", "• ", "• ")])
def test_problems_numbered_in_a_style_the_page_shows_twice_are_parted_and_lose_their_labels(labels):
    rows = [(labels[0] + "What is 7 x 8?", 300), (labels[1] + FRAMED[0][0], 600), FRAMED[1],
            (labels[2] + "Find the LCM of 24 and 36.", 450)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH), SIZE)
    assert layout.text == "Solve 2x + 3 = 11 and check your answer by substitution."


def test_a_row_after_an_answer_line_starts_a_problem_whose_number_was_lost():
    # 「⑨」 read as 「回」 under 「答案：」: no given for the line ending in a colon
    rows = [("⑧ 空气中体积分数约占 78% 的气体是什么？", 560), ("答案：", 90), ("回《孔乙己》的作者是谁？", 360), ("答案：", 90)]
    layout = arrange_page(column(rows, 480 - 0.5 * PITCH), SIZE)
    assert layout.text == "空气中体积分数约占 78% 的气体是什么？"


def two_columns_overlapping(left_rows: int = 5) -> list[TextBox]:
    """A page of two columns with a gutter narrower than the detector's margins: the left
    column's boxes (cut by the frame's left side) end past where the right column's start."""
    left = [box(text, 0, 240 + i * PITCH, width) for i, (text, width) in enumerate(
        [("元，打八折出售，现价是多少元？", 425), ("What is the sum of the", 425), ("interior angles of a hexagon?", 260),
         ("一个长方形的长是 8 厘米，宽", 425), ("是 5 厘米，它的周长是多少？", 300), ("Find the LCM of 24 and 36.", 425)][:left_rows])]
    right = [box(text, 400, 240 + i * PITCH, 380) for i, text in enumerate(
        ["5．一个直角三角形的两条直角边", "分别是 6 和 8，求斜边的长。", "6．豌豆的高茎（D）对矮茎（d）为显", "性，基因型为 Dd 的豌豆与基因型",
         "为 dd 的豌豆杂交，子代中矮茎所", "占的比例是多少？"])]
    return left + right


def test_two_columns_whose_boxes_overlap_at_a_narrow_gutter_are_read_apart():
    layout = arrange_page(two_columns_overlapping(), SIZE)
    assert layout.text == "豌豆的高茎（D）对矮茎（d）为显性，基因型为 Dd 的豌豆与基因型为 dd 的豌豆杂交，子代中矮茎所占的比例是多少？"


def test_problem_numbers_hung_left_of_their_lines_are_no_column():
    numbers = [box(f"{n}.", 150, 300 + i * 2 * PITCH, 40) for i, n in enumerate(range(3, 8))]
    lines = [box(text, 180, 300 + i * PITCH, 560) for i, text in enumerate(
        ["What is the sum of the interior", "angles of a hexagon?", "Find the LCM of 24 and 36 and", "show your working.",
         "Write 3/4 as a decimal and as", "a percentage.", "Round 3.46 to one decimal", "place.", "Solve 2x + 3 = 11.", "Check it."])]
    assert len(find_blocks(numbers + lines, SIZE)) == 5


def test_lines_parted_at_one_place_under_a_line_across_it_are_one_column():
    rows = two_columns_overlapping()
    rows.append(box("Read each problem carefully and write your answers in the spaces given.", 0, 240 + 6 * PITCH, 780))
    texts = [b.text for b in find_blocks(rows, SIZE)]
    assert not any(t.startswith("5．") for t in texts)  # the right side's lines are not a column of their own
