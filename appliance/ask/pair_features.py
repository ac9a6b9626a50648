"""Features of a (question, bank entry) pair: how far the entry *is* the student's problem.

Each feature compares the two :class:`~appliance.ask.problem_form.ProblemForm` s both
ways (the student may leave out what the entry says; what the student says must not be
missing from the entry), and is an absolute number, never a rank. The verifier
(:mod:`appliance.ask.verify`) turns them into a probability.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import numpy as np

from appliance.ask.key_term_swap import GROUPS as _GROUPS
from appliance.ask.key_term_swap import close_copy_swap, lone_replacement, same_terms, sounds_alike
from appliance.ask.measures import mixed_units, other_quantity_given, other_unit_asked, other_units, swapped_roles
from appliance.ask.problem_form import ProblemForm, named_formulas, read_problem, strip_preface, units
from appliance.common.textnorm import chinese_numeral, fold, search_form, spelled_numbers, trigrams

FEATURES = (
    "dense", "lexical", "lexical_back", "givens_q_missing", "givens_e_missing", "givens_q_any",
    "scripts_q_missing", "scripts_e_missing", "expr_q_missing", "expr_e_missing",
    "spans_q_missing", "spans_e_missing", "negation_diff", "key_term_swap",
    "known_missing", "unknown_share", "entry_missing", "similarity_gap",
    "rare_extra", "rare_entry_missing", "rare_swap", "question_info", "lone_swap",
)
#: Counts are capped: the third missing given says little more than the second.
CAP = 2.0
#: A span of the entry counts as present in the question when this share of its
#: trigrams is there (the student may drop a character or two of a quoted line).
SPAN_COVERAGE = 0.6
#: A quoted span this long that the entry holds unquoted is the entry's (a student quoting
#: the sentence of a fill-in-the-blank).
LONG_SPAN = 6


@dataclass(frozen=True, eq=False)
class BankVocabulary:
    """How many bank questions hold each content unit (CJK pair, Latin word)."""

    doc_freq: dict[str, int]
    entries: int
    idf_of: dict[str, float]
    #: How many bank questions hold each CJK character and each Latin word.
    char_freq: dict[str, int] = dataclasses.field(default_factory=dict)

    @classmethod
    def build(cls, search_forms: list[str]) -> "BankVocabulary":
        freq: Counter[str] = Counter()
        chars: Counter[str] = Counter()
        for form in search_forms:
            freq.update(units(form))
            chars.update(_pieces(form))
        n = max(1, len(search_forms))
        return cls(dict(freq), n, {u: math.log((1 + n) / (1 + f)) + 1.0 for u, f in freq.items()}, dict(chars))

    def piece_rarity(self, piece: str) -> float:
        """A character's (or Latin word's) IDF as a share of the highest (1.0 when no bank
        question holds it)."""
        found = self.piece_rarity_of.get(piece)
        return found if found is not None else 1.0

    @functools.cached_property
    def piece_rarity_of(self) -> dict[str, float]:
        top = self.idf_max
        return {p: (math.log((1 + self.entries) / (1 + f)) + 1.0) / top for p, f in self.char_freq.items()}

    @property
    def idf_max(self) -> float:
        """The IDF of a unit no bank question holds: the scale of :meth:`rarity`."""
        return math.log(1 + self.entries) + 1.0

    def rarity(self, unit: str) -> float:
        """The unit's IDF as a share of the highest (1.0: no bank question holds it)."""
        return self.idf(unit) / self.idf_max

    def idf(self, unit: str) -> float:
        found = self.idf_of.get(unit)
        return found if found is not None else math.log(1 + self.entries) + 1.0


#: Bank questions (and approved aliases) whose forms stay in memory: a school's bank and
#: more. A student's question is read once per ask and not kept (:func:`question_problem`),
#: so the memory held does not grow with the questions asked.
ENTRY_FORMS_MAX = 50_000


@functools.lru_cache(maxsize=ENTRY_FORMS_MAX)
def problem_of(text: str) -> ProblemForm:
    """The problem form of a bank text, its numbered preface left out (cached: bank
    questions are read once, see :func:`warm_entry`)."""
    return read_problem(strip_preface(text))


@functools.lru_cache(maxsize=256)
def question_problem(text: str) -> ProblemForm:
    """The problem form of a student's question: the same as :func:`problem_of`, kept
    only for the few asks in flight."""
    return read_problem(strip_preface(text))


def warm_entry(question: str) -> None:
    """Read a bank question's form and every feature derived from it, so that the memory
    they take is taken once, when the bank is loaded, not crept into ask by ask."""
    form = problem_of(question)
    for derive in (_contrast_terms, _pieces_of, _tuples_of, _relations_of, _named_formulas_of, _ranks_of,
                   _task_of, _words_of, _ordinals_of, _sequence_target, _time_asked, _reaction_sides,
                   _solution_parts, _sides_of, _canonical_form, _asked_kinds, _elements_of):
        derive(form)


def pair_features(q: ProblemForm, e: ProblemForm, vocab: BankVocabulary, dense: float,
                  similarity_gap: float, key_term_swap: bool) -> np.ndarray:
    q_grams, e_grams = q.grams, e.grams
    return np.array([
        dense,
        _share(q_grams, e_grams),
        _share(e_grams, q_grams),
        _capped(givens_missing(q, e)),
        _capped(sum((e.givens - q.givens).values())),
        float(bool(q.givens)),
        _capped(scripts_missing(q, e)),
        _capped(sum((e.scripts - q.scripts).values())),
        _capped(sum(expr not in e.maths for expr in q.expressions)),
        _capped(sum(expr not in q.maths for expr in e.expressions)),
        _capped(sum(span not in e.form for span in q.spans)),
        _capped(sum(not _covered(span, q.form) for span in e.spans)),
        float(q.negations != e.negations),
        float(key_term_swap),
        *_unit_shares(q.bigrams, e.bigrams, vocab),
        similarity_gap,
        *salient_content(q, e, vocab),
        lone_swap(q, e, vocab),
    ], dtype=np.float64)


def terse(p: ProblemForm) -> bool:
    """The question is a note of a problem, not a sentence: content without a question word
    or a task's verb (体循环 起点, Dd×dd 矮茎比例, gcd(24,36), "Qin dynasty founded year").
    Such a question says less than a sentence, so its best entry is judged with a threshold
    of its own (:class:`~appliance.ask.verify.VerifierModel`); text without a letter or a
    digit ("？？？") is none."""
    return _derived(p, "terse", lambda: bool(_CONTENT.search(p.text)) and _ASKING.search(p.text) is None)


