"""Question text: cleaning what a student sent, and the normal form search works on."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass


#: Longest question text accepted at all (longer is refused, not cut: nobody types this).
MAX_INPUT_CHARS = 20_000


class BadQuestionError(ValueError):
    """A question the appliance refuses before any model sees it (the student can fix it)."""


class EmptyQuestionError(BadQuestionError):
    """The question is empty or holds only whitespace and control characters."""


class InvalidTextError(BadQuestionError):
    """The question is not valid Unicode text (lone surrogates, not a string)."""


class QuestionTooLongError(BadQuestionError):
    """The question is longer than :data:`MAX_INPUT_CHARS`."""


@dataclass(frozen=True)
class CleanQuestion:
    text: str
    truncated: bool
    original_chars: int
    removed_controls: int


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")
_SPACE = re.compile(r"\s+")
# Digits right after an element symbol are part of a formula, not a quantity (H2O, CO₂,
# NH₃); other sub- and superscripts are quantities of their own (a₁₀, log₂8, x²).
_NUMBER = re.compile(r"(?<![A-Z\d.])(?<![A-Z][a-z])\d+(?:\.\d+)?")
_SCRIPT_DIGITS = re.compile(r"(?<![A-Z])(?<![A-Z][a-z])([₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
# A full stop that is not a decimal point.
_STOP = re.compile(r"(?<!\d)\.|\.(?!\d)")
# Punctuation that never changes a problem's meaning; maths operators are kept.
_IGNORABLE = re.compile(r"[\s,;:!?'\"“”‘’、。，；：！？（）()\[\]【】《》「」『』…·_~`]+")


def check_text(raw: object) -> str:
    """The one gate every question passes before any model: a ``str`` of valid Unicode
    (no lone surrogates, which no tokenizer or UTF-8 encoder accepts) and at most
    :data:`MAX_INPUT_CHARS` long. Raises a :class:`BadQuestionError` subclass."""
    if not isinstance(raw, str):
        raise InvalidTextError("the question must be text")
    if len(raw) > MAX_INPUT_CHARS:
        raise QuestionTooLongError(f"the question is longer than {MAX_INPUT_CHARS} characters")
    if _SURROGATE.search(raw):
        raise InvalidTextError("the question holds characters that are not valid text (lone surrogates)")
    return raw


def clean_question(raw: str, max_chars: int) -> CleanQuestion:
    """Check the text (:func:`check_text`), strip control characters and outer
    whitespace, cut to ``max_chars``.

    The text is otherwise kept verbatim (HTML or SQL-looking text included): it is
    stored and shown as text, never interpreted.
    """
    check_text(raw)
    without_controls, removed = _CONTROL.subn("", raw)
    text = without_controls.replace("\r\n", "\n").strip()
    if not text:
        raise EmptyQuestionError("the question is empty: type or photograph a problem")
    truncated = len(text) > max_chars
    if truncated:
        text = text[:max_chars]
    return CleanQuestion(text, truncated, len(raw), removed)


# Operator words between operands become symbols: "2x加3等于13" reads as "2x+3=13",
# "3x minus 5 is greater than 7" as "3x - 5 > 7". Only between operands, so 加热 stays.
_BEFORE = r"(?<=[0-9a-z)²³])"
_AFTER = r"(?=[0-9a-z(])"
_OPERATOR_WORDS = tuple(
    (re.compile(_BEFORE + space + words + space + _AFTER), symbol)
    for space, words, symbol in (
        (r"\s*", r"(?:加上|加)", "+"), (r"\s*", r"(?:减去|减)", "-"), (r"\s*", r"(?:乘以|乘)", "×"),
        (r"\s*", r"除以", "÷"), (r"\s*", r"等于", "="), (r"\s*", r"大于", ">"), (r"\s*", r"小于", "<"),
        # English operator words only as whole words between spaces.
        (r"\s+", r"plus", "+"), (r"\s+", r"minus", "-"), (r"\s+", r"times", "×"),
        (r"\s+", r"divided by", "÷"), (r"\s+", r"(?:is equal to|equals)", "="),
        (r"\s+", r"(?:is )?greater than", ">"), (r"\s+", r"(?:is )?less than", "<"),
    )
)


def fold(text: str) -> str:
    """NFKC (full-width → half-width, H₂O → H2O), lower case, operator words → symbols."""
    folded = unicodedata.normalize("NFKC", text).lower()
    for pattern, symbol in _OPERATOR_WORDS:
        folded = pattern.sub(f" {symbol} ", folded)
    return folded


def search_form(text: str) -> str:
    """The form used for matching: :func:`fold`, then whitespace and ignorable
    punctuation removed."""
    return _STOP.sub("", _IGNORABLE.sub("", fold(text)))


_CN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
# A Chinese numeral (16 characters at most: a longer run is no number a problem gives)
# counts as a number only before a unit or measure word ("两小时", "打九折"),
# so words such as 三角形, 二氧化碳 or 一元一次方程 are not read as numbers. A lone 一
# ("一个长方形") is an article, not a quantity.
_CN_NUMBER = re.compile(
    r"(?<![\d.〇零一二两三四五六七八九十百千万])([〇零一二两三四五六七八九十百千万]{1,16})(?=折|倍|只|本|件|辆|名|岁|天|个?小时|个月|分钟|秒|厘米|千米|米|公里|千克|克|吨|升|点|项|欧|伏|安|瓦|元(?![一二]次)|块)"
)
# A Chinese numeral in arithmetic or a ratio spelled in words: 二x加上三等于十一 is
# 2x + 3 = 11, 一比十万 is 1:100000 (比较 and 比例 are no ratio between numbers).
_CN = "〇零一二两三四五六七八九十百千万"
_CN_IN_MATHS = re.compile(
    rf"(?<![{_CN}])([{_CN}]{{1,16}})(?=\s*(?:[xy](?![a-z])|加上?|减去?|乘以?|除以|等于|比(?!较|例)\s*[{_CN}]))"
    rf"|(?:(?<=加上)|(?<=减去)|(?<=乘以)|(?<=除以)|(?<=等于)|(?<=[加减乘比]))\s*([{_CN}]{{1,16}})"
    r"(?=\s*(?:$|[,.?!;:)、。，？！；：）]|[xy](?![a-z])|加|减|乘|除|等于|的|是|得))"  # not 加二氧化锰
)
# A Chinese fraction: 四分之三 is 3/4 (百分之二十 is 20 %: the 百 is no given).
_CN_FRACTION = re.compile(r"(?<![〇零一二两三四五六七八九十百千万])([〇零一二两三四五六七八九十百千万]{1,16})分之"
                          r"([〇零一二两三四五六七八九十百千万]{1,16})(?![〇零一二两三四五六七八九十百千万])")
# Digits with a Chinese multiplier: 10万 is 100000, 5千 is 5000 (but 5千克, 5千米 are units).
_TIMES_CN = re.compile(r"(\d+(?:\.\d+)?)\s*(万|千)(?![克米瓦帕焦卡])")

# An English number word before a word ("two balls", "three sides") is a given like the
# digit in a problem that gives numbers ("3 red balls ... two are drawn"); in a question
# without digits it describes ("comparing two things"). "one" is left out like 一 ("one of
# the", "which one").
_EN_NUMBERS = {w: n for n, w in enumerate(
    "two three four five six seven eight nine ten eleven twelve".split(), start=2)} | {
    w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_EN_NUMBER = re.compile(rf"\b({'|'.join(_EN_NUMBERS)})(?=\s+[a-z])", re.IGNORECASE)


def spelled_numbers(text: str) -> set[str]:
    """The numbers a text spells as English words ("ten years" → "10"), wherever they stand."""
    return {str(_EN_NUMBERS[w.lower()]) for w in _EN_WORD.findall(text)}


_EN_WORD = re.compile(rf"\b({'|'.join(_EN_NUMBERS)})\b", re.IGNORECASE)


def chinese_numeral(text: str) -> int:
    """The value of a Chinese numeral: 十一 → 11, 两 → 2, 二〇二六 → 2026, 十万 → 100000."""
    if not any(ch in _CN_UNITS for ch in text):  # 七五折, 二〇二六: digit by digit
        return int("".join(str(_CN_DIGITS[ch]) for ch in text))
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch == "万":  # multiplies everything before it: 三十五万 is 35 × 10000
            total += ((section + (digit or 0)) or 1) * 10000
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * _CN_UNITS[ch]
            digit = None
    return total + section + (digit or 0)


def numbers(text: str) -> Counter[str]:
    """The numbers in a text, as a multiset of their canonical strings ("3.50" → "3.5").

    Read from the NFKC text before separators are removed, so "1, 3, 5" is three
    numbers; Chinese numerals before a measure word count too (两个 → 2).
    """
    folded = unicodedata.normalize("NFKC", _SCRIPT_DIGITS.sub(r" \1 ", text))
    found: Counter[str] = Counter()
    folded = _TIMES_CN.sub(_times_cn, folded)
    for whole, part in _CN_FRACTION.findall(folded):
        found[str(chinese_numeral(part))] += 1
        if whole != "百":
            found[str(chinese_numeral(whole))] += 1
    folded = _CN_FRACTION.sub(" ", folded)
    for before, after in _CN_IN_MATHS.findall(folded):
        found[str(chinese_numeral(before or after))] += 1
    folded = _CN_IN_MATHS.sub(" ", folded)
    for word in _EN_NUMBER.findall(folded) if _NUMBER.search(folded) else ():
        found[str(_EN_NUMBERS[word.lower()])] += 1
    for numeral in _CN_NUMBER.findall(folded):
        if numeral != "一" and numeral not in ("百", "千", "万"):  # 千克, 千米 are units
            found[str(chinese_numeral(numeral))] += 1
    for token in _NUMBER.findall(folded):
        if "." in token:
            token = token.rstrip("0").rstrip(".")
        found[token.lstrip("0") or "0"] += 1
    return found


def _times_cn(match: re.Match) -> str:
    value = float(match.group(1)) * _CN_UNITS[match.group(2)]
    return f" {value:g} " if value < 1e15 else match.group(0)


def trigrams(text_in_search_form: str) -> set[str]:
    s = text_in_search_form
    if len(s) < 3:
        return {s} if s else set()
    return {s[i : i + 3] for i in range(len(s) - 2)}


def collapse_spaces(text: str) -> str:
    return _SPACE.sub(" ", text).strip()
