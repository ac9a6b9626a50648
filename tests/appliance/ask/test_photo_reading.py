"""A photo's text read as a bank question: only what a camera confuses is folded away."""

import pytest

from appliance.ask.photo_reading import camera_form, reads_as, seen_as, starts_as, supported_by
from tests.appliance.ask.evidence import seen, sure


@pytest.mark.parametrize("read, printed", [
    ("What is the Sl unit of force?", "What is the SI unit of force?"),  # I read as l
    ("How many moles of water are there in 36 g of water? (H = 1, 0 = 16)",
     "How many moles of water are there in 36 g of water? (H = 1, O = 16)"),  # O read as 0
    ("求 log28 的值。", "求 log₂8 的值。"),  # a lowered digit read level
    ("水产生的压强是多少？（ρ水 = 1.0×103 kg/m³）", "水产生的压强是多少？（ρ水 = 1.0 × 10³ kg/m³）"),
    ("⑧正常人的体细胞中有多少对染色体？", "正常人的体细胞中有多少对染色体？"),  # the circled number left before it
    ("6 在等差数列 {an}中，a₁ = 2,公差 d = 3,求 a10。", "在等差数列 {aₙ} 中，a₁ = 2，公差 d = 3，求 a₁₀。"),
    ("一个质量为 2 kg 的物体受到 10 Ⅳ 的合外力作用，求它的加速度大小。",
     "一个质量为 2 kg 的物体受到 10 N 的合外力作用，求它的加速度大小。"),  # N read as the numeral Ⅳ
    ("在等差数列 {an} 中，a₁ = 2，公差 d = 3，求前 10 项和 S₁00", "在等差数列 {aₙ} 中，a₁ = 2，公差 d = 3，求前 10 项和 S₁₀。"),
    ("在等比数列{an}中，a₁=3，公比q=2，求a5o", "在等比数列 {aₙ} 中，a₁ = 3，公比 q = 2，求 a₅。"),  # its 。 read as 0 or o
    ("一个质量为 5 kg 的物体受到 10 Ν 的合外力作用", "一个质量为 5 kg 的物体受到 10 N 的合外力作用"),  # a Greek Nu
])
def test_what_a_camera_confuses_is_the_same_question(read, printed):
    assert reads_as(read, printed)


@pytest.mark.parametrize("read, printed", [
    ("解方程：2x + 3 = 13", "解方程：2x + 3 = 11"),  # another number
    ("解方程：2x - 3 = 11", "解方程：2x + 3 = 11"),  # another sign
    ("正常人的体细胞中有多少对染色体？", "人的体细胞中有多少对染色体？"),  # words before it are words
    ("123 正常人的体细胞中有多少对染色体？", "正常人的体细胞中有多少对染色体？"),  # three digits are no problem number
    ("第二次世界大战结束于哪一年？", "第一次世界大战结束于哪一年？"),
    ("受到 10 IV 的力", "受到 10 N 的力"),  # two letters are no misread N
    ("求 a50", "求 a₅"), ("Find a50", "Find a₅."),  # a zero where no Chinese full stop was printed
    ("", ""),
])
def test_any_other_difference_is_another_question(read, printed):
    assert not reads_as(read, printed)


def test_the_camera_form_folds_only_confusable_characters():
    assert camera_form("H₂O 和 x² ，Ｏ") == camera_form("H2O和x2,0")
    assert camera_form("2.5") != camera_form("25")


@pytest.mark.parametrize("read, printed, look_alikes", [
    ("求loq28的值。", "求 log₂8 的值。", (("q", "g"),)),
    ("X《论游》主要记录了谁的言行？", "《论语》主要记录了谁的言行？", (("游", "语"), ("X", "K"))),  # a cross before it too
    ("What is the Sl unit of farce?", "What is the SI unit of force?", (("a", "o"),)),
    ("在等比数列{a}中，a₁=3，公比q=2，求a₅0", "在等比数列 {aₙ} 中，a₁ = 3，公比 q = 2，求 a₅。", (("", "n"),)),  # ₙ not read
])
def test_a_character_the_recogniser_nearly_read_as_the_printed_one_reads_as_it(read, printed, look_alikes):
    assert not reads_as(read, printed)
    assert reads_as(read, printed, look_alikes)


