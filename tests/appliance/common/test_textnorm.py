import pytest

from appliance.common.textnorm import EmptyQuestionError, chinese_numeral, clean_question, numbers, search_form, spelled_numbers, trigrams


def test_search_form_folds_width_case_space_and_punctuation():
    assert search_form("解方程：２x ＋ 3 = 13。") == "解方程2x+3=13"
    assert search_form("What is H₂O?") == "whatish2o"
    assert search_form("v = 3.5 m/s.") == "v=3.5m/s"


def test_numbers_are_a_multiset_read_before_separators_go():
    assert numbers("数列 1, 3, 5") == {"1": 1, "3": 1, "5": 1}
    assert numbers("3.50 + 007 + 3.5") == {"3.5": 2, "7": 1}
    assert numbers("２x + 3 = 13") == {"2": 1, "3": 1, "13": 1}


def test_trigrams():
    assert trigrams("abcd") == {"abc", "bcd"}
    assert trigrams("ab") == {"ab"}
    assert trigrams("") == set()


@pytest.mark.parametrize("raw", ["", "   ", "\n\t ", "\x00\x01\x02"])
def test_empty_questions_are_refused(raw):
    with pytest.raises(EmptyQuestionError):
        clean_question(raw, 100)


def test_controls_removed_and_long_text_cut():
    q = clean_question("  a\x00b\x07c  ", 100)
    assert (q.text, q.removed_controls, q.truncated) == ("abc", 2, False)
    long = clean_question("题" * 20_000, 2000)
    assert long.truncated and len(long.text) == 2000 and long.original_chars == 20_000


def test_html_and_sql_kept_verbatim():
    text = "<script>alert(1)</script>'; DROP TABLE asks; --"
    assert clean_question(text, 1000).text == text


@pytest.mark.parametrize("raw, error", [
    ("\ud800", "InvalidTextError"), ("2x + 3 = 13 \udfff", "InvalidTextError"), (b"bytes", "InvalidTextError"),
    (None, "InvalidTextError"), ("1" * 100_000, "QuestionTooLongError"),
])
def test_text_that_no_model_should_see_is_refused_at_the_gate(raw, error):
    from appliance.common import textnorm

    with pytest.raises(getattr(textnorm, error)):
        textnorm.clean_question(raw, 2000)
    assert issubclass(getattr(textnorm, error), textnorm.BadQuestionError)


@pytest.mark.parametrize("raw", ["😀😀 2x+3=13 🧮", "?!?!…… ,,, ！！", "x² + café + 方程 + Ωμέγα + עברית", "9" * 20_000])
def test_odd_but_valid_text_passes_the_gate(raw):
    from appliance.common.textnorm import clean_question

    assert clean_question(raw, 2000).text


@pytest.mark.parametrize("text, expected", [
    ("汽车两个小时开了120公里", {"2": 1, "120": 1}),
    ("前十项的和", {"10": 1}),
    ("四分之三加六分之一", {"3": 1, "4": 1, "1": 1, "6": 1}),
    ("百分之二十", {"20": 1}),
    ("1比10万的地图", {"1": 1, "100000": 1}),
    ("1.5万元", {"15000": 1}),
    ("5千克和3千米", {"5": 1, "3": 1}),
    ("一个长方形", {}),
    # arithmetic and ratios spelled in words, money
    ("一比十万的地图", {"1": 1, "100000": 1}),
    ("二x加上三等于十一", {"2": 1, "3": 1, "11": 1}),
    ("三乘以五", {"3": 1, "5": 1}),
    ("两百元", {"200": 1}),
    ("二元一次方程组", {}),
    ("双氧水加二氧化锰", {}),  # a compound's numeral is no number
    ("比较三角形的面积", {}),
])
def test_numbers_read_chinese_counts_fractions_and_multipliers(text, expected):
    assert dict(numbers(text)) == expected


@pytest.mark.parametrize("text, expected", [
    ("A box holds 4 pens. Three pens are taken out.", {"4": 1, "3": 1}),
    ("6 girls and twenty boys", {"6": 1, "20": 1}),
    ("How do you say good when comparing two things?", {}),  # no numbers given: a description
    ("Which one of 3 cards is red?", {"3": 1}),  # "one" is no given
    ("a 5 cm side, two", {"5": 1}),  # a number word before no word
])
def test_numbers_read_english_number_words_in_a_problem_that_gives_numbers(text, expected):
    assert dict(numbers(text)) == expected


@pytest.mark.parametrize("text", ["three " * 20000 + "9", "三" * 5000 + "分之一", "一分之" + "三" * 5000, "三" * 5000 + "小时", "9" * 5000 + "万"])
def test_a_numeral_thousands_of_characters_long_is_read_without_error(text):
    numbers(text)  # a student's hostile or garbled text: no exception, whatever it reads


def test_numbers_spelt_out_are_read_wherever_they_stand():
    assert spelled_numbers("I have lived here ___ ten years.") == {"10"}
    assert spelled_numbers("Which one is larger, seventy or eight?") == {"70", "8"}


def test_chinese_numerals_multiply_by_ten_thousand_as_a_whole():
    assert [chinese_numeral(t) for t in ("十万", "三十五万", "一万二千", "两百", "十一")] == [100000, 350000, 12000, 200, 11]
