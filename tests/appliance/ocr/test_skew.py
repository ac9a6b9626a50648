"""A page photographed at a slant: its skew read off the line boxes, the layout done on
the levelled page, the frame's edges still those of the photo."""

import math

import cv2
import numpy as np
import pytest

from appliance.ocr.layout import TextBox
from appliance.ocr.page import arrange_page
from appliance.ocr.skew import Skew, measure_skew, printed_across

SIZE = (1600, 1200)
CENTRE = (800.0, 600.0)


def turned(x: float, y: float, w: float, h: float, degrees: float) -> np.ndarray:
    """The rectangle (x, y, w, h) of an upright page, on that page turned by ``degrees``
    about the photo's centre (clockwise in image coordinates: lines fall to the right)."""
    corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    a = math.radians(degrees)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    return ((corners - CENTRE) @ rotation.T + CENTRE).astype(np.float32)


def page(degrees: float, gap: float = 30, top: float = 420, bottom: float = 580) -> list[TextBox]:
    """Two problems of two lines each, the second in the middle of the frame, spaced as on
    a worksheet; the detector found each line in two pieces (a gap after a comma), so on
    the slanted page a line's second piece sits as low as the next line's first."""
    rows = [(("一辆汽车以每小时60千米的速度", "行驶了3小时，"), top), (("它一共行驶了", "多少千米？"), top + 50),
            (("一个长方形的长是8厘米，", "宽是5厘米，"), bottom), (("它的面积是", "多少平方厘米？"), bottom + 50)]
    boxes = []
    for (first, second), y in rows:
        boxes.append(TextBox(first, 0.95, turned(300, y, 500, 36, degrees)))
        boxes.append(TextBox(second, 0.95, turned(800 + gap, y, 470, 36, degrees)))
    return boxes


@pytest.mark.parametrize("degrees", [-6.0, -2.5, 1.0, 4.0, 7.0, 18.0, -22.0])
def test_the_slope_of_the_page_is_read_off_its_long_lines(degrees):
    assert measure_skew([b.quad for b in page(degrees)], SIZE).degrees == pytest.approx(degrees, abs=0.05)


def test_a_level_page_or_one_without_long_lines_is_left_as_it_is():
    assert measure_skew([b.quad for b in page(0.1)], SIZE).level
    short = [turned(300, 300 + 60 * i, 100, 36, 5.0) for i in range(4)]  # words, not lines
    assert measure_skew(short, SIZE).level
    assert measure_skew([], SIZE).level


@pytest.mark.parametrize("degrees", [-7.0, 6.0, 17.0, -20.0])  # a phone held askew turns the page well past 15°
def test_on_a_slanted_page_the_framed_problem_is_read_whole_and_alone(degrees):
    layout = arrange_page(page(degrees), SIZE)
    assert layout.text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？"
    assert not layout.choices


def test_the_chosen_lines_boxes_stay_in_photo_pixels():
    boxes = page(6.0)
    layout = arrange_page(boxes, SIZE)
    assert len(layout.lines) == 2
    for line, first, second in zip(layout.lines, boxes[4::2], boxes[5::2]):  # one line: its two pieces
        polygon = np.array(line.box, np.float32)
        for x, y in np.concatenate([first.quad, second.quad]).tolist():  # inside, or on the edge
            assert cv2.pointPolygonTest(polygon, (x, y), True) >= -1.5
        assert cv2.contourArea(polygon) < 1.3 * (cv2.contourArea(first.quad) + cv2.contourArea(second.quad) + 10 * 36)


@pytest.mark.parametrize("degrees, side", [(6.0, "right"), (-6.0, "left")])
def test_a_line_cut_by_the_frames_side_is_still_known_as_cut_on_a_slanted_page(degrees, side):
    # The nearer problem runs off a side of the photo well above its centre: levelled,
    # that box no longer reaches the frame's edge, but its problem is still the cut one,
    # and the complete one below is chosen.
    boxes = page(degrees, gap=10, top=380, bottom=820)
    index, corners, edge = (1, [1, 2], SIZE[0] - 1) if side == "right" else (0, [0, 3], 0)
    cut = boxes[index].quad.copy()
    cut[corners, 0] = edge
    boxes[index] = TextBox(boxes[index].text, boxes[index].confidence, cut)
    layout = arrange_page(boxes, SIZE)
    assert layout.text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？"


def along(x: float, y: float, w: float, h: float, degrees: float) -> np.ndarray:
    """A box of a line that starts at (x, y) and runs at ``degrees``."""
    a = math.radians(degrees)
    d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    start = np.array([x, y])
    return np.array([start, start + w * d, start + w * d + h * n, start + h * n], np.float32)


def keystoned_page() -> list[TextBox]:
    """A page seen from below and to the side: its lines slope 8° at the top of the photo
    and 1° at the bottom; three problems, each line found in two pieces."""
    lines = [("一辆汽车以每小时60千米的速度", "行驶了3小时，它一共行驶了多少千米？", 200),
             ("请写出计算过程", "并说明理由。", 250),
             ("一个长方形的长是8厘米，", "宽是5厘米，它的面积是多少平方厘米？", 560),
             ("它的周长是多少", "厘米？", 610),
             ("一个正方形的边长是6厘米，", "它的面积是多少平方厘米？", 920),
             ("它的周长是多少", "厘米？", 970)]
    boxes = []
    for first, second, y in lines:
        degrees = 8.0 - 7.0 * y / SIZE[1]
        lift = 510 * math.tan(math.radians(degrees))
        boxes.append(TextBox(first, 0.95, along(300, y, 500, 36, degrees)))
        boxes.append(TextBox(second, 0.95, along(810, y + lift, 560, 36, degrees)))
    return boxes