_CONTENT = re.compile(r"[A-Za-z0-9\u3400-\u9fff]")
_ASKING = re.compile(r"什么|哪|多少|几|吗|呢|怎么|怎样|如何|谁|为何|是|求|计算|写出|写|解|判断|说明|比较|请|帮|"
                     r"(?<![a-z])(?:what|how|which|who|whom|whose|when|where|why|is|are|was|were|does|do|did|can|"
                     r"find|solve|calculate|explain|describe|state|give|name|list|choose|fill|translate|change|"
                     r"write|work out|simplify|factori[sz]e|expand|evaluate|determine|show)(?![a-z])", re.IGNORECASE)


def givens_missing(q: ProblemForm, e: ProblemForm) -> int:
    """The question's givens the entry lacks. A number the entry writes as an exponent or
    index counts as present (the student typed "以2为底" for log₂, "第10项" for a₁₀)."""
    formula_digits = {d for f in e.formulas for d in re.findall(r"\d+", f)}
    missing = [(g, n) for g, n in (q.givens - e.givens).items() if g not in e.script_values and g not in formula_digits]
    spelled = spelled_numbers(e.text) if missing else set()  # 10 years for "ten years"
    return sum(n for g, n in missing if g not in spelled)


def conditions_missing(q: ProblemForm, e: ProblemForm) -> int:
    """The entry's conditions (its givens less a note of constants such as π or g) that a
    question stating givens of its own lacks: the same frame with a condition left out
    (a rectangle's length without its width) is a problem the entry does not solve. A
    question with no number is a fragment and is left to the other features; a number the
    question writes as an exponent or index counts as present."""
    if not q.givens:
        return 0
    present = q.givens.keys() | q.script_values | set(_LETTER_DIGITS.findall(unicodedata.normalize("NFKC", q.text)))
    return sum(n for g, n in e.conditions.items() if g not in present)


_LETTER_DIGITS = re.compile(r"(?<=[A-Za-z])\d+")  # S10, H2O, v100: digits a letter carries


def scripts_missing(q: ProblemForm, e: ProblemForm) -> int:
    """The question's exponents and indices the entry lacks, unless the entry has the same
    digits as a plain number (the student's "x2" may be the entry's "x 2")."""
    return sum(n for s, n in (q.scripts - e.scripts).items() if s.split("^")[1] not in e.givens)


def other_script(q: ProblemForm, e: ProblemForm) -> bool:
    """The question raises or indexes a symbol the entry also raises or indexes, with other
    digits (x³ for x², a₂₀ for a₁₀, 10² for 10³)."""
    e_bases = {s.split("^")[0] for s in e.scripts}
    return any(s.split("^")[0] in e_bases for s in q.scripts - e.scripts)


def other_formula(q: ProblemForm, e: ProblemForm) -> bool:
    """A formula of the question is not among the entry's formulas (CO₃ or CO for CO₂)."""
    theirs = _named_formulas_of(e)
    return bool(theirs) and bool(_named_formulas_of(q) - theirs)


def _named_formulas_of(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "named_formulas", lambda: frozenset(named_formulas(p.text)))


def raised_unlike_entry(q: ProblemForm, e: ProblemForm) -> bool:
    """The question raises or indexes something (sin²30°, x³) in a problem that raises and
    indexes nothing and has no formula: another problem, unless the digits are one of the
    entry's plain numbers (x2 typed for the entry's "x 2")."""
    return not e.scripts and not e.formulas and scripts_missing(q, e) > 0


def other_rank(q: ProblemForm, e: ProblemForm) -> bool:
    """One asks for a rank the other does not: 第二大, "second longest", 第三 … against the
    greatest (or another rank), and the world wars by number (二战, 第二次世界大战, WWII).
    第一/first is left out: 中国第一长河 asks for the longest."""
    return _ranks_of(q) != _ranks_of(e)


def _ranks_of(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "ranks", lambda: frozenset(ranks(p.text)))


_WAR = re.compile(r"第([一二])次世界大战|(?:world\s+war\s+|ww\s*)(ii|i|1|2)\b|([一二])战", re.IGNORECASE)
_RANK = re.compile(r"第\s*([二三四五六七八九十]|[2-9])\s*(?=[大长高多小深重快早晚低短少])"
                   r"|(?:排|排名|排在|位居|位列|名列)\s*第\s*([二三四五六七八九十]|[2-9])(?![\d十])"
                   r"|\b(second|third|fourth|fifth|2nd|3rd|4th|5th)[\s-]+(?=\w*(?:est|most)\b)", re.IGNORECASE)
_EN_RANK = {"second": "2", "third": "3", "fourth": "4", "fifth": "5", "2nd": "2", "3rd": "3", "4th": "4", "5th": "5"}


def _rank_value(number: str) -> str:
    return number if number.isdigit() else str(chinese_numeral(number))


def ranks(text: str) -> set[str]:
    found = set()
    for match in _WAR.finditer(text):
        cn, latin, short = match.groups()
        chinese = cn or short
        found.add("war " + (str(chinese_numeral(chinese)) if chinese else {"i": "1", "ii": "2"}.get(latin.lower(), latin)))
    for match in _RANK.finditer(strip_preface(text)):
        number, placed, en = match.groups()
        number = number or placed
        found.add(_rank_value(number) if number else _EN_RANK[en.lower()])
    return found


# An ordinal of an event or a law: 第二次 (鸦片战争), 第三定律, "his second voyage". 第一 and
# "first" are left out (鸦片战争 is the first Opium War), and the world wars are ranks'.
_ORDINAL = re.compile(r"第\s*([二三四五六七八九十]|[2-9])\s*(?:次(?!世界大战)|定律)"
                      r"|(?<!per )(?<!a )(?<!one )(?<!each )\b(second|third|fourth|fifth|2nd|3rd|4th|5th)\b(?!s)",
                      re.IGNORECASE)


def more_ordinal(q: ProblemForm, e: ProblemForm) -> bool:
    """The question asks about the second (third, …) of something where the entry names
    no such ordinal or another one: 第二次鸦片战争 for 鸦片战争, "second voyage" for the first."""
    return bool(_ordinals_of(q) - _ordinals_of(e))


def _ordinals_of(p: ProblemForm) -> frozenset[str]:
    def read():
        return frozenset(_rank_value(m.group(1)) if m.group(1) else _EN_RANK[m.group(2).lower()]
                         for m in _ORDINAL.finditer(unicodedata.normalize("NFKC", p.text)))
    return _derived(p, "ordinals", read)


