"""Units of measurement in a problem: which quantity each given is measured in, and which
units a problem asks about.

Two problems with the same numbers in other units are other problems (8 分米 is not
8 厘米; the speed in 米/秒 is not the speed in 千米/时; 100 华氏度 is not 100 摄氏度).
Units are read in one canonical name per unit (cm = 厘米, 公里 = km = 千米, cm² = 平方厘米)
with the quantity they measure, so that a student's "4cm" and the bank's "4 厘米" agree.
Latin symbols and the one-character Chinese units that are also ordinary words (时, 天,
分) count only right after a number or a slash.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# canonical unit: (quantity, spellings). Latin spellings are matched case-insensitively.
_TABLE = {
    "毫米": ("length", ("毫米", "mm")), "厘米": ("length", ("厘米", "cm")),
    "分米": ("length", ("分米", "dm")), "米": ("length", ("米", "m")),
    "千米": ("length", ("千米", "公里", "km")),
    "平方毫米": ("area", ("平方毫米", "mm²", "mm^2", "mm2")), "平方厘米": ("area", ("平方厘米", "cm²", "cm^2", "cm2")),
    "平方分米": ("area", ("平方分米", "dm²", "dm^2", "dm2")), "平方米": ("area", ("平方米", "m²", "m^2", "m2")),
    "平方千米": ("area", ("平方千米", "平方公里", "km²", "km^2", "km2")), "公顷": ("area", ("公顷",)),
    "立方厘米": ("volume", ("立方厘米", "cm³", "cm^3", "cm3")), "立方分米": ("volume", ("立方分米", "dm³", "dm^3", "dm3")),
    "立方米": ("volume", ("立方米", "m³", "m^3", "m3")), "升": ("volume", ("升", "l")), "毫升": ("volume", ("毫升", "ml")),
    "毫克": ("mass", ("毫克", "mg")), "克": ("mass", ("克", "g")), "千克": ("mass", ("千克", "公斤", "kg")),
    "吨": ("mass", ("吨", "t")), "斤": ("mass", ("斤",)),
    "秒": ("time", ("秒", "s")), "分钟": ("time", ("分钟", "min")), "小时": ("time", ("小时", "时", "h")),
    "天": ("time", ("天", "d")),
    "摄氏度": ("temperature", ("摄氏度", "℃", "°c")), "华氏度": ("temperature", ("华氏度", "℉", "°f")),
    "牛": ("force", ("牛顿", "牛", "n")), "帕": ("pressure", ("帕斯卡", "帕", "pa")),
    "焦": ("energy", ("焦耳", "焦", "j")), "瓦": ("power", ("瓦特", "瓦", "w")),
    "毫安": ("current", ("毫安", "ma")), "毫伏": ("voltage", ("毫伏", "mv")), "千瓦": ("power", ("千瓦", "kw")),
    "千瓦时": ("energy", ("千瓦时", "kwh", "kw·h")), "千焦": ("energy", ("千焦", "kj")), "千帕": ("pressure", ("千帕", "kpa")),
    "千欧": ("resistance", ("千欧", "kω")), "%": ("fraction", ("%",)),
    "伏": ("voltage", ("伏特", "伏", "v")), "安": ("current", ("安培", "安", "a")), "欧": ("resistance", ("欧姆", "欧", "ω")),
}
# Spellings that are also ordinary words or letters: only after a number or a slash. The
# text is read after NFKC, which writes cm² as cm2.
_BOUND = {"ma", "mv", "kw", "kwh", "kw·h", "kj", "kpa", "kω", "时", "天", "升", "克", "牛", "帕", "焦", "瓦", "伏", "安", "欧", "n", "pa", "j", "w", "v", "a", "ω", "m", "mm", "cm", "dm", "km", "l", "ml", "mg", "g", "kg", "t", "s", "min", "h", "d",
          "mm²", "mm^2", "cm²", "cm^2", "dm²", "dm^2", "m²", "m^2", "km²", "km^2", "cm³", "cm^3", "dm³", "dm^3", "m³", "m^3",
          "mm2", "cm2", "dm2", "m2", "km2", "cm3", "dm3", "m3"}
# Chinese words holding a unit's character that are no unit (玉米, 克服, 升高).
_NOT_UNITS = re.compile(r"玉米|米饭|大米|克服|克隆|巧克力|升高|上升|升华|升旗|升级|天气|天空|天然|今天|明天|昨天|天文|天体")


def _pattern() -> re.Pattern:
    spellings = sorted({s for _, spelled in _TABLE.values() for s in spelled}, key=len, reverse=True)
    parts = []
    for s in spellings:
        escaped = re.escape(s)
        if s in _BOUND:
            escaped = rf"(?:(?<=[\d/])|(?<=\d\s)){escaped}"
        if s.isascii() or s[0] == "°":
            escaped += r"(?![a-z])"
        parts.append(escaped)
    return re.compile("|".join(parts))


_UNIT = _pattern()
_CANONICAL = {s: unit for unit, (_, spelled) in _TABLE.items() for s in spelled}
_NUMBER_BEFORE = re.compile(r"(\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Measures:
    #: (number, canonical unit) for every number written with its unit.
    given: frozenset[tuple[str, str]]
    #: Every canonical unit the problem names.
    units: frozenset[str]
    #: (number, what it counts): its unit, or the Latin word right after it ("5 red balls").
    bound: frozenset[tuple[str, str]] = frozenset()
    #: The unit the answer is asked in ("多少平方厘米", "how many seconds"), canonical; ""
    #: where the question names none.
    asked: str = ""


def read_measures(text: str) -> Measures:
    folded = _NOT_UNITS.sub(" ", unicodedata.normalize("NFKC", text).lower())
    folded = re.sub(r"(?<=\d),(?=\d{3})", "", folded)
    given, units = set(), set()
    for match in _UNIT.finditer(folded):
        unit = _CANONICAL[match.group(0)]
        units.add(unit)
        number = _NUMBER_BEFORE.search(folded[: match.start()])
        if number:
            given.add((_canonical_number(number.group(1)), unit))
    bound = set(given)
    for match in _NUMBER_WORD.finditer(folded):
        if match.group(2) not in _CANONICAL and match.group(2) not in _LINK_WORDS:
            bound.add((_canonical_number(match.group(1)), match.group(2)))
    return Measures(frozenset(given), frozenset(units), frozenset(bound), asked_unit(folded))


# English names of the units an answer is asked in ("how many square centimetres").
_ENGLISH_NAMES = {"millimet": "毫米", "centimet": "厘米", "decimet": "分米", "kilomet": "千米", "met": "米",
                  "milligram": "毫克", "kilogram": "千克", "gram": "克", "millilit": "毫升", "lit": "升",
                  "second": "秒", "minute": "分钟", "hour": "小时", "day": "天", "ton": "吨"}
_ENGLISH_STEMS = sorted(_ENGLISH_NAMES, key=len, reverse=True)  # milligram before gram
_ENGLISH_UNIT = r"(?:square\s+|cubic\s+)?(?:millimet|centimet|decimet|kilomet|met|milligram|kilogram|gram|millilit|lit)(?:re|er)?s?" \
    r"|(?:second|minute|hour|day|ton)s?"


def _asked_pattern() -> re.Pattern:
    spellings = sorted({s for _, spelled in _TABLE.values() for s in spelled}, key=len, reverse=True)
    unit = "|".join(re.escape(s) + (r"(?![a-z])" if s.isascii() else "") for s in spellings)
    unit = rf"(?:{_ENGLISH_UNIT}(?![a-z])|{unit})"
    # 几时 asks "when", not in hours.
    return re.compile(rf"(?:多少|几(?!时))\s*个?\s*({unit})|how\s+(?:many|much)\s+({unit})")


_ASKED = _asked_pattern()


def asked_unit(folded: str) -> str:
    """The canonical unit the answer is asked in ("" for none): the unit right after 多少,
    几 or "how many". Of a rate only the first unit (多少千米/时 and 每小时开多少千米 both ask
    in 千米): a rate in other units is :func:`other_units`' to tell."""
    match = _ASKED.search(folded)
    return _unit_name(match.group(1) or match.group(2)) if match else ""