def test_a_page_in_perspective_is_levelled_line_by_line():
    skew = measure_skew([b.quad for b in keystoned_page()], SIZE)
    assert skew.per_px == pytest.approx(-7.0 / SIZE[1], rel=0.1)
    layout = arrange_page(keystoned_page(), SIZE)
    assert layout.text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？它的周长是多少厘米？"
    assert layout.page_text.splitlines() == [  # one slope for the whole page garbles the bottom problem
        "一辆汽车以每小时60千米的速度行驶了3小时，它一共行驶了多少千米？请写出计算过程并说明理由。",
        layout.text, "一个正方形的边长是6厘米，它的面积是多少平方厘米？它的周长是多少厘米？"]


def two_column_page(degrees: float) -> list[TextBox]:
    """A worksheet of two columns, eight one-line problems each, turned on the desk: its
    gutter leans with its lines, and no upright strip of the photo is empty."""
    left = ["在等差数列中，公差是多少？", "“欲穷千里目”的下一句是什么？", "呼吸作用的主要场所是哪里？",
            "《春晓》的作者是谁？", "光合作用的场所是哪里？", "水的沸点是多少摄氏度？", "地球上最大的洋是哪个？",
            "一年有多少个月？"]
    right = ["《孔乙己》的作者是谁？", "鸦片战争爆发于哪一年？", "秦朝建立于哪一年？", "辛亥革命爆发于哪一年？",
             "《背影》的作者是谁？", "人体最大的器官是什么？", "氧的元素符号是什么？", "一周有多少天？"]
    boxes = [TextBox(f"{n + 1}. {q}", 0.95, turned(80, 360 + 60 * n, 600, 36, degrees)) for n, q in enumerate(left)]
    boxes += [TextBox(f"{n + 9}. {q}", 0.95, turned(740, 390 + 60 * n, 560, 36, degrees)) for n, q in enumerate(right)]
    return boxes


@pytest.mark.parametrize("degrees", [-12.0, 12.0])
def test_the_columns_of_a_page_turned_on_the_desk_are_not_read_across(degrees):
    layout = arrange_page(two_column_page(degrees), SIZE)
    assert layout.text == "辛亥革命爆发于哪一年？"
    lines = layout.page_text.splitlines()  # in reading order: the left column, then the right
    assert [line.split(".")[0] for line in lines] == [str(n) for n in range(1, 17)]


def test_a_levelled_point_goes_back_to_where_it_was_on_the_photo():
    skew = Skew(12.0, CENTRE, per_px=-0.004, lean=0.75)
    points = np.array([[0, 0], [1600, 1200], [300, 900], [1500, 100]], np.float32)
    assert np.allclose(skew.to_photo(skew.to_page(points)), points, atol=0.05)


def test_the_columns_of_a_page_seen_in_perspective_stay_upright_under_its_sloping_lines():
    # the phone tilted towards the page's side: lines slope 8°, the gutter stays upright
    slope = math.tan(math.radians(8.0))
    boxes = [TextBox(b.text, b.confidence, along(x, y + (x - CENTRE[0]) * slope, w, 36, 8.0))
             for b, (x, y, w) in zip(two_column_page(0.0), [(80, 360 + 60 * n, 600) for n in range(8)]
                                     + [(740, 390 + 60 * n, 560) for n in range(8)])]
    lines = arrange_page(boxes, SIZE).page_text.splitlines()
    assert [line.split(".")[0] for line in lines] == [str(n) for n in range(1, 17)]



def test_an_upright_edge_of_a_page_in_perspective_stays_a_straight_line():
    # lines slope 26° at the top of the photo and 8° at the bottom; the page's upright edges
    # are straight lines in the photo, leaning as the middle row turns: levelled with its
    # columns upright (lean 1), such an edge is one x all the way down
    skew = Skew(17.0, CENTRE, per_px=-0.015, lean=1.0)
    ys = np.linspace(0, SIZE[1], 9)
    edge = np.stack([900 - (ys - CENTRE[1]) * math.tan(math.radians(17.0)), ys], axis=1)
    assert np.ptp(skew.to_page(edge)[:, 0]) < 1.0
    assert np.allclose(skew.to_photo(skew.to_page(edge)), edge, atol=0.5)


@pytest.mark.parametrize("degrees", [0.0, 4.0, -6.0])
def test_a_watermark_printed_across_the_page_does_not_tell_its_slope(degrees):
    # long diagonal lines of a faint watermark (「内部资料」 tiled at 30°), as many as the text's
    marks = [TextBox("第一中学教务处内部资料", 0.99, turned(x, y, 620, 90, degrees - 30.0))
             for x, y in ((150, 300), (700, 500), (250, 800), (900, 900))]
    quads = [b.quad for b in page(degrees) + marks]
    skew = measure_skew([q for q, across in zip(quads, printed_across(quads)) if not across], SIZE)
    assert skew.degrees == pytest.approx(degrees, abs=0.05)
    assert skew.per_px == pytest.approx(0.0, abs=1e-4)


def test_a_watermark_across_the_framed_problem_is_no_part_of_its_text():
    boxes = page(2.0) + [TextBox("内部资料", 0.99, turned(560, 560, 260, 100, -28.0)),
                         TextBox("第一中学教务处内部资料", 0.99, turned(900, 520, 640, 100, -28.0))]
    assert arrange_page(boxes, SIZE).text == "一个长方形的长是8厘米，宽是5厘米，它的面积是多少平方厘米？"


def test_a_second_sheet_at_another_slope_is_not_taken_for_a_watermark():
    sheet = [TextBox("一辆汽车3小时行驶了120千米", 0.95, turned(250, y, 560, 36, 24.0)) for y in (900, 950)]
    assert not any(printed_across([b.quad for b in page(0.0) + sheet]))