def other_symbol(q: ProblemForm, e: ProblemForm) -> bool:
    """In a problem written with indexed or raised symbols or formulas, the question names
    one the entry has nowhere (S₅ where the entry has a₅ and no S): another unknown is
    asked for. A symbol typed as its formula's letters counts as present (h2o for H₂O)."""
    theirs = {s.replace("^", "") for s in e.scripts} | set(e.formulas)
    if not theirs:
        return False
    mine = {s.replace("^", "") for s in q.scripts} | set(q.formulas)
    return any(not any(symbol in t for t in theirs) for symbol in mine)


def other_span(q: ProblemForm, e: ProblemForm) -> bool:
    """A quoted span, title or bracketed cue of the question is not the entry's: not one of
    its spans or a piece of one (Latin as whole words), nor, where the entry quotes
    nothing, in its text."""
    for span in q.spans:
        if _other_script(span, e.text):  # 「动力车间」 for "powerhouse": a translation
            continue
        if _same_words(span, e):  # 7点 for 七点, 早晨 for 早上, a quoted sentence's words reordered
            continue
        if e.spans:
            if not any(span == theirs or _within(span, theirs) for theirs in e.spans) \
                    and not (len(span) >= LONG_SPAN and span in e.form):
                return True
        elif span not in e.form and not _sounds_within(span, e.form):
            return True
    return False


def _same_words(span: str, e: ProblemForm) -> bool:
    """The span is in the entry once numbers are written as digits and synonyms as one
    term (“我每天早晨7点起床” in 我每天早上七点起床); or, in Latin letters, it is a sentence made
    of the entry's words in another order ('Yesterday he ___ to school by bike')."""
    if not span.isascii():
        return len(span) >= 2 and _numerals_as_digits(same_terms(span)) in _canonical_form(e)
    return len(span) >= MIN_COVERED_SENTENCE and _made_of(span, _words_of(e)[0])


MIN_COVERED_SENTENCE = 10  # letters: a quoted sentence, not one word swapped for another


def _canonical_form(p: ProblemForm) -> str:
    return _derived(p, "canonical_form", lambda: _numerals_as_digits(same_terms(p.form)))


def _numerals_as_digits(text: str) -> str:
    return _CN_NUMERAL_RUN.sub(lambda m: str(chinese_numeral(m.group(0))), text)


_CN_NUMERAL_RUN = re.compile(r"(?<![〇零一二两三四五六七八九十百千万])[〇零一二两三四五六七八九十百千万]{1,16}(?![〇零一二两三四五六七八九十百千万])")


def _made_of(letters: str, words: frozenset[str]) -> bool:
    """``letters`` (a span with its spaces removed) split into three or more of ``words``,
    each of two letters or more."""
    latin = [w for w in words if w.isascii() and len(w) >= 2]
    most = [-1] * len(letters) + [0]  # most[i]: most words that cover letters[i:], -1 when none do
    for start in range(len(letters) - 1, -1, -1):
        ends = [most[start + len(w)] for w in latin if letters.startswith(w, start)]
        most[start] = max((n + 1 for n in ends if n >= 0), default=-1)
    return most[0] >= 3


def _other_script(span: str, text: str) -> bool:
    """A CJK span against a text with no CJK, or a Latin span against one with no Latin word."""
    if _HAS_CJK.search(span):
        return not _HAS_CJK.search(text)
    return span.isascii() and not re.search(r"[A-Za-z]{2}", text)


_HAS_CJK = re.compile(r"[\u3400-\u9fff]")


def other_task_content(q: ProblemForm, e: ProblemForm) -> bool:
    """A language task (choose, fill in, translate, change into …) set on another
    sentence: the entry's task is "instruction: sentence", and the question both lacks a
    word of that sentence or of the instruction's quoted cues and brings words of its own
    that the entry has nowhere (Tom *cleaned* the room *yesterday* for Tom cleans the room
    every day; 熟能生巧 to translate for "Practice makes perfect"). Leaving words out alone
    is a fragment of the same task, and a misspelt word still counts as the entry's."""
    theirs = _task_of(e)
    if not theirs:
        return False
    mine, joined = _words_of(q)
    if any(len(word) > LONGEST_WORD for word in mine):  # typed without spaces: words cannot be told apart
        return False
    missing = any(word not in mine and (len(word) < 3 or word not in joined) for word in theirs)
    return missing and any(not _near_word(word, _words_of(e)[0]) for word in mine)


LONGEST_WORD = 20
_TASK = re.compile(r"^\s*((?:choose|fill|translate|change|rewrite|correct|complete|put|turn)\b[^:：]{0,60}"
                   r"|[^:：]{0,12}(?:翻译|改写|改为|改成|填空|填入|选择)[^:：]{0,12})[:：]\s*(.+)$", re.IGNORECASE | re.DOTALL)
# Words of a language task: Latin words and single CJK characters, numerals left out (七点
# and 7点 are one time; numbers are the givens' rule's to compare).
_WORD = re.compile(r"[a-z]+|(?![〇一二三四五六七八九十百千万两])[\u3400-\u9fff]")


def _task_of(p: ProblemForm) -> tuple[str, ...]:
    return _derived(p, "task", lambda: _task_words(p))


def _task_words(p: ProblemForm) -> tuple[str, ...]:
    match = _TASK.match(unicodedata.normalize("NFKC", p.text))
    if not match:
        return ()
    sentence = same_terms(re.sub(r"[(（][^()（）]*[)）]", " ", match.group(2)).lower())
    cues = [w for span in _SPANS_IN_QUOTES.findall(match.group(1)) for w in _WORD.findall(span.lower())]
    return tuple(w for w in dict.fromkeys([*_WORD.findall(sentence), *cues]) if w not in _NUMBER_WORDS)


# "ten years" and "10 years" are one sentence: numbers are the givens' rule's to compare.
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve twenty".split())


_SPANS_IN_QUOTES = re.compile(r"[\"“「']([^\"”」']{1,20})[\"”」']")


def _words_of(p: ProblemForm) -> tuple[frozenset[str], str]:
    def read():
        text = same_terms(unicodedata.normalize("NFKC", p.text).lower())
        return frozenset(_WORD.findall(text)) - _NUMBER_WORDS, re.sub(r"[^a-z0-9\u3400-\u9fff]", "", text)
    return _derived(p, "words", read)


