"""Detecting "the same problem with one key detail changed".

Embeddings rate 「长方形的周长」 and 「长方形的面积」, or "past participle of eat" and
"past participle of go", as near-identical. When a question reads almost exactly like
a bank entry except for a swapped term, that swap decides whether the entry answers it.
A swap is a conflict when both terms belong to one contrast group (周长/面积,
南/北, greater/less, …), or when the question's term appears nowhere in the bank and
it is the only word the question puts in place of another: the student is asking
about something the bank does not cover.

Two kinds of swap are never a conflict: filler words (question words, particles, the
framing around a problem; an edit of filler alone is no difference at all) and terms
that mean the same thing (slope/gradient, 约数/因数).

Why "the only replacement" for unknown terms: a term the bank has never seen is weak
evidence on its own, because students' own words are often new to a small bank. When
the question is the entry with just that term replaced (《石壕吏》 for 《出师表》, "eat"
for "go"; an added or dropped word such as "form" does not change that), the term is
the changed detail. When the question also replaces other words of the entry with its
own ("How do I find the gradient of the line that goes through …" against "Find the
slope of the line passing through …"), it is a rewording, and its new words are the
student's wording, not a new problem. Contrast-group swaps need no such condition: two
known opposites make another problem however the rest is worded.
"""

from __future__ import annotations

import difflib
import functools
import re

from appliance.common.textnorm import fold

# Token = one CJK character, or one run of Latin letters, or one number.
_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[^\sa-z\d]")

# How alike (0..1, difflib ratio over tokens) a question and an entry must be before a
# swapped term is taken as a changed detail rather than a paraphrase.
NEAR_COPY_RATIO = 0.6

GROUPS = (
    "周长 面积 体积 表面积 边长 半径 直径 周期 频率",
    "沸点 熔点 凝固点",
    "东 南 西 北 上 下 左 右 前 后 内 外",
    "大 小 多 少 高 低 长 短 粗 细 快 慢 轻 重 深 浅 冷 热 强 弱 增 减 升 降 正 负",
    "最大 最小 最高 最低 最长 最短 最多 最少",
    "加 减 乘 除 和 差 积 商",
    "一 二 两 三 四 五 六 七 八 九 十 百 千 万 零",
    "夏 商 周 秦 汉 西汉 东汉 三国 晋 隋 唐 宋 元 明 清 秦朝 隋朝 唐朝 宋朝 元朝 明朝 清朝",
    "建立 灭亡 开始 结束 爆发 签订 发生",
    "过去式 过去分词 现在分词 比较级 最高级 复数 单数",
    "酸 碱 盐 氧化 还原",
    "氢 氦 锂 碳 氮 氧 氟 钠 镁 铝 硅 磷 硫 氯 钾 钙 锰 铁 铜 锌 银 金 汞",
    "水 真空 空气 玻璃 酒精 油",
    "串联 并联",
    "greater less larger smaller bigger more fewer higher lower longer shorter maximum minimum",
    "past present future participle tense comparative superlative plural singular",
    "add subtract multiply divide sum difference product quotient",
    "area perimeter volume radius diameter circumference",
    "north south east west",
    "> < = ≥ ≤",
    "+ - × ÷",
)
# School chemicals by their formal name, then their common names (双氧水 is 过氧化氢溶液).
COMPOUND_NAMES = (
    "氢氧化钠 烧碱 火碱 苛性钠",
    "氢氧化钙 熟石灰 消石灰",
    "氧化钙 生石灰",
    "碳酸氢钠 小苏打",
    "碳酸钠 纯碱 苏打",
    "过氧化氢溶液 双氧水",
    "氯化钠 食盐",
    "乙醇 酒精",
    "汞 水银",
)
# Terms that mean the same thing in school problems. Both questions are compared with
# every term replaced by the first of its group, so a swap between two of them is no
# difference at all.
# Units are the same written in either script (a number before a Latin unit is no word
# boundary: "5cm"); a compound is the same by its common name; 七大洲 and 四大洋 are the
# world's; "how big" asks what "how much" does.
_SYNONYMS = (
    "slope gradient",
    "因数 约数",
    "下一句 后一句 后面一句 后面接 下句 后面那句 后面那一句 后面的一句 下面一句 下面那句 接下来一句 接下来那句",
    "上一句 前一句 前面一句",
    "多少 多大",
    "世界 七大洲 五大洲 四大洋",
    "ω 欧姆 欧",
    "cm 厘米",
    "mm 毫米",
    "km 千米 公里",
    "kg 千克 公斤",
    *COMPOUND_NAMES,
    "opposite antonym",
    "周长 一圈的长度 一圈有多长 绕一圈的长度 绕它一圈",
    "中国共产党第一次全国代表大会 中共一大",
    "串联 串在一起 串起来",
    "并联 并在一起 并起来",
    "最长 第一长",
    "最大 第一大",
    "最高 第一高",
    "公转 绕太阳转 绕着太阳转 围绕太阳转 绕太阳运动 绕太阳公转 绕着太阳公转 围绕太阳公转 围绕着太阳公转 绕日公转",
    "月球 月亮",
    "自转 绕地轴转 绕着地轴转",
    "小时 钟头",
    "早上 早晨",
)
_CANONICAL = {term: group.split()[0] for group in _SYNONYMS for term in group.split()[1:]}
# Latin terms as whole words only (digits may touch them); CJK has no word boundaries, but
# 欧 of 欧洲 is no unit, 第一大题 is a part of a paper, not the largest, a 酒精灯 is a burner
# and 苏打水 a drink.
_NOT_BEFORE = {"欧": "(?![洲美亚])", "第一大": "(?!题)", "酒精": "(?!灯)", "苏打": "(?!水)"}
_SYNONYM = re.compile("|".join(
    rf"(?<![a-z]){re.escape(term)}(?![a-z])" if term.isascii() else re.escape(term) + _NOT_BEFORE.get(term, "")
    for term in sorted(_CANONICAL, key=len, reverse=True)
))


