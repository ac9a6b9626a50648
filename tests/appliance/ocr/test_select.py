"""Question selection: blocks on the page, the framed problem, its number and header left out."""

from dataclasses import replace

import numpy as np
import pytest

from appliance.ocr.blocks import find_blocks, same_row
from appliance.ocr.layout import TextBox, join
from appliance.ocr.page import arrange_page
from appliance.wording.problem_text import is_header, strip_number, strip_ticks

SIZE = (1600, 1200)


def box(text: str, x: float, y: float, w: float, h: float = 40, conf: float = 0.95) -> TextBox:
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    return TextBox(text, conf, quad)


def at(text: str, x0: float, x1: float, top: float, bottom: float) -> TextBox:
    """A level box from its extents (as the layout's levelled boxes are printed)."""
    return box(text, x0, top, x1 - x0, h=bottom - top)


def slanted(text: str, quad) -> TextBox:
    """A box as the detector gave it on a photo taken at a slant."""
    return TextBox(text, 0.95, np.array(quad, np.float32))


def test_the_problem_number_is_left_out_of_the_question():
    layout = arrange_page([box("9．解方程：2x + 3 = 11。", 300, 580, 700)], SIZE)
    assert layout.text == "解方程：2x + 3 = 11。"
    assert layout.page_text == "9．解方程：2x + 3 = 11。"