def _near_word(word: str, words: frozenset[str]) -> bool:
    """``word`` is one of ``words``, or (five letters or more) a misspelling of one."""
    if word in words:
        return True
    return len(word) >= 5 and word.isascii() and any(
        abs(len(word) - len(w)) <= 2 and difflib.SequenceMatcher(None, word, w).ratio() >= 0.8 for w in words)


def _within(span: str, theirs: str) -> bool:
    if span.isascii():
        return re.search(rf"(?<![a-z]){re.escape(span)}(?![a-z])", theirs) is not None
    return len(span) >= 2 and (span in theirs or _sounds_within(span, theirs))


def _sounds_within(span: str, theirs: str) -> bool:
    """A CJK span typed with a character that sounds the same as one of ``theirs``
    (《净夜思》 for 《静夜思》) is still the entry's."""
    return not span.isascii() and any(
        sounds_alike(span, theirs[i : i + len(span)]) for i in range(len(theirs) - len(span) + 1))


def more_negation(q: ProblemForm, e: ProblemForm) -> bool:
    """The question negates where the entry does not ("which is NOT", 不正确的是, 不充分).
    What one side lacks in a text that says what the other has (植物细胞有而动物细胞没有,
    "in plants but not in animals") tells what is unique to one side: no negation on
    either side, so 哪些结构不是植物细胞特有的 negates the entry that asks what is."""
    return _plain_negations(q) > _plain_negations(e)


def _plain_negations(p: ProblemForm) -> int:
    def read():
        folded = fold(p.text)
        unique = len(_LACKS.findall(folded)) if _HAS.search(folded) else 0
        return max(0, p.negations - unique - len(_BUT_NOT.findall(folded)))
    return _derived(p, "plain negations", read)


# What one side lacks in a text that says what the other has (植物细胞有哪些结构是动物细胞
# 没有的, 动物细胞一般没有、而植物细胞有的): the negation says what only one side has.
_LACKS = re.compile(r"没有|不具有|不含有?")
_HAS = re.compile(r"(?<![没不无])(?:具有|含有|有)")
_BUT_NOT = re.compile(r"\bbut\s+not\s+(?:in|of|by)\b")


def contrast_swap(q: ProblemForm, e: ProblemForm) -> bool:
    """The question names a term of a contrast group that the entry lacks, while the entry
    names another term of that group: another property of the same object (周长 for 面积,
    熔点 for 凝固点, comparative for superlative), an opposite (最大/最小), another
    dynasty, another scope (世界 for 我国) — or one more of them (沸点和凝固点 against
    沸点 alone)."""
    mine, theirs = _contrast_terms(q), _contrast_terms(e)
    return any(_CONTRAST_GROUP[a] == _CONTRAST_GROUP[b] for a in mine - theirs for b in theirs)


def other_quantity(q: ProblemForm, e: ProblemForm) -> bool:
    """The question names a quantity of school science or geometry that the entry lacks,
    and the entry one the question lacks, in the same script (a Chinese term is not
    compared with an English one): the same givens asked for another quantity (质量 for
    物质的量, 平均速度 for 功率), wherever the two stand in their groups."""
    mine, theirs = _contrast_terms(q) & _QUANTITIES, _contrast_terms(e) & _QUANTITIES
    return any(a.isascii() == b.isascii() for a in mine - theirs for b in theirs - mine)


def _contrast_terms(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "terms", lambda: _terms_of(p.form, p.text))


def _derived(p: ProblemForm, name: str, compute):
    """A feature of ``p`` computed once and kept on it (see ``ProblemForm.derived``)."""
    found = p.derived.get(name)
    if found is None:
        found = p.derived[name] = compute()
    return found


def _terms_of(form: str, text: str) -> frozenset[str]:
    """Contrast terms of a problem, longest first, not overlapping (表面积 is not also 面积):
    CJK terms in its search form, Latin ones as whole words of its folded text."""
    form = same_terms(form)
    for word, same in _SAME_TERM.items():
        form = form.replace(word, same)
    form, text = form.translate(_SET_OPERATIONS), same_terms(fold(text.translate(_SET_OPERATIONS_LATIN)))
    cjk = {m.group(0) for m in _CONTRAST_RE.finditer(form) if not m.group(0).isascii()} - _valued(text)
    latin = {m.group(0) for m in _CONTRAST_RE.finditer(text) if m.group(0).isascii()}
    return frozenset(cjk | latin | {w for term in cjk for w in _IN_ENGLISH.get(term, ())}
                     | {term for m in _IN_CHINESE_RE.finditer(text) for term in _IN_CHINESE[m.group(0)]})


def _valued(folded: str) -> set[str]:
    """Quantities the problem writes only with their values (水的密度1.0×10³, 6伏电压):
    givens of the problem, not what it asks for."""
    valued, asked = set(), set()
    for m in _CONTRAST_RE.finditer(folded):
        term = m.group(0)
        if term in _QUANTITIES and not term.isascii():
            given = _VALUE_AFTER.match(folded, m.end()) or _VALUE_BEFORE.search(folded, 0, m.start())
            (valued if given else asked).add(term)
    return valued - asked


_VALUE_AFTER = re.compile(r"\s*(?:的值)?\s*(?:约为|约是|为|是|=|取|约)?\s*[-\d]")
_VALUE_BEFORE = re.compile(r"(?<![a-z\d.])\d+(?:\.\d+)?\s*(?:[a-zω]{1,3}|伏特?|安培?|欧姆?|瓦|焦|牛|帕|千?克|[千厘分毫]?米|秒)\s*的?$")


def _build_contrast() -> tuple[dict[str, int], re.Pattern]:
    groups = [g.split() for g in _SET_GROUPS]
    index: dict[str, int] = {}
    for i, group in enumerate(groups):
        for term in group:
            if len(term) >= 2 and not any(c in term for c in "+-×÷<>=≥≤"):
                index.setdefault(term, i)
    terms = sorted(index, key=len, reverse=True)
    pattern = re.compile("|".join(
        rf"(?<![a-z]){re.escape(t)}(?![a-z])" if t.isascii() else re.escape(t) for t in terms))
    return index, pattern


