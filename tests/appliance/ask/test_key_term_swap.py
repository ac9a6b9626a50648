import pytest

from appliance.ask.key_term_swap import conflicting_detail, same_terms, sounds_alike, third_variant, tokens

# What the bank knows, in search form (lower case, no spaces or punctuation), as
# HybridSearch passes it.
BANK_QUESTIONS = (
    "findtheslopeofthelinepassingthroughthepoints(1,2)and(3,6)",
    "whatisthepastparticipleofgo",
    "whatisthepasttenseofgo",
    "出师表的作者是谁",
    "求24和36的最大公因数",
    "一个长方形的长是8厘米宽是5厘米它的面积是多少平方厘米",
)
BANK = "\n".join(BANK_QUESTIONS)
SLOPE = "Find the slope of the line passing through the points (1, 2) and (3, 6)."


def test_tokens_are_cjk_characters_and_latin_words():
    assert tokens("What is 2x？面积") == ["what", "is", "2", "x", "面", "积"]


# Real swaps: a near-copy of an entry with one key detail changed is another problem.

def test_contrast_group_swap_is_a_conflict():
    assert conflicting_detail("一个长方形的长是8厘米，宽是5厘米，它的周长是多少厘米？",
                              "一个长方形的长是 8 厘米，宽是 5 厘米，它的面积是多少平方厘米？", BANK) == "周长 ≠ 面积"


def test_contrast_group_swap_is_a_conflict_however_the_rest_is_worded():
    assert conflicting_detail("24和36的最小公倍数是几", "求 24 和 36 的最大公因数。", BANK) == "小 ≠ 大"


def test_term_unknown_to_the_bank_in_place_of_a_term_is_a_conflict():
    assert conflicting_detail("《石壕吏》的作者是谁？", "《出师表》的作者是谁？", BANK) == "石壕吏 ≠ 出师表"
    assert conflicting_detail('What is the past participle of "eat"?', 'What is the past participle of "go"?',
                              BANK) == "eat ≠ go"


def test_an_added_word_does_not_hide_an_unknown_term_swap():
    # "form" is added, nothing else is replaced: still the entry with "go" changed.
    assert conflicting_detail('What is the past participle form of "eat"?', 'What is the past participle of "go"?',
                              BANK) == "eat ≠ go"


def test_term_the_bank_knows_in_place_of_another_is_not_a_conflict_by_itself():
    # 出师表 has its own entry: that sibling, not an abstention, is the answer.
    assert conflicting_detail("《出师表》的作者是谁？", "《孔乙己》的作者是谁？", BANK) is None


# Rewording: the student's own words are not a changed detail.

def test_unknown_term_in_a_question_that_rewords_other_parts_is_not_a_conflict():
    question = "How do I find the steepness of the line that goes through (1, 2) and (3, 6)?"
    assert conflicting_detail(question, SLOPE, BANK) is None
    # The same unknown term as the only replacement is the changed detail.
    assert conflicting_detail("Find the steepness of the line passing through the points (1, 2) and (3, 6).",
                              SLOPE, BANK) == "steepness ≠ slope"


def test_synonyms_are_no_difference():
    assert conflicting_detail("Find the gradient of the line passing through the points (1, 2) and (3, 6).",
                              SLOPE, BANK) is None
    assert conflicting_detail("求 24 和 36 的最大公约数。", "求 24 和 36 的最大公因数。", BANK) is None


def test_a_synonym_does_not_hide_a_real_swap_elsewhere():
    # Read as 因数, 约数 is no replacement: 列举 for 短除 is then the only one, an unknown
    # method in place of the entry's. Without the synonym the two replacements would look
    # like a rewording, and the swap would go unseen.
    bank = BANK + "\n用短除法求24和36的最大公因数"
    assert conflicting_detail("用列举法求 24 和 36 的最大公约数。", "用短除法求 24 和 36 的最大公因数。",
                              bank) == "列举 ≠ 短除"
    assert conflicting_detail("用列举法求 24 和 36 的最大公因数。", "用短除法求 24 和 36 的最大公因数。",
                              bank) == "列举 ≠ 短除"  # the same question with the entry's own word


def test_synonyms_match_whole_latin_words_only():
    # "gradients" is not in the table: it stays an unknown term in place of "slope".
    assert conflicting_detail("Find the gradients of the line passing through the points (1, 2) and (3, 6).",
                              SLOPE, BANK) == "gradients ≠ slope"


def test_framing_words_are_filler():
    assert conflicting_detail("Calculate the slope of the line passing through the points (1, 2) and (3, 6).",
                              SLOPE, BANK) is None
    assert conflicting_detail('Can you tell me the past participle of "go"?', 'What is the past participle of "go"?',
                              BANK) is None