def test_a_header_line_belongs_to_no_problem():
    boxes = [box("第一题（5分）", 300, 480, 300), box("解方程：2x + 3 = 11", 300, 560, 700)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "解方程：2x + 3 = 11"
    assert "第一题（5分）" in layout.page_text
    english = arrange_page([box("Homework 3, Question 1", 300, 480, 600),
                            box("Solve 2x + 3 = 11.", 300, 560, 500)], SIZE)
    assert english.text == "Solve 2x + 3 = 11."


def test_the_most_central_complete_problem_is_chosen_among_numbered_neighbours():
    boxes = [box("8. 计算：3/4 + 1/6", 300, 250, 500),
             box("9. 解方程：2x + 3 = 11", 300, 560, 600),
             box("10. 求 24 和 36 的最小公倍数。", 300, 870, 700)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "解方程：2x + 3 = 11"
    assert layout.choices == ()


def test_a_problem_cut_by_the_frame_side_loses_to_a_complete_one():
    boxes = [box("3. 一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平", 700, 500, 900),  # runs off the right edge
             box("4. 解方程：2x + 3 = 11", 200, 700, 500)]
    assert arrange_page(boxes, SIZE).text == "解方程：2x + 3 = 11"


def test_two_whole_problems_with_equal_claim_are_both_offered():
    # the frame's centre (y 600) lies between them, 180 and 170 px from their middles
    boxes = [box("1. 解方程：2x + 3 = 11", 300, 400, 600), box("2. 解方程：2x + 3 = 13", 300, 750, 600)]
    layout = arrange_page(boxes, SIZE)
    assert set(layout.choices) == {"解方程：2x + 3 = 11", "解方程：2x + 3 = 13"}


def test_of_two_problems_either_side_of_the_centre_the_clearly_nearer_is_chosen():
    # 140 against 180 px from the centre: the student aimed nearer the second
    boxes = [box("1. 解方程：2x + 3 = 11", 300, 400, 600), box("2. 解方程：2x + 3 = 13", 300, 720, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "解方程：2x + 3 = 13"
    assert layout.choices == ()


def test_a_problem_whose_number_was_not_read_is_chosen_at_the_centre():
    # a circle drawn round "14." hid it: the framed problem is an unnumbered block between numbered ones
    boxes = [box("13. 一幅地图的比例尺是 1:100000，求实际距离。", 300, 380, 800),
             box("地球公转一周的时间大约是多少？", 340, 580, 600),
             box("15. 我国最长的河流是哪一条？", 300, 780, 600)]
    assert arrange_page(boxes, SIZE).text == "地球公转一周的时间大约是多少？"


def test_an_unnumbered_title_at_the_centre_is_still_no_problem():
    boxes = [box("13. 一幅地图的比例尺是 1:100000，求实际距离。", 300, 380, 800),
             box("期中复习综合练习", 600, 580, 400),
             box("15. 我国最长的河流是哪一条？", 300, 860, 600)]
    assert arrange_page(boxes, SIZE).text == "一幅地图的比例尺是 1:100000，求实际距离。"


def test_two_columns_under_a_title_that_runs_across_the_gutter_are_not_read_across():
    # the title sits too close above the columns to be a band of its own
    left = [box(f"【{n}】{q}", 100, 490 + 90 * i, 680) for i, (n, q) in
            enumerate([(1, "在等差数列中，公差是多少？"), (2, "“欲穷千里目”的下一句是什么？"), (3, "呼吸作用的主要场所是哪里？")])]
    right = [box(f"【{n}】{q}", 900, 500 + 90 * i, 600) for i, (n, q) in
             enumerate([(19, "《孔乙己》的作者是谁？"), (20, "计算：sin 30° + cos 60°"), (21, "秦朝建立于哪一年？")])]
    title = box("二年级语文寒假作业", 560, 430, 500)
    layout = arrange_page([title, *left, *right], SIZE)
    assert layout.text == "“欲穷千里目”的下一句是什么？"
    assert "【19】《孔乙己》的作者是谁？" in layout.page_text.splitlines()


def test_two_columns_under_a_paragraph_that_runs_across_the_gutter_are_not_read_across():
    # a textbook page: five lines of reading run across both columns above the exercises,
    # set too close to them to be a band of their own
    prose = [box(f"阅读材料时，可以先浏览标题和小结，再细读每一段的要点，第{i}行。", 100, 250 + 50 * i, 1400)
             for i in range(5)]
    heading = box("习题7.1", 100, 500, 200)
    left = [box(f"{n}．{q}", 100, 550 + 50 * i, 560) for i, (n, q) in enumerate(
        [(30, "解方程组：x + y = 10，x - y = 4"), (31, "光合作用的场所是哪里？"), (32, "光在真空中的传播速度约是多少？"),
         (33, "已知集合 A = {1, 2, 3}，求 A 的子集个数。"), (34, "秦朝建立于哪一年？")])]
    right = [box(f"{n}．{q}", 900, 550 + 50 * i, 560) for i, (n, q) in enumerate(
        [(42, "“白日依山尽”的下一句是什么？"), (43, "人体最大的消化腺是什么？"), (44, "世界上面积最大的大洋是哪个？"),
         (45, "第二次世界大战结束于哪一年？"), (46, "计算：sin 30° + cos 60°")])]
    layout = arrange_page([*prose, heading, *left, *right], SIZE)
    assert layout.text == "光合作用的场所是哪里？"
    assert "43．人体最大的消化腺是什么？" in layout.page_text.splitlines()


def test_a_section_label_in_brackets_at_the_centre_is_no_problem():
    # 【能力提升】 between two problems, the first of which ends on a formula with no full stop
    boxes = [box("14. （本题2分）解方程：2x + 3 = 11", 450, 400, 820, h=70),
             box("【能力提升】", 500, 495, 310, h=70),
             box("15. 在等比数列 {aₙ} 中，a₁ = 3，公比 q = 2，求 a₅。", 450, 590, 1140, h=70),
             box("16. 地球自转一周的时间大约是多少？", 450, 850, 760, h=70)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "在等比数列 {aₙ} 中，a₁ = 3，公比 q = 2，求 a₅。"
    assert "【能力提升】" in layout.page_text.splitlines()
    # framed on the problem above it, the label is no part of that problem either
    lower = [replace(b, quad=b.quad + np.float32([0, 170])) for b in boxes]
    assert arrange_page(lower, SIZE).text == "解方程：2x + 3 = 11"


def test_three_narrow_columns_under_a_name_line_that_crosses_one_gutter_are_read_apart():
    # a page shot from far: three columns of short lines, gutters under one line height;
    # the name line at the top runs over the second gutter only
    qs = ["第一次世界大战", "爆发于哪一年？", "秦朝建立于哪一", "年？(4分)", "鸦片战争爆发于", "哪一年？(6分)",
          "中国共产党第一", "次全国代表大会", "是哪一年召开的？", "“开元盛世”出", "现在哪位皇帝？", "辛亥革命爆发于"]
    rows = [(i, 395 + 34 * i) for i in range(len(qs))]
    numbered = {0: "(14) ", 2: "(15) ", 4: "(16) ", 6: "(17) ", 9: "(18) "}
    first = [box(f"({n}) 中华人民共和国成立" if i % 2 == 0 else "是哪一年?", 290, y, 215, h=34)
             for (i, y), n in zip(rows, range(9, 21))]
    second = [box(numbered.get(i, "") + q, 550, y, 215, h=34) for (i, y), q in zip(rows, qs)]
    third = [box(f"({n}) 已知集合 A = {{1" if i % 2 == 0 else "2, 3}，求 A∪B。", 805, y, 220, h=34)
             for (i, y), n in zip(rows, range(21, 33))]
    top = [box("九年级历史 基础训练", 507, 290, 314, h=45), box("学校:", 323, 345, 60, h=34),
           box("班级:", 529, 345, 62, h=34), box("姓名: ____", 738, 348, 64, h=34), box("考号:", 949, 350, 63, h=34)]
    layout = arrange_page([*top, *first, *second, *third], (1280, 960))
    assert layout.text == "秦朝建立于哪一年？"


def test_a_heading_that_runs_across_the_gutter_midway_down_the_page_does_not_close_it():
    # a table of problems in two columns, rows close together; a section heading below the
    # first rows is wider than its column and runs across the gutter
    left = ["Q24 Change into the passive", "voice: Tom cleans the", "room every day.", "Q27 写出名词 tooth 的复数形",
            "式。", "Q30 把下面的句子翻译成英", "语：我每天早上七点起", "床。", None, "Q33 鸦片战争爆发于哪一", "年?"]
    right = ["Q25 Choose the correct word:", "He _ to school by bike", "yesterday. (go / goes /", "Q28 Translate into:",
             "Practice makes perfect.", "Q31 一个长方形的长是8 厘", "米，宽是6厘米，它的", "面积是多少平方厘米?", None,
             "Q34 DNA 分子的双螺旋结构", "模型是由谁提出的？"]
    boxes = [box(t, 340, 420 + 40 * i, 250, h=40) for i, t in enumerate(left) if t] \
        + [box(t, 690, 420 + 40 * i, 250, h=40) for i, t in enumerate(right) if t] \
        + [box("四、选择题（本大题共5小题）", 320, 740, 385, h=40)]
    layout = arrange_page(boxes, (960, 1280))
    assert layout.text == "把下面的句子翻译成英语：我每天早上七点起床。"


def test_a_note_written_in_the_margin_before_the_next_number_is_no_part_of_the_problem():
    # 「再看一遍」 ("look again") by hand, left of the column, its box run up to "(5)"
    boxes = [box("(3) 解方程组: x+ y = 10, x- y = 2", 276, 420, 430, h=70),
             box("(4) 把 0.75 化成最简分", 269, 580, 446, h=70), box("数。", 347, 645, 90, h=70),
             box("再看一遍", 126, 735, 134, h=60), box("(5) 计算: sin 60°+ cos", 258, 740, 470, h=70),
             box("30°", 342, 810, 90, h=70)]
    layout = arrange_page(boxes, (960, 1280))
    assert layout.text == "把 0.75 化成最简分数。"
    # a word at the column's own margin before a number stays: it is the line's
    same = [*boxes[:3], box("例题", 215, 735, 45, h=70), box("(5) 计算: sin 60°+ cos", 262, 740, 470, h=70), boxes[5]]
    assert "例题(5) 计算: sin 60°+ cos 30°" in arrange_page(same, (960, 1280)).page_text


def test_the_next_columns_remnant_close_before_a_problem_number_is_left_out():
    # 「的复数」 is the end of the left column's line, cut by the frame, 20 px before "No.14"
    boxes = [box("No.13 Which organelle is known as the powerhouse of the cell?", 170, 470, 1000),
             box("的复数", 0, 575, 126, h=50), box("No.14 What is the past tense of \"go\"?", 146, 570, 900, h=50),
             box("No.15 Find the slope of the line through (1, 2) and (3, 8).", 170, 700, 1000)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == 'What is the past tense of "go"?'


def test_a_number_read_on_a_line_of_its_own_starts_the_problem_below_it():
    # a circle drawn round "(10)" made the detector read it apart from its line
    boxes = [box("(9) 世界上面积最大的大洋是哪个？", 300, 200, 700),
             box("(10)", 280, 500, 90, h=70), box("Translate into Chinese: Practice makes perfect.", 300, 590, 800),
             box("(11) 水的化学式是什么？", 300, 900, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "Translate into Chinese: Practice makes perfect."
    assert layout.choices == ()


def test_a_remnant_of_the_next_column_alone_on_its_row_is_left_out():
    # the right column is cut by the frame; its last visible line has no text of the
    # framed column on its row, only the framed problem's lines above and below it
    boxes = [box("23. 一个定值电阻两端的电压是 6 V，通过它的", 300, 400, 900),
             box("A ball is drawn", 1350, 400, 250),
             box("电流是 0.3 A，求这个电阻的阻值。", 300, 520, 800),
             box("probability th", 1350, 580, 250),
             box("以及它消耗的电功率。", 300, 640, 500)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "一个定值电阻两端的电压是 6 V，通过它的电流是 0.3 A，求这个电阻的阻值。以及它消耗的电功率。"


def test_wrapped_lines_of_one_problem_stay_together():
    boxes = [box("5. 一个长方形的长是 8 厘米，宽是", 300, 540, 800), box("5 厘米，它的面积是多少？", 300, 600, 600)]
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是 8 厘米，宽是5 厘米，它的面积是多少？"


def test_answer_options_below_a_numbered_stem_belong_to_it_and_only_the_stem_is_searched():
    # the bank keeps a question's stem; the options' numbers are no givens of it
    boxes = [box("6. Which is a prime number?", 300, 500, 700), box("A. 4   B. 7", 300, 620, 400)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "Which is a prime number?"
    assert layout.page_text.splitlines() == ["6. Which is a prime number? A. 4   B. 7"]
    assert len(layout.lines) == 2


def test_columns_are_not_read_across():
    left = [box("1. 解方程：2x + 3 = 11", 100, 520, 600), box("求 x 的值。", 100, 580, 300)]
    right = [box("2. 计算：3/4 + 1/6", 900, 520, 500), box("写出过程。", 900, 580, 300)]
    blocks = find_blocks(left + right, SIZE)
    assert [b.text for b in blocks] == ["1. 解方程：2x + 3 = 11求 x 的值。", "2. 计算：3/4 + 1/6写出过程。"]


def test_a_tick_beside_the_problem_is_not_part_of_it():
    boxes = [box("7. 解方程：2x + 3 = 11", 300, 560, 600), box("√", 1100, 560, 40)]
    assert arrange_page(boxes, SIZE).text == "解方程：2x + 3 = 11"


def test_blank_lines_become_four_underscores():
    layout = arrange_page([box("He __ to school by bike every day.", 300, 560, 800)], SIZE)
    assert layout.text == "He ____ to school by bike every day."


def test_no_boxes_no_text():
    layout = arrange_page([], SIZE)
    assert layout.text == "" and layout.page_text == "" and layout.choices == ()


def test_a_circled_mark_standing_apart_is_not_read_into_the_problem():
    boxes = [box("○", 120, 560, 40), box("7. 解方程：2x + 3 = 11", 300, 560, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "解方程：2x + 3 = 11"


@pytest.mark.parametrize("line", ["√3. 解方程：2x + 3 = 11", "✓ 3. 解方程：2x + 3 = 11", "3. 解方程：2x + 3 = 11 √"])
def test_a_tick_read_into_the_line_is_cut_off(line):
    assert arrange_page([box(line, 300, 560, 700)], SIZE).text == "解方程：2x + 3 = 11"


def test_a_root_sign_is_not_a_tick():
    assert arrange_page([box("计算：√48 ÷ √3", 300, 560, 500)], SIZE).text == "计算：√48 ÷ √3"


def test_a_remnant_of_the_next_column_at_the_frame_side_is_left_out():
    boxes = [box("18. 豌豆的高茎对矮茎为显性，求子代中", 60, 540, 1100),
             box("矮茎所占的比例是多少？", 60, 600, 540), box("矢", 1560, 590, 39)]
    assert arrange_page(boxes, SIZE).text == "豌豆的高茎对矮茎为显性，求子代中矮茎所占的比例是多少？"


def test_sub_questions_that_say_how_to_answer_are_no_problem_of_their_own():
    # problems numbered "(6)", "(7)": the sub-questions "(1)", "(2)" under problem 7 read as
    # problems, and the first lies nearest the centre; it asks nothing, so 7 is the problem
    boxes = [at("(6)“白日依山尽”的下一句是什么?", 222, 767, 181, 234), at("(A) 王维", 292, 426, 228, 280),
             at("(7)解方程: x²-5x+4=0", 212, 633, 462, 509), at("(1) 写出计算过程;", 316, 606, 509, 556),
             at("(2) 说明你的理由。", 314, 604, 555, 603)]
    layout = arrange_page(boxes, (768, 1024))
    assert layout.text == "解方程: x²-5x+4=0"


def test_sub_questions_that_say_how_to_answer_are_left_out_of_the_problem():
    boxes = [at("3. Change into the passive voice: Tom cleans the room every day.", 167, 1029, 274, 323),
             at('4. Fill in the blank with "a" or "an": ____ university', 176, 929, 418, 467),
             at("(1) Show your working.", 233, 545, 477, 528), at("(2) Explain your answer.", 237, 569, 535, 587),
             at("5. Translate into Chinese: Practice makes perfect.", 193, 851, 675, 720)]
    assert arrange_page(boxes, (1280, 960)).text == 'Fill in the blank with "a" or "an": ____ university'


def test_a_table_beside_a_problem_next_to_another_columns_remnant_is_left_out():
    # the table's cells were read in runs ("24 20 20 15") under headings "t/s", "v/(m/s)";
    # the right column's remnant, cut by the frame, stands on the same rows after them
    boxes = [at("(16) 计算:(-3)²-2×(-5)", 477, 751, 321, 357),
             at("(17)《论语》主要记录了谁", 425, 791, 425, 475), at("t/s", 838, 878, 442, 474),
             at("24 8", 888, 952, 438, 476), at("26", 944, 980, 440, 474), at("型为 Dd 的豌", 1139, 1279, 417, 455),
             at("的言行？它是哪一学派", 546, 790, 462, 502), at("v/(m/s)", 825, 891, 477, 509), at("4", 896, 924, 478, 504),
             at("13", 923, 949, 481, 503), at("24", 947, 981, 477, 507), at("20", 978, 1004, 478, 504),
             at("交，子代中矮", 1139, 1279, 453, 491),
             at("的经典?", 545, 641, 497, 535), at("s/m", 834, 880, 512, 542), at("24 20 20 15", 887, 1011, 509, 547),
             at("(18) 成语“亡羊补牢”比喻什么?", 480, 840, 656, 696)]
    assert arrange_page(boxes, (1280, 960)).text == "《论语》主要记录了谁的言行？它是哪一学派的经典?"


def test_a_remnant_at_the_side_beside_a_teachers_score_is_still_another_columns():
    # 「is its」, the left column's line cut by the frame, stands alone on its row; the red
    # 「8分」 written just right of it is no text of the framed column
    boxes = [at("10) 求 24 和 36 的最大公因数。", 338, 907, 172, 231),
             at("(A) -12 (B) 22 (C) 24 (D) 12", 333, 1161, 238, 307),
             at("11) 用 20 N 的水平拉力拉着物体沿水平方向移动了", 333, 1262, 425, 484),
             at("5 m，用时 10 s，拉力做功的功率是多少？", 329, 1106, 484, 542),
             at("(A)9", 326, 443, 553, 621), at("(B) 12", 803, 938, 553, 619),
             at("air", 0, 61, 599, 659), at("(C) 10", 326, 466, 616, 681), at("(D) 5", 803, 923, 614, 682),
             at("is its", 0, 116, 662, 721), at("8分", 130, 268, 693, 793),
             at("12) What is the SI unit of force?", 323, 941, 806, 868)]
    assert arrange_page(boxes, (1440, 1080)).text == "用 20 N 的水平拉力拉着物体沿水平方向移动了5 m，用时 10 s，拉力做功的功率是多少？"


def test_a_cut_columns_line_ending_before_the_framed_columns_margin_is_left_out():
    # the left column's line, cut by the frame, runs on to a teacher's 「-1」 and ends 28 px
    # before the framed problem's options row; the lines above and below it start further right
    boxes = [at("14 写出名词child的复数形式。", 533, 1140, 295, 362),
             at("A. went B. better C. gone D.since", 453, 1159, 361, 419),
             at("15 （6分）写出名词 tooth 的复数形式。", 437, 1086, 463, 531),
             at("端的电压是6V，通过 -1", 0, 426, 506, 569),
             at("A.the Nile B. better C.cheap D.teeth", 454, 1166, 529, 586),
             at("电阻的阻值。", 0, 179, 568, 627),
             at("16 (8分) What is the past participle of \"go\"?", 493, 1205, 628, 686),
             at("A.1492 B. teeth C.a D.go", 453, 1127, 689, 749)]
    assert arrange_page(boxes, (1440, 1080)).text == "写出名词 tooth 的复数形式。"


def test_a_cut_problem_number_before_its_indented_line_stays():
    # a problem number cut by the frame's left side, its text starting after a gap: no
    # remnant, however far right the lines above and below begin
    boxes = [at("11. 计算：3/4 + 1/6", 100, 700, 200, 260),
             at("12.", 0, 60, 520, 580), at("一个定值电阻两端的电压是6V，求电流。", 100, 900, 520, 580),
             at("13. 水的化学式是什么？", 100, 600, 840, 900)]
    assert arrange_page(boxes, (1440, 1080)).text == "一个定值电阻两端的电压是6V，求电流。"


def test_a_line_of_a_cut_column_that_starts_a_character_in_is_that_columns_too():
    # a page photographed at a slant: the left column is cut by the frame's side, and its
    # line 「者是谁?」 starts 8 px in, under a line at the side and level with the framed
    # problem's second line (set 6, f013)
    boxes = [slanted("（16）在等比数列{an}中，a1", [[362, 397], [866, 269], [882, 334], [378, 462]]),
             slanted("(17) 鸦片战争爆发于哪一", [[464, 502], [853, 400], [866, 451], [477, 553]]),
             slanted("西汉建立于哪一年？建立", [[0, 630], [392, 549], [404, 602], [10, 684]]),
             slanted("年?", [[458, 551], [525, 536], [536, 584], [469, 599]]),
             slanted("者是谁?", [[8, 674], [150, 646], [161, 702], [19, 730]])]
    assert arrange_page(boxes, (1280, 960)).text == "鸦片战争爆发于哪一年?"


def test_score_notes_set_at_the_right_make_no_column():
    # a one-column page whose score notes stand right of the lines (and one line runs on
    # after a blank to the right): the notes are no column, so "university" stays
    boxes = [at("【21】中华人民共和国是哪一年成立的？", 104, 590, 388, 431), at("(10 pts)", 747, 869, 387, 436),
             at("【22】把0.75 化成最简分数。", 97, 457, 508, 553),
             at("【23】Fill in the blank with \"a\" or \"an\": ____", 94, 554, 627, 670),
             at("university [3 points]", 652, 906, 626, 672),
             at("【24】第一次世界大战爆发于哪一年？", 88, 538, 744, 786), at("(3 marks)", 647, 780, 746, 787),
             at("【25】计算：√48÷√3", 82, 354, 859, 901), at("(2 marks)", 792, 922, 860, 903),
             at("【26】《春晓》的作者是谁?", 75, 416, 972, 1016)]
    assert arrange_page(boxes, (960, 1280)).text == 'Fill in the blank with "a" or "an": ____ university'


def test_a_teachers_score_at_the_frames_side_cuts_no_line():
    # "10" written in the margin, at the frame's right side, on the framed problem's row
    boxes = [slanted("10", [[912, 654], [959, 654], [959, 694], [912, 694]]),
             slanted("university [3 points]", [[654, 641], [906, 656], [903, 699], [652, 685]]),
             slanted('【23】Fill in the blank with "a" or "an": ____', [[97, 600], [554, 635], [551, 675], [94, 640]]),
             slanted("【21】中华人民共和国是哪一年成立的？", [[106, 363], [590, 396], [587, 438], [104, 405]])]
    assert arrange_page(boxes, (960, 1280)).text == 'Fill in the blank with "a" or "an": ____ university'


def test_a_cross_beside_a_score_note_does_not_close_the_gutter():
    # the detector ran 「(6分)」 on over the cross drawn beside it, into the gutter
    boxes = [slanted("(9) 光合作用的场所是哪里", [[951, 550], [1279, 535], [1279, 580], [953, 595]]),
             slanted("(6分)X", [[797, 478], [962, 471], [966, 549], [800, 556]]),
             slanted("是什么？", [[985, 439], [1099, 434], [1101, 483], [987, 488]]),
             slanted("(3) 细胞的控制中心是什么结构?", [[393, 431], [770, 410], [773, 453], [396, 475]]),
             slanted("三、填空题", [[935, 347], [1089, 339], [1091, 387], [937, 394]]),
             slanted("(2) 人体最大的消化腺是什么?", [[391, 163], [734, 141], [737, 185], [394, 207]]),
             slanted("子代中矮茎所占的比例是", [[969, 158], [1279, 138], [1279, 182], [972, 202]]),
             slanted("(7)豌豆的高茎（D）对矮茎（", [[918, 77], [1279, 52], [1279, 97], [921, 122]]),
             slanted("D. 线粒体", [[634, 51], [769, 42], [772, 85], [637, 94]]),
             slanted("B. 细胞膜", [[632, 11], [765, 3], [768, 44], [635, 52]])]
    assert arrange_page(boxes, (1280, 960)).text == "细胞的控制中心是什么结构?"


def test_a_score_note_before_an_empty_answer_bracket_is_left_out():
    boxes = [box("4) 在等差数列 {an} 中，a₁ = 2，公差 d = 3，求前 10 项和 S₁₀", 230, 570, 750, h=45),
             box("(本题4分)", 974, 560, 130, h=44), box("()", 1321, 556, 92, h=45)]
    assert arrange_page(boxes, SIZE).text == "在等差数列 {an} 中，a₁ = 2，公差 d = 3，求前 10 项和 S₁₀"


def test_a_cross_after_marks_in_square_brackets_at_the_frames_side_cuts_no_line():
    # the cross drawn after "[2 points]" was read into the line's box, which reaches the
    # frame's right side: the line ends there, whole
    boxes = [box('③ What is the opposite of "expensive"? (4 pts)', 83, 475, 732, h=50),
             box('④ What is the superlative form of "good"? [2 points]X', 81, 610, 879, h=60),
             box('⑤ Fill in the blank with "a" or "an": ____', 86, 757, 582, h=52)]
    assert arrange_page(boxes, (960, 1280)).text == 'What is the superlative form of "good"?'


def test_an_arrow_drawn_in_the_margin_at_the_frames_side_cuts_no_line():
    # the student's arrow before "(2)" reaches the frame's left side and was read into
    # the line's box; the problem under the frame's centre is still whole
    boxes = [box('(1) What is the past tense of "go"? (10 pts)', 31, 200, 1040, h=60),
             box("→ (2) How many moles of water are there in", 0, 450, 1022, h=62),
             box("36 g of water? (H = 1, O = 16) (3 pts)", 159, 515, 895, h=62),
             box("(3) Solve the inequality: 3x - 5 < 7. (6 pts)", 82, 600, 966, h=60),
             box('(4) Fill in the blank with "a" or "an": ____ apple', 91, 690, 948, h=60)]
    assert arrange_page(boxes, (1280, 960)).text == "How many moles of water are there in 36 g of water? (H = 1, O = 16)"


def test_sums_worked_below_a_problem_are_no_part_of_it():
    # a student's working under problem 11, in the space before problem 12
    boxes = [box("10) Choose the correct word: He ____ to school by bike yesterday.", 246, 350, 560, h=24),
             box("11) What is the basic unit of structure and", 202, 465, 582, h=40),
             box("function of living things?", 253, 521, 286, h=42),
             box("(2+12)x5", 268, 556, 174, h=62), box("=70", 273, 601, 78, h=60),
             box('12) What is the past tense of "go"?', 260, 774, 435, h=87)]
    assert arrange_page(boxes, (1280, 960)).text == "What is the basic unit of structure and function of living things?"


def test_a_line_left_on_an_equals_sign_after_a_score_note_goes_on():
    # the score note's bracket is no end of the problem, and "B =" goes on below
    boxes = [box("3、(4分)一个直角三角形的两条直角边", 56, 383, 1485, h=120), box("分别是3和4，求斜边的长。", 242, 525, 1080, h=120),
             box("4、(3分)已知集合A = {1,2,3}，B =", 82, 688, 1430, h=120), box("{2, 3, 4}，求A∩B。", 277, 834, 817, h=120)]
    assert arrange_page(boxes, (2000, 1500)).text == "已知集合A = {1,2,3}，B ={2, 3, 4}，求A∩B。"


def test_a_sum_worked_in_big_digits_under_the_problem_neither_joins_nor_cuts_it():
    # 「59」 and 「—50」 under problem 4 run down to the frame's bottom: the problem is whole
    boxes = [box("3、(4分)一个直角三角形的两条直角边", 56, 383, 1485, h=120), box("分别是3和4，求斜边的长。", 242, 525, 1080, h=117),
             box("4、(3分)已知集合A = {1,2,3}，B =", 82, 688, 1430, h=129), box("{2, 3, 4}，求A∩B。", 277, 834, 817, h=126),
             box("59", 317, 941, 240, h=200), box("—50", 416, 1105, 401, h=394)]
    assert arrange_page(boxes, (2000, 1500)).text == "已知集合A = {1,2,3}，B ={2, 3, 4}，求A∩B。"


def test_a_sum_written_in_the_margin_and_read_into_a_line_reaching_the_frames_side_cuts_no_problem():
    # the detector took 「5+13=」, written beside problem 3's second line, into that line's box
    boxes = [box("常工作10 h，消耗多少电能?", 251, 40, 862, h=110),
             box("3. 用20N的水平拉力拉着物体沿水平", 0, 420, 1301, h=120),
             box("方向移动了 5 m，用时 10 s，拉力做 5+13=", 231, 540, 1369, h=125),
             box("功的功率是多少？", 232, 665, 523, h=95),
             box("4. 血液循环中，体循环开始于心脏的哪", 74, 910, 1239, h=104), box("个腔?", 215, 1030, 203, h=98)]
    assert arrange_page(boxes, (1600, 1200)).text == "用20N的水平拉力拉着物体沿水平方向移动了 5 m，用时 10 s，拉力做功的功率是多少？"


def test_a_sum_written_in_the_margin_beside_a_problems_line_is_no_part_of_it():
    # 「6x8=48」 stands just after the end of problem 6's first line, a box of its own
    boxes = [at("4. 解方程: 2x+3=11（5分）", 240, 494, 552, 585), at("5. 秦朝建立于哪一年？（2分）", 236, 492, 589, 623),
             at("6x8=48", 576, 658, 619, 652), at("6. 钠元素的原子序数是多少？钠原子核外", 235, 575, 622, 657),
             at("48-5=43", 573, 663, 640, 677), at("有几个电子？（5分)", 259, 433, 655, 685),
             at("7. 把下面的句子翻译成英语：我每天早上", 232, 556, 703, 740)]
    assert arrange_page(boxes, (960, 1280)).text == "钠元素的原子序数是多少？钠原子核外有几个电子？"


def test_an_equation_whose_right_side_wrapped_to_the_next_line_is_whole():
    # 「(6) 解方程组： x + y = 10,x - y」 ⏎ 「=4」: the second equation's right side, not working
    boxes = [at("(5) 一块金属的质量是 270 g，体积", 863, 1819, 272, 359), at("是 100 cm³，求它的密度。", 980, 1661, 370, 451),
             at("(6) 解方程组： x + y = 10,x - y", 842, 1726, 617, 701), at("=4", 964, 1074, 716, 793),
             at("(7) 水的化学式是什么？", 822, 1407, 935, 1021)]
    assert arrange_page(boxes, (2000, 1500)).text == "解方程组： x + y = 10,x - y =4"


def test_a_score_written_between_the_columns_is_neither_columns_text():
    # 「-1」 stands between the left column's remnant, cut by the frame, and problem 22
    boxes = [slanted("23. (4分)秦朝灭亡于哪一年?", [[344, 591], [699, 602], [698, 643], [343, 632]]),
             slanted("长”比喻什么？", [[0, 492], [162, 498], [160, 542], [0, 536]]),
             slanted("A. 1840年", [[413, 459], [561, 464], [559, 504], [411, 500]]),
             slanted("《春晓》的作者是谁?", [[426, 418], [671, 424], [670, 466], [425, 459]]),
             slanted("22.", [[351, 419], [403, 419], [403, 455], [351, 455]]),
             slanted("兔”比喻什么?", [[0, 400], [168, 403], [167, 448], [0, 444]]),
             slanted("-1", [[175, 403], [227, 403], [227, 439], [175, 439]])]
    assert arrange_page(boxes, (1280, 960)).text == "《春晓》的作者是谁?"


def test_the_next_columns_number_with_a_cross_at_the_end_of_a_row_is_no_part_of_it():
    # 「X24.」: a cross and the next column's number, whose words lie beyond the frame
    boxes = [at("三、填空题", 236, 499, 320, 398), at("13、中国共产党第一次全国代表大会是哪", 229, 1089, 407, 488),
             at("X24.", 1088, 1262, 416, 500), at("一年召开的?", 228, 491, 478, 547),
             at("14、“贞观之治”出现在哪位皇帝统治时期?", 211, 1089, 648, 721)]
    assert arrange_page(boxes, (1280, 960)).text == "中国共产党第一次全国代表大会是哪一年召开的?"
    # a number with the words of its problem after it on the row is not dropped
    boxes[2] = at("24. 一个物体受到的合外力", 1088, 1262, 416, 500)
    assert "24." in arrange_page(boxes, (1280, 960)).page_text


def test_a_circle_read_as_a_letter_before_the_number_is_a_mark():
    boxes = [box("8. 计算：3/4 + 1/6", 300, 300, 500), box("C", 180, 560, 60),
             box("9. 解方程：2x + 3 = 11", 260, 560, 600)]
    assert arrange_page(boxes, SIZE).text == "解方程：2x + 3 = 11"


def test_a_problem_number_whose_di_was_lost_still_starts_a_problem():
    boxes = [box("第12题 计算：3/4 + 1/6", 300, 520, 500), box("13题 解方程：2x + 3 = 11", 300, 580, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.page_text.splitlines() == ["第12题 计算：3/4 + 1/6", "13题 解方程：2x + 3 = 11"]


def test_the_problem_whose_lines_the_frame_centre_falls_on_wins_a_near_tie():
    # Both problems' centres are about equally near the frame's centre (800, 600), but the
    # centre falls on the lines of the first: the student framed it.
    boxes = [box("1. 一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？", 100, 570, 1400),
             box("2. 解方程：2x + 3 = 13", 660, 620, 280)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？"
    assert layout.choices == ()
    # Moved up by 15 px, the centre falls between them, on neither: both are offered.
    shifted = arrange_page([box(b.text, b.quad[0][0], b.quad[0][1] - 15, b.quad[1][0] - b.quad[0][0]) for b in boxes], SIZE)
    assert len(shifted.choices) == 2


def test_chinese_numerals_number_problems_and_a_section_heading_stays_a_header():
    boxes = [box("一、计算题", 300, 200, 300),
             box("十一、已知集合 A = {1, 2, 3}，B = {2, 3, 4}，求 A ∩ B。", 300, 560, 900),
             box("十二、计算：sin 30° + cos 60°", 300, 700, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "已知集合 A = {1, 2, 3}，B = {2, 3, 4}，求 A ∩ B。"
    assert is_header("一、计算题")


def test_sub_questions_still_start_problems_under_a_section_heading():
    # "一、计算题" is a heading, not a top-level number: the page's problems are (1), (2).
    boxes = [box("一、计算题", 300, 200, 300), box("(1) 解方程：2x + 3 = 11", 300, 560, 600),
             box("(2) 求 24 和 36 的最小公倍数。", 300, 606, 700)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text in ("解方程：2x + 3 = 11", "求 24 和 36 的最小公倍数。") and "\n" not in layout.text


def test_a_short_problem_line_is_near_wherever_the_frame_centre_lies_across_it():
    # The short line of problem 2 ends left of the centre's column only a little; its own
    # middle is far to the left, while problem 3's long lines centre under the frame.
    boxes = [box("2. 《背影》的作者是谁？", 100, 585, 720),
             box("3. 一个长方形的长是 8 厘米，宽是 6 厘米，它的面积是多少平方厘米？", 100, 700, 1400),
             box("它的周长又是多少厘米？", 160, 745, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "《背影》的作者是谁？"
    assert layout.choices == ()


def test_a_score_written_by_hand_beside_the_problem_is_left_out():
    beside = [box("9. 解方程：2x + 3 = 11", 300, 560, 600), box("12", 960, 550, 60, h=64)]
    assert arrange_page(beside, SIZE).text == "解方程：2x + 3 = 11"
    below = [box("8. 计算：3/4 + 1/6", 300, 300, 500), box("写出过程。", 300, 350, 200),
             box("9. 解方程：2x + 3 = 11", 300, 560, 600), box("-2", 820, 610, 70, h=80)]  # a row of its own
    assert arrange_page(below, SIZE).text == "解方程：2x + 3 = 11"


def test_the_next_columns_bare_number_after_the_end_of_a_line_is_left_out():
    boxes = [box("9. 一个长方形的长是8厘米，宽是5厘米，", 200, 540, 760), box("13.", 1060, 540, 60),
             box("它的面积是多少平方厘米？", 200, 590, 460)]
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？"


def test_printed_figures_that_belong_to_the_problem_are_kept():
    close = [box("9. 已知 x + 3 =", 300, 560, 300), box("12", 612, 560, 40), box("，求 x。", 660, 560, 140)]
    assert arrange_page(close, SIZE).text == "已知 x + 3 = 12，求 x。"
    table = [box("9. 根据下表求 n 与 m 的关系式。", 300, 500, 560),
             box("m", 300, 560, 20), box("1", 420, 560, 20), box("2", 540, 560, 20), box("3", 660, 560, 20)]
    assert arrange_page(table, SIZE).text == "根据下表求 n 与 m 的关系式。m 1 2 3"


def test_a_section_label_after_a_problem_is_not_part_of_it():
    boxes = [box("9. 一件商品原价200元，打七五折出售，现价是多少元？", 200, 560, 900), box("能力提升", 200, 610, 160),
             box("10. 求 24 和 36 的最小公倍数。", 200, 900, 600)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "一件商品原价200元，打七五折出售，现价是多少元？"
    apart = [box("9. 一件商品原价200元，打七五折出售，现价是多少元？", 200, 560, 900),
             box("能力提升", 200, 660, 160)]  # a band of its own below the problem
    assert arrange_page(apart, SIZE).text == "一件商品原价200元，打七五折出售，现价是多少元？"


def test_a_short_line_that_goes_on_with_the_sentence_is_kept():
    boxes = [box("9. 一辆汽车以每小时60千米的速度行驶了3小时，它一共行驶了", 200, 560, 1000),
             box("多少千米", 200, 610, 160)]
    assert arrange_page(boxes, SIZE).text == "一辆汽车以每小时60千米的速度行驶了3小时，它一共行驶了多少千米"


@pytest.mark.parametrize("stroke", ["mmmmm", "mnm mm mAn", "mmmmdm"])
def test_a_pen_stroke_read_as_letters_is_left_out(stroke):
    boxes = [box("15. 求 24 和 36 的最小公倍数。", 200, 560, 600), box(stroke, 200, 610, 500)]  # struck under it
    assert arrange_page(boxes, SIZE).text == "求 24 和 36 的最小公倍数。"


def test_a_problem_read_without_its_numbers_dot_starts_a_new_problem():
    boxes = [box("15. 地球自转的方向是怎样的？", 300, 520, 600),
             box("16 Fill in the blank with \"a\" or \"an\": ___ apple", 300, 580, 800)]
    assert arrange_page(boxes, SIZE).text == 'Fill in the blank with "a" or "an": ____ apple'  # not joined


def test_a_cross_marked_after_the_problem_and_its_score_note_are_left_out():
    assert arrange_page([box("3. 世界上面积最大的大洲是哪个？(本小题满分4分)X", 300, 560, 800)], SIZE).text \
        == "世界上面积最大的大洲是哪个？"
    assert arrange_page([box("4. Find x. X", 300, 560, 400)], SIZE).text == "Find x."
    assert arrange_page([box("5. Find X", 300, 560, 400)], SIZE).text == "Find X"  # no end of sentence before it


def test_problems_numbered_in_square_brackets_are_not_joined():
    boxes = [box("【4】一块金属的质量是270g，体积是100 cm³，求它的密度。", 300, 520, 900),
             box("【5】计算：sin 30° + cos 60°", 300, 580, 600),
             box("(6) 光合作用的原料、条件和产物分别是什么？", 300, 640, 800)]  # 【6】 read as (6)
    assert arrange_page(boxes, SIZE).text == "计算：sin 30° + cos 60°"


def test_sub_questions_under_a_labelled_section_heading_are_problems():
    # 「三、基础知识」 is a heading: the page's problems are (3), (4), not sub-parts of 三.
    boxes = [box("三、基础知识", 300, 300, 300),
             box("（3）一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？", 300, 560, 900),
             box("（4）一个正方体的棱长是 4 厘米，它的表面积是多少平方厘米？", 300, 640, 900)]
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？"


def test_the_answer_space_is_no_part_of_the_problem():
    assert strip_number("解方程：x²-5x+4=0(6分)解:") == "解方程：x²-5x+4=0"
    assert strip_number("成语“揠苗助长”比喻什么?解:") == "成语“揠苗助长”比喻什么?"
    assert strip_number("解方程：2x + 3 = 13") == "解方程：2x + 3 = 13"  # 解方程 is the problem's verb
    boxes = [box("②(10分)世界上面积最大的大洲是哪个？", 300, 500, 800), box("解：", 300, 550, 80),
             box("(6分)我国面积最大的省级行政区是哪一个？", 300, 590, 800)]  # ③ read apart as a mark
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "我国面积最大的省级行政区是哪一个？"


def test_a_problem_whose_number_was_not_read_is_not_joined_to_the_one_above():
    # "9、" was too faint for the detector; its problem stands as far below problem 8 as the
    # numbered problems stand apart on this page
    boxes = [box("7、《春晓》的作者是谁？", 300, 380, 500), box("8、《出师表》的作者是谁？", 300, 480, 500),
             box("《背影》的作者是谁？", 360, 580, 440), box("10、正常人的体细胞中有多少对染色体？", 300, 680, 700)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "《背影》的作者是谁？"
    assert layout.choices == ()


def test_lines_set_closer_than_the_problems_stay_one_problem():
    # the same spacing: a problem's second sentence on the next line, at the line pitch (the
    # next problem is 9: with 10 there, a 9 whose number was lost would start after the 。)
    boxes = [box("7、《春晓》的作者是谁？", 300, 380, 500), box("8、一个物体受到的重力是 20 N。", 300, 480, 600),
             box("求它的质量。", 360, 528, 300), box("9、正常人的体细胞中有多少对染色体？", 300, 628, 700)]
    assert "一个物体受到的重力是 20 N。求它的质量。" in arrange_page(boxes, SIZE).page_text


def test_a_line_that_goes_on_with_the_sentence_stays_with_its_problem_however_far_below():
    boxes = [box("7、《春晓》的作者是谁？", 300, 380, 500), box("8、一个长方形的长是 8 厘米，宽是", 300, 480, 700),
             box("5 厘米，它的面积是多少？", 360, 580, 500), box("10、正常人的体细胞中有多少对染色体？", 300, 680, 700)]
    assert "一个长方形的长是 8 厘米，宽是5 厘米，它的面积是多少？" in arrange_page(boxes, SIZE).page_text


def test_a_score_note_at_the_end_of_a_line_ends_its_problem():
    # problems set as close as their lines; the next problem's number was not read
    boxes = [box("11. 在等差数列{an}中，a1=2，公差d=", 300, 480, 700), box("3，求前 10 项和 S10。[8分]", 340, 525, 400),
             box("已知集合A={1,2,3}，B={2,3,4}，求", 340, 570, 600), box("A∩B。[10分]", 340, 615, 200),
             box("13. 一个正方体的棱长是 4 厘米，它的体积是多少？[5分]", 300, 660, 800)]
    assert arrange_page(boxes, SIZE).text == "已知集合A={1,2,3}，B={2,3,4}，求A∩B。"


def test_a_cross_read_as_a_letter_before_the_number_is_a_mark():
    assert strip_ticks("X9) 【2分】常温（25 °C）下纯水的 pH 是多少？") == "9) 【2分】常温（25 °C）下纯水的 pH 是多少？"
    assert strip_ticks("x2 - 5x + 6 = 0 的解是什么？") == "x2 - 5x + 6 = 0 的解是什么？"  # x² read as x2
    boxes = [box("8) 【3分】用 20 N 的水平拉力拉着物体移动了 5 m，", 300, 480, 900),
             box("X9) 【2分】常温（25 °C）下纯水的 pH 是多少？", 280, 560, 700),
             box("10) 【2分】写出实验室用高锰酸钾制取氧气的化学方程式。", 300, 700, 900)]
    assert arrange_page(boxes, SIZE).text == "常温（25 °C）下纯水的 pH 是多少？"


def test_a_score_note_wrapped_onto_a_line_of_its_own_stays_with_its_problem():
    boxes = [box("4、一名同学的质量是 50 kg，他受到的重力是多少？（g 取 10 N/kg）", 250, 500, 1250),
             box("[10分]", 240, 548, 150),
             box("5、一个定值电阻两端的电压是 6 V，通过它的电流是 0.3 A，求这个电阻的", 230, 640, 1300),
             box("阻值。[6分]", 230, 688, 250)]
    layout = arrange_page(boxes, SIZE)
    assert layout.page_text.splitlines()[0] == "4、一名同学的质量是 50 kg，他受到的重力是多少？（g 取 10 N/kg）[10分]"
    assert layout.text == "一名同学的质量是 50 kg，他受到的重力是多少？（g 取 10 N/kg）"


def test_a_short_problem_in_the_middle_of_the_frame_wins_over_a_long_one_nearer_across():
    # the student framed the column: problem 15 is centred top to bottom, but its text ends
    # far left of the centre, while problem 14's longer line passes under it
    boxes = [box("(14) 已知函数 f(x) = 2x² - 3x + 1，求 f(2) 的值。", 70, 440, 700),
             box("(15) 我国面积最大的高原是哪一个？", 70, 580, 420),
             box("(16) 常温（25 ℃）下纯水的 pH 是多少？", 70, 720, 480)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "我国面积最大的高原是哪一个？"
    assert layout.choices == ()


def test_across_the_gutter_the_column_under_the_centre_wins():
    # the same rule keeps the columns apart: the centre falls on the right column's text
    boxes = [box("3. 世界上面积最大的大洋是哪个？", 100, 560, 560), box("4. 水的化学式是什么？", 100, 680, 400),
             box("13. 一个正方体的棱长是 4 厘米，它的体积是多少？", 760, 620, 700)]
    assert arrange_page(boxes, SIZE).text == "一个正方体的棱长是 4 厘米，它的体积是多少？"


def test_a_title_above_a_problem_whose_circled_number_was_read_as_a_digit_is_left_out():
    boxes = [box("期中复习综合练习", 330, 490, 320, h=56), box("5", 102, 598, 26, h=28),
             box("(10分）计算H2O的相对分子质量。", 140, 588, 525, h=49), box("H-1, O-16)", 127, 635, 190, h=48),
             box("一、基础题", 83, 801, 170, h=50), box("⑥【8分】写出碳在氧气中不充分燃烧的化学方程式。", 83, 855, 720, h=46)]
    assert arrange_page(boxes, (960, 1280)).text == "计算H2O的相对分子质量。H-1, O-16)"


def test_two_columns_of_lines_that_read_alike_are_split_at_the_pages_gutter():
    # one row per column in each band, and the same words on both sides of the gutter
    left = [box(f"{n}. 计算：{n} + {n}", 100, 300 + 150 * i, 600) for i, n in enumerate((1, 2, 3, 4))]
    right = [box("Fill in the blank: ____", 900, 300 + 150 * i, 500) for i in range(4)]
    title = box("Fill in the blank: ____", 500, 255, 600)  # across the gutter, read like the right column
    layout = arrange_page([title, *left, *right], SIZE)
    assert layout.text == "计算：3 + 3"
    assert "Fill" not in layout.text


def test_a_line_that_ends_its_sentence_at_the_frames_side_is_whole():
    # the detector ran the framed problem's box on over a mark at the frame's right side
    boxes = [box("13. Choose the correct word: He ___ to school by bike every day.", 100, 300, 1300),
             box("14. What is the past tense of \"go\"?", 100, 560, 1500),  # reaches x = 1600
             box("15. 世界上面积最大的大洲是哪个？", 100, 800, 800)]
    assert arrange_page(boxes, SIZE).text == 'What is the past tense of "go"?'


def test_a_students_answer_written_below_the_problem_is_no_part_of_it():
    boxes = [box("12. 常温（25 ℃）下纯水的 pH 是多少？", 300, 540, 800), box("25℃时pH=7", 340, 600, 300),
             box("13. 计算 H₂O 的相对分子质量。", 300, 900, 700), box("（相对原子质量：H-1，O-16）", 300, 960, 700)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "常温（25 ℃）下纯水的 pH 是多少？"
    assert "25℃时pH=7" in layout.page_text


def test_a_second_sentence_that_asks_stays_with_the_problem():
    boxes = [box("7. A ball is dropped from rest.", 300, 540, 600),
             box("Ignoring air resistance and taking g = 10 m/s²,", 300, 600, 900),
             box("how far does it fall in 2 s?", 300, 660, 600)]
    assert arrange_page(boxes, SIZE).text == \
        "A ball is dropped from rest. Ignoring air resistance and taking g = 10 m/s², how far does it fall in 2 s?"


def test_answer_options_end_their_problem_when_the_next_problems_number_was_not_read():
    # the next problem's number was printed white on a coloured box and not read
    boxes = [box("3. Which is a prime number?", 300, 460, 700), box("A. 4   B. 7   C. 9   D. 15", 340, 520, 700),
             box("A rectangle is 8 cm long and 6 cm wide. What is its area?", 300, 580, 1000),
             box("5. 计算：3/4 + 1/6", 300, 700, 500)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "A rectangle is 8 cm long and 6 cm wide. What is its area?"
    assert "3. Which is a prime number? A. 4   B. 7   C. 9   D. 15" in layout.page_text.splitlines()


LEFT_COLUMN = [(1, "“开元盛世”出现在哪位皇帝统治时期？"), (2, "第二次世界大战结束于哪一年？"), (3, "秦朝建立于哪一年？"),
               (4, "《春晓》的作者是谁？"), (5, "光合作用的场所是哪里？")]
RIGHT_COLUMN = [(6, "《背影》的作者是谁？"), (7, "辛亥革命爆发于哪一年？"), (8, "鸦片战争爆发于哪一年？"),
                (9, "《论语》主要记录了谁的言行？"), (10, "DNA 分子的双螺旋结构模型是由谁提出的？")]


def two_columns(left_width, right_top: float) -> tuple[list[TextBox], list[TextBox]]:
    """Five numbered lines in each column; the right one starts at x = 814."""
    left = [box(f"{n}、{q}", 100, 300 + 100 * i, left_width(q)) for i, (n, q) in enumerate(LEFT_COLUMN)]
    right = [box(f"{n}、{q}", 814, right_top + 100 * i, 690) for i, (n, q) in enumerate(RIGHT_COLUMN)]
    return left, right


def test_two_columns_close_together_are_split_at_a_gutter_that_runs_down_the_whole_page():
    # the gutter is under a line height wide (a rule between the columns), but no line crosses it
    left, right = two_columns(lambda q: 690, right_top=350)
    blocks = find_blocks(left + right, SIZE)
    assert [b.text for b in blocks] == [b.text for b in left + right]


def test_two_columns_whose_boxes_nearly_touch_are_split_at_the_gutter():
    # the detector's boxes reach past the ink, so a printed gutter with a rule in it is
    # left a fifth of a line height wide after the left column's longest lines; the rows of
    # the two columns are level with each other
    left, right = two_columns(lambda q: min(706, 40 * len(q)), right_top=300)
    blocks = find_blocks(left + right, SIZE)
    assert sorted(b.text for b in blocks) == sorted(b.text for b in left + right)


def test_a_few_lines_each_found_in_two_pieces_at_the_same_place_are_no_columns():
    lines = [("1. 解方程组：", "x + y = 10，x - y = 2"), ("2. 已知集合：", "A = {1, 2, 3}，求 A ∩ B"),
             ("3. 计算下列：", "3/4 + 1/6 的值")]
    boxes = [b for i, (a, c) in enumerate(lines) for b in (box(a, 300, 500 + 100 * i, 400), box(c, 708, 500 + 100 * i, 500))]
    assert [b.text for b in find_blocks(boxes, SIZE)] == [join(a, c) for a, c in lines]


@pytest.mark.parametrize("rows", [
    ["(3) 一个质量为 5 kg 的物体受到 10 N 的合外力作用，求它的加速度大小。", "由牛顿第二定律F = ma"],
    ["② 解方程：2x + 3 = 11", "移项得2x = 11 - 3"],
    ["(8) 解方程组：x + y = 10，x - y = 4", "两个方程相加得2x = 14"],
])
def test_a_students_working_below_the_end_of_the_problem_is_no_part_of_it(rows):
    boxes = [box(rows[0], 300, 540, 900), box(rows[1], 340, 610, 500)]
    assert arrange_page(boxes, SIZE).text == strip_number(rows[0]).strip()


def test_working_written_on_after_the_question_mark_is_no_part_of_the_problem():
    boxes = [box("7. An object with a mass of 2 kg moves at 3 m/s.", 100, 540, 900),
             box("What is its kinetic energy? E_k = 1/2mv² =", 100, 600, 900)]
    assert arrange_page(boxes, SIZE).text == "An object with a mass of 2 kg moves at 3 m/s. What is its kinetic energy?"


def test_a_page_numbered_in_brackets_keeps_its_problems_apart_when_one_number_is_read_bare():
    # the teacher circled (11): the recogniser read it as a bare 11, and the other
    # numbers' brackets do not pair
    lines = ["【10）豌豆的高茎对矮茎为显性，后代中高茎占的比例是多少？", "11光合作用的场所是哪里？",
             "【12】人体最大的消化腺是什么？", "13】血液循环中，肺循环开始于心脏的哪个腔？",
             "【14) 植物细胞具有而动物细胞通常没有的结构有哪些？"]
    boxes = [box(line, 300, 440 + 60 * i, 1000) for i, line in enumerate(lines)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "人体最大的消化腺是什么？"
    assert layout.page_text.splitlines() == lines


@pytest.mark.parametrize("lead_in, part, part_ends, after", [
    ("15、解答下列各题。", "①写出碳在氧气中不充分燃烧的化学方", "程式。", "②钠元素的原子序数是多少？"),
    ("第3题：回答下列问题:", "(1) 在等差数列 {aₙ} 中，a₁ = 2，公差 d = 3，", "求 a₁₀。", "(2)计算: sin 60° + cos 30°"),
    ("1) Answer the following questions.", "a) A bag contains 3 red balls and 5 blue balls.", "What is the probability that it is red?",
     "b) Find the slope of the line."),
    ("Question 9： 按要求完成下列各题。", "一个长方形的长是 8 厘米，宽是 6 厘米，它的面积是多", "少平方厘米？", ""),  # one part, no number
])
def test_under_a_lead_in_each_part_is_a_problem_of_its_own(lead_in, part, part_ends, after):
    # 「解答下列各题。」 asks nothing: though it lies nearest the frame's centre, the student
    # framed the part printed under it
    lines = ["14、空气中体积分数约占 21% 的气体是什么？", lead_in, part, part_ends, after, "16、计算 CO₂ 的相对分子质量。"]
    tops = [480, 560, 630, 680, 760, 840]  # a problem's lines 50 px apart, problems 80; the lead-in's middle at 580
    boxes = [box(line, 300, top, 900) for line, top in zip(lines, tops) if line]
    assert arrange_page(boxes, SIZE).text == join(strip_number(part), part_ends)


@pytest.mark.parametrize("label, parts, framed", [
    ("第一题（10分）", ["（1）解方程：2x + 3 = 11", "（2）求 24 和 36 的最小公倍数。", "（3）把 0.75 化成最简分数。"], 1),
    ("Question 1 (5 marks)", ["(1) Solve 2x + 3 = 11.", "(2) Find the LCM of 24 and 36.", "(3) Simplify 0.75."], 1),
    ("第二题", ["①写出名词 tooth 的复数形式。", "②《背影》的作者是谁？"], 0),
])
@pytest.mark.parametrize("pitch", [60, 100])  # parts a line apart, or farther
def test_under_a_label_with_no_stem_each_part_is_a_problem_of_its_own(label, parts, framed, pitch):
    # a header 「第一题（10分）」 alone on its line, then its parts: nothing is asked above
    # them, so the one the student framed is what is searched, not every part joined
    lines = [label, *parts, "第三题 计算：3/4 + 1/6"]
    tops = [400] + [460 + pitch * i for i in range(len(lines) - 1)]
    centre = tops[1 + framed] + 20
    boxes = [box(line, 300, top - centre + SIZE[1] // 2, 900) for line, top in zip(lines, tops)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == strip_number(parts[framed])
    assert layout.choices == ()


def test_a_label_alone_over_its_stem_and_parts_keeps_them_together():
    lines = ["第一题（10分）", "已知一个长方形的长是 8 厘米，宽是 6 厘米。", "(1) 求它的周长；", "(2) 求它的面积。"]
    boxes = [box(line, 300, 480 + 60 * i, 900) for i, line in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "已知一个长方形的长是 8 厘米，宽是 6 厘米。(1) 求它的周长；(2) 求它的面积。"


def test_a_line_that_goes_on_with_an_english_sentence_is_no_header():
    # "Practice" is a word of sheet titles, but the line above broke the sentence after "into"
    lines = ["(7) 我国面积最大的高原是哪一个？", "(8) (5 points) Translate into", "Chinese: Practice", "makes perfect.",
             "(9) 第二次世界大战结束于哪一年？"]
    boxes = [box(line, 300, 440 + 70 * i, 700) for i, line in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "Translate into Chinese: Practice makes perfect."


def test_a_column_cut_by_the_frames_side_is_kept_where_it_runs_across_the_middle():
    # both columns cut: the framed one by the left side (its numbers at the edge), the other
    # one's remnants by the right side; the framed column's lines run past the middle
    left = [("2. 声音在 15℃ 的空气中的传播速度约是多少？", 0, 380, 1000), ("3. (2 marks) A ball is dropped from rest.", 0, 520, 1050),
            ("Ignoring air resistance and taking g = 10 m/s²,", 120, 580, 900), ("what is its speed after 2 s?", 120, 640, 600),
            ("4. 西汉建立于哪一年？建立者是谁？", 0, 760, 950)]
    right = [("17. 成语“守株", 1200, 440, 400), ("see the", 1180, 530, 420), ("19. Which org", 1190, 650, 410),
             ("20. 我国最长", 1200, 770, 400)]
    boxes = [box(text, x, y, w) for text, x, y, w in left + right]
    assert arrange_page(boxes, SIZE).text == \
        "A ball is dropped from rest. Ignoring air resistance and taking g = 10 m/s², what is its speed after 2 s?"


def test_a_box_run_across_the_gutter_over_two_columns_lines_is_parted_at_the_label():
    # the detector took the left column's line and the framed problem's first line as one box
    left = ["1题 世界最高峰是哪座山峰？", "它的海拔是多少？", None, "长，宽是5 厘米，它的面积是", "多少平方厘米?", "4题 用20N的拉力拉物体"]
    right = ["第1题 钠元素的原子序数是多少？", "钠原子核外有几个电子？", None, "电阻串联，总电阻是多少？", "第3题 已知函数 f(x) = 2x² - 3x + 1，",
             "求 f(-1) 的值。"]
    boxes = [box(text, 100, 420 + 70 * i, 620) for i, text in enumerate(left) if text]
    boxes += [box(text, 800, 420 + 70 * i, 700) for i, text in enumerate(right) if text]
    boxes.append(box("3题一个长方形的长是8第2题两个阻值都是10Ω的", 100, 560, 1400))
    assert arrange_page(boxes, SIZE).text == "两个阻值都是10Ω的电阻串联，总电阻是多少？"


def test_a_star_drawn_in_the_problems_line_is_no_part_of_it():
    boxes = [box("8. 计算：3/4 + 1/6", 300, 450, 500), box("9. 一次函数 y = 2x + 1 的图像与 x 轴的交点坐标是什 ☆么？", 300, 580, 1000),
             box("10. 求 24 和 36 的最小公倍数。", 300, 710, 700)]
    assert arrange_page(boxes, SIZE).text == "一次函数 y = 2x + 1 的图像与 x 轴的交点坐标是什么？"


def test_a_row_of_figures_over_a_problem_whose_number_was_lost_is_no_part_of_it():
    # "4)" lost; a student's answers to 3) written in a row right above the problem
    rows = [("2) 第一次世界大战爆发于哪一年？", 261), ("3) 标准状况下，11.2 L 氧气的物质的量是多少？", 332), ("0.5 mol 20 25", 435),
            ("Find the slope of the line passing through the", 523), ("points (1, 2) and (3, 6).", 568),
            ("5) Find the slope of the line passing through the", 660), ("points (1, 2) and (3, 8).", 705)]
    boxes = [box(text, 300, top + 60, 900, h=46) for text, top in rows]
    assert arrange_page(boxes, SIZE).text == "Find the slope of the line passing through the points (1, 2) and (3, 6)."


def test_sub_questions_from_one_stay_with_their_problem_on_a_numbered_page():
    lines = ["5. 已知一个长方形的长是 8 厘米，宽是 6 厘米。", "(1) 求它的周长；", "(2) 求它的面积。", "(3) 求它的对角线长。"]
    boxes = [box(line, 300, 480 + 60 * i, 900) for i, line in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "已知一个长方形的长是 8 厘米，宽是 6 厘米。(1) 求它的周长；(2) 求它的面积。(3) 求它的对角线长。"


def test_working_written_beside_the_question_to_the_frames_side_leaves_the_problem_whole():
    boxes = [box("Q4 过氧化氢的化学式是什么？", 200, 420, 800),
             box("Q5 标准状况下，11.2 L 氧气的物质的量是多少？", 200, 580, 1250), box("所以n", 1440, 575, 160),
             box("Q6 水的化学式是什么？", 200, 760, 700)]
    assert arrange_page(boxes, SIZE).text == "标准状况下，11.2 L 氧气的物质的量是多少？"


def test_writing_after_the_problems_end_on_to_the_frames_side_leaves_the_problem_whole():
    boxes = [box("二十五、把0.75化成最简分数。", 150, 440, 600),
             box("二十六、一个圆的半径是3厘米，它的周长是多少厘米？（π取3.14）", 150, 580, 1150), box("圆的周长C", 1295, 585, 305),
             box("二十七、计算: sin 30° + cos 60°", 150, 720, 600)]
    assert arrange_page(boxes, SIZE).text == "一个圆的半径是3厘米，它的周长是多少厘米？（π取3.14）"


def test_a_printed_sentence_that_asks_after_a_full_stop_at_the_frames_side_is_kept():
    boxes = [box("5. 一辆汽车的质量是 2 t。", 300, 580, 700), box("它对地面的压力是多少？", 1010, 580, 590)]
    assert arrange_page(boxes, SIZE).text == "一辆汽车的质量是 2 t。它对地面的压力是多少？"


def test_problems_whose_numbers_were_all_lost_are_parted_at_their_score_notes():
    # white numbers on coloured boxes, none read; the problems stand a line apart
    lines = ["已知函数f(x)=2x²-3x+1，求f(2)的值。(12分)", "一个正方体的棱长是4厘米，它的体积是多少立方厘米？(6分)",
             "计算：(-3)² - 2 × (-5)(10分)", "已知集合A={1,2,3}，B={2,3,4}，求A∩B。(10分)"]
    boxes = [box(line, 300, 480 + 55 * i, 1000) for i, line in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "计算：(-3)² - 2 × (-5)"


def test_working_written_down_to_the_next_unnumbered_problem_is_no_part_of_it():
    boxes = [box("一个质量为 5 kg 的物体受到 10 N 的合外力作用，求它的加速度大小。（本题8分）", 200, 380, 1200),
             box("由牛顿第二定律F = ma", 260, 540, 500),
             box("《论语》主要记录了谁的言行？它是哪一学派的经典？（本题10分）", 200, 595, 1100)]
    assert arrange_page(boxes, SIZE).text == "《论语》主要记录了谁的言行？它是哪一学派的经典？"


def test_an_answer_written_after_the_score_note_does_not_join_the_next_problem():
    # the next problem's circled number was not read; the row above ends with the score
    # note and the student's answer after it
    boxes = [box("① 解方程: x² - 5x + 6 = 0 (10 marks) x2 = 3", 150, 480, 1100),
             box("一个圆的半径是 3 厘米，它的面积是多少平方厘米？（π 取 3.14） (5 marks)", 190, 590, 1300)]
    assert arrange_page(boxes, SIZE).text == "一个圆的半径是 3 厘米，它的面积是多少平方厘米？（π 取 3.14）"


def test_a_line_left_on_an_equals_sign_after_its_number_stays_with_its_problem():
    boxes = [box("13.", 330, 560, 90), box("在等差数列{an}中，a₁=2，公差d=", 430, 560, 660),
             box("3, 求a10。[6分]", 430, 630, 320)]
    assert arrange_page(boxes, SIZE).text == "在等差数列{an}中，a₁=2，公差d= 3, 求a10。"


def test_a_line_that_closes_a_bracket_left_open_above_is_no_problem_number():
    boxes = [box("3. Find the slope of the line passing through the points (1,", 100, 560, 1100),
             box("2) and (3, 8).", 100, 615, 260), box("4. What is the sum of the interior angles of a pentagon?", 100, 700, 1000)]
    assert arrange_page(boxes, SIZE).text == "Find the slope of the line passing through the points (1, 2) and (3, 8)."
    sub = [box("(1) 求它的周长；", 300, 540, 500), box("(2) 求它的面积。", 300, 600, 500)]  # brackets closed above
    assert [b.text for b in find_blocks(sub, SIZE)] == ["(1) 求它的周长；", "(2) 求它的面积。"]


def test_a_wrapped_bracket_with_the_score_note_after_it_is_no_header():
    # 「6). (3 marks)」 reads like a number alone with its score note: a header, on its own.
    # Under 「…and (3,」 it closes the bracket left open, and the given stays whole.
    boxes = [box("Problem 5 Find the slope of the line passing through the points (1, 2) and (3,", 100, 560, 1300),
             box("6). (3 marks)", 100, 615, 260), box("Problem 6 What is 3/4 + 1/6?", 100, 700, 600)]
    assert arrange_page(boxes, SIZE).text == "Find the slope of the line passing through the points (1, 2) and (3, 6)."
    alone = [box("6). (3 marks)", 100, 615, 260)]
    assert [b.header for b in find_blocks(alone, SIZE)] == [True]


@pytest.mark.parametrize("read", ["（）", "（ )", "()", "(", "（"])
def test_the_empty_answer_bracket_after_the_question_is_left_out(read):
    boxes = [box(f"3. 铁丝在氧气中燃烧生成什么物质？{read}", 300, 560, 900)]
    assert arrange_page(boxes, SIZE).text == "铁丝在氧气中燃烧生成什么物质？"


def test_a_bracket_with_words_in_it_at_the_end_is_kept():
    boxes = [box("3. 他受到的重力是多少？（g 取 10 N/kg）", 300, 560, 900)]
    assert arrange_page(boxes, SIZE).text == "他受到的重力是多少？（g 取 10 N/kg）"


@pytest.mark.parametrize("read, kept", [("Practice makes perfect.)", "Practice makes perfect."),
                                        ("世界上面积最大的大洲是哪个？」", "世界上面积最大的大洲是哪个？"),
                                        ("「春眠不觉晓」的下一句是什么？」", "「春眠不觉晓」的下一句是什么？"),
                                        ("求 f(2) 的值。)", "求 f(2) 的值。"),
                                        ("（多选）哪些是金属？）", "（多选）哪些是金属？"),
                                        ("求 f(x)（x > 0）", "求 f(x)（x > 0）")])
def test_a_closing_bracket_after_the_last_sentence_that_closes_nothing_is_left_out(read, kept):
    assert arrange_page([box(f"3. {read}", 300, 560, 900)], SIZE).text == kept


def test_a_problem_whose_number_was_lost_right_below_a_textbook_paragraph_is_read_alone():
    boxes = [box("在解决实际问题时，我们常常先找出已知量和未知量。", 300, 450, 900),
             box("科学研究往往从仔细的观察开始。", 300, 505, 600),
             box("《静夜思》的作者是谁？", 300, 565, 450),  # its number 「二、」 was not read
             box("三、成语“守株待兔”比喻什么？", 300, 660, 600), box("四、《孔乙己》的作者是谁？", 300, 730, 550),
             box("五、“春眠不觉晓”的下一句是什么？", 300, 800, 650)]
    assert arrange_page(boxes, SIZE).text == "《静夜思》的作者是谁？"


def test_a_table_or_chart_the_problem_does_not_speak_of_is_left_out():
    table = [box("5. 求 24 和 36 的最大公因数。", 300, 500, 560),
             box("时间/min", 600, 560, 110), box("0", 760, 560, 20), box("2", 880, 560, 20), box("4", 1000, 560, 20),
             box("温度/℃", 600, 610, 100), box("19", 760, 610, 40), box("55", 880, 610, 40), box("22", 1000, 610, 40)]
    assert arrange_page(table, SIZE).text == "求 24 和 36 的最大公因数。"
    chart = [box("Ex. 10 Which organelle is known as the \"powerhouse of the cell\"?", 200, 520, 1000),
             box("B", 500, 580, 20), box("A", 640, 580, 20), box("Figure for Q10", 500, 640, 240)]
    assert arrange_page(chart, SIZE).text == "Which organelle is known as the \"powerhouse of the cell\"?"


def test_a_figures_labels_below_a_problem_do_not_move_it_away_from_the_frame_centre():
    # Problem 2 is nearest the centre (y 600); its number line's labels reach far below.
    boxes = [box("第1题 一个长方形的长是8厘米，宽是5厘米，它的周长是多少厘米?", 300, 510, 1000),
             box("第2题 解方程: 3x - 7 = 2x + 5", 300, 590, 500),
             box("A", 560, 660, 20), box("B", 700, 660, 20),
             *[box(label, 420 + 120 * i, 720, 30) for i, label in enumerate(["-3", "-2", "-1", "0", "2"])]]
    assert arrange_page(boxes, SIZE).text == "解方程: 3x - 7 = 2x + 5"


def test_answer_options_below_a_score_note_stay_with_their_problem():
    # The options' row lies nearest the frame's centre (y 600).
    boxes = [box("【4】光合作用的场所是哪里？(3分)", 100, 440, 640),
             box("【5】血液循环中，肺循环开始于心脏的哪个腔?(3分)", 100, 530, 640),
             *[box(option, 160 + 220 * i, 582, 110) for i, option in enumerate(["A. 1/2", "B. 3/4", "C. 1/4", "D. 细胞核"])],
             box("【6】呼吸作用的主要场所是哪里?", 100, 720, 480)]
    assert arrange_page(boxes, SIZE).text == "血液循环中，肺循环开始于心脏的哪个腔?"


def test_a_wrapped_line_that_starts_with_a_quantity_is_no_problem_number():
    boxes = [box("十七、（本题6分）用 20 N 的水平拉力拉着物体沿水平方向移动了 5 m，用时", 150, 560, 900),
             box("10. s,拉力做功的功率是多少?", 230, 610, 340),
             box("十八、牛顿第一定律的内容是什么？", 150, 700, 560)]
    assert arrange_page(boxes, SIZE).text == "用 20 N 的水平拉力拉着物体沿水平方向移动了 5 m，用时10. s,拉力做功的功率是多少?"
    numbered = [box("9. 一辆汽车以每小时60千米的速度行驶了3小时。", 150, 560, 900),
                box("10. m 的值是多少？", 150, 610, 340)]  # after a finished sentence: problem 10
    assert [b.text for b in find_blocks(numbered, SIZE)][-1] == "10. m 的值是多少？"


def test_a_short_wrapped_line_that_asks_is_no_section_label():
    boxes = [box("14、《论语》主要记", 150, 520, 430), box("录了谁的言行?", 260, 580, 300),
             box("它是哪一学派的", 260, 640, 320), box("经典？(2分)", 260, 700, 290)]
    assert arrange_page(boxes, SIZE).text == "《论语》主要记录了谁的言行?它是哪一学派的经典？"
    label = [box("9. 一件商品原价200元，打七五折出售，现价是多少元？", 200, 560, 900), box("能力提升", 200, 610, 160)]
    assert [b.header for b in find_blocks(label, SIZE)] == [False, True]


def test_figures_alone_are_no_problem():
    # A scale's figures, spaced like a problem after 「三、」: a part with a lost number, by the spacing alone.
    boxes = [box("一、空气中体积分数约占21%的气体是什么？", 220, 300, 600), box("二、常温（25℃）下纯水的pH是多少？", 220, 400, 560),
             box("三、钠元素的原子序数是多少？", 220, 500, 500), box("136 (8720)", 340, 600, 200),
             box("四、过氧化氢的化学式是什么？", 220, 700, 500)]
    assert arrange_page(boxes, SIZE).text == "钠元素的原子序数是多少？"
    sums = [box("二、常温（25℃）下纯水的pH是多少？", 220, 470, 560), box("3. 25 × 4 = ____", 340, 580, 300)]
    assert arrange_page(sums, SIZE).text == "25 × 4 = ____"


def test_sub_questions_that_say_how_to_answer_are_not_searched():
    rows = ["Ex.8 钠元素的原子序数是多少？钠原子核外有几个电子？(10分)", "(1) 列出算式;", "(2) 求出结果并作答。"]
    boxes = [box("Ex.7 光合作用的场所是哪里？(4分)", 230, 380, 500),
             *[box(row, 230, 480 + 55 * i, 900) for i, row in enumerate(rows)],
             box("Ex.9 过氧化氢的化学式是什么？(8分)", 230, 760, 560)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "钠元素的原子序数是多少？钠原子核外有几个电子？"
    assert "(1) 列出算式;" in layout.page_text
    one_line = [box("5. “欲穷千里目”的下一句是什么？(1)说明理由；(2)写出答案。", 230, 580, 1000)]
    assert arrange_page(one_line, SIZE).text == "“欲穷千里目”的下一句是什么？"


def test_a_number_alone_on_its_row_keeps_the_sub_questions_below_with_their_problem():
    boxes = [box("Question 15:", 270, 440, 250), box("(6分）写出实验室用高锰酸钾制取氧气的化学方程式。", 300, 500, 1000),
             box("(1）列出算式;", 300, 575, 300), box("(2） 求出结果并作答。", 300, 640, 420),
             box("Question 16:", 170, 760, 250), box("（12分） 计算: 3/4 - 1/6", 190, 830, 480)]
    assert arrange_page(boxes, SIZE).text == "写出实验室用高锰酸钾制取氧气的化学方程式。"


def test_working_that_goes_on_with_an_equals_sign_is_cut_and_a_wrapped_given_is_not():
    answered = [box("9. 五四运动发生在哪一年?", 300, 520, 500), box("=12 m/s", 830, 520, 200),  # on its row
                box("10. 光在真空中的传播速度约是多少？", 300, 720, 600)]
    assert arrange_page(answered, SIZE).text == "五四运动发生在哪一年?"
    given = [box("9.水面下 2 m 深处，水产生的压强是多少？(ρ水", 100, 560, 1000),
             box("= 1.0×10³kg/m³，g取10N/kg)", 150, 615, 760)]
    assert arrange_page(given, SIZE).text == "水面下 2 m 深处，水产生的压强是多少？(ρ水= 1.0×10³kg/m³，g取10N/kg)"


def test_a_figures_axis_label_is_no_problem():
    boxes = [box("10. What is the past tense of \"go\"? (8 marks)", 120, 440, 760),
             box("↑y", 260, 560, 60), box("0", 270, 640, 20),
             box("11.写出碳在氧气中不充分燃烧的化学方程式。(本题10分)", 120, 900, 740)]
    assert arrange_page(boxes, SIZE).text == "What is the past tense of \"go\"?"


def test_sub_questions_from_one_under_bracketed_problem_numbers_belong_to_their_problem():
    rows = [("(13) 呼吸作用的主要场所是哪里?", 320), ("(1) 说明理由；", 340), ("(2) 写出答案。", 340),
            ("(14)地球自转的方向是怎样的？8/10", 300), ("(1) 列出算式；", 340), ("A、左心室 B、细胞核", 340),
            ("(2) 求出结果并作答。", 340), ("(15) 世界上面积最大的大洲是哪个?", 330)]
    boxes = [box(text, x, 380 + 55 * i, 500) for i, (text, x) in enumerate(rows)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "地球自转的方向是怎样的？"
    assert [b.numbered for b in find_blocks(boxes, SIZE)] == [True, True, True]


def test_a_table_printed_beside_a_problems_lines_is_left_out_unless_the_page_speaks_of_it():
    def page(first_line: str) -> list:
        return [box(first_line, 105, 560, 760),
                *[box(cell, 910 + 60 * i, 565, 36) for i, cell in enumerate(["x", "0", "1", "2"])],
                box("的平均速度是多少千米/时?", 210, 615, 570),
                *[box(cell, 910 + 60 * i, 620, 36) for i, cell in enumerate(["y", "-1", "1", "3"])]]
    assert arrange_page(page("(15) 一辆汽车2小时行驶了120千米，它"), SIZE).text == \
        "一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时?"
    spoken_of = arrange_page(page("(15) 根据右表，一辆汽车2小时行驶了120千米，它"), SIZE).text
    assert "x 0 1 2" in spoken_of
    options = [box("9. 光合作用的场所是哪里？", 105, 560, 500),
               *[box(option, 700 + 120 * i, 560, 90) for i, option in enumerate(["A. 叶", "B. 根", "C. 茎"])]]
    assert "A. 叶" in arrange_page(options, SIZE).page_text


def test_the_chosen_problem_gets_the_oxygen_of_its_atomic_masses_back():
    layout = arrange_page([box("5．计算 CO₂ 的相对分子质量。（相对原子质量：C-12，0-16）", 200, 580, 900)], SIZE)
    assert layout.text == "计算 CO₂ 的相对分子质量。（相对原子质量：C-12，O-16）"




def test_a_column_cut_by_the_frames_side_still_has_its_gutter():
    # the right column runs off the frame: its lines at the side are another column's and
    # are left out, but its short lines clear of the side are still across the gutter
    left = [("= 2，公差 d = 3，求 a₁₀。", 233, 37, 422), ("第4题 计算：√48 ÷ √3", 235, 147, 494),
            ("第5题 A bag contains 3 red", 239, 267, 480), ("balls and 5 blue balls. One", 241, 326, 472),
            ("ball is drawn at random.", 243, 387, 432), ("What is the probability that", 244, 448, 492),
            ("it is blue?", 244, 507, 184), ("第6题 解方程：2x + 3 = 13", 250, 620, 464),
            ("第7题 一个直角三角形的两条直", 254, 735, 496), ("角边分别是 3 和 4，求斜边的", 256, 795, 466),
            ("长。", 255, 856, 66)]
    right = [("the interi", 783, 36, 177), ("hexagon?", 785, 98, 175), ("第11题 把", 789, 197, 171),
             ("数。", 790, 260, 68), ("第12题 F", 794, 395, 166), ("line pass", 793, 459, 167),
             ("points (1", 795, 520, 165), ("第13题", 799, 623, 161), ("的图像与", 801, 683, 159),
             ("么？", 804, 743, 72)]
    boxes = [box(text, x, y, w, h=52) for text, x, y, w in left + right]
    assert arrange_page(boxes, (960, 1280)).text == "解方程：2x + 3 = 13"


def test_a_box_still_leaning_after_levelling_is_on_the_row_of_its_centre_only():
    # a photo in perspective: the right column's levelled boxes still slope down, so the
    # extent of its line level with problem 31 reaches deep into problem 32's row below
    def quad(*points):
        return np.array(points, np.float32)
    above = TextBox("31光合作用的场所是哪里？", 0.95, quad([387, 446], [940, 443], [938, 509], [385, 508]))
    below = TextBox("32光在真空中的传播速度约是多", 0.95, quad([387, 522], [1042, 516], [1033, 584], [378, 583]))
    leaning = TextBox("43在等比数列{an}中，a1=", 0.95, quad([1125, 468], [1599, 483], [1599, 551], [1116, 534]))
    assert same_row(above, leaning) and same_row(leaning, above)
    assert not same_row(below, leaning) and not same_row(leaning, below)
    # large print: a tall box reaching a few pixels into the row above is not on it
    assert not same_row(box("10. A bag contains 3 rec", 65, 580, 1214, 149), box("balls and 5 blue", 37, 725, 1046, 137))
    assert same_row(box("x = 3", 100, 500, 200, 40), box("(2分)", 400, 510, 120, 40))


# Pages of a 1280 × 960 photo whose problem at the frame's centre was read wrong: lines as
# (text, x, y, width, height) and the framed problem's text.
FRAMED_PAGES = {
    # a pen lies over "Exe" of the next problem's label, three line heights below
    "label_partly_covered": ([("Exercise 6", 190, 420, 300, 66), ("(本题5分) Fill in the blank", 510, 420, 660, 66),
                              ('with "a" or "an": ____ apple', 190, 505, 720, 66),
                              ("crcise 7", 270, 760, 240, 66), ("(本题2分）钠元素的原子序", 525, 760, 650, 66),
                              ("数是多少？钠原子核外有几个电子？", 230, 840, 840, 66)],
                             'Fill in the blank with "a" or "an": ____ apple'),
    # large print: the next problem's first line runs off the frame's right side, and the
    # tall box of its second line, below, overlaps it by a few pixels (no writing after it)
    "line_off_the_frame_over_a_tall_box": ([("8. 光合作用的场所是哪里？", 146, 217, 1050, 130),
                                            ("9. 计算： sin 60° + cos 30°", 102, 395, 1160, 136),
                                            ("10. A bag contains 3 rec", 65, 580, 1214, 149),
                                            ("balls and 5 blue balls.", 37, 725, 1046, 137),
                                            ("ball is drawn", 7, 859, 620, 100)],
                                           "计算： sin 60° + cos 30°"),
    # ⑥ was crossed out by the teacher: its number was not read and the cross swelled its
    # first line's box, so only the rows' pitch shows the new problem after a formula
    "number_lost_under_a_cross": ([("⑤计算：3/4 + 1/6", 300, 444, 260, 42),
                                   ("一个直角三角形的两条直角边分别", 280, 495, 400, 51),
                                   ("是6和8，求斜边的长。", 300, 529, 230, 39),
                                   ("A. 22 cm   B. 48 cm", 340, 559, 260, 37),
                                   ("C. 26 cm   D. 24 cm", 340, 586, 260, 38)],
                                  "计算：3/4 + 1/6"),
    # the student wrote the chosen answer after the question, a line height or more apart
    "answer_letter_written_after_the_question": ([("25. What is the plural of the noun \"child\"?", 300, 380, 700, 60),
                                                  ("26. 呼吸作用的主要场所是哪里?", 300, 455, 600, 63),
                                                  ("B", 986, 459, 45, 59),
                                                  ("27. 地球自转的方向是怎样的?", 300, 540, 560, 60)],
                                                 "呼吸作用的主要场所是哪里?"),
    # a figure's axis beside the problem, far after its question mark
    "axis_label_beside_the_question": ([("第12题 地球自转的方向是怎样的?", 250, 450, 510, 45),
                                        ("y", 1010, 463, 40, 31)],
                                       "地球自转的方向是怎样的?"),
    # an answer written after the problem's full stop, a line height on
    "answer_written_after_the_full_stop": ([("(8) What is the opposite of \"expensive\"?", 256, 330, 620, 48),
                                            ("(9) 写出名词 child 的复数形式。", 256, 411, 456, 48),
                                            ("Children", 770, 416, 152, 49),
                                            ("A. children B. go", 319, 456, 322, 46)],
                                           "写出名词 child 的复数形式。"),
    # ...or close after it, written much taller than the print
    "tall_answer_close_after_the_full_stop": ([("Q14. Translate into Chinese: Practice makes perfect.", 282, 421, 688, 60),
                                               ("练习", 1001, 414, 119, 79)],
                                              "Translate into Chinese: Practice makes perfect."),
    # ...as is a circled score, though the next column's remnant at the frame's side ends the row
    "tall_score_close_after_a_formula_before_the_next_columns_remnant": (
        [("Q1 解方程组：x + y = 10，x - y = 4", 206, 392, 606, 56), ("Q2 解方程: 2x+3=13", 213, 480, 422, 56),
         ("+3", 653, 472, 102, 76), ("约", 1250, 490, 30, 48), ("Q3 An object with a mass of 2 kg", 213, 600, 570, 56)],
        "解方程: 2x+3=13"),
    # two columns: the right column's last line, level with the left problem's question
    # mark, is the framed problem's end, no answer written after that question
    "next_columns_last_line_beside_a_question": ([("1. 地球的公转方向是怎样的?", 40, 370, 400, 50),
                                                  ("2. 地球自转的方向是怎样的?", 40, 450, 400, 50),
                                                  ("3. 一年有多少个月?", 40, 530, 280, 50),
                                                  ("5. 一个三角形的三个角中，有两个", 560, 370, 480, 50),
                                                  ("角都是 45°。以它的最长边为底，", 560, 410, 480, 50),
                                                  ("画出它的图。", 560, 450, 200, 50),
                                                  ("6. 一个正方形的边长是 4 厘米，", 560, 530, 480, 50)],
                                                 "一个三角形的三个角中，有两个角都是 45°。以它的最长边为底，画出它的图。"),
    # a table printed under the problem, its caption in brackets: none of it is the problem's
    # (nor the teacher's score after its question mark)
    "table_with_a_bracketed_caption_below": ([("(6) (10分) 北回归线的纬度大约是多", 380, 390, 880, 77),
                                              ("少?", 490, 462, 100, 69), ("4'", 638, 462, 86, 69),
                                              ("组别", 667, 550, 90, 62), ("甲", 803, 550, 57, 58),
                                              ("乙", 907, 550, 61, 62), ("丙", 1014, 550, 62, 62),
                                              ("人数", 667, 620, 90, 62), ("12", 803, 620, 57, 58),
                                              ("18", 907, 620, 61, 62), ("15", 1014, 620, 62, 62),
                                              ("(第6题图)", 760, 700, 200, 60),
                                              ("(7) 标准状况下，11.2L 氧气的物质的量是多少？", 400, 800, 900, 70)],
                                             "北回归线的纬度大约是多少?"),
    # the teacher's score after the question mark, the student's answer on the row below
    "answer_below_a_scored_question": ([("第10题 Find the slope of the line through the", 275, 340, 600, 52),
                                        ("points (1, 2) and (3, 6).", 275, 400, 380, 52),
                                        ("第11题 秦朝建立于哪一年?", 277, 458, 422, 51), ("+5", 723, 458, 80, 51),
                                        ("公元前221年", 369, 510, 314, 64),
                                        ("第12题 一幅地图的比例尺是1:100000，图上", 286, 633, 673, 51)],
                                       "秦朝建立于哪一年?"),
    # a figure's axes under the problem: its arrow and letter, and its figures read as one piece
    "axes_under_the_problem": ([("21. 在等比数列 {an} 中，a1 = 3,公", 395, 352, 614, 62),
                                ("比q=2,求a5。", 465, 423, 274, 64),
                                ("↑y", 572, 495, 48, 45), ("2 3 4", 630, 590, 116, 42),
                                ("22.一个正方体的棱长是4厘米，它", 427, 700, 576, 56),
                                ("的表面积是多少平方厘米?", 491, 763, 416, 51)],
                               "在等比数列 {an} 中，a1 = 3,公比q=2,求a5。"),
    # figures after a colon are the problem's own
    "numbers_after_a_colon": ([("8. 找规律，填出下一个数：", 300, 420, 500, 60), ("3 6 9 12", 320, 490, 200, 60)],
                              "找规律，填出下一个数：3 6 9 12"),
    # a letter after a line that runs on is the line's own
    "letter_ending_a_line_that_runs_on": ([("6. 已知 3a + 2 = 11，求", 300, 450, 420, 50),
                                           ("a", 790, 452, 30, 46),
                                           ("的值。", 300, 510, 120, 50)],
                                          "已知 3a + 2 = 11，求a的值。"),
}


@pytest.mark.parametrize("page", sorted(FRAMED_PAGES))
def test_the_framed_problem_is_read_whole_and_alone(page):
    lines, framed = FRAMED_PAGES[page]
    boxes = [box(text, x, y, w, h=h) for text, x, y, w, h in lines]
    assert arrange_page(boxes, (1280, 960)).text == framed


def test_a_teachers_score_in_the_margin_neither_hides_a_narrow_gutter_nor_joins_the_text():
    # two columns 55 px apart (1.4 line heights); "+5" written in the left margin beside the
    # framed problem's second line
    left = ["③ A bag contains 3 red", "balls and 5 blue balls.", "One ball is drawn at", "random. What is the",
            "probability that it is", "red?"]
    right = ["三、计算题（写出必要的步骤）", "Question 5: A bag contains 3", "red balls and 5", "blue balls. One",
             "ball is drawn at", "random. What is"]
    boxes = [box(line, 500, 480 + 44 * i, 400) for i, line in enumerate(left)]
    boxes += [box(line, 955, 470 + 44 * i, 400) for i, line in enumerate(right)]
    boxes.append(box("+5", 400, 570, 50))
    layout = arrange_page(boxes, SIZE)
    assert layout.text == ("A bag contains 3 red balls and 5 blue balls. One ball is drawn at random. "
                           "What is the probability that it is red?")


def test_a_signed_score_written_apart_on_the_problems_line_is_left_out():
    boxes = [box("一个直角三角形的两条直", 400, 580, 440), box("+2", 890, 575, 50),
             box("角边分别是 6 和 8，求斜边的长。", 990, 580, 500)]
    assert arrange_page(boxes, SIZE).text == "一个直角三角形的两条直角边分别是 6 和 8，求斜边的长。"
    signed = [box("计算：", 400, 580, 120), box("-2", 560, 580, 50), box("+ 3 的值", 640, 580, 200)]
    assert arrange_page(signed, SIZE).text == "计算：-2 + 3 的值"  # near the words: print


def test_a_section_label_over_the_problem_that_starts_a_region_is_a_header():
    boxes = [box("综合运用", 300, 520, 160), box("“先天下之忧而忧，后天下之乐而乐”出自哪篇文章？作者是谁？", 300, 570, 900)]
    assert arrange_page(boxes, SIZE).text == "“先天下之忧而忧，后天下之乐而乐”出自哪篇文章？作者是谁？"
    narrow = [box("一个长方形的长", 300, 540, 280), box("是 8 厘米，宽是 6 厘米，它的", 300, 590, 300),
              box("面积是多少？", 300, 640, 240)]  # a narrow column's first line is no label
    assert arrange_page(narrow, SIZE).text == "一个长方形的长是 8 厘米，宽是 6 厘米，它的面积是多少？"


def test_a_problems_first_line_after_another_columns_sentence_on_its_row_is_no_working():
    # 「19、…a₁=」 ends on "=" as working does, and the left column's finished sentence
    # shares its row: it is the next problem's first line, not a student's working
    left = [("直角三角形的两条直角边", 448), ("和8，求斜边的长。", 485), ("长方形的长是 8 厘米，宽", 708)]
    right = [("17、一辆汽车2 小时行驶了 120 千米，", 198), ("它的平均速度是多少千米/时？", 235),
             ("18、在等差数列{aₙ}中，a₁=", 339), ("2，公差 d = 3，求前 10 项和", 377), ("S₁₀", 417),
             ("19、在等差数列{aₙ}中，a₁=", 480), ("2，公差 d = 3，求 a₁₀。", 517), ("20、把0.75化成最简分数。", 586)]
    boxes = [box(text, 0, top, 300, h=46) for text, top in left] + [box(text, 365, top, 400, h=46) for text, top in right]
    layout = arrange_page(boxes, (1024, 768))
    assert layout.text == "在等差数列{aₙ}中，a₁= 2，公差 d = 3，求前 10 项和S₁₀"


def test_a_row_that_closes_the_bracket_its_problem_left_open_is_no_figure():
    # 「3.14)」 and the answer bracket 「（）」 set apart on one row read like a table's cells
    boxes = [box("11)一个圆的半径是3厘米，它的", 500, 520, 360), box("周长是多少厘米？（π取", 540, 565, 300),
             box("3.14)", 540, 605, 80), box("（）", 780, 612, 90)]
    assert arrange_page(boxes, SIZE).text == "一个圆的半径是3厘米，它的周长是多少厘米？（π取3.14)"


def test_what_a_line_ending_on_a_colon_asks_for_is_the_problems_though_it_reads_like_a_title():
    # "Practice makes perfect." would be a sheet's title ("practice", short, asks nothing)
    boxes = [box("10. Translate into Chinese:", 375, 560, 500), box("Practice makes perfect.", 460, 612, 430),
             box("11. An object with a mass of 2 kg moves at 3 m/s.", 375, 760, 620)]
    assert arrange_page(boxes, SIZE).text == "Translate into Chinese: Practice makes perfect."


def test_writing_right_under_a_questions_score_note_is_no_problem_whose_number_was_lost():
    boxes = [box("Q9 Find the slope of the line passing through (1, 2) and (3, 6).", 200, 300, 1100),
             box("Q10 What is the sum of the interior angles of a pentagon? (5 points)", 200, 510, 1100),
             box("The interi", 240, 556, 170, h=50),  # the student's answer, level with the centre
             box("Q11 Find the slope of the line passing through (1, 2) and (3, 8).", 200, 780, 1100)]
    assert arrange_page(boxes, SIZE).text == "What is the sum of the interior angles of a pentagon?"


def test_a_number_whose_digits_were_lost_leaves_its_dot_and_starts_a_problem():
    # a tick drawn over 「11.」: 「.」 is left, and Chinese never starts a line with it
    boxes = [box("10. 一次函数 y=2x+1 的图像与 x 轴的交点坐标是什么？", 100, 480, 800),
             box(".一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？", 95, 560, 900),
             box("12. 一辆汽车2小时行驶了120千米，它的平均速度是多少千米/时？", 100, 720, 800)]
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？"


def test_a_number_circled_by_a_pen_and_read_as_empty_brackets_starts_a_problem():
    boxes = [box("(22) 一个袋子里有3个红球和5个蓝球，摸到红球的概率是多少？", 300, 380, 900),
             box("A. 1 B. 10 C. 3 D. 14", 310, 430, 700),
             box("() 地球自转的方向是怎样的？", 300, 560, 600), box("A. 自西向东 B. 自东向西", 310, 610, 600),
             box("(24) 水的化学式是什么？", 300, 800, 500)]
    assert arrange_page(boxes, SIZE).text == "地球自转的方向是怎样的？"


def test_working_written_on_to_the_frames_side_after_the_problems_end_does_not_cut_it():
    def page(first):
        return [box(first, 150, 560, 1450),  # its box reaches the frame's right side
                box("6. 一个直角三角形的两条直角边分别是3和4，求斜边的长。", 140, 820, 750),
                box("7. “床前明月光，疑是地上霜”的下一句是什么？", 160, 1000, 550)]
    assert arrange_page(page("5. 已知集合A={1,2,3}，B={2,3,4}，求A∩B。由既属于A又"), SIZE).text == \
        "已知集合A={1,2,3}，B={2,3,4}，求A∩B。"
    # a problem whose own sentence runs out of the frame is cut: the next whole one is chosen
    assert arrange_page(page("5. 一个长方形的长是8厘米，宽是5厘米，它的面积是多少平"), SIZE).text == \
        "一个直角三角形的两条直角边分别是3和4，求斜边的长。"


def test_the_last_answer_options_set_far_right_are_no_column():
    # four options across the page, "D、…" far right of the others: a long line (its number
    # circled and lost) crosses the gap, and the rows under it are one problem, not two columns
    boxes = []
    for i, (y, number) in enumerate(((150, "(15) 解方程组：x+y=10，x-y=4"), (300, "(16) 已知集合A={1,2,3}，求A∪B。"),
                                     (640, "(18) 《孔乙己》的作者是谁？"), (790, "(19) 细胞的控制中心是什么结构？"),
                                     (940, "(20) 计算：sin 30° + cos 60°"))):
        boxes += [box(number, 120, y, 500), box("A、1 B、3 C、12", 180, y + 46, 700), box(f"D、{i}", 1100, y + 48, 110)]
    boxes += [box("A bag contains 3 red balls and 5 blue balls. One ball is drawn at random. What is the probability that",
                  190, 470, 1230),
              box("it is red?", 180, 516, 130), box("A、16 B、3 C、14", 180, 562, 700), box("D、7", 1100, 564, 110)]
    assert arrange_page(boxes, SIZE).text == ("A bag contains 3 red balls and 5 blue balls. One ball is drawn at random. "
                                              "What is the probability that it is red?")


@pytest.mark.parametrize("number, parts", [
    ("11、", ["1) 说明你的理由;", "2) 若条件改变，结果如何变化?"]),
    ("Question 8 ", ["1) 用学过的知识解释这一现象。", "2)判断结论是否正确。", "3)画出示意图并标出相关数据;"]),
    ("八、", ["1) 若条件改变，结果如何变化?", "2)说明你的理由；"]),
    ("(6) ", ["①判断结论是否正确。", "②用学过的知识解释这一现象。"]),
])
def test_sub_questions_numbered_in_a_style_of_their_own_belong_to_their_problem(number, parts):
    """"1)" or ① under a problem numbered otherwise are its sub-questions, though "1)" numbers
    problems on other pages: one nearer the frame's centre than the stem is not the problem."""
    stems = {"11、": "我国最长的河流是哪一条?", "Question 8 ": "解方程: x² - 5x + 6 = 0 [4 marks]",
             "八、": "秦朝建立于哪一年?", "(6) ": "过氧化氢的化学式是什么？"}
    lines = [number + stems[number], *parts]
    before, after = ("(5) ", "(7) ") if number == "(6) " else ("10、", "12、")
    boxes = [box(before + "北回归线的纬度大约是多少?", 300, 300, 700),
             *[box(line, 300 if i == 0 else 360, 470 + 70 * i, 700) for i, line in enumerate(lines)],
             box(after + "世界上面积最大的大洲是哪个?", 300, 470 + 70 * len(lines) + 150, 700)]
    assert arrange_page(boxes, SIZE).text == strip_number(stems[number]).replace(" [4 marks]", "")


def test_problems_numbered_1_2_3_are_problems_each():
    lines = ["1) 秦朝建立于哪一年?", "2) 我国最长的河流是哪一条?", "3) 过氧化氢的化学式是什么？"]
    boxes = [box(line, 300, 520 + 70 * i, 700) for i, line in enumerate(lines)]
    assert arrange_page(boxes, SIZE).text == "我国最长的河流是哪一条?"
    assert [b.numbered for b in find_blocks(boxes, SIZE)] == [True, True, True]


def test_a_table_between_a_problem_and_its_sub_questions_is_the_problems():
    """「一、…成立的?」, a table of figures, then (1) (2): one problem, its stem searched,
    though the table stands a line apart and the sub-questions lie nearer the centre."""
    rows = [("十、一个质量为 2 kg 的物体受到 10 N 的合外力作用，求它的加速度大小。", 300, 180),
            ("一、中华人民共和国是哪一年成立的?", 300, 300), ("t/s 63 54", 330, 400), ("63 71 90", 330, 450),
            ("(1) 若条件改变，结果如何变化?", 420, 520), ("(2) 画出示意图并标出相关数据;", 420, 590),
            ("(3) 若条件改变，结果如何变化?", 420, 660), ("二、一次函数y=2x+1的图像与x轴的交点坐标是什么？", 300, 900)]
    boxes = [box(text, x, y, 600) for text, x, y in rows]
    assert arrange_page(boxes, SIZE).text == "中华人民共和国是哪一年成立的?"


def test_a_row_of_figures_that_is_no_table_before_sub_questions_parts_problems():
    from appliance.wording.problem_text import table_before_parts

    assert table_before_parts(["t/s 63 54", "63 71 90", "(1) 若条件改变"])
    assert not table_before_parts(["(1) 若条件改变"])  # no table: the sub-questions' own rule
    assert not table_before_parts(["t/s 63 54", "写出名词 child 的复数形式。", "(1) 说明理由"])
    assert not table_before_parts(["t/s 63 54", "63 71 90"])  # no sub-questions after it


def test_an_axis_drawn_below_a_problem_is_no_part_of_it():
    """A figure's axes under 「例2求log₂8的值。」: "↑y" above, the x axis's arrow alone on the
    last row; the worked solution below is a block of its own."""
    boxes = [box("例2求log₂8的值。", 100, 500, 420), box("↑y", 240, 580, 80), box("→", 440, 700, 40),
             box("解：因为 2³ =8，根据对数的定义", 150, 790, 620)]
    assert arrange_page(boxes, SIZE).text == "求log₂8的值。"


def test_a_tables_row_between_a_problem_that_asks_and_its_options_is_left_out():
    boxes = [box("7、（本题6分）写出名词child的复数形式。", 280, 500, 650),
             box("65", 1100, 560, 40), box("33", 1160, 560, 40),
             box("(A) children (B) childs", 320, 620, 600), box("(C) childes (D) child", 320, 680, 600),
             box("8、计算：3/4 - 1/6", 280, 900, 400)]
    assert arrange_page(boxes, SIZE).text == "写出名词child的复数形式。"
    data = [box("7、下表是某地一周的气温：", 280, 500, 650),
            box("周一", 320, 560, 80), box("周二", 420, 560, 80), box("18", 320, 620, 40), box("21", 420, 620, 40),
            box("求这两天的平均气温。", 280, 680, 500), box("8、计算：3/4 - 1/6", 280, 900, 400)]
    assert "求这两天的平均气温。" in arrange_page(data, SIZE).text  # a table the stem goes on after stays read


def test_a_given_printed_after_a_table_under_the_question_is_the_problems():
    """「…平方厘米?」, a table set under it, then 「(π取3.14) (3分)」: the given is the
    problem's (not the student's answer below a question), the table is not."""
    table = [box(cell, 300 + 90 * k, 560 + 60 * r, 60) for r, cells in enumerate([("时间", "12", "22"), ("74", "96", "29")])
             for k, cell in enumerate(cells)]
    boxes = [box("10)一个圆的半径是3厘米，它的面积是多少平方厘米?", 100, 480, 900), *table,
             box("(π取3.14) (3分)", 200, 700, 380), box("11)秦朝建立于哪一年？", 100, 900, 500)]
    assert arrange_page(boxes, SIZE).text == "一个圆的半径是3厘米，它的面积是多少平方厘米? (π取3.14)"


@pytest.mark.parametrize("style", ["#{}", "Q.{}", "{}:", "Task {}:"])
def test_problems_numbered_in_other_styles_are_told_apart(style):
    questions = ["秦朝建立于哪一年？", "我国最长的河流是哪一条？", "过氧化氢的化学式是什么？"]
    boxes = [box(f"{style.format(k + 2)} {q}", 300, 530 + 55 * k, 700) for k, q in enumerate(questions)]
    assert arrange_page(boxes, SIZE).text == "我国最长的河流是哪一条？"


def test_a_score_note_in_a_marks_column_beside_a_problems_first_line_does_not_end_it():
    """「【4】写出实验室用过氧化氢溶　　【3分】」: the note stands at the first line's end, and the
    problem goes on below it; the note is no part of the text searched."""
    boxes = [box("【3】“白日依山尽”的下一句", 300, 330, 420), box("【5分】", 900, 330, 60), box("是什么？", 300, 372, 150),
             box("【4】写出实验室用过氧化氢溶", 300, 560, 420), box("【3分】", 900, 560, 60),
             box("液制取氧气的化学方程式。", 300, 602, 400),
             box("【5】两个阻值都是10Ω的电", 300, 790, 420), box("【8分】", 900, 790, 60), box("阻串联，总电阻是多少？", 300, 832, 380)]
    assert arrange_page(boxes, SIZE).text == "写出实验室用过氧化氢溶液制取氧气的化学方程式。"


def test_a_score_note_after_a_finished_problem_still_ends_it():
    """The next problem's number was lost: the note after a finished sentence ends the problem above."""
    boxes = [box("3. 秦朝建立于哪一年？", 300, 400, 420), box("（3分）", 900, 400, 80),
             box("4. 我国最长的河流是哪一条？", 300, 520, 500), box("（2分）", 900, 520, 80),
             box("写出名词 tooth 的复数形式。", 300, 562, 420), box("6. 计算：3/4 - 1/6", 300, 900, 400)]
    assert arrange_page(boxes, SIZE).text == "写出名词 tooth 的复数形式。"


@pytest.mark.parametrize("hint", ["提示：本题考查名词复数、不规则变化。", "Hint: think about the definition.", "【提示】注意单位换算。"])
def test_a_hint_printed_under_a_problem_is_not_searched(hint):
    boxes = [box("6. 秦朝建立于哪一年？", 300, 380, 420),
             box("7. 写出名词 tooth 的复数形式。", 300, 560, 520), box(hint, 340, 602, 560),
             box("8. 我国最长的河流是哪一条？", 300, 760, 500)]
    assert arrange_page(boxes, SIZE).text == "写出名词 tooth 的复数形式。"


@pytest.mark.parametrize("first, note", [("第3题一个定值电阻两端的电压是6V，求这个电阻的阻值。(3", None),
                                         ("8. 钠元素的原子序数是多少？钠原子", "(2分")])
def test_a_problem_whose_score_note_the_frame_side_cuts_off_is_complete(first, note):
    """The frame's right side cuts only the score note (at the end, or in a marks column):
    the problem is whole and is chosen at the centre, without the note's remnant."""
    width = SIZE[0] - 200 - (0 if note is None else 100)
    boxes = [box("第2题秦朝建立于哪一年？", 200, 300, 500), box(first, 200, 560, width)]
    if note is not None:
        boxes.append(box(note, SIZE[0] - 90, 560, 90))
        boxes.append(box("核外有几个电子？", 200, 602, 330))
    boxes.append(box("第4题我国最长的河流是哪一条？", 200, 900, 560))
    text = arrange_page(boxes, SIZE).text
    assert text in ("一个定值电阻两端的电压是6V，求这个电阻的阻值。", "钠元素的原子序数是多少？钠原子核外有几个电子？")


@pytest.mark.parametrize("lead_in, parts, chosen", [
    ("11 Answer these questions.", ["(a) What is the SI unit of force?", "(b) What is the past tense of \"go\"?",
                                    "(c) Change into the passive voice: Tom cleans the room every day."], 2),
    ("12. 根据所学知识回答：", ["(1) 成语“守株待兔”比喻什么？", "(2) 中华人民共和国是哪一年成立的？"], 1)])
def test_the_parts_under_a_lead_in_are_problems_of_their_own(lead_in, parts, chosen):
    """A lead-in that asks nothing ("Answer these questions.", 「根据所学知识回答：」): the part
    at the frame's centre is the problem asked, without its label."""
    top = 600 - 20 - 56 * (chosen + 1)
    boxes = [box(lead_in, 300, top, 500)] + [box(p, 340, top + 56 * (k + 1), 800) for k, p in enumerate(parts)]
    assert arrange_page(boxes, SIZE).text == strip_number(parts[chosen])


def test_answer_options_the_frame_cuts_leave_their_problem_complete():
    """(16) and its options run to the frame's bottom edge: the options are cut, the problem
    is not, and the frame's centre falls on it."""
    boxes = [box("(15) 求 24 和 36 的最大公因数。", 200, 120, 700), box("(4分)", 200, 170, 100),
             box("(16) 细胞的控制中心是什么结构？", 200, 300, 700), box("(6分)", 200, 360, 100),
             box("A. 同时释放能量", 220, 420, 300), box("B. 46条", 220, 480, 200),
             box("C. 乳化脂肪", 220, 540, 250), box("D. 染色体", 220, 600, 250)]
    assert arrange_page(boxes, (1600, 640)).text == "细胞的控制中心是什么结构？"


@pytest.mark.parametrize("labels", [["R S"], ["A"], ["A", "B C"]])
def test_a_drawings_letters_under_a_problem_are_no_part_of_it(labels):
    """A circuit's "R S" or a triangle's vertices, each read as one piece under the question."""
    boxes = [box("18、How many moles of water are there", 300, 500, 620), box("in 36 g of water? (H = 1, O = 16)", 340, 545, 540)]
    boxes += [box(text, 400, 640 + 90 * k, 30 * len(text)) for k, text in enumerate(labels)]
    boxes.append(box("19、细胞的控制中心是什么结构？", 300, 1000, 560))
    assert arrange_page(boxes, SIZE).text == "How many moles of water are there in 36 g of water? (H = 1, O = 16)"


def test_an_axis_arrow_with_its_letter_alone_under_a_problem_is_no_part_of_it():
    boxes = [box("(1) 把下面的句子翻译成英", 300, 500, 560), box("语：我每天早上七点起床。", 300, 545, 560),
             box("↑y", 400, 640, 50), box("(2) 秦朝建立于哪一年？", 300, 900, 500)]
    assert arrange_page(boxes, SIZE).text == "把下面的句子翻译成英语：我每天早上七点起床。"


def test_a_blank_read_between_two_boxes_of_a_row_is_no_gutter():
    """The detector ended the box where the blank begins and the word after it is a box of
    its own, 1.8 line heights on; the options row below has a space just as wide there."""
    boxes = [box('9 Fill in the blank with "a" or "an": ____', 100, 560, 520), box("university", 692, 560, 160),
             box("(A) university", 140, 610, 210), box("(B) a", 440, 610, 90),
             box("(C) Ten years", 740, 610, 220), box("(D) for", 1040, 610, 110),
             box("8 Solve the inequality: 3x - 5 > 7.", 100, 380, 560), box("10 What is the past tense of \"go\"?", 100, 800, 600)]
    assert arrange_page(boxes, SIZE).text == 'Fill in the blank with "a" or "an": ____ university'


def test_another_columns_remnant_joined_to_a_problems_first_line_at_the_frame_side_is_left_out():
    """The detector ran the left column's cut-off remnant into the framed problem's first
    line ("通过它的电流 12.一个直角…"): the label stands where the column's other lines
    start, so the problem starts there and is whole."""
    size = (800, 600)
    boxes = [box("11. 秦朝建立于哪一年？", 137, 100, 330),
             box("通过它的电流 12.一个直角三角形的两条直角边分别是3和4,", 0, 280, 644), box("求斜边的长。(5分)", 145, 325, 200),
             box("13.一个圆的半径是3厘米，它的面积是多少平方厘米？", 137, 520, 600)]
    assert arrange_page(boxes, size).text == "一个直角三角形的两条直角边分别是3和4,求斜边的长。"


def test_a_line_at_the_frame_side_whose_label_stands_at_its_start_is_kept_whole():
    """The frame's side cuts a line that starts with its own label: nothing is parted off."""
    size = (800, 600)
    boxes = [box("12.一个直角三角形的两条直角边分别是3和4,", 0, 280, 560), box("求斜边的长。(5分)", 40, 325, 200),
             box("13.一个圆的半径是3厘米，它的面积是多少平方厘米？", 0, 520, 600)]
    page = arrange_page(boxes, size).page_text
    assert "12.一个直角三角形的两条直角边分别是3和4," in page


def test_problems_with_no_labels_at_the_line_pitch_are_parted_at_their_paragraph_ends():
    """A stream of questions with no labels, each as far below the last as lines are: a
    question or full stop well short of the column's right side ends a problem."""
    questions = ["呼吸作用的主要场所是哪里？", "人体消化和吸收营养物质的主要器官是什么？", "细胞的控制中心是什么结构？",
                 "What is the basic unit of structure and function of living things?", "光合作用的场所是哪里？"]
    boxes = [box("植物细胞具有而动物细胞通常没有的结构有哪些？豌豆的高茎对矮茎为显性，基因型", 100, 445, 1300),
             box("为 Dd 的两株豌豆杂交，子代中矮茎所占的比例是多少？", 100, 490, 800)]
    boxes += [box(q, 100, 535 + 45 * k, 40 * len(q) if not q.isascii() else 18 * len(q)) for k, q in enumerate(questions)]
    assert arrange_page(boxes, SIZE).text == "人体消化和吸收营养物质的主要器官是什么？"  # the frame's centre (y 600) is on it


@pytest.mark.parametrize("first, second", [
    ("A ball is dropped from rest.", "Ignoring air resistance and taking g = 10 m/s², how far does it fall in 2 s?"),
    ("《论语》主要记录了谁的言行？", "它是哪一学派的经典？")])
def test_a_problems_second_sentence_on_a_line_of_its_own_stays_with_it(first, second):
    """The first line ends its sentence short of the right side, but the next line's first
    word would not have fitted there, or the next sentence points back (「它」)."""
    width = 800 if first.isascii() else 560
    boxes = [box("9. 秦朝建立于哪一年？", 100, 380, 480),
             box(first, 100, 560, width), box(second, 100, 605, 920 if second.isascii() else 400),
             box("11. 我国最长的河流是哪一条？", 100, 800, 560)]
    assert arrange_page(boxes, SIZE).text == join(first, second)



def test_problems_with_no_labels_are_parted_where_the_column_is_wider_than_their_rows():
    """Short questions at the line pitch under a wide paragraph: the first is the widest of
    its block, but the column is as wide as the paragraph."""
    boxes = [box("阅读下面的材料，回答问题。我国幅员辽阔，地形复杂多样，气候类型丰富，河流众多。", 100, 300, 1300),
             box("北回归线的纬度大约是多少？", 100, 580, 560), box("世界上面积最大的大洋是哪个？", 100, 625, 540),
             box("西汉建立于哪一年？建立者是谁？", 100, 670, 560)]
    assert arrange_page(boxes, SIZE).text == "北回归线的纬度大约是多少？"


@pytest.mark.parametrize("first, width, second", [
    ("(4) 一盒鸡蛋有 12 个，小明买了 5 盒。", 700, "他一共买了多少个鸡蛋？"),
    ("(4) 西汉建立于哪一年？", 440, "建立者是谁？"),  # a second question on a line of its own
    # the line ends 30 px short of the column's side: the next line's first word would not have fitted
    ("(4) 一件商品原价 200 元，打七五折出售，现价是多少元？", 1250, "如果再降价 10 元，现价是多少元？")])
def test_a_labelled_problems_second_line_stays_with_it(first, width, second):
    """Where labels are printed they part the problems: a line that ends short under a label
    is the same problem's."""
    boxes = [box("(3) 地球自转的方向是怎样的？", 100, 490, 560), box(first, 100, 580, width),
             box(second, 100, 625, 40 * len(second)), box("(5) 一件商品原价 200 元，打七五折出售，现价是多少元？", 100, 760, 1280)]
    assert arrange_page(boxes, SIZE).text == join(first[4:], second)


@pytest.mark.parametrize("label, chosen", [("(7)", True), ("7】", False)])
def test_a_bracketed_label_at_the_frames_left_side_leaves_its_problem_whole(label, chosen):
    """The frame's left side runs along (7)'s label: a label with both its brackets is whole,
    and the problem with it; "7】" may be what the side left of 【17】."""
    question = ["豌豆的高茎（D）对矮茎（d）为显性，基因", "型为 Dd 的两株豌豆杂交，子代中矮茎所占的", "比例是多少？"]
    boxes = [box("(6) 细胞的控制中心是什么结构？", 40, 440, 560),
             box(label, 0, 560, 60), box(question[0], 70, 560, 840), box(question[1], 70, 605, 840), box(question[2], 70, 650, 240),
             box("(8) 血液循环中，体循环开始于心脏的哪个腔？", 40, 800, 840)]
    text = arrange_page(boxes, SIZE).text
    assert (text == join(join(question[0], question[1]), question[2])) is chosen


def test_a_statement_on_a_line_of_its_own_is_the_stem_of_the_question_under_it():
    """No label was read over the problem, and its first sentence stops well short of the
    column's side; but it states and asks nothing, so the question below is its own."""
    lines = ["A bag contains 3 red balls and 5 blue balls.", "One ball is drawn at random. What is the probability that",
             "it is blue?"]
    boxes = [box(lines[0], 100, 560, 700), box(lines[1], 100, 605, 1300), box(lines[2], 100, 650, 200),
             box("11) Solve the inequality: 3x - 5 < 7.", 100, 740, 700)]
    assert arrange_page(boxes, SIZE).text == join(join(lines[0], lines[1]), lines[2])


def test_a_problems_first_line_of_a_few_words_under_a_score_note_is_no_section_label():
    """「一个圆的半径是」 alone on a line (its label was not read) under the problem above's
    score note: a line broken off after 「是」 goes on below; it heads nothing."""
    boxes = [box("7. 基因型为 Dd 的豌豆与基因型为 dd 的豌豆杂交，子代中矮茎所占的比例是多少？", 100, 380, 1300),
             box("(8分)", 1200, 425, 120),
             box("一个圆的半径是", 700, 500, 420), box("3 厘米，它的面积是多少平方厘米？", 100, 560, 1000),
             box("(π 取 3.14)", 100, 620, 300),
             box("9. 一件商品原价 200 元，打八折出售，现价是多少元？", 100, 760, 1300)]
    assert arrange_page(boxes, SIZE).text.startswith("一个圆的半径是")


def test_a_problem_in_pieces_whose_gap_holds_the_centre_is_chosen_over_a_neighbour_nearer_its_middle():
    # the centre (800, 600) falls within problem 20, printed in two pieces far apart: its
    # middle lies lower than problem 19's lies above the centre
    boxes = [box("19、用 20 N 的水平拉力拉着物体移动了 5 m，拉力做了多少功？", 90, 430, 1000),
             box("20、一个定值电阻两端的电压是 6 V，通过它的电流是 0.3 A，", 90, 560, 1000),
             box("求这个电阻的阻值。", 90, 1000, 330),
             box("21、两个阻值都是 10 Ω 的电阻串联，总电阻是多少？", 90, 1110, 900)]
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "一个定值电阻两端的电压是 6 V，通过它的电流是 0.3 A，求这个电阻的阻值。"


def test_a_score_note_before_a_mark_written_after_it_is_left_out_with_the_mark():
    # 「…(8分) 1/」: the note is at the end only once the mark after it has gone
    layout = arrange_page([box("第10题 计算:sin 60°+ cos 30°(8分) 1/", 300, 580, 800)], SIZE)
    assert layout.text == "计算:sin 60°+ cos 30°"


@pytest.mark.parametrize("read", ["7. 解方程: 3x- 7=2x+ 5【2分】x=2", "7. 解方程组: x+y=10，x-y=4【2分】x=5"])
def test_a_solution_written_after_the_score_note_is_left_out_with_the_note(read):
    layout = arrange_page([box(read, 300, 580, 800)], SIZE)
    assert layout.text == read[3:read.index("【")]


def test_the_option_a_student_wrote_in_the_answer_bracket_below_is_no_part_of_the_problem():
    boxes = [box("写出实验室用过氧化氢溶液制取氧气的化学方程式。", 400, 560, 900), box("(B", 1240, 610, 50)]
    assert arrange_page(boxes, SIZE).text == "写出实验室用过氧化氢溶液制取氧气的化学方程式。"
