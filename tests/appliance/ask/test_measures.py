"""Units of measurement: the same numbers in another unit are another problem; one unit
written two ways is the same."""

import pytest

from appliance.ask.measures import other_quantity_given, other_unit_asked, other_units, read_measures
from appliance.ask.pair_features import problem_of, vetoed


def changed(question: str, entry: str) -> bool:
    return other_units(read_measures(question), read_measures(entry))


@pytest.mark.parametrize("question, entry", [
    ("长方形的长是 8 分米，宽是 5 厘米，面积多少平方厘米", "一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？"),
    ("汽车 2 小时行驶了 120 千米，平均速度是多少米/秒？", "一辆汽车 2 小时行驶了 120 千米，它的平均速度是多少千米/时？"),
    ("在标准大气压下，水的沸点是多少华氏度？", "在标准大气压下，水的沸点是多少摄氏度？"),
    ("一名同学的质量是 50 斤，他的重力是多少", "一名同学的质量是 50 kg，他受到的重力是多少？"),
    ("拉力拉着物体移动了 5 cm", "拉力拉着物体移动了 5 m"),
])
def test_another_unit_of_the_same_quantity_is_another_problem(question, entry):
    assert changed(question, entry)
    assert vetoed(problem_of(question), problem_of(entry), False) == "units"


@pytest.mark.parametrize("question, entry", [
    ("棱长4cm的正方体", "棱长为 4 厘米的正方体"),
    ("汽车2h行驶120km，速度多少km/h", "一辆汽车 2 小时行驶了 120 千米，它的平均速度是多少千米/时？"),
    ("面积是多少cm²", "面积是多少平方厘米"),
    ("玉米地长 30 米", "一块地长 30 m"),
    ("质量 2 公斤", "质量 2 kg"),
    ("一个长方形的长是8厘米", "一个长方形的长是 8 厘米，宽是 5 厘米"),
])
def test_one_unit_written_two_ways_is_the_same(question, entry):
    assert not changed(question, entry)


def test_unit_letters_inside_words_are_no_units():
    assert read_measures("What is the mass of the moon in grams?").units == frozenset()
    assert read_measures("今天天气很好，温度升高了").units == frozenset()
    assert read_measures("3 m/s").units == {"米", "秒"}


@pytest.mark.parametrize("question, entry", [
    ("一辆汽车 120 小时行驶了 2 千米，它的平均速度是多少千米/时？", "一辆汽车 2 小时行驶了 120 千米，它的平均速度是多少千米/时？"),
    ("A bag contains 3 red balls and 5 blue balls.", "A bag contains 5 red balls and 3 blue balls."),
    ("质量为 10 kg 的物体受到 2 N 的合外力", "一个质量为 2 kg 的物体受到 10 N 的合外力"),
])
def test_the_same_numbers_in_other_roles_are_another_problem(question, entry):
    assert vetoed(problem_of(question), problem_of(entry), False) == "units"


@pytest.mark.parametrize("question, entry", [
    ("120km in 2h, average speed?", "一辆汽车 2 小时行驶了 120 千米，它的平均速度是多少千米/时？"),
    ("5 red and 3 blue balls, P(red)?", "A bag contains 5 red balls and 3 blue balls. What is the probability of red?"),
])
def test_the_same_numbers_in_the_same_roles_are_the_same(question, entry):
    from appliance.ask.measures import swapped_roles

    assert not swapped_roles(read_measures(question), read_measures(entry))


@pytest.mark.parametrize("text, unit", [
    ("它的周长是多少平方厘米？", "平方厘米"),
    ("面积是多少cm²", "平方厘米"),
    ("How many square centimetres is the area?", "平方厘米"),
    ("地球自转一周大约多少分钟", "分钟"),
    ("平均每小时开多少公里", "千米"),
    ("它的平均速度是多少千米/时？", "千米"),
    ("how many seconds does it take", "秒"),
    ("有多少个学生", ""),
    ("几时出发", ""),
])
def test_the_unit_an_answer_is_asked_in(text, unit):
    assert read_measures(text).asked == unit


def test_asked_in_another_unit_is_another_problem():
    entry = "一个长方形的长是 8 厘米，宽是 5 厘米，它的周长是多少厘米？"
    assert vetoed(problem_of("一个长方形的长是 8 厘米，宽是 5 厘米，它的周长是多少平方厘米？"), problem_of(entry), False) == "units"
    # The same unit asked two ways, and a rate asked per hour, are the entry's.
    assert not other_unit_asked(read_measures("长8cm宽5cm的长方形周长多少cm"), read_measures(entry))
    speed = "一辆汽车 2 小时行驶了 120 千米，它的平均速度是多少千米/时？"
    assert vetoed(problem_of("汽车两个小时开了120公里，平均每小时开多少公里？"), problem_of(speed), False) is None


def test_superscript_units_survive_nfkc():
    # NFKC writes cm³ as cm3: still a volume, not a length.
    assert read_measures("体积是 100 cm³").given == frozenset({("100", "立方厘米")})
    assert read_measures("面积是 40 cm²").given == frozenset({("40", "平方厘米")})


def test_a_number_measuring_another_quantity_is_another_problem():
    entry = "100 g 氯化钠溶液中含有 10 g 氯化钠，求该溶液中溶质的质量分数。"
    assert other_quantity_given(read_measures("怎么配制100g溶质质量分数为10%的氯化钠溶液？"), read_measures(entry))
    assert not other_quantity_given(read_measures("100克氯化钠溶液里有10克氯化钠，质量分数是多少"), read_measures(entry))