_FORMAL = {name: group.split()[0] for group in COMPOUND_NAMES for name in group.split()[1:]}
_COMMON_NAME = re.compile("|".join(re.escape(name) + _NOT_BEFORE.get(name, "")
                                   for name in sorted(_FORMAL, key=len, reverse=True)))


def formal_names(text: str) -> str:
    """A text with school chemicals' common names written as their formal names (双氧水 →
    过氧化氢溶液): a question in the common name reads as the entry's problem, not as that
    of 水, which it contains."""
    return _COMMON_NAME.sub(lambda match: _FORMAL[match.group(0)], text)


def same_terms(folded: str) -> str:
    """A folded text with every synonym written as the first term of its group."""
    return _SYNONYM.sub(lambda match: _CANONICAL[match.group(0)], folded)

_GROUP_OF: dict[str, int] = {}
for _index, _group in enumerate(GROUPS):
    for _term in _group.split():
        _GROUP_OF.setdefault(_term, _index)

# Tokens whose swap never changes the problem (question words, particles, the framing
# students put around a problem: 老师, 这道题怎么做, 请问, 求解, "can you tell me", "find",
# "calculate").
_FILLER = set("的了吗呢吧啊是在有个几多么怎样什哪谁请问求解里中用按取为与和及老师这道题做帮我") | {
    "the", "a", "an", "is", "are", "of", "what", "how", "do", "does", "you", "i", "me", "to",
    "s", "can", "could", "please", "tell", "find", "calculate",
}


def tokens(text: str) -> list[str]:
    """Word-level tokens of a raw text, punctuation dropped."""
    folded = fold(text)
    return [t for t in _TOKEN.findall(folded) if t.isalnum() or t[0].isdigit() or t in "+-×÷=<>/^%"]


def _compared_tokens(text: str) -> tuple[str, ...]:
    """:func:`tokens` of the text with synonyms replaced by their group's first term."""
    return tuple(tokens(same_terms(fold(text))))


#: A bank question's tokens are compared again and again: kept (see pair_features.warm_entry).
_entry_tokens = functools.lru_cache(maxsize=50_000)(_compared_tokens)
#: A student's question is compared with its candidates within one ask.
_question_tokens = functools.lru_cache(maxsize=256)(_compared_tokens)


def warm_entry_tokens(entry: str) -> None:
    _entry_tokens(entry)