def _unit_name(spelled: str) -> str:
    if spelled in _CANONICAL:
        return _CANONICAL[spelled]
    words = spelled.split()
    prefix = {"square": "平方", "cubic": "立方"}.get(words[0], "") if len(words) > 1 else ""
    stem = words[-1]
    name = next(_ENGLISH_NAMES[k] for k in _ENGLISH_STEMS if stem.startswith(k))
    return prefix + name


def other_unit_asked(q: Measures, e: Measures) -> bool:
    """Both ask for the answer in a unit, and not in the same one: 周长是多少平方厘米 is not
    the entry that asks 周长是多少厘米, "how many minutes" not the one in hours."""
    return bool(q.asked and e.asked) and q.asked != e.asked


_NUMBER_WORD = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s+([a-z]{2,})")
# Words after a number that say nothing of what it counts.
_LINK_WORDS = {"and", "or", "to", "of", "in", "on", "at", "is", "are", "the", "by", "times", "more", "less", "than",
               "from", "with", "for", "into"}


def swapped_roles(q: Measures, e: Measures) -> bool:
    """The question gives the entry's numbers in other roles: a number counts one thing in
    the question and another in the entry, where the entry counts the question's thing
    with another number (120 小时 and 2 千米 for 2 小时 and 120 千米; 5 red and 3 blue
    for 3 red and 5 blue)."""
    mine, theirs = _by_number(q.bound), _by_number(e.bound)
    for number in mine.keys() & theirs.keys():
        for what in mine[number] - theirs[number]:
            if theirs[number] - mine[number] and any(what in t for n, t in theirs.items() if n != number):
                return True
    return False