@pytest.mark.parametrize("read, printed, look_alikes", [
    ("求loq28的值。", "求 log₂8 的值。", (("g", "q"),)),  # the other way round: not what was nearly read
    ("求log₂3的值。", "求 log₂8 的值。", (("3", "8"),)),  # a digit is never a look-alike
    ("一次函数的图像与 y 轴的交点", "一次函数的图像与 x 轴的交点", (("y", "x"),)),  # nor a variable
    ("选 B", "选 8", (("B", "8"),)),
    ("《论游》主要记灵了准的言行？", "《论语》主要记录了谁的言行？", (("游", "语"), ("灵", "录"), ("准", "谁"))),  # too many
    ("肺循环开始于心脏的哪个腔？", "体循环开始于心脏的哪个腔？", (("游", "语"),)),  # not this character's
    ("求 f(2) 的值", "求 f(-2) 的值", (("", "-"),)), ("是否充分燃烧", "是否不充分燃烧", (("", "不"),)),  # only a word's letter
    ("与 轴的交点", "与 x 轴的交点", (("", "x"),)),  # not a variable
])
def test_a_difference_the_recogniser_did_not_doubt_or_that_carries_meaning_stays(read, printed, look_alikes):
    assert not reads_as(read, printed, look_alikes)


def test_a_blurred_reading_is_the_question_where_the_recogniser_saw_its_characters_nearly_as_well():
    # "Transtate into Cinese": t over l, and the h of Chinese nearly read where the blank won
    steps = sure("Transtate into C", at5={"t": 0.6, "l": 0.35}) + [{"": 0.7, "h": 0.3}] + sure("inese")
    read = seen(*steps)
    assert read.text == "Transtate into Cinese"
    assert supported_by((read,), read.text, "Translate into Chinese")
    assert not supported_by((read,), read.text, "Transfate into Chinese")  # f never seen there


def test_a_digit_read_plainly_as_another_is_never_supported():
    read = seen(*sure("解方程：2x+3=11"))
    assert supported_by((read,), "解方程：2x + 3 = 11", "解方程：2x + 3 = 11")
    assert not supported_by((read,), "解方程：2x + 3 = 11", "解方程：2x + 3 = 13")
    assert not supported_by((read,), "解方程：2x + 3 = 11", "解方程：2x + 3 = 111")  # more than was seen


def test_a_number_and_score_note_the_reading_left_out_are_left_out_of_the_weighing():
    read = seen(*sure("9．解方程：2x+3=11（5分）"))
    assert supported_by((read,), "解方程：2x + 3 = 11", "解方程：2x + 3 = 11")
    # what the reading kept must all be in the question: a mark between its words is not
    assert not supported_by((read,), "解方程：2x + 3 = 11", "2x + 3 = 11")
    mark = seen(*sure("我每天早上七X点起床"))
    assert not supported_by((mark,), mark.text, "我每天早上七点起床")


def test_the_question_may_go_on_over_the_next_box():
    first, second = seen(*sure("解方程：")), seen(*sure("2x+3=11"))
    assert supported_by((first, second), "解方程：2x + 3 = 11", "解方程：2x + 3 = 11")


def test_only_a_question_the_recogniser_saw_alone_is_taken():
    read = seen(*sure("解方程：2x+3=11", at10={"1": 0.55, "3": 0.4}))
    both = ["解方程：2x + 3 = 11", "解方程：2x + 3 = 13"]
    assert seen_as((read,), read.text, both) is None  # the last digit might be either
    assert seen_as((read,), read.text, both[1:]) == both[1]
    assert seen_as((read,), read.text, ["解方程：3x + 3 = 13"]) is None


QUESTIONS = ["Find the slope of the line passing through the points (1, 2) and (3, 6).", "辛亥革命爆发于哪一年？",
             "解方程：x² - 5x + 4 = 0", "一个圆的半径是 3 厘米，它的周长是多少厘米？", "一个圆的半径是 3 厘米，它的周长是多少厘米？（π 取 3.14）"]


@pytest.mark.parametrize("read, question", [
    ("Find the slope of the line passing through the points (1, 2) and (3, 6). The slope is 2.", QUESTIONS[0]),
    ("7. 辛亥革命爆发于哪一年？1½2", QUESTIONS[1]),
    ("辛亥革命爆发于哪一年？它的领导者是谁？", None),  # more is asked
    ("解方程：x²-5x+4=04", None),  # the question ends in a number: 04 may be its own
    ("一个圆的半径是3厘米，它的周长是多少厘米？（π取3.14）", None),  # given data after it
    ("辛亥革命爆发于哪一年？", None),  # nothing after it: reads_as's case
    ("辛亥革命爆发于哪一年？1911年10月10日，武昌起义爆发，各省响应", None),  # more written than the question
])
def test_a_reading_that_begins_with_a_whole_question_and_goes_on_with_writing_starts_as_it(read, question):
    assert starts_as(read, QUESTIONS) == question
