"""What a problem is made of, read from its text: the pieces verification compares.

:func:`read_problem` turns a question (a student's or a bank entry's) into a
:class:`ProblemForm`:

* ``givens``: the plain numbers, in one canonical form: NFKC digits, one minus sign,
  thousands separators dropped ("50 000", "50,000" → 50000), trailing decimal zeros dropped
  ("3.50" → 3.5), Chinese numerals before a measure word (两小时 → 2). Digits written as
  super- or subscripts, or typed as their ASCII stand-ins (``x^2``, ``a_1``, ``x2``, ``a1``),
  are *not* givens: they are exponents and indices, kept in ``scripts`` (``x^2``, ``a^1``),
  so x² and x2 read alike and neither is the given 2. Digits inside a chemical formula
  (H₂O, CO2) are scripts of their element.
* ``expressions``: runs of maths with at least one operator, spaces removed, in one
  notation (``*`` → ×, ÷ → /, − → -, 加/plus → +, …): x² + 3x + 2 and x² − 3x + 2 differ.
* ``spans``: salient spans: quoted text (“” 「」 『』 "" ''), titles in 《》, and the words in
  brackets of a fill-in-the-blank ("(go / goes / went)", "（D）").
* ``negations``: how often the question negates (不/没/非/无, "not", "which is NOT",
  不正确的是); the A不A question form (是不是, 会不会) is not a negation.
* ``bigrams``: the content units compared against the bank's vocabulary: CJK character
  pairs and Latin words, in search form.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from appliance.ask.key_term_swap import formal_names
from appliance.ask.measures import Measures, read_measures
from appliance.common.textnorm import fold, numbers, search_form, trigrams

#: Only the start of a longer text is read: a school problem fits, and the regular
#: expressions below stay fast on any input.
MAX_CHARS = 600

_SUPERS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUBS = str.maketrans("₀₁₂₃₄₅₆₇₈₉ₙ", "0123456789n")
_SUPER_RUN = re.compile(r"([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)")
_SUB_RUN = re.compile(r"([₀₁₂₃₄₅₆₇₈₉ₙ]+)")
# An element symbol before digits makes them a formula's subscript (H2O, CO₂, NH3, Fe3O4):
# they become private-use characters, neither givens nor exponents.
_FORMULA_DIGITS = re.compile(r"(?:(?<=[A-Z])|(?<=[A-Z][a-z]))([0-9₀-₉]+)")
_FORMULA_MAP = str.maketrans({**{str(d): chr(0xE000 + d) for d in range(10)},
                              **{chr(0x2080 + d): chr(0xE000 + d) for d in range(10)}})
# ASCII stand-ins for a script: x^2, x**2, a_10, and a letter directly followed by digits
# (x2, a10, log2), which students type for x², a₁₀, log₂.
_ASCII_SCRIPT = re.compile(r"(?<=[A-Za-z)])\s*(?:\^|\*\*|_)\s*[({]?(-?\d+)[)}]?|(?<=(?<![a-z])[a-z])(\d+)(?![\d.])|(?<=log)(\d+)(?![\d.])")
_SCRIPT_TOKEN = re.compile(r"([a-z0-9)])\^\{(-?\d+|n)\}")
_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})((?:[,\u00a0\u2009\u202f ]\d{3})+)(?![\d.]|,\d)")
_MINUS = str.maketrans({"−": "-", "–": "-", "—": "-", "﹣": "-", "－": "-", "＊": "*"})

_MATH_CHARS = r"0-9a-z.^()√%πα-ω°'"
_OPERATORS = "+-×/=<>≥≤≠±"
# A match starts only where a run of maths characters starts: trying every position inside
# a long run would cost time quadratic in its length.
_EXPRESSION = re.compile(
    rf"(?<![{_MATH_CHARS}\[\]{{}}|])[{_MATH_CHARS}\[\]{{}}|]*+(?:\s*[{re.escape(_OPERATORS)}]\s*-?[{_MATH_CHARS}\[\]{{}}|]+)+"
)
_SPANS = re.compile(r"“([^”]{1,80})”|「([^」]{1,80})」|『([^』]{1,80})』|《([^》]{1,40})》"
                    r"|\"([^\"]{1,80})\"|(?<![A-Za-z])'([^']{1,40})'|[(（]([^()（）]{1,40})[)）]")
_NEGATIONS = re.compile(r"不|没|非|无|未|错误|\bnot\b|n't\b|\bnever\b|\bexcept\b|\bfalse\b|\bincorrect\b|\bwrong\b")
# 是不是, 会不会, 能不能: a yes-no question, not a negation. 不同/无关 style compounds stay.
_A_NOT_A = re.compile(r"(.)不\1|我不会|不会做|不会写|不会算|不会解|不懂|不知道|不明白|不太|不清楚|没学|没听懂|don't know|do not know|don't understand|do not understand|not sure")
# School words that hold a negation character but negate nothing: 不等式 (an inequality),
# 不平等条约, 无理数, 非洲, 未知数, 非金属, 无机物, 不规则, 不饱和, 不定式, 不可数名词.
_NOT_NEGATIONS = re.compile(r"不等式|不等号|不平等|不规则|不饱和|不定式|不可数|不对称|无理数|无机|无脊椎|无性|"
                            r"非洲|非金属|非晶体|未知数|未成年|uncountable|non-metal")
_LATIN_WORD = re.compile(r"[a-z]+")
_CJK = re.compile(r"[\u3400-\u9fff]+")


@dataclass(frozen=True)
class ProblemForm:
    text: str
    form: str
    givens: Counter
    scripts: Counter
    expressions: tuple[str, ...]
    maths: str
    spans: tuple[str, ...]
    negations: int
    bigrams: frozenset[str]
    grams: frozenset[str]
    #: Chemical formulas with digits (h2o, co2, kmno4), lower case.
    formulas: frozenset[str]
    #: Genotypes, case kept (Dd, dd, AaBb): case is what tells them apart.
    genotypes: frozenset[str]
    #: Every digit string written as an exponent or index ("2" for x², "10" for a₁₀).
    script_values: frozenset[str]
    #: Units of measurement: the givens with their units, the units named.
    measures: Measures
    #: The givens less those of a note of constants ("（π 取 3.14）", "taking g = 10 m/s²",
    #: "(H = 1, O = 16)"): the conditions that make the problem this one.
    conditions: Counter = field(default_factory=Counter)
    #: Features derived from this form later (pair_features), kept as long as the form is:
    #: a bank question's for as long as its form is cached, a student's for one ask.
    derived: dict = field(default_factory=dict, compare=False, hash=False, repr=False)


def read_problem(text: str) -> ProblemForm:
    text = text[:MAX_CHARS]
    marked = mark_scripts(text)
    scripts = Counter(m.group(1) + "^" + m.group(2) for m in _SCRIPT_TOKEN.finditer(marked))
    givens = _plain_numbers(marked)
    stripped = without_constants(text)
    canonical = canonical_maths(text)
    expressions = tuple(dict.fromkeys(e for e in _expressions(canonical) if e))
    form = formal_names(search_form(text))
    return ProblemForm(
        text=text, form=form, givens=givens,
        scripts=scripts, expressions=expressions, maths=re.sub(r"\s+", "", canonical),
        spans=tuple(dict.fromkeys(s for s in (search_form(s) for s in _spans(text)) if s)),
        negations=len(_NEGATIONS.findall(_NOT_NEGATIONS.sub("", _A_NOT_A.sub("", fold(text))))), bigrams=frozenset(units(form)),
        grams=frozenset(trigrams(form)), formulas=frozenset(formulas(text)),
        genotypes=genotypes(text), script_values=frozenset(s.split("^")[1] for s in scripts),
        measures=read_measures(text),
        conditions=givens if stripped == text else _plain_numbers(mark_scripts(stripped)),
    )


def _plain_numbers(marked: str) -> Counter:
    """The givens of a text marked by :func:`mark_scripts`: its numbers less its scripts."""
    return numbers(_THOUSANDS.sub(_join_thousands, _SCRIPT_TOKEN.sub(lambda m: m.group(1) + " ", marked)))


# A note of constants: brackets holding 取 or "=" ((π 取 3.14), (H = 1, O = 16)), or a
# constant set in the sentence (g 取 10 N/kg, taking g = 10 m/s², ρ水 = 1.0 × 10³ kg/m³).
_CONSTANT_NOTE = re.compile(r"[(（][^()（）]*(?:取|=|＝|:|：)[^()（）]*[)）]")
_CONSTANT = re.compile(r"(?:\b(?:taking|take|use|using|with)\s+)?(?<![A-Za-z])(?:g|π|pi|ρ\S?)\s*(?:取|=|＝|≈|为)\s*"
                       r"\d+(?:\.\d+)?(?:\s*[×x]\s*10\s*(?:\^\s*-?\d+|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+))?", re.IGNORECASE)


def without_constants(text: str) -> str:
    return _CONSTANT.sub(" ", _CONSTANT_NOTE.sub(" ", text))


# One or two gene pairs, each a letter in its two cases or twice in one case: Dd, dd, AaBb.
_GENOTYPE = re.compile(r"(?<![A-Za-z])((?:(?i:([a-z])\2)){1,2})(?![A-Za-z])")
_FORMULA = re.compile(r"(?<![A-Za-z])((?:[A-Z][a-z]?[0-9₀-₉]*){1,6})(?![a-z])")


def genotypes(text: str) -> frozenset[str]:
    """Genotypes, case kept, in a text that writes some gene letter in both cases (Dd, or
    DD beside dd): elsewhere "cc" or "dd" is no genotype."""
    found = frozenset(m.group(1) for m in _GENOTYPE.finditer(unicodedata.normalize("NFKC", text)))
    upper = {c for g in found for c in g if c.isupper()}
    lower = {c.upper() for g in found for c in g if c.islower()}
    return found if upper & lower else frozenset()


def formulas(text: str) -> set[str]:
    """Chemical formulas written with a digit (H₂O, CO2, KMnO₄), in lower case ASCII."""
    found = set()
    for match in _FORMULA.finditer(unicodedata.normalize("NFC", text)):
        written = match.group(1)
        token = unicodedata.normalize("NFKC", written)
        if any(c.isdigit() for c in token) and any(c.isalpha() for c in token) and not token[0].isdigit() \
                and not _lone_element_count(written):
            found.add(token.lower())
    return found


# Element symbols a school problem names; a capitalised token made of two of them or more
# (CO, NaCl, HCl) is a formula in a Chinese problem, digits or not.
ELEMENTS = frozenset("H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Mn Fe Cu Zn Ag Ba Hg Pb I Br Au".split())
_ELEMENT_RUN = re.compile(r"(?<![A-Za-z])((?:[A-Z][a-z]?){2,6})(?![A-Za-z0-9₀-₉])")


def named_formulas(text: str) -> set[str]:
    """:func:`formulas` and, in a text with Chinese in it, formulas written without a
    digit (CO beside CO₂, KCl beside NaCl); in English a capitalised word may be one
    (NO, BE), so there only formulas with digits count."""
    found = formulas(text)
    if _CJK.search(text):
        for match in _ELEMENT_RUN.finditer(unicodedata.normalize("NFKC", text)):
            if all(symbol in ELEMENTS for symbol in re.findall(r"[A-Z][a-z]?", match.group(1))):
                found.add(match.group(1).lower())
    return found


def _lone_element_count(token: str) -> bool:
    """One symbol typed with two plain digits or more ("C12") is a symbol with its value,
    not a formula (O2, Cl2 and C6H12O6 are; S₁₀, written as a subscript, stays a symbol)."""
    return re.fullmatch(r"[A-Z][a-z]?\d{2,}", token) is not None


def mark_scripts(text: str) -> str:
    """The text with every exponent or index written ``base^digits`` (lower case, NFKC):
    x² → x^2, a₁₀ → a^10, H₂O → h^2o, x**2 → x^2, a_1 → a^1, x2 → x^2."""
    text = text.translate(_MINUS)
    text = _FORMULA_DIGITS.sub(lambda m: m.group(1).translate(_FORMULA_MAP), text)
    text = _SUPER_RUN.sub(lambda m: "^{" + m.group(1).translate(_SUPERS) + "}", text)
    text = _SUB_RUN.sub(lambda m: "^{" + m.group(1).translate(_SUBS) + "}", text)
    text = unicodedata.normalize("NFKC", text).lower()
    return _ASCII_SCRIPT.sub(lambda m: "^{" + (m.group(1) or m.group(2) or m.group(3)) + "}", text)


def canonical_maths(text: str) -> str:
    """One notation for maths: scripts marked, operator words as symbols, ``*`` → ×,
    ÷ → /, every minus sign → -, thousands separators dropped."""
    marked = _THOUSANDS.sub(_join_thousands, mark_scripts(text))
    folded = re.sub(r"sqrt\s*", "√", fold(marked)).replace("*", "×").replace("÷", "/").replace("·", "×").replace("∶", ":")
    return folded.translate(_MINUS)


def _join_thousands(match: re.Match) -> str:
    return match.group(1) + re.sub(r"\D", "", match.group(2))


def _expressions(canonical: str) -> list[str]:
    found = []
    for match in _EXPRESSION.finditer(canonical):
        expr = _balanced(re.sub(r"\s+", "", match.group(0)).strip(".:=").lstrip("=<>"))
        if any(op in expr for op in _OPERATORS) and (any(c.isdigit() for c in expr) or "^" in expr) \
                and len(expr) >= 3 and not _ratio_only(expr):
            found.append(expr)
    return found


def _balanced(expr: str) -> str:
    """The expression less an unmatched bracket at either end ("o-16)" → "o-16")."""
    while expr.endswith(")") and expr.count(")") > expr.count("("):
        expr = expr[:-1]
    while expr.startswith("(") and expr.count("(") > expr.count(")"):
        expr = expr[1:]
    return expr


def _ratio_only(expr: str) -> bool:
    """"1:100000" (a scale), "h-1" (a relative atomic mass) or "5-sided" (a word) is not an
    expression."""
    words = set(re.findall(r"[a-z]{3,}", expr)) - _FUNCTIONS
    return bool(re.fullmatch(r"\d+:\d+|[a-z]+-\d+", expr)) or bool(words)


_FUNCTIONS = {"sin", "cos", "tan", "cot", "log", "sqrt", "lg", "ln"}


def _spans(text: str) -> list[str]:
    """Quoted text and titles always; words in round brackets only in a fill-in-the-blank
    (the text has a blank: ___, （ ）): elsewhere a bracket holds a note — （要过程）, (urgent)."""
    text = unicodedata.normalize("NFC", text)
    blank = _BLANK.search(text) is not None
    spans = []
    for match in _SPANS.finditer(text):
        span = match.group(7)
        if span is None:
            spans.append(next(g for g in match.groups() if g is not None).strip())
        elif blank and not _is_filler_bracket(span.strip()):
            spans.append(span.strip())
    return [s for s in spans if s]


_BLANK = re.compile(r"_{2,}|＿{2,}|[(（]\s*[)）]|【\s*】")


def _is_filler_bracket(span: str) -> bool:
    """Brackets that hold a given or a note rather than a cue: （π 取 3.14）, (g = 10 N/kg), (1, 2)."""
    return any(c.isdigit() for c in span) or len(span) > 24


def units(form: str) -> set[str]:
    """Content units of a text in search form: CJK character pairs (a lone character
    counts as itself) and Latin words of two letters or more."""
    found = {w for w in _LATIN_WORD.findall(form) if len(w) >= 2}
    for run in _CJK.findall(form):
        if len(run) == 1:
            found.add(run)
        found.update(run[i:i + 2] for i in range(len(run) - 1))
    return found


# A numbered preface students put before a problem: 第3题, 例2, Homework 2:, Q3., 3. …
_PREFACE = re.compile(
    r"^\s*(?:(?:第\s*[\d一二三四五六七八九十]+\s*(?:题|小题|问)|例\s*\d+|练习\s*\d+|作业\s*\d+"
    r"|(?:homework|exercise|question|problem|task|hw|ex|q)\s*\.?\s*\d+[a-z]?)\s*[:：.、)）,，-]?"
    r"|\d{1,2}\s*[.、)）]\s*(?![\d])"
    r"|[\u4e00-\u9fff]{0,4}(?:填空|选择|判断|练习|作业|习题|思考|应用|解答|问答)题?\s*\d{1,3}\s*[:：.、)）]?(?![\d.]))\s*",
    re.IGNORECASE,
)


def strip_preface(text: str) -> str:
    """The question without a numbered preface ("第3题：", "Homework 2:", "3. "), whose
    number is no given of the problem."""
    stripped = _PREFACE.sub("", text, count=1)
    return stripped if stripped.strip() else text