# Groups whose terms name *what is asked* about an object, so that one term in the question
# and another in the entry make two problems wherever they stand: properties of a figure or
# a substance, opposites, dynasties, grammatical forms (from the key-term groups), what a
# question asks about a text (its author, the line after, its meaning), sibling processes
# and quantities of school science, a war's outbreak and end. Other verbs and operations
# (建立/签订, add/sum) are left to the positional key-term check: students swap them for
# synonyms.
_SET_GROUPS = tuple(g for g in _GROUPS if any(t in g.split() for t in ("周长", "沸点", "最大", "秦朝", "过去式", "串联", "past", "area", "north"))) + (
    "作者 出自 比喻 下一句 上一句",
    "化学式 化学方程式 相对分子质量 物质的量 相对原子质量 原子序数 质子数 中子数 化合价",
    "周长 棱长总和 棱长和",
    "交集 并集 补集 差集",
    "intersection union complement",
    "自转 公转",
    "世界 我国 亚洲 非洲 欧洲 北美洲 南美洲 大洋洲 南极洲 英国 美国 日本 俄罗斯 法国 德国 印度 埃及 巴西 加拿大",
    "world china asia africa europe america australia antarctica britain england japan russia france germany india egypt brazil canada",
    "爆发 结束",
    "周长 斜边 斜边上的高 对角线",
    "省级行政区 地级市 县级市 城市",
    "太阳 地球 月球 水星 金星 火星 木星 土星 天王星 海王星",
    "河流 大洋 湖泊 沙漠 岛屿 高原 平原 盆地",
    "river ocean lake desert island plateau",
    "光合作用 呼吸作用 蒸腾作用",
    "体循环 肺循环",
    "速度 加速度 路程 位移 时间",
    "电阻 电压 电流 电功率 电能",
    "质量 重力 密度 压强 浮力",
    "功 功率",
    "slope midpoint intercept",
    "斜率 中点 截距",
    "red blue green yellow black white",
    "speed distance acceleration velocity",
    "tense participle",
)
_CONTRAST_GROUP, _CONTRAST_RE = _build_contrast()
# Quantities a problem asks for (时间 left out: "the time one orbit takes" is its period).
_QUANTITIES = frozenset(t for g in _SET_GROUPS for t in g.split() if t in _CONTRAST_GROUP and any(
    anchor in g.split() for anchor in ("周长", "物质的量", "速度", "电阻", "密度", "功率", "area", "speed"))) - {"时间"}
# A set operation written as its symbol is the operation named (A ∩ B asks for 交集).
_SET_OPERATIONS = str.maketrans({"∩": "交集", "∪": "并集"})
_SET_OPERATIONS_LATIN = str.maketrans({"∩": " intersection ", "∪": " union "})
# Words that name the same scope to a Chinese student, and a war's 开始 that is its 爆发: each
# read as the term of its group.
# (Synonyms of the near-copy check, such as 七大洲 for 世界 and 串在一起 for 串联, are read
# as their group's first term before these.)
_SAME_TERM = {"中国": "我国", "全国": "我国", "全球": "世界", "开始": "爆发"}
# A grammatical form named in Chinese is also the English term, so that 「go的过去分词」 is
# compared with "the past tense of go" as participle against tense.
_IN_ENGLISH = {"过去式": ("tense",), "过去分词": ("participle",), "现在分词": ("present", "participle"),
               "比较级": ("comparative",), "最高级": ("superlative",), "复数": ("plural",), "单数": ("singular",)}
# And an English term the Chinese one: "in parallel" is 并联.
_IN_CHINESE = {"parallel": ("并联",), "series": ("串联",), "past participle": ("过去分词",), "past tense": ("过去式",),
               "around the sun": ("公转",), "orbit the sun": ("公转",), "revolve": ("公转",),
               "on its axis": ("自转",), "rotate": ("自转",), "spin": ("自转",),
               "comparative": ("比较级",), "superlative": ("最高级",), "plural": ("复数",)}
_IN_CHINESE_RE = re.compile("|".join(rf"(?<![a-z]){re.escape(t)}(?![a-z])" for t in sorted(_IN_CHINESE, key=len, reverse=True)))


def other_expression(q: ProblemForm, e: ProblemForm) -> bool:
    """An expression of the question with two operators or more is not in the entry, while
    one of the entry's has the same operands: the same numbers arranged otherwise (a sign,
    an operator, a side of an inequality), unless it is one of the entry's equations with
    its terms or sides in another order. Or an equation or inequality in x or y is none of
    the entry's (see :func:`other_relation`)."""
    theirs_as_relations = _relations_of(e)
    for expr in q.expressions:
        if expr in e.maths or sum(expr.count(op) for op in _OPERATORS) < 2 \
                or theirs_as_relations.intersection(_relations(expr)):
            continue
        mine = sorted(_OPERAND.findall(expr))
        if any(sorted(_OPERAND.findall(theirs)) == mine for theirs in e.expressions):
            return True
    return other_relation(q, e) or reversed_operation(q, e) or other_operator(q, e)


def other_operator(q: ProblemForm, e: ProblemForm) -> bool:
    """An operation of the question has the two operands of one of the entry's, in the same
    order, under another operator (√48 × √3 against √48 ÷ √3): another result."""
    for expr in q.expressions:
        mine = _one_operator(expr)
        if mine is None or expr in e.maths:
            continue
        if any((theirs := _one_operator(t)) is not None and theirs[1] == mine[1] and theirs[0] != mine[0]
               for t in e.expressions):
            return True
    return False


def _one_operator(expr: str) -> tuple[str, tuple[str, ...]] | None:
    """(operator, (left, right)) of an expression with one of + - × / between two operands."""
    operators = [c for c in expr if c in "+-×/"]
    operands = tuple(_OPERAND.findall(expr))
    return (operators[0], operands) if len(operators) == 1 and len(operands) == 2 else None


def reversed_operation(q: ProblemForm, e: ProblemForm) -> bool:
    """A subtraction or division of the question is one of the entry's with its two
    operands the other way round (√3 ÷ √48 against √48 ÷ √3): another result."""
    for expr in q.expressions:
        operation = _lone_operation(expr)
        if operation is None or expr in e.maths:
            continue
        if any(_lone_operation(theirs) == (operation[0], operation[1][::-1]) for theirs in e.expressions):
            return True
    return False


def _lone_operation(expr: str) -> tuple[str, tuple[str, ...]] | None:
    """(operator, (left, right)) of an expression with one operator, a minus or a division
    between two different operands; else None."""
    found = _one_operator(expr)
    if found is None or found[0] not in "-/" or found[1][0] == found[1][1]:
        return None
    return found


