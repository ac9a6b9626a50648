"""Blocks: where one problem ends and the next begins when the page gives weak cues."""

import numpy as np
import pytest

from appliance.ocr.blocks import BlockParams, find_blocks, margin_letters
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


# Short problems, one line each: lists, rows of problems set side by side, and what stands above them


@pytest.mark.parametrize("instruction", ["请在横线上作答。", "请用黑色签字笔作答。", "注意：解答时写出必要的文字说明和步骤。"])
def test_how_to_answer_above_a_list_of_problems_is_no_part_of_them(instruction):
    rows = [("三、填空题（每空1分）", 300), (instruction, 300), ("解方程：2x + 3 = 13", 250), ("秦朝建立于哪一年？", 260),
            ("《南京条约》是哪一年签订的？", 380)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH - 17), SIZE)
    assert layout.text == "解方程：2x + 3 = 13"  # the frame's centre is on it; the next line asks on its own


def test_an_instruction_without_a_question_word_ends_a_problem_short_of_the_column_side():
    rows = [("把 0.75 化成最简分数。", 300), ("计算：3/4 + 1/6", 230), ("《春晓》的作者是谁？", 280),
            ("一个直角三角形的两条直角边分别是 6 和 8，求斜边的长。", 760)]
    layout = arrange_page(column(rows, 480 - 17), SIZE)
    assert layout.text == "把 0.75 化成最简分数。"


def grid(rows: list[list[str]], top: float, lefts: tuple[float, ...] = (100, 520, 940)) -> list[TextBox]:
    """Problems set side by side: each row's cells at the same lefts, one pitch apart."""
    return [box(text, lefts[k], top + i * PITCH, 24 * len(text)) for i, cells in enumerate(rows) for k, text in enumerate(cells)]


def test_a_row_of_numbered_problems_set_side_by_side_is_one_problem_each():
    rows = [["【7】计算：3/4 - 1/6", "【8】因式分解：x² - 9"], ["【9】解方程：2x + 3 = 11", "【10】计算：3/4 + 1/6"],
            ["【11】求 log₂8 的值。", "【12】秦朝建立于哪一年？"]]
    layout = arrange_page(grid(rows, 480 - PITCH - 17, (150, 600)), SIZE)
    assert layout.text == "计算：3/4 + 1/6"  # the frame's centre (640, 480) lies in the row's right-hand cell's column
    assert layout.choices == ()


def test_a_row_of_problems_without_numbers_set_far_apart_is_one_problem_each():
    rows = [["计算：3/4 - 1/6", "因式分解：x² - 9", "求 log₂8 的值。"], ["解方程：2x + 3 = 11", "鸦片战争爆发于哪一年？", "水的化学式是什么？"],
            ["计算：√48 ÷ √3", "秦朝灭亡于哪一年？", "计算：3/4 + 1/6"]]
    # a list of problems runs on above and below the rows at the same pitch: no gutter runs down the page
    above = [("一个长方形的长是8厘米，宽是6厘米，它的面积是多少平方厘米？", 1000), ("我国最长的河流是哪一条？", 330)]
    below = [("一件商品原价200元，打八折出售，现价是多少元？", 800), ("用20N的水平拉力拉着物体沿水平方向移动了5m，拉力做了多少功？", 1050)]
    boxes = column(above, 480 - 3 * PITCH - 17, x=100) + grid(rows, 480 - PITCH - 17) + column(below, 480 + 2 * PITCH - 17, x=100)
    assert arrange_page(boxes, SIZE).text == "鸦片战争爆发于哪一年？"


def test_problems_under_a_lead_in_without_numbers_are_parted_at_their_ends():
    # "Section A: Multiple choice" leads in: its first line starts a problem, printed without a number
    rows = [("Section A: Multiple choice", 380), ("Solve the inequality: 3x - 5 > 7.", 480),
            ("Change into the passive voice: Tom cleans the room.", 700), ("What is the past participle of \"go\"?", 520),
            ("Translate into Chinese: Practice makes perfect.", 650), ("What is the sum of the interior angles of a hexagon?", 900)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH - 17), SIZE)
    assert layout.text == "What is the past participle of \"go\"?"


def test_bracketed_numbers_that_run_on_past_any_problems_parts_number_the_problems():
    # one exercise's label 「习题3.2」 above (1) … (12): these are problems, not its parts
    rows = [("习题3.2", 120)] + [(f"({n}) {q}", 400) for n, q in enumerate(
        ["水的化学式是什么？", "秦朝建立于哪一年？", "计算：√48 ÷ √3", "我国最长的河流是哪一条？", "《背影》的作者是谁？",
         "秦朝灭亡于哪一年？", "求 24 和 36 的最大公因数。", "解方程：x² - 5x + 4 = 0", "《春晓》的作者是谁？",
         "光合作用的场所是哪里？"], 1)]
    layout = arrange_page(column(rows, 480 - 5 * PITCH - 17), SIZE)
    assert layout.text == "《背影》的作者是谁？"


def test_problem_numbers_set_a_space_left_of_their_lines_are_no_column():
    # a close shot: 「7、」 … a word space and more before each line, one line a problem
    lines = ["写出实验室用高锰酸钾制取氧气的化学方程式。", "一个长方形的长是8厘米，宽是6厘米，它的面积是多少？", "我国第二长的河流是哪一条？",
             "计算：3/4 + 1/6", "我国最长的河流是哪一条？", "求 24 和 36 的最大公因数。", "《背影》的作者是谁？"]
    boxes = [box(f"{n}、", 100, 480 - 3 * 60 - 20 + i * 60, 70, h=44) for i, n in enumerate(range(7, 14))]
    boxes += [box(text, 230, 480 - 3 * 60 - 20 + i * 60, 36 * len(text), h=44) for i, text in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "计算：3/4 + 1/6"


def test_two_problems_in_turn_that_lost_their_numbers_are_parted_at_their_ends():
    # 【2】 right above 【5】: 3 and 4 lost their labels (under a finger, faint) and were read on into 2
    rows = [("【1】用20N的水平拉力拉着物体沿水平方向移动了5m，拉力做了多少功？", 900),
            ("【2】豌豆的高茎对矮茎为显性，基因型为Dd的两株豌豆杂交，子代中矮茎所占的比", 1000), ("例是多少？", 130),
            ("地球自转一周的时间大约是多少？", 420), ("一个质量为5kg的物体受到10N的合外力作用，求它的加速度大小。", 880),
            ("【5】成语“守株待兔”比喻什么？", 430), ("【6】第二次世界大战结束于哪一年？", 460)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH - 17, x=150), SIZE)
    assert layout.text == "地球自转一周的时间大约是多少？"


def test_a_finished_question_above_a_line_cut_by_the_frame_side_ends_its_problem():
    # no labels printed; the line below runs off the frame, so whether it asks is not seen
    boxes = [box("知识回顾（每空1分）", 240, 380, 330), box("我国面积最大的省级行政区是哪一个？", 240, 460, 580),
             box("一个长方形的长是8厘米，宽是6厘米，它的面积", 240, 505, 1040)]  # to the frame's right side (1280)
    assert arrange_page(boxes, SIZE).text == "我国面积最大的省级行政区是哪一个？"


