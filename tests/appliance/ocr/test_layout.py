"""Layout through the whole step (page.arrange_page): rows, joining, the frame-edge filter."""

import numpy as np

from appliance.ocr.layout import LayoutParams, TextBox, cut_by_frame, join
from appliance.ocr.page import arrange_page


def arrange(boxes, image_height, params=LayoutParams()):
    return arrange_page(boxes, (1600, image_height), params)


def box(text: str, x: float, y: float, w: float, h: float = 40, conf: float = 0.95) -> TextBox:
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    return TextBox(text, conf, quad)


def test_rows_read_left_to_right_and_top_to_bottom():
    boxes = [box("3 = 13", 400, 102, 200), box("第二行", 100, 160, 300), box("解方程：2x +", 100, 100, 280)]
    layout = arrange(boxes, image_height=1200)
    assert layout.text == "解方程：2x + 3 = 13第二行"
    assert [line.text for line in layout.lines] == ["解方程：2x + 3 = 13", "第二行"]


def test_wrapped_lines_join_without_space_in_chinese_and_with_one_in_english():
    chinese = arrange([box("一个长方形的长是", 100, 100, 600), box("8 厘米。", 100, 160, 200)], 1200)
    assert chinese.text == "一个长方形的长是8 厘米。"
    english = arrange([box("What is the sum of", 100, 100, 600), box("the angles?", 100, 160, 300)], 1200)
    assert english.text == "What is the sum of the angles?"


def test_a_wide_gap_separates_two_blocks_and_the_page_keeps_both():
    layout = arrange([box("第一段", 100, 100, 300), box("第二段", 100, 300, 300)], 1200)
    assert layout.page_text == "第一段\n第二段" and layout.text == "第二段"  # the one nearer the centre


def test_the_layout_keeps_the_look_alikes_of_the_chosen_problems_lines_only():
    boxes = [TextBox("1. 《论游》主要记录了谁的言行？", 0.9, box("", 100, 300, 700).quad, look_alikes=(("游", "语"),)),
             TextBox("它是哪一学派的经典？", 0.9, box("", 100, 350, 500).quad, look_alikes=(("学", "季"),)),
             TextBox("2. 肺循环开始于心脏的哪个腔？", 0.9, box("", 100, 800, 700).quad, look_alikes=(("肺", "体"),))]
    layout = arrange(boxes, image_height=1000)
    assert layout.text == "《论游》主要记录了谁的言行？它是哪一学派的经典？"
    assert layout.look_alikes == (("游", "语"), ("学", "季"))


def test_neighbour_line_cut_by_the_frame_edge_is_dropped():
    boxes = [box("细胞的控制中心", 100, 0, 600, h=20), box("解方程：2x + 3 = 13", 100, 200, 600),
             box("下一行", 100, 1180, 600, h=19)]
    layout = arrange(boxes, image_height=1200)
    assert layout.text == "解方程：2x + 3 = 13"
    assert layout.dropped == 2


def test_a_full_height_line_at_the_edge_is_kept():
    boxes = [box("解方程：", 100, 0, 600), box("2x + 3 = 13", 100, 60, 600)]
    assert arrange(boxes, image_height=1200).text == "解方程：2x + 3 = 13"


def test_low_confidence_and_empty_readings_are_dropped():
    boxes = [box("题目", 100, 100, 300), box("噪", 100, 400, 40, conf=0.3), box("  ", 100, 500, 40)]
    layout = arrange(boxes, 1200, LayoutParams(min_confidence=0.5))
    assert layout.text == "题目" and layout.dropped == 2


def test_nothing_in_nothing_out():
    layout = arrange([], 1200)
    assert layout.text == "" and layout.lines == ()


def test_join_spacing_rules():
    assert join("x =", "5") == "x = 5"
    assert join("面积", "是") == "面积是"
    assert join("He", "(go)") == "He (go)"
    assert join("word", ", next") == "word, next"
    assert join("CO₂", "的") == "CO₂的"


def test_a_blank_is_spaced_like_a_word():
    # the blank found beside a box ('…"an": ____') and the next box's word
    assert join('"a" or "an": ____', "university") == '"a" or "an": ____ university'
    assert join("I have lived here", "____ ten years.") == "I have lived here ____ ten years."
    assert join("填空：____", "米。") == "填空：____米。"
    assert join("长江是____", "。") == "长江是____。"
    assert join('"an": ____', "____ university") == '"an": ________ university'  # one blank: found beside the box and read in it


def test_lines_cut_by_the_frame_are_told_from_their_boxes_before_reading():
    quads = [box("", 100, 0, 600, h=20).quad, box("", 100, 200, 600).quad, box("", 100, 1180, 600, h=19).quad,
             box("", 100, 1159, 600, h=40).quad]
    assert cut_by_frame(quads, (1600, 1200), LayoutParams()) == [True, False, True, False]  # a whole line at the edge stays


def test_with_no_line_clear_of_the_edges_none_is_cut_before_reading():
    quads = [box("", 100, 0, 600, h=20).quad, box("", 100, 1180, 600, h=19).quad]
    assert cut_by_frame(quads, (1600, 1200), LayoutParams()) == [False, False]
    assert cut_by_frame([], (1600, 1200), LayoutParams()) == []