def _by_number(bound: frozenset[tuple[str, str]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for number, what in bound:
        found.setdefault(number, set()).add(what)
    return found


def _canonical_number(token: str) -> str:
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token.lstrip("0") or "0"


def quantity(unit: str) -> str:
    return _TABLE[unit][0]


def other_units(q: Measures, e: Measures) -> bool:
    """The question measures a number of the entry in another unit of the same quantity
    (8 分米 for 8 厘米), or names a unit the entry lacks while the entry names another of the
    same quantity (asks in 米/秒 where the entry gives and asks in 千米 and 时)."""
    e_numbers = {n: u for n, u in e.given}
    for number, unit in q.given - e.given:
        theirs = e_numbers.get(number)
        if theirs is not None and theirs != unit and quantity(theirs) == quantity(unit):
            return True
    return any(quantity(a) == quantity(b) for a in q.units - e.units for b in e.units)


def other_quantity_given(q: Measures, e: Measures) -> bool:
    """A number of the question measures another quantity than the same number does in
    the entry (10% of a solution for its 10 g of salt, 3 秒 for 3 米): the figures are
    not the entry's."""
    theirs = _by_number(e.given)
    return any(theirs.get(number) and all(quantity(u) != quantity(unit) for u in theirs[number])
               for number, unit in q.given)


_CONVERTED = {"length", "area", "volume", "mass"}


def mixed_units(q: Measures, e: Measures) -> bool:
    """The question gives numbers of one quantity in two units or more (3 米 and 4 分米)
    where the entry names one unit of it or none: the numbers are not the entry's
    figures, one of them has to be converted first. Lengths, areas, volumes and masses
    only: a letter after a number is too often a variable there (a₁=2 d=3 S₁₀ reads as
    2 days and 3 seconds)."""
    for name in {quantity(u) for _, u in q.given} & _CONVERTED:
        mine = {u for _, u in q.given if quantity(u) == name}
        if len(mine) >= 2 and len({u for u in e.units if quantity(u) == name}) <= 1:
            return True
    return False