def test_questions_that_are_not_near_copies_are_never_compared():
    assert conflicting_detail("《石壕吏》讲了一个什么故事？", "《出师表》的作者是谁？", BANK) is None


# A third variant of a frame the bank holds twice.

SULPHUR = "写出硫在氧气中燃烧的化学方程式。"
PHOSPHORUS = "写出红磷在氧气中燃烧的化学方程式。"


def test_a_third_variant_of_a_frame_is_neither_entry():
    assert third_variant("写出铁丝在氧气中燃烧的化学方程式", SULPHUR, PHOSPHORUS) == ("铁丝", "红磷")
    assert third_variant('What is the plural of "tooth"?', 'What is the plural of "mouse"?',
                         'What is the plural of "goose"?') == ("tooth", "goose")


def test_the_other_entrys_own_problem_is_no_third_variant():
    assert third_variant("写出红磷在氧气里燃烧的化学方程式", SULPHUR, PHOSPHORUS) is None  # 里 for 中: filler
    assert third_variant('What is the plural of "gooes"?', 'What is the plural of "mouse"?',
                         'What is the plural of "goose"?') is None  # goose misspelt


def test_a_change_elsewhere_in_the_frame_is_no_third_variant():
    # The question changes 燃烧 of the sulphur entry, not the slot where the entries differ.
    assert third_variant("写出硫在氧气中加热的化学方程式", SULPHUR, PHOSPHORUS) is None
    # Entries that differ in more than one stretch are no pair of variants.
    assert third_variant("写出铁丝在氧气中燃烧的化学方程式", SULPHUR, "写出红磷在空气中燃烧的现象。") is None


# Words that mean the same thing: units in either script, common names of compounds,
# the world's continents, the line after.

def test_units_in_either_script_are_one_word():
    assert conflicting_detail("两个20欧的电阻并联，总电阻多大", "两个阻值都是 20 Ω 的电阻并联，总电阻是多少？", BANK) is None
    assert conflicting_detail("比例尺1:50000，图上3cm表示实际多少千米", "一幅地图的比例尺是 1:50000，图上距离为 3 厘米，"
                              "实际距离是多少千米？", BANK) is None


def test_a_compound_by_its_common_name_is_the_compound():
    assert conflicting_detail("熟石灰的化学式是什么", "氢氧化钙的化学式是什么？", BANK) is None
    assert conflicting_detail("小苏打的化学式是什么", "碳酸氢钠的化学式是什么？", BANK) is None


def test_the_continents_are_the_world_and_the_line_after_is_the_next_line():
    assert conflicting_detail("七大洲里面积最小的是哪个洲", "世界上面积最小的大洲是哪个？", BANK) is None
    assert conflicting_detail("“海内存知己”的后一句", "“海内存知己”的下一句是什么？", BANK) is None


def test_a_continent_named_with_the_ohm_character_is_no_unit():
    from appliance.ask.key_term_swap import _compared_tokens

    assert _compared_tokens("欧洲") == ("欧", "洲")
    assert _compared_tokens("10欧") == ("10", "ω")


@pytest.mark.parametrize("question, entry", [
    ("两个10欧的电阻串在一起，总电阻多大", "两个阻值都是 10 Ω 的电阻串联，总电阻是多少？"),
    ("What is the antonym of 'expensive'?", 'What is the opposite of "expensive"?'),
    ("春眠不觉晓，后面接什么", "“春眠不觉晓”的下一句是什么？"),
    ("白日依山尽后面那句是什么来着", "“白日依山尽”的下一句是什么？"),
    ("孔已己的作者是谁", "《孔乙己》的作者是谁？"),
])
def test_everyday_words_for_a_term_are_the_term(question, entry):
    assert conflicting_detail(question, entry, BANK) is None


def test_a_part_of_a_paper_is_not_a_superlative():
    assert same_terms("第一大题") == "第一大题"
    assert same_terms("世界第一大洋") == "世界最大洋"


@pytest.mark.parametrize("mine, theirs, alike", [
    ("孔已己", "孔乙己", True),
    ("净夜思", "静夜思", True),
    ("过氧化轻", "过氧化氢", True),
    ("铝", "氯", False),        # two elements: meant
    ("轻", "青", True),          # a size word for a colour word: no contrast between them
    ("西汉", "东汉", False),    # another dynasty
    ("氯化钾", "氯化钠", False),  # no shared reading
    ("静夜思", "静夜思", False),  # nothing typed otherwise
    ("静夜", "净业", False),      # every character other
])
def test_a_character_typed_as_one_that_sounds_the_same(mine, theirs, alike):
    assert sounds_alike(mine, theirs) is alike
