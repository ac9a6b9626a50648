"""Layout through the whole step (page.arrange_page): rows, joining, the frame-edge filter."""

import numpy as np

from appliance.ocr.layout import LayoutParams, TextBox, cut_by_frame, join
from appliance.ocr.page import arrange_page
from appliance.ocr.result import LineEvidence


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


def test_the_layout_keeps_what_the_recogniser_saw_of_the_chosen_problems_boxes_in_reading_order():
    def seen(text):
        return (LineEvidence(text, (0,), ((("x", 1.0),),)),)

    boxes = [TextBox("它是哪一学派的经典？", 0.9, box("", 100, 350, 500).quad, evidence=seen("它是")),
             TextBox("谁的言行？", 0.9, box("", 480, 300, 250).quad, evidence=seen("谁的")),
             TextBox("1. 《论语》主要记录了", 0.9, box("", 100, 300, 360).quad, evidence=seen("1.")),
             TextBox("2. 肺循环开始于心脏的哪个腔？", 0.9, box("", 100, 800, 700).quad, evidence=seen("2."))]
    layout = arrange(boxes, image_height=1000)
    assert layout.text == "《论语》主要记录了谁的言行？它是哪一学派的经典？"
    assert [e.text for e in layout.evidence] == ["1.", "谁的", "它是"]


def quad_box(text: str, corners) -> TextBox:
    return TextBox(text, 0.95, np.array(corners, np.float32))


# A photo of a book's page bending toward its spine (960×1280): its boxes and texts as the
# detector and recogniser found them. Each line is cut where it bends; its first piece
# slants down to the height of the next line's end.
BENT_PAGE = [
    quad_box('第一章 生物', [[306, 360], [421, 386], [410, 436], [294, 410]]),
    quad_box('复习题', [[311, 431], [406, 455], [391, 514], [296, 490]]),
    quad_box('1、细胞的控制中心是什么结构？', [[307, 503], [713, 563], [702, 636], [297, 577]]),
    quad_box('2、DNA分子的双螺放', [[315, 570], [564, 624], [552, 680], [302, 626]]),
    quad_box('结构模型是', [[560, 620], [736, 628], [734, 682], [558, 674]]),
    quad_box('由谁提出的?', [[736, 633], [905, 638], [903, 687], [735, 681]]),
    quad_box('3、人体最大的消', [[321, 629], [504, 680], [490, 731], [307, 680]]),
    quad_box('化腺是什么?', [[500, 679], [671, 697], [666, 750], [494, 733]]),
    quad_box('些?', [[360, 748], [393, 748], [393, 785], [360, 785]]),
    quad_box('而动物细胞通常没有的结构有哪', [[508, 743], [921, 761], [919, 816], [506, 797]]),
    quad_box('5、人体消', [[333, 780], [434, 821], [417, 864], [315, 823]]),
    quad_box('物质的主要器官是什么?', [[581, 845], [895, 862], [892, 916], [578, 900]]),
    quad_box('7、光合', [[337, 883], [418, 917], [400, 959], [319, 924]]),
    quad_box('开始于心脏的哪个腔?', [[589, 900], [860, 916], [857, 971], [585, 955]]),
    quad_box('8、正常', [[341, 931], [419, 970], [401, 1007], [322, 968]]),
    quad_box('条件和产物分别是什么?', [[565, 951], [852, 969], [849, 1024], [561, 1006]]),
    quad_box('多少对染色体?', [[567, 1008], [761, 1021], [758, 1068], [564, 1055]]),
    quad_box('(d) 为显性，基因', [[626, 1060], [864, 1074], [861, 1124], [623, 1109]]),
    quad_box('子代中矮茎所占的', [[631, 1093], [872, 1108], [869, 1157], [628, 1142]]),
    quad_box('10、光合作', [[348, 1088], [443, 1139], [421, 1179], [326, 1127]]),
    quad_box('用的场', [[439, 1137], [512, 1162], [499, 1202], [426, 1177]]),
    quad_box('的高茎（', [[419, 1170], [509, 1207], [493, 1247], [402, 1209]]),
    quad_box('型为Dd的', [[385, 1185], [480, 1229], [463, 1266], [368, 1223]]),
    quad_box('对矮茎（d）为显性，基因', [[540, 1209], [851, 1234], [848, 1279], [536, 1254]]),
]


def test_a_line_cut_where_the_page_bends_is_read_as_one_line():
    layout = arrange_page(BENT_PAGE, (960, 1280))
    assert layout.text == "DNA分子的双螺放结构模型是由谁提出的?"
    assert [line.text for line in layout.lines] == ["2、DNA分子的双螺放结构模型是由谁提出的?"]


def turned_piece(text: str, start, length: float, degrees: float, height: float = 50) -> TextBox:
    along = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    down = np.array([-along[1], along[0]]) * height
    start = np.array(start, float)
    return quad_box(text, [start, start + length * along, start + length * along + down, start + down])


def test_a_line_bent_once_is_one_box_and_one_curving_away_from_its_start_stays_in_pieces():
    from appliance.ocr.layout import chain_bent

    bent = [turned_piece("在等差数列中，", (100, 300), 300, 10), turned_piece("求前10项和。", (395, 353), 300, 2)]
    assert [b.text for b in chain_bent(bent, LayoutParams())] == ["在等差数列中，求前10项和。"]
    # each piece turned further down: the chord from the first piece's start to the last one's
    # end would lie a line lower than the line starts, in the next line's height
    curving = [turned_piece("一个长方形的", (100, 300), 300, 6), turned_piece("长是8厘米，", (398, 332), 180, 16),
               turned_piece("宽是6厘米，它的面积是", (571, 382), 320, 19)]
    assert chain_bent(curving, LayoutParams()) == curving


def test_pieces_of_a_level_line_stay_apart():
    # a label's box touching its text's, both level: no bend, the row is found as always
    pieces = [box("3、", 100, 300, 40), box("人体最大的消化腺是什么？", 140, 300, 480)]
    assert [line.text for line in arrange(pieces, 1200).lines] == ["3、人体最大的消化腺是什么？"]
    from appliance.ocr.layout import chain_bent
    assert chain_bent(pieces, LayoutParams()) == pieces


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