def other_relation(q: ProblemForm, e: ProblemForm) -> bool:
    """Both problems state an equation or inequality in x or y, and one of the question's
    is none of the entry's, compared as relations: the terms of each side in any order, the
    two sides either way round (3 + 2x = 13 is 2x + 3 = 13; 3x + 2 = 13 is not). A
    question's relation with fewer terms than the entry's largest may be a piece the
    reading missed, so it decides nothing. In a system, each equation counts
    (x − y = −4 against x − y = 4)."""
    mine, theirs = _relations_of(q), _relations_of(e)
    if not mine or not theirs:
        return False
    biggest = max(map(_relation_size, theirs))
    return any(r not in theirs and _relation_size(r) >= biggest for r in mine)


Relation = tuple[tuple[str, ...], str, tuple[str, ...]]
_RELATION = re.compile(r"(<=|>=|≤|≥|=|<|>)")
_MIRRORED = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "<=": ">=", ">=": "<=", "=": "="}
_UNKNOWN = re.compile(r"(?<![a-z])[xy](?![a-z])")
_NOT_ALGEBRA = re.compile(r"[a-z]/[a-z]|[a-z]{2}")  # a unit (m/s) or a word


def _relations_of(p: ProblemForm) -> frozenset[Relation]:
    return _derived(p, "relations", lambda: frozenset(r for expr in p.expressions for r in _relations(expr)))


def _relations(expr: str) -> list[Relation]:
    parts = _RELATION.split(expr)
    if len(parts) != 3 or not parts[0] or not parts[2]:
        return []
    left, op, right = parts
    if not _UNKNOWN.search(left + right) or _NOT_ALGEBRA.search(left + right):
        return []
    a, b = _terms(left), _terms(right)
    return [(a, op, b), (b, _MIRRORED[op], a)]


def _terms(side: str) -> tuple[str, ...]:
    """The signed terms of one side at the top bracket level, sorted."""
    side = side.replace("×", "")
    side = side if side[0] in "+-" else "+" + side
    terms, depth, current = [], 0, ""
    for ch in side:
        depth += (ch in "([{") - (ch in ")]}")
        if ch in "+-" and depth == 0 and current not in ("", "+", "-"):
            terms.append(current)
            current = ""
        current += ch
    return tuple(sorted([*terms, current]))


def _relation_size(relation: Relation) -> int:
    return len(relation[0]) + len(relation[2])


_OPERATORS = "+-×/=<>≥≤≠"
_TUPLE = re.compile(r"[(（]\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*[)）]")


def other_tuple(q: ProblemForm, e: ProblemForm) -> bool:
    """A pair of numbers in brackets — a point, an interval — that the entry holds in
    another order ((2, 1) for (1, 2)): the same numbers, another point."""
    mine, theirs = _tuples_of(q), _tuples_of(e)
    return any(t not in theirs and t[::-1] in theirs and t[0] != t[1] for t in mine)


def _tuples_of(p: ProblemForm) -> frozenset[tuple[str, str]]:
    return _derived(p, "tuples", lambda: frozenset(_TUPLE.findall(unicodedata.normalize("NFKC", p.text))))
_OPERAND = re.compile(r"[a-z0-9.^{}]+")


def swapped_sides(q: ProblemForm, e: ProblemForm) -> bool:
    """Both ask what one thing has and another lacks, with the two the other way round
    (动物细胞有而植物细胞没有 against 植物细胞具有而动物细胞没有): the opposite answer."""
    mine, theirs = _sides_of(q), _sides_of(e)
    if not mine or not theirs or mine == theirs:
        return False
    (has, lacks), (e_has, e_lacks) = mine, theirs
    return _overlaps(has, e_lacks) and _overlaps(lacks, e_has) and not _overlaps(has, e_has)


def _overlaps(a: str, b: str) -> bool:
    return a in b or b in a


def _sides_of(p: ProblemForm) -> tuple[str, ...]:
    def read():
        match = _HAS_LACKS.search(p.form)
        return tuple(g for g in match.groups() if g) if match else ()
    return _derived(p, "sides", read)


_HAS_LACKS = re.compile(r"([\u4e00-\u9fff]{2,6}?)(?:所?具有|所?含有|有)而([\u4e00-\u9fff]{2,6}?)(?:通常|一般|却)?(?:没有|不具有|不含有?|无)"
                        r"|(?:in|of)(\w{3,20}?)butnot(?:in|of)?(\w{3,20}?)(?=$|[?.]|which|what)")


def other_sequence_target(q: ProblemForm, e: ProblemForm) -> bool:
    """Both are sequence problems, and one asks for the sum of the first terms where the
    other asks for a term (前 10 项和 S₁₀ against a₁₀): the same givens, another result."""
    mine, theirs = _sequence_target(q), _sequence_target(e)
    return bool(mine and theirs) and mine != theirs


def _sequence_target(p: ProblemForm) -> str:
    """"sum", "term", or "" (no sequence problem, or one that names neither)."""
    return _derived(p, "sequence target", lambda: _read_sequence_target(fold(p.text)))


def _read_sequence_target(folded: str) -> str:
    if not _SEQUENCE.search(folded):
        return ""
    if _SEQUENCE_SUM.search(folded):
        return "sum"
    return "term" if _SEQUENCE_TERM.search(folded) else ""


_SEQUENCE = re.compile(r"数列|公差|公比|首项|sequence|progression|common (?:difference|ratio)")
_SEQUENCE_SUM = re.compile(r"前\s*(?:\d+|n|[一二三四五六七八九十]+)\s*项(?:的|之)?(?:和|总和|加起来|相加|一共)|(?<![a-z/\d])s\s*_?\{?(?:\d+|n)\}?(?![a-z\d])"
                           r"|sum of the first")
# A term asked for: 求 a₁₀, a10 = ?, 第 10 项, "the 10th term".
_SEQUENCE_TERM = re.compile(r"(?:求|find|是多少|等于多少)\s*a\s*_?\{?(?:\d+|n)\}?(?![a-z\d])"
                            r"|(?<![a-z])a\s*_?\{?(?:\d+|n)\}?\s*(?:=|等于|是)\s*(?:多少|几|\?|？)"
                            r"|第\s*(?:\d+|[一二三四五六七八九十]+)\s*项(?![的之]?和)|\d+(?:st|nd|rd|th) term")


def each_for_sum(q: ProblemForm, e: ProblemForm) -> bool:
    """One asks for each one where the other asks for the sum (每个内角 against 内角和,
    "each interior angle" against "the sum of the interior angles"): the same figure,
    another answer. A side that names both (每个…一共) is a word problem, never vetoed."""
    mine, theirs = _each_or_sum(q), _each_or_sum(e)
    return bool(mine and theirs) and mine != theirs