def test_what_stands_far_right_of_a_finished_problem_and_asks_nothing_is_no_problem_beside_it():
    # a score note and a student's answer set apart on the problem's row: no second cell
    rows = [[("【8】秦朝建立于哪一年？", 150), ("公元前221年", 800)], [("【9】水的化学式是什么？", 150), ("(2分)", 1100)]]
    boxes = [box(text, x, 440 + i * PITCH, 24 * len(text)) for i, row in enumerate(rows) for text, x in row]
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert [t for t in texts if "秦朝" in t or "公元前" in t] == ["【8】秦朝建立于哪一年？公元前221年"]


# Problems printed in pieces (a formula on a line of its own, a drawing or a wide space
# between the givens and the question): the photo's centre often falls between the pieces.

def pieces(rows: list[tuple[str, float, float, float]]) -> list[TextBox]:
    """Rows of (text, x, top, width) at any height."""
    return [box(text, x, top, width) for text, x, top, width in rows]


def test_a_problem_broken_off_at_a_comma_goes_on_after_a_wide_space():
    boxes = pieces([("9. 声音在15℃的空气中的传播速度约是多少？", 190, 150, 800),
                    ("10. 一个定值电阻两端的电压是 6 V，", 190, 250, 620),
                    ("通过它的电流是 0.5 A，求这个电阻的阻值。", 190, 500, 770),  # five line heights below
                    ("11. 两个阻值都是 10 Ω 的电阻并联，总电阻是多少？", 190, 760, 860)])
    assert arrange_page(boxes, SIZE).text == "一个定值电阻两端的电压是 6 V，通过它的电流是 0.5 A，求这个电阻的阻值。"


def test_a_stem_and_its_question_parted_by_a_drawing_are_one_problem_between_numbers_in_turn():
    boxes = pieces([("9. What is the basic unit of structure of living things?", 250, 180, 700),
                    ("10. A ball is dropped from rest.", 250, 280, 420),
                    ("Ignoring air resistance and taking g = 10 m/s², how far does it fall in 2 s?", 250, 560, 900),
                    ("11. Find the slope of the line through (1, 2) and (3, 6).", 250, 660, 760)])
    assert arrange_page(boxes, SIZE).text == \
        "A ball is dropped from rest. Ignoring air resistance and taking g = 10 m/s², how far does it fall in 2 s?"


def test_given_data_in_brackets_below_a_wide_space_stay_with_their_problem():
    boxes = pieces([("23. 写出碳在氧气中不充分燃烧的化学方程式。", 300, 300, 620),
                    ("24. 计算 CO₂ 的相对分子质量。", 300, 400, 460),
                    ("（相对原子质量：C-12，O-16）", 420, 520, 420),
                    ("25. 解方程：2x + 3 = 11", 300, 620, 380)])
    assert arrange_page(boxes, SIZE).text == "计算 CO₂ 的相对分子质量。（相对原子质量：C-12，O-16）"


def test_a_formula_set_in_from_its_short_line_goes_on_with_it():
    boxes = pieces([("10. 一个定值电阻两端的电压是6V，求它的阻值。", 420, 250, 780),
                    ("11. 解方程：", 410, 400, 150),
                    ("3x - 7 = 2x + 5", 700, 510, 160),
                    ("12. 解方程：2x + 3 = 13", 400, 650, 260)])
    assert arrange_page(boxes, SIZE).text == "解方程：3x - 7 = 2x + 5"


def test_words_after_a_colon_that_look_like_a_title_go_on_with_the_problem():
    boxes = pieces([("12. What is the past tense of \"go\"?", 400, 300, 480),
                    ("13. Translate into Chinese:", 400, 400, 190),
                    ("Practice Makes Perfect", 420, 480, 170),
                    ("14. What is the opposite of \"expensive\"?", 390, 600, 560)])
    assert arrange_page(boxes, SIZE).text == "Translate into Chinese: Practice Makes Perfect"


def test_a_drawings_letter_between_the_pieces_does_not_stop_them_joining():
    boxes = pieces([("一、简答题", 546, 216, 144),
                    ("写出碳在氧气中不充分燃烧的化学方程式。", 545, 270, 590),
                    ("一个长方形的长是 8 厘米，宽是 5 厘米，", 557, 390, 460),
                    ("B", 1025, 450, 22),
                    ("它的周长是多少厘米？", 565, 600, 260)])
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是 8 厘米，宽是 5 厘米，它的周长是多少厘米？"


def test_a_problem_of_its_own_between_numbers_in_turn_is_still_parted():
    # a long question that asks by itself after one that did: two problems, one number lost
    rows = [("14. Find the LCM of 24 and 36.", 200, 100, 420), ("15. Write 3/4 as a decimal.", 200, 200, 400),
            ("16. What is the sum of the interior angles of a pentagon?", 200, 300, 760),
            ("已知函数 f(x) = 2x² - 3x + 1，求 f(2) 的值。", 200, 400, 640),
            ("17. A bag contains 3 red balls and 5 blue balls.", 200, 500, 700)]
    texts = [b.text for b in find_blocks(pieces(rows), SIZE)]
    assert "已知函数 f(x) = 2x² - 3x + 1，求 f(2) 的值。" in texts


def test_a_row_of_labels_after_a_line_broken_at_a_comma_stays_with_the_problem():
    boxes = pieces([("13、一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？", 460, 200, 760),
                    ("14、在等差数列{an}中，a₁=2，公差", 473, 396, 330),
                    ("d=3,", 473, 440, 60),
                    ("求a10", 520, 510, 120), ("(5分)", 700, 510, 95)])
    assert arrange_page(boxes, SIZE).text.startswith("在等差数列{an}中，a₁=2，公差d=3,求a10")


# Problems without labels, one line each at the line pitch (a fill-in section of an exam):
# where one ends is told by its sentence's end and by the next line asking on its own.

FILL_IN = [("我国最大的淡水湖是 ____", 300), ("一个长方形的长是8厘米，宽是6厘米，它的面积是多少平方厘米？", 1000),
           ("“但使龙城飞将在”的下一句是 ____", 460), ("地球上的五带中，____带既没有太阳直射也没有极昼极夜。", 880)]


def test_a_one_line_problem_that_fills_its_column_ends_at_its_question_mark():
    # the framed line is the widest: it stops short of no side, yet its question is asked
    layout = arrange_page(column(FILL_IN, 480 - 1 * PITCH - 17, x=40), SIZE)
    assert layout.text == "一个长方形的长是8厘米，宽是6厘米，它的面积是多少平方厘米？"


def test_a_line_ending_on_a_blank_short_of_the_side_ends_its_problem():
    # 「…是 ____。」 read without its full stop: the blank, well short of the side, ends the problem
    rows = [("植物细胞中能进行光合作用的结构是 ____", 470), ("100g氯化钠溶液中含有10g氯化钠，求该溶液中溶质的质量分数。", 1000),
            ("电流的单位是 ____", 300)]
    layout = arrange_page(column(rows, 480 - 1 * PITCH - 17, x=40), SIZE)
    assert layout.text == "100g氯化钠溶液中含有10g氯化钠，求该溶液中溶质的质量分数。"


def test_a_blank_at_the_columns_side_goes_on_below():
    # the line broke right after its blank: the sentence goes on, one problem
    rows = [("说一说：我国最长的河流是长江，世界上最长的河流是 ____", 1000), ("河，它最终流入哪个大洋？", 400)]
    texts = [b.text for b in find_blocks(column(rows, 440, x=40), SIZE)]
    assert texts == ["说一说：我国最长的河流是长江，世界上最长的河流是 ____河，它最终流入哪个大洋？"]