def conflicting_detail(question: str, entry: str, bank_text: str) -> str | None:
    """A short description of the detail that makes ``entry`` another problem than
    ``question`` (both raw text), or None. ``bank_text`` is every bank question in
    search form, joined, to tell known terms from unknown ones."""
    q_tokens, e_tokens = _question_tokens(question), _entry_tokens(entry)
    matcher = difflib.SequenceMatcher(None, q_tokens, e_tokens, autojunk=False)
    if matcher.ratio() < NEAR_COPY_RATIO:
        return None
    # Replacements that carry content: a swap of filler words only ("请问" for "求",
    # "what is" for "how do you") changes nothing.
    replaced = [(q_tokens[i1:i2], e_tokens[j1:j2]) for op, i1, i2, j1, j2 in matcher.get_opcodes()
                if op == "replace" and (_content(q_tokens[i1:i2]) or _content(e_tokens[j1:j2]))]
    for mine_span, theirs_span in replaced:
        mine, theirs = "".join(mine_span), "".join(theirs_span)
        if _contrasting(mine, theirs):
            return f"{mine} ≠ {theirs}"
        if len(replaced) == 1 and _swapped_term(mine_span, theirs_span) and _term(mine_span) not in bank_text \
                and not _misspelling(_content(mine_span), _content(theirs_span)):
            return f"{mine} ≠ {theirs}"
    return None


def lone_replacement(question: str, entry: str) -> tuple[str, str] | None:
    """When the question reads as a near copy of the entry (token ratio ≥ NEAR_COPY_RATIO)
    with exactly one content-bearing stretch replaced, (the question's stretch, the
    entry's), content tokens only; else None. A rewording replaces several stretches."""
    found = _replacement(question, entry)
    return found[0] if found else None


@functools.lru_cache(maxsize=2048)  # a question against its candidates: asked again within an ask
def _replacement(question: str, entry: str) -> tuple[tuple[str, str], float] | None:
    """:func:`lone_replacement`'s stretches with the token ratio of the two texts."""
    return _lone_stretch(_question_tokens(question), _entry_tokens(entry))


@functools.lru_cache(maxsize=4096)  # pairs of bank questions: a few per ask, the same ones again
def _entries_replacement(entry: str, other: str) -> tuple[tuple[str, str], float] | None:
    return _lone_stretch(_entry_tokens(entry), _entry_tokens(other))


def _lone_stretch(q_tokens: tuple[str, ...], e_tokens: tuple[str, ...]) -> tuple[tuple[str, str], float] | None:
    matcher = difflib.SequenceMatcher(None, q_tokens, e_tokens, autojunk=False)
    # quick_ratio bounds ratio from above and costs a fraction of it: most candidates stop here.
    if matcher.quick_ratio() < NEAR_COPY_RATIO:
        return None
    ratio = matcher.ratio()
    if ratio < NEAR_COPY_RATIO:
        return None
    replaced = [(_content(q_tokens[i1:i2]), _content(e_tokens[j1:j2])) for op, i1, i2, j1, j2 in matcher.get_opcodes()
                if op == "replace" and (_content(q_tokens[i1:i2]) or _content(e_tokens[j1:j2]))]
    if len(replaced) != 1 or not all(replaced[0]) or _misspelling(*replaced[0]):
        return None
    return replaced[0], ratio


def third_variant(question: str, vetoed: str, entry: str) -> tuple[str, str] | None:
    """(the question's stretch, the entry's) when the bank holds two variants of one frame
    and the question is a third: ``vetoed`` (decided to be another problem) and ``entry``
    differ in one stretch, and the question is ``vetoed`` with its own words in that same
    stretch, and ``entry`` with one stretch replaced. 「用氯酸钾制取氧气」 is neither the
    高锰酸钾 entry nor the 过氧化氢溶液 one; the next closest variant of a vetoed frame is no
    more the student's problem than the closest. None otherwise (a misspelt or shortened
    word of ``entry`` is ``entry``'s)."""
    siblings = _entries_replacement(entry, vetoed)
    asked = _replacement(question, vetoed)
    if siblings is None or asked is None or not set(siblings[0][1]) & set(asked[0][1]):
        return None
    mine, theirs = asked[0][0], siblings[0][0]
    if mine in theirs or theirs in mine or _replacement(question, entry) is None:
        return None
    return mine, theirs