def _each_or_sum(p: ProblemForm) -> str:
    """"each", "sum", or "" (neither, or both)."""
    def read():
        folded = fold(p.text)
        each, total = bool(_EACH.search(folded)), bool(_SUM.search(folded))
        return "each" if each and not total else "sum" if total and not each else ""
    return _derived(p, "each or sum", read)


_EACH = re.compile(r"每一?个|每一?条|每一?边|\beach\b|\bevery\b")
_SUM = re.compile(r"[\u4e00-\u9fff]和(?:是|为|等于|有|多少|[?？。]|$)|之和|总和|一共|\bsum\b|\btotal\b|\baltogether\b")


def other_asked_kind(q: ProblemForm, e: ProblemForm) -> bool:
    """The question asks who, when or where, and the entry asks something else of these
    (辛亥革命的领导人是谁 against 辛亥革命爆发于哪一年; 《背影》写于哪一年 against its author)."""
    mine, theirs = _asked_kinds(q), _asked_kinds(e)
    return bool(theirs) and bool(mine - theirs)


def _asked_kinds(p: ProblemForm) -> frozenset[str]:
    def read():
        folded = fold(p.text)
        return frozenset(kind for kind, pattern in _ASKED_KINDS.items() if pattern.search(folded))
    return _derived(p, "asked kinds", read)


_ASKED_KINDS = {
    "person": re.compile(r"谁|哪位|哪两位|哪个人|哪些人|什么人|\bwho(?:m|se)?\b"),
    "date": re.compile(r"哪一年|哪年|何年|哪一天|什么时候|什么时间|\bwhen\b|what year|which year"),
    "place": re.compile(r"在哪(?:里|儿)?(?![一年天个位些种])|什么地方|哪个地方|\bwhere\b"),  # not 在哪一年
}


def other_name(q: ProblemForm, e: ProblemForm) -> bool:
    """Each names a person or place, capitalised inside an English sentence, that the other
    text lacks (Vasco da Gama and India against Christopher Columbus and the Americas):
    another named thing. A name is present when the other text has a word starting with
    its first five letters, in any case (Americas for America), or a misspelling of it
    (Colombus); acronyms (DNA, SI) and a sentence's first word are no names."""
    mine, theirs = _names_of(q), _names_of(e)
    if not mine or not theirs:
        return False
    q_words, e_words = _latin_words(q), _latin_words(e)
    return any(not _named_in(n, e_words) for n in mine) and any(not _named_in(n, q_words) for n in theirs)


def _names_of(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "names", lambda: frozenset(m.group(1).lower() for m in _NAME.finditer(p.text)))


def _latin_words(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "latin words", lambda: frozenset(re.findall(r"[a-z]+", p.text.lower())))


def _named_in(name: str, words: frozenset[str]) -> bool:
    return _stem_in(name, words) or _near_word(name, words)


# A capitalised word after a lower-case word or a comma: not a sentence's first word.
_NAME = re.compile(r"(?<=[a-z,] )([A-Z][a-z]{2,})(?![A-Za-z])")


def other_element(q: ProblemForm, e: ProblemForm) -> bool:
    """Both name chemical elements (镁原子, 钠元素), and the question one the entry does not."""
    mine, theirs = _elements_of(q), _elements_of(e)
    return bool(theirs) and bool(mine - theirs)


def _elements_of(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "elements", lambda: frozenset(_ELEMENT.findall(p.form)))


_ELEMENT = re.compile(r"([氢氦锂铍硼碳氮氧氟氖钠镁铝硅磷硫氯氩钾钙锰铁铜锌银金汞])(?=元素|原子|离子|单质)")


def other_time_asked(q: ProblemForm, e: ProblemForm) -> bool:
    """One asks how long something lasted (经历了多少年, how many years) where the other asks
    in which year it happened: another answer from the same dates."""
    mine, theirs = _time_asked(q), _time_asked(e)
    return bool(mine and theirs) and mine != theirs


def _time_asked(p: ProblemForm) -> str:
    """"duration", "date", or "" (neither asked)."""
    return _derived(p, "time asked", lambda: _read_time_asked(fold(p.text)))


def _read_time_asked(folded: str) -> str:
    if _DURATION.search(folded):
        return "duration"
    return "date" if _DATE.search(folded) else ""


_DURATION = re.compile(r"(?:经历|持续|历时|一共|共|存在|统治|维持|延续|相隔|间隔|隔|相差|差)了?\s*(?:多少|几)\s*(?:年|个?世纪)"
                       r"|(?:多少|几)年(?:的)?时间|how many years|how long did")
_DATE = re.compile(r"哪一年|哪年|何年|什么时候|什么时间|what year|which year|\bwhen\b")


def other_solution_part(q: ProblemForm, e: ProblemForm) -> bool:
    """A mass of the question is the solvent's where the entry's is the solution's, or the
    other way round (100 g 水 against 100 g 氯化钠溶液): another fraction."""
    mine, theirs = _solution_parts(q), _solution_parts(e)
    return any(theirs.get(number, part) != part for number, part in mine.items())


def _solution_parts(p: ProblemForm) -> dict[str, str]:
    return _derived(p, "solution parts", lambda: {
        m.group(1) or m.group(4): "solution" if m.group(2) or m.group(6) else "solvent"
        for m in _SOLUTION_PART.finditer(fold(p.text))})


_SOLUTION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(?:g|克|kg|千克)\s*的?\s*(?:([\u4e00-\u9fff]{0,8}?溶液)|(水|溶剂))"
                            r"|(\d+(?:\.\d+)?)\s*k?g\s+(?:of\s+)?(?:(water|solvent)\b|(?:[a-z]+\s+){0,2}(solution)\b)")


def reversed_reaction(q: ProblemForm, e: ProblemForm) -> bool:
    """A reaction of the question runs the entry's the other way: what the entry makes
    from is what the question makes, and the other way round (氧气和水反应生成过氧化氢
    against 用过氧化氢溶液制取氧气)."""
    mine, theirs = _reaction_sides(q), _reaction_sides(e)
    if not mine or not theirs:
        return False
    (q_from, q_to), (e_from, e_to) = mine, theirs
    return _shared_name(q_to, e_from) and _shared_name(q_from, e_to) and not _shared_name(q_to, e_to)


def _reaction_sides(p: ProblemForm) -> tuple[str, ...]:
    """(what it is made from, what it makes), or () for no reaction."""
    return _derived(p, "reaction sides", lambda: _read_reaction_sides(p.form))