def test_a_problem_that_lost_its_number_under_one_ending_on_a_blank_is_parted_there():
    # 第7题 circled by the student and not read: problem 6 ends on its blank, its full stop lost
    rows = [("第5题 求24和36的最大公因数。", 480), ("第6题 计算：3×4= ____", 330),
            ("“床前明月光，疑是地上霜”的下一句是什么？", 700), ("第8题 下列词语中没有错别字的一项是", 620)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH - 17, x=40), SIZE)
    assert layout.text == "“床前明月光，疑是地上霜”的下一句是什么？"


def test_how_to_answer_under_a_question_that_fills_its_column_stays_with_it():
    rows = [("我国最大的淡水湖是哪一个？", 420), ("一辆汽车以每小时60千米的速度行驶了3小时，它一共行驶了多少千米？", 1000),
            ("请写出计算过程并说明理由。", 430), ("一个正方形的边长是6厘米，它的面积是多少平方厘米？", 800)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert "一辆汽车以每小时60千米的速度行驶了3小时，它一共行驶了多少千米？请写出计算过程并说明理由。" in texts


def test_a_finished_sentence_parts_a_lost_number_before_a_row_ending_on_a_blank():
    # 7 right above 9: 8 was lost; "…hexagon?" ends 7, not the answer line under it (a margin's
    # letter "E" read before "Answer:")
    rows = [("Question 7 What is the sum of the interior angles of a hexagon?", 1000), ("E Answer: ____", 260),
            ("Water freezes at ____ °C.", 420), ("Question 9 6 kg = ____ g", 400)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert "Question 7 What is the sum of the interior angles of a hexagon?" in texts


@pytest.mark.parametrize("framed", [1, 2, 3])
def test_problems_numbered_on_after_a_ringed_first_number_are_problems_of_their_own(framed):
    # under a lead-in on a page numbered "Question 8", "Question 9": the student ringed "(1)"
    # (read ①), and (2) and (3) are the next problems, not its parts
    rows = [("Question 8 Answer the following questions.", 560), ("① A ball is dropped from rest.", 520),
            ("Ignoring air resistance and", 540), ("taking g = 10 m/s², how far", 560), ("does it fall in 2 s?", 330),
            ("(2) Water freezes at ____ °C.", 500), ("(3) Write 3/5 as a decimal.", 480),
            ("Question 9 Find the area of a rectangle 7 cm", 560), ("long and 3 cm wide.", 300)]
    firsts = {1: "① A ball", 2: "(2) Water", 3: "(3) Write"}
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    problem = [t for t in texts if firsts[framed] in t]
    assert len(problem) == 1 and all(firsts[other] not in problem[0] for other in firsts if other != framed)


@pytest.mark.parametrize("stem", ["5. 已知长方形的长是 8 厘米，宽是 5 厘米。", "5. 计算下列各题。"])
def test_a_ringed_part_is_grouped_as_the_same_part_unringed(stem):
    # 「5.」's parts (1) (2) (3), the second ringed by the student (read ②): grouped as before
    def grouping(second: str) -> list[int]:
        rows = [(stem, 560), ("(1) 求它的周长。", 260), (second + " 求它的面积。", 260), ("(3) 求它的对角线长。", 300),
                ("6. 我国最大的淡水湖是哪一个？", 500)]
        return [len(b.rows) for b in find_blocks(column(rows, 400, x=40), SIZE)]

    assert grouping("②") == grouping("(2)")


@pytest.mark.parametrize("labels", [("①", "②", "③"), ("1)", "2)", "3)"), ("a)", "b)", "c)")])
@pytest.mark.parametrize("lead_in", ["10、按要求作答。", "10、解答下列各题。"])
def test_parts_numbered_in_their_own_style_under_a_lead_in_are_problems_of_their_own(labels, lead_in):
    questions = ["一个正方体的棱长是4厘米，它的体积是多少立方厘米？", "一个直角三角形的两条直角边分别是3和4，求斜边的长。",
                 "我国最大的淡水湖是哪一个？"]
    rows = [(lead_in, 240), *((f"{label}{q}", 40 * len(q)) for label, q in zip(labels, questions)),
            ("11、先化简，再求值：(x+8)² - x(x-6)，其中x=6。", 900)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert [t for t in texts if any(q in t for q in questions)] == [f"{label}{q}" for label, q in zip(labels, questions)]


@pytest.mark.parametrize("labels", [("1)", "2)", "3)"), ("①", "②", "③"), ("a)", "b)", "c)")])
def test_parts_in_their_own_style_after_a_problem_that_asks_under_a_lead_in_are_problems(labels):
    # "Part A Multiple choice" leads in; the first problem has no number, the next ones "1)"…
    questions = ["Fill in the blank with \"a\" or \"an\": ___ apple", "What is the opposite of \"expensive\"?",
                 "Write the plural of \"child\"."]
    rows = [("Part A Multiple choice", 300), ("Choose the correct word: He ___ to school by bike.", 700),
            *((f"{label} {q}", 14 * len(q)) for label, q in zip(labels, questions))]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert texts[1:] == ["Choose the correct word: He ___ to school by bike.",
                         *(f"{label} {q}" for label, q in zip(labels, questions))]


def test_parts_under_a_stem_of_givens_below_a_lead_in_stay_its_parts():
    rows = [("Section A: Short answer", 300), ("A rectangle is 8 cm long and 5 cm wide.", 600),
            ("a) Find its perimeter.", 330), ("b) Find its area.", 300)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert texts[1:] == ["A rectangle is 8 cm long and 5 cm wide. a) Find its perimeter. b) Find its area."]


# A page photographed at a slant of about 6°, "WRITE HERE" printed down its left margin (one
# letter a box, each upright), "(D)" of the options above: text, corners.
SLANTED_MARGIN = [
    ('H', [[36, 670], [60, 670], [60, 702], [36, 702]]),
    ('Question 7', [[143, 622], [255, 606], [260, 643], [148, 658]]),
    ('[2 marks] What is the sum of the interior angles of a hexagon?', [[144, 658], [752, 591], [757, 633], [149, 700]]),
    ('E', [[28, 598], [54, 598], [54, 628], [28, 628]]),
    ('I', [[23, 529], [43, 529], [43, 553], [23, 553]]),
    ('(D', [[926, 176], [959, 176], [959, 214], [926, 214]]),
    ('(D)', [[901, 18], [959, 6], [959, 52], [910, 64]]),
]


def test_letters_printed_down_a_slanted_pages_margin_join_no_problem():
    boxes = [TextBox(text, 0.95, np.array(quad, np.float32)) for text, quad in SLANTED_MARGIN]
    assert arrange_page(boxes, (960, 1280)).text == "What is the sum of the interior angles of a hexagon?"


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_run_of_letters_down_the_margin_is_found_at_either_side(side):
    lines = column([("Question 7", 120), ("[2 marks] What is the sum of the interior angles of a hexagon?", 900)], 400, x=140)
    x = 90 if side == "left" else 1060
    letters = [box(letter, x + 3 * i, 330 + 40 * i, 24, 32) for i, letter in enumerate("HERE")]
    assert margin_letters(lines + letters, 34, BlockParams()) == set(map(id, letters))


def test_the_sealed_lines_characters_spread_down_the_margin_join_no_problem():
    # 「密 封 线」 printed along the binding two and a half lines apart, one beside problem 13's number
    lines = pieces([("12. What is the sum of the interior angles of a pentagon?", 230, 300, 790),
                    ("13. (5分) “但愿人长久，千里共婵娟”出自哪首词？作者是谁？", 230, 450, 790),
                    ("14. (6分) 成语“守株待兔”比喻什么？", 230, 640, 500)])
    letters = [box(letter, 75, 456 + 90 * i, 40, 40) for i, letter in enumerate("线封密")]
    assert arrange_page(lines + letters, SIZE).text == "“但愿人长久，千里共婵娟”出自哪首词？作者是谁？"


def test_a_tables_first_column_of_single_letters_is_kept():
    rows = [("5. 根据下表求 y 与 x 的关系式。", 600)]
    boxes = column(rows, 400, x=140)
    for i, (head, a, b) in enumerate([("x", "1", "2"), ("y", "3", "5"), ("z", "4", "7")]):
        boxes += [box(head, 140, 450 + i * PITCH, 20), box(a, 260, 450 + i * PITCH, 20), box(b, 380, 450 + i * PITCH, 20)]
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert all(letter in " ".join(texts) for letter in "xyz")


# 「7.」 ringed by the student and not read, between 6's part ② and 8; lower down, 12's parts: text, corners.
PART_OVER_LOST_NUMBER = [
    ('6. 按要求改写句子。', [[387.7, 513.7], [560.3, 513.7], [560.3, 548.3], [387.7, 548.3]]),
    ('② 春天来了。(扩句)', [[425.6, 575.6], [622.4, 575.6], [622.4, 610.4], [425.6, 610.4]]),
    ('《孔乙己》的作者是谁?', [[419.6, 621.6], [620.4, 621.6], [620.4, 656.4], [419.6, 656.4]]),
    ('8.一块长方形菜地长5米，宽2米，这块菜地的面积是多少平方米？', [[389.5, 700.9], [954.2, 695.5], [954.5, 729.4], [389.8, 734.8]]),
    ('① 我们打扫教室。（改为被动句）', [[429.0, 946.3], [718.5, 942.1], [719.0, 977.6], [429.5, 981.8]]),
    ('② 他的成绩不好吗？（改为陈述句)', [[429.1, 977.8], [734.4, 972.8], [735.0, 1008.1], [429.7, 1013.0]]),
]


def test_a_problem_that_lost_its_number_under_a_part_of_the_problem_above_is_parted_from_it():
    # ② is a part of 6 (a lead-in), so 7 is lost between 6 and 8: it starts after ②'s sentence
    boxes = [TextBox(text, 0.95, np.array(quad, np.float32)) for text, quad in PART_OVER_LOST_NUMBER]
    assert arrange_page(boxes, (960, 1280)).text == "《孔乙己》的作者是谁?"


def test_circled_numbers_that_number_the_problems_are_no_parts():
    # ⑦ follows 6 in turn: 8 is lost between ⑦ and ⑨
    rows = [("6 把下面的句子翻译成英语：我每天早上七点起床。", 800), ("⑦写出名词 tooth 的复数形式。", 500),
            ("“白日依山尽”的下一句是什么？", 480), ("⑨地球自转的方向是怎样的？", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert "“白日依山尽”的下一句是什么？" in texts


def test_problems_without_labels_after_a_lead_ins_last_formula_are_parted():
    # the page numbers only the parts of 「解下列方程：」; the problems below it have no labels
    rows = [("解下列方程：", 200), ("(1) 9(x - 5) = 6", 240), ("(2) x/2 + 8 = 7", 220), ("计算：8/2 + 6/4", 240),
            ("计算：3/4 + 1/6", 240), ("血液循环中，体循环开始于心脏的哪个腔？", 560), ("“欲穷千里目”的下一句是什么？", 420)]
    layout = arrange_page(column(rows, 480 - 4 * PITCH - 17, x=40), SIZE)
    assert layout.text == "计算：3/4 + 1/6"


def test_a_problem_whose_ringed_number_was_lost_after_a_lead_ins_last_formula_is_parted():
    rows = [("计算下列各题：", 200), ("(1) 7×2 - 2", 160), ("(2) (70 - 5)×6", 200), ("(3) 24÷3 + 8", 180),
            ("“春眠不觉晓”的下一句是什么？【5分】", 520), ("答：", 60)]
    layout = arrange_page(column(rows, 480 - 4 * PITCH - 17, x=40), SIZE)
    assert layout.text == "“春眠不觉晓”的下一句是什么？"


@pytest.mark.parametrize("below", ["x - y = 2", "= 8"])
def test_a_formula_part_keeps_the_rest_of_its_formula(below):
    rows = [("解下列方程组：", 200), ("(1) x + y = 10", 200), (below, 120), ("(2) 2x + y = 7", 200)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert f"(1) x + y = 10 {below}" in texts


@pytest.mark.parametrize("framed", [0, 1])
def test_a_lead_in_wrapped_onto_two_rows_leads_in_to_its_parts(framed):
    # "2. Use what you have learnt to answer the" ⏎ "following.": (a) and (b) are problems of their own
    questions = ["计算：sin 60° + cos 30°", "Solve the inequality: 3x - 5 > 7."]
    rows = [("1. 一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？", 900),
            ("2. Use what you have learnt to answer the", 620), ("following.", 140), ("(a) " + questions[0], 420),
            ("(b) " + questions[1], 520), ("3. Find the slope of the line passing through (1, 2) and (3, 6).", 900)]
    layout = arrange_page(column(rows, 480 - (3 + framed) * PITCH - 17, x=40), SIZE)
    assert layout.text == questions[framed]


def test_a_label_alone_over_problems_without_labels_heads_them_all():
    rows = [("第一题（4分）", 200), ("一个正方体的棱长是4厘米，它的体积是多少立方厘米？", 760), ("解方程组：x + y = 10，x - y = 2", 420),
            ("解方程：2x + 3 = 11", 300), ("已知集合 A = {1, 2, 3}，B = {2, 3, 4}，求 A ∪ B。", 640),
            ("一个圆的半径是3厘米，它的面积是多少平方厘米？（π取3.14）", 820), ("计算：3/4 - 1/6", 240)]
    layout = arrange_page(column(rows, 480 - 4 * PITCH - 17, x=40), SIZE)
    assert layout.text == "已知集合 A = {1, 2, 3}，B = {2, 3, 4}，求 A ∪ B。"


@pytest.mark.parametrize("label", ["第一题（5分）", "第3题（5分）"])
def test_a_label_alone_over_one_problem_of_two_questions_keeps_it_whole(label):
    body = ["西汉建立于哪一年？", "建立者是谁？"]  # one problem that asks twice
    rows = [(label, 200), (body[0], 480), (body[1], 600), ("第二题（5分）", 200), ("解不等式：3x - 5 > 7", 320)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert any(t.endswith("".join(body)) for t in texts)


@pytest.mark.parametrize("labels", [("①", "②"), ("(a)", "(b)"), ("(1)", "(2)")])
def test_a_lead_ins_part_whose_label_was_lost_is_parted_from_the_part_above(labels):
    # the third part's label was ringed and not read: it starts after the second part's sentence
    rows = [("10、按要求作答。", 240), (f"{labels[0]}一个正方体的棱长是4厘米，它的体积是多少立方厘米？", 900),
            (f"{labels[1]}一个直角三角形的两条直角边分别是3和4，求斜边的长。", 880),
            ("一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？", 860), ("11、先化简，再求值：(x+8)² - x(x-6)，其中x=6。", 900)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH - 17, x=40), SIZE)
    assert layout.text == "一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？"


def test_a_part_under_a_lead_in_keeps_its_question_under_a_stem_of_givens():
    rows = [("10、按要求作答。", 240), ("① 一个物体的质量是2 kg，速度是3 m/s。", 520), ("它的动能是多少？", 260),
            ("② 秦朝灭亡于哪一年？", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert "① 一个物体的质量是2 kg，速度是3 m/s。它的动能是多少？" in texts


def test_a_problem_numbered_in_brackets_on_a_page_without_lead_in_keeps_its_second_question():
    rows = [("(6) 秦朝灭亡于哪一年？", 420), ("(7) 西汉建立于哪一年？", 420), ("建立者是谁？", 260), ("(8) 五四运动发生在哪一年？", 420)]
    texts = [b.text for b in find_blocks(column(rows, 400, x=40), SIZE)]
    assert "(7) 西汉建立于哪一年？建立者是谁？" in texts


def test_a_bracketed_number_that_lost_its_opening_bracket_numbers_a_problem_like_the_others():
    # the student ringed "(2)", read "2)": the page still numbers its problems (1), (2), (3)…
    rows = [("Answer ALL questions.", 300), ("(1) (4 marks) 一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？", 1000),
            ("2) (2 marks) What is the sum of the interior angles of a hexagon?", 900), ("(3) (3 marks) 解方程：x² - 5x + 6 = 0", 560),
            ("(4) (7 marks) 计算：3/4 - 1/6", 420), ("(5) (2 marks) 求 log₂8 的值。", 400)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH - 17, x=40), SIZE)
    assert layout.text == "What is the sum of the interior angles of a hexagon?"


def test_a_problem_wrapped_after_a_figure_and_its_unit_is_one_problem():
    rows = [("第七题（9分）", 200), ("一个定值电阻两端的电压是6 V，通过它的电流是", 900), ("0.3 A，求这个电阻的阻值。", 420),
            ("第八题（5分）", 200), ("两个阻值都是10Ω的电阻串联，总电阻是多少？", 800)]
    layout = arrange_page(column(rows, 480 - 2 * PITCH - 17, x=40), SIZE)
    assert layout.text == "一个定值电阻两端的电压是6 V，通过它的电流是0.3 A，求这个电阻的阻值。"


def test_a_hint_box_nearer_the_centre_than_the_framed_problem_is_no_problem():
    # the framed problem's label was lost; the box's text under its title is read closer to the centre
    boxes = [box("8 细胞的控制中心是什么结构？", 200, 250, 430), box("提示", 200, 380, 60),
             box("先找出已知条件，再列式计算。", 200, 424, 400), box("地球公转一周的时间大约是多少？", 200, 560, 420),
             box("10 What is the superlative form of \"good\"?", 200, 700, 560)]
    assert arrange_page(boxes, SIZE).text == "地球公转一周的时间大约是多少？"


def test_a_hint_box_ends_at_a_labelled_problem_right_below_it():
    # (the page numbers its problems ⑦, ⑧: its "(6)" is read as no problem number of its own)
    rows = [("Tip", 60), ("Read the question twice.", 330), ("(6) 空气中体积分数约占 78% 的气体是什么？", 560),
            ("⑦ 100 g 氯化钠溶液中含有 10 g 氯化钠，求溶质的质量分数。", 600), ("⑧ 写出铜的元素符号。", 300)]
    assert arrange_page(column(rows, 480 - 2 * PITCH), SIZE).text == "空气中体积分数约占 78% 的气体是什么？"


def test_a_students_answer_written_into_the_squares_under_a_problem_is_left_out():
    boxes = [box("9 Fill in the blank with \"a\" or \"an\": ____ apple", 200, 440, 620), box("6 0 k m / h", 200, 490, 200),
             box("Think", 200, 600, 80), box("Is there another way?", 200, 644, 300)]
    assert arrange_page(boxes, SIZE).text == 'Fill in the blank with "a" or "an": ____ apple'


def test_a_hint_box_ends_where_the_space_below_it_outgrows_its_own_line_pitch():
    # a page of generous line spacing: the framed problem (its label lost) stands 1.4 of the
    # box's line pitches below the hint's last line
    boxes = [box("7 计算：(-3)² - 2 × (-5)", 200, 260, 400, 40), box("提示", 200, 340, 60, 40),
             box("先找出已知条件，再列式计算。", 200, 384, 400, 40), box("因式分解：x² - 9", 200, 446, 300, 40),
             box("9 解方程：2x + 3 = 13", 200, 508, 330, 40), box("10 计算：√48 ÷ √3", 200, 570, 300, 40)]
    assert arrange_page(boxes, SIZE).text == "因式分解：x² - 9"


def test_a_short_answer_written_in_a_box_close_after_the_question_mark_is_left_out():
    # "24" in the answer box printed at the row's end, under a line height after the question:
    # read on, it hides where the problem ends on a page whose labels were all lost
    boxes = [box("解方程组：x + y = 10，x - y = 4", 200, 372, 420), box("“春眠不觉晓”的下一句是什么？", 200, 446, 400),
             box("24", 627, 446, 40), box("“先天下之忧而忧，后天下之乐而乐”出自哪", 200, 520, 560), box("篇文章？作者是谁？", 200, 564, 250)]
    rows = [row.text for block in find_blocks(boxes, SIZE) for row in block.rows]
    assert "“春眠不觉晓”的下一句是什么？" in rows and not any("24" in row for row in rows)


def test_an_answer_written_under_a_problem_whose_label_was_lost_is_left_out():
    boxes = [box("细胞的控制中心是什么结构？", 200, 330, 400), box("光合作用的场所是哪里？", 200, 450, 330),
             box("60km/h", 210, 494, 110), box("已知函数f(x)=2x²-3x+1，求f(2)的值。", 200, 620, 480)]
    assert arrange_page(boxes, SIZE).text == "光合作用的场所是哪里？"


def test_a_short_answer_between_a_problem_and_the_next_whose_label_was_lost_parts_them():
    from appliance.ocr.blocks import Block, split_off_answer, to_row
    rows = tuple(to_row([box(text, 200, 400 + i * PITCH, 300)], SIZE)
                 for i, text in enumerate(["⑦ What is its kinetic energy at 6 m/s?", "x=2, x=3", "《静夜思》的作者是谁？"]))
    parts = split_off_answer(Block(rows, False, True, False))
    assert [[row.text for row in part.rows] for part in parts] == [
        ["⑦ What is its kinetic energy at 6 m/s?"], ["x=2, x=3"], ["《静夜思》的作者是谁？"]]
    assert [part.numbered for part in parts] == [True, False, True]


@pytest.mark.parametrize("part", ["1) 若条件改变，结果", "a) 说明理由。"])
def test_a_short_part_under_a_problem_is_no_answer_written_before_the_next(part):
    from appliance.ocr.blocks import Block, split_off_answer, to_row
    rows = tuple(to_row([box(text, 200, 400 + i * PITCH, 300)], SIZE)
                 for i, text in enumerate(["② 一件商品原价 200 元，打八折出售，现价是多少元？", part, "如何变化？"]))
    assert len(split_off_answer(Block(rows, False, True, False))) == 1


def test_problems_without_labels_a_blank_line_apart_under_a_labelled_one_are_parted():
    # most of the block's pitches are between problems: each stands a blank line below the last
    rows = [("(2) What is the superlative form of", 151), ("\"good\"?", 200), ("Translate into Chinese: Practice makes", 307),
            ("perfect.", 356), ("声音在 15 ℃ 的空气中的传播速度约是多少？", 463), ("What is the SI unit of force?", 570)]
    boxes = [box("(1) Change into the passive voice: Tom cleans the room.", 200, 102, 600)]
    boxes += [box(text, 200, top, 40 + 13 * len(text)) for text, top in rows]
    assert arrange_page(boxes, SIZE).text == "声音在 15 ℃ 的空气中的传播速度约是多少？"


@pytest.mark.parametrize("answer", ["60 km/h", "went"])
def test_an_answer_alone_on_the_row_under_a_finished_problem_is_split_off(answer):
    from appliance.ocr.blocks import Block, split_off_answer, to_row
    rows = tuple(to_row([box(text, 200, 400 + i * PITCH, 300)], SIZE)
                 for i, text in enumerate(["(19) 计算 CO₂ 的相对分子质量。（相对原子质量：C-12，O-16）", answer]))
    assert [[row.text for row in part.rows] for part in split_off_answer(Block(rows, False, True, False))] == [
        ["(19) 计算 CO₂ 的相对分子质量。（相对原子质量：C-12，O-16）"], [answer]]


def indented(rows: list[tuple[str, float, float]], top: float) -> list[TextBox]:
    """Rows of (text, left, width) one pitch apart from ``top`` down."""
    return [box(text, x, top + i * PITCH, width) for i, (text, x, width) in enumerate(rows)]


def test_a_labelled_problem_of_two_questions_keeps_its_second():
    # two paragraphs under a label are one problem's sentences (three or more: a list)
    rows = [("（3）西汉建立于哪一年？", 200, 330), ("建立者是谁？", 200, 170), ("（4）鸦片战争爆发于哪一年？", 200, 380)]
    texts = [b.text for b in find_blocks(indented(rows, 300), SIZE)]
    assert texts[0] == "（3）西汉建立于哪一年？建立者是谁？"


def test_problems_without_labels_read_on_into_a_labelled_one_are_parted_at_their_ends():
    # three paragraphs that each ask, under one label: a list of problems, not one problem
    rows = [("23. 已知函数 f(x) = 2x² - 3x + 1，求 f(-1)", 600), ("的值。", 90), ("把 0.75 化成最简分数。", 300),
            ("计算 CO₂ 的相对分子质量。（相对原子", 600), ("质量：C-12，O-16）", 260),
            ("Choose the correct word: He ___", 480), ("to school by bike yesterday.", 420), ("(go / goes / went)", 250),
            ("DNA 分子的结构模型是由谁提出的？", 460), ("24. 水的化学式是什么？", 320)]
    texts = [b.text for b in find_blocks(column(rows, 200), SIZE)]
    assert texts == ["23. 已知函数 f(x) = 2x² - 3x + 1，求 f(-1)的值。", "把 0.75 化成最简分数。",
                     "计算 CO₂ 的相对分子质量。（相对原子质量：C-12，O-16）",
                     "Choose the correct word: He ___ to school by bike yesterday. (go / goes / went)",
                     "DNA 分子的结构模型是由谁提出的？", "24. 水的化学式是什么？"]


@pytest.mark.parametrize("marks, expected", [
    # a drawing's space between the givens and the question; every problem ends with its marks
    ((" (5 marks)", " (4 marks)", " (3 marks)"),
     "An object with a mass of 2 kg moves at 3 m/s. What is its kinetic energy? (4 marks)"),
    # a page that shows no score notes: the question below the space is a problem of its own
    (("", "", ""), "What is its kinetic energy?"),
])
def test_pieces_of_a_problem_join_up_to_its_score_note_where_the_pages_problems_end_with_one(marks, expected):
    rows = [box("Solve the inequality: 3x - 5 > 7." + marks[0], 200, 150, 620),
            box("An object with a mass of 2 kg moves at 3 m/s.", 200, 300, 640),
            box("What is its kinetic energy?" + marks[1], 200, 560, 520),
            box("A bag contains 3 red balls and 5 blue balls." + marks[2], 200, 720, 700)]
    texts = [b.text for b in find_blocks(rows, SIZE)]
    assert expected in texts


def test_working_written_between_a_problem_and_its_answer_label_is_no_part_of_it():
    rows = [("7. Find the slope of the line passing through the points (1,", 640), ("2) and (3, 6).", 200),
            ("Slope m = y2 - y1/x2 - x1", 330), ("The slope is 2.", 200), ("Ans: 2", 100),
            ("8. What is the sum of the interior angles of a hexagon?", 640)]
    texts = [b.text for b in find_blocks(column(rows, 300), SIZE)]
    assert texts[0] == "7. Find the slope of the line passing through the points (1, 2) and (3, 6)."


def test_a_problems_given_data_after_its_question_stays_above_its_answer_label():
    rows = [("3. 一个圆的半径是 3 厘米，它的周长是多少厘米？", 560), ("（π 取 3.14）", 160), ("答：", 60),
            ("4. 解方程：2x + 3 = 11", 300)]
    texts = [b.text for b in find_blocks(column(rows, 300), SIZE)]
    assert texts[0] == "3. 一个圆的半径是 3 厘米，它的周长是多少厘米？（π 取 3.14）"


def test_a_problem_whose_labels_closing_bracket_was_lost_starts_its_own_block():
    rows = [("(8) (本题12分）把 0.75 化成最简分数。", 500), ("(9 (3分)因式分解：x² - 9", 360), ("(10) 求 24 和 36 的最小公倍数。", 460)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts == ["(8) (本题12分）把 0.75 化成最简分数。", "(9) (3分)因式分解：x² - 9", "(10) 求 24 和 36 的最小公倍数。"]


def test_figures_written_under_an_equation_to_solve_are_no_part_of_it():
    rows = [("(16) 解方程：3x - 7 = 2x + 5", 420), ("12 12cm 24 cm²", 220), ("(17) 解方程：2x + 3 = 11", 360)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "(16) 解方程：3x - 7 = 2x + 5"


def test_writing_under_a_problems_options_that_asks_nothing_is_no_part_of_it():
    rows = [("3. What is the basic unit of structure and function", 620), ("of living things?", 240),
            ("A. tissue  B. organ  C. cell  D. system", 520), ("The cell is the basic unit", 330),
            ("of all organisms", 220), ("4. 细胞的控制中心是什么结构？", 420)]
    blocks = find_blocks(column(rows, 300), SIZE)
    assert [b.text for b in blocks][:2] == ["3. What is the basic unit of structure and function of living things? "
                                             "A. tissue  B. organ  C. cell  D. system", "The cell is the basic unit of all organisms"]
    assert not blocks[1].numbered


def test_a_problem_whose_label_digit_was_raised_starts_its_own_block():
    rows = [("Q4. 一个质量为 5 kg 的物体受到 10 N 的合外力作用，求它的", 640), ("加速度大小。", 160), ("Q⁵. 计算：3/4 - 1/6", 320)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[-1] == "Q5. 计算：3/4 - 1/6"


def test_a_score_note_at_a_full_rows_end_does_not_end_a_sentence_that_goes_on_below():
    rows = [("Q6. 一件商品原价 200 元，打八折出售，现价（3分）", 600), ("是多少元？", 150), ("Q7. 把 0.75 化成最简分数。(3分)", 600)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "Q6. 一件商品原价 200 元，打八折出售，现价（3分）是多少元？"


def test_a_step_worked_under_a_sum_to_compute_is_no_part_of_it():
    rows = [("6、计算：sin 60° + cos 30°", 380), ("cos 30° = √3/2", 240), ("7、计算：√48 ÷ √3", 300)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "6、计算：sin 60° + cos 30°"


@pytest.mark.parametrize("first", ["解方程：x² - 5x + 6 = 0 [5]", "已知函数 f(x) = 2x² - 3x + 1，求 f(1) 的值。[4]"])
def test_marks_in_square_brackets_end_an_unlabelled_problem_at_the_line_pitch(first):
    # marks as a bare number in brackets, after a formula or after a full stop
    rows = [(first, 520), ("一个圆的半径是 3 厘米，它的面积是多少平方厘米？", 560), ("计算：√48 ÷ √3 [3]", 300)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == first


def test_a_students_mark_after_a_score_note_still_ends_the_problem():
    rows = [("计算：(-3)² - 2 × (-5) (5 points) 问", 560), ("已知函数 f(x) = 2x² - 3x + 1，求 f(1) 的值。(4 points)", 600),
            ("一个圆的半径是 3 厘米，它的面积是多少平方厘米？", 560)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "计算：(-3)² - 2 × (-5) (5 points) 问"


def test_an_exercise_title_with_a_section_number_is_no_problem_label():
    # 「习题3.2」 read as a note before the label "3." would make the problem below numbered
    # and join the next, unnumbered one to it
    boxes = [box("习题3.2", 120, 200, 200, 60), box("解方程：x² - 5x + 6 = 0", 200, 400, 500, 50),
             box("计算：sin 60° + cos 30°", 200, 560, 480, 50)]
    assert [b.text for b in find_blocks(boxes, SIZE) if not b.header] == ["解方程：x² - 5x + 6 = 0", "计算：sin 60° + cos 30°"]


def test_writing_under_a_problem_whose_score_note_the_frame_cut_is_no_part_of_it():
    boxes = [box("(5) Translate into Chinese: Practice makes perfect. (8 p", 60, 400, 1220, 40),
             box("make…perfect 意", 130, 480, 380, 48),
             box("(6) Write the plural of \"child\".", 60, 600, 600, 40)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "Translate into Chinese: Practice makes perfect."


def test_a_sentence_that_goes_on_below_a_score_note_the_frame_cut_stays_whole():
    boxes = [box("8. 钠元素的原子序数是多少？钠原子 (2分", 90, 400, 1190, 40), box("核外有几个电子？", 90, 450, 300, 40),
             box("9. 我国面积最大的高原是哪一个？", 90, 560, 600, 40)]
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert texts[0] == "8. 钠元素的原子序数是多少？钠原子 (2分核外有几个电子？"


def test_a_chinese_question_under_english_text_is_a_problem_of_its_own():
    rows = [("What is the sum of the interior angles of a pentagon", 1080), ("The interior ang", 400),
            ("一件商品原价 200 元，打七五折出售，现价是多少元？", 760)]
    boxes = column(rows, 400)
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert texts[-1] == "一件商品原价 200 元，打七五折出售，现价是多少元？"


def test_two_lines_space_parts_a_problem_with_no_end_mark_from_a_question_below_it():
    # the next problem's number is covered: only the space between tells them apart
    boxes = [box("6. Fill in the blank with \"a\" or \"an\": ____ university", 100, 400, 900, 40),
             box("Fill in the blank with \"a\" or \"an\": ____ apple", 100, 560, 800, 40)]
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert texts[0] == "6. Fill in the blank with \"a\" or \"an\": ____ university"


def test_two_lines_space_leaves_a_stem_that_asks_nothing_with_its_question():
    boxes = [box("3. A bag holds 3 red balls and 5 blue balls", 100, 300, 700, 40),
             box("What is the probability that a ball drawn is blue?", 100, 460, 800, 40)]
    assert [b.text for b in find_blocks(boxes, SIZE)] == [
        "3. A bag holds 3 red balls and 5 blue balls What is the probability that a ball drawn is blue?"]


def test_writing_under_a_question_that_ends_with_its_options_in_a_bracket_is_no_part_of_it():
    rows = [("③ Choose the correct word: He ____ to school by bike yesterday. (go / goes /", 900), ("went)", 90),
            ("\"Yesterday\" shows", 300)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert texts[0] == "③ Choose the correct word: He ____ to school by bike yesterday. (go / goes /went)"


def test_an_unlabelled_problem_ends_at_its_sentence_before_an_answer_bracket_and_score_note():
    # each score note set apart at the right, in a marks column
    rows = [("写出稀盐酸与氢氧化钠溶液反应的化学方程式。(", 560, "(2 pts)"), ("钠元素的原子序数是多少？钠原子核外有几个电子？", 600, "(3 pts)"),
            ("空气中体积分数约占 78% 的气体是什么？（ ）", 520, "(3 pts)")]
    boxes = [part for i, (text, width, note) in enumerate(rows)
             for part in (box(text, 110, 400 + i * 44, width, 40), box(note, 1100, 400 + i * 44, 100, 40))]
    texts = [b.text for b in find_blocks(boxes, SIZE)]
    assert texts[1].startswith("钠元素的原子序数是多少？钠原子核外有几个电子？")


def test_a_figures_caption_right_above_a_problem_is_no_part_of_it():
    # the problem's label was not read ("() 8." on a page that uses the style once)
    rows = [("图4", 40), ("Which organelle is known as the \"powerhouse of the cell\"? (4分)", 700),
            ("A、the chloroplast  B、the tissue", 400)]
    layout = arrange_page(column(rows, 460, x=300), SIZE)
    assert layout.text == "Which organelle is known as the \"powerhouse of the cell\"?"


def test_an_answer_bracket_alone_on_its_row_ends_its_problem_before_a_question_whose_label_was_lost():
    # a circled "(4)" the detector missed; its question stands at the hanging indent under
    # the answer bracket that ends (3)
    boxes = pieces([("(2) 一个质量为 5 kg 的物体受到 10", 300, 110, 540),
                    ("N的合外力作用，求它的加速度", 370, 166, 490),
                    ("大小。（ ）", 370, 222, 220),
                    ("(3) 一块金属的质量是 270 g，体积", 300, 290, 540),
                    ("是 100 cm³，求它的密度。", 370, 346, 380),
                    ("（ ）", 380, 402, 90),
                    ("牛顿第一定律的内容是什么？", 380, 462, 440)])
    assert arrange_page(boxes, SIZE).text == "牛顿第一定律的内容是什么？"


def test_a_question_that_goes_on_under_its_answer_bracket_stays_one_problem():
    boxes = pieces([("(2) 一个质量为 5 kg 的物体受到 10 N 的合外力作用，", 300, 380, 760),
                    ("（ ）", 380, 436, 90),
                    ("它的加速度是多少？", 380, 492, 300)])
    assert arrange_page(boxes, SIZE).text == "一个质量为 5 kg 的物体受到 10 N 的合外力作用，（ ）它的加速度是多少？"


def test_a_charts_scale_read_one_figure_to_a_row_is_no_part_of_the_problem_above_it():
    boxes = pieces([("7. 铁丝在氧气中燃烧生成什么物质？写出化学方程式。", 100, 300, 900),
                    ("8. Fill in the blank with \"a\" or \"an\": ___ university", 100, 380, 800),
                    ("30", 770, 470, 40), ("20", 770, 520, 40), ("10", 770, 570, 40),
                    ("甲", 860, 630, 30), ("乙", 940, 630, 30), ("丙", 1020, 630, 30),
                    ("(第8题图)", 900, 690, 170)])
    assert arrange_page(boxes, SIZE).text == "Fill in the blank with \"a\" or \"an\": ____ university"


# A test paper's binding margin beside problems 4 and 5 (tilted): 「学」 and 「班」 of the fields
# written down it, the sealed line's 「线」 and 「装」; a tick before 5's number. Text, corners.
BINDING_MARGIN = [
    ('学', [[155, 477], [187, 477], [187, 547], [155, 547]]),
    ('√5.', [[355, 455], [437, 455], [437, 505], [355, 505]]),
    ('线', [[257, 441], [293, 441], [293, 485], [257, 485]]),
    ('“床前明月光，疑是地上霜”的下一句是什么？', [[487, 451], [1176, 415], [1179, 465], [490, 502]]),
    ('班', [[152, 220], [180, 220], [180, 288], [152, 288]]),
    ('4.', [[385, 201], [427, 201], [427, 239], [385, 239]]),
    ('“白日依山尽”的下一句是什么？', [[461, 190], [934, 159], [937, 208], [465, 240]]),
    ('二、实验探究题（共16分）', [[571, 126], [959, 97], [963, 147], [575, 176]]),
    ('名', [[146, 19], [181, 21], [177, 93], [142, 91]]),
    ('装', [[214, 0], [244, 0], [244, 48], [214, 48]]),
]


def test_a_character_alone_out_in_the_binding_margin_hides_no_label():
    boxes = [TextBox(text, 0.95, np.array(quad, np.float32)) for text, quad in BINDING_MARGIN]
    assert arrange_page(boxes, (1280, 960)).text == "“床前明月光，疑是地上霜”的下一句是什么？"


def test_a_character_wrapped_onto_a_row_of_its_own_stays_in_its_column():
    boxes = pieces([("5. 一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘", 200, 440, 900),
                    ("米", 230, 490, 34)])
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米"


def test_a_chats_avatar_is_not_taken_for_the_margin():
    from appliance.ocr.blocks import margin_character
    boxes = pieces([("18:20", 500, 10, 90), ("Find the slope of the line through (1, 2) and (3, 8).", 170, 500, 700),
                    ("第3题怎么做?", 150, 770, 280)])
    avatar = box("浩", 11, 760, 78, 70)
    assert margin_character(avatar, boxes + [avatar], 60, BlockParams())  # alone, it would be
    texts = [b.text for b in find_blocks(boxes + [avatar], SIZE)]
    assert any(t.startswith("浩") for t in texts)


def test_a_question_mark_written_before_a_number_does_not_hide_it():
    rows = [("15. Fill in the blank with \"a\" or \"an\": ____ apple", 700),
            ("?16. Fill in the blank with \"since\" or \"for\": I", 760), ("have lived here ____ 2010.", 400),
            ("17. 写出名词 child 的复数形式。", 500)]
    texts = [b.text for b in find_blocks(column(rows, 400), SIZE)]
    assert "?16. Fill in the blank with \"since\" or \"for\": I have lived here ____ 2010." in texts
    rows = [("Q23 Fill in the blank with \"a\" or \"an\": ____", 700), ("? Q24 What is the opposite of \"expensive\"?", 760)]
    assert "? Q24 What is the opposite of \"expensive\"?" in [b.text for b in find_blocks(column(rows, 400), SIZE)]


@pytest.mark.parametrize("heading, tail", [
    ("四、选择题（每题只有一个正确", "____ 答案）"),
    ("一、单项选择题（本大题共9小题，每", "小题5分，共45分）"),
])
def test_a_headings_note_wrapped_onto_the_next_row_is_no_problem_with_parts(heading, tail):
    # the note's tail (after a score box's rules read "____") is the heading's, and the
    # bracketed numbers under it are problems, not its parts
    rows = [(heading, 520), (tail, 300), ("(1)《春晓》的作者是谁？（）", 420), ("A、拟人 B、比喻 C、苏轼 D、鲁迅", 460),
            ("(2) 两个阻值都是10 Ω的电阻串联，总电阻是多", 560), ("少？", 60), ("(3) 光在真空中的传播速度约是多少？", 520)]
    layout = arrange_page(column(rows, 480 - 4 * PITCH), SIZE)
    assert layout.text == "两个阻值都是10 Ω的电阻串联，总电阻是多少？"


def test_parts_right_under_a_sections_heading_are_its_problems():
    # a number of the top level elsewhere on the page ("5.") would make "(2)" a part of "(1)"
    rows = [("5. 计算：sin 30° + cos 60°", 420), ("三、解答题", 160), ("(1) 计算: 3/4 + 1/6", 300),
            ("(2) 一个直角三角形的两条直角边分别是3和4，求斜边的长。", 640), ("(3) 已知集合A = {1, 2, 3}，求A的子集个数。", 560)]
    layout = arrange_page(column(rows, 480 - 3 * PITCH), SIZE)
    assert layout.text == "一个直角三角形的两条直角边分别是3和4，求斜边的长。"


def test_a_given_wrapped_onto_a_row_that_looks_like_a_label_stays_with_its_problem():
    # "5)" closes no bracket of the problem's: "(3," is left open and "8)." closes it
    slope = "Find the slope of the line passing through the points (1, 2) and (3,"
    boxes = [box("5) " + slope, 90, 170, 1130, 56), box("6).", 124, 226, 54, 48),
             box("6) " + slope, 95, 456, 1150, 56), box("8).", 124, 510, 58, 50),
             box("7) Name the capital city of Australia.", 97, 755, 600, 56)]
    assert arrange_page(boxes, SIZE).text == slope + " 8)."


def test_a_short_question_under_a_problem_whose_number_was_lost_is_its_own():
    # ⑦ far left of its words was not read; 「作者是谁？」 asks about the line above it
    boxes = [box("四、解答题", 200, 272, 215, 60), box("“但愿人长久，千里共婵娟”出自哪首词？", 282, 352, 668, 54),
             box("作者是谁?", 277, 418, 176, 56), box("⑧成语“亡羊补牢”比喻什么？", 237, 628, 514, 56),
             box("下列词语中没有错别字的一项是（", 300, 856, 560, 52)]
    assert arrange_page(boxes, SIZE).text == "“但愿人长久，千里共婵娟”出自哪首词？作者是谁?"


def test_a_lost_number_is_found_where_a_question_starts_not_at_the_students_writing_under_it():
    # (5) circled by the teacher and not read, between (4) and (6); under (5) the student wrote
    # an answer that asks nothing: (5) starts after (4)'s question, not at the writing
    rows = [("(4) 光合作用的原料、条件和产物分别是什", 560), ("么？", 40),
            ("豌豆的高茎（D）对矮茎（d）为显性，订正", 560), ("基因型为Dd的两株豌豆杂交，子代中矮", 560),
            ("茎所占的比例是多少？", 300), ("Dd × Dd的子代基因型为 DD", 380), ("Dd :dd =1:2 :1", 220),
            ("(6) 下列动物中，属于哺乳动物的是", 480)]
    blocks = find_blocks(column(rows, 480 - 5 * PITCH), SIZE)
    assert [[r.text for r in b.rows] for b in blocks][:2] == [[text for text, _ in rows[:2]], [text for text, _ in rows[2:5]]]
    assert blocks[1].numbered