#: A question this close to an entry (token ratio) differs from it by what it replaces:
#: one word of content swapped in an otherwise equal problem (氯酸钾 for 高锰酸钾, momentum
#: for kinetic energy, 公倍数 for 公因数) is another problem, whatever the word.
CLOSE_COPY_RATIO = 0.85


def close_copy_swap(question: str, entry: str) -> tuple[str, str] | None:
    """(the question's stretch, the entry's) when the question is the entry, token for
    token at CLOSE_COPY_RATIO or closer, with one stretch of words replaced by others;
    numbers and maths are left to the givens' and expressions' rules, and a misspelt word
    is the entry's."""
    found = _replacement(question, entry)
    if found is None or found[1] < CLOSE_COPY_RATIO or any(c.isdigit() or c in "^+-×÷=/" for c in "".join(found[0])):
        return None
    return found[0]


def _misspelling(mine: str, theirs: str) -> bool:
    """A Latin word typed with a letter or two wrong, swapped or missing ("thorugh",
    "enregy") is the entry's word, not another term; so is a Chinese word with a character
    or two typed as another that sounds the same (see :func:`sounds_alike`)."""
    if _CJK_ONLY.fullmatch(mine) and _CJK_ONLY.fullmatch(theirs):
        return sounds_alike(mine, theirs)
    if not (mine.isascii() and theirs.isascii()) or abs(len(mine) - len(theirs)) > 1 or len(theirs) < 4:
        return False
    return sorted(mine) == sorted(theirs) or difflib.SequenceMatcher(None, mine, theirs).ratio() >= 0.8


_CJK_ONLY = re.compile(r"[\u3400-\u9fff]+")
def sounds_alike(mine: str, theirs: str) -> bool:
    """``mine`` is ``theirs`` typed with pinyin input: the same length, one or two
    characters other than the entry's that share a reading with them (孔已己 for 孔乙己,
    净夜思 for 静夜思, 过氧化轻 for 过氧化氢), none of them the other term of the entry's
    character's contrast group (氯 for 铝 is another element, 西 for 东 another direction)."""
    if len(mine) != len(theirs):
        return False
    pairs = [(a, b) for a, b in zip(mine, theirs) if a != b]
    if not pairs or len(pairs) > 2 or len(pairs) == len(mine) > 1:
        return False
    return all(not _contrasting(a, b) and _readings(a) & _readings(b) for a, b in pairs)


def warm_readings() -> None:
    """Load the pinyin dictionary now (about 0.4 s), when the bank loads, rather than
    in the first student's ask that compares two Chinese terms."""
    _readings("中")


@functools.lru_cache(maxsize=20_000)
def _readings(char: str) -> frozenset[str]:
    from pypinyin import Style, pinyin  # its dictionary loads here, once

    return frozenset(pinyin(char, style=Style.NORMAL, heteronym=True)[0])


def _contrasting(mine: str, theirs: str) -> bool:
    group = _GROUP_OF.get(mine)
    return group is not None and group == _GROUP_OF.get(theirs) and mine != theirs


def _content(span: list[str]) -> str:
    return "".join(t for t in span if t not in _FILLER)


def _term(span: list[str]) -> str:
    """The span as it would be written, less filler at its ends ("七大洲里" → "七大洲"). Filler
    inside stays: 师 is filler (老师) but 出师表 is one term, not 出表."""
    start, end = 0, len(span)
    while start < end and span[start] in _FILLER:
        start += 1
    while end > start and span[end - 1] in _FILLER:
        end -= 1
    return "".join(span[start:end])


def _swapped_term(mine: list[str], theirs: list[str]) -> bool:
    """One term for another: the same script, letters only, one Latin word or at most
    four CJK characters a side, lengths within a factor of two. Longer rewrites are
    paraphrase, and a CJK ↔ Latin swap (千克 ↔ kg) is translation."""
    a, b = _content(mine), _content(theirs)
    if not a or not b or not (a.isalpha() and b.isalpha()) or a.isascii() != b.isascii():
        return False
    if a.isascii():
        words_ok = sum(t not in _FILLER for t in mine) == 1 == sum(t not in _FILLER for t in theirs)
        return words_ok and len(a) >= 3
    return len(a) <= 4 and len(b) <= 4 and max(len(a), len(b)) <= 2 * min(len(a), len(b)) and len(a) >= 2