def _read_reaction_sides(form: str) -> tuple[str, ...]:
    form = same_terms(form)
    match = _MAKES.search(form)
    if match is None:
        return ()
    return _REACTION_WORDS.sub("|", form[: match.start()]), _REACTION_WORDS.sub("|", form[match.end():])


def _shared_name(a: str, b: str) -> bool:
    """Two sides name a substance in common: two or more characters in a row."""
    return any(a[i : i + 2] in b for i in range(len(a) - 1) if "|" not in a[i : i + 2])


_MAKES = re.compile(r"反应生成|生成|制取|制得|制备")
_REACTION_WORDS = re.compile(r"的?化学方程式|写出|实验室|反应|用|和|与|的|在|中|加热|条件下|点燃")


def vetoed(q: ProblemForm, e: ProblemForm, key_term_swap: bool) -> str | None:
    """Why the entry is certainly another problem, or None: a given of the question is not
    in the entry, an exponent or index differs, an expression has the entry's operands in
    another arrangement, a quoted span of the question is not in the entry, or a key term
    is swapped for its opposite."""
    if givens_missing(q, e):
        return "givens"
    if conditions_missing(q, e):
        return "condition left out"
    if other_script(q, e) or raised_unlike_entry(q, e):
        return "scripts"
    if other_formula(q, e) or other_symbol(q, e):
        return "formula"
    if q.genotypes and e.genotypes and q.genotypes != e.genotypes:
        return "genotype"
    if other_expression(q, e) or other_tuple(q, e) or reversed_reaction(q, e):
        return "expression"
    if other_span(q, e) or other_task_content(q, e):
        return "span"
    if other_units(q.measures, e.measures) or swapped_roles(q.measures, e.measures) \
            or mixed_units(q.measures, e.measures) or other_solution_part(q, e) \
            or other_unit_asked(q.measures, e.measures) or other_quantity_given(q.measures, e.measures):
        return "units"
    if more_negation(q, e):
        return "negation"
    if key_term_swap or contrast_swap(q, e) or other_quantity(q, e) or other_rank(q, e) or more_ordinal(q, e) \
            or close_copy_swap(q.text, e.text) is not None:
        return "key term"
    if other_element(q, e) or other_name(q, e):
        return "key term"
    if other_sequence_target(q, e) or other_time_asked(q, e) or swapped_sides(q, e) or other_asked_kind(q, e) \
            or each_for_sum(q, e):
        return "asked"
    return None


def _share(mine: set[str], theirs: set[str]) -> float:
    return len(mine & theirs) / len(mine) if mine else 0.0


def _capped(count: int) -> float:
    return min(float(count), CAP)


def _covered(span: str, form: str) -> bool:
    if span in form:
        return True
    grams = trigrams(span)
    return bool(grams) and len(grams & trigrams(form)) / len(grams) >= SPAN_COVERAGE


def _unit_shares(q_units: frozenset[str], e_units: frozenset[str], vocab: BankVocabulary) -> tuple[float, float, float]:
    """(the IDF-weighted share of the question's units that the bank knows but this entry
    lacks — another named thing; the share of the question's units the bank has never seen
    — new words; the IDF-weighted share of the entry's units the question lacks)."""
    if not q_units:
        return 0.0, 0.0, 1.0
    q_weight = sum(vocab.idf(u) for u in q_units)
    known_missing = sum(vocab.idf(u) for u in q_units - e_units if vocab.doc_freq.get(u, 0))
    unknown = sum(1 for u in q_units if not vocab.doc_freq.get(u, 0)) / len(q_units)
    e_weight = sum(vocab.idf(u) for u in e_units) or 1.0
    entry_missing = sum(vocab.idf(u) for u in e_units - q_units) / e_weight
    return known_missing / q_weight, unknown, entry_missing


#: A question whose content weighs this many rare pieces carries the full information
#: of a school problem; a bare keyword («长方形») carries a fraction of it.
INFO_UNITS = 4.0


def salient_content(q: ProblemForm, e: ProblemForm, vocab: BankVocabulary) -> tuple[float, float, float, float]:
    """How much *rare* content one side has that the other lacks, weighed by bank-wide
    rarity, not by a list of names: the characters of a chemical, an organ, a country or a
    person are rare in the bank, those of question words common.

    Returns (the rarest piece — CJK character or Latin word — of the question that the
    entry lacks; the rarest piece of the entry that the question lacks; the smaller of the
    two: one named thing put in place of another, 氯酸钾 for 高锰酸钾, 器官 for 消化腺; how
    much rare content the question carries at all, 0–1: a bare keyword carries little). A
    Latin word is present when the other text has a word starting with its first five
    letters (plurals, tenses, a typo at the end)."""
    mine, theirs = _pieces_of(q), _pieces_of(e)
    extra = max((vocab.piece_rarity(p) for p in mine - theirs if not _stem_in(p, theirs)), default=0.0)
    missing = max((vocab.piece_rarity(p) for p in theirs - mine if not _stem_in(p, mine)), default=0.0)
    info = sum(vocab.piece_rarity(p) for p in mine) + 0.5 * min(len(q.givens) + len(q.expressions), 2)
    return extra, missing, min(extra, missing), min(1.0, info / INFO_UNITS)


def lone_swap(q: ProblemForm, e: ProblemForm, vocab: BankVocabulary) -> float:
    """A near copy of the entry with one stretch replaced, weighed by how rare the rarer
    piece of each side is (the smaller of the two): 器官 for 消化腺 in an otherwise equal
    question is one named thing for another; a common word for a common word is wording."""
    found = lone_replacement(q.text, e.text)
    if found is None:
        return 0.0
    mine, theirs = (_pieces(search_form(side)) for side in found)
    if not mine or not theirs:
        return 0.0
    return min(max(vocab.piece_rarity(p) for p in mine), max(vocab.piece_rarity(p) for p in theirs))


def _stem_in(piece: str, other: frozenset[str]) -> bool:
    if not piece.isascii() or len(piece) < 4:
        return False
    stem = piece[:5]
    return any(w.startswith(stem) or (len(w) >= 4 and stem.startswith(w)) for w in other if w.isascii())


def _pieces_of(p: ProblemForm) -> frozenset[str]:
    return _derived(p, "pieces", lambda: frozenset(_pieces(p.form)))


def _pieces(form: str) -> set[str]:
    """CJK characters and Latin words of two letters or more of a search form."""
    return {w for w in re.findall(r"[a-z]{2,}", form)} | set("".join(re.findall(r"[\u3400-\u9fff]", form)))
